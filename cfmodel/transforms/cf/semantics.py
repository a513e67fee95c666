"""The value semantics of the language's operators, shared by both expression evaluators.

The compiler (`cfmodel.transforms.cf.refine.evaluator`) and the compiler-less evaluator of
typedef conditions and constant defaults (`cfmodel.transforms.cf.conditions`) both call
these functions, so a condition or a default means the same on the notebook side
(validation, lift, resolve) as in a compile. They are pure functions over plain values
(None, bool, int, float, str, list, dict; other objects, such as the compiler's
instances, compare by identity and show as their ``str()``). They know nothing of
``Unknown``: the compiler handles it before calling them.

A value that an operator does not take raises `SemanticError` with the message, an
error code and which operand it is about (``"left"``, ``"right"``, or None for the whole
expression); each evaluator turns it into its own error, with the span it has for that
operand.

The semantics (docs/compiler.md lists where inmanta-core 20.1 differs, as checked with
it): ``==`` never equates a bool with a number, ``< > <= >=`` compare numbers only,
arithmetic takes numbers (not bools), ``+`` also joins a string to a string (not lists:
a list literal splices lists in, `list_literal`), ``in`` looks in a list (by `equal`) or
the keys of a dict (string keys only), not in a string, ``[k]`` looks up a string key in
a dict, interpolation shows values as Python's ``str()`` (a whole float as an int).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from typing import Any, Literal

from cfmodel.plugins import Unknown
from cfmodel.references import describe as describe_reference
from cfmodel.references import is_reference

Operand = Literal["left", "right"] | None


class SemanticError(Exception):
    """An operator got a value it does not take (or an arithmetic error)."""

    def __init__(self, message: str, code: str = "type-error", operand: Operand = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.operand = operand


MAX_SHOWN_ITEMS = 8
MAX_SHOWN_TEXT = 80


def show(value: object) -> str:
    """A value as the language writes it, shortened for messages."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= MAX_SHOWN_TEXT else text[: MAX_SHOWN_TEXT - 4] + '..."'
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        items = [show(v) for v in value[:MAX_SHOWN_ITEMS]]
        if len(value) > MAX_SHOWN_ITEMS:
            items.append(f"... ({len(value)} items)")
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        pairs = [f"{json.dumps(str(k))}: {show(v)}" for k, v in list(value.items())[:MAX_SHOWN_ITEMS]]
        if len(value) > MAX_SHOWN_ITEMS:
            pairs.append(f"... ({len(value)} keys)")
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, Unknown):
        return "unknown"
    if is_reference(value):
        return describe_reference(value)
    return str(value)


def _brief(value: object) -> str:
    """A number as a message shows it: a long integer by its first digits and its length."""
    if type(value) is int and value.bit_length() > 128:
        digits = str(abs(value))
        return f"{'-' if value < 0 else ''}{digits[:12]}... ({len(digits):,} digits)"
    return show(value)


def kind_of(value: object) -> str:
    """The language's name for the kind of a value (for type errors)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, Unknown):
        return "unknown"
    if is_reference(value):
        return "reference"
    name = getattr(getattr(value, "info", None), "qname", None)
    return name if isinstance(name, str) else type(value).__name__


def _described(value: object) -> str:
    """``int 1``, ``string "a"``: the kind and the value, for type errors."""
    return f"{kind_of(value)} {show(value)}"


def is_number(value: Any) -> bool:
    """An int or a float; a bool is not a number."""
    kind = type(value)
    return kind is int or kind is float


# ---------------------------------------------------------------------- comparisons


def equal(left: Any, right: Any) -> bool:
    """``==``: Python's equality, except that a bool equals only a bool (not 1 or 0)."""
    if left is right:
        return True
    if type(left) is bool or type(right) is bool:
        return False
    try:
        return bool(left == right)
    except Exception:
        return False


ORDERINGS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}


def compare(op: str, left: Any, right: Any) -> bool:
    """``< > <= >=`` on two numbers."""
    if not (is_number(left) and is_number(right)):
        raise SemanticError(f"'{op}' compares numbers, not {_described(left)} and {_described(right)}")
    return ORDERINGS[op](left, right)


