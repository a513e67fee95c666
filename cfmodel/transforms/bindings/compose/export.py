"""Effective bindings as a model: what an injector made of the bindings for one request.

Input: an ``Injector``. Output: an ``EffectiveBindings`` object of the bindings metamodel
(``cfmodel.metamodel.bindings``): the layers, the request's category values, the included
classes, and one ``EffectiveBinding`` per key with its value as a literal expression (a type
or instance reference as a ``TypeLiteral``), its origin, layer, category and location. Write it
with ``cfmodel.serializers.write`` (XMI or JSON); EMF loads it with the bindings ``.ecore``.

Guarantees: deterministic (bindings sorted by key); custom producers are not run (``lazy``
is set and there is no value).
"""

from __future__ import annotations

from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel.bindings import ModelObject
from cfmodel.transforms.bindings.compose.injector import EffectiveBinding, Injector
from cfmodel.transforms.bindings.compose.values import ParameterSource, TypeSpec, TypeValue, Value


def effective_model(injector: Injector) -> ModelObject:
    """The ``EffectiveBindings`` of an injector."""
    root = bm.EffectiveBindings()
    root.layers.extend(injector.layer_names)
    for name, rank, value in injector.category_values():
        category = bm.CategoryValue(name=name, rank=rank)
        if value is not None:
            category.value = value
        root.categories.append(category)
    root.classes.extend(injector.classes())
    root.bindings.extend(_binding(b) for b in injector.effective())
    return root


def _binding(binding: EffectiveBinding) -> ModelObject:
    obj = bm.EffectiveBinding(
        keyType=binding.key.namespace,
        name=binding.key.name,
        kind=binding.kind,
        origin=binding.origin,
        layer=binding.layer,
        category=binding.category,
        lazy=binding.lazy,
    )
    if binding.span is not None:
        obj.location = binding.span.start()
    if binding.from_key is not None:
        obj.fromKey = str(binding.from_key)
    if not binding.lazy and binding.value is not None:
        obj.value = value_expression(binding.value)
    return obj


def value_expression(value: Value) -> ModelObject:
    """A bound value as an expression: data as literals, references as ``TypeLiteral``."""
    if isinstance(value, ParameterSource):
        return value_expression(value.source)
    if isinstance(value, TypeValue):
        return bm.TypeLiteral(type=type_ref(value.type))
    if isinstance(value, list):
        return bm.ArrayLiteral(items=[value_expression(v) for v in value])
    if isinstance(value, dict):
        entries = [bm.HashEntry(key=bm.literal_of(k), value=value_expression(v)) for k, v in value.items()]
        return bm.HashLiteral(entries=entries)
    return bm.literal_of(value)


def type_ref(spec: TypeSpec) -> ModelObject:
    """A ``TypeSpec`` as a ``TypeRef`` model object."""
    ref = bm.TypeRef(name=spec.name)
    ref.args.extend(type_ref(a) for a in spec.args)
    if len(spec.titles) == 1:
        ref.title = spec.titles[0]
    elif spec.titles:
        ref.titles.extend(spec.titles)
    return ref
