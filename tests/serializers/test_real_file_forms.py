"""Forms that real files use and EMF reads (found by the real corpus,
`tests.emf.realmetamodels`), here on small documents of our own:

* ``.ecore`` references written as elements with an ``href`` (``<eType href>``,
  ``<eSuperTypes href>``, ``<eClassifier href>`` inside a generic type), as EMF writes
  them without its encoded attribute style (the npm ``ecore`` package's tests);
* a referenced metamodel named by a relative path in ``eClassifier`` (EMF's change model
  refers to ``../../org.eclipse.emf.ecore/model/Ecore.ecore`` that way);
* a data type without an EMF-faithful mapping (``EJavaObject``) used by transient
  features only (Eclipse's ``UIElements.ecore``): its models read; a value of it is
  refused at its line;
* an ``xmi:id`` given twice (Eclipse's ``LegacyIDE.e4xmi``): read as EMF reads it;
* a ``.ecore`` document given to the XMI reader as an instance model of Ecore (every
  real metamodel is one): refused at its root, saying which reader takes it, whether
  PyEcore's own Ecore or one read from ``Ecore.ecore`` is registered (reflectively, it
  would not be what EMF reads: Ecore's classes compute each typed element's generic type;
  and PyEcore's ``EClass`` cannot be made without a name).
"""

from __future__ import annotations

from pathlib import Path

import pyecore.ecore
import pytest
from pyecore.ecore import EAttribute, EClass, EDataType, EPackage, EReference, EString
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, ecore, xmi
from cfmodel.transforms.cf.ecore_import import read_ecore_files
from tests.emf.realmetamodels import emf_jar_models, for_tests

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<ecore:EPackage xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xmlns:ecore="http://www.eclipse.org/emf/2002/Ecore" '
)
HREFS = (
    HEAD + 'name="shop" nsURI="http://example.org/shop" nsPrefix="shop">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Named" abstract="true">\n'
    '    <eStructuralFeatures xsi:type="ecore:EAttribute" name="name">\n'
    '      <eType xsi:type="ecore:EDataType" href="http://www.eclipse.org/emf/2002/Ecore#//EString"/>\n'
    "    </eStructuralFeatures>\n"
    "  </eClassifiers>\n"
    '  <eClassifiers xsi:type="ecore:EClass" name="Item">\n'
    '    <eSuperTypes href="#//Named"/>\n'
    '    <eStructuralFeatures xsi:type="ecore:EAttribute" name="count">\n'
    "      <eGenericType>\n"
    '        <eClassifier xsi:type="ecore:EDataType" href="http://www.eclipse.org/emf/2002/Ecore#//EInt"/>\n'
    "      </eGenericType>\n"
    "    </eStructuralFeatures>\n"
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="next" eType="#//Item"/>\n'
    "  </eClassifiers>\n"
    "</ecore:EPackage>\n"
)
ATTRIBUTE_FORM = HREFS.replace('<eSuperTypes href="#//Named"/>\n', "").replace(
    'name="Item">', 'name="Item" eSuperTypes="#//Named">'
)


def _structure(pkg: EPackage) -> list[str]:
    return canonical.dump_packages([pkg])


def test_href_elements_read_as_the_attribute_form(tmp_path: Path) -> None:
    (elements,) = ecore.from_bytes(HREFS.encode(), "shop.ecore", ResourceSet()).roots
    (attributes,) = ecore.from_bytes(ATTRIBUTE_FORM.encode(), "shop2.ecore", ResourceSet()).roots
    assert _structure(elements) == _structure(attributes)
    item = elements.getEClassifier("Item")
    assert [s.name for s in item.eSuperTypes] == ["Named"]
    assert item.findEStructuralFeature("count").eType.name == "EInt"
    assert elements.getEClassifier("Named").findEStructuralFeature("name").eType is EString


CHANGE_LIKE = (
    HEAD + 'name="change" nsURI="http://example.org/change" nsPrefix="change">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Entry">\n'
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="values" upperBound="-1">\n'
    '      <eGenericType eClassifier="ecore:EClass ../../base/model/Base.ecore#//Value"/>\n'
    "    </eStructuralFeatures>\n"
    "  </eClassifiers>\n"
    "</ecore:EPackage>\n"
)
BASE = (
    HEAD + 'name="base" nsURI="http://example.org/base" nsPrefix="base">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Value"/>\n'
    "</ecore:EPackage>\n"
)


def test_a_metamodel_named_by_path_in_a_generic_type_is_read_too(tmp_path: Path) -> None:
    (tmp_path / "base" / "model").mkdir(parents=True)
    (tmp_path / "change" / "model").mkdir(parents=True)
    (tmp_path / "base" / "model" / "Base.ecore").write_text(BASE, encoding="utf-8")
    change = tmp_path / "change" / "model" / "Change.ecore"
    change.write_text(CHANGE_LIKE, encoding="utf-8")
    packages = read_ecore_files([change], ResourceSet())
    assert [p.nsURI for p in packages] == ["http://example.org/change", "http://example.org/base"]
    values = packages[0].getEClassifier("Entry").findEStructuralFeature("values")
    assert values.eType is packages[1].getEClassifier("Value")


