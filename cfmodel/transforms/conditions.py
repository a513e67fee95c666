"""A small evaluator for typedef conditions and constant defaults (no compiler needed).

Input: an expression of the syntax tree (`cfmodel.grammars.nodes`) and the values of
the names it may use (``self`` for a typedef condition). Output: its value, with the
reference compiler's semantics for what it covers: literals, lists, dicts, ``self``
and other given names, comparisons, ``and``/``or``/``not`` (on booleans), arithmetic,
``in``/``not in``, ``x ? a : b``, dict lookups, ``is defined`` and string interpolation.
Plugin calls are evaluated only when a function for them is given; otherwise
`NotChecked` is raised so that callers report "not checked" instead of guessing.

`check_value` checks a Python value against an attribute type (`TypeSpec`) or a base
type: primitives as the reference compiler checks them (``float`` takes floats only,
``int`` integers but not booleans, ``number`` both), enums by their values, typedefs by
their base, then every regex (``re.match``, anchored at the start only, as the
reference compiler does) and condition along the typedef chain.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cfmodel.errors import Span
from cfmodel.grammars import nodes
from cfmodel.transforms import program as p
from cfmodel.transforms.unparse import literal, to_source

Plugin = Callable[..., Any]


class NotChecked(Exception):  # noqa: N818 - an outcome, not a failure
    """The expression needs something this evaluator does not have (a plugin, a variable)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ConstantError(Exception):
    """The expression cannot be evaluated (type error) or its value does not fit the type."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


_UNDEFINED = object()

_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}
_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
    "**": operator.pow,
}


@dataclass
class Evaluator:
    """Evaluate expressions over *variables*; *plugins* maps qualified names to functions."""

    variables: Mapping[str, Any]
    plugins: Mapping[str, Plugin] | None = None

    def __call__(self, expression: nodes.Expression) -> Any:
        return self.eval(expression)

    def eval(self, e: nodes.Expression) -> Any:
        if isinstance(e, nodes.Literal):
            return e.value
        if isinstance(e, nodes.Reference):
            if e.name.text in self.variables:
                return self.variables[e.name.text]
            raise NotChecked(f"'{e.name.text}' is not known here")
        if isinstance(e, nodes.ListLiteral):
            return [self.eval(item) for item in e.items]
        if isinstance(e, nodes.DictLiteral):
            return {key: self.eval(value) for key, value in e.pairs}
        if isinstance(e, nodes.BinaryOperation):
            return self.binary(e)
        if isinstance(e, nodes.Not):
            return not self.boolean(self.eval(e.operand), "not", e.span)
        if isinstance(e, nodes.Conditional):
            chosen = self.boolean(self.eval(e.condition), "a condition", e.condition.span)
            return self.eval(e.then if chosen else e.otherwise)
        if isinstance(e, nodes.MapLookup):
            return self.lookup(e)
        if isinstance(e, nodes.IsDefined):
            try:
                value = self.eval(e.target)
            except ConstantError:
                return False
            return value is not _UNDEFINED
        if isinstance(e, nodes.AttributeAccess):
            target = self.eval(e.target)
            if isinstance(target, Mapping) and e.name.text in target:
                return target[e.name.text]
            if hasattr(target, e.name.text):
                return getattr(target, e.name.text)
            raise ConstantError(f"{_type_name(target)} has no attribute '{e.name.text}'", e.name.span)
        if isinstance(e, nodes.Interpolation):
            return "".join(part if isinstance(part, str) else _to_text(self.eval(part)) for part in e.parts)
        if isinstance(e, nodes.FString):
            return "".join(part if isinstance(part, str) else self.field(part) for part in e.parts)
        if isinstance(e, nodes.FunctionCall):
            return self.call(e)
        raise NotChecked(f"{type(e).__name__} expressions are not evaluated here")

    def boolean(self, value: Any, what: str, span: Span) -> bool:
        if not isinstance(value, bool):
            raise ConstantError(f"{what} needs a boolean, got {_show(value)}", span)
        return value

    def binary(self, e: nodes.BinaryOperation) -> Any:
        op = e.operator
        if op in ("and", "or"):
            left = self.boolean(self.eval(e.left), f"'{op}'", e.left.span)
            if (op == "and" and not left) or (op == "or" and left):
                return left
            return self.boolean(self.eval(e.right), f"'{op}'", e.right.span)
        left, right = self.eval(e.left), self.eval(e.right)
        try:
            if op in _COMPARE:
                return _COMPARE[op](left, right)
            if op in ("in", "not in"):
                if not isinstance(right, list | dict | str):
                    raise ConstantError(
                        f"'{op}' needs a list, dict or string on its right, got {_show(right)}", e.right.span
                    )
                return (left in right) == (op == "in")
            if op in _ARITHMETIC:
                if isinstance(left, bool) or isinstance(right, bool):
                    raise TypeError("arithmetic on a boolean")
                return _ARITHMETIC[op](left, right)
            if op == "is":
                raise NotChecked("'is' tests enum values")
        except (TypeError, ZeroDivisionError, OverflowError) as error:
            raise ConstantError(
                f"cannot evaluate {_show(left)} {op} {_show(right)}: {error}", e.span
            ) from None
        raise NotChecked(f"operator '{op}' is not evaluated here")  # pragma: no cover - grammar has no others

    def lookup(self, e: nodes.MapLookup) -> Any:
        target, key = self.eval(e.target), self.eval(e.key)
        if isinstance(target, dict):
            if key in target:
                return target[key]
            raise ConstantError(f"key {_show(key)} is not in the dict", e.key.span)
        if isinstance(target, list) and isinstance(key, int) and not isinstance(key, bool):
            if -len(target) <= key < len(target):
                return target[key]
            raise ConstantError(f"index {key} is out of range", e.key.span)
        raise ConstantError(f"cannot look up {_show(key)} in {_show(target)}", e.span)

    def field(self, f: nodes.FormatField) -> str:
        value = self.eval(f.value)
        if f.conversion == "r":
            value = repr(value)
        elif f.conversion in ("s", "a"):
            value = str(value) if f.conversion == "s" else ascii(value)
        try:
            return format(value, f.format_spec)
        except (ValueError, TypeError) as error:
            raise ConstantError(f"bad format field: {error}") from None

    def call(self, e: nodes.FunctionCall) -> Any:
        name = e.name.text
        function = (self.plugins or {}).get(name)
        if function is None:
            raise NotChecked(f"plugin call {name}(...) needs a plugin runtime")
        args = [self.eval(a) for a in e.positional]
        kwargs = {a.name.text: self.eval(a.value) for a in e.arguments}
        for wrapped in e.wrapped_kwargs:
            extra = self.eval(wrapped)
            if not isinstance(extra, dict):
                raise ConstantError(f"** needs a dict, got {_show(extra)}", wrapped.span)
            kwargs.update(extra)
        return function(*args, **kwargs)


def evaluate(
    expression: nodes.Expression,
    variables: Mapping[str, Any] | None = None,
    plugins: Mapping[str, Plugin] | None = None,
) -> Any:
    """Evaluate *expression*; raises `NotChecked` or `ConstantError`."""
    return Evaluator(variables or {}, plugins)(expression)


# ---------------------------------------------------------------------- type checks


def check_default(default: nodes.Expression, spec: p.TypeSpec) -> None:
    """Check a constant default against its attribute type (non-constant ones pass).

    Raises:
        ConstantError: the default is a constant that does not fit.
    """
    try:
        value = evaluate(default)
    except NotChecked:
        return
    problem = check_value(value, spec)
    if problem is not None and problem.failed:
        raise ConstantError(problem.message, default.span)


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a value does not fit a type: ``failed`` for a violation, else "not checked"."""

    message: str
    failed: bool = True


