"""Evaluate expressions of the bindings language (values, category values, combinators).

``evaluate(expr, variables)`` walks an ``Expression`` model object; variables (lambda
parameters, then facts: ``$::fqdn`` and ``$fqdn`` both read ``fqdn``) come from a mapping.
Undefined variables are ``undef`` (None). Errors: ``ExpressionError`` with the expression at
fault (callers turn it into an ``expression-error`` diagnostic with that expression's span).
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cfmodel.metamodel.bindings import ModelObject, kind_of
from cfmodel.transforms.bindings.compose.functions import FUNCTIONS
from cfmodel.transforms.bindings.compose.values import LambdaValue, Value, describe, is_scalar, show


class ExpressionError(Exception):
    """An expression cannot be evaluated; ``element`` is the expression at fault."""

    def __init__(self, message: str, element: ModelObject) -> None:
        super().__init__(message)
        self.message = message
        self.element = element


def evaluate(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    """The value of an expression; variables (and facts: ``$::fqdn``) come from ``variables``."""
    return _EVALUATORS[kind_of(expr)](expr, variables)


def _text(value: Value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else show(value)


def _eval_call(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    name = str(expr.function)
    function = FUNCTIONS.get(name)
    if function is None:
        raise ExpressionError(f'unknown function "{name}" (known: {", ".join(sorted(FUNCTIONS))})', expr)
    args = [evaluate(a, variables) for a in expr.args]
    try:
        return function(*args)
    except (TypeError, ValueError, AttributeError) as err:
        raise ExpressionError(f"{name}() cannot take {', '.join(describe(a) for a in args)}", expr) from err


def _eval_binary(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    left, right, op = evaluate(expr.left, variables), evaluate(expr.right, variables), str(expr.op)
    if op == "==":
        return bool(left == right)
    if op == "!=":
        return bool(left != right)
    try:
        return _add(left, right) if op == "+" else _subtract(left, right)
    except TypeError as err:
        message = f"cannot compute {describe(left)} {op} {describe(right)}"
        raise ExpressionError(message, expr) from err


def _add(left: Value, right: Value) -> Value:
    if isinstance(left, list):
        return left + right if isinstance(right, list) else [*left, right]
    if isinstance(left, dict) and isinstance(right, dict):
        return {**left, **right}
    if isinstance(left, bool) or isinstance(right, bool) or left is None or right is None:
        raise TypeError("not addable")
    return left + right


def _subtract(left: Value, right: Value) -> Value:
    removed: Any = right if isinstance(right, list | dict) else [right]
    if isinstance(left, list):
        return [v for v in left if v not in removed]
    if isinstance(left, dict):
        return {k: v for k, v in left.items() if k not in removed}
    if isinstance(left, bool) or isinstance(right, bool) or isinstance(left, str):
        raise TypeError("not subtractable")
    return left - right


def _truthy(value: Value) -> bool:
    """Puppet truth: only ``undef`` and ``false`` are false."""
    return value is not None and value is not False


def _eval_conditional(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    holds = _truthy(evaluate(expr.condition, variables)) != bool(expr.unless)
    if holds:
        return evaluate(expr.then, variables)
    return evaluate(expr.otherwise, variables) if expr.otherwise is not None else None


def _eval_hash(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    result: dict[Value, Value] = {}
    for entry in expr.entries:
        key = evaluate(entry.key, variables)
        if not is_scalar(key):
            raise ExpressionError(
                f"a hash key must be a String, Number or Boolean, not {describe(key)}", entry.key
            )
        result[key] = evaluate(entry.value, variables)
    return result


_EVALUATORS: dict[str, Callable[[ModelObject, Mapping[str, Value]], Value]] = {
    "StringLiteral": lambda e, v: str(e.value),
    "IntegerLiteral": lambda e, v: int(e.value),
    "FloatLiteral": lambda e, v: float(e.value),
    "BooleanLiteral": lambda e, v: bool(e.value),
    "UndefLiteral": lambda e, v: None,
    "InterpolatedString": lambda e, v: "".join(_text(evaluate(p, v)) for p in e.parts),
    "ArrayLiteral": lambda e, v: [evaluate(i, v) for i in e.items],
    "HashLiteral": _eval_hash,
    "VariableRef": lambda e, v: v.get(str(e.name)),
    "Call": _eval_call,
    "BinaryOp": _eval_binary,
    "NotOp": lambda e, v: not _truthy(evaluate(e.operand, v)),
    "Conditional": _eval_conditional,
    "Lambda": lambda e, v: LambdaValue(tuple(str(p) for p in e.parameters), e.body),
}


def call_lambda(function: LambdaValue, args: Sequence[Value], facts: Mapping[str, Value]) -> Value:
    """Call a lambda: its parameters shadow the facts."""
    if len(args) != len(function.parameters):
        wanted = len(function.parameters)
        message = f"the combinator takes {wanted} parameter{'s' if wanted != 1 else ''}, {len(args)} given"
        raise ExpressionError(message, function.body)
    scope = ChainMap(dict(zip(function.parameters, args, strict=True)), dict(facts))
    return evaluate(function.body, scope)
