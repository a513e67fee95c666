"""Statements and the tasks that run them.

A block is emitted by queueing one `StmtTask` per statement (docstrings are skipped).
Tasks:

* `StmtTask`: an assignment, an expression statement, ``if``, ``for``, ``include``.
* `AttrTask`: one constructor argument that could not be evaluated on the spot.
* `ImplTask`: the condition of an ``implement … when`` for one instance.
* `PromiseTask`: an eager promise (below); never reported when left waiting.

Relations are filled gradually; one is complete when nothing that could still add to
it can run. Statements that are about to add announce it: an assignment to a
relation holds a *promise* on it from the moment its target instance is known until
its value is added; an ``if`` or ``for`` holds promises, for every assignment to an
outer variable's relation inside its blocks, until it has emitted them (a gradual
``for`` over a relation: until that relation is complete). The scheduler does not
complete a promised relation unless everything waits on promised relations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfmodel.errors import Note, Span
from cfmodel.grammars import nodes
from cfmodel.plugins import Unknown
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.refine.errors import Blocked, fail, kind_of, show
from cfmodel.transforms.cf.refine.expressions import evaluate_assigned
from cfmodel.transforms.cf.refine.frames import Declared, Frame
from cfmodel.transforms.cf.refine.scheduler import Scheduler, Task
from cfmodel.transforms.cf.refine.values import (
    ATTR,
    MANY,
    OPT,
    Constant,
    FieldInfo,
    Instance,
    Listener,
    ListVar,
    OptVar,
    Slot,
    Var,
)

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator

PromiseTarget = tuple[str, tuple[str, ...], str]


# ---------------------------------------------------------------- emitting blocks


def emit_block(ev: Evaluator, statements: list[nodes.Statement], frame: Frame) -> None:
    queue = ev.sched.queue
    for statement in statements:
        kind = type(statement)
        if kind is nodes.ExpressionStatement:
            assert isinstance(statement, nodes.ExpressionStatement)
            if type(statement.value) is nodes.Literal and statement.anonymous is None:
                continue  # a docstring
            queue.append(StmtTask(statement, frame, None))
        elif kind is nodes.If or kind is nodes.For:
            assert isinstance(statement, nodes.If | nodes.For)
            queue.append(StmtTask(statement, frame, _promises_for(ev, statement, frame)))
        else:
            queue.append(StmtTask(statement, frame, None))


def emit_implementation(ev: Evaluator, instance: Instance, implementation: p.Implementation) -> None:
    impls = instance.impls
    if impls is None:
        instance.impls = impls = []
    elif implementation in impls:
        return
    impls.append(implementation)
    if implementation.statements:
        ns = implementation.namespace
        frame = Frame(ev.declared_in(implementation.statements), ev.globals[ns.name], ns, instance)
        emit_block(ev, implementation.statements, frame)


def emit_anonymous(
    ev: Evaluator, value: Any, statements: list[nodes.Statement], frame: Frame, span: Span
) -> None:
    """An implementation block written after a constructor: it refines that one instance."""
    if type(value) is not Instance:
        raise fail(
            f"an anonymous implementation block needs an entity instance, not {kind_of(value)} {show(value)}",
            span,
            "type-error",
        )
    impls = value.impls
    if impls is None:
        value.impls = impls = []
    impls.append(("anonymous", id(statements)))
    emit_block(ev, statements, Frame(ev.declared_in(statements), frame, frame.ns, value))


# ---------------------------------------------------------------- promises


class Promises:
    """The promises one ``if``/``for`` holds on relations until its blocks are emitted."""

    __slots__ = ("done", "slots")

    def __init__(self) -> None:
        self.done = False
        self.slots: list[ListVar | OptVar] = []

    def release(self, sched: Scheduler) -> None:
        if self.done:
            return
        self.done = True
        slots = self.slots
        self.slots = []
        for slot in slots:
            slot.release(sched)


def _promises_for(ev: Evaluator, statement: nodes.If | nodes.For, frame: Frame) -> Promises | None:
    targets = promise_targets(ev, statement)
    if not targets:
        return None
    holder = Promises()
    queue = ev.sched.queue
    for root, path, attribute in targets:
        queue.append(PromiseTask(holder, frame, root, path, attribute))
    return holder


def promise_targets(ev: Evaluator, statement: nodes.If | nodes.For) -> list[PromiseTarget]:
    """Assignments to relations of outer variables inside the blocks of *statement* (cached per compile)."""
    cached = ev.promise_targets.get(id(statement))
    if cached is not None:
        return cached
    targets: list[PromiseTarget] = []
    if isinstance(statement, nodes.If):
        for branch in statement.branches:
            targets.extend(_block_targets(ev, branch.statements, ()))
        if statement.else_statements:
            targets.extend(_block_targets(ev, statement.else_statements, ()))
    else:
        targets.extend(_block_targets(ev, statement.statements, (statement.variable.text,)))
    unique = ev.promise_targets[id(statement)] = list(dict.fromkeys(targets))
    return unique


def _block_targets(
    ev: Evaluator, statements: list[nodes.Statement], extra: tuple[str, ...]
) -> list[PromiseTarget]:
    declared = ev.declared_in(statements)
    found: list[PromiseTarget] = []
    for statement in statements:
        if isinstance(statement, nodes.Assignment) and isinstance(statement.target, nodes.AttributeAccess):
            chain = _chain(statement.target)
            if chain is not None:
                found.append(chain)
        elif isinstance(statement, nodes.If | nodes.For):
            found.extend(promise_targets(ev, statement))
    return [t for t in found if t[0] not in declared and t[0] not in extra]


def _chain(target: nodes.AttributeAccess) -> PromiseTarget | None:
    names: list[str] = [target.name.text]
    current: nodes.Expression = target.target
    while isinstance(current, nodes.AttributeAccess):
        names.append(current.name.text)
        current = current.target
    if not isinstance(current, nodes.Reference):
        return None
    names.reverse()
    return (current.name.text, tuple(names[:-1]), names[-1])


class PromiseTask(Task):
    """Find the relation an ``if``/``for`` may add to, and promise it."""

    __slots__ = ("attribute", "frame", "holder", "path", "root")

    def __init__(
        self, holder: Promises, frame: Frame, root: str, path: tuple[str, ...], attribute: str
    ) -> None:
        self.memo = None
        self.pos = 0
        self.holder = holder
        self.frame = frame
        self.root = root
        self.path = path
        self.attribute = attribute

    def run(self, ev: Evaluator) -> None:
        holder = self.holder
        if holder.done:
            return
        if "::" in self.root:
            try:
                slot: Slot | None = ev.global_slot(self.root, self.frame.ns, Span("", 0, 0, 0, 0))
            except Exception:
                return
        else:
            slot = self.frame.lookup(self.root)
        value = _promise_read(slot)
        for name in self.path:
            if type(value) is not Instance:
                return
            value = _promise_read(value.slot(name))
        if type(value) is not Instance:
            return
        target = value.slot(self.attribute)
        if (type(target) is ListVar or type(target) is OptVar) and not holder.done:
            assert isinstance(target, ListVar | OptVar)
            if not target.frozen:
                target.promises += 1
                holder.slots.append(target)

    def where(self) -> Span | None:
        return None

    def describe(self) -> str:
        return "a promise"

    @property
    def reportable(self) -> bool:
        return False


def _promise_read(slot: Slot | None) -> Any:
    if slot is None:
        return None
    kind = type(slot)
    if kind is Var or kind is Constant:
        return slot.get()  # may block: waits for the instance to be known
    if kind is OptVar:
        assert isinstance(slot, OptVar)
        return slot.value if slot.frozen else None
    return None


# ---------------------------------------------------------------- statement tasks


class StmtTask(Task):
    """One statement of a block, in its frame."""

    __slots__ = ("frame", "holder", "promised", "stmt")

    def __init__(self, stmt: nodes.Statement, frame: Frame, holder: Promises | None) -> None:
        self.memo = None
        self.pos = 0
        self.stmt = stmt
        self.frame = frame
        self.holder = holder
        self.promised: ListVar | OptVar | None = None

    def run(self, ev: Evaluator) -> None:
        _RUNNERS[type(self.stmt)](ev, self)

    def where(self) -> Span | None:
        return self.stmt.span

    def describe(self) -> str:
        stmt = self.stmt
        if isinstance(stmt, nodes.Assignment):
            target = stmt.target
            if isinstance(target, nodes.Reference):
                return f"the assignment to '{target.name.text}'"
            if isinstance(target, nodes.AttributeAccess):
                return f"the assignment to '{_text(target)}'"
        if isinstance(stmt, nodes.For):
            return f"the 'for {stmt.variable.text} in ...' loop"
        if isinstance(stmt, nodes.If):
            return "the 'if' statement"
        if isinstance(stmt, nodes.Include):
            return f"'include {stmt.implementation.text}'"
        return "the statement"


def _text(expr: nodes.Expression) -> str:
    if isinstance(expr, nodes.Reference):
        return expr.name.text
    if isinstance(expr, nodes.AttributeAccess):
        return f"{_text(expr.target)}.{expr.name.text}"
    return "..."


def _run_assignment(ev: Evaluator, task: StmtTask) -> None:
    stmt = task.stmt
    assert isinstance(stmt, nodes.Assignment)
    frame = task.frame
    target = stmt.target
    if type(target) is nodes.Reference:
        assert isinstance(target, nodes.Reference)
        name = target.name.text
        if "::" in name:
            raise fail(
                f"cannot assign to '{name}': a namespace's variables are set in that namespace",
                target.span,
                "bad-assignment",
            )
        if stmt.append:
            raise fail(
                f"'+=' adds to a relation (x.relation += value); '{name}' is a variable",
                stmt.span,
                "bad-assignment",
            )
        value = ev.eval(stmt.value, frame, task)
        if stmt.anonymous is not None:
            emit_anonymous(ev, value, stmt.anonymous, frame, stmt.value.span)
        frame.own(name).set(ev.sched, value, stmt.span)
        return
    if type(target) is not nodes.AttributeAccess:
        raise fail("only a variable or an attribute (x.a) can be assigned to", target.span, "bad-assignment")
    assert isinstance(target, nodes.AttributeAccess)
    owner = ev.eval(target.target, frame, task)
    name = target.name.text
    if type(owner) is not Instance:
        if isinstance(owner, Unknown):
            return
        raise fail(
            f"cannot set '{name}' of {kind_of(owner)} {show(owner)}: it is not an entity instance",
            target.span,
            "type-error",
        )
    field = owner.info.fields.get(name)
    if field is None:
        raise ev.no_field(owner.info, name, target.name.span)
    kind = field.kind
    if stmt.append and kind != MANY:
        raise fail(
            f"'+=' adds to a relation with more than one value; '{name}' of {owner.info.qname} is "
            + ("an attribute" if kind == ATTR else f"a relation {field.multiplicity}"),
            stmt.span,
            "bad-assignment",
        )
    if kind in (MANY, OPT) and task.promised is None:
        slot = owner.slot(name)
        assert isinstance(slot, ListVar | OptVar)
        if not slot.frozen:
            slot.promises += 1
            task.promised = slot
    value_node = stmt.value
    if kind == MANY and type(value_node) is nodes.AttributeAccess and stmt.anonymous is None:
        assert isinstance(value_node, nodes.AttributeAccess)
        if _forward(ev, task, owner, field, value_node, frame, task.promised, stmt.span):
            task.promised = None
            return
        value = ev.eval(value_node, frame, task)
    else:
        value = evaluate_assigned(ev, value_node, frame, task, owner, field)
    if stmt.anonymous is not None:
        emit_anonymous(ev, value, stmt.anonymous, frame, value_node.span)
    ev.set_field(owner, field, value, stmt.span)
    if task.promised is not None:
        promised = task.promised
        task.promised = None
        promised.release(ev.sched)


def _forward(
    ev: Evaluator,
    task: Task,
    owner: Instance,
    field: FieldInfo,
    source: nodes.AttributeAccess,
    frame: Frame,
    promised: ListVar | OptVar | None,
    span: Span,
) -> bool:
    """``x.rel = y.other``: pass y.other's values on as they come (gradual execution)."""
    source_owner = ev.eval(source.target, frame, task)
    if type(source_owner) is not Instance:
        return False
    slot = source_owner.slot(source.name.text)
    if type(slot) is not ListVar:
        return False
    assert isinstance(slot, ListVar)
    slot.listen(ev.sched, ForwardListener(ev, owner, field, span, promised))
    return True


