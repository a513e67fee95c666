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

``make(eclass, **values)`` is ``eclass(**values)`` on the builder, and `build` one such
object alone: what the small models are made with — the resource graph's model, the
environments catalog and request, the differences model, the effective bindings, the
bindings that providers make from data (``bindings.literal_of``), the syntax tree as a
model, the environments parser's tree. The objects are PyEcore objects: PyEcore's setters,
readers and writers take them as they take their own.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from pyecore.ecore import EAttribute, EClass, EObject

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

    __slots__ = ("_classes", "_features", "_made", "_named", "light")

    def __init__(self) -> None:
        self.light = fastpath.LIGHT and fastpath.RAW
        # per EClass (by id, checked): the class and its light class (None: PyEcore's constructor)
        self._classes: dict[int, tuple[Any, type | None]] = {}
        self._features: dict[int, Feature] = {}
        # per (EClass by id, feature name): the class and the feature (`make`'s keywords)
        self._named: dict[tuple[int, str], tuple[Any, Feature]] = {}
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

    def named(self, eclass: Any, name: str) -> Feature:
        """The feature of `eclass` called `name` (its own or inherited), as `set` takes it.

        Raises:
            AttributeError: `eclass` has no such feature.
        """
        key = (id(eclass), name)
        found = self._named.get(key)
        if found is None or found[0] is not eclass:
            f = eclass.findEStructuralFeature(name)
            if f is None:
                raise AttributeError(f"{eclass.name} has no feature {name!r}")
            found = self._named[key] = (eclass, self.feature(f))
        return found[1]

    def make(self, eclass: Any, /, **values: Any) -> EObject:
        """A new object of `eclass` with `values` (feature name → value; a many-valued
        feature's items in order), as ``eclass(**values)`` makes it: each value given is
        set (None too, in the order given), opposite ends as well. A value of a containment
        is a new object (made here, or not yet contained); link existing objects with
        PyEcore's setters afterwards."""
        obj = self.new(eclass)
        for name, value in values.items():
            f = self.named(eclass, name)
            if f.many:
                self.extend(obj, f, value, pair=True)
            else:
                self.set(obj, f, value, pair=True)
        return obj

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


def build(eclass: Any, /, **values: Any) -> EObject:
    """One new object, `ObjectBuilder.make`'s, registered at once (for the few objects a
    small model is made of; a larger model uses one builder and `finish`es it once)."""
    builder = ObjectBuilder()
    obj = builder.make(eclass, **values)
    builder.finish()
    return obj


class Maker:
    """A package's EClasses as constructors whose objects one `ObjectBuilder` makes:
    ``maker.Assignment(variable="x", value=v)`` is ``builder.make(Assignment, variable="x",
    value=v)``. It stands where code calls a fixed metamodel's classes by name (a tree
    builder given its metamodel's module or its plain classes)."""

    def __init__(self, builder: ObjectBuilder, package: Any) -> None:
        self.builder = builder
        self._classes = {c.name: c for c in package.eClassifiers if isinstance(c, EClass)}

    def __getattr__(self, name: str) -> Any:
        eclass = self.__dict__.get("_classes", {}).get(name)
        if eclass is None:
            raise AttributeError(name)
        made = functools.partial(self.builder.make, eclass)
        setattr(self, name, made)  # found once per name
        return made
