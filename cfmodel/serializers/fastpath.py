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

Guarantees: `RAW` is True only if a probe at import finds PyEcore's holders laid out as
assumed; otherwise every helper takes PyEcore's public API (same result, slower). The
unit tests compare both paths with PyEcore's own setters.
"""

from __future__ import annotations

from typing import Any

from ordered_set import OrderedSet
from pyecore.ecore import EAttribute, EObject
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
            type(holder) is EValue and tuple(vars(holder)) == _HOLDER_FIELDS and holder._value == "x"
            and set(vars(o)) >= _OBJECT_FIELDS and name in o._isset and kids in o._isset
            and type(o.__dict__[kids._name]) is EOrderedSet and child._container is o
            and child._containment_feature is kids and isinstance(o._inverse_rels, set)
        )
    except Exception:  # any surprise: use the public API
        return False


RAW = _probe()


# ---- reading values -------------------------------------------------------------------


def single(obj: EObject, f: Any) -> Any:
    """``obj.eGet(f) if obj.eIsSet(f) else None`` for a single-valued feature."""
    if f not in obj._isset:
        return None
    holder = obj.__dict__.get(f._name)
    if type(holder) is EValue:
        return holder._value
    return obj.eGet(f)


def value(obj: EObject, f: Any) -> Any:
    """``obj.eGet(f)`` for a single-valued feature, without creating a holder."""
    holder = obj.__dict__.get(f._name)
    if holder is None:
        return None if not isinstance(f, EAttribute) else obj.eGet(f)
    if type(holder) is EValue:
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
