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
        info.rules = rules_of(entity)
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
    """Defaults as the reference compiler computes them: own beat parents', left parent beats right."""
    values: dict[str, nodes.Expression | nodes.Undef] = {}
    for parent in reversed(entity.parents):
        values.update(defaults_of(parent))
    for name, attribute in entity.attributes.items():
        if attribute.default is not None:
            values[name] = attribute.default
    return {k: v for k, v in values.items() if not isinstance(v, nodes.Undef)}


def rules_of(entity: p.EntityType) -> list[p.ImplementRule]:
    rules: list[p.ImplementRule] = []
    inherit = False
    for rule in entity.implements:
        if rule.implementations:
            rules.append(rule)
        if rule.using_parents:
            inherit = True
    if inherit:
        for parent in entity.parents:
            for rule in rules_of(parent):
                if rule not in rules:
                    rules.append(rule)
    return rules