class ForwardListener(Listener):
    __slots__ = ("ev", "field", "holds_promises", "owner", "promised", "span")

    def __init__(
        self, ev: Evaluator, owner: Instance, field: FieldInfo, span: Span, promised: ListVar | OptVar | None
    ) -> None:
        self.ev = ev
        self.owner = owner
        self.field = field
        self.span = span
        self.promised = promised
        self.holds_promises = promised is not None

    @property
    def may_hold_promises(self) -> bool:  # type: ignore[override]
        return self.promised is not None

    def receive(self, sched: Scheduler, value: Instance) -> None:
        self.ev.set_field(self.owner, self.field, value, self.span)

    def complete(self, sched: Scheduler) -> None:
        if self.promised is not None:
            promised = self.promised
            self.promised = None
            self.holds_promises = False
            promised.release(sched)


def _run_expression(ev: Evaluator, task: StmtTask) -> None:
    stmt = task.stmt
    assert isinstance(stmt, nodes.ExpressionStatement)
    value = ev.eval(stmt.value, task.frame, task)
    if stmt.anonymous is not None:
        emit_anonymous(ev, value, stmt.anonymous, task.frame, stmt.value.span)


def _run_if(ev: Evaluator, task: StmtTask) -> None:
    stmt = task.stmt
    assert isinstance(stmt, nodes.If)
    frame = task.frame
    chosen: list[nodes.Statement] | None = stmt.else_statements
    for branch in stmt.branches:
        condition = ev.eval(branch.condition, frame, task)
        if isinstance(condition, Unknown):
            chosen = None
            break
        if type(condition) is not bool:
            raise fail(
                f"the condition of 'if' must be a bool, not {kind_of(condition)} {show(condition)}",
                branch.condition.span,
                "type-error",
            )
        if condition:
            chosen = branch.statements
            break
    if chosen:
        emit_block(ev, chosen, Frame(ev.declared_in(chosen), frame, frame.ns))
    if task.holder is not None:
        task.holder.release(ev.sched)


