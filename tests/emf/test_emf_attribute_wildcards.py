"""Attribute wildcards (XML Schema's ``anyAttribute``; ExtendedMetaData ``kind``
``attributeWildcard``) with real EMF as the oracle. EMF reads and writes them only with
``OPTION_EXTENDED_META_DATA`` (plain XMIResource refuses the attributes: tested), so the
checker runs with it (``extended_metadata=True``).

Two metamodels: one of our own (``##any`` lax, ``##other`` strict, and a package declaring
a global attribute typed ``EInt``), and XMLType.ecore's ``AnyType`` (from EMF's own jar)
held by a class of ours. Each document is read by EMF and re-saved; cfmodel reads EMF's
file as EMF does (same dump: the entries in order, with the features EMF made on demand),
writes it back byte for byte in EMF's layout, and what it writes in its own layout EMF
loads as the same model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, featuremaps, xmi
from cfmodel.serializers import ecore as ecore_files
from tests.emf.realmetamodels import emf_jar_models

from .emf import EmfChecker

EMD = "http:///org/eclipse/emf/ecore/util/ExtendedMetaData"
ECORE = "http://www.eclipse.org/emf/2002/Ecore"
XMLTYPE = "http://www.eclipse.org/emf/2003/XMLType"
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<ecore:EPackage xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    f' xmlns:ecore="{ECORE}"'
)


def _wildcard(name: str, wildcards: str, processing: str) -> str:
    return (
        f'    <eStructuralFeatures xsi:type="ecore:EAttribute" name="{name}" unique="false" upperBound="-1"'
        f' eType="ecore:EDataType {ECORE}#//EFeatureMapEntry">\n'
        f'      <eAnnotations source="{EMD}">\n'
        '        <details key="kind" value="attributeWildcard"/>\n'
        f'        <details key="wildcards" value="{wildcards}"/>\n'
        f'        <details key="name" value=":{name}"/>\n'
        f'        <details key="processing" value="{processing}"/>\n'
        "      </eAnnotations>\n    </eStructuralFeatures>\n"
    )


WEB = (
    HEAD + ' name="w" nsURI="http://example.org/w" nsPrefix="w">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Element">\n'
    f'    <eStructuralFeatures xsi:type="ecore:EAttribute" name="name" eType="ecore:EDataType {ECORE}#//EString"/>\n'
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="children" upperBound="-1"'
    ' eType="#//Element" containment="true"/>\n'
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="strict" eType="#//Strict" containment="true"/>\n'
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="extra" upperBound="-1"'
    f' eType="ecore:EClass {XMLTYPE}#//AnyType" containment="true"/>\n'
    + _wildcard("anyAttribute", "##any", "lax")
    + '    <eStructuralFeatures xsi:type="ecore:EAttribute" name="note" eType="ecore:EDataType'
    f' {ECORE}#//EString"/>\n'
    "  </eClassifiers>\n"
    '  <eClassifiers xsi:type="ecore:EClass" name="Strict">\n'
    + _wildcard("other", "##other", "strict")
    + "  </eClassifiers>\n</ecore:EPackage>\n"
)
# a package declaring the global attribute ext:level (its document root: the class whose
# ExtendedMetaData name is "")
EXT = (
    HEAD + ' name="ext" nsURI="http://example.org/ext" nsPrefix="ext">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="DocumentRoot">\n'
    f'    <eAnnotations source="{EMD}">\n      <details key="name" value=""/>\n'
    '      <details key="kind" value="mixed"/>\n    </eAnnotations>\n'
    '    <eStructuralFeatures xsi:type="ecore:EAttribute" name="level" eType="ecore:EDataType'
    f' {ECORE}#//EInt" volatile="true" transient="true" derived="true">\n'
    f'      <eAnnotations source="{EMD}">\n        <details key="kind" value="attribute"/>\n'
    '        <details key="name" value="level"/>\n        <details key="namespace" value="##targetNamespace"/>\n'
    "      </eAnnotations>\n    </eStructuralFeatures>\n"
    "  </eClassifiers>\n</ecore:EPackage>\n"
)
# attributes of no namespace, of a namespace no package declares (made on demand), of the
# declared ext:level (an int), in an order no feature order gives, on objects of our
# classes and on AnyType objects (with text EMF escapes)
DOC = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<w:Element xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" xmlns:w="http://example.org/w"'
    ' xmlns:x="http://example.org/ext" xmlns:o="urn:other:2" size="3" name="top" x:level="7"'
    ' o:color="red &amp; &lt;blue&gt;" note="n">\n'
    '  <children name="c" o:color="green"/>\n'
    '  <strict x:level="1"/>\n'
    '  <extra o:shade="dark" x:level="2"/>\n'
    "  <extra/>\n"
    "</w:Element>\n"
)


def _files(folder: Path) -> list[Path]:
    emf_jar_models(folder / "jar")
    shutil.copy(folder / "jar" / "XMLType.ecore", folder / "XMLType.ecore")
    shutil.rmtree(folder / "jar")
    (folder / "w.ecore").write_text(WEB, encoding="utf-8")
    (folder / "ext.ecore").write_text(EXT, encoding="utf-8")
    return [folder / "XMLType.ecore", folder / "w.ecore", folder / "ext.ecore"]


def _read(ecores: list[Path], doc: Path) -> xmi.Document:  # type: ignore[name-defined]
    rset = ResourceSet()
    for path in ecores:
        ecore_files.read(path, rset)
    return xmi.read(doc, rset)


def test_emf_reads_attribute_wildcards_only_with_extended_metadata(emf: EmfChecker, tmp_path: Path) -> None:
    ecores = _files(tmp_path)
    (tmp_path / "d.xmi").write_text(DOC, encoding="utf-8")
    report = emf.check(ecores, [tmp_path / "d.xmi"])
    assert any("Feature 'size' not found" in p for p in report.problems()), report.problems()


def test_attribute_wildcards_read_as_emf_reads_them_and_written_back_byte_for_byte(
    emf: EmfChecker, tmp_path: Path
) -> None:
    ecores = _files(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "d.xmi").write_text(DOC, encoding="utf-8")
    out = tmp_path / "emf"
    out.mkdir()
    report = emf.check(ecores, [tmp_path / "in" / "d.xmi"], resave_dir=out, extended_metadata=True)
    assert report.clean, report.problems()
    saved = out / "d.xmi"
    assert 'xmlns:other_2="urn:other:2"' in saved.read_text(encoding="utf-8")  # EMF's own prefix: other_2
    doc = _read(ecores, saved)
    dump = canonical.dump_objects(doc.roots, doc.ids)
    assert dump == report.dump("d.xmi")
    assert dump[5] == '  anyAttribute = [size="3", level=7, color="red & <blue>"]'
    (top,) = doc.roots
    size, level, color = top.anyAttribute
    assert size.value == "3" and featuremaps.attribute_namespace(size.feature) is None
    assert level.value == 7 and level.feature.eContainingClass.name == "DocumentRoot"
    assert featuremaps.attribute_namespace(color.feature) == "urn:other:2"
    assert top.children[0].anyAttribute[0].feature is color.feature  # one feature per name and namespace
    assert xmi.to_bytes(doc.roots, xmi.XmiOptions(emf_layout=True), location=saved) == saved.read_bytes()


def test_what_cfmodel_writes_of_attribute_wildcards_emf_loads_as_the_same_model(
    emf: EmfChecker, tmp_path: Path
) -> None:
    """(Without AnyType: cfmodel's layout types every child by its Ecore name, and EMF with
    ExtendedMetaData looks ``xsi:type`` up by ExtendedMetaData names, ``anyType`` there;
    EMF's layout, above, writes no ``xsi:type`` there, as EMF.)"""
    ecores = _files(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "d.xmi").write_text(
        DOC.replace('  <extra o:shade="dark" x:level="2"/>\n  <extra/>\n', "")
    )
    doc = _read(ecores, tmp_path / "in" / "d.xmi")
    ours = tmp_path / "ours.xmi"
    xmi.write(ours, doc.roots)
    text = ours.read_text(encoding="utf-8")
    assert ' name="top" note="n" size="3" ext:level="7" other_2:color="red &amp; &lt;blue&gt;">' in text
    report = emf.check(ecores, [ours], extended_metadata=True)
    assert report.clean, report.problems()
    again = _read(ecores, ours)
    assert canonical.dump_objects(again.roots, again.ids) == report.dump("ours.xmi")
    assert report.dump("ours.xmi") == canonical.dump_objects(doc.roots, doc.ids)


def test_a_strict_wildcard_refuses_an_attribute_no_package_declares(tmp_path: Path) -> None:
    ecores = _files(tmp_path)
    (tmp_path / "d.xmi").write_text(
        DOC.replace('<strict x:level="1"/>', '<strict o:x="1"/>'), encoding="utf-8"
    )
    with pytest.raises(CfSerializationError) as exc:
        _read(ecores, tmp_path / "d.xmi")
    assert str(exc.value).endswith(
        "d.xmi:4:1: error: class Strict has no feature 'x', and no package declares it for its"
        " wildcard other (strict processing)  [bad-xmi]"
    )


def test_entries_a_wildcard_does_not_admit_are_refused(tmp_path: Path) -> None:
    ecores = _files(tmp_path)
    doc = _read(ecores, _write(tmp_path / "d.xmi", DOC))
    (top,) = doc.roots
    strict = top.strict
    rset = top.eResource.resource_set
    strict.other.append(featuremaps.Entry(featuremaps.demand_attribute(rset, None, "plain"), "v"))
    strict.other.append(featuremaps.Entry(top.eClass.findEStructuralFeature("name"), "v"))
    top.anyAttribute[1].value = "seven"
    with pytest.raises(CfSerializationError) as exc:
        xmi.to_bytes(doc.roots)
    assert [n.message.split(": ", 1)[1] for n in exc.value.notes] == [
        "level value 'seven' is not a valid EInt",
        "other does not admit the namespace of plain",
        "other does not admit the namespace of name",
    ]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_emfs_prefixes_for_namespaces_made_on_demand() -> None:
    assert [
        featuremaps.compute_prefix(u)
        for u in ("http://example.org/ext", "urn:other:2", "http://x/1.0/", "http://a/ns-2", "2")
    ] == ["ext", "other_2", "x_1.0", "ns-2", "_2"]
