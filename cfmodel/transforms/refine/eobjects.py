"""Light PyEcore objects for the compiled instance model.

PyEcore's ``EObject.__new__`` gives every object ten bookkeeping attributes in its
``__dict__``: ``_internal_id``, ``_container``, ``_containment_feature`` and
``_eresource`` (None), ``_staticEClass`` (False), ``dyn_inst`` (the object itself), an
empty ``_isset``, two empty listener lists and an empty ``_inverse_rels`` set. For a
compiled model of tens of thousands of objects most of them never change, yet they cost
about 700 bytes per object, and the features added afterwards turn the object's
attribute table into a large combined dict.

`LightObjects.new(eclass)` makes an object of the same class whose ``__dict__`` holds
only ``_isset`` (then the feature values, in the same order for every object of a
class, so Python shares the attribute keys between them): the class of each ``EClass``
gets, once, class-level defaults that read exactly as PyEcore's instance attributes do:

* ``_internal_id``, ``_container``, ``_containment_feature``, ``_eresource``: None
  (assigning one stores it on the object, as before);
* ``listeners``, ``_eternal_listener``, ``_inverse_rels``: created empty on the object
  the first time they are read (PyEcore reads them when the object is changed,
  observed or referenced one-way);
* ``dyn_inst``: the object itself (the class still answers its ``EClass``).

``_staticEClass`` is already False on the classes of dynamic ``EClass``\\es. The object
is registered for ``EClass.allInstances()`` as PyEcore does. Everything PyEcore offers
works on these objects (reading, setting, observers, opposites, deletion, resources,
PyEcore's own XMI and JSON resources); `usable()` checks that once per process on a
throwaway class, and the converter falls back to PyEcore's own constructor otherwise.

A single-valued feature's value sits in a holder (PyEcore's ``EValue``: six attributes
in a ``__dict__``, about 130 bytes). `LightObjects.set_value` stores it in a
`light_value_class()` holder instead: the same six attributes in ``__slots__`` (about
80 bytes) and EValue's own methods (``_get``, ``_set``, ``check``, ``remove_or_unset``,
``_update_container``), so PyEcore reads and changes it as an ``EValue`` (only
``type(holder) is EValue`` tells them apart; cfmodel's serializers then take PyEcore's
public path for the rare reads that test it).

Guarantees: a class is prepared only if it defines none of those names itself (then its
objects are made by PyEcore's constructor); objects made by PyEcore's constructor keep
their own attributes (instance attributes come before these class-level defaults);
containment values get PyEcore's own holders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_NONE_DEFAULTS = ("_internal_id", "_container", "_containment_feature", "_eresource")
_LAZY: dict[str, Callable[[], Any]] = {"listeners": list, "_eternal_listener": list, "_inverse_rels": set}
_PREPARED = "_cfmodel_light"


class _CreatedOnRead:
    """A class attribute that puts a new empty container on the object the first time it is read.

    A non-data descriptor: once the object has its own value, Python finds that first."""

    __slots__ = ("factory", "name")

    def __init__(self, name: str, factory: Callable[[], Any]) -> None:
        self.name = name
        self.factory = factory

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            raise AttributeError(self.name)  # the class itself has no such attribute (as before)
        value = self.factory()
        obj.__dict__[self.name] = value
        return value


class _Itself:
    """``dyn_inst``: the object itself; on the class, its ``EClass`` (what PyEcore puts there)."""

    __slots__ = ("eclass",)

    def __init__(self, eclass: Any) -> None:
        self.eclass = eclass

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self.eclass if obj is None else obj


_HOLDER_FIELDS = ("owner", "feature", "is_ref", "is_cont", "generic_type", "_value")
_HOLDER_CLASS: list[type] = []


def light_value_class() -> type:
    """A slotted class with PyEcore's ``EValue`` methods (made once; ``__init__`` is not copied)."""
    if not _HOLDER_CLASS:
        from pyecore.valuecontainer import EValue

        namespace: dict[str, Any] = {
            "__slots__": _HOLDER_FIELDS,
            "__module__": __name__,
            "__doc__": "A single-valued feature's value: PyEcore's EValue, with slots.",
        }
        for klass in reversed(EValue.__mro__):
            for key, value in vars(klass).items():
                if not (key.startswith("__") and key.endswith("__")):
                    namespace[key] = value
        _HOLDER_CLASS.append(type("LightValue", (), namespace))
    return _HOLDER_CLASS[0]


