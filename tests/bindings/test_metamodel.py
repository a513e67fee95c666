"""The bindings metamodel is a proper EPackage; spans live in a side table, not in features."""

from __future__ import annotations

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
