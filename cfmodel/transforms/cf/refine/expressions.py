"""Expressions: what every expression node of the language evaluates to.

One function per node class (`HANDLERS`, dispatched on the node's exact class by
`evaluate`), each taking the compile's `Evaluator` (its tables, scheduler and plugins),
the node, the `Frame` it is read in and the `Task` that runs it. After `evaluate` returns,
the result is a `Value` of the language; a read of something not known yet raises
`Blocked` (the task waits and runs again: calls and constructors replay from the task's
memo), anything else that goes wrong raises a `CfEvaluationError` at the node's span.
The operators' meaning is `semantics`'; constructors are `constructors`', reached through
the door ``ev.construct``; index lookups are `indexes`'.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cfmodel.errors import CfEvaluationError, Note, Span
from cfmodel.grammars import nodes
from cfmodel.plugins import Unknown
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf import semantics as sem
from cfmodel.transforms.cf.refine.errors import Blocked, fail, kind_of, show
from cfmodel.transforms.cf.refine.frames import Frame
from cfmodel.transforms.cf.refine.indexes import index_lookup
from cfmodel.transforms.cf.refine.scheduler import Task
from cfmodel.transforms.cf.refine.values import (
    ATTR,
    Constant,
    EntityInfo,
    FieldInfo,
    Instance,
    ListVar,
    OptVar,
    Slot,
    Value,
    Var,
)

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator

Handler = Callable[["Evaluator", Any, Frame, Task], Value]


class PureTask(Task):
    """The task of evaluations that cannot have side effects (no memo is ever used)."""

    __slots__ = ()

    def run(self, ev: Evaluator) -> None:  # pragma: no cover - never scheduled
        raise AssertionError("not schedulable")

    def where(self) -> Span | None:  # pragma: no cover
        return None

    def describe(self) -> str:  # pragma: no cover
        return "a pure evaluation"


PURE = PureTask()


def evaluate(ev: Evaluator, node: nodes.Expression, frame: Frame, task: Task) -> Value:
    """The value of *node* read in *frame* by *task* (raises `Blocked` to wait)."""
    return HANDLERS[type(node)](ev, node, frame, task)


def _e_literal(ev: Evaluator, node: nodes.Literal, frame: Frame, task: Task) -> Value:
    return node.value


def _e_regex(ev: Evaluator, node: nodes.Regex, frame: Frame, task: Task) -> Value:
    raise fail("a /regex/ is only allowed after 'matching' in a typedef", node.span, "syntax")


def lookup(ev: Evaluator, name: str, frame: Frame, span: Span) -> Slot:
    """The slot a (possibly qualified) variable name means in *frame*."""
    if "::" in name:
        return global_slot(ev, name, frame.ns, span)
    slot = frame.lookup(name)
    if slot is None:
        raise undefined(ev, name, frame, span)
    return slot


def global_slot(ev: Evaluator, name: str, ns: p.LinkedNamespace, span: Span) -> Slot:
    prefix, _, local = name.rpartition("::")
    target = ns.imports.get(prefix)
    if target is None:
        raise fail(
            f"'{prefix}' is not imported in namespace {ns.name} (add 'import {prefix}')",
            span,
            "missing-import",
        )
    frame = ev.globals.get(target)
    if frame is None or local not in frame.declared:
        definition = ns.definition(name)
        if definition is not None:
            raise fail(f"{name} is {kind_of_definition(definition)}, not a value", span, "not-a-value")
        raise fail(f"namespace {target} has no variable '{local}'", span, "undefined")
    return frame.lookup(local) or frame.own(local)


def undefined(ev: Evaluator, name: str, frame: Frame, span: Span) -> CfEvaluationError:
    definition = frame.ns.definition(name)
    if definition is not None:
        return fail(f"{name} is {kind_of_definition(definition)}, not a value", span, "not-a-value")
    return fail(f"name '{name}' is not defined", span, "undefined")


def _e_reference(ev: Evaluator, node: nodes.Reference, frame: Frame, task: Task) -> Value:
    name = node.name.text
    slot = frame.lookup(name) if "::" not in name else None
    if slot is None:
        slot = lookup(ev, name, frame, node.span)
    kind = type(slot)
    if kind is Var or kind is Constant:
        return slot.get()
    return read_slot(slot, node.span)


def read_slot(slot: Slot, span: Span) -> Value:
    try:
        return slot.get()
    except CfEvaluationError as error:
        if error.span is None:
            error.span = span
        raise


def _e_attribute(ev: Evaluator, node: nodes.AttributeAccess, frame: Frame, task: Task) -> Value:
    target_node = node.target
    if type(target_node) is nodes.AttributeAccess:
        # a path a.b.c.…: walked down, not recursed into (its length is not limited by
        # Python's recursion limit)
        path = [node]
        while type(target_node) is nodes.AttributeAccess:
            assert isinstance(target_node, nodes.AttributeAccess)
            path.append(target_node)
            target_node = target_node.target
        value = evaluate(ev, target_node, frame, task)
        for step in reversed(path):
            value = _attribute_of(value, step)
        return value
    return _attribute_of(evaluate(ev, target_node, frame, task), node)


def _attribute_of(target: Value, node: nodes.AttributeAccess) -> Value:
    """``target.name`` of one step of a path."""
    if type(target) is not Instance:
        if isinstance(target, Unknown):
            return target
        raise not_instance(node.name.text, target, node.span)
    slot = target.slot(node.name.text)
    if slot is None:
        raise no_field(target.info, node.name.text, node.name.span)
    if type(slot) is Var:
        return slot.get()
    return read_slot(slot, node.span)


def not_instance(name: str, target: Any, span: Span) -> CfEvaluationError:
    return at(sem.not_an_instance(name, target), span)


def no_field(info: EntityInfo, name: str, span: Span) -> CfEvaluationError:
    """The first line names the close match, if any; the entity's features are a note (at
    most `SHOWN_FEATURES` of them), so the line stays short for an entity with many."""
    names = sorted(info.fields)
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    shown = ", ".join(names[:SHOWN_FEATURES]) or "none"
    if len(names) > SHOWN_FEATURES:
        shown += f", … ({len(names)} in all)"
    return fail(
        f"entity {info.qname} has no attribute or relation '{name}'{hint}",
        span,
        "unknown-attribute",
        [Note(None, f"{info.qname} has: {shown}")],
    )


SHOWN_FEATURES = 20  # features of an entity listed in a message


def _e_interpolation(ev: Evaluator, node: nodes.Interpolation, frame: Frame, task: Task) -> Value:
    out: list[str] = []
    for part in node.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        value = evaluate(ev, part, frame, task)
        if isinstance(value, Unknown):
            return value
        try:
            out.append(sem.to_text(value))
        except sem.SemanticError as error:
            raise at(error, part.span) from None
    return "".join(out)


def _e_fstring(ev: Evaluator, node: nodes.FString, frame: Frame, task: Task) -> Value:
    out: list[str] = []
    for part in node.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        value = evaluate(ev, part.value, frame, task)
        if isinstance(value, Unknown):
            return value
        try:
            out.append(sem.format_field(value, part.conversion, part.format_spec))
        except sem.SemanticError as error:
            raise at(error, node.span) from None
    return "".join(out)


def _e_map_lookup(ev: Evaluator, node: nodes.MapLookup, frame: Frame, task: Task) -> Value:
    target = evaluate(ev, node.target, frame, task)
    key = evaluate(ev, node.key, frame, task)
    if isinstance(target, Unknown) or isinstance(key, Unknown):
        return Unknown(node)
    try:
        found: Value = sem.lookup(target, key)
        return found
    except sem.SemanticError as error:
        raise at(error, node.span, right=node.key.span) from None


def _e_list(ev: Evaluator, node: nodes.ListLiteral, frame: Frame, task: Task) -> Value:
    return sem.list_literal([evaluate(ev, item, frame, task) for item in node.items])


def evaluate_assigned(
    ev: Evaluator, node: nodes.Expression, frame: Frame, task: Task, owner: Instance, field: FieldInfo
) -> Value:
    """The value of *node* assigned to relation *field* of *owner*: a constructor that is the
    value, or an item of a list literal that is, may leave out the index relation whose other
    end this assignment sets (``File(values=[Obj(key="k")])``: each ``Obj``'s ``file``), as in
    inmanta."""
    kind = type(node)
    if kind is nodes.Constructor:
        assert isinstance(node, nodes.Constructor)
        return ev.construct(node, frame, task, (owner, field))
    if kind is nodes.ListLiteral and field.kind != ATTR:
        assert isinstance(node, nodes.ListLiteral)
        items = [evaluate_assigned(ev, item, frame, task, owner, field) for item in node.items]
        return sem.list_literal(items)
    return evaluate(ev, node, frame, task)


def _e_dict(ev: Evaluator, node: nodes.DictLiteral, frame: Frame, task: Task) -> Value:
    return {key: evaluate(ev, value, frame, task) for key, value in node.pairs}


def _e_comprehension(ev: Evaluator, node: nodes.ListComprehension, frame: Frame, task: Task) -> Value:
    result: list[Any] = []
    loops = node.loops
    unknown = False

    def nest(level: int, scope: Frame) -> None:
        nonlocal unknown
        if level == len(loops):
            for guard in node.guards:
                ok = evaluate(ev, guard, scope, task)
                if isinstance(ok, Unknown):
                    unknown = True
                    return
                if type(ok) is not bool:
                    raise fail(
                        f"the condition of a list comprehension must be a bool, not {show(ok)}",
                        guard.span,
                        "type-error",
                    )
                if not ok:
                    return
            value = evaluate(ev, node.value, scope, task)
            result.append(value)
            return
        loop = loops[level]
        items = evaluate(ev, loop.iterable, scope, task)
        if isinstance(items, Unknown):
            unknown = True
            return
        if type(items) is not list:
            raise fail(
                f"a list comprehension iterates a list or a relation, not {kind_of(items)} {show(items)}",
                loop.iterable.span,
                "type-error",
            )
        name = loop.variable.text
        declared = {name: loop.variable.span}
        for item in items:
            inner = Frame(declared, scope, scope.ns)
            var = inner.own(name)
            var.value = item
            var.ready = True
            var.where = loop.variable.span
            nest(level + 1, inner)

    nest(0, frame)
    if unknown:
        return Unknown(node)
    return result


def _e_not(ev: Evaluator, node: nodes.Not, frame: Frame, task: Task) -> Value:
    nots = [node]  # not not … x: walked down, not recursed into
    operand = node.operand
    while type(operand) is nodes.Not:
        assert isinstance(operand, nodes.Not)
        nots.append(operand)
        operand = operand.operand
    value = evaluate(ev, operand, frame, task)
    for current in reversed(nots):
        if isinstance(value, Unknown):
            return value
        try:
            value = sem.negation(value)
        except sem.SemanticError as error:
            raise at(error, current.span) from None
    return value


def _e_conditional(ev: Evaluator, node: nodes.Conditional, frame: Frame, task: Task) -> Value:
    condition = evaluate(ev, node.condition, frame, task)
    if isinstance(condition, Unknown):
        return condition
    try:
        chosen = sem.choice(condition)
    except sem.SemanticError as error:
        raise at(error, node.condition.span) from None
    return evaluate(ev, node.then if chosen else node.otherwise, frame, task)


def _e_is_defined(ev: Evaluator, node: nodes.IsDefined, frame: Frame, task: Task) -> Value:
    target = node.target
    if isinstance(target, nodes.MapLookup):
        mapping = evaluate(ev, target.target, frame, task)
        key = evaluate(ev, target.key, frame, task)
        if isinstance(mapping, Unknown) or isinstance(key, Unknown):
            return Unknown(node)
        try:
            return sem.has_value(mapping, key)
        except sem.SemanticError as error:
            raise at(error, node.span) from None
    if isinstance(target, nodes.AttributeAccess):
        owner = evaluate(ev, target.target, frame, task)
        if isinstance(owner, Unknown):
            return owner
        if type(owner) is not Instance:
            raise not_instance(target.name.text, owner, target.span)
        slot = owner.slot(target.name.text)
        if slot is None:
            raise no_field(owner.info, target.name.text, target.name.span)
    else:
        assert isinstance(target, nodes.Reference)
        slot = lookup(ev, target.name.text, frame, target.span)
    kind = type(slot)
    if kind is ListVar:
        assert isinstance(slot, ListVar)
        if slot.items:
            return True
        if slot.frozen:
            return False
        raise Blocked(slot)
    if kind is OptVar:
        assert isinstance(slot, OptVar)
        if slot.value is not None:
            return True
        if slot.frozen:
            return False
        raise Blocked(slot)
    value = slot.get()
    if isinstance(value, Unknown):
        return value
    if type(value) is list and value and all(isinstance(v, Unknown) for v in value):
        return Unknown(node)
    return sem.is_defined(value)


# -- operators


def _e_binary(ev: Evaluator, node: nodes.BinaryOperation, frame: Frame, task: Task) -> Value:
    """A binary operation. A chain ``a + b + c``, ``x and y and z`` is parsed left-deep: its
    left operands are walked down, not recursed into, and the operators applied on the way
    back up, so a chain's length is not limited by Python's recursion limit (the order of
    evaluation is the same: each left side before its right side)."""
    chain = [node]
    left_node = node.left
    while type(left_node) is nodes.BinaryOperation:
        assert isinstance(left_node, nodes.BinaryOperation)
        chain.append(left_node)
        left_node = left_node.left
    left = evaluate(ev, left_node, frame, task)
    for current in reversed(chain):
        left = _binary_after_left(ev, current, left, frame, task)
    return left


def _binary_after_left(
    ev: Evaluator, node: nodes.BinaryOperation, left: Value, frame: Frame, task: Task
) -> Value:
    """*node*'s value, its left operand's value being *left*."""
    op = node.operator
    if op == "and" or op == "or":
        return _logical(ev, op, node, left, frame, task)
    right = evaluate(ev, node.right, frame, task)
    try:
        if op == "in" or op == "not in":
            result = _contains(left, right, node)
            if isinstance(result, Unknown) or op == "in":
                return result
            return not result
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            return Unknown(node)
        if op == "==":
            return sem.equal(left, right)
        if op == "!=":
            return not sem.equal(left, right)
        if op == "is":
            return _is(ev, node, left, right)
        if op in sem.ORDERINGS:
            return sem.compare(op, left, right)
        computed: Value = sem.arithmetic(op, left, right)
        return computed
    except sem.SemanticError as error:
        raise at(error, node.span, node.left.span, node.right.span) from None


def _logical(
    ev: Evaluator, op: str, node: nodes.BinaryOperation, left: Value, frame: Frame, task: Task
) -> Value:
    """``and`` / ``or``: the right side is evaluated only when the left does not decide."""
    if isinstance(left, Unknown):
        return left
    try:
        decided = sem.logical_operand(op, "left", left) is (op == "or")
    except sem.SemanticError as error:
        raise at(error, node.span, node.left.span, node.right.span) from None
    if decided:
        return left
    right = evaluate(ev, node.right, frame, task)
    if isinstance(right, Unknown):
        return right
    try:
        return sem.logical_operand(op, "right", right)
    except sem.SemanticError as error:
        raise at(error, node.span, node.left.span, node.right.span) from None


def _contains(left: Value, right: Value, node: nodes.BinaryOperation) -> Value:
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return Unknown(node)
    if sem.contains(left, right):
        return True
    if type(right) is list and any(isinstance(item, Unknown) for item in right):
        return Unknown(node)  # not found among the known items: one of the others may be it
    return False


def _is(ev: Evaluator, node: nodes.BinaryOperation, left: Value, right: Value) -> Value:
    if type(left) is not str or type(right) is not str:
        raise fail(
            f"'is' tests enum values (strings), not {show(left)} and {show(right)}",
            node.span,
            "type-error",
        )
    enum = _enum_for(ev, node, left, right)
    if enum is None:
        raise fail(
            f"no enum has both {show(left)} and {show(right)} as values; 'is' tests enum values",
            node.span,
            "type-error",
        )
    return enum.is_a(left, right)


def _enum_for(ev: Evaluator, node: nodes.BinaryOperation, left: str, right: str) -> p.EnumType | None:
    key = id(node)
    if key in ev.enum_cache:
        return ev.enum_cache[key]
    found: list[p.EnumType] = []
    for ns in ev.program.namespaces.values():
        for enum in ns.enums.values():
            if left in enum.values and right in enum.values:
                found.append(enum)
    result = found[0] if len(found) == 1 else None
    if len(found) > 1:
        names = ", ".join(e.qualified_name for e in found)
        raise fail(
            f"'is' is ambiguous: {show(left)} and {show(right)} are values of {names}",
            node.span,
            "type-error",
        )
    ev.enum_cache[key] = result
    return result


def _e_call(ev: Evaluator, node: nodes.FunctionCall, frame: Frame, task: Task) -> Value:
    if task is PURE:  # a default, a typedef condition: nothing to replay
        return ev.plugins.call(node, frame, task)
    memo = task.memo
    pos = task.pos
    if memo is not None and pos < len(memo):
        task.pos = pos + 1
        return memo[pos]
    result = ev.plugins.call(node, frame, task)
    if memo is None:
        task.memo = memo = []
    memo.append(result)
    task.pos += 1
    return result


def _e_index_query(ev: Evaluator, node: nodes.IndexQuery, frame: Frame, task: Task) -> Value:
    entity = frame.ns.lookup_entity(node.entity.text)
    if entity is None:
        raise no_entity(node.entity.text, frame.ns, node.entity.span)
    values: dict[str, Any] = {}
    for argument in node.arguments:
        name = argument.name.text
        if name in values:
            raise fail(f"'{name}' is given twice in the index lookup", argument.span, "bad-query")
        values[name] = evaluate(ev, argument.value, frame, task)
    return index_lookup(ev, ev.infos[entity], values, node.span)


def _e_selector_query(ev: Evaluator, node: nodes.SelectorQuery, frame: Frame, task: Task) -> Value:
    owner = evaluate(ev, node.target, frame, task)
    if isinstance(owner, Unknown):
        return owner
    if type(owner) is not Instance:
        raise not_instance(node.relation.text, owner, node.span)
    field = owner.info.fields.get(node.relation.text)
    if field is None:
        raise no_field(owner.info, node.relation.text, node.relation.span)
    if field.kind == ATTR or field.target is None:
        raise fail(
            f"'{field.name}' of {owner.info.qname} is an attribute; a selector query [k=v] needs a relation",
            node.relation.span,
            "bad-query",
        )
    if field.opposite is None:
        raise fail(
            f"relation '{field.name}' of {owner.info.qname} is unidirectional; a selector query needs "
            "a relation with a name on both ends",
            node.relation.span,
            "bad-query",
        )
    values: dict[str, Any] = {field.opposite: owner}
    for argument in node.arguments:
        name = argument.name.text
        if name in values:
            raise fail(f"'{name}' is given twice in the index lookup", argument.span, "bad-query")
        values[name] = evaluate(ev, argument.value, frame, task)
    return index_lookup(ev, ev.infos[field.target], values, node.span)


def no_entity(name: str, ns: p.LinkedNamespace, span: Span) -> CfEvaluationError:
    definition = ns.definition(name)
    if definition is not None:
        return fail(f"{name} is {kind_of_definition(definition)}, not an entity", span, "not-an-entity")
    return fail(f"no entity named '{name}' is visible in namespace {ns.name}", span, "unknown-entity")


def _e_constructor(ev: Evaluator, node: nodes.Constructor, frame: Frame, task: Task) -> Value:
    return ev.construct(node, frame, task, None)


HANDLERS: dict[type, Handler] = {
    nodes.Literal: _e_literal,
    nodes.Reference: _e_reference,
    nodes.AttributeAccess: _e_attribute,
    nodes.Interpolation: _e_interpolation,
    nodes.FString: _e_fstring,
    nodes.MapLookup: _e_map_lookup,
    nodes.IndexQuery: _e_index_query,
    nodes.SelectorQuery: _e_selector_query,
    nodes.Constructor: _e_constructor,
    nodes.FunctionCall: _e_call,
    nodes.ListLiteral: _e_list,
    nodes.DictLiteral: _e_dict,
    nodes.ListComprehension: _e_comprehension,
    nodes.BinaryOperation: _e_binary,
    nodes.Not: _e_not,
    nodes.IsDefined: _e_is_defined,
    nodes.Conditional: _e_conditional,
    nodes.Regex: _e_regex,
}


def typedef_condition(ev: Evaluator, typedef: p.Typedef, value: Any) -> Any:
    assert typedef.condition is not None
    frame = Frame({}, None, typedef.namespace, selfslot=Constant(value))
    try:
        return evaluate(ev, typedef.condition, frame, PURE)
    except Blocked:
        raise fail(
            f"the condition of typedef {typedef.qualified_name} may only use 'self', constants and plugins",
            typedef.condition.span,
            "bad-typedef",
        ) from None


def is_pure(ev: Evaluator, node: nodes.Expression) -> bool:
    """No constructor or plugin call inside (safe to evaluate out of any task); cached per compile."""
    key = id(node)
    cached = ev.pure_cache.get(key)
    if cached is None:
        cached = ev.pure_cache[key] = _pure(node)
    return cached


def _pure(node: nodes.Expression) -> bool:
    stack: list[nodes.Expression] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, nodes.Constructor | nodes.FunctionCall):
            return False
        stack.extend(nodes.sub_expressions(current))
    return True


def at(
    error: sem.SemanticError, span: Span, left: Span | None = None, right: Span | None = None
) -> CfEvaluationError:
    """The compiler's error for a `SemanticError`: at the operand's span when it is about one."""
    where = left if error.operand == "left" else right if error.operand == "right" else None
    return fail(error.message, where or span, error.code)


def kind_of_definition(definition: object) -> str:
    if isinstance(definition, p.EntityType):
        return "an entity"
    if isinstance(definition, p.Typedef):
        return "a typedef"
    if isinstance(definition, p.EnumType):
        return "an enum"
    if isinstance(definition, p.Implementation):
        return "an implementation"
    return "a definition"
