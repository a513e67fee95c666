"""The bindings metamodel (ARM-8): an Ecore package built programmatically with PyEcore.

Input: nothing (the classes are built once, when the module is imported, as constants).
Output: ``PACKAGE`` (an ``EPackage`` with ``nsURI``/``nsPrefix``, exportable as ``.ecore``)
and one ``EClass`` constant per concept, plus ``SpanTable``, the side table that keeps the
source span of every parsed element outside the model's features (so exports stay clean).

Classes (every feature listed):

* ``BindingsFile``  ``elements``: ``NamedBindings`` and ``Site`` blocks of one file.
* ``NamedBindings`` ``name`` (``a::b``), ``elements``: the bind operations of ``bindings name { }``.
* ``Element`` (abstract) something inside a bindings block.
* ``CategorizedBindings`` ``predicate`` (``when ...``) and nested ``elements``.
* ``Predicate`` (abstract): ``CategoryTest`` (``category``, ``value``), ``AllOf`` and ``AnyOf``
  (``operands``) for ``and`` / ``or``.
* ``Key`` ``type`` (optional ``TypeRef``; none means ``Data``) and ``name`` ("" = anonymous).
* ``AbstractBinding`` (abstract) ``abstract``, ``override``, ``final`` modifiers, ``options``.
* ``Binding`` ``key``, ``producer``, ``optional`` (``to optional``), ``multibindId`` (``in 'id'``:
  the binding is a fragment of that multibind).
* ``Multibinding`` ``key``, ``multibindId`` (``AS 'id'``; defaults to the key's name).
* ``Rebinding`` ``kind`` (``RebindKind``: rebind / alias / renamed), ``source`` and ``target`` keys.
* ``ClassesBinding`` ``exclude`` (include or exclude), ``classes`` (names).
* ``ParametersBinding`` ``target`` (``TypeRef``: a class, type or instance), ``producer``, ``optional``.
* ``ParameterMapBinding`` ``source``/``target`` types and ``map`` (a ``HashLiteral``).
* ``VariablesBinding`` ``type`` (optional), ``producer`` (a hash, or names when abstract).
* ``TypeRef`` ``name`` (``Integer``, ``Class``, ``Web``), ``args`` (type arguments), ``title``
  (instance title: ``Web[one]``, ``class ntp``), ``titles`` (a key of several values, in
  order: ``Host['web', 'example.com']``; ``title`` is unset then).
* ``Producer`` (abstract): ``ConstantProducer`` (``value``), ``TypeProducer`` (``type``: the
  reference itself is the value), ``CustomProducer`` (``producer 'name'`` or ``producer Type[X]``:
  ``name`` or ``type``).
* ``Option`` ``name``, ``value`` (``{ combinator => ..., producer_args => ... }``).
* ``Site`` ``categories`` (``CategoriesDeclaration``), ``layers`` (``Layer``).
* ``CategoriesDeclaration`` ``entries``: ``CategoryDeclaration`` (``name``, ``value`` expression).
* ``Layer`` ``name``, ``include`` and ``exclude`` (provider URIs), ``bindings`` (the resolved
  ``NamedBindings``, a non-containment reference filled by providers).
* ``EffectiveBindings`` (what an injector made of the bindings for one request): ``layers``
  (names, highest first), ``categories`` (``CategoryValue``: ``name``, ``rank``, ``value``,
  unset when the category does not apply), ``classes`` (included), ``bindings``
  (``EffectiveBinding``: ``keyType`` and ``name`` of the key, ``kind``, ``origin`` (the
  bindings' name), ``layer``, ``category``, ``location`` (``file:line:col``), ``fromKey``
  (of a rebind/alias), ``lazy`` (a custom producer: no ``value``), ``value``).
* ``Expression`` (abstract): ``StringLiteral`` (``value``, ``bare``), ``InterpolatedString``
  (``parts``), ``IntegerLiteral``, ``FloatLiteral``, ``BooleanLiteral``, ``UndefLiteral``,
  ``ArrayLiteral`` (``items``), ``HashLiteral`` (``entries``: ``HashEntry`` ``key``/``value``),
  ``VariableRef`` (``name``), ``Call`` (``function``, ``args``), ``BinaryOp`` (``op``, ``left``,
  ``right``), ``NotOp`` (``operand``), ``Conditional`` (``unless``, ``condition``, ``then``,
  ``otherwise``), ``Lambda`` (``parameters``, ``body``), ``TypeLiteral`` (``type``: a type or
  instance reference as a value, in effective bindings).

Plain objects (``plain``): the parser builds its models from slotted Python classes of the same
names and features (``plain.Binding``, ``plain.Key``, ...; ``eClass`` is the EClass, ``eGet``,
``eIsSet``, ``eContainer``, ``eContents`` and ``eAllContents`` answer as PyEcore's do), because
PyEcore objects are slow to create and to read (a feature read goes through a descriptor and a
value holder). Everything that reads models (``kind_of``, ``class_name``, ``is_kind``, the
compose package) takes both. ``to_ecore(obj)`` builds the PyEcore objects of a plain tree once
and keeps them (exports and EMF APIs use these); the features set on the PyEcore objects are
exactly the ones given to the plain object's constructor, so exports are the same as if the
parser had built PyEcore objects. Plain objects are read-only once built (the compose package
keeps a flattened form of a parsed ``NamedBindings`` in ``_flat``).

Guarantees: the package is self-contained (no references to other packages except Ecore's
data types); nothing is registered in PyEcore's global registry.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pyecore.ecore import (
    EBoolean,
    EDouble,
    EEnum,
    EInt,
    ELong,
    EPackage,
    EString,
)

from cfmodel.errors import Span
from cfmodel.metamodel.builder import add_attribute, add_class, add_reference
from cfmodel.metamodel.runtime.objects import ObjectBuilder
from cfmodel.metamodel.runtime.plain import PlainObject, plain_classes, plain_to_ecore

NS_URI = "http://cfmodel.org/bindings/1.0"
NS_PREFIX = "bindings"

#: A PyEcore object of this package. PyEcore is untyped, so this is the typed boundary.
ModelObject = Any

PACKAGE = EPackage("bindings", nsURI=NS_URI, nsPrefix=NS_PREFIX)

RebindKind = EEnum("RebindKind", literals=["rebind", "alias", "renamed"])


def _eclass(name: str, supers: tuple[Any, ...] = (), abstract: bool = False) -> Any:
    return add_class(PACKAGE, name, supers, abstract)


_attr = add_attribute
_ref = add_reference


PACKAGE.eClassifiers.append(RebindKind)

# --- expressions -----------------------------------------------------------------------
Expression = _eclass("Expression", abstract=True)
StringLiteral = _eclass("StringLiteral", (Expression,))
_attr(StringLiteral, "value", EString)
_attr(StringLiteral, "bare", EBoolean, default=False)
InterpolatedString = _eclass("InterpolatedString", (Expression,))
_ref(InterpolatedString, "parts", Expression, many=True)
IntegerLiteral = _eclass("IntegerLiteral", (Expression,))
_attr(IntegerLiteral, "value", ELong)
FloatLiteral = _eclass("FloatLiteral", (Expression,))
_attr(FloatLiteral, "value", EDouble)
BooleanLiteral = _eclass("BooleanLiteral", (Expression,))
_attr(BooleanLiteral, "value", EBoolean)
UndefLiteral = _eclass("UndefLiteral", (Expression,))
ArrayLiteral = _eclass("ArrayLiteral", (Expression,))
_ref(ArrayLiteral, "items", Expression, many=True)
HashEntry = _eclass("HashEntry")
_ref(HashEntry, "key", Expression)
_ref(HashEntry, "value", Expression)
HashLiteral = _eclass("HashLiteral", (Expression,))
_ref(HashLiteral, "entries", HashEntry, many=True)
VariableRef = _eclass("VariableRef", (Expression,))
_attr(VariableRef, "name", EString)
Call = _eclass("Call", (Expression,))
_attr(Call, "function", EString)
_ref(Call, "args", Expression, many=True)
BinaryOp = _eclass("BinaryOp", (Expression,))
_attr(BinaryOp, "op", EString)
_ref(BinaryOp, "left", Expression)
_ref(BinaryOp, "right", Expression)
NotOp = _eclass("NotOp", (Expression,))
_ref(NotOp, "operand", Expression)
Conditional = _eclass("Conditional", (Expression,))
_attr(Conditional, "unless", EBoolean, default=False)
_ref(Conditional, "condition", Expression)
_ref(Conditional, "then", Expression)
_ref(Conditional, "otherwise", Expression)
Lambda = _eclass("Lambda", (Expression,))
_attr(Lambda, "parameters", EString, many=True)
_ref(Lambda, "body", Expression)

# --- types, keys, producers, options ------------------------------------------------------
TypeRef = _eclass("TypeRef")
_attr(TypeRef, "name", EString)
_ref(TypeRef, "args", TypeRef, many=True)
_attr(TypeRef, "title", EString)
_attr(TypeRef, "titles", EString, many=True)
Key = _eclass("Key")
_ref(Key, "type", TypeRef)
_attr(Key, "name", EString, default="")
Producer = _eclass("Producer", abstract=True)
ConstantProducer = _eclass("ConstantProducer", (Producer,))
_ref(ConstantProducer, "value", Expression)
TypeProducer = _eclass("TypeProducer", (Producer,))
_ref(TypeProducer, "type", TypeRef)
CustomProducer = _eclass("CustomProducer", (Producer,))
_attr(CustomProducer, "name", EString)
_ref(CustomProducer, "type", TypeRef)
Option = _eclass("Option")
_attr(Option, "name", EString)
_ref(Option, "value", Expression)

# --- bindings ---------------------------------------------------------------------------
Element = _eclass("Element", abstract=True)
Predicate = _eclass("Predicate", abstract=True)
CategoryTest = _eclass("CategoryTest", (Predicate,))
_attr(CategoryTest, "category", EString)
_ref(CategoryTest, "value", Expression)
AllOf = _eclass("AllOf", (Predicate,))
_ref(AllOf, "operands", Predicate, many=True)
AnyOf = _eclass("AnyOf", (Predicate,))
_ref(AnyOf, "operands", Predicate, many=True)
CategorizedBindings = _eclass("CategorizedBindings", (Element,))
_ref(CategorizedBindings, "predicate", Predicate)
_ref(CategorizedBindings, "elements", Element, many=True)

AbstractBinding = _eclass("AbstractBinding", (Element,), abstract=True)
_attr(AbstractBinding, "abstract", EBoolean, default=False)
_attr(AbstractBinding, "override", EBoolean, default=False)
_attr(AbstractBinding, "final", EBoolean, default=False)
_ref(AbstractBinding, "options", Option, many=True)
Binding = _eclass("Binding", (AbstractBinding,))
_ref(Binding, "key", Key)
_ref(Binding, "producer", Producer)
_attr(Binding, "optional", EBoolean, default=False)
_attr(Binding, "multibindId", EString)
Multibinding = _eclass("Multibinding", (AbstractBinding,))
_ref(Multibinding, "key", Key)
_attr(Multibinding, "multibindId", EString)
Rebinding = _eclass("Rebinding", (AbstractBinding,))
_attr(Rebinding, "kind", RebindKind)
_ref(Rebinding, "source", Key)
_ref(Rebinding, "target", Key)
ClassesBinding = _eclass("ClassesBinding", (AbstractBinding,))
_attr(ClassesBinding, "exclude", EBoolean, default=False)
_attr(ClassesBinding, "classes", EString, many=True)
ParametersBinding = _eclass("ParametersBinding", (AbstractBinding,))
_ref(ParametersBinding, "target", TypeRef)
_ref(ParametersBinding, "producer", Producer)
_attr(ParametersBinding, "optional", EBoolean, default=False)
ParameterMapBinding = _eclass("ParameterMapBinding", (AbstractBinding,))
_ref(ParameterMapBinding, "source", TypeRef)
_ref(ParameterMapBinding, "target", TypeRef)
_ref(ParameterMapBinding, "map", HashLiteral)
VariablesBinding = _eclass("VariablesBinding", (AbstractBinding,))
_ref(VariablesBinding, "type", TypeRef)
_ref(VariablesBinding, "producer", Producer)

NamedBindings = _eclass("NamedBindings")
_attr(NamedBindings, "name", EString)
_ref(NamedBindings, "elements", Element, many=True)

# --- site: categories and layers -------------------------------------------------------------
CategoryDeclaration = _eclass("CategoryDeclaration")
_attr(CategoryDeclaration, "name", EString)
_ref(CategoryDeclaration, "value", Expression)
CategoriesDeclaration = _eclass("CategoriesDeclaration")
_ref(CategoriesDeclaration, "entries", CategoryDeclaration, many=True)
Layer = _eclass("Layer")
_attr(Layer, "name", EString)
_attr(Layer, "include", EString, many=True)
_attr(Layer, "exclude", EString, many=True)
_ref(Layer, "bindings", NamedBindings, many=True, containment=False)
Site = _eclass("Site")
_ref(Site, "categories", CategoriesDeclaration, many=True)
_ref(Site, "layers", Layer, many=True)
BindingsFile = _eclass("BindingsFile")
_ref(BindingsFile, "elements", NamedBindings, many=True)
_ref(BindingsFile, "sites", Site, many=True)

# --- effective bindings: what an injector made of the bindings for one request -----------------
TypeLiteral = _eclass("TypeLiteral", (Expression,))
_ref(TypeLiteral, "type", TypeRef)
CategoryValue = _eclass("CategoryValue")
_attr(CategoryValue, "name", EString)
_attr(CategoryValue, "rank", EInt)
_attr(CategoryValue, "value", EString)
EffectiveBinding = _eclass("EffectiveBinding")
_attr(EffectiveBinding, "keyType", EString)
_attr(EffectiveBinding, "name", EString)
_attr(EffectiveBinding, "kind", EString)
_attr(EffectiveBinding, "origin", EString)
_attr(EffectiveBinding, "layer", EString)
_attr(EffectiveBinding, "category", EString)
_attr(EffectiveBinding, "location", EString)
_attr(EffectiveBinding, "fromKey", EString)
_attr(EffectiveBinding, "lazy", EBoolean, default=False)
_ref(EffectiveBinding, "value", Expression)
EffectiveBindings = _eclass("EffectiveBindings")
_attr(EffectiveBindings, "layers", EString, many=True)
_ref(EffectiveBindings, "categories", CategoryValue, many=True)
_attr(EffectiveBindings, "classes", EString, many=True)
_ref(EffectiveBindings, "bindings", EffectiveBinding, many=True)


class SpanTable:
    """Source spans of model elements, kept beside the model (keyed by object identity).

    Transforms that create an element from another call ``copy(source, target)`` so every
    element keeps the position of the text it came from.
    """

    __slots__ = ("_spans",)

    def __init__(self) -> None:
        self._spans: dict[int, tuple[ModelObject, Span]] = {}

    def set(self, obj: ModelObject, span: Span) -> None:
        self._spans[id(obj)] = (obj, span)

    def get(self, obj: ModelObject) -> Span | None:
        entry = self._spans.get(id(obj))
        return entry[1] if entry is not None else None

    def copy(self, source: ModelObject, target: ModelObject) -> None:
        span = self.get(source)
        if span is not None:
            self.set(target, span)

    def update(self, other: SpanTable) -> None:
        self._spans.update(other._spans)

    def __len__(self) -> int:
        return len(self._spans)


def class_name(obj: ModelObject) -> str:
    """The ``EClass`` name of a model object (for dispatch: ``visit_<EClassName>``)."""
    return str(obj.eClass.name)


def kind_of(obj: ModelObject) -> str:
    """The EClass name of a model object, fast: PyEcore names the Python class after the EClass,
    and so do the plain classes."""
    return type(obj).__name__


def is_kind(obj: ModelObject, eclass: ModelObject) -> bool:
    """Whether ``obj`` (PyEcore or plain) is an instance of ``eclass`` or of one of its subclasses."""
    return isinstance(obj, (eclass.python_class, PLAIN_CLASSES[eclass.name]))


# --- plain objects: what the parser builds ---------------------------------------------------------


def _plain_classes() -> dict[str, type[PlainObject]]:
    return plain_classes(PACKAGE, __name__, {"NamedBindings": ("_flat",)})


#: The plain class of every EClass, by name.
PLAIN_CLASSES = _plain_classes()
#: The plain classes as a namespace: ``plain.Binding(key=..., producer=...)``.
plain: Any = SimpleNamespace(**PLAIN_CLASSES)


def to_ecore(obj: ModelObject, spans: SpanTable | None = None) -> ModelObject:
    """The PyEcore object of a plain object and everything it contains (a PyEcore object is
    returned as it is). Built once per plain object and kept, so asking again gives the same
    objects; the spans of the plain objects are copied to ``spans`` for the new ones."""
    return plain_to_ecore(obj, spans.copy if spans is not None else None)


def literal_of(value: Any, builder: ObjectBuilder | None = None) -> ModelObject:
    """A data value (str, int, float, bool, None, list, dict) as a literal expression.

    Used by providers that build bindings from data (``enc:``, ``hiera:``) and by exports
    of effective values. Strings become ``StringLiteral`` (no interpolation); hash keys
    keep their type. The objects are made by *builder* (its caller finishes it), else by
    one of their own, registered at once (`cfmodel.metamodel.runtime.objects`).

    Raises:
        TypeError: the value is not plain data.
    """
    if builder is None:
        builder = ObjectBuilder()
        made = literal_of(value, builder)
        builder.finish()
        return made
    make = builder.make
    if value is None:
        return make(UndefLiteral)
    if isinstance(value, bool):
        return make(BooleanLiteral, value=value)
    if isinstance(value, int):
        return make(IntegerLiteral, value=value)
    if isinstance(value, float):
        return make(FloatLiteral, value=value)
    if isinstance(value, str):
        return make(StringLiteral, value=value)
    if isinstance(value, list | tuple):
        return make(ArrayLiteral, items=[literal_of(v, builder) for v in value])
    if isinstance(value, dict):
        entries = [
            make(HashEntry, key=literal_of(k, builder), value=literal_of(v, builder))
            for k, v in value.items()
        ]
        return make(HashLiteral, entries=entries)
    raise TypeError(f"not plain data: {type(value).__name__}")
