"""Plain objects: a fixed metamodel's model objects as slotted Python objects.

A plain object has its EClass's name, its features as slots, and the PyEcore reading API a
parser's readers need (``eClass``, ``eGet``, ``eIsSet``, ``eContainer``, ``eContents``,
``eAllContents``); it is built ten times faster than a PyEcore `EObject` and turned into
one, once, on demand (`plain_to_ecore`, by the runtime's `ObjectBuilder`: the light objects
the compiler and the readers make). `plain_classes(package, module, extra)` makes the
plain class of every EClass of a package (each with an ``__init__`` generated from the
metamodel through `codegen.Emitter`, never from input), so any fixed metamodel can have
them; the bindings metamodel's parser builds them (`cfmodel.metamodel.bindings.plain`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from pyecore.ecore import EClass, EReference

from cfmodel.metamodel.runtime import codegen
from cfmodel.metamodel.runtime.objects import ObjectBuilder


class PlainObject:
    """A model object as a slotted Python object (see the module docstring).

    ``_set`` holds the keyword arguments of the constructor: the features that are set (as
    PyEcore's ``eIsSet`` would say had the object been built with the same arguments).
    """

    __slots__ = ("_container", "_ecore", "_set")
    eClass: ClassVar[Any] = None  # noqa: N815 - PyEcore's name
    #: every feature of the class: (name, many, containment reference)
    _features: ClassVar[tuple[tuple[str, bool, bool], ...]] = ()
    _set: dict[str, Any]
    _container: PlainObject | None
    _ecore: Any  # the PyEcore object made of this one (``to_ecore``); unset until then

    def eGet(self, feature: Any) -> Any:  # noqa: N802 - PyEcore's name
        return getattr(self, feature if isinstance(feature, str) else feature.name)

    def eIsSet(self, feature: Any) -> bool:  # noqa: N802
        return (feature if isinstance(feature, str) else feature.name) in self._set

    def eContainer(self) -> PlainObject | None:  # noqa: N802
        return self._container

    @property
    def eContents(self) -> list[PlainObject]:  # noqa: N802
        """The contained objects, in feature order (a property, as PyEcore's)."""
        found: list[PlainObject] = []
        for name, many, containment in self._features:
            if not containment:
                continue
            value = getattr(self, name)
            if many:
                found.extend(value)
            elif value is not None:
                found.append(value)
        return found

    def eAllContents(self) -> Iterator[PlainObject]:  # noqa: N802
        for child in self.eContents:
            yield child
            yield from child.eAllContents()

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self._set.items() if not isinstance(v, list | PlainObject))
        return f"<plain {type(self).__name__}({shown})>"


def plain_class(
    eclass: Any, base: type[PlainObject], extra: tuple[str, ...], module: str
) -> type[PlainObject]:
    """A plain class for ``eclass``: slots for its own features, an ``__init__`` for all of them."""
    own = tuple(f.name for f in eclass.eStructuralFeatures)
    features = tuple(
        (f.name, bool(f.many), isinstance(f, EReference) and bool(f.containment))
        for f in eclass.eAllStructuralFeatures()
    )
    defaults = {f.name: f.get_default_value() for f in eclass.eAllStructuralFeatures() if not f.many}
    em = codegen.Emitter("PlainObject")
    with em.block("def __init__(self, **kw):"):
        em.line("self._set = kw", "self._container = None", "get = kw.get")
        for name, many, containment in features:
            key = em.literal(name)
            if many:
                em.line(f"v = get({key})", "v = [] if v is None else v if type(v) is list else list(v)")
                if containment:
                    with em.block("for c in v:"), em.block("if isinstance(c, PlainObject):"):
                        em.line("c._container = self")
            elif containment:
                em.line(f"v = get({key})")
                with em.block("if isinstance(v, PlainObject):"):
                    em.line("v._container = self")
            else:
                em.line(f"v = get({key}, {em.bind(defaults[name], 'default')})")
            em.line(f"self.{name} = v")  # a feature name of a fixed metamodel: an identifier
    init = em.build(f"<cfmodel plain {eclass.name}>", "__init__", PlainObject=PlainObject)
    body = {
        "__slots__": own + extra,
        "__init__": init,
        "eClass": eclass,
        "_features": features,
        "__module__": module,
        "__qualname__": f"plain.{eclass.name}",
    }
    return type(str(eclass.name), (base,), body)


def plain_classes(
    package: Any, module: str, extra: dict[str, tuple[str, ...]]
) -> dict[str, type[PlainObject]]:
    """The plain class of every EClass of *package*, by name; *extra*: more slots per class."""
    classes: dict[str, type[PlainObject]] = {}
    for eclass in package.eClassifiers:
        if isinstance(eclass, EClass):
            supers = list(eclass.eSuperTypes)
            base = classes[supers[0].name] if supers else PlainObject
            classes[eclass.name] = plain_class(eclass, base, extra.get(eclass.name, ()), module)
    return classes


def plain_to_ecore(obj: Any, made_from: Callable[[Any, Any], None] | None = None) -> Any:
    """The PyEcore object of a plain object and everything it contains (a PyEcore object is
    returned as it is), built once per plain object and kept; *made_from(plain, made)* is
    called for every object made. The objects are made by the runtime's `ObjectBuilder`,
    as the compiler and the readers make theirs; opposite ends are set as PyEcore's
    constructor would set them."""
    if not isinstance(obj, PlainObject):
        return obj
    builder = ObjectBuilder()
    made = _built(obj, builder, made_from)
    builder.finish()
    return made


def _built(obj: Any, builder: ObjectBuilder, made_from: Callable[[Any, Any], None] | None) -> Any:
    if not isinstance(obj, PlainObject):
        return obj
    made = getattr(obj, "_ecore", None)
    if made is not None:
        return made
    eclass = obj.eClass
    made = builder.new(eclass)
    obj._ecore = made
    for name in obj._set:
        feature = builder.feature(eclass.findEStructuralFeature(name))
        value = getattr(obj, name)
        if feature.many:
            builder.extend(made, feature, [_built(v, builder, made_from) for v in value], pair=True)
        else:  # None too: set, as PyEcore's constructor sets every keyword it is given
            builder.set(made, feature, _built(value, builder, made_from), pair=True)
    if made_from is not None:
        made_from(obj, made)
    return made
