"""The entity table of a compile: one `EntityInfo` per entity of the program.

After `build_entities`, ``ev.infos`` maps every entity to its `EntityInfo`: its fields
(attributes and relation ends with their kind and type check), the fields a new instance
must get a value for, its indexes (inherited ones included, each once) and index
attributes, the implement rules that apply (``using parents`` followed), and its default
values — evaluated once, as constants (a default that is not one is a ``bad-default``),
with the reference compiler's precedence (own beat parents', the left parent beats the
right).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cfmodel.grammars import nodes
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.refine.errors import Blocked, fail
from cfmodel.transforms.cf.refine.expressions import PURE, evaluate
from cfmodel.transforms.cf.refine.frames import Frame
from cfmodel.transforms.cf.refine.typecheck import fast_check
from cfmodel.transforms.cf.refine.values import ATTR, MANY, ONE, OPT, EntityInfo, FieldInfo, Value

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator


def build_entities(ev: Evaluator) -> None:
    for entity in ev.program.entities():
        ev.infos[entity] = EntityInfo(entity)
    rule_lists: dict[int, list[p.ImplementRule]] = {}
    for entity, info in ev.infos.items():
        for name, attribute in entity.all_attributes.items():
            info.fields[name] = field = FieldInfo(name, ATTR, info, attribute=attribute)
            field.fast = fast_check(attribute.type)
            info.required.append(field)
        for name, relation in entity.all_relations.items():
            if relation.lower == 1 and relation.upper == 1:
                kind = ONE
            elif relation.lower == 0 and relation.upper == 1:
                kind = OPT
            else:
                kind = MANY
            info.fields[name] = field = FieldInfo(name, kind, info, relation=relation)
            if kind == ONE or (kind == MANY and relation.lower > 0):
                info.required.append(field)
        seen: set[int] = set()
        for index in entity.all_indexes:
            if id(index) not in seen:
                seen.add(id(index))
                info.indexes.append((index, tuple(index.attributes)))
        info.index_attrs = frozenset(name for _, names in info.indexes for name in names)
        info.rules = rules_of(entity, rule_lists)
    for info in ev.infos.values():
        info.defaults = {
            name: default_value(ev, info, name, expr) for name, expr in defaults_of(info.entity).items()
        }


def default_value(ev: Evaluator, info: EntityInfo, name: str, expr: nodes.Expression) -> Value:
    frame = Frame({}, None, info.entity.namespace)
    try:
        value = evaluate(ev, expr, frame, PURE)
    except Blocked:
        raise fail(
            f"the default value of attribute '{name}' of {info.qname} must be a constant",
            expr.span,
            "bad-default",
        ) from None
    return value


def defaults_of(entity: p.EntityType) -> dict[str, nodes.Expression]:
    """Defaults as the reference compiler computes them (`EntityType.defaults`)."""
    return entity.defaults()


def rules_of(
    entity: p.EntityType, memo: dict[int, list[p.ImplementRule]] | None = None
) -> list[p.ImplementRule]:
    """The implement rules that apply to *entity*: its own, then (``using parents``) its
    parents' rules in order, each rule once. Computed for the ancestors first with an
    explicit stack (the depth of a hierarchy is not limited by Python's recursion limit);
    *memo* keeps each entity's list for the next call."""
    memo = {} if memo is None else memo
    stack: list[tuple[p.EntityType, bool]] = [(entity, False)]
    while stack:
        current, parents_done = stack.pop()
        if id(current) in memo:
            continue
        inherit = any(rule.using_parents for rule in current.implements)
        if inherit and not parents_done:
            stack.append((current, True))
            stack.extend((parent, False) for parent in current.parents if id(parent) not in memo)
            continue
        rules = [rule for rule in current.implements if rule.implementations]
        if inherit:
            seen = {id(rule) for rule in rules}
            for parent in current.parents:
                for rule in memo[id(parent)]:
                    if id(rule) not in seen:
                        seen.add(id(rule))
                        rules.append(rule)
        memo[id(current)] = rules
    return memo[id(entity)]
