"""``inmanta.resources``: `resource`, `Resource` and its kinds, `Id`, `to_id` (from `cfmodel.resources`)."""

from __future__ import annotations

from typing import Any

from cfmodel.resources import (
    DiscoveryResource,
    Id,
    IgnoreResourceException,
    ManagedResource,
    PurgeableResource,
    Resource,
    ResourceException,
    ResourceNotFoundExcpetion,
    resource,
)
from cfmodel.transforms.cf.export import resource_id_of

__all__ = [
    "DiscoveryResource",
    "Id",
    "IgnoreResourceException",
    "ManagedResource",
    "PurgeableResource",
    "Resource",
    "ResourceException",
    "ResourceNotFoundExcpetion",
    "resource",
    "to_id",
]


def to_id(entity: Any) -> str | None:
    """The resource id (without a version while compiling) of an instance of a resource entity, else None."""
    return resource_id_of(entity)
