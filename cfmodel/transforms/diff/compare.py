"""Comparing two instance models object by object (EMF Compare's order: match, then diff).

Input: two sides, each a list of objects (PyEcore; every object of the models, contained
ones included) and an id function (an instance's id from its index keys, a read file's
``xmi:id``; None for objects without one).
Output: ``compare_objects`` fills a ``Comparison``'s ``objects``: objects are matched first
by identity (the id), then, among objects without an id, by content (same class, equal
attribute values and relation targets); a matched pair whose attributes or relations differ
is ``changed`` (attribute by attribute; relations as the targets added and removed, by
identity), an unmatched object is ``added`` (right only) or ``removed`` (left only).

Guarantees: values are compared with their types (``1`` is not ``1.0`` nor ``True``; enum
literals by name); an unset single-valued attribute is None; the result is sorted by
identity. Objects without an id that match nothing are named ``Class#n`` (n counts that
class's objects without id on its side, in order): they are reported, not guessed at.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pyecore.ecore import EAttribute, EEnumLiteral, EObject, EReference

from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers.base import key_of_ncname
from cfmodel.transforms.diff.model import Change, Comparison, ObjectDiff, ReferenceChange, ValueChange

IdFunction = Callable[[EObject], str | None]


class _Side:
    """One side: its objects by identity, and each object's identity."""

    def __init__(self, objects: Sequence[EObject], id_of: IdFunction) -> None:
        self.by_id: dict[str, EObject] = {}
        self.identity: dict[int, str] = {}
        self.anonymous: list[EObject] = []
        for obj in objects:
            raw = id_of(obj)
            if raw is None:
                self.anonymous.append(obj)
                continue
            # shown as the key it was made of (index keys, not NCNames); without a leading "_"
            # and with fewer than two, no escape can be in it: it is its own key
            key = raw if raw[:1] != "_" and raw.count("_") < 2 else key_of_ncname(raw)
            if key in self.by_id:
                key = raw
            self.by_id[key] = obj
            self.identity[id(obj)] = key

    def name_anonymous(self, objects: Iterable[EObject], features: _Features) -> None:
        counters: dict[str, int] = {}
        for obj in objects:
            cls = features.class_name(obj)
            counters[cls] = counters.get(cls, 0) + 1
            self.identity[id(obj)] = f"{cls}#{counters[cls]}"


_Pair = tuple[str, Any, Any, bool]
#: Two classes side by side: their attributes and references paired, and their names.
_Pairing = tuple[list[_Pair], list[_Pair], str, str]


class _Features:
    """Per class: its attributes, its references and its name (cached for one comparison: many
    objects share a class; the classes stay alive in the models compared, so their ids are
    not reused meanwhile)."""

    def __init__(self) -> None:
        self._cache: dict[int, tuple[list[Any], list[Any]]] = {}
        self._names: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
        self._pairs: dict[tuple[int, int], _Pairing] = {}
        self._class_names: dict[int, str] = {}

    def class_name(self, obj: EObject) -> str:
        """``prefix:Class``: the object's class, qualified by its package's nsPrefix (or name)."""
        eclass = obj.eClass
        known = self._class_names.get(id(eclass))
        if known is None:
            package = eclass.ePackage
            prefix = getattr(package, "nsPrefix", None) or getattr(package, "name", None)
            known = f"{prefix}:{eclass.name}" if prefix else str(eclass.name)
            self._class_names[id(eclass)] = known
        return known

    def of(self, obj: EObject) -> tuple[list[Any], list[Any]]:
        eclass = obj.eClass
        found = self._cache.get(id(eclass))
        if found is None:
            features = [f for f in eclass.eAllStructuralFeatures() if not f.derived and not f.transient]
            attrs = [f for f in features if isinstance(f, EAttribute)]
            refs = [
                f
                for f in features
                if isinstance(f, EReference) and not f.containment and not _is_container(f)
            ]
            found = self._cache[id(eclass)] = (attrs, refs)
        return found

    def pairing(self, left: EObject, right: EObject) -> _Pairing:
        """The features of two objects' classes side by side, by name (a class of each side:
        the sides may have read their metamodels apart): (name, left's, right's or None,
        many), for the attributes and for the references; then the two class names."""
        key = (id(left.eClass), id(right.eClass))
        found = self._pairs.get(key)
        if found is None:
            attrs, refs = self.of(left)
            right_attrs, right_refs = self.by_name(right)
            found = self._pairs[key] = (
                [(f.name, f, right_attrs.get(f.name), bool(f.many)) for f in attrs],
                [(f.name, f, right_refs.get(f.name), bool(f.many)) for f in refs],
                self.class_name(left),
                self.class_name(right),
            )
        return found

    def by_name(self, obj: EObject) -> tuple[dict[str, Any], dict[str, Any]]:
        found = self._names.get(id(obj.eClass))
        if found is None:
            attrs, refs = self.of(obj)
            found = self._names[id(obj.eClass)] = ({f.name: f for f in attrs}, {f.name: f for f in refs})
        return found


def _is_container(ref: Any) -> bool:
    opposite = ref.eOpposite
    return opposite is not None and bool(opposite.containment)


def plain(value: Any) -> Any:
    """A feature value as a JSON-like value (enum literals by name, collections as lists)."""
    if isinstance(value, EEnumLiteral):
        return value.name
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple) or hasattr(value, "__iter__"):
        return [plain(v) for v in value]
    return str(value)


