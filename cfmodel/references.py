"""Inmanta 20's references: values that the agent resolves when it deploys, not the compiler.

A plugin returns a reference (``std::create_environment_reference("HOME")`` gives a
`Reference` subclass registered with ``@reference("std::Environment")``); the model holds
it as an opaque value of the type it refers to (`reference_type`: ``Reference[str]`` is a
string). Attributes take it where their type matches; plugins take it only where their
annotation says ``... | Reference[...]``; reading it through an instance in a plugin or a
template is an error unless the plugin asks for it (`allow_reference_values`). Exporting
a resource replaces each reference in its fields by null and records, as inmanta-core
20's exporter does:

* in ``references``, every reference the resource needs (nested ones too), serialized as
  ``{"type", "args", "id"}``, sorted by id;
* in ``mutators``, one ``core::Replace`` per place a reference sits (``{"type", "args"}``:
  the resource, the reference's id, the place as a path: ``value``, ``items[0]``,
  ``config.'key'``), sorted by id.

An id is inmanta's: a UUID version 3 (namespace OID) of the MD5 digest of the JSON text
of ``{"type", "args"}`` with sorted keys, so the same reference has the same id in both
exports. Arguments are serialized by kind (``literal``, ``json``, ``mjson`` for JSON
holding references, ``reference``, ``resource``, ``python_type``).

The module is served to module code as ``inmanta.references`` by cfmodel's stand-in;
`is_reference` also recognises the references of inmanta-core itself, when module code
imports the real ``inmanta``.
"""

from __future__ import annotations

import hashlib
import json
import typing
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, Generic, TypeVar

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
    "mutator",
    "reference",
    "reference_type",
    "unwrap_reference",
]

T = TypeVar("T")
C = TypeVar("C", bound=type)
JsonArgs = list[dict[str, Any]]
PRIMITIVES = (str, int, float, bool)


def reference_id(type_name: str, args: JsonArgs) -> str:
    """inmanta's id of a reference or mutator: UUID3(OID, MD5 of the sorted JSON of type and args)."""
    text = json.dumps({"type": type_name, "args": args}, sort_keys=True)
    digest = hashlib.md5(text.encode("utf-8"), usedforsecurity=False).digest()
    name_hash = hashlib.md5(uuid.NAMESPACE_OID.bytes + digest, usedforsecurity=False).digest()
    return str(uuid.UUID(bytes=name_hash[:16], version=3))


class ReferenceCycleException(Exception):  # noqa: N818 - inmanta's name
    """A reference that needs itself (directly or through its arguments)."""


class ReferenceModel:
    """A serialized reference: its registered type, its arguments and its id."""

    __slots__ = ("args", "id", "type")

    def __init__(self, type_name: str, args: JsonArgs, ref_id: str) -> None:
        self.type = type_name
        self.args = args
        self.id = ref_id

    def model_dump(self) -> dict[str, Any]:
        return {"type": self.type, "args": self.args, "id": self.id}

    def __repr__(self) -> str:
        return f"ReferenceModel({self.type}, id={self.id})"


class MutatorModel:
    """A serialized mutator (no id in the document; `get_id` is its sort key)."""

    __slots__ = ("args", "type")

    def __init__(self, type_name: str, args: JsonArgs) -> None:
        self.type = type_name
        self.args = args

    def get_id(self) -> str:
        return reference_id(self.type, self.args)

    def model_dump(self) -> dict[str, Any]:
        return {"type": self.type, "args": self.args}


_CYCLE = object()


class ReferenceLike:
    """What references and mutators share: arguments (the public attributes) and their serialization."""

    type: ClassVar[str]

    def __init__(self) -> None:
        self._model: Any = None
        self._model_type: Any = None

    @property
    def arguments(self) -> Mapping[str, object]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def resolve_other(self, value: Any, logger: Any) -> Any:
        """The value, or what the reference *value* resolves to (deploy time only)."""
        return value.get(logger) if isinstance(value, Reference) else value

    def serialize_arguments(self) -> JsonArgs:
        return [_argument(name, value, self) for name, value in self.arguments.items()]

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return False
        assert isinstance(other, ReferenceLike)
        return self.arguments == other.arguments

    __hash__ = None  # type: ignore[assignment]  # equal by arguments, mutable: unhashable as in inmanta


