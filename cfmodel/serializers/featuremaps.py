"""Feature maps (EMF's ``FeatureMap``): one ordered list holding the values of several features.

Input: metamodels that declare them as EMF does: an attribute typed ``EFeatureMapEntry``
(many-valued, ExtendedMetaData ``kind`` ``group``, ``mixed``, ``elementWildcard``...)
and member features (derived, volatile, transient) whose ExtendedMetaData ``group`` names
it (``#content``). Output, after `prepare`: the attribute holds `Entry` objects
(``feature``, ``value``) in document order, and each member reads as a live view of the
entries that are its own (``section.paragraphs``), which can be appended to (a new entry
at the end) and removed from, as EMF's member lists behave. An object contained through
a member has the group's owner as container and the member as containment feature, so
fragments (``//@paragraphs.1``: the index among the member's values), dumps and EMF's
``eContents`` order (member by member) come out as EMF's.

The readers and writers use `groups_of` (per class: member name → (group, member)) and
`entries`; `is_feature_map` tells the attribute apart. The text of a ``mixed`` map is not
kept, as EMF's XMIResource (without ExtendedMetaData options) does not keep it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pyecore.ecore import EAttribute, EObject
from pyecore.valuecontainer import EDerivedCollection

from cfmodel.serializers import model

EXTENDED_METADATA = "http:///org/eclipse/emf/ecore/util/ExtendedMetaData"
_ENTRY_CLASS = "org.eclipse.emf.ecore.util.FeatureMap$Entry"


class Entry(dict[str, Any]):
    """One entry of a feature map: its member ``feature`` and the ``value``. A dict (what
    PyEcore's ``EFeatureMapEntry`` type accepts), compared and hashed by identity: two
    entries with equal values are still two entries."""

    def __init__(self, feature: Any, value: Any) -> None:
        super().__init__(feature=feature, value=value)

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    @property
    def feature(self) -> Any:
        return self["feature"]

    @property
    def value(self) -> Any:
        return self["value"]

    @value.setter
    def value(self, v: Any) -> None:
        self["value"] = v

    def __repr__(self) -> str:
        return f"Entry({self.feature.name}={self.value!r})"


def is_feature_map(f: Any) -> bool:
    """Whether `f` is a feature-map attribute (typed ``EFeatureMapEntry``)."""
    if not isinstance(f, EAttribute):
        return False
    t = f.eType
    return t is not None and (
        t.name == "EFeatureMapEntry" or getattr(t, "instanceClassName", None) == _ENTRY_CLASS
    )


def _detail(f: Any, key: str) -> str | None:
    for a in f.eAnnotations:
        if a.source == EXTENDED_METADATA:
            found = a.details.get(key)
            return None if found is None else str(found)
    return None


_GROUPS = "_cfmodel_feature_map_groups"


def groups_of(eclass: Any) -> dict[str, tuple[Any, Any]]:
    """Per member name, (its feature-map attribute, the member) of `eclass` (empty for a
    class without feature maps); made once per class, and `prepare`s its members."""
    found: dict[str, tuple[Any, Any]] | None = eclass.__dict__.get(_GROUPS)
    if found is not None:
        return found
    features = model.all_features(eclass)
    maps = {f.name: f for f in features if is_feature_map(f)}
    found = {}
    if maps:
        for f in features:
            group = _detail(f, "group")
            if group is not None and group.startswith("#") and group[1:] in maps:
                found[f.name] = (maps[group[1:]], f)
                f.derived_class = MemberView
    eclass.__dict__[_GROUPS] = found
    return found


def has_feature_maps(eclass: Any) -> bool:
    return any(is_feature_map(f) for f in model.all_features(eclass))


def prepare(package: Any) -> None:
    """Make every member of every feature map of `package` (and its subpackages) a view."""
    for c in package.eClassifiers:
        if hasattr(c, "eStructuralFeatures"):
            groups_of(c)
    for sub in package.eSubpackages:
        prepare(sub)


def entries(obj: EObject, group: Any) -> list[Entry]:
    """The entries of `obj`'s feature map `group`, in order."""
    holder = obj.__dict__.get(group._name)
    return list(holder) if holder is not None else list(obj.eGet(group))


def member_values(obj: EObject, member: Any) -> list[Any]:
    """The values of a member feature (its entries' values, in order)."""
    pair = groups_of(obj.eClass).get(member.name)
    if pair is None:
        return []
    return [e.value for e in entries(obj, pair[0]) if e.feature is member]


def children(obj: EObject) -> Iterator[EObject]:
    """Objects contained through feature maps, member by member (EMF's ``eContents``)."""
    for group, member in groups_of(obj.eClass).values():
        if getattr(member, "containment", False):
            for e in entries(obj, group):
                if e.feature is member and e.value is not None:
                    yield e.value


class MemberView(EDerivedCollection):  # type: ignore[misc]
    """A member feature's values, read from (and added to) its feature map."""

    def _pair(self) -> tuple[Any, Any]:
        return groups_of(self.owner.eClass)[self.feature.name]

    def _values(self) -> list[Any]:
        group, member = self._pair()
        return [e.value for e in entries(self.owner, group) if e.feature is member]

    def __len__(self) -> int:
        return len(self._values())

    def __getitem__(self, index: Any) -> Any:
        return self._values()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values())

    def __contains__(self, value: object) -> bool:
        return any(v is value for v in self._values())

    def insert(self, index: int, value: Any) -> None:
        self.append(value)

    def append(self, value: Any, update_opposite: bool = True) -> None:
        """A new entry at the end of the map (PyEcore's signature; members have no opposites,
        so `update_opposite` changes nothing)."""
        del update_opposite
        group, member = self._pair()
        self.owner.eGet(group).append(Entry(member, value))
        if getattr(member, "containment", False) and isinstance(value, EObject):
            value._container = self.owner
            value._containment_feature = member

    def add(self, value: Any) -> None:
        self.append(value)

    def discard(self, value: Any) -> None:
        group, member = self._pair()
        coll = self.owner.eGet(group)
        for e in list(coll):
            if e.feature is member and e.value is value:
                coll.remove(e)
                return

    def __delitem__(self, index: Any) -> None:
        self.discard(self._values()[index])

    def __repr__(self) -> str:
        return f"MemberView({self.feature.name}: {self._values()!r})"
