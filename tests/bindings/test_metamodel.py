"""The bindings metamodel is a proper EPackage; spans live in a side table, not in features."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.ecore import EClass
from pyecore.resources import ResourceSet

from cfmodel.grammars.bindings import parse_str
from cfmodel.metamodel import bindings as bm


def test_package_identity() -> None:
    assert (bm.PACKAGE.name, bm.PACKAGE.nsURI, bm.PACKAGE.nsPrefix) == (
        "bindings",
        "http://cfmodel.org/bindings/1.0",
        "bindings",
    )
    names = {c.name for c in bm.PACKAGE.eClassifiers}
    assert {"Binding", "Multibinding", "CategorizedBindings", "Layer", "Producer", "Key", "Site"} <= names


def test_no_feature_holds_a_position() -> None:
    for classifier in bm.PACKAGE.eClassifiers:
        for feature in getattr(classifier, "eStructuralFeatures", ()):
            assert feature.name not in {"line", "col", "span", "position", "file"}


def test_package_registers_in_a_session_resource_set_only() -> None:
    resources = ResourceSet()
    resources.metamodel_registry[bm.NS_URI] = bm.PACKAGE
    assert resources.metamodel_registry[bm.NS_URI] is bm.PACKAGE


def test_span_table_copy() -> None:
    parsed = parse_str('bindings a { bind "x" to 1 }', "a.bind")
    binding = parsed.named_bindings[0].elements[0]
    clone = bm.Binding()
    parsed.spans.copy(binding, clone)
    assert parsed.spans.get(clone) == parsed.spans.get(binding)
    assert bm.is_kind(binding, bm.AbstractBinding) and not bm.is_kind(binding, bm.Multibinding)


def test_plain_classes_mirror_the_eclasses() -> None:
    """The parser's plain objects have the EClasses' names, features, defaults and hierarchy."""
    for classifier in bm.PACKAGE.eClassifiers:
        if not isinstance(classifier, EClass):
            continue
        cls = bm.PLAIN_CLASSES[classifier.name]
        assert (cls.__name__, cls.eClass) == (classifier.name, classifier)
        if classifier.abstract:
            continue
        plain, ecore = cls(), classifier()
        for feature in classifier.eAllStructuralFeatures():
            value = plain.eGet(feature)
            assert (list(value) if feature.many else value) == (
                list(ecore.eGet(feature)) if feature.many else ecore.eGet(feature)
            ), (classifier.name, feature.name)
            assert not plain.eIsSet(feature)
    binding = bm.plain.Binding(abstract=True, key=bm.plain.Key(name="x"))
    assert bm.is_kind(binding, bm.AbstractBinding) and bm.is_kind(binding, bm.Element)
    assert not bm.is_kind(binding, bm.Rebinding)
    assert (bm.class_name(binding), bm.kind_of(binding), binding.key.eContainer()) == (
        "Binding",
        "Binding",
        binding,
    )
    assert {n for n, _, _ in binding._features if binding.eIsSet(n)} == {"abstract", "key"}


SOURCES = [
    (
        "a.bind",
        'bindings a {\n  bind final Integer, "size" to 42\n'
        "  when virtual true or node 'kermit' and env 'p' { bind \"c\" to \"$::fqdn!\" }\n"
        '  bind renamed "a" as Integer, "b"\n  include [ntp, apache]\n'
        "  bind parameters Web[one] to optional Sql['one'] { map => { dbuser => user } }\n"
        "  multibind Hash[String, Data], 'h' { combinator => |$k, $c, $v| { if !$c { $v } else { $c + $v } } }\n"
        "  bind abstract variables to ['x']\n  bind to 1 in 'h'\n}",
    ),
    (
        "site.bind",
        'site { categories { node => "$::fqdn", environment => true }\n'
        "  bindings => [ layer { 'site': include => 'confdir:/default' }, { 'm': include => [], exclude => 'x:' } ] }",
    ),
]


@pytest.mark.parametrize(("file", "text"), SOURCES, ids=[f for f, _ in SOURCES])
@pytest.mark.parametrize("suffix", [".xmi", ".json"])
def test_pyecore_model_of_plain_objects_is_the_one_the_parser_would_build(
    tmp_path: Path, file: str, text: str, suffix: str
) -> None:
    """``ParsedBindings.root`` (made from the plain objects) exports byte for byte as the
    PyEcore model built directly from the same text; it is made once, with spans."""
    from cfmodel.grammars import bindings as grammar
    from cfmodel.serializers import write

    parsed = parse_str(text, file)
    direct = grammar._Builder(text, file).build_file(grammar._metamodel().model_from_str(text))
    write(tmp_path / f"plain{suffix}", [parsed.root])
    write(tmp_path / f"direct{suffix}", [direct])
    assert (tmp_path / f"plain{suffix}").read_bytes() == (tmp_path / f"direct{suffix}").read_bytes()
    assert parsed.root is parsed.root and bm.to_ecore(parsed.model) is parsed.root
    assert all(parsed.spans.get(o) is not None for o in parsed.root.eAllContents())
    assert parsed.spans.get(parsed.root.eContents[0]) == parsed.spans.get(parsed.model.eContents[0])
