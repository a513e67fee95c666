"""Direct access to PyEcore 0.15's value holders, for the serializers' hot loops.

PyEcore keeps a feature's value in the object's ``__dict__`` under the feature's name
(``feature._name``, the key its descriptor uses): an `EValue` holder (value in
``_value``) for a single-valued feature, an `ECollection` (itself the value) for a
many-valued one, both created on first access; ``_isset`` records the features ever set.
Its setters also type-check, notify listeners and update containers, opposites and an
inverse-reference index: several microseconds per value.

Input: objects and features. Output (reading): values as ``eIsSet``/``eGet`` give them,
without creating holders. Output (building): values stored on objects *a reader has just
created* exactly as PyEcore's setters (with ``update_opposite=False``) would leave them,
minus the notifications: a new object has no listeners and is in no resource yet, so
there is nobody to notify. Callers check value types themselves (the readers' codecs
produce the right Python types; reference targets are checked with `conforms`).

Light objects (`light_class`, `holder_class`; used when `LIGHT`): PyEcore's constructor
gives every object ten bookkeeping attributes (two listener lists, an inverse-reference
set, ...) and every set value an ``EValue`` with six attributes in a ``__dict__``. A
reader's objects instead carry only ``_isset`` and their values: the bookkeeping reads
from class-level defaults that behave as PyEcore's instance attributes (None, the object
itself, or an empty list/set put on the object the first time it is read), and each
value sits in a slotted holder of a class made once per feature (owner and value per
object; feature, ``is_ref``, ``is_cont`` in the class) with ``EValue``'s own methods, so
PyEcore reads, sets, observes and deletes them as before. The compiler's PyEcore model
(``cfmodel.transforms.cf.model``) is made of the same light objects and holders.

Guarantees: `RAW` is True only if a probe at import finds PyEcore's holders laid out as
assumed; otherwise every helper takes PyEcore's public API (same result, slower). `LIGHT`
is True only if a probe finds light objects behaving as PyEcore's own under reads, sets,
observers, opposites, containment, resources and deletion. The unit tests compare both
paths with PyEcore's own setters.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from ordered_set import OrderedSet
from pyecore.ecore import EAttribute, EObject
from pyecore.innerutils import InternalSet
from pyecore.valuecontainer import ECollection, EcoreUtils, EList, EOrderedSet, EValue

_new = object.__new__
_HOLDER_FIELDS = ("owner", "feature", "is_ref", "is_cont", "generic_type", "_value")
_OBJECT_FIELDS = {"_isset", "_container", "_containment_feature", "_inverse_rels"}


def _probe() -> bool:
    """Does PyEcore lay out holders and objects the way the raw helpers assume?"""
    from pyecore.ecore import EAttribute, EClass, EReference, EString

    try:
        c = EClass("Probe")
        name = EAttribute("name", EString)
        kids = EReference("kids", c, upper=-1, containment=True)
        c.eStructuralFeatures += [name, kids]
        o, child = c(), c()
        o.name = "x"
        o.kids.append(child)
        holder = o.__dict__[name._name]
        return bool(
            type(holder) is EValue
            and tuple(vars(holder)) == _HOLDER_FIELDS
            and holder._value == "x"
            and set(vars(o)) >= _OBJECT_FIELDS
            and name in o._isset
            and kids in o._isset
            and type(o.__dict__[kids._name]) is EOrderedSet
            and child._container is o
            and child._containment_feature is kids
            and isinstance(o._inverse_rels, set)
        )
    except Exception:  # any surprise: use the public API
        return False


RAW = _probe()


# ---- light objects ----------------------------------------------------------------------

_NONE_DEFAULTS = ("_internal_id", "_container", "_containment_feature", "_eresource")
_LAZY: dict[str, Callable[[], Any]] = {"listeners": list, "_eternal_listener": list, "_inverse_rels": set}
_PREPARED = "_cfmodel_light"  # on a class light_class prepared: its EClass
_HOLDER_CLASS = "_cfmodel_holder"  # where a feature keeps its holder class
_HOLDER_TYPES = "_cfmodel_holders"  # where a feature keeps `holder_types`


class _CreatedOnRead:
    """A class attribute putting a new empty container on the object when first read
    (a non-data descriptor: once the object has its own value, Python finds that)."""

    __slots__ = ("factory", "name")

    def __init__(self, name: str, factory: Callable[[], Any]) -> None:
        self.name = name
        self.factory = factory

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            raise AttributeError(self.name)  # the class itself has none (as with PyEcore)
        made = self.factory()
        obj.__dict__[self.name] = made
        return made


class _Itself:
    """``dyn_inst``: the object itself; on the class, its ``EClass`` (what PyEcore puts there)."""

    __slots__ = ("eclass",)

    def __init__(self, eclass: Any) -> None:
        self.eclass = eclass

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self.eclass if obj is None else obj


BATCH = "_cfmodel_inverse"  # a read object's key for its document's `InverseBatch`


class InverseBatch(list[Any]):
    """PyEcore's inverse-reference index entries a reader has not made yet: flat triples
    ``target, owner, feature`` meaning ``(owner, feature) in target._inverse_rels``.

    Every object of the document keeps the batch under `BATCH`; the first read of
    ``_inverse_rels`` on any of them (PyEcore reads it before it changes, deletes or
    checks a one-way reference) makes all the sets of the batch (`flush`). A reader adds
    an entry only for a target without its own set yet, and sets it directly otherwise.
    Saves a set and a tuple per referenced object (about 300 bytes) while nothing asks.
    """

    __slots__ = ()

    def flush(self) -> None:
        it = iter(self)
        for target, owner, f in zip(it, it, it, strict=True):
            d = target.__dict__
            rels = d.get("_inverse_rels")
            if rels is None:
                rels = d["_inverse_rels"] = set()
            rels.add((owner, f))
        self.clear()


class _InverseOnRead:
    """``_inverse_rels`` of a light object: its document's pending entries made first
    (`InverseBatch`), then the object's own set (empty when nothing refers to it)."""

    __slots__ = ()

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            raise AttributeError("_inverse_rels")
        d = obj.__dict__
        batch = d.get(BATCH)
        if batch:
            batch.flush()
        rels = d.get("_inverse_rels")
        if rels is None:
            rels = d["_inverse_rels"] = set()
        return rels


