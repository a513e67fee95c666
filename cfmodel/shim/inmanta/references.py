"""``inmanta.references``: Inmanta 20's deploy-time references (`cfmodel.references`).

Module code subclasses `Reference` and registers it with `reference`; cfmodel keeps the
values in the model, checks them where the model and plugins use them, and exports them
as inmanta-core 20 does (a resource's ``references`` and ``mutators``). It never
resolves them: that is the agent's work at deploy time.
"""

from __future__ import annotations

from cfmodel.references import (
    AttributeReference,
    Mutator,
    MutatorModel,
    Reference,
    ReferenceCollector,
    ReferenceCycleException,
    ReferenceModel,
    ReplaceValue,
    is_reference,
    mutator,
    reference,
    unwrap_reference,
)

__all__ = [
    "AttributeReference",
    "Mutator",
    "MutatorModel",
    "Reference",
    "ReferenceCollector",
    "ReferenceCycleException",
    "ReferenceModel",
    "ReplaceValue",
    "is_reference",
    "is_reference_of",
    "maybe_reference",
    "mutator",
    "reference",
    "unwrap_reference",
]


def maybe_reference(value: object) -> bool:
    return is_reference(value)


def is_reference_of(instance: object, type_class: type) -> bool:
    """Whether *instance* is a reference to values of *type_class*."""
    getter = getattr(type(instance), "get_reference_type", None)
    return is_reference(instance) and getter is not None and getter() == type_class
