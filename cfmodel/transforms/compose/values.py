"""Values and types of the bindings language: keys, type references, bound values.

A bound value is plain data (``str``, ``int``, ``float``, ``bool``, ``None`` for ``undef``,
``list``, ``dict``) or a ``TypeValue`` (``Type[X]``, ``class ntp``, ``Sql[one]``). ``conforms``
checks a value against a ``TypeSpec``; ``show`` prints a value in the language's notation
(used by every message); ``key_of`` gives a binding's key (every ``Data`` subtype shares the
``Data`` name space).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeAlias

from cfmodel.errors import CfEvaluationError, Span
from cfmodel.metamodel.bindings import ModelObject

#: A bound value: JSON-like data (str, int, float, bool, None, list, dict) or a ``TypeValue``.
#: Data is dynamic by nature, so this is deliberately ``Any``.
Value: TypeAlias = Any
#: Makes a custom producer's value from its ``producer_args``.
ProducerFactory: TypeAlias = Callable[[Mapping[str, Value]], Value]

DATA_TYPES = frozenset(
    [
        "Any",
        "Data",
        "Literal",
        "Scalar",
        "Boolean",
        "Integer",
        "Float",
        "Number",
        "String",
        "Pattern",
        "Array",
        "Hash",
        "Undef",
    ]
)
#: The marker of "no value" (None is a value: ``undef``).
MISSING: Any = object()


class Key(NamedTuple):
    """A binding key. Equal (and hash-equal) to the plain tuple ``(namespace, name)``."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f'{self.namespace} "{self.name}"' if self.name else self.namespace


@dataclass(frozen=True, slots=True)
class TypeSpec:
    """A type reference: ``Integer``, ``Array[String]``, ``Type[Logger]``, ``Web[one]``."""

    name: str
    args: tuple[TypeSpec, ...] = ()
    title: str | None = None

    def __str__(self) -> str:
        inner = [str(a) for a in self.args] + ([self.title] if self.title is not None else [])
        return f"{self.name}[{', '.join(inner)}]" if inner else self.name

    @property
    def is_data(self) -> bool:
        return self.name in DATA_TYPES


@dataclass(frozen=True, slots=True)
class TypeValue:
    """A type or instance reference bound as a value (``Type[X]``, ``class ntp``, ``Sql[one]``)."""

    type: TypeSpec

    def __str__(self) -> str:
        return str(self.type)


@dataclass(frozen=True, slots=True)
class LambdaValue:
    """A ``|$a, $b| { ... }`` lambda (only meaningful as a combinator)."""

    parameters: tuple[str, ...]
    body: ModelObject


@dataclass(frozen=True, slots=True)
class ParameterSource:
    """``bind parameters <target> to <instance>``: where a target's parameters come from."""

    target: str
    source: Value
    map: Mapping[str, Value] | None
    optional: bool
    span: Span | None = None


def key_of(spec: TypeSpec | None, name: str) -> Key:
    """The key of a binding: every ``Data`` subtype shares the ``Data`` name space."""
    if spec is None or spec.is_data:
        return Key("Data", name)
    return Key(str(spec), name)


def parse_type(text: str) -> TypeSpec:
    """Parse a type written as in the language: ``Array[String]``, ``Type[X]``, ``class ntp``."""
    spec, rest = _parse_type(text.strip())
    if rest.strip():
        raise CfEvaluationError(f"cannot read the type {text!r}", None, "type-syntax")
    return spec


def _parse_type(text: str) -> tuple[TypeSpec, str]:
    if text.startswith("class "):
        return TypeSpec("Class", (), text[6:].strip()), ""
    match = re.match(r"\s*([A-Za-z_:][\w:]*)\s*", text)
    if match is None:
        raise CfEvaluationError(f"cannot read the type {text!r}", None, "type-syntax")
    name, rest = match.group(1), text[match.end() :]
    if not rest.startswith("["):
        return TypeSpec(name), rest
    args: list[TypeSpec] = []
    title = None
    rest = rest[1:]
    while True:
        if rest.lstrip()[:1].isupper():
            arg, rest = _parse_type(rest.lstrip())
            args.append(arg)
        else:
            word = re.match(r"\s*([^,\]]+)", rest)
            title = word.group(1).strip().strip("'\"") if word else ""
            rest = rest[word.end() :] if word else rest
        rest = rest.lstrip()
        if rest.startswith(","):
            rest = rest[1:]
            continue
        return TypeSpec(name, tuple(args), title), rest[1:]


def conforms(value: Value, spec: TypeSpec) -> bool:
    """Whether ``value`` is an instance of the type ``spec``."""
    check = _CHECKS.get(spec.name)
    if check is None:
        return isinstance(value, TypeValue | ParameterSource)
    return check(value, spec)


def is_scalar(value: Value) -> bool:
    return isinstance(value, str | int | float)


def _is_data(value: Value) -> bool:
    if value is None or is_scalar(value):
        return True
    if isinstance(value, list):
        return all(_is_data(v) for v in value)
    if isinstance(value, dict):
        return all(is_scalar(k) and _is_data(v) for k, v in value.items())
    return False


def _check_array(value: Value, spec: TypeSpec) -> bool:
    element = spec.args[0] if spec.args else TypeSpec("Data")
    return isinstance(value, list) and all(conforms(v, element) for v in value)


def _check_hash(value: Value, spec: TypeSpec) -> bool:
    if not isinstance(value, dict):
        return False
    key_type = spec.args[0] if len(spec.args) == 2 else TypeSpec("Literal")
    value_type = spec.args[-1] if spec.args else TypeSpec("Data")
    return all(conforms(k, key_type) and conforms(v, value_type) for k, v in value.items())


_CHECKS: dict[str, Callable[[Value, TypeSpec], bool]] = {
    "Any": lambda v, s: True,
    "Undef": lambda v, s: v is None,
    "Data": lambda v, s: _is_data(v),
    "Literal": lambda v, s: is_scalar(v),
    "Scalar": lambda v, s: is_scalar(v),
    "Boolean": lambda v, s: isinstance(v, bool),
    "Integer": lambda v, s: isinstance(v, int) and not isinstance(v, bool),
    "Float": lambda v, s: isinstance(v, float),
    "Number": lambda v, s: isinstance(v, int | float) and not isinstance(v, bool),
    "String": lambda v, s: isinstance(v, str),
    "Pattern": lambda v, s: isinstance(v, str),
    "Array": _check_array,
    "Hash": _check_hash,
    "Type": lambda v, s: isinstance(v, TypeValue),
    "Class": lambda v, s: isinstance(v, TypeValue) and v.type.name == "Class",
}


def type_name(value: Value) -> str:
    """The most specific type name of a value (for messages)."""
    if value is None:
        return "Undef"
    if isinstance(value, bool):
        return "Boolean"
    names = {int: "Integer", float: "Float", str: "String", list: "Array", dict: "Hash"}
    return names.get(type(value), "Type" if isinstance(value, TypeValue) else type(value).__name__)


def describe(value: Value) -> str:
    return f"{type_name(value)} {show(value)}"


def show(value: Value) -> str:
    """A value in the language's notation: ``'a'``, ``[1, 2]``, ``{'k' => true}``."""
    if value is None:
        return "undef"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show(k)} => {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, LambdaValue):
        return "|" + ", ".join("$" + p for p in value.parameters) + "| { ... }"
    return str(value)