class _IssetOnRead:
    """``_isset`` of a light object: the features of its light holders, made into the
    object's own set when first read (PyEcore reads it in ``eIsSet`` and adds to it when
    it sets a value; nothing ever removes from it). A reader leaves it unmade: a light
    holder is only ever made for a value that was set (PyEcore's own reads of unset
    features make ``EValue`` holders, which do not count)."""

    __slots__ = ()

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            raise AttributeError("_isset")
        d = obj.__dict__
        made = d.get("_isset")
        if made is None:
            made = d["_isset"] = InternalSet()
            for h in list(d.values()):
                if isinstance(h, LightValue):
                    made[h.feature] = None
        return made


def sync_isset(obj: EObject) -> None:
    """After light holders were put on `obj` without noting them in a ``_isset`` it
    already has (made meanwhile): note them."""
    made = obj.__dict__.get("_isset")
    if made is not None:
        for h in list(obj.__dict__.values()):
            if isinstance(h, LightValue):
                made[h.feature] = None


def note_inverse_later(batch: InverseBatch, target: EObject, owner: EObject, f: Any) -> None:
    """Add ``(owner, f)`` to `target`'s inverse index now, or to `batch` while it has none."""
    rels = target.__dict__.get("_inverse_rels")
    if rels is None:
        batch += (target, owner, f)
    else:
        rels.add((owner, f))


