"""Constructors: ``Entity(k=v, ...)`` makes an instance, or finds the one its index values name.

`plan` checks a constructor call once per compile (the entity, or a constructor typedef's
entity and preset values; each argument an attribute or relation of it, none twice) and
keeps it (``ev.plans``). `construct` evaluates the index attributes first (given, from
``**dict``, preset, injected by the bindings, defaults, or the other end of the relation
being assigned), finds an existing instance with those values or makes a new one,
registers it in the indexes, sets every other argument now or in a task (`assignment`),
then the defaults, and emits the implementations of a new instance. A constructor runs in
a task and is replayed from the task's memo when the task runs again, so the same node in
the same task always gives the same instance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfmodel.errors import CfEvaluationError, Note, Span
from cfmodel.grammars import nodes
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.refine.assignment import assign_expr, set_field
from cfmodel.transforms.cf.refine.errors import Blocked, fail, kind_of, show
from cfmodel.transforms.cf.refine.expressions import PURE, evaluate, no_entity, no_field
from cfmodel.transforms.cf.refine.frames import Frame
from cfmodel.transforms.cf.refine.indexes import find_existing, register
from cfmodel.transforms.cf.refine.scheduler import Task
from cfmodel.transforms.cf.refine.statements import ImplTask, emit_implementation
from cfmodel.transforms.cf.refine.values import ATTR, EntityInfo, FieldInfo, Instance, Value, Var, same_value

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator


class CtorPlan:
    """A constructor call, checked once: the entity, its explicit arguments and presets."""

    __slots__ = ("direct", "explicit", "indirect", "info", "names", "preset")

    def __init__(self, info: EntityInfo) -> None:
        self.info = info
        # explicit keyword arguments: name -> (field, expression, span)
        self.explicit: dict[str, tuple[FieldInfo, nodes.Expression, Span]] = {}
        self.direct: list[str] = sorted(info.index_attrs)
        self.indirect: list[tuple[FieldInfo, nodes.Expression, Span]] = []
        # values from a constructor typedef (typedef T as E(k=v))
        self.preset: dict[str, Any] = {}
        self.names: frozenset[str] = frozenset()


def plan_of(ev: Evaluator, node: nodes.Constructor, ns: p.LinkedNamespace) -> CtorPlan:
    plan = ev.plans.get(id(node))
    if plan is not None:
        return plan
    name = node.entity.text
    definition = ns.definition(name)
    preset: dict[str, Any] = {}
    if isinstance(definition, p.Typedef) and definition.constructor is not None:
        entity = definition.constructor.entity
        typedef_frame = Frame({}, None, definition.namespace)
        info = ev.infos[entity]
        for argument in definition.constructor.arguments:
            if argument.name.text not in info.fields:
                raise no_field(info, argument.name.text, argument.name.span)
            try:
                preset[argument.name.text] = evaluate(ev, argument.value, typedef_frame, PURE)
            except Blocked:
                raise fail(
                    f"the arguments of constructor typedef {definition.qualified_name} must be constants",
                    argument.span,
                    "bad-typedef",
                ) from None
    elif isinstance(definition, p.EntityType):
        entity = definition
    else:
        raise no_entity(name, ns, node.entity.span)
    info = ev.infos[entity]
    plan = CtorPlan(info)
    plan.preset = preset
    for argument in node.arguments:
        arg_name = argument.name.text
        field = info.fields.get(arg_name)
        if field is None:
            raise no_field(info, arg_name, argument.name.span)
        if arg_name in plan.explicit:
            raise fail(
                f"'{arg_name}' is given twice in the constructor of {info.qname}",
                argument.span,
                "duplicate-argument",
            )
        plan.explicit[arg_name] = (field, argument.value, argument.span)
        if arg_name not in info.index_attrs:
            plan.indirect.append((field, argument.value, argument.span))
    plan.names = frozenset(plan.explicit)
    ev.plans[id(node)] = plan
    return plan


def construct(
    ev: Evaluator, node: nodes.Constructor, frame: Frame, task: Task, lhs: tuple[Instance, FieldInfo] | None
) -> Value:
    if task is PURE:
        raise fail("a constructor cannot be used here (only constant values)", node.span, "not-constant")
    memo = task.memo
    pos = task.pos
    if memo is not None and pos < len(memo):
        task.pos = pos + 1
        return memo[pos]
    plan = plan_of(ev, node, frame.ns)
    info = plan.info
    span = node.span
    extra: dict[str, Any] | None = None
    if node.wrapped_kwargs:
        extra = {}
        for wrapped in node.wrapped_kwargs:
            mapping = evaluate(ev, wrapped, frame, task)
            if type(mapping) is not dict:
                raise fail(
                    f"** needs a dict of attribute values, not {kind_of(mapping)} {show(mapping)}",
                    wrapped.span,
                    "type-error",
                )
            for key, value in mapping.items():
                if key in plan.explicit or key in extra:
                    raise fail(
                        f"attribute '{key}' is set twice in the constructor of {info.qname}",
                        wrapped.span,
                        "duplicate-argument",
                    )
                if key not in info.fields:
                    raise no_field(info, str(key), wrapped.span)
                extra[key] = value
    direct: dict[str, Any] = {}
    missing: list[str] | None = None
    for name in plan.direct:
        given = plan.explicit.get(name)
        if given is not None:
            direct[name] = evaluate(ev, given[1], frame, task)
        elif extra is not None and name in extra:
            direct[name] = extra[name]
        elif name in plan.preset:
            direct[name] = plan.preset[name]
        elif missing is None:
            missing = [name]
        else:
            missing.append(name)
    injected: dict[str, tuple[Any, Span]] | None = None
    injection = ev.injection
    if injection is not None and injection.targets_of(info):
        given_names = set(plan.names) | set(plan.preset) | (set(extra) if extra is not None else set())
        injected = injection.parameters(info, given_names, direct, span)
        if missing is not None and any(name in injected for name in missing):
            # an index attribute came from the bindings: Entity[key] bindings may now apply
            direct.update((name, injected[name][0]) for name in missing if name in injected)
            injected = injection.parameters(info, given_names, direct, span)
    if missing is not None:
        for name in missing:
            if injected is not None and name in injected:
                direct[name] = injected[name][0]
            elif name in info.defaults:
                direct[name] = info.defaults[name]
            elif lhs is not None and lhs[1].opposite == name:
                direct[name] = lhs[0]
            else:
                raise missing_index_attribute(info, name, span)
    instance: Instance | None = None
    if info.indexes:
        instance = find_existing(ev, info, direct, span)
    new = instance is None
    if instance is None:
        ev.instance_count += 1
        instance = Instance(info, span, ev.instance_count)
    for name, value in direct.items():
        given = plan.explicit.get(name)
        if given is not None:
            where = given[2]
        elif injected is not None and name in injected:
            where = injected[name][1]
        else:
            where = span
        if not new:
            check_same_as_found(instance, info.fields[name], value, direct, where, span)
        set_field(ev, instance, info.fields[name], value, where)
    if new:
        register(ev, instance)
    for field, expr, arg_span in plan.indirect:
        if not new and type(expr) is nodes.Literal:
            assert isinstance(expr, nodes.Literal)
            check_same_as_found(instance, field, expr.value, direct, arg_span, span)
        assign_expr(ev, instance, field, expr, frame, arg_span)
    if extra is not None:
        for key, value in extra.items():
            if key not in info.index_attrs:
                set_field(ev, instance, info.fields[key], value, span)
    for key, value in plan.preset.items():
        if key not in plan.names and (extra is None or key not in extra) and key not in info.index_attrs:
            set_field(ev, instance, info.fields[key], value, span)
    if injected is not None:
        for key, (value, where) in injected.items():
            if key not in info.index_attrs:
                set_field(ev, instance, info.fields[key], value, where)
    for key, value in info.defaults.items():
        if (
            key not in plan.names
            and key not in plan.preset
            and (extra is None or key not in extra)
            and key not in info.index_attrs
            and (injected is None or key not in injected)
        ):
            if not new:
                check_same_as_found(instance, info.fields[key], value, direct, span, span)
            set_field(ev, instance, info.fields[key], value, span)
    if new:
        emit_implementations(ev, instance)
    if memo is None:
        task.memo = memo = []
    memo.append(instance)
    task.pos += 1
    return instance


def check_same_as_found(
    instance: Instance, field: FieldInfo, value: Any, direct: dict[str, Any], where: Span, span: Span
) -> None:
    """A constructor that found *instance* by its index key must not give an attribute
    another value than the constructor that made it: say so, naming both constructors."""
    slot = instance.slots.get(field.name)
    if type(slot) is not Var or not slot.ready or same_value(slot.value, value):
        return
    info = instance.info
    key = next(
        (
            ", ".join(f"{n}={show(direct[n])}" for n in names)
            for _, names in info.indexes
            if set(names) <= set(direct)
        ),
        "",
    )
    raise fail(
        f"two constructors of {info.qname}[{key}] (one instance, same index key) give attribute "
        f"'{field.name}' different values: {show(slot.value)} and {show(value)}",
        where,
        "double-assignment",
        [
            Note(instance.span, f"the constructor that made it gave {show(slot.value)}"),
            Note(span, f"this constructor gives {show(value)}"),
        ],
    )


def missing_index_attribute(info: EntityInfo, name: str, span: Span) -> CfEvaluationError:
    field = info.fields[name]
    index_text = next(
        f"index {index.entity.qualified_name}({', '.join(names)})"
        for index, names in info.indexes
        if name in names
    )
    kind = "attribute" if field.kind == ATTR else "relation"
    notes = [
        Note(info.indexes[0][0].span if len(info.indexes) == 1 else None, f"{index_text} is defined here")
    ]
    for index, names in info.indexes:
        if name in names:
            notes = [Note(index.span, f"{index_text} is defined here")]
            break
    return fail(
        f"the constructor of {info.qname} must set {kind} '{name}': it is part of {index_text}",
        span,
        "index-attribute-missing",
        notes,
    )


def emit_implementations(ev: Evaluator, instance: Instance) -> None:
    for rule in instance.info.rules:
        if rule.condition is None:
            for implementation in rule.implementations:
                emit_implementation(ev, instance, implementation)
        else:
            ev.sched.queue.append(ImplTask(instance, rule))