class LightObjects:
    """Makes light objects of dynamic ``EClass``\\es and their holders (see the module docstring)."""

    def __init__(self) -> None:
        from pyecore.ecore import EObject
        from pyecore.innerutils import InternalSet

        self._register = EObject._instances.add
        self._isset = InternalSet
        self._classes: dict[int, type | None] = {}
        self._holder = light_value_class()

    def set_value(self, obj: Any, f: Any, value: Any, is_ref: bool) -> None:
        """Set a single-valued feature of a new object (no holder yet) to a checked value.

        A reference must not be a containment (those take `cfmodel.serializers.fastpath`)."""
        h: Any = object.__new__(self._holder)
        h.owner = obj
        h.feature = f
        h.is_ref = is_ref
        h.is_cont = False
        h.generic_type = None
        h._value = value
        obj.__dict__[f._name] = h
        obj._isset[f] = None

    def new(self, eclass: Any) -> Any:
        """A new, empty object of *eclass* (PyEcore's own constructor if its class cannot be prepared)."""
        key = id(eclass)
        if key in self._classes:
            cls = self._classes[key]
        else:
            cls = self._classes[key] = prepare_class(eclass)
        if cls is None:
            return eclass.python_class.__new__(eclass.python_class)
        obj: Any = object.__new__(cls)
        obj._isset = self._isset()
        self._register(obj)
        return obj


def prepare_class(eclass: Any) -> type | None:
    """Give the python class of *eclass* the class-level defaults; None if it cannot have them."""
    cls: type = eclass.python_class
    if cls.__dict__.get(_PREPARED) is eclass:
        return cls
    own = cls.__dict__
    if getattr(cls, "_staticEClass", True) or any(
        name in own for name in (*_NONE_DEFAULTS, *_LAZY, "_isset")
    ):
        return None
    if own.get("dyn_inst") is not eclass:
        return None
    for name in _NONE_DEFAULTS:
        setattr(cls, name, None)
    for name, factory in _LAZY.items():
        setattr(cls, name, _CreatedOnRead(name, factory))
    setattr(cls, "dyn_inst", _Itself(eclass))  # noqa: B010 - a class attribute PyEcore set the same way
    setattr(cls, _PREPARED, eclass)
    return cls


_USABLE: list[bool] = []


def usable() -> bool:
    """Whether light objects behave as PyEcore's own here (checked once, on a throwaway class)."""
    if not _USABLE:
        _USABLE.append(_probe())
    return _USABLE[0]


def _probe() -> bool:
    try:
        from pyecore.ecore import EAttribute, EClass, EInt, EPackage, EReference, EString
        from pyecore.notification import EObserver

        package = EPackage("probe", nsURI="http://cfmodel.org/probe", nsPrefix="probe")
        node = EClass("Node")
        other = EClass("Other")
        package.eClassifiers.extend([node, other])
        name = EAttribute("name", EString)
        size = EAttribute("size", EInt)
        kids = EReference("kids", node, upper=-1, containment=True)
        peer = EReference("peer", other)  # one-way
        node.eStructuralFeatures.extend([name, size, kids, peer])
        friend = EReference("friend", node)
        back = EReference("back", node, eOpposite=friend)
        node.eStructuralFeatures.extend([friend, back])
        light = LightObjects()
        obj, child, target = light.new(node), light.new(node), light.new(other)
        mate, third = light.new(node), light.new(node)
        light.set_value(mate, name, "m", False)
        light.set_value(mate, friend, third, True)
        light.set_value(third, back, mate, True)
        seen: list[Any] = []
        EObserver(obj, notifyChanged=seen.append)
        obj.name = "x"
        obj.kids.append(child)
        obj.peer = target
        mate.name = "n"
        mate.friend = obj  # opposites follow through light holders (third keeps its back, as in PyEcore)
        checks = [
            obj.name == "x" and obj.size == 0 and not obj.eIsSet(size) and obj.eIsSet(name),
            len(seen) == 4 and child.eContainer() is obj and child.eContainmentFeature() is kids,
            (obj, peer) in target._inverse_rels and obj.eResource is None and obj._internal_id is None,
            obj.dyn_inst is obj and getattr(node.python_class, "dyn_inst", None) is node,
            obj in set(node.allInstances()) and not hasattr(node.python_class, "listeners"),
            mate.name == "n" and mate.eGet(name) == "n" and mate.friend is obj and obj.back is mate,
            third.back is mate and type(mate.__dict__["friend"]) is light_value_class(),
        ]
        return all(checks)
    except Exception:  # any surprise: PyEcore's own constructor
        return False
