"""Resources: the entities a model deploys, as module code declares them (inmanta's resource API).

Module code registers resources and dependency managers with the decorators of this module
(re-exported as ``inmanta.resources.resource``, ``inmanta.export.dependency_manager`` and
``inmanta.agent.handler.provider`` by cfmodel's stand-in for inmanta's API)::

    @resource("fs::File", agent="host.name", id_attribute="path")
    class File(PurgeableResource):
        fields = ("path", "owner", "hash")          # merged with the parents' fields
        map = {"hash": lambda exporter, obj: ...}   # or a static method get_hash(exporter, obj)

What holds here: `Resource` subclasses carry their merged ``fields`` (parents first, no
duplicates, in a fixed order); `resource.registered` maps an entity name to its class and
options; a resource's `Id` is ``entity[agent,attribute=value]``. The export itself
(`cfmodel.transforms.cf.export`) reads these registries after a compile.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar, TypeVar

from cfmodel.plugins import UnknownException

__all__ = [
    "DiscoveryResource",
    "Id",
    "IgnoreResourceException",
    "ManagedResource",
    "PurgeableResource",
    "Resource",
    "ResourceException",
    "ResourceNotFoundExcpetion",
    "dependency_manager",
    "provider",
    "resource",
]


F = TypeVar("F", bound=Callable[..., Any])


class ResourceException(Exception):  # noqa: N818 - inmanta's name
    """A resource definition or its use in the model is wrong."""


class IgnoreResourceException(Exception):  # noqa: N818 - inmanta's name
    """Raised by a field mapper: this instance is not exported."""


class ResourceNotFoundExcpetion(Exception):  # noqa: N818 - inmanta's name (and spelling)
    pass


class ResourceMeta(type):
    """Merges ``fields`` of the class and all its bases (bases first, first occurrence kept)."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> ResourceMeta:
        fields: list[str] = []
        for base in bases:
            fields.extend(_all_fields(base))
        own = namespace.get("fields", ())
        if not isinstance(own, tuple | list):
            raise ResourceException(f"fields of resource {name} must be a tuple or a list")
        fields.extend(own)
        namespace["fields"] = tuple(dict.fromkeys(fields))
        return super().__new__(mcs, name, bases, namespace)


def _all_fields(cls: type) -> list[str]:
    found: list[str] = []
    own = cls.__dict__.get("fields")
    if isinstance(own, tuple | list):
        found.extend(own)
    for base in cls.__bases__:
        found.extend(_all_fields(base))
    return found


class Id:
    """A resource's id: ``entity[agent,attribute=value]`` (with ``,v=N`` as a version id)."""

    __slots__ = ("agent_name", "attribute", "attribute_value", "entity_type", "version")

    PATTERN = re.compile(
        r"^(?P<type>[\w-]+(?:::[\w-]+)*::[\w-]+)\[(?P<agent>[^,]+),(?P<attr>[^=]+)=(?P<value>[^\]]+)\]"
        r"(?:,v=(?P<version>\d+))?$"
    )

    def __init__(
        self, entity_type: str, agent_name: str, attribute: str, attribute_value: str, version: int = 0
    ):
        self.entity_type = entity_type
        self.agent_name = agent_name
        self.attribute = attribute
        self.attribute_value = attribute_value
        self.version = version

    @classmethod
    def parse_id(cls, text: str) -> Id:
        match = cls.PATTERN.match(text)
        if match is None:
            raise ResourceException(f"invalid resource id {text!r}")
        version = int(match.group("version") or 0)
        return cls(
            match.group("type"), match.group("agent"), match.group("attr"), match.group("value"), version
        )

    def get_entity_type(self) -> str:
        return self.entity_type

    def get_agent_name(self) -> str:
        return self.agent_name

    def get_attribute(self) -> str:
        return self.attribute

    def get_attribute_value(self) -> str:
        return self.attribute_value

    def resource_str(self) -> str:
        return f"{self.entity_type}[{self.agent_name},{self.attribute}={self.attribute_value}]"

    def resource_version_str(self) -> str:
        return f"{self.resource_str()},v={self.version}"

    def __str__(self) -> str:
        return self.resource_version_str()

    def __repr__(self) -> str:
        return self.resource_version_str()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Id) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