def light_class(eclass: Any) -> type | None:
    """The python class of `eclass`, given the class-level defaults; None if it cannot
    have them (a static class, or one defining those names itself)."""
    cls: type = eclass.python_class
    own = cls.__dict__
    if own.get(_PREPARED) is eclass:
        if type(own.get("_inverse_rels")) is not _InverseOnRead:  # prepared by the compiler's
            setattr(cls, "_inverse_rels", _InverseOnRead())  # noqa: B010 - also makes an empty set
        if "_isset" not in own:  # its objects have their own
            setattr(cls, "_isset", _IssetOnRead())  # noqa: B010
        return cls
    if (
        getattr(cls, "_staticEClass", True)
        or own.get("dyn_inst") is not eclass
        or any(name in own for name in (*_NONE_DEFAULTS, *_LAZY, "_isset"))
    ):
        return None
    for name in _NONE_DEFAULTS:
        setattr(cls, name, None)
    for name, factory in _LAZY.items():
        setattr(cls, name, _CreatedOnRead(name, factory))
    setattr(cls, "_inverse_rels", _InverseOnRead())  # noqa: B010 - see above
    setattr(cls, "_isset", _IssetOnRead())  # noqa: B010
    setattr(cls, "dyn_inst", _Itself(eclass))  # noqa: B010 - replaces PyEcore's own class attribute
    setattr(cls, _PREPARED, eclass)
    return cls


def _value_methods() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for klass in reversed(EValue.__mro__):
        out |= {k: v for k, v in vars(klass).items() if not (k.startswith("__") and k.endswith("__"))}
    return out


class LightValue:
    """A single-valued feature's value: PyEcore's ``EValue`` methods, two slots; the
    feature and its kind are attributes of a subclass made per feature (`holder_class`)."""

    __slots__ = ("_value", "owner")
    _value: Any
    owner: Any
    _feature: Any = None  # read on the class, where a feature (a descriptor) is itself
    feature = property(attrgetter("__class__._feature"))
    is_ref = False
    is_cont = False
    generic_type = None


for _name, _method in _value_methods().items():
    if _name not in ("is_ref", "is_cont", "generic_type", "feature", "_feature"):
        setattr(LightValue, _name, _method)

HOLDERS = (EValue, LightValue)  # what holds a single value (``isinstance``)


def holder_class(f: Any) -> type:
    """The holder class of single-valued feature `f` (made once, kept on the feature)."""
    found: type | None = f.__dict__.get(_HOLDER_CLASS)
    if found is None or getattr(found, "_feature", None) is not f:
        is_ref = bool(f.is_reference)
        attrs = {"__slots__": (), "_feature": f, "is_ref": is_ref, "is_cont": is_ref and bool(f.containment)}
        found = type("LightValue", (LightValue,), attrs)
        f.__dict__[_HOLDER_CLASS] = found
    return found


def holder_pair(f: Any) -> tuple[type, type]:
    """The two classes a single value of `f` is held in: PyEcore's `EValue` and `f`'s light
    holder (for generated tests ``type(h) is EValue``, ``type(h) is light``: exact and the
    cheapest test there is)."""
    return EValue, holder_class(f)


def holder_types(f: Any) -> frozenset[type]:
    """The classes a single value of `f` is held in: PyEcore's `EValue` and `f`'s light
    holder (a generated test ``type(h) in holder_types(f)``, exact and cheap; made once,
    kept on the feature)."""
    light = holder_class(f)
    found: frozenset[type] | None = f.__dict__.get(_HOLDER_TYPES)
    if found is None or light not in found:
        found = f.__dict__[_HOLDER_TYPES] = frozenset((EValue, light))
    return found


def light_holder(obj: EObject, f: Any, value: Any) -> LightValue:
    """A new light holder of `value` for `obj` (see `holder`)."""
    h: LightValue = _new(holder_class(f))
    h.owner = obj
    h._value = value
    return h


register = EObject._instances.add


def _registry_parts() -> tuple[Any, Any, list[Any], Any] | None:
    """What ``EObject._instances.add`` (a `weakref.WeakSet`) does, as parts to inline:
    (its set's ``add``, its removal callback, its pending removals, their commit)."""
    weak = EObject._instances
    parts = (
        getattr(getattr(weak, "data", None), "add", None),
        getattr(weak, "_remove", None),
        getattr(weak, "_pending_removals", None),
        getattr(weak, "_commit_removals", None),
    )
    if None in parts or not isinstance(parts[2], list):
        return None
    return parts  # type: ignore[return-value]