def _loop_declared(ev: Evaluator, stmt: nodes.For) -> Declared:
    """The loop variable and the body's variables (cached per compile)."""
    declared = ev.loop_scopes.get(id(stmt))
    if declared is None:
        declared = ev.loop_scopes[id(stmt)] = dict(ev.declared_in(stmt.statements))
        declared[stmt.variable.text] = stmt.variable.span
    return declared


def emit_loop_body(ev: Evaluator, stmt: nodes.For, frame: Frame, item: Any) -> None:
    body = Frame(_loop_declared(ev, stmt), frame, frame.ns)
    var = body.own(stmt.variable.text)
    var.value = item
    var.ready = True
    var.where = stmt.variable.span
    if stmt.statements:
        emit_block(ev, stmt.statements, body)


class ForListener(Listener):
    """A ``for`` over a relation: runs the body for each value as it arrives."""

    __slots__ = ("ev", "frame", "holder", "stmt")

    def __init__(self, ev: Evaluator, stmt: nodes.For, frame: Frame, holder: Promises | None) -> None:
        self.ev = ev
        self.stmt = stmt
        self.frame = frame
        self.holder = holder

    @property
    def holds_promises(self) -> bool:
        return self.holder is not None and bool(self.holder.slots)

    @property
    def may_hold_promises(self) -> bool:  # type: ignore[override]
        return self.holder is not None

    def receive(self, sched: Scheduler, value: Instance) -> None:
        emit_loop_body(self.ev, self.stmt, self.frame, value)

    def complete(self, sched: Scheduler) -> None:
        if self.holder is not None:
            self.holder.release(sched)


