"""A small evaluator for typedef conditions and constant defaults (no compiler needed).

Input: an expression of the syntax tree (`cfmodel.grammars.nodes`) and the values of
the names it may use (``self`` for a typedef condition). Output: its value, with the
compiler's semantics for what it covers (the operators are those of
`cfmodel.transforms.cf.semantics`, which the compiler uses too, so values and error
messages are the compiler's): literals, lists, dicts, ``self`` and other given names,
comparisons, ``and``/``or``/``not``, arithmetic, ``in``/``not in``, ``x ? a : b``, dict
lookups, ``is defined``, string interpolation and f-strings. Plugin calls are evaluated
only when a function for them is given; otherwise `NotChecked` is raised so that
callers report "not checked" instead of guessing (so is ``is``, which needs the enums).

`check_value` checks a Python value against an attribute type (`TypeSpec`) or a base
type: primitives as the reference compiler checks them (``float`` takes floats only,
``int`` integers but not booleans, ``number`` both), enums by their values, typedefs by
their base, then every regex (``re.match``, anchored at the start only, as the
reference compiler does) and condition along the typedef chain.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cfmodel.errors import Span
from cfmodel.grammars import nodes
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf import semantics as sem
from cfmodel.transforms.cf.unparse import literal, to_source

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


def _at(
    error: sem.SemanticError, span: Span, left: Span | None = None, right: Span | None = None
) -> ConstantError:
    """The `ConstantError` for a `SemanticError`: at the operand's span when it is about one."""
    where = left if error.operand == "left" else right if error.operand == "right" else None
    return ConstantError(error.message, where or span)