REGISTRY = _registry_parts()


def register_all(objs: list[EObject]) -> None:
    """`register` each of `objs` (new objects), the weak references made at C speed."""
    if REGISTRY is None:
        for obj in objs:
            register(obj)
        return
    add, remove, pending, commit = REGISTRY
    if pending:
        commit()
    add.__self__.update(map(weakref.ref, objs, itertools.repeat(remove)))


def light_new(cls: type) -> EObject:
    """A new, empty light object of a class `light_class` prepared (its ``_isset`` is
    made when first read, from its light holders)."""
    obj: Any = _new(cls)
    register(obj)
    return obj


def _light_probe() -> bool:
    """Do light objects behave as PyEcore's own (reads, sets, observers, opposites, ...)?"""
    from pyecore.ecore import EClass, EInt, EPackage, EReference, EString
    from pyecore.notification import EObserver
    from pyecore.resources import URI, ResourceSet

    try:
        pkg = EPackage("probe", nsURI="http://cfmodel.org/serializers/probe", nsPrefix="probe")
        node, other = EClass("Node"), EClass("Other")
        pkg.eClassifiers.extend([node, other])
        name, size = EAttribute("name", EString), EAttribute("size", EInt)
        kids = EReference("kids", node, upper=-1, containment=True)
        peer = EReference("peer", other)
        friend = EReference("friend", node)
        back = EReference("back", node, eOpposite=friend)
        node.eStructuralFeatures.extend([name, size, kids, peer, friend, back])
        ncls, ocls = light_class(node), light_class(other)
        if ncls is None or ocls is None:
            return False
        obj, child, mate, third, target = (
            light_new(ncls),
            light_new(ncls),
            light_new(ncls),
            light_new(ncls),
            light_new(ocls),
        )
        for o, f, v in ((mate, name, "m"), (mate, friend, third), (third, back, mate), (obj, peer, target)):
            o.__dict__[f._name] = light_holder(o, f, v)  # _isset made when read
        lazy_isset = "_isset" not in vars(mate) and mate.eIsSet(friend) and not mate.eIsSet(size)
        third.size  # noqa: B018 - PyEcore makes an EValue holding the default: still unset
        lazy_isset = lazy_isset and not third.eIsSet(size) and list(third._isset) == [back]
        batch = InverseBatch()
        for o in (obj, target, mate, third):
            o.__dict__[BATCH] = batch
        note_inverse_later(batch, target, obj, peer)  # made when PyEcore unsets obj.peer
        note_inverse_later(batch, target, mate, peer)
        if target.__dict__.get("_inverse_rels") is not None or len(batch) != 6:
            return False
        seen: list[Any] = []
        EObserver(obj, notifyChanged=seen.append)
        obj.name = "x"
        obj.kids.append(child)
        obj.peer = None
        mate.name = "n"
        mate.friend = obj
        resource = ResourceSet().create_resource(URI("probe.xmi"))
        resource.append(obj)
        checks = [
            lazy_isset,
            obj.name == "x" and obj.size == 0 and not obj.eIsSet(size) and obj.eIsSet(name),
            len(seen) == 4 and child.eContainer() is obj and child.eContainmentFeature() is kids,
            target._inverse_rels == {(mate, peer)} and not batch and obj._internal_id is None,
            child.eResource is resource,
            obj.dyn_inst is obj and getattr(ncls, "dyn_inst", None) is node,
            obj in set(node.allInstances()) and not hasattr(ncls, "listeners"),
            mate.name == "n" and mate.eGet(name) == "n" and mate.friend is obj and obj.back is mate,
            third.back is mate and type(mate.__dict__["name"]) is holder_class(name),
        ]
        child.delete()
        checks.append(not obj.kids and child.eContainer() is None)
        return all(checks)
    except Exception:  # any surprise: PyEcore's own constructor and holders
        return False


LIGHT = RAW and _light_probe()


# ---- reading values -------------------------------------------------------------------