NS = "http://example.org/ui"


def _ui_metamodel() -> EPackage:
    pkg = EPackage("ui", nsURI=NS, nsPrefix="ui")
    java_object = EDataType("EJavaObject", instanceClassName="java.lang.Object")
    part = EClass("Part")
    part.eStructuralFeatures.append(EAttribute("elementId", EString, iD=True))
    part.eStructuralFeatures.append(EAttribute("widget", java_object, transient=True))
    part.eStructuralFeatures.append(EReference("children", part, upper=-1, containment=True))
    part.eStructuralFeatures.append(EReference("focus", part))
    pkg.eClassifiers.extend([java_object, part])
    return pkg


def _doc(body: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="ASCII"?>\n'
        f'<ui:Part xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" xmlns:ui="{NS}" '
        f"{body}</ui:Part>\n"
    ).encode()


def test_a_type_only_transient_features_use_does_not_stop_reading() -> None:
    rset = ResourceSet()
    rset.metamodel_registry[NS] = _ui_metamodel()
    doc = xmi.from_bytes(_doc('xmi:id="p0" elementId="root">\n  <children xmi:id="p1"/>\n'), rset, "a.xmi")
    assert [c.elementId for c in doc.roots] == ["root"]
    with pytest.raises(CfSerializationError) as exc:
        xmi.from_bytes(_doc('xmi:id="p0" elementId="root">\n  <children widget="w"/>\n'), rset, "b.xmi")
    assert exc.value.render().startswith(
        "b.xmi:3:1: error: Part.widget: bad EJavaObject value 'w': data type"
    )
    assert exc.value.code == "bad-value"
    assert "EJavaObject" in str(exc.value)


def test_an_id_given_twice_is_read_as_emf_reads_it() -> None:
    """What EMF 2.29's default load gives for this document (checked with EMF itself:
    root->second, first->first, second->second; with deferred resolution every
    reference names the second)."""
    rset = ResourceSet()
    rset.metamodel_registry[NS] = _ui_metamodel()
    body = (
        'xmi:id="p0" elementId="root" focus="twice">\n'  # the id is not known yet: resolved last
        '  <children xmi:id="twice" elementId="first" focus="twice"/>\n'  # known: the first
        '  <children xmi:id="twice" elementId="second" focus="twice"/>\n'  # now it names the second
    )
    doc = xmi.from_bytes(_doc(body), rset, "c.xmi")
    (root,) = doc.roots
    first, second = root.children
    assert (root.focus, first.focus, second.focus) == (second, first, second)
    assert doc.ids[first] == doc.ids[second] == "twice"
    assert canonical.dump_objects(doc.roots, doc.ids)[:2] == [
        "p0 : http://example.org/ui#//Part",
        '  elementId = "root"',
    ]


def test_a_bad_literal_is_reported_at_its_line_in_the_common_form() -> None:
    rset = ResourceSet()
    rset.metamodel_registry[NS] = _ui_metamodel()
    text = _doc(
        'elementId="root">\n  <children>\n    <elementId>a</elementId>\n    <widget>w</widget>\n  </children>\n'
    )
    with pytest.raises(CfSerializationError) as exc:
        xmi.from_bytes(text, rset, "d.xmi")
    assert exc.value.render().startswith("d.xmi:5:1: error: widget: bad EJavaObject value 'w'")


ECORE_DOCUMENT = (
    HEAD + 'name="tree" nsURI="http://example.org/tree" nsPrefix="tree">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Node">\n'
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="children" upperBound="-1" eType="#//Node"'
    ' containment="true"/>\n'
    "  </eClassifiers>\n"
    "</ecore:EPackage>\n"
)


@pytest.mark.parametrize("ecore_package", ["PyEcore's", "read from Ecore.ecore"])
def test_an_ecore_document_is_refused_as_an_instance_model(ecore_package: str, tmp_path: Path) -> None:
    rset = ResourceSet()
    if ecore_package == "PyEcore's":  # whose EClass cannot be made without a name: was a traceback
        rset.metamodel_registry[pyecore.ecore.nsURI] = pyecore.ecore.eClass
    else:  # was "unresolved reference '#//Node'" at line 4
        for_tests(lambda: emf_jar_models(tmp_path))  # Ecore.ecore of EMF's installed jar
        read_ecore_files([tmp_path / "Ecore.ecore"], rset)
    with pytest.raises(CfSerializationError) as refused:
        xmi.from_bytes(ECORE_DOCUMENT.encode(), rset, "tree.ecore")
    assert str(refused.value) == (
        "tree.ecore:2:1: error: an ecore:EPackage is part of a metamodel: read .ecore files with "
        "cfmodel.serializers.ecore or `cfmodel ecore import`, not as an instance model  [bad-xmi]"
    )
    # the reader meant for it reads it
    (package,) = ecore.from_bytes(ECORE_DOCUMENT.encode(), "tree.ecore", ResourceSet()).roots
    assert [c.name for c in package.eClassifiers] == ["Node"]
