"""Building model objects from values: the one way cfmodel makes new PyEcore objects.

Input: EClasses of any metamodel (derived by the compiler, fixed, or read from ``.ecore``)
and values for the features of new objects. Output: PyEcore objects, made as the runtime's
light objects with slotted holders when `fastpath.LIGHT` (else by PyEcore's constructor
with holders stored directly when `fastpath.RAW`, else through PyEcore's setters).

Who builds this way: the compiler's model (`cfmodel.transforms.cf.model`: instances to
objects), the fixed metamodels' plain objects when they become PyEcore objects
(`plain.plain_to_ecore`), and the readers, whose generated constructors are this builder's
`set` written out per class (`fastpath.holder_class`, the same holders in the same places).

Guarantees: every object ends as PyEcore's setters without opposite updates would leave
it: ``_isset`` in setting order (made from the holders when first read, for a light
object), a contained object knows its container, a reference without an opposite is in its
target's inverse index (`fastpath.note_inverse`). With ``pair``, the opposite end of a
reference is set too, as PyEcore's setter would (else the caller sets both ends, as the
compiler does).
Values are stored as given: callers give values of the features' types. `finish` registers
the light objects as PyEcore instances (``EClass.allInstances()``), as its constructor does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyecore.ecore import EAttribute, EObject

from cfmodel.metamodel.runtime import fastpath

_new = object.__new__


class Feature:
    """What the builder needs of a feature, read once from PyEcore (its descriptors are slow)."""

    __slots__ = ("containment", "feature", "holder", "key", "many", "opposite", "pair_many", "reference")

    def __init__(self, f: Any, light: bool) -> None:
        self.feature = f
        self.key: str = f._name
        self.many = bool(f.many)
        self.reference = not isinstance(f, EAttribute)
        self.containment = self.reference and bool(f.containment)
        self.opposite: Any = f.eOpposite if self.reference else None
        self.pair_many = self.opposite is not None and bool(self.opposite.many)
        # a single value not contained goes straight into a light holder
        self.holder: type | None = (
            fastpath.holder_class(f) if light and not self.many and not self.containment else None
        )


class ObjectBuilder:
    """Makes new objects (`new`), sets their features (`set`, `extend`; `feature` reads a
    feature once for them), then `finish`."""

    __slots__ = ("_classes", "_features", "_made", "light")

    def __init__(self) -> None:
        self.light = fastpath.LIGHT and fastpath.RAW
        # per EClass (by id, checked): the class and its light class (None: PyEcore's constructor)
        self._classes: dict[int, tuple[Any, type | None]] = {}
        self._features: dict[int, Feature] = {}
        self._made: list[EObject] = []  # light objects, registered by `finish`

    def light_class(self, eclass: Any) -> type | None:
        """The light class objects of `eclass` are made of (None: PyEcore's constructor)."""
        found = self._classes.get(id(eclass))
        if found is None or found[0] is not eclass:
            found = self._classes[id(eclass)] = (eclass, fastpath.light_class(eclass) if self.light else None)
        return found[1]

    def feature(self, f: Any) -> Feature:
        """`f` as `set` and `extend` take it (made once per feature)."""
        found = self._features.get(id(f))
        if found is None or found.feature is not f:
            found = self._features[id(f)] = Feature(f, self.light)
        return found

    def new(self, eclass: Any) -> EObject:
        """A new, empty object of `eclass` (registered as a PyEcore instance by `finish`)."""
        cls = self.light_class(eclass)
        if cls is None:
            return fastpath.new_object(eclass)
        obj: EObject = _new(cls)
        self._made.append(obj)
        return obj

    def set(self, obj: EObject, f: Feature, value: Any, pair: bool = False) -> None:
        """Set single-valued feature `f` of a new object that has no value for it yet."""
        holder = f.holder
        if holder is not None:
            d = obj.__dict__
            h: Any = _new(holder)
            h.owner = obj
            h._value = value
            d[f.key] = h
            isset = d.get("_isset")  # a light object's is made from its holders when first read
            if isset is not None:
                isset[f.feature] = None
        elif f.reference:
            fastpath.set_reference(obj, f.feature, value, containment=f.containment)
        else:
            fastpath.set_attribute(obj, f.feature, value)
        if f.reference and value is not None:
            self._referred(obj, f, value, pair)

    def extend(self, obj: EObject, f: Feature, values: Iterable[Any], pair: bool = False) -> None:
        """Add `values` to many-valued feature `f` of a new object, in order."""
        feature = f.feature
        items = fastpath.collection(obj, feature)
        containment = f.containment
        for value in values:
            fastpath.add_item(obj, feature, items, value, containment)
            if f.reference:
                self._referred(obj, f, value, pair)

    def _referred(self, obj: EObject, f: Feature, target: EObject, pair: bool) -> None:
        opposite = f.opposite
        if opposite is None:  # PyEcore's inverse index, containments included
            fastpath.note_inverse(target, obj, f.feature)
        elif pair:
            if f.pair_many:
                back = fastpath.collection(target, opposite)
                if obj not in back:
                    fastpath.add_item(target, opposite, back, obj)
            elif fastpath.value(target, opposite) is None:
                fastpath.set_reference(target, opposite, obj)

    def finish(self) -> None:
        """Register the light objects made so far as PyEcore instances."""
        fastpath.register_all(self._made)
        self._made = []