# ---------------------------------------------------------------------- arithmetic

# Integers are bounded (about 4,300 decimal digits, what Python still prints): a larger
# result is an error where it is computed, not a hang or a crash later.
MAX_INTEGER_BITS = 14_000

ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
    "**": operator.pow,
}


def arithmetic(op: str, left: Any, right: Any) -> Any:
    """``+ - * / % **`` on numbers; ``+`` also on two strings. Not on lists (inmanta-core
    refuses them too): the list literal ``[a, b]`` joins lists ``a`` and ``b``."""
    if op == "+" and type(left) is str:
        if type(right) is not str:
            raise SemanticError(f"'+' joins a string only to a string, not to {_described(right)}")
        return left + right
    if op == "+" and type(left) is list and type(right) is list:
        raise SemanticError(
            f"'+' does not join lists ({show(left)} and {show(right)}); a list literal does: [a, b] "
            "splices lists a and b in"
        )
    if not (is_number(left) and is_number(right)):
        raise SemanticError(f"'{op}' needs numbers, not {_described(left)} and {_described(right)}")
    # a power's size is known before computing it: refuse rather than hang
    big_power = op == "**" and type(left) is int and type(right) is int and right > 0 and abs(left) > 1
    if big_power and (abs(left).bit_length() - 1) * right > MAX_INTEGER_BITS:
        raise SemanticError(f"{_brief(left)} ** {_brief(right)} is too large", "arithmetic")
    try:
        result = ARITHMETIC[op](left, right)
    except ZeroDivisionError:
        raise SemanticError(f"division by zero in {show(left)} {op} {show(right)}", "arithmetic") from None
    except OverflowError:
        raise SemanticError(f"{show(left)} {op} {show(right)} is too large", "arithmetic") from None
    if type(result) is int and result.bit_length() > MAX_INTEGER_BITS:
        raise SemanticError(f"{_brief(left)} {op} {_brief(right)} is too large", "arithmetic")
    return result


# ---------------------------------------------------------------------- containers


def contains(item: Any, container: Any) -> bool:
    """``item in container``: a list by `equal`, a dict's keys (only strings match). Not in a
    string (inmanta-core refuses it too)."""
    if type(container) is dict:
        return type(item) is str and item in container
    if type(container) is list:
        return any(equal(element, item) for element in container)
    raise SemanticError(f"'in' looks in a list or a dict, not in {_described(container)}", operand="right")


def lookup(mapping: Any, key: Any) -> Any:
    """``mapping[key]``: a string key of a dict."""
    if type(mapping) is not dict:
        raise SemanticError(f"[...] looks up a key in a dict; {show(mapping)} is {kind_of(mapping)}")
    if type(key) is not str:
        raise SemanticError(f"dict keys are strings, not {_described(key)}", operand="right")
    try:
        return mapping[key]
    except KeyError:
        keys = ", ".join(show(k) for k in mapping) or "none"
        raise SemanticError(f"key {show(key)} not found in the dict (keys: {keys})", "key-error") from None


def has_value(mapping: Any, key: Any) -> bool:
    """``mapping[key] is defined``: the dict has the key and its value is not null."""
    if type(mapping) is not dict:
        raise SemanticError(f"'is defined' on [...] needs a dict, not {show(mapping)}")
    if type(key) is not str:  # as `lookup` (a list or dict key was a Python TypeError)
        raise SemanticError(f"dict keys are strings, not {_described(key)}", operand="right")
    return key in mapping and mapping[key] is not None


def is_defined(value: Any) -> bool:
    """``x is defined`` for a known value: neither null nor an empty list."""
    if type(value) is list:
        return bool(value)
    return value is not None


def not_an_instance(name: str, value: Any) -> SemanticError:
    """The error for ``value.name`` when *value* is a plain value (only entity instances have attributes)."""
    if isinstance(value, list):
        return SemanticError(
            f"cannot read '{name}' of a list ({show(value)}); iterate it with 'for' or a comprehension"
        )
    return SemanticError(f"cannot read '{name}' of {_described(value)}: it is not an entity instance")


# ---------------------------------------------------------------------- booleans


