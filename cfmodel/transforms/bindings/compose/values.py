"""Values and types of the bindings language: keys, type references, bound values.

A bound value is plain data (``str``, ``int``, ``float``, ``bool``, ``None`` for ``undef``,
``list``, ``dict``) or a ``TypeValue`` (``Type[X]``, ``class ntp``, ``Sql[one]``). ``conforms``
checks a value against a ``TypeSpec``; ``show`` prints a value in the language's notation
(used by every message); ``key_of`` gives a binding's key (every ``Data`` subtype shares the
``Data`` name space).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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
        "Optional",
        "NotUndef",
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
    """A type reference: ``Integer``, ``Array[String]``, ``Type[Logger]``, ``Web[one]``.

    ``titles`` are the values of an instance's key as written (``Web[one]``: ``("one",)``;
    ``Host['web', 'example.com']``: two), empty for a type; ``class ntp`` is ``Class[ntp]``.
    """

    name: str
    args: tuple[TypeSpec, ...] = ()
    titles: tuple[str, ...] = ()

    def __str__(self) -> str:
        inner = [str(a) for a in self.args] + [show_title(t) for t in self.titles]
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
    """``bind parameters <target> to <source>``: where a target's parameters come from.

    ``target`` is encoded as in injector names (`encode_target`). ``source`` is an instance
    reference (``Sql[one]``: a ``TypeValue``) or the value of an expression (a hash is read
    like an instance: by attribute name, through the map); for a custom producer (``to
    producer 'name'``) it is None and ``produce`` makes the source at each lookup.
    """

    target: str
    source: Value
    map: Mapping[str, Value] | None
    optional: bool
    span: Span | None = None
    produce: Callable[[], Value] | None = field(default=None, compare=False)


def key_of(spec: TypeSpec | None, name: str) -> Key:
    """The key of a binding: every ``Data`` subtype shares the ``Data`` name space."""
    if spec is None or spec.is_data:
        return Key("Data", name)
    return Key(str(spec), name)


def parse_type(text: str) -> TypeSpec:
    """Parse a type written as in the language: ``Array[String]``, ``Type[X]``, ``class ntp``,
    ``Web[one]``, ``Host['web', 'example.com']`` (titles quoted as strings or bare)."""
    spec, rest = _parse_type(text.strip(), text)
    if rest.strip():
        raise CfEvaluationError(f"cannot read the type {text!r}", None, "type-syntax")
    return spec


_TYPE_NAME = re.compile(r"\s*([A-Za-z_:][\w:]*)\s*")
_TITLE = re.compile(r"""\s*("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[^,\]\s'"]+)\s*""")


def _parse_type(text: str, whole: str) -> tuple[TypeSpec, str]:
    if text.startswith("class "):
        return TypeSpec("Class", (), (text[6:].strip(),)), ""
    match = _TYPE_NAME.match(text)
    if match is None:
        raise CfEvaluationError(f"cannot read the type {whole!r}", None, "type-syntax")
    name, rest = match.group(1), text[match.end() :]
    if not rest.startswith("["):
        return TypeSpec(name), rest
    args: list[TypeSpec] = []
    titles: list[str] = []
    rest = rest[1:]
    while True:
        rest = rest.lstrip()
        if "A" <= rest[:1] <= "Z":  # a type argument (``Array[String]``); else a title
            arg, rest = _parse_type(rest, whole)
            args.append(arg)
        else:
            word = _TITLE.match(rest)
            if word is None:
                raise CfEvaluationError(f"cannot read the type {whole!r}", None, "type-syntax")
            titles.append(_unquoted(word.group(1)))
            rest = rest[word.end() :]
        rest = rest.lstrip()
        if rest.startswith(","):
            rest = rest[1:]
            continue
        if not rest.startswith("]"):
            raise CfEvaluationError(f"cannot read the type {whole!r}", None, "type-syntax")
        return TypeSpec(name, tuple(args), tuple(titles)), rest[1:]


def _unquoted(token: str) -> str:
    if token[:1] not in ("'", '"'):
        return token
    return re.sub(r"\\(.)", lambda m: m.group(1), token[1:-1])


#: A title shown without quotes (``web1``, ``example.com``): no space, comma, bracket, quote or
#: backslash, and not the capital letter a type argument starts with (``'Web'``).
_PLAIN_TITLE = re.compile(r"""(?![A-Z])[^\s,\[\]'"\\]+""")


def show_title(title: str) -> str:
    """A title as ``Entity[...]`` shows it: as is when plain (``web1``), else quoted (``'a,b'``)."""
    return title if _PLAIN_TITLE.fullmatch(title) else show(title)


def encode(name: str) -> str:
    """Instance names inside injector names are URL-encoded (``/``, ``[``, ``]``, ``%``)."""
    return name.replace("%", "%25").replace("/", "%2F").replace("[", "%5B").replace("]", "%5D")


def encode_target(spec: TypeSpec) -> str:
    """A parameter target as injector names hold it (``/param/<target>/<name>``).

    ``Web[one]`` is ``Web%5Bone%5D``; the values of a key are separated by ``,`` and each is
    URL-encoded (``%``, ``/``, ``[``, ``]`` and ``,``), so a key reads back exactly
    (`decode_target`): ``Host['a,b']`` is ``Host%5Ba%2Cb%5D``, ``Host[a, b]`` ``Host%5Ba,b%5D``.
    """
    parts = [str(a) for a in spec.args] + list(spec.titles)
    if not parts:
        return encode(spec.name)
    return f"{encode(spec.name)}%5B{','.join(encode(p).replace(',', '%2C') for p in parts)}%5D"


_ESCAPED = re.compile(r"%(25|2F|5B|5D|2C)")
_UNESCAPED = {"25": "%", "2F": "/", "5B": "[", "5D": "]", "2C": ","}


def decode_target(text: str) -> tuple[str, tuple[str, ...]]:
    """The name and key values of a target encoded by `encode_target` (``("Web", ("one",))``)."""
    name, bracket, rest = text.partition("%5B")
    if not bracket:
        return _decoded(name), ()
    return _decoded(name), tuple(_decoded(p) for p in rest.removesuffix("%5D").split(","))


def _decoded(text: str) -> str:
    return _ESCAPED.sub(lambda m: _UNESCAPED[m.group(1)], text)


def show_target(name: str, titles: tuple[str, ...]) -> str:
    """A target for messages: ``Host``, ``Host[web1]``, ``Host['a,b']``, ``Host[web, example.com]``."""
    return str(TypeSpec(name, (), titles))


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
    "Optional": lambda v, s: v is None or not s.args or conforms(v, s.args[0]),
    "NotUndef": lambda v, s: v is not None and (not s.args or conforms(v, s.args[0])),
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
    "Type": lambda v, s: _check_type_value(v, s),
    "Class": lambda v, s: isinstance(v, TypeValue) and v.type.name == "Class",
}


