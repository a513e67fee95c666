"""The `.ecore` reader takes every form EMF writes a reference in, and fails on the rest:
``#//X`` (encoded attribute style), ``//X`` (plain XMI style, as EMF writes a metamodel
saved under another extension), a type before the reference, and a token naming nothing
is a located error, never a reference silently left unset."""

from __future__ import annotations

from typing import Any

import pytest

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import ecore
from cfmodel.serializers.base import Document

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<ecore:EPackage xmlns:xmi="http://www.omg.org/XMI" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'xmlns:ecore="http://www.eclipse.org/emf/2002/Ecore" name="shop" '
    'nsURI="http://example.org/shop" nsPrefix="shop">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Item"/>\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Order" eSuperTypes="{supers}">\n'
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="items" upperBound="-1" '
    'eType="{items}"/>\n'
    "  </eClassifiers>\n"
    "</ecore:EPackage>\n"
)


def read(items: str, supers: str = "#//Item") -> Document:
    return ecore.from_bytes(HEAD.format(items=items, supers=supers).encode(), "shop.ecore")


@pytest.mark.parametrize("items", ["#//Item", "//Item", "ecore:EClass #//Item", "ecore:EClass //Item"])
def test_same_document_reference_forms_resolve(items: str) -> None:
    order = _order(read(items))
    assert order.findEStructuralFeature("items").eType.name == "Item"
    assert [s.name for s in order.eSuperTypes] == ["Item"]


def test_bare_fragment_supertypes_resolve() -> None:
    package = read("#//Item", supers="//Item")
    order = _order(package)
    assert [s.name for s in order.eSuperTypes] == ["Item"]


@pytest.mark.parametrize("items", ["//Nothing", "Item", "ecore:EClass"])
def test_reference_naming_nothing_is_a_located_error(items: str) -> None:
    with pytest.raises(CfSerializationError, match=rf"shop\.ecore:5:\d+: .*unresolved reference '#?{items}'"):
        read(items)


def _order(document: Document) -> Any:
    (package,) = document.roots
    return package.getEClassifier("Order")
