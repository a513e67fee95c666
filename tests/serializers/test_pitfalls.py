"""One test per measured PyEcore 0.15.2 pitfall, each proved fixed (EMF's side of the
same facts is checked in tests/emf/test_emf_interop.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pyecore.ecore import EAttribute, EClass, EDate, EInt, EPackage, EReference, EString
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, ecore, json, validate, xmi
from tests.serializers.samples import infra_package


def test_pitfall_1_eopposite_is_written_to_ecore() -> None:
    text = ecore.to_bytes(infra_package()).decode()
    assert 'name="files" upperBound="-1" eType="#//File" containment="true" eOpposite="#//File/host"' in text
    assert 'name="peerOf" upperBound="-1" eType="#//Host" eOpposite="#//Host/peers"' in text


def _service_package() -> tuple[EPackage, EClass]:
    pkg = EPackage("d", nsURI="http://cfmodel.example/d", nsPrefix="d")
    svc = EClass("Service")
    svc.eStructuralFeatures.append(EAttribute("port", EInt, defaultValueLiteral="80"))
    svc.eStructuralFeatures.append(EAttribute("count", EInt))
    pkg.eClassifiers.append(svc)
    return pkg, svc


def test_pitfall_2_default_literal_and_default_equal_values_are_written() -> None:
    pkg, svc = _service_package()
    assert 'defaultValueLiteral="80"' in ecore.to_bytes(pkg).decode()
    # 0 equals PyEcore's EInt default, 80 the literal: both must be in the file.
    text = xmi.to_bytes([svc(port=0, count=0), svc(port=80)]).decode()
    assert '<d:Service port="0" count="0"/>' in text
    assert '<d:Service port="80"/>' in text


@pytest.mark.parametrize("module", [xmi, json], ids=["xmi", "json"])
def test_pitfall_2_default_equal_values_are_written_in_every_format(module: object) -> None:
    pkg, svc = _service_package()
    roots = [svc(port=0, count=0), svc(port=80), svc()]
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "d.ecore", rset)
    back = module.from_bytes(module.to_bytes(roots), rset).roots  # type: ignore[attr-defined]
    assert [(o.eIsSet("port"), o.port, o.eIsSet("count")) for o in back] == [
        (True, 0, True),
        (True, 80, False),
        (False, 80, False),
    ]


def test_pitfall_2_python_default_value_becomes_the_literal() -> None:
    """``EAttribute(..., default_value=80)`` (no literal): PyEcore's unset value is 80, so
    EMF must read ``defaultValueLiteral="80"``; a default EMF assumes anyway is left out."""
    pkg = EPackage("d", nsURI="http://cfmodel.example/d", nsPrefix="d")
    svc = EClass("Service")
    svc.eStructuralFeatures += [
        EAttribute("port", EInt, default_value=80),
        EAttribute("count", EInt, default_value=0),
        EAttribute("label", EString, default_value="none"),
        EAttribute("both", EInt, default_value=1, defaultValueLiteral="2"),
    ]
    pkg.eClassifiers.append(svc)
    text = ecore.to_bytes(pkg).decode()
    assert (
        'name="port" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EInt" defaultValueLiteral="80"'
        in text
    )
    assert (
        'name="label" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EString" defaultValueLiteral="none"'
        in text
    )
    assert 'name="count" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EInt"/>' in text
    assert (
        'defaultValueLiteral="2"' in text and 'defaultValueLiteral="1"' not in text
    )  # PyEcore, too, prefers the literal
    read = ecore.from_bytes(text.encode(), "d.ecore", ResourceSet()).roots[0].getEClassifier("Service")()
    assert (read.port, read.count, read.label, read.both) == (
        svc().port,
        svc().count,
        svc().label,
        svc().both,
    )
    bad = EAttribute("other", EInt, default_value="eighty")
    svc.eStructuralFeatures.append(bad)
    with pytest.raises(CfSerializationError, match="default value 'eighty' is not a valid EInt"):
        ecore.to_bytes(pkg)


def test_pitfall_3_dates_carry_milliseconds() -> None:
    pkg = EPackage("t", nsURI="http://cfmodel.example/t", nsPrefix="t")
    ev = EClass("Event")
    ev.eStructuralFeatures.append(EAttribute("at", EDate))
    pkg.eClassifiers.append(ev)
    when = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone(timedelta(hours=2)))
    text = xmi.to_bytes([ev(at=when)]).decode()
    assert 'at="2024-05-06T05:08:09.123+0000"' in text  # UTC, three digits: EMF's milliseconds
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "t.ecore", rset)
    back = xmi.from_bytes(text.encode(), rset).roots[0].at
    assert back == when.replace(microsecond=123000)
    micro = text.replace(".123+0000", ".123456+0000").encode()  # what PyEcore writes
    with pytest.raises(CfSerializationError, match="must be 3 digits: EMF reads it as milliseconds"):
        xmi.from_bytes(micro, rset)


def _notes(exc: pytest.ExceptionInfo[CfSerializationError]) -> list[str]:
    return [n.message for n in exc.value.notes]


def test_pitfall_4_models_are_validated_before_writing() -> None:
    pkg = infra_package()
    host_c, file_c = pkg.getEClassifier("Host"), pkg.getEClassifier("File")
    nameless = host_c()  # name is required
    big = host_c(name="big", cpus=2**31)  # EInt overflows Java's int
    stray = host_c(name="stray")
    nameless.primary = file_c(name="orphan")  # not contained anywhere in the document
    with pytest.raises(CfSerializationError) as exc:
        xmi.to_bytes([nameless, big], xmi.XmiOptions(id_of=lambda o: "same"))
    notes = _notes(exc)
    assert exc.value.code == "invalid-model"
    assert not any("required feature is not set" in n for n in notes)  # a warning: EMF writes it
    assert any("2147483648 is not a valid EInt" in n for n in notes)
    assert any("id 'same' is given to two objects" in n for n in notes)
    assert any("primary: target" in n and "not an object of this document" in n for n in notes)
    with pytest.raises(CfSerializationError, match="not an XML NCName"):
        xmi.to_bytes([stray], xmi.XmiOptions(id_of=lambda o: "Host:stray"))


def test_pitfall_4_nothing_is_written_when_invalid(tmp_path: Path) -> None:
    target = tmp_path / "m.xmi"
    target.write_text("old")
    host_c = infra_package().getEClassifier("Host")
    with pytest.raises(CfSerializationError):
        xmi.write(target, [host_c(name="a", cpus=2**31)])
    assert target.read_text() == "old"


def test_pitfall_5_metamodels_emf_rejects_are_refused() -> None:
    pkg = EPackage("bad name", nsURI=None, nsPrefix=None)
    c = EClass("Thing")
    c.eStructuralFeatures += [
        EAttribute("x", EString),
        EAttribute("x", EInt),
        EAttribute("untyped"),
        EAttribute("X", EString),
    ]
    d = EClass("Other")
    d.eStructuralFeatures.append(EReference("r"))
    pkg.eClassifiers += [c, d, EClass("Thing")]
    with pytest.raises(CfSerializationError) as exc:
        ecore.to_bytes(pkg)
    notes = "\n".join(_notes(exc))
    assert exc.value.code == "invalid-metamodel"
    for expected in (
        "name 'bad name' is not a well-formed identifier",
        "nsURI None is missing",
        "nsPrefix None is missing",
        "feature 'x' and 'x' have the same name",
        "'x' and 'X' have names that differ only in case",
        "attribute has no data type",
        "reference type",
        "classifier 'Thing' and 'Thing' have the same name",
    ):
        assert expected in notes


def _peers_package() -> tuple[EPackage, EClass]:
    pkg = EPackage("p", nsURI="http://cfmodel.example/p", nsPrefix="p")
    node = EClass("Node")
    out_, in_ = EReference("out", node, upper=-1), EReference("in", node, upper=-1)
    out_.eOpposite = in_
    node.eStructuralFeatures += [EAttribute("name", EString), out_, in_]
    pkg.eClassifiers.append(node)
    return pkg, node


@pytest.mark.parametrize("module", [json, xmi], ids=["json", "xmi"])
def test_pitfall_6_bidirectional_collections_are_not_duplicated(module: object) -> None:
    pkg, node = _peers_package()
    a, b, c = node(name="a"), node(name="b"), node(name="c")
    a.out.extend([b, c])
    c.out.append(b)
    data = module.to_bytes([a, b, c])  # type: ignore[attr-defined]
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "p.ecore", rset)
    ra, rb, rc = module.from_bytes(data, rset).roots  # type: ignore[attr-defined]
    assert [x.name for x in ra.out] == ["b", "c"]
    assert [x.name for x in rb.__getattribute__("in")] == ["a", "c"]
    assert [x.name for x in rc.__getattribute__("in")] == ["a"]
    assert canonical.dump_objects([ra, rb, rc]) == canonical.dump_objects([a, b, c])


def test_pitfall_6_a_missing_side_is_added_once() -> None:
    pkg, _node = _peers_package()
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "p.ecore", rset)
    one_sided = (
        b'{"format": "cfmodel-instances", "version": 1, "packages": {"p": "http://cfmodel.example/p"},'
        b' "roots": [{"$class": "p:Node", "name": "a", "out": ["/1"]}, {"$class": "p:Node", "name": "b"}]}'
    )
    a, b = json.from_bytes(one_sided, rset).roots
    assert list(b.__getattribute__("in")) == [a] and list(a.out) == [b]


def test_readers_use_only_the_given_resource_set() -> None:
    _pkg, node = _peers_package()
    data = xmi.to_bytes([node(name="a")])
    with pytest.raises(CfSerializationError, match="no metamodel registered"):
        xmi.from_bytes(data, ResourceSet())


def test_pitfall_6_a_missing_side_is_added_once_from_xmi() -> None:
    pkg, _node = _peers_package()
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "p.ecore", rset)
    one_sided = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<xmi:XMI xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
        b' xmlns:p="http://cfmodel.example/p"><p:Node name="a" out="/1 /1"/><p:Node name="b" in="/0"/>'
        b'<p:Node name="c" in="/0"/></xmi:XMI>'
    )
    a, b, c = xmi.from_bytes(one_sided, rset).roots
    assert list(a.out) == [b, c]  # listed once (a repeat in a unique list is dropped), c added from its side
    assert list(b.__getattribute__("in")) == [a] and list(c.__getattribute__("in")) == [a]


@pytest.mark.parametrize("module", [json, xmi], ids=["json", "xmi"])
def test_pitfall_4_every_format_validates(module: object) -> None:
    pkg = infra_package()
    host_c = pkg.getEClassifier("Host")
    with pytest.warns(validate.BoundsWarning, match="Host #0.name: required feature is not set"):
        data = module.to_bytes([host_c()])  # type: ignore[attr-defined]  # EMF saves it too
    assert b"Host" in data
    with pytest.raises(CfSerializationError, match="is given to two objects"):
        module.to_bytes([host_c(name="a"), host_c(name="b")], _options(module, lambda o: "same"))


def _options(module: object, id_of: object) -> object:
    return (xmi.XmiOptions if module is xmi else json.JsonOptions)(id_of=id_of)  # type: ignore[arg-type]


@pytest.mark.parametrize("module", [json, xmi], ids=["json", "xmi"])
def test_pitfall_4_repeated_id_attribute_values_are_refused(module: object) -> None:
    """An ``iD`` attribute identifies objects for EMF too: two objects may not share a value."""
    pkg = EPackage("k", nsURI="http://cfmodel.example/k", nsPrefix="k")
    item = EClass("Item")
    item.eStructuralFeatures.append(EAttribute("key", EString, iD=True))
    pkg.eClassifiers.append(item)
    module.to_bytes([item(key="a"), item(key="b")])  # type: ignore[attr-defined]
    with pytest.raises(CfSerializationError, match="iD attribute key='a' is also used by Item #0"):
        module.to_bytes([item(key="a"), item(key="a")])  # type: ignore[attr-defined]


def test_pitfall_3_json_dates_carry_milliseconds() -> None:
    pkg = EPackage("t", nsURI="http://cfmodel.example/t", nsPrefix="t")
    ev = EClass("Event")
    ev.eStructuralFeatures.append(EAttribute("at", EDate))
    pkg.eClassifiers.append(ev)
    when = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=timezone(timedelta(hours=2)))
    assert b'"at": "2024-05-06T05:08:09.123+0000"' in json.to_bytes([ev(at=when)])
