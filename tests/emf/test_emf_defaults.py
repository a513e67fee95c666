"""Unset attributes read as EMF reads them, on every data type cfmodel maps (issue 17,
"defaults typed exactly"): EMF omits defaults when it saves, so a model edited in EMF
comes back with its defaulted attributes unset, and plain PyEcore access (``obj.port``)
must then give EMF's value — ``443`` not ``"443"``, null not ``False`` for a
``java.lang.Boolean`` — for data types of a metamodel cfmodel read or lifted; and for
attributes typed by Ecore's own data types, cfmodel's reading (and plain access, but
for PyEcore's own unset ``EShort``) equals EMF's."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore import ecore as pyecore_types
from pyecore.ecore import EAttribute, EClass, EDataType, EPackage
from pyecore.resources import ResourceSet

from cfmodel.serializers import canonical, datatypes, ecore, xmi
from cfmodel.transforms.cf.ecore_import import read_ecore_files
from tests.lift.helpers import lifted

from .emf import EmfChecker

# A literal per Java class cfmodel maps (EMF's own spelling of the value).
SAMPLES = {
    "java.lang.String": "443",
    "boolean": "true",
    "java.lang.Boolean": "true",
    "int": "443",
    "java.lang.Integer": "443",
    "long": "9000000000",
    "java.lang.Long": "-9000000000",
    "short": "7",
    "java.lang.Short": "-7",
    "java.math.BigInteger": "123456789012345678901234567890",
    "double": "2.5",
    "java.lang.Double": "-0.125",
    "float": "1.5",
    "java.lang.Float": "0.25",
    "java.math.BigDecimal": "9.95",
    "java.util.Date": "2020-01-02T03:04:05.006+0000",
}


def test_every_mapped_java_class_has_a_sample() -> None:
    assert set(SAMPLES) == set(datatypes._BY_JAVA_CLASS)  # every Java class the codecs map


def _metamodel() -> EPackage:
    pkg = EPackage("defaults", nsURI="http://example.org/defaults", nsPrefix="defaults")
    holder = EClass("Holder")
    pkg.eClassifiers.append(holder)
    for index, (java, literal) in enumerate(sorted(SAMPLES.items())):
        dt = datatypes.make_faithful(EDataType(f"T{index}", instanceClassName=java))
        pkg.eClassifiers.append(dt)
        holder.eStructuralFeatures.append(EAttribute(f"plain{index}", dt))
        with_literal = EAttribute(f"given{index}", dt)
        with_literal.defaultValueLiteral = literal
        holder.eStructuralFeatures.append(with_literal)
    return pkg


def _unset_model(path: Path) -> None:
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<defaults:Holder xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" '
        'xmlns:defaults="http://example.org/defaults"/>\n',
        encoding="utf-8",
    )


def _plain_access_dump(obj: object) -> list[str]:
    """The Java checker's dump of one object, from plain PyEcore attribute access."""
    lines = [f"/0 : {canonical.type_ref(obj.eClass)}"]  # type: ignore[attr-defined]
    for f in obj.eClass.eAllStructuralFeatures():  # type: ignore[attr-defined]
        lines.append(f"  {f.name} = {canonical.value(getattr(obj, f.name), lambda o: '?', set())}")
    return lines


def test_unset_attributes_read_as_emf_reads_them(emf: EmfChecker, tmp_path: Path) -> None:
    mm, inst = tmp_path / "defaults.ecore", tmp_path / "holder.xmi"
    ecore.write(mm, _metamodel())
    _unset_model(inst)
    report = emf.check([mm], [inst])
    assert report.problems() == []
    rset = ResourceSet()
    ecore.read(mm, rset)
    doc = xmi.read(inst, rset)
    (holder,) = doc.roots
    assert _plain_access_dump(holder) == report.dump("holder.xmi")
    # and the two cases of the issue, spelled out
    java_index = {java: i for i, java in enumerate(sorted(SAMPLES))}
    assert getattr(holder, f"given{java_index['int']}") == 443
    assert getattr(holder, f"plain{java_index['java.lang.Boolean']}") is None
    assert getattr(holder, f"plain{java_index['boolean']}") is False