def single(obj: EObject, f: Any) -> Any:
    """``obj.eGet(f) if obj.eIsSet(f) else None`` for a single-valued feature."""
    if f not in obj._isset:
        return None
    holder = obj.__dict__.get(f._name)
    if isinstance(holder, HOLDERS):
        return holder._value
    return obj.eGet(f)


def value(obj: EObject, f: Any) -> Any:
    """``obj.eGet(f)`` for a single-valued feature, without creating a holder."""
    holder = obj.__dict__.get(f._name)
    if holder is None:
        return None if not isinstance(f, EAttribute) else obj.eGet(f)
    if isinstance(holder, HOLDERS):
        return holder._value
    return obj.eGet(f)


def items(obj: EObject, f: Any) -> Any:
    """The values of a many-valued feature (an empty tuple when never touched)."""
    holder = obj.__dict__.get(f._name)
    if holder is None:
        return ()
    if isinstance(holder, ECollection):
        return holder
    return obj.eGet(f)


# ---- building new objects ---------------------------------------------------------------


def new_object(eclass: Any) -> EObject:
    """A new, empty instance: PyEcore's own constructor, minus keyword-argument handling."""
    cls = eclass.python_class
    obj: EObject = cls.__new__(cls)
    return obj


def holder(obj: EObject, f: Any, value: Any, is_ref: bool = False, is_cont: bool = False) -> EValue:
    """A new holder of a single-valued feature's value; only when `RAW`. The caller puts it
    into ``obj.__dict__[f._name]`` (where there was none) and adds `f` to ``obj._isset``."""
    if LIGHT:
        light: Any = light_holder(obj, f, value)  # EValue's methods, slotted
        return light
    h: EValue = _new(EValue)
    h.owner = obj
    h.feature = f
    h.is_ref = is_ref
    h.is_cont = is_cont
    h.generic_type = None
    h._value = value
    return h


def set_attribute(obj: EObject, f: Any, value: Any) -> None:
    """Set a single-valued attribute of a new object (no holder yet) to a checked value."""
    d = obj.__dict__
    name = f._name
    if RAW and name not in d:
        d[name] = holder(obj, f, value)
        obj._isset[f] = None
    else:
        obj.eGet(f)  # creates the holder
        d[name]._set(value, update_opposite=False)


def set_reference(obj: EObject, f: Any, value: Any, containment: bool = False) -> None:
    """Set a single-valued reference of a new object: ``holder._set(value, update_opposite=False)``.

    `containment` tells that `f` is a containment (`value` is then a new object too, and
    gets its container, as PyEcore does).
    """
    d = obj.__dict__
    name = f._name
    if RAW and name not in d:
        d[name] = holder(obj, f, value, True, containment)
        obj._isset[f] = None
        if containment and value is not None:
            value._container = obj
            value._containment_feature = f
    else:
        obj.eGet(f)
        d[name]._set(value, update_opposite=False)


def collection(obj: EObject, f: Any) -> Any:
    """The collection of a many-valued feature, created if needed."""
    holder = obj.__dict__.get(f._name)
    return holder if holder is not None else obj.eGet(f)


def add_item(obj: EObject, f: Any, coll: Any, value: Any, containment: bool = False) -> None:
    """``coll.append(value, update_opposite=False)`` for a collection of a new object, where
    `value` is a new object too if `containment` (it gets its container)."""
    if RAW and isinstance(coll, EOrderedSet):
        OrderedSet.add(coll, value)
    elif RAW and isinstance(coll, EList):
        list.append(coll, value)
    else:
        coll.append(value, update_opposite=False)
        return
    obj._isset[f] = None
    if containment:
        value._container = obj
        value._containment_feature = f


def note_inverse(target: EObject, owner: EObject, f: Any) -> None:
    """PyEcore's inverse-reference index for a one-way reference ``owner.f -> target``."""
    rels = getattr(target, "_inverse_rels", None)
    if rels is not None:
        rels.add((owner, f))


def conforms(value: Any, etype: Any) -> bool:
    """PyEcore's own type check for a value of a feature typed `etype`."""
    return bool(EcoreUtils.isinstance(value, etype))