def _run_for(ev: Evaluator, task: StmtTask) -> None:
    stmt = task.stmt
    assert isinstance(stmt, nodes.For)
    frame = task.frame
    iterable = stmt.iterable
    if type(iterable) is nodes.AttributeAccess:
        assert isinstance(iterable, nodes.AttributeAccess)
        owner = ev.eval(iterable.target, frame, task)
        if type(owner) is Instance:
            slot = owner.slot(iterable.name.text)
            if type(slot) is ListVar:
                assert isinstance(slot, ListVar)
                slot.listen(ev.sched, ForListener(ev, stmt, frame, task.holder))
                return
    items = ev.eval(iterable, frame, task)
    if not isinstance(items, Unknown):
        if type(items) is not list:
            raise fail(
                f"'for' iterates a list or a relation, not {kind_of(items)} {show(items)}",
                iterable.span,
                "type-error",
            )
        for item in items:
            emit_loop_body(ev, stmt, frame, item)
    if task.holder is not None:
        task.holder.release(ev.sched)


def _run_include(ev: Evaluator, task: StmtTask) -> None:
    stmt = task.stmt
    assert isinstance(stmt, nodes.Include)
    frame: Frame | None = task.frame
    while frame is not None and frame.instance is None:
        frame = frame.parent
    if frame is None or frame.instance is None:
        raise fail("'include' is only allowed in an implementation block", stmt.span, "bad-include")
    instance = frame.instance
    definition = task.frame.ns.definition(stmt.implementation.text)
    if not isinstance(definition, p.Implementation):
        raise fail(
            f"no implementation named '{stmt.implementation.text}' is visible here",
            stmt.implementation.span,
            "unknown-implementation",
        )
    if definition.entity not in instance.info.ancestors:
        raise fail(
            f"implementation {definition.qualified_name} is for {definition.entity.qualified_name}; "
            f"it cannot refine {instance}",
            stmt.implementation.span,
            "implementation-mismatch",
        )
    emit_implementation(ev, instance, definition)