def _attribute(obj: EObject, feature: Any) -> Any:
    if feature.many:
        return [plain(v) for v in fastpath.items(obj, feature)]
    return plain(fastpath.single(obj, feature))


def _targets(obj: EObject, feature: Any, side: _Side) -> list[str]:
    if feature.many:
        found = fastpath.items(obj, feature)
    else:
        one = fastpath.single(obj, feature)
        found = () if one is None else (one,)
    identity = side.identity
    return [identity.get(id(t), "?") for t in found]


def _raw_same(x: Any, y: Any) -> bool:
    """A quick, sure "same" for stored values (scalars of one type, or equal collections of
    them); False means "look closer" (enum literals of two resource sets, floats, ...)."""
    if type(x) is type(y) and (x is None or type(x) in _SCALARS):
        return bool(x == y)
    if hasattr(x, "__len__") and hasattr(y, "__len__") and not isinstance(x, str):
        if len(x) != len(y):
            return False
        xs, ys = list(x), list(y)  # every p == q, of one type, a scalar type (at C speed)
        kinds = list(map(type, xs))
        return xs == ys and kinds == list(map(type, ys)) and _SCALARS.issuperset(kinds)
    return False


_SCALARS = frozenset([str, int, bool])


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) or (isinstance(a, float) and a != a and b != b)


def compare_objects(
    comparison: Comparison,
    left: Sequence[EObject],
    left_id: IdFunction,
    right: Sequence[EObject],
    right_id: IdFunction,
) -> Comparison:
    """Match and compare two object lists into ``comparison.objects`` (module docstring)."""
    a, b = _Side(left, left_id), _Side(right, right_id)
    features = _Features()
    pairs = _match_anonymous(a, b, features)
    found: list[ObjectDiff] = []
    for key, obj in a.by_id.items():
        other = b.by_id.get(key)
        if other is None:
            found.append(_whole("removed", key, obj, a, features))
        else:
            changed = _changes(key, obj, a, other, b, features)
            if changed is not None:
                found.append(changed)
    for key, obj in b.by_id.items():
        if key not in a.by_id:
            found.append(_whole("added", key, obj, b, features))
    matched_left = {id(x) for x, _ in pairs}
    matched_right = {id(y) for _, y in pairs}
    found.extend(
        _whole("removed", a.identity[id(o)], o, a, features) for o in a.anonymous if id(o) not in matched_left
    )
    found.extend(
        _whole("added", b.identity[id(o)], o, b, features) for o in b.anonymous if id(o) not in matched_right
    )
    found.sort(key=lambda d: (d.identity, d.change))
    comparison.objects.extend(found)
    return comparison


def _match_anonymous(a: _Side, b: _Side, features: _Features) -> list[tuple[EObject, EObject]]:
    """Objects without id: matched by equal content, in order; named ``Class#n`` on each side."""
    a.name_anonymous(a.anonymous, features)
    b.name_anonymous(b.anonymous, features)
    waiting: dict[str, list[EObject]] = {}
    for obj in b.anonymous:
        waiting.setdefault(_signature(obj, b, features), []).append(obj)
    pairs: list[tuple[EObject, EObject]] = []
    for obj in a.anonymous:
        bucket = waiting.get(_signature(obj, a, features))
        if bucket:
            other = bucket.pop(0)
            pairs.append((obj, other))
    return pairs


def _signature(obj: EObject, side: _Side, features: _Features) -> str:
    attrs, refs = features.of(obj)
    parts = [features.class_name(obj)]
    parts.extend(repr((f.name, _attribute(obj, f))) for f in attrs)
    parts.extend(repr((f.name, sorted(_targets(obj, f, side)))) for f in refs)
    return "\x00".join(parts)


def _whole(change: Change, key: str, obj: EObject, side: _Side, features: _Features) -> ObjectDiff:
    attrs, refs = features.of(obj)
    values: dict[str, Any] = {}
    for f in attrs:
        value = _attribute(obj, f)
        if value is not None and value != []:
            values[f.name] = value
    for f in refs:
        targets = _targets(obj, f, side)
        if targets:
            values[f.name] = targets
    return ObjectDiff(change, key, features.class_name(obj), values=values)


def _changes(
    key: str, left: EObject, a: _Side, right: EObject, b: _Side, features: _Features
) -> ObjectDiff | None:
    attrs, refs, left_class, right_class = features.pairing(left, right)
    if left_class != right_class:
        diff = ObjectDiff("changed", key, right_class)
        diff.attributes.append(ValueChange("(class)", left_class, right_class))
        return diff
    values: list[ValueChange] = []
    references: list[ReferenceChange] = []
    single, items = fastpath.single, fastpath.items
    for name, f, other, many in attrs:
        if other is not None:
            x = items(left, f) if many else single(left, f)
            y = items(right, other) if many else single(right, other)
            if _raw_same(x, y):
                continue
        x, y = _attribute(left, f), (_attribute(right, other) if other is not None else None)
        if not _same(x, y):
            values.append(ValueChange(name, x, y))
    for name, f, other, _ in refs:
        xs, ys = _targets(left, f, a), (_targets(right, other, b) if other is not None else [])
        if xs != ys:
            added = tuple(sorted(set(ys) - set(xs)))
            removed = tuple(sorted(set(xs) - set(ys)))
            if added or removed or sorted(xs) != sorted(ys):
                references.append(ReferenceChange(name, added, removed))
    if not values and not references:
        return None
    return ObjectDiff("changed", key, left_class, values, references)