class Reference(ReferenceLike, Generic[T]):
    """A value the agent resolves at deploy time (subclass it, register it with `reference`)."""

    def __init__(self) -> None:
        super().__init__()
        self._reference_value: Any = None
        self._reference_value_cached = False

    @classmethod
    def get_reference_type(cls) -> Any:
        """The ``T`` of ``Reference[T]`` in the class's bases (None when it is not a concrete type)."""
        for klass in cls.__mro__:
            for base in getattr(klass, "__orig_bases__", ()):
                origin = typing.get_origin(base)
                if isinstance(origin, type) and _is_reference_class(origin):
                    args = typing.get_args(base)
                    if args and not isinstance(args[0], TypeVar):
                        return args[0]
        return None

    def resolve(self, logger: Any) -> T:
        raise NotImplementedError(f"{type(self).__name__} does not resolve")

    def get(self, logger: Any) -> T:
        if not self._reference_value_cached:
            self._reference_value = self.resolve(logger)
            self._reference_value_cached = True
        return typing.cast(T, self._reference_value)

    def serialize(self) -> ReferenceModel:
        if self._model is _CYCLE:
            raise ReferenceCycleException(f"reference cycle detected at {self!r}")
        if self._model is None:
            self._model = _CYCLE
            try:
                args = self.serialize_arguments()
            except BaseException:
                self._model = None
                raise
            self._model = ReferenceModel(self.type, args, reference_id(self.type, args))
        model: ReferenceModel = self._model
        return model

    def __bool__(self) -> bool:
        raise NotImplementedError(f"{self!r} is an inmanta reference, not a boolean.")


class Mutator(ReferenceLike):
    """A change the agent applies to a resource before deploying it."""

    def run(self, logger: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__} runs at deploy time only")

    def serialize(self) -> MutatorModel:
        if self._model is None:
            self._model = MutatorModel(self.type, self.serialize_arguments())
        model: MutatorModel = self._model
        return model


class reference:  # noqa: N801 - inmanta's name
    """``@reference("ns::Name")``: register a reference class under its type name."""

    classes: ClassVar[dict[str, type[Reference[Any]]]] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, cls: C) -> C:
        reference.classes[self.name] = cls
        setattr(cls, "type", self.name)  # noqa: B010 - a class attribute of any class
        return cls

    @classmethod
    def get_class(cls, name: str) -> type[Reference[Any]]:
        found = cls.classes.get(name)
        if found is None:
            raise TypeError(f"There is no reference class registered with name {name}")
        return found

    @classmethod
    def get_references(cls) -> Iterator[tuple[str, type[Reference[Any]]]]:
        return iter(list(cls.classes.items()))


class mutator:  # noqa: N801 - inmanta's name
    """``@mutator("ns::Name")``: register a mutator class under its type name."""

    classes: ClassVar[dict[str, type[Mutator]]] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, cls: C) -> C:
        mutator.classes[self.name] = cls
        setattr(cls, "type", self.name)  # noqa: B010 - a class attribute of any class
        return cls

    @classmethod
    def get_mutators(cls) -> Iterator[tuple[str, type[Mutator]]]:
        return iter(list(cls.classes.items()))


@reference("core::AttributeReference")
class AttributeReference(Reference[Any]):
    """The attribute *attribute_name* of the dataclass another reference (or value) gives."""

    def __init__(self, reference: Any, attribute_name: str) -> None:
        super().__init__()
        self.attribute_name = attribute_name
        self.reference = reference

    def resolve(self, logger: Any) -> Any:
        return getattr(self.resolve_other(self.reference, logger), self.attribute_name)


class ResourceArgument:
    """The resource a mutator changes, by id (``resource_str()``: without a version)."""

    __slots__ = ("resource_id",)

    def __init__(self, resource_id: str) -> None:
        self.resource_id = resource_id


@mutator("core::Replace")
class ReplaceValue(Mutator):
    """Put what *value* resolves to at *destination* (a path) in *resource*."""

    def __init__(self, resource: ResourceArgument, value: Reference[Any], destination: str) -> None:
        super().__init__()
        self.resource = resource
        self.value = value
        self.destination = destination


def _argument(name: str, value: Any, owner: ReferenceLike) -> dict[str, Any]:
    if value is None or isinstance(value, PRIMITIVES):
        return {"type": "literal", "name": name, "value": value}
    if isinstance(value, dict | list):
        collector = ReferenceCollector(None)
        cleaned = collector.collect_references(value, "$")
        if not collector.replacements:
            _require_json(name, value, owner)
            return {"type": "json", "name": name, "value": value}
        places = {
            path: {"type": "reference", "name": path, "id": model.id}
            for path, model in collector.replacements.items()
        }
        return {"type": "mjson", "name": name, "value": cleaned, "references": places}
    if is_reference(value):
        return {"type": "reference", "name": name, "id": value.serialize().id}
    if isinstance(value, ResourceArgument):
        return {"type": "resource", "name": name, "id": value.resource_id}
    if value in (str, float, int, bool):
        return {"type": "python_type", "name": name, "value": value.__name__}
    raise TypeError(f"Unable to serialize argument `{name}` of `{owner!r}` with value {value}")


def _require_json(name: str, value: Any, owner: ReferenceLike) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise ValueError(f"The {name} attribute of {owner!r} is not json serializable: {value}") from None


