"""Typed helpers over PyEcore's dynamic API, with EMF's semantics where they differ.

Input: PyEcore `EClass`es, features and objects. Output: features in EMF's order
(``eAllStructuralFeatures``: supertypes first, in ``eSuperTypes`` order, each feature
once, then the class's own; PyEcore lists its own features first), children in EMF's
``eContents`` order, and the value EMF assumes for an unset feature (PyEcore's defaults
differ for ``EShort``, enums with a ``defaultValueLiteral``, and more). PyEcore is untyped,
so `Any` stays at this boundary.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pyecore.ecore import EAttribute, EObject

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import datatypes


def classifiers(packages: Any) -> Iterator[Any]:
    """Every classifier of `packages` and of their subpackages, each package visited once
    (a registry may list a subpackage under its own nsURI too)."""
    todo = list(packages)
    seen: set[int] = set()
    while todo:
        pkg = todo.pop()
        if id(pkg) in seen:
            continue
        seen.add(id(pkg))
        yield from getattr(pkg, "eClassifiers", ())
        todo.extend(getattr(pkg, "eSubpackages", ()))


def all_features(eclass: Any) -> list[Any]:
    """``eAllStructuralFeatures`` in EMF's order: each supertype's (in order, recursively)
    before the class's own, each feature once. Walked with an explicit stack, so the depth
    of a hierarchy is not limited by Python's recursion limit."""
    seen: set[int] = set()
    out: list[Any] = []
    done: set[int] = set()
    stack: list[tuple[Any, int]] = [(eclass, 0)]
    while stack:
        current, next_super = stack[-1]
        supers = current.eSuperTypes
        if next_super < len(supers):
            stack[-1] = (current, next_super + 1)
            sup = supers[next_super]
            if id(sup) not in done:
                stack.append((sup, 0))
            continue
        stack.pop()
        done.add(id(current))
        for f in current.eStructuralFeatures:
            if id(f) not in seen:
                seen.add(id(f))
                out.append(f)
    return out


def is_persistent(f: Any) -> bool:
    """Saved by EMF's XMI serializer: neither transient nor derived (nor volatile)."""
    return not (f.transient or f.derived or f.volatile)


def persistent_features(eclass: Any) -> list[Any]:
    return [f for f in all_features(eclass) if is_persistent(f)]


def is_container_ref(f: Any) -> bool:
    """The opposite of a containment: implied by nesting, never written."""
    opp = f.eOpposite if not isinstance(f, EAttribute) else None
    return opp is not None and bool(opp.containment)


class FeatureCache:
    """Per-class feature lists for one serialization run (metamodels may change between runs)."""

    def __init__(self) -> None:
        self._persistent: dict[int, list[Any]] = {}
        self._containments: dict[int, list[Any]] = {}

    def persistent(self, eclass: Any) -> list[Any]:
        found = self._persistent.get(id(eclass))
        if found is None:
            found = self._persistent[id(eclass)] = persistent_features(eclass)
        return found

    def containments(self, eclass: Any) -> list[Any]:
        found = self._containments.get(id(eclass))
        if found is None:
            found = self._containments[id(eclass)] = [
                f
                for f in all_features(eclass)
                if not isinstance(f, EAttribute) and f.containment and not f.derived
            ]
        return found


def children(obj: EObject, cache: FeatureCache | None = None) -> Iterator[EObject]:
    """Directly contained objects, in EMF's ``eContents`` order."""
    for f in (cache or FeatureCache()).containments(obj.eClass):
        if f.many:
            yield from obj.eGet(f)
        else:
            child = obj.eGet(f)
            if child is not None:
                yield child


def default_literal(f: Any) -> str | None:
    """The ``defaultValueLiteral`` that gives EMF the default PyEcore has.

    The attribute's own literal if it has one; else, when PyEcore's ``default_value``
    (``EAttribute(..., default_value=80)``) is a valid value other than the one EMF
    assumes for the type, its literal; else None. (PyEcore keeps ``default_value`` apart
    from the literal and never saves it: pitfall 2.)
    """
    literal: str | None = getattr(f, "defaultValueLiteral", None)
    if literal is not None or not isinstance(f, EAttribute) or f.many:
        return literal
    value, emf = f.default_value, None
    if value is None:
        return None
    try:
        codec = datatypes.codec_for(f.eType)
    except CfSerializationError:
        return None  # validation reports the type
    emf = codec.emf_default
    if value is emf or (type(value) is not bool and value == emf) or not codec.check(value):
        return None  # EMF's own default already, or refused by validation
    return str(codec.to_literal(value))


def default_of(f: Any) -> Any:
    """The value EMF assumes when a single-valued feature is unset."""
    if not isinstance(f, EAttribute):
        return None
    codec = datatypes.codec_for(f.eType)
    literal = default_literal(f)
    if literal is not None:
        return datatypes.parse_literal(codec, literal, f"default of {f.name}")
    return codec.emf_default


def effective_value(obj: EObject, f: Any) -> Any:
    """A single-valued feature's value as EMF sees it (its default when unset)."""
    if obj.eIsSet(f):
        return obj.eGet(f)
    return default_of(f)


_ID_ATTRIBUTE = "_cfmodel_id_attribute"


def id_attribute_value(obj: EObject) -> str | None:
    """EMF's ``EcoreUtil.getID``: the literal of the object's value of its class's first iD
    attribute (supertypes first), None when the class has none or it is unset. EMF names
    such an object by it in references (``author="p29"``) and URIs (``b.xmi#p29``)."""
    eclass = obj.eClass
    found = eclass.__dict__.get(_ID_ATTRIBUTE, False)
    if found is False:
        found = next((f for f in all_features(eclass) if isinstance(f, EAttribute) and f.iD), None)
        eclass.__dict__[_ID_ATTRIBUTE] = found
    if found is None:
        return None
    value = obj.eGet(found) if obj.eIsSet(found) else None
    return None if value is None else datatypes.codec_for(found.eType).to_literal(value)
