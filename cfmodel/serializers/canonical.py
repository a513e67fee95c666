"""Canonical, deterministic text dumps of metamodels and instance models.

Input: `EPackage`s, or instance roots plus their ids. Output: a list of lines. The same
format is printed by the Java checker (``tests/emf/EmfChecker.java``) from EMF's own view
of a file, so a test can compare what EMF loaded with what cfmodel holds, line by line.
Guarantees: the dump depends only on model content (document order, EMF's feature order
with supertypes first), never on memory addresses or dict/set iteration of Python
objects; every persistent feature is listed with its effective value (EMF's default when
unset), so "not written" and "written as the default" dump the same.

Metamodel lines: ``package``/``class``/``attr``/``ref``/``enum``/``literal``/``datatype``/
``annotation``. Instance lines: ``<path> : <nsURI>#//<Class>`` then ``  <feature> = <value>``;
a path is the object's id, else ``/<root index>`` followed by ``/<feature>[.<index>]`` steps.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from pyecore.ecore import EAttribute, EClass, EEnum, EEnumLiteral, EObject, EPackage, EProxy

from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers import featuremaps, model
from cfmodel.serializers.base import emf_uri, proxy_uri


def quote(text: str | None) -> str:
    """JSON string with ASCII escapes (the Java side escapes the same way)."""
    return "null" if text is None else json.dumps(text, ensure_ascii=True)


def _bool(flag: Any) -> str:
    return "true" if flag else "false"


def dump_packages(packages: Iterable[EPackage]) -> list[str]:
    out: list[str] = []
    for pkg in packages:
        _package(pkg, out)
    return out


def _package(pkg: EPackage, out: list[str]) -> None:
    out.append(f"package {pkg.name} nsURI={pkg.nsURI} nsPrefix={pkg.nsPrefix}")
    _annotations(pkg, "  ", out)
    for c in pkg.eClassifiers:
        _classifier(c, out)
    for sub in pkg.eSubpackages:
        _package(sub, out)


def _classifier(c: Any, out: list[str]) -> None:
    if isinstance(c, EClass):
        sup = ", ".join(type_ref(s) for s in c.eSuperTypes)
        flags = f"abstract={_bool(c.abstract)} interface={_bool(c.interface)}"
        out.append(f"  class {c.name} {flags} super=[{sup}]")
        _annotations(c, "    ", out)
        for f in c.eStructuralFeatures:
            _feature(f, out)
    elif isinstance(c, EEnum):
        out.append(f"  enum {c.name}")
        _annotations(c, "    ", out)
        for lit in c.eLiterals:
            text = lit.literal if lit.literal is not None else lit.name
            out.append(f"    literal {lit.name} = {lit.value} {quote(text)}")
    else:
        out.append(f"  datatype {c.name} instanceClassName={c.instanceClassName} serializable=true")
        _annotations(c, "    ", out)


def _feature(f: Any, out: list[str]) -> None:
    common = (
        f" : {type_ref(f.eType)} [{f.lowerBound}..{f.upperBound}] ordered={_bool(f.ordered)}"
        f" unique={_bool(f.unique)} changeable={_bool(f.changeable)} volatile={_bool(f.volatile)}"
        f" transient={_bool(f.transient)} derived={_bool(f.derived)} unsettable={_bool(f.unsettable)}"
        f" default={quote(model.default_literal(f))}"
    )
    if isinstance(f, EAttribute):
        out.append(f"    attr {f.name}{common} iD={_bool(f.iD)}")
    else:
        opp = f.eOpposite.name if f.eOpposite is not None else "null"
        out.append(f"    ref {f.name}{common} containment={_bool(f.containment)} opposite={opp}")
    _annotations(f, "      ", out)


def _annotations(element: Any, indent: str, out: list[str]) -> None:
    for a in element.eAnnotations:
        details = ", ".join(f"{quote(k)}: {quote(v)}" for k, v in a.details.items())
        out.append(f"{indent}annotation {quote(a.source)} {{{details}}}")


def type_ref(c: Any) -> str:
    if c is None:
        return "null"
    pkg = c.ePackage
    return f"{pkg.nsURI if pkg is not None else None}#//{c.name}"


# ---- instance models ------------------------------------------------------------------


class Paths:
    """Stable paths of the objects of one document: id if known, else positional."""

    def __init__(self, roots: list[EObject], ids: Mapping[EObject, str]) -> None:
        self._ids = ids
        self._root_index = {id(r): i for i, r in enumerate(roots)}
        self._cache: dict[int, str] = {}
        self._positions: dict[tuple[int, str], dict[int, int]] = {}

    def __call__(self, obj: EObject) -> str:
        key = id(obj)
        found = self._cache.get(key)
        if found is None:
            found = self._compute(obj)
            self._cache[key] = found
        return found

    def _compute(self, obj: EObject) -> str:
        ident = self._ids.get(obj)
        if ident is not None:
            return ident
        container = obj.eContainer()
        if container is None or not isinstance(container, EObject):
            index = self._root_index.get(id(obj))
            return f"/{index}" if index is not None else "extern:?"
        return f"{self(container)}/{self._step(obj, container)}"

    def _step(self, obj: EObject, container: EObject) -> str:
        f = obj.eContainmentFeature()
        if not f.many:
            return str(f.name)
        key = (id(container), str(f.name))
        positions = self._positions.get(key)
        if positions is None:
            positions = {id(c): i for i, c in enumerate(container.eGet(f))}
            self._positions[key] = positions
        return f"{f.name}.{positions[id(obj)]}"


def walk(roots: Iterable[EObject], cache: model.FeatureCache | None = None) -> Iterator[EObject]:
    """Every object of the document in EMF's ``getAllContents`` order (pre-order)."""
    features = cache or model.FeatureCache()
    stack = list(reversed(list(roots)))
    pop = stack.pop
    nesting: dict[type, bool] = {}  # does the class have containments?
    while stack:
        obj = pop()
        yield obj
        nests = nesting.get(type(obj))
        if nests is None:
            eclass = obj.eClass
            nests = nesting[type(obj)] = bool(features.containments(eclass) or featuremaps.groups_of(eclass))
        if nests:
            stack.extend(reversed(children(obj, features)))