class ReferenceCollector:
    """The references in a resource's field values, and a mutator for each place one sits.

    `collect_references(value, path)` returns the value with each reference replaced by
    None; *resource_id* None collects the references only (a reference's JSON argument).
    """

    def __init__(self, resource_id: str | None) -> None:
        self.resource_id = resource_id
        self.references: dict[str, ReferenceModel] = {}
        self.replacements: dict[str, ReferenceModel] = {}
        self.mutators: dict[str, MutatorModel] = {}

    def collect_references(self, value: Any, path: str) -> Any:
        if isinstance(value, list | tuple):
            return [self.collect_references(item, f"{path}[{n}]") for n, item in enumerate(value)]
        if isinstance(value, dict):
            return {
                key: self.collect_references(item, f"{path}.'{_quoted(str(key))}'")
                for key, item in value.items()
            }
        if is_reference(value):
            self._add(path, value)
            return None
        return value

    def _add(self, path: str, ref: Any) -> None:
        self._collect(ref, 0)
        model = ref.serialize()
        self.replacements[path] = model
        if self.resource_id is not None:
            replace = ReplaceValue(ResourceArgument(self.resource_id), ref, path).serialize()
            self.mutators[replace.get_id()] = replace

    def _collect(self, value: Any, depth: int) -> None:
        if depth > 1000:
            raise ReferenceCycleException("references nest more than 1000 deep")
        if isinstance(value, list | tuple):
            for item in value:
                self._collect(item, depth + 1)
        elif isinstance(value, dict):
            for item in value.values():
                self._collect(item, depth + 1)
        elif is_reference(value):
            model = value.serialize()
            self.references[model.id] = model
            for argument in value.arguments.values():
                self._collect(argument, depth + 1)

    def sorted_references(self) -> list[dict[str, Any]]:
        return [self.references[key].model_dump() for key in sorted(self.references)]

    def sorted_mutators(self) -> list[dict[str, Any]]:
        return [self.mutators[key].model_dump() for key in sorted(self.mutators)]


def _quoted(key: str) -> str:
    return key.replace("'", "\\'")


_KNOWN_CLASSES: dict[type, bool] = {}  # a memo of `_is_reference_class` (bounded)


def _is_reference_class(cls: type) -> bool:
    """A subclass of this module's `Reference` or of inmanta-core's (when module code imports it)."""
    known = _KNOWN_CLASSES.get(cls)
    if known is None:
        known = issubclass(cls, Reference) or any(
            base.__name__ == "Reference" and base.__module__ == "inmanta.references" for base in cls.__mro__
        )
        if len(_KNOWN_CLASSES) < 4096:
            _KNOWN_CLASSES[cls] = known
    return known


_PLAIN: frozenset[type] = frozenset({str, int, float, bool, list, dict, type(None)})
_KNOWN_CLASSES.update(dict.fromkeys(_PLAIN, False))  # the language's own values: one lookup


def is_reference(value: object) -> bool:
    known = _KNOWN_CLASSES.get(type(value))
    return known if known is not None else _is_reference_class(type(value))


def unwrap_reference(value: object) -> Any:
    """The reference *value* is, else None (inmanta's name)."""
    return value if is_reference(value) else None


#: Python types of ``Reference[T]`` → the language type a reference holds.
_LANGUAGE: dict[object, str] = {str: "string", int: "int", float: "float", bool: "bool"}


def reference_type(value: Any) -> str | None:
    """The language type the reference *value* holds (``string`` for ``Reference[str]``), ``any``
    for ``Reference[object]``, None when its class does not say."""
    python = type(value).get_reference_type() if hasattr(type(value), "get_reference_type") else None
    if python is None:
        return None
    return _LANGUAGE.get(python, "any")


def is_reference_annotation(annotation: object) -> bool:
    """``Reference``, ``Reference[T]`` or a subclass of it, as a plugin annotation."""
    origin = typing.get_origin(annotation) or annotation
    return isinstance(origin, type) and _is_reference_class(origin)


def annotation_reference_type(annotation: object) -> str:
    """The language type a reference annotation holds (``any`` when it does not say)."""
    args = typing.get_args(annotation)
    if args:
        return _LANGUAGE.get(args[0], "any")
    getter: Callable[[], Any] | None = getattr(annotation, "get_reference_type", None)
    found = getter() if getter is not None else None
    return "any" if found is None else _LANGUAGE.get(found, "any")


def describe(value: Any, depth: int = 0) -> str:
    """A reference as messages show it: ``std::Environment(name="HOME")`` (deterministic)."""
    type_name = getattr(type(value), "type", None) or type(value).__name__
    if depth > 3:
        return f"{type_name}(...)"
    parts = []
    for name, argument in list(getattr(value, "arguments", {}).items())[:8]:
        if is_reference(argument):
            shown = describe(argument, depth + 1)
        elif argument is None or isinstance(argument, PRIMITIVES):
            shown = json.dumps(argument)
        else:
            shown = type(argument).__name__
        parts.append(f"{name}={shown[:80]}")
    return f"{type_name}({', '.join(parts)})"
