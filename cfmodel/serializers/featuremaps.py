"""Feature maps (EMF's ``FeatureMap``): one ordered list holding the values of several features.

Input: metamodels that declare them as EMF does: an attribute typed ``EFeatureMapEntry``
(many-valued, ExtendedMetaData ``kind`` ``group``, ``mixed``, ``elementWildcard``...)
and member features (derived, volatile, transient) whose ExtendedMetaData ``group`` names
it (``#content``). Output, after `prepare`: the attribute holds `Entry` objects
(``feature``, ``value``) in document order, and each member reads as a live view of the
entries that are its own (``section.paragraphs``), which can be appended to (a new entry
at the end) and removed from, as EMF's member lists behave; a single-valued member reads
its entry's value (None, or its default, without one), and setting it replaces that
entry's value in place, adds an entry at the end, or removes it (None or the default,
unless the member is unsettable), as EMF's ``BasicFeatureMap.set``. An object contained through
a member has the group's owner as container and the member as containment feature, so
fragments (``//@paragraphs.1``: the index among the member's values), dumps and EMF's
``eContents`` order (member by member) come out as EMF's.

The readers and writers use `groups_of` (per class: member name → (group, member)) and
`entries`; `is_feature_map` tells the attribute apart. The text of a ``mixed`` map is not
kept, as EMF's XMIResource (without ExtendedMetaData options) does not keep it.

Attribute wildcards (ExtendedMetaData ``kind`` ``attributeWildcard``, XML Schema's
``anyAttribute``; `attribute_wildcards`): a map whose entries are XML attributes the class
does not declare, from the namespaces its ``wildcards`` admit (``##any``, ``##other``,
``##local``, ``##targetNamespace``, URIs; EMF's `AttributeWildcard.admits`). An entry's
feature is the global attribute a registered package declares for that namespace and name
(its document root's feature of ``kind`` ``attribute``, `global_attribute`), else, when the
wildcard's ``processing`` is ``lax`` or ``skip``, a feature made on demand
(`demand_attribute`: one package per namespace and resource set, as EMF's
``demandFeature``, whose values are the attributes' text). EMF reads and writes them so
with ``OPTION_EXTENDED_META_DATA``; without it, EMF's XMIResource refuses such attributes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyecore.ecore import EAnnotation, EAttribute, EClass, EDataType, EObject, EPackage
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
    maps.update({n: f for f in list(maps.values()) if (n := _detail(f, "name")) is not None})  # "#:mixed"
    found = {}
    if maps:
        for f in features:
            group = _detail(f, "group")
            if group is not None and group.startswith("#") and group[1:] in maps:
                found[f.name] = (maps[group[1:]], f)
                if f.many:
                    f.derived_class = MemberView
                elif f.eContainingClass is not None:
                    setattr(f.eContainingClass.python_class, f.name, SingleMember(f))
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


class SingleMember:
    """The descriptor of a single-valued member (see the module docstring), put on its
    class in place of PyEcore's (which would keep a value of its own)."""

    def __init__(self, feature: Any) -> None:
        self.feature = feature

    def _entry(self, obj: EObject) -> tuple[Any, Entry | None]:
        group, member = groups_of(obj.eClass)[self.feature.name]
        coll = obj.eGet(group)
        return coll, next((e for e in coll if e.feature is member), None)

    def __get__(self, obj: EObject | None, owner: Any = None) -> Any:
        if obj is None:
            return self.feature
        entry = self._entry(obj)[1]
        return model.default_of(self.feature) if entry is None else entry.value

    def __set__(self, obj: EObject, value: Any) -> None:
        member = self.feature
        coll, entry = self._entry(obj)
        unset = not member.unsettable and value == model.default_of(member)
        if entry is not None:
            self._release(entry.value)
            if unset:
                coll.remove(entry)
                return
            entry.value = value
        elif unset:
            return
        else:
            coll.append(Entry(member, value))
        if getattr(member, "containment", False) and isinstance(value, EObject):
            value._container = obj
            value._containment_feature = member

    def __delete__(self, obj: EObject) -> None:
        coll, entry = self._entry(obj)
        if entry is not None:
            self._release(entry.value)
            coll.remove(entry)

    def _release(self, old: Any) -> None:
        if getattr(self.feature, "containment", False) and isinstance(old, EObject):
            old._container = None
            old._containment_feature = None


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


# ---- attribute wildcards ---------------------------------------------------------------

XMLTYPE_NS = "http://www.eclipse.org/emf/2003/XMLType"  # EMF's wildcards never admit it
_WILDCARDS = "_cfmodel_attribute_wildcards"


@dataclass(frozen=True, slots=True)
class AttributeWildcard:
    """An attribute-wildcard feature map of a class: the namespaces it admits, as EMF
    resolves its ``wildcards`` (None: no namespace; ``!##ns``: any namespace but ``ns``),
    and whether undeclared attributes are made on demand (``processing`` lax or skip)."""

    feature: Any
    wildcards: tuple[str | None, ...]
    lax: bool

    def admits(self, namespace: str | None) -> bool:
        """EMF's ``BasicExtendedMetaData.matches`` over the wildcards."""
        for w in self.wildcards:
            if w is None:
                if namespace is None:
                    return True
            elif w.startswith("!##"):
                if namespace is not None and namespace != w[3:] and namespace != XMLTYPE_NS:
                    return True
            elif (w == "##any" and namespace != XMLTYPE_NS) or w == namespace:
                return True
        return False