def check_value(
    value: Any, spec: p.TypeSpec | p.BaseType, plugins: Mapping[str, Plugin] | None = None
) -> Problem | None:
    """None when *value* fits *spec*; else the first `Problem` found."""
    if isinstance(spec, p.TypeSpec):
        if value is None:
            return None if spec.nullable else Problem(f"null is not a valid {spec}")
        if spec.multi:
            if not isinstance(value, list):
                return Problem(f"{_show(value)} is not a list ({spec})")
            for item in value:
                problem = check_value(item, spec.base, plugins)
                if problem is not None:
                    return problem
            return None
        return check_value(value, spec.base, plugins)
    if isinstance(spec, p.Primitive):
        return (
            None
            if primitive_fits(value, spec.name)
            else Problem(f"{_show(value)} is not a valid {spec.name}")
        )
    if isinstance(spec, p.EnumType):
        if value in spec.values:
            return None
        return Problem(f"{_show(value)} is not a value of enum {spec.qualified_name}")
    return check_typedef(value, spec, plugins)


def primitive_fits(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "float":
        return isinstance(value, float)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "bool":
        return isinstance(value, bool)
    if name == "list":
        return isinstance(value, list)
    if name == "dict":
        return isinstance(value, dict)
    return True  # any


def check_typedef(
    value: Any, typedef: p.Typedef, plugins: Mapping[str, Plugin] | None = None
) -> Problem | None:
    chain: list[p.Typedef] = []
    current: p.Typedef | None = typedef
    while current is not None:
        chain.append(current)
        current = current.parent
    if typedef.base is not None and not primitive_fits(value, typedef.base.name):
        return Problem(
            f"{_show(value)} is not a valid {typedef.base.name} (base of {typedef.qualified_name})"
        )
    for t in reversed(chain):
        problem = check_constraint(value, t.name, t.qualified_name, t.regex, t.condition, plugins)
        if problem is not None:
            return problem
    return None


def check_constraint(
    value: Any,
    name: str,
    qualified_name: str,
    regex: str | None,
    condition: nodes.Expression | None,
    plugins: Mapping[str, Plugin] | None = None,
) -> Problem | None:
    """One typedef's own constraint (a regex or a condition) against *value*."""
    if regex is not None:
        if not isinstance(value, str):
            return Problem(f"{_show(value)} cannot match /{regex}/ of {qualified_name}: not a string")
        if re.match(regex, value) is None:
            return Problem(f"{_show(value)} does not match /{regex}/ of {qualified_name}")
        return None
    if condition is None:
        return None
    try:
        verdict = evaluate(condition, {"self": value, name: value}, plugins)
    except NotChecked as reason:
        return Problem(f"the condition of {qualified_name} was not checked: {reason.reason}", failed=False)
    except ConstantError as error:
        return Problem(
            f"the condition of {qualified_name} cannot be evaluated for {_show(value)}: {error.message}"
        )
    if verdict is not True:
        return Problem(f"{_show(value)} does not satisfy the condition of {qualified_name} "
                       f"({to_source(condition)})")
    return None


def _type_name(value: Any) -> str:
    return type(value).__name__


def _show(value: Any) -> str:
    try:
        text = literal(value)
    except TypeError:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)