def logical_operand(op: str, side: Literal["left", "right"], value: Any) -> bool:
    """One side of ``and`` / ``or``: a bool."""
    if type(value) is not bool:
        raise SemanticError(f"'{op}' needs bools; the {side} side is {_described(value)}", operand=side)
    return value


def negation(value: Any) -> bool:
    """``not value``, of a bool."""
    if type(value) is not bool:
        raise SemanticError(f"'not' applies to a bool, not {_described(value)}")
    return not value


def choice(condition: Any) -> bool:
    """The condition of ``c ? a : b``: a bool (the error is about the condition)."""
    if type(condition) is not bool:
        raise SemanticError(f"the condition of '? :' must be a bool, not {_described(condition)}")
    return condition


# ---------------------------------------------------------------------- strings


# An `int` attribute holds a 64-bit signed integer: the derived metamodel's int is
# ELongObject (Java's long), so a larger value could not be exported or loaded by EMF.
# Values in expressions and variables may be larger (as in inmanta-core); the limit applies
# where a value enters an attribute or a default, at its span (docs/compiler.md).
INT_MIN = -(2**63)
INT_MAX = 2**63 - 1


def list_literal(items: list[Any]) -> list[Any]:
    """The value of ``[a, b, …]`` from its items' values: an item that is a list is spliced
    in (``[1, [2, 3]]`` is ``[1, 2, 3]``; one level, as inmanta-core builds list literals —
    the inner literal was flattened when it was made)."""
    out: list[Any] = []
    for item in items:
        if type(item) is list:
            out.extend(item)
        else:
            out.append(item)
    return out


def whole_as_int(value: Any) -> Any:
    """A whole float as the int it equals (``2.0`` → ``2``), as inmanta-core turns a value
    shown in a string; every other value (inside lists and dicts too) as it is."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def to_text(value: Any) -> str:
    """A value inside ``"{{x}}"`` (or ``f"{x}"``): Python's ``str()`` (``true`` shows as
    ``True``), except that null shows as ``null``, also inside lists and dicts, and a whole
    float shows as an int (``2.0`` as ``2``, but ``[2.0]`` as ``[2.0]``), as inmanta-core
    shows them."""
    if type(value) is str:
        return value
    kind = type(value)
    if kind is int or kind is bool:  # as they are: no whole float, no reference
        return str(value)
    value = whole_as_int(value)
    if value is None or type(value) is list or type(value) is dict:
        return _shown(value)
    _not_a_reference(value)
    return str(value)


def _not_a_reference(value: Any) -> None:
    """A reference (Inmanta 20) has no text at compile time: the agent resolves it (inmanta-core
    refuses it in a string too)."""
    if is_reference(value):
        raise SemanticError(
            f"{show(value)} is a reference, resolved at deploy time: it cannot be written into a string"
        )


def _shown(value: Any) -> str:
    """``repr`` of a value in a list or dict (what ``str()`` of the list shows), null as null."""
    if value is None:
        return "null"
    if type(value) is list:
        return "[" + ", ".join(map(_shown, value)) + "]"
    if type(value) is dict:
        return "{" + ", ".join(f"{_shown(k)}: {_shown(v)}" for k, v in value.items()) + "}"
    _not_a_reference(value)
    return repr(value)


def format_field(value: Any, conversion: str | None, format_spec: str) -> str:
    """One ``{x!c:spec}`` field of an f-string: Python's conversions and format mini-language
    (a whole float is an int first unless there is a format spec, as in inmanta-core:
    ``f"{x}"`` and ``f"{x!r}"`` show ``2.0`` as ``2``, ``f"{x:.1f}"`` as ``2.0``)."""
    _not_a_reference(value)
    if not format_spec:
        value = whole_as_int(value)
    if conversion == "r":
        value = repr(value)
    elif conversion == "a":
        value = ascii(value)
    elif conversion == "s":
        value = str(value)
    if not format_spec:
        # format(x, "") is str(x) for plain values; objects without __format__ too
        return to_text(value)
    try:
        return format(value, format_spec)
    except (ValueError, TypeError) as error:
        raise SemanticError(f"cannot format {show(value)} in f-string: {error}") from None