def test_a_lifted_typedef_default_is_typed(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "project.yml").write_text("name: p\n", encoding="utf-8")
    (project / "main.cf").write_text(
        "typedef port as int matching self > 0 and self < 65536\n"
        "typedef flag as bool matching self == true or self == false\n"
        "entity Server:\n    port port = 443\n    flag? tls = null\nend\n",
        encoding="utf-8",
    )
    metamodel = lifted(project)
    (server,) = (c for p in metamodel.packages for c in p.eClassifiers if c.name == "Server")
    instance = server()
    assert instance.port == 443
    assert instance.tls is None
    files = metamodel.write(tmp_path / "ecore")
    roots = read_ecore_files(files, ResourceSet())
    (read_back,) = (c for p in roots for c in p.eClassifiers if c.name == "Server")
    assert read_back().port == 443
    assert read_back().tls is None


@pytest.mark.parametrize("java", sorted(SAMPLES))
def test_to_string_and_from_string_are_emf_literals(java: str) -> None:
    dt = datatypes.make_faithful(EDataType("T", instanceClassName=java))
    value = dt.from_string(SAMPLES[java])
    assert not isinstance(value, str) or java == "java.lang.String"
    assert dt.from_string(dt.to_string(value)) == value


# A literal per Ecore built-in data type cfmodel maps (the same values, EMF's spelling).
BUILTIN_SAMPLES = {
    "EString": "443",
    "EBoolean": "true",
    "EBooleanObject": "true",
    "EInt": "443",
    "EIntegerObject": "443",
    "ELong": "9000000000",
    "ELongObject": "-9000000000",
    "EShort": "7",
    "EShortObject": "-7",
    "EBigInteger": "123456789012345678901234567890",
    "EDouble": "2.5",
    "EDoubleObject": "-0.125",
    "EFloat": "1.5",
    "EFloatObject": "0.25",
    "EBigDecimal": "9.95",
    "EDate": "2020-01-02T03:04:05.006+0000",
}


def test_unset_attributes_of_ecores_own_data_types_read_as_emf_reads_them(
    emf: EmfChecker, tmp_path: Path
) -> None:
    assert set(BUILTIN_SAMPLES) == set(datatypes._BY_ECORE_NAME)  # every built-in the codecs map
    pkg = EPackage("builtins", nsURI="http://example.org/builtins", nsPrefix="builtins")
    holder = EClass("Holder")
    pkg.eClassifiers.append(holder)
    for name, literal in sorted(BUILTIN_SAMPLES.items()):
        holder.eStructuralFeatures.append(EAttribute(f"plain{name}", getattr(pyecore_types, name)))
        with_literal = EAttribute(f"given{name}", getattr(pyecore_types, name))
        with_literal.defaultValueLiteral = literal
        holder.eStructuralFeatures.append(with_literal)
    mm, inst = tmp_path / "builtins.ecore", tmp_path / "holder.xmi"
    ecore.write(mm, pkg)
    inst.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<builtins:Holder xmi:version="2.0" '
        'xmlns:xmi="http://www.omg.org/XMI" xmlns:builtins="http://example.org/builtins"/>\n',
        encoding="utf-8",
    )
    report = emf.check([mm], [inst])
    assert report.problems() == []
    rset = ResourceSet()
    ecore.read(mm, rset)
    doc = xmi.read(inst, rset)
    assert canonical.dump_objects(doc.roots, doc.ids) == report.dump("holder.xmi")
    # plain PyEcore access too, but for one gap of PyEcore's own (process-global) EShort,
    # which cfmodel does not change: unset and without a literal it is None, EMF's is 0
    (holder_object,) = doc.roots
    differences = [
        (theirs, ours)
        for theirs, ours in zip(report.dump("holder.xmi"), _plain_access_dump(holder_object), strict=True)
        if theirs != ours
    ]
    assert differences == [("  plainEShort = 0", "  plainEShort = null")]
