"""Assignment to slots: an attribute or a relation end of an instance gets a value.

`set_field` checks the value against the attribute's type (a fast check per field, else
the type checker with typedef conditions) or the relation's target entity, and sets the
slot: an attribute or a ``[1]``/``[0:1]`` relation once (a second, different value is a
``double-assignment``), a ``[n:m]`` relation by adding each value (a list adds each item;
null freezes it empty). A bidirectional relation is set on both ends (`bind_back`, no
recursion). `assign_expr` sets a field to an expression: at once when the expression is
pure and its value known, else in an `AttrTask` that runs when it can.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfmodel.errors import Span
from cfmodel.grammars import nodes
from cfmodel.plugins import Unknown
from cfmodel.transforms.cf.refine.errors import Blocked, fail, show
from cfmodel.transforms.cf.refine.expressions import PURE, evaluate, is_pure
from cfmodel.transforms.cf.refine.frames import Frame
from cfmodel.transforms.cf.refine.statements import AttrTask
from cfmodel.transforms.cf.refine.typecheck import check_entity
from cfmodel.transforms.cf.refine.values import ATTR, MANY, ONE, FieldInfo, Instance, ListVar, OptVar, Var

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator


def assign_expr(
    ev: Evaluator, instance: Instance, field: FieldInfo, expr: nodes.Expression, frame: Frame, span: Span
) -> None:
    """Set *field* of *instance* to *expr*, now if it can be evaluated, else in a task."""
    if type(expr) is nodes.Literal:
        set_field(ev, instance, field, expr.value, span)
        return
    if is_pure(ev, expr):
        try:
            value = evaluate(ev, expr, frame, PURE)
        except Blocked:
            pass
        else:
            set_field(ev, instance, field, value, span)
            return
    ev.sched.queue.append(AttrTask(instance, field, expr, frame, span))


def set_field(ev: Evaluator, instance: Instance, field: FieldInfo, value: Any, span: Span) -> None:
    """Assign *value* to an attribute or relation (relations: append, both ends)."""
    kind = field.kind
    slot = instance.slots.get(field.name)
    if slot is None:
        slot = instance.slot(field.name)
        assert slot is not None
    if kind == ATTR:
        assert field.type is not None and isinstance(slot, Var)
        fast = field.fast
        if fast is None or not fast(value):
            value = ev.checker.check(
                field.type, value, span, lambda: f"attribute '{field.name}' of {instance}"
            )
        slot.set(ev.sched, value, span)
        return
    if kind == MANY:
        assert isinstance(slot, ListVar)
        if value is None:
            if slot.items:
                raise fail(
                    f"relation '{field.name}' of {instance} cannot be set to null: it already holds "
                    f"{show(slot.items)}",
                    span,
                    "double-assignment",
                )
            if not slot.frozen:
                slot.where = span
                slot.freeze(ev.sched)
            return
        if type(value) is list:
            for item in value:
                set_field(ev, instance, field, item, span)
            return
        if isinstance(value, Unknown):
            return
        assert field.target is not None
        target = (
            value
            if type(value) is Instance and field.target in value.info.ancestors
            else check_entity(
                field.target, value, span, lambda: f"a value of relation '{field.name}' of {instance}"
            )
        )
        if slot.add(ev.sched, target, span) and field.opposite is not None:
            bind_back(ev, target, field.opposite, instance, span)
        return
    if isinstance(value, Unknown):
        return
    if type(value) is list:
        if len(value) == 1:
            value = value[0]
        else:
            raise fail(
                f"relation '{field.name}' {field.multiplicity} of {instance} holds one value, "
                f"not a list of {len(value)}",
                span,
                "type-error",
            )
    if kind == ONE:
        assert isinstance(slot, Var)
        if value is None:
            raise fail(f"relation '{field.name}' [1] of {instance} cannot be null", span, "type-error")
        assert field.target is not None
        target = check_entity(field.target, value, span, lambda: f"relation '{field.name}' of {instance}")
        if slot.ready:
            if slot.value is target:
                return
            raise slot.double(target, span)
        slot.set(ev.sched, target, span)
        if field.opposite is not None:
            bind_back(ev, target, field.opposite, instance, span)
        return
    assert isinstance(slot, OptVar)
    if value is None:
        slot.set(ev.sched, None, span)
        return
    assert field.target is not None
    target = check_entity(field.target, value, span, lambda: f"relation '{field.name}' of {instance}")
    if slot.set(ev.sched, target, span) and field.opposite is not None:
        bind_back(ev, target, field.opposite, instance, span)


def bind_back(ev: Evaluator, target: Instance, name: str, source: Instance, span: Span) -> None:
    """The other end of a bidirectional relation (no recursion)."""
    field = target.info.fields[name]
    kind = field.kind
    if kind == ATTR:
        raise fail(
            f"{source} cannot be added to relation end '{name}' of {target}: {target.info.qname} hides "
            f"that inherited relation end with its attribute '{name}'",
            span,
            "bad-assignment",
        )
    slot = target.slot(name)
    if kind == MANY:
        assert isinstance(slot, ListVar)
        slot.add(ev.sched, source, span)
    elif kind == ONE:
        assert isinstance(slot, Var)
        if slot.ready:
            if slot.value is not source:
                raise slot.double(source, span)
            return
        slot.set(ev.sched, source, span)
    else:
        assert isinstance(slot, OptVar)
        slot.set(ev.sched, source, span)