def children(obj: EObject, features: model.FeatureCache) -> list[EObject]:
    """Directly contained objects in EMF's ``eContents`` order: containments in feature
    order, members of feature maps (`featuremaps`) among them."""
    groups = featuremaps.groups_of(obj.eClass)
    if not groups:
        return list(model.children(obj, features))
    kids: list[EObject] = []
    for f in model.all_features(obj.eClass):
        if isinstance(f, EAttribute) or not f.containment:
            continue
        if f.name in groups:
            kids.extend(v for v in featuremaps.member_values(obj, f) if v is not None)
        elif not f.derived:
            kids.extend(obj.eGet(f) if f.many else [v for v in [obj.eGet(f)] if v is not None])
    return kids


def contents(
    roots: Iterable[EObject], cache: model.FeatureCache | None = None, classes: list[EObject] | None = None
) -> list[EObject]:
    """``list(walk(roots, cache))``, without a generator step per object, and reading
    containments as `fastpath` does (no empty holders made for untouched features); when no
    root's class has containments (a flat document), the roots themselves. `classes`:
    `one_per_class(roots)`, if the caller has it."""
    roots = list(roots)
    features = cache or model.FeatureCache()
    if classes is None:
        classes = one_per_class(roots)
    if not any(features.containments(o.eClass) or featuremaps.groups_of(o.eClass) for o in classes):
        return roots
    out: list[EObject] = []
    append = out.append
    stack = roots[::-1]
    pop, extend = stack.pop, stack.extend
    nesting: dict[type, list[tuple[Any, bool]]] = {}  # a class's containments, and are they many?
    while stack:
        obj = pop()
        append(obj)
        found = nesting.get(type(obj))
        if found is None:
            found = nesting[type(obj)] = [(f, bool(f.many)) for f in features.containments(obj.eClass)]
            if featuremaps.groups_of(obj.eClass):
                found = nesting[type(obj)] = _MAPPED
        if not found:
            continue
        if found is _MAPPED:
            extend(reversed(children(obj, features)))
            continue
        kids: list[EObject] = []
        for f, many in found:
            if many:
                kids.extend(fastpath.items(obj, f))
            else:
                child = fastpath.value(obj, f)
                if child is not None:
                    kids.append(child)
        kids.reverse()
        extend(kids)
    return out


_MAPPED: list[tuple[Any, bool]] = [(None, False)]  # a class with feature maps: `children`


def one_per_class(objects: list[EObject]) -> list[EObject]:
    """One object of each class among `objects` (any one: all give the class's eClass),
    classes in order of first occurrence (a dict keeps a key's first position), at C speed."""
    return list(dict(zip(map(type, objects), objects, strict=True)).values())


def dump_objects(roots: list[EObject], ids: Mapping[EObject, str] | None = None) -> list[str]:
    paths = Paths(roots, ids or {})
    inside = {id(o) for o in walk(roots)}
    out: list[str] = []
    for obj in walk(roots):
        out.append(f"{paths(obj)} : {type_ref(obj.eClass)}")
        for f in model.persistent_features(obj.eClass):
            out.append(f"  {f.name} = {_value_text(obj, f, paths, inside)}")
    return out


def _value_text(obj: EObject, f: Any, paths: Callable[[EObject], str], inside: set[int]) -> str:
    if f.many:
        items = ", ".join(value(v, paths, inside) for v in obj.eGet(f))
        return f"[{items}]"
    return value(model.effective_value(obj, f), paths, inside)


def value(v: Any, paths: Callable[[EObject], str], inside: set[int]) -> str:
    if v is None:
        return "null"
    if isinstance(v, EEnumLiteral):
        return str(v.name)
    if (
        type(v) is EProxy
    ):  # PyEcore's lazy reference (its JSON reader makes them): its target, as EMF's eGet gives it
        v = v.force_resolve()
    if type(v) is featuremaps.Entry:  # an entry of a feature map: its member and value
        return f"{v.feature.name}={value(v.value, paths, inside)}"
    if isinstance(v, EObject):
        if id(v) in inside:
            return f"@{paths(v)}"
        uri = proxy_uri(v)
        if uri is not None:
            return f"proxy:{uri}"
        return f"extern:{emf_uri(v) or v.eClass.name}"
    if isinstance(v, bool):
        return _bool(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _float_text(v)
    if isinstance(v, Decimal):
        return _plain(v)
    if isinstance(v, datetime):
        utc = v.replace(tzinfo=UTC) if v.tzinfo is None else v.astimezone(UTC)
        return utc.strftime("%Y-%m-%dT%H:%M:%S") + f".{utc.microsecond // 1000:03d}Z"
    return quote(str(v))


def _float_text(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return _plain(Decimal(repr(v)))


def _plain(d: Decimal) -> str:
    if d == 0:
        return "0"
    return format(d.normalize(), "f")