#: The data types' supertypes (ARM-8's type system): a type conforms to its ancestors.
_DATA_PARENTS = {
    "Integer": "Number",
    "Float": "Number",
    "Number": "Scalar",
    "String": "Scalar",
    "Pattern": "Scalar",
    "Boolean": "Scalar",
    "Scalar": "Literal",
    "Literal": "Data",
    "Array": "Data",
    "Hash": "Data",
    "Undef": "Data",
    "Data": "Any",
}


def is_data_subtype(given: TypeSpec, wanted: TypeSpec) -> bool:
    """Whether the data type ``given`` is ``wanted`` or below it (``Integer`` is a ``Number``;
    ``Array[Integer]`` an ``Array[Number]``: arguments compared one for one when both have them)."""
    name: str | None = given.name
    while name is not None and name != wanted.name:
        name = _DATA_PARENTS.get(name)
    if name is None:
        return False
    if given.name != wanted.name or not (given.args and wanted.args):
        return True
    return len(given.args) == len(wanted.args) and all(
        is_data_subtype(g, w) for g, w in zip(given.args, wanted.args, strict=True)
    )


def bound_type(value: TypeValue) -> TypeSpec:
    """The type a type binding binds: ``Type[X]`` gives ``X``; ``class x`` is itself."""
    spec = value.type
    return spec.args[0] if spec.name == "Type" and spec.args else spec


def _check_type_value(value: Value, spec: TypeSpec) -> bool:
    """``Type[X]`` holds a type that is ``X`` or a subtype: checked here for data types; for
    entities the compiler checks it against the program (``not-a-subtype``)."""
    if not isinstance(value, TypeValue):
        return False
    if not spec.args:
        return True
    wanted, given = spec.args[0], bound_type(value)
    return not (wanted.is_data and given.is_data) or is_data_subtype(given, wanted)


def type_name(value: Value) -> str:
    """The most specific type name of a value (for messages)."""
    if value is None:
        return "Undef"
    if isinstance(value, bool):
        return "Boolean"
    names = {int: "Integer", float: "Float", str: "String", list: "Array", dict: "Hash"}
    return names.get(type(value), "Type" if isinstance(value, TypeValue) else type(value).__name__)


def describe(value: Value) -> str:
    return "undef" if value is None else f"{type_name(value)} {show(value)}"


def json_value(value: Value) -> Any:
    """A value as JSON data: types and parameter sources as their text, the rest as is."""
    if isinstance(value, TypeValue | ParameterSource):
        return str(value.source if isinstance(value, ParameterSource) else value)
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return value


def terminal_text(value: Value) -> str:
    """A value for the terminal, as ``puppet lookup`` prints it: a string, number or boolean
    as is, undef as ``null``, an array or hash as compact JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(json_value(value), ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, TypeValue | ParameterSource):
        return str(json_value(value))
    return str(value)


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