_RUNNERS = {
    nodes.Assignment: _run_assignment,
    nodes.ExpressionStatement: _run_expression,
    nodes.If: _run_if,
    nodes.For: _run_for,
    nodes.Include: _run_include,
}


# ---------------------------------------------------------------- constructor arguments


class AttrTask(Task):
    """One constructor argument (not part of an index), evaluated once it can be."""

    __slots__ = ("expr", "field", "frame", "instance", "promised", "span")

    def __init__(
        self, instance: Instance, field: FieldInfo, expr: nodes.Expression, frame: Frame, span: Span
    ) -> None:
        self.memo = None
        self.pos = 0
        self.instance = instance
        self.field = field
        self.expr = expr
        self.frame = frame
        self.span = span
        self.promised: ListVar | OptVar | None = None

    def run(self, ev: Evaluator) -> None:
        field = self.field
        kind = field.kind
        if kind in (MANY, OPT) and self.promised is None:
            slot = self.instance.slot(field.name)
            assert isinstance(slot, ListVar | OptVar)
            if not slot.frozen:
                slot.promises += 1
                self.promised = slot
        expr = self.expr
        if kind == MANY and type(expr) is nodes.AttributeAccess:
            assert isinstance(expr, nodes.AttributeAccess)
            if _forward(ev, self, self.instance, field, expr, self.frame, self.promised, self.span):
                self.promised = None
                return
        value = evaluate_assigned(ev, expr, self.frame, self, self.instance, field)
        ev.set_field(self.instance, field, value, self.span)
        if self.promised is not None:
            promised = self.promised
            self.promised = None
            promised.release(ev.sched)

    def where(self) -> Span | None:
        return self.span

    def describe(self) -> str:
        return f"the argument '{self.field.name}' of the constructor of {self.instance}"


class ImplTask(Task):
    """``implement E using i when c`` for one instance: evaluate c, then refine."""

    __slots__ = ("instance", "rule")

    def __init__(self, instance: Instance, rule: p.ImplementRule) -> None:
        self.memo = None
        self.pos = 0
        self.instance = instance
        self.rule = rule

    def run(self, ev: Evaluator) -> None:
        rule = self.rule
        assert rule.condition is not None
        ns = rule.namespace
        frame = Frame({}, ev.globals[ns.name], ns, self.instance)
        condition = ev.eval(rule.condition, frame, self)
        if isinstance(condition, Unknown):
            return
        if type(condition) is not bool:
            raise fail(
                f"the condition of 'implement {rule.entity.qualified_name}' must be a bool, not "
                f"{kind_of(condition)} {show(condition)} (for {self.instance})",
                rule.condition.span,
                "type-error",
                [Note(self.instance.span, "the instance was created here")],
            )
        if condition:
            for implementation in rule.implementations:
                emit_implementation(ev, self.instance, implementation)

    def where(self) -> Span | None:
        return self.rule.condition.span if self.rule.condition is not None else self.rule.span

    def describe(self) -> str:
        names = ", ".join(i.name for i in self.rule.implementations)
        return f"the condition of 'implement {self.rule.entity.name} using {names}' for {self.instance}"


__all__ = [
    "AttrTask",
    "Blocked",
    "ImplTask",
    "PromiseTask",
    "StmtTask",
    "emit_block",
    "emit_implementation",
]
