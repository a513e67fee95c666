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

from typing import Any

from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel.bindings import ModelObject
from cfmodel.metamodel.runtime.objects import ObjectBuilder
from cfmodel.transforms.bindings.compose.injector import EffectiveBinding, Injector
from cfmodel.transforms.bindings.compose.values import ParameterSource, TypeSpec, TypeValue, Value


def effective_model(injector: Injector) -> ModelObject:
    """The ``EffectiveBindings`` of an injector (made by the runtime's `ObjectBuilder`)."""
    b = ObjectBuilder()
    categories = []
    for name, rank, value in injector.category_values():
        categories.append(
            b.make(bm.CategoryValue, name=name, rank=rank, **({"value": value} if value is not None else {}))
        )
    root = b.make(
        bm.EffectiveBindings,
        layers=injector.layer_names,
        categories=categories,
        classes=injector.classes(),
        bindings=[_binding(binding, b) for binding in injector.effective()],
    )
    b.finish()
    return root


def _binding(binding: EffectiveBinding, b: ObjectBuilder) -> ModelObject:
    values: dict[str, Any] = {
        "keyType": binding.key.namespace,
        "name": binding.key.name,
        "kind": binding.kind,
        "origin": binding.origin,
        "layer": binding.layer,
        "category": binding.category,
        "lazy": binding.lazy,
    }
    if binding.span is not None:
        values["location"] = binding.span.start()
    if binding.from_key is not None:
        values["fromKey"] = str(binding.from_key)
    if not binding.lazy and binding.value is not None:
        values["value"] = value_expression(binding.value, b)
    return b.make(bm.EffectiveBinding, **values)


def value_expression(value: Value, b: ObjectBuilder) -> ModelObject:
    """A bound value as an expression: data as literals, references as ``TypeLiteral``."""
    if isinstance(value, ParameterSource):
        return value_expression(value.source, b)
    if isinstance(value, TypeValue):
        return b.make(bm.TypeLiteral, type=type_ref(value.type, b))
    if isinstance(value, list):
        return b.make(bm.ArrayLiteral, items=[value_expression(v, b) for v in value])
    if isinstance(value, dict):
        entries = [
            b.make(bm.HashEntry, key=bm.literal_of(k, b), value=value_expression(v, b))
            for k, v in value.items()
        ]
        return b.make(bm.HashLiteral, entries=entries)
    return bm.literal_of(value, b)


def type_ref(spec: TypeSpec, b: ObjectBuilder) -> ModelObject:
    """A ``TypeSpec`` as a ``TypeRef`` model object."""
    values: dict[str, Any] = {"name": spec.name, "args": [type_ref(a, b) for a in spec.args]}
    if len(spec.titles) == 1:
        values["title"] = spec.titles[0]
    elif spec.titles:
        values["titles"] = list(spec.titles)
    return b.make(bm.TypeRef, **values)