class Resource(metaclass=ResourceMeta):
    """A resource as exported: its `id`, one attribute per field, its `requires` (ids)."""

    fields: Sequence[str] = ("send_event", "receive_events", "references", "mutators", "report_only")
    map: ClassVar[dict[str, Callable[[Any, Any], Any]]] = {}

    def __init__(self, _id: Id) -> None:
        self.id = _id
        self.requires: set[Any] = set()
        self.resource_requires: set[Resource] = set()
        self.model: Any = None
        self.unknowns: set[str] = set()

    @staticmethod
    def get_send_event(_exporter: Any, obj: Any) -> Any:
        return _read_or(obj, "send_event", False)

    @staticmethod
    def get_receive_events(_exporter: Any, obj: Any) -> Any:
        return _read_or(obj, "receive_events", True)

    @staticmethod
    def get_report_only(_exporter: Any, obj: Any) -> Any:
        return _read_or(obj, "report_only", False)

    @staticmethod
    def get_references(_exporter: Any, obj: Any) -> list[Any]:
        return []

    @staticmethod
    def get_mutators(_exporter: Any, obj: Any) -> list[Any]:
        return []

    @classmethod
    def map_field(cls, exporter: Any, entity_name: str, field_name: str, model_object: Any) -> Any:
        """A field's value: ``get_<field>(exporter, obj)``, else ``map[field]``, else the attribute."""
        del entity_name
        try:
            getter = getattr(cls, "get_" + field_name, None)
            if getter is not None:
                return getter(exporter, model_object)
            if field_name in cls.map:
                return cls.map[field_name](exporter, model_object)
            return getattr(model_object, field_name)
        except UnknownException as error:
            return error.unknown

    def populate(self, values: dict[str, Any]) -> None:
        for name, value in values.items():
            setattr(self, name, value)

    def serialize(self) -> dict[str, Any]:
        """The resource as ``inmanta export -j`` writes it: fields, ``id`` and ``requires`` (version ids)."""
        out = {name: getattr(self, name) for name in type(self).fields}
        out["requires"] = sorted(str(r) for r in self.requires)
        out["id"] = str(self.id)
        return out

    def __repr__(self) -> str:
        return str(self.id)


def _read_or(obj: Any, name: str, default: Any) -> Any:
    try:
        return getattr(obj, name)
    except Exception:
        return default


class PurgeableResource(Resource):
    fields = ("purged", "purge_on_delete")


class DiscoveryResource(Resource):
    fields = ()


class ManagedResource(Resource):
    fields = ("managed",)

    @staticmethod
    def get_managed(_exporter: Any, obj: Any) -> Any:
        if not obj.managed:
            raise IgnoreResourceException()
        return obj.managed


R = TypeVar("R", bound=type["Resource"])


class resource:  # noqa: N801 - inmanta's name
    """``@resource(entity, agent=path, id_attribute=name)``: export instances of *entity* as this class."""

    registered: ClassVar[dict[str, tuple[type[Resource], dict[str, str]]]] = {}

    def __init__(self, name: str, id_attribute: str, agent: str) -> None:
        if not isinstance(agent, str):
            raise ResourceException(f"the agent of resource {name} must be a string, not {agent!r}")
        self.name = name
        self.options = {"agent": agent, "name": id_attribute}

    def __call__(self, cls: R) -> R:
        resource.registered[self.name] = (cls, self.options)
        return cls

    @classmethod
    def get_class(cls, name: str) -> tuple[type[Resource] | None, dict[str, str] | None]:
        found = cls.registered.get(name)
        return found if found is not None else (None, None)

    @classmethod
    def get_entity_resources(cls) -> list[str]:
        return list(cls.registered)

    @classmethod
    def get_resources(cls) -> Iterator[tuple[str, type[Resource]]]:
        return ((name, entry[0]) for name, entry in cls.registered.items())

    @classmethod
    def reset(cls) -> None:
        cls.registered = {}


#: Functions ``f(model, resources)`` run after the resources are made; they may add requires.
DEPENDENCY_MANAGERS: dict[str, Callable[[Any, Any], Any]] = {}


def dependency_manager(function: F) -> F:
    """Register a dependency manager (``inmanta.export.dependency_manager``)."""
    DEPENDENCY_MANAGERS[f"{function.__module__}.{function.__qualname__}"] = function
    return function


#: Handlers per resource type: recorded (they import), never run by cfmodel.
PROVIDERS: dict[str, dict[str, type]] = {}


def provider(resource_type: str, name: str) -> Callable[[type], type]:
    """Register a handler (``inmanta.agent.handler.provider``): recorded, never run."""

    def register(cls: type) -> type:
        PROVIDERS.setdefault(resource_type, {})[name] = cls
        return cls

    return register