@dataclass
class Evaluator(nodes.ExpressionVisitor[Any]):
    """Evaluate expressions over *variables*; *plugins* maps qualified names to functions.

    One ``visit_<Node>`` method per expression it evaluates; any other expression is
    `NotChecked` (`generic_visit`)."""

    variables: Mapping[str, Any]
    plugins: Mapping[str, Plugin] | None = None

    def __call__(self, expression: nodes.Expression) -> Any:
        return self.visit(expression)

    def generic_visit(self, e: nodes.Expression) -> Any:
        raise NotChecked(f"{type(e).__name__} expressions are not evaluated here")

    def visit_Literal(self, e: nodes.Literal) -> Any:  # noqa: N802 - the node class name
        return e.value

    def visit_Reference(self, e: nodes.Reference) -> Any:  # noqa: N802 - the node class name
        if e.name.text in self.variables:
            return self.variables[e.name.text]
        raise NotChecked(f"'{e.name.text}' is not known here")

    def visit_ListLiteral(self, e: nodes.ListLiteral) -> Any:  # noqa: N802 - the node class name
        return sem.list_literal([self.visit(item) for item in e.items])

    def visit_DictLiteral(self, e: nodes.DictLiteral) -> Any:  # noqa: N802 - the node class name
        return {key: self.visit(value) for key, value in e.pairs}

    def visit_Not(self, e: nodes.Not) -> Any:  # noqa: N802 - the node class name
        nots = [e]  # not not … x, without recursion
        while isinstance(nots[-1].operand, nodes.Not):
            nots.append(nots[-1].operand)
        value = self.visit(nots[-1].operand)
        for current in reversed(nots):
            try:
                value = sem.negation(value)
            except sem.SemanticError as error:
                raise _at(error, current.span) from None
        return value

    def visit_Conditional(self, e: nodes.Conditional) -> Any:  # noqa: N802 - the node class name
        try:
            chosen = sem.choice(self.visit(e.condition))
        except sem.SemanticError as error:
            raise _at(error, e.condition.span) from None
        return self.visit(e.then if chosen else e.otherwise)

    def visit_MapLookup(self, e: nodes.MapLookup) -> Any:  # noqa: N802 - the node class name
        target, key = self.visit(e.target), self.visit(e.key)
        try:
            return sem.lookup(target, key)
        except sem.SemanticError as error:
            raise _at(error, e.span, right=e.key.span) from None

    def visit_AttributeAccess(self, e: nodes.AttributeAccess) -> Any:  # noqa: N802 - the node class name
        # the values here are plain values: none has attributes (the compiler's instances do)
        raise _at(sem.not_an_instance(e.name.text, self.visit(e.target)), e.span)

    def visit_Interpolation(self, e: nodes.Interpolation) -> Any:  # noqa: N802 - the node class name
        return "".join(part if isinstance(part, str) else self.text(part) for part in e.parts)

    def visit_FString(self, e: nodes.FString) -> Any:  # noqa: N802 - the node class name
        return "".join(part if isinstance(part, str) else self.field(part, e.span) for part in e.parts)

    def text(self, part: nodes.Expression) -> str:
        try:
            return sem.to_text(self.visit(part))
        except sem.SemanticError as error:
            raise _at(error, part.span) from None

    def visit_IsDefined(self, e: nodes.IsDefined) -> bool:  # noqa: N802 - the node class name
        target = e.target
        if isinstance(target, nodes.MapLookup):
            mapping, key = self.visit(target.target), self.visit(target.key)
            try:
                return sem.has_value(mapping, key)
            except sem.SemanticError as error:
                raise _at(error, e.span) from None
        return sem.is_defined(self.visit(target))

    def visit_BinaryOperation(self, e: nodes.BinaryOperation) -> Any:  # noqa: N802 - the node class name
        """A chain ``a and b and c`` (parsed left-deep) is walked down, not recursed into:
        its length is not limited by Python's recursion limit."""
        chain = [e]
        left_node = e.left
        while isinstance(left_node, nodes.BinaryOperation):
            chain.append(left_node)
            left_node = left_node.left
        value = self.visit(left_node)
        for current in reversed(chain):
            value = self.binary_after_left(current, value)
        return value

    def binary_after_left(self, e: nodes.BinaryOperation, left_value: Any) -> Any:
        op = e.operator
        try:
            if op in ("and", "or"):
                left = sem.logical_operand(op, "left", left_value)
                if left is (op == "or"):  # decided by the left side alone
                    return left
                return sem.logical_operand(op, "right", self.visit(e.right))
            left, right = left_value, self.visit(e.right)
            if op == "==":
                return sem.equal(left, right)
            if op == "!=":
                return not sem.equal(left, right)
            if op in ("in", "not in"):
                return sem.contains(left, right) == (op == "in")
            if op in sem.ORDERINGS:
                return sem.compare(op, left, right)
            if op in sem.ARITHMETIC:
                return sem.arithmetic(op, left, right)
        except sem.SemanticError as error:
            raise _at(error, e.span, e.left.span, e.right.span) from None
        if op == "is":
            raise NotChecked("'is' tests enum values")
        raise NotChecked(f"operator '{op}' is not evaluated here")  # pragma: no cover - grammar has no others

    def field(self, f: nodes.FormatField, span: Span) -> str:
        try:
            return sem.format_field(self.visit(f.value), f.conversion, f.format_spec)
        except sem.SemanticError as error:
            raise _at(error, span) from None

    def visit_FunctionCall(self, e: nodes.FunctionCall) -> Any:  # noqa: N802 - the node class name
        name = e.name.text
        function = (self.plugins or {}).get(name)
        if function is None:
            raise NotChecked(f"plugin call {name}(...) needs a plugin runtime")
        args = [self.visit(a) for a in e.positional]
        kwargs = {a.name.text: self.visit(a.value) for a in e.arguments}
        for wrapped in e.wrapped_kwargs:
            extra = self.visit(wrapped)
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
    if (
        isinstance(spec.base, p.Primitive)
        and spec.base.name == "int"
        and not spec.multi
        and type(value) is int
        and not sem.INT_MIN <= value <= sem.INT_MAX
    ):
        raise ConstantError(f"{value} is not a 64-bit int (the metamodel's int is a Java long)", default.span)


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
        return Problem(
            f"{_show(value)} does not satisfy the condition of {qualified_name} ({to_source(condition)})"
        )
    return None


def _show(value: Any) -> str:
    try:
        text = literal(value)
    except TypeError:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