def is_attribute_wildcard(f: Any) -> bool:
    """Whether `f` is a feature map of ExtendedMetaData ``kind`` ``attributeWildcard``."""
    return is_feature_map(f) and _detail(f, "kind") == "attributeWildcard"


def _resolved(f: Any, wildcard: str) -> str | None:
    here = f.eContainingClass.ePackage.nsURI if f.eContainingClass is not None else None
    if wildcard == "##other":
        return f"!##{here}"
    if wildcard == "##local":
        return None
    if wildcard == "##targetNamespace":
        return str(here) if here is not None else None
    return wildcard


def attribute_wildcards(eclass: Any) -> tuple[AttributeWildcard, ...]:
    """The attribute wildcards of `eclass` (all features, supertypes first), made once."""
    found: tuple[AttributeWildcard, ...] | None = eclass.__dict__.get(_WILDCARDS)
    if found is None:
        found = tuple(
            AttributeWildcard(
                f,
                tuple(_resolved(f, w) for w in (_detail(f, "wildcards") or "").split()),
                _detail(f, "processing") in ("lax", "skip"),
            )
            for f in model.all_features(eclass)
            if is_attribute_wildcard(f)
        )
        eclass.__dict__[_WILDCARDS] = found
    return found


def attribute_namespace(f: Any) -> str | None:
    """The namespace of a global attribute (ExtendedMetaData ``namespace``; None: none)."""
    where = _detail(f, "namespace")
    if where == "##targetNamespace":
        pkg = f.eContainingClass.ePackage if f.eContainingClass is not None else None
        return None if pkg is None else pkg.nsURI
    return where


def attribute_name(f: Any) -> str:
    """The XML name of a global attribute (ExtendedMetaData ``name``, else the feature's)."""
    return _detail(f, "name") or str(f.name)


def global_attribute(package: Any, name: str) -> Any:
    """The attribute `package` declares globally as `name`: a feature of ``kind``
    ``attribute`` of its document root (the class of ExtendedMetaData ``name`` ""); None."""
    if package is None:
        return None
    for c in package.eClassifiers:
        if isinstance(c, EClass) and _detail(c, "name") == "":
            for f in c.eStructuralFeatures:
                kind = _detail(f, "kind")
                if isinstance(f, EAttribute) and kind == "attribute" and attribute_name(f) == name:
                    return f
    return None


# The type of what a wildcard makes on demand (XMLType's ``anySimpleType``): the
# attribute's text, kept as a string (a data type without a Java class, `datatypes`).
ANY_SIMPLE_TYPE = EDataType("AnySimpleType")
_DEMANDED = "_cfmodel_demand_packages"


def compute_prefix(namespace: str) -> str:
    """The prefix EMF gives a package made on demand (``BasicExtendedMetaData.computePrefix``):
    the last run of name characters of the URI that holds a letter (``http://a.org/ext``:
    ``ext``); ``_`` appended when that run cannot start a name."""
    out: list[str] = []
    i = len(namespace)
    has_letter = False
    while i > 0:
        i -= 1
        if _name_char(namespace[i]):
            out.append(namespace[i])
            has_letter = namespace[i].isalpha()
            break
    while i > 0:
        i -= 1
        c = namespace[i]
        if _name_char(c):
            out.append(c)
            has_letter = has_letter or c.isalpha()
        elif not has_letter:
            out.append("_")
        else:
            break
    if not out or not (out[-1].isalpha() or out[-1] == "_"):
        out.append("_")
    return "".join(reversed(out))


def _name_char(c: str) -> bool:
    return c.isalnum() or c in "._-" or c == "\u00b7"


def demand_attribute(owner: Any, namespace: str | None, name: str) -> Any:
    """The attribute `name` of `namespace` made on demand, once per `owner` (a resource
    set): a feature of the ``DocumentRoot`` class of a package of that namespace (prefix
    `compute_prefix`), holding the text of the attributes it stands for."""
    table: dict[str | None, Any] = owner.__dict__.setdefault(_DEMANDED, {})
    pkg = table.get(namespace)
    if pkg is None:
        prefix = compute_prefix(namespace) if namespace is not None else ""
        pkg = table[namespace] = EPackage(prefix or "demand", nsURI=namespace, nsPrefix=prefix)
        pkg.eClassifiers.append(EClass("DocumentRoot"))
    (root,) = pkg.eClassifiers
    found = root.findEStructuralFeature(name)
    if found is None:
        found = EAttribute(name, ANY_SIMPLE_TYPE, derived=True, transient=True)
        note = EAnnotation(EXTENDED_METADATA)
        note.details["kind"] = "attribute"
        note.details["name"] = name
        if namespace is not None:
            note.details["namespace"] = "##targetNamespace"
        found.eAnnotations.append(note)
        root.eStructuralFeatures.append(found)
    return found
