"""Indexes: the tables that find an instance by its index attributes, and lookups in them.

`register` enters a new instance in the table of every index of its entity and its
parents (two instances with the same key are an ``index-conflict``) and wakes the lookups
that waited for it; `find_existing` is what a constructor calls first (an instance with the
same index values is the one the constructor means); `index_lookup` answers ``E[k=v]`` and
``x.rel[k=v]``, or waits (`IndexWait`) until such an instance exists. The tables are the
compile's (``ev.index_tables``, ``ev.index_waits``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfmodel.errors import Note, Span
from cfmodel.plugins import Unknown
from cfmodel.references import is_reference
from cfmodel.transforms.cf.refine.errors import Blocked, fail, show
from cfmodel.transforms.cf.refine.values import (
    Constant,
    EntityInfo,
    IndexWait,
    Instance,
    ListVar,
    OptVar,
    Slot,
    Value,
    Var,
    index_key_part,
)

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator


def index_lookup(ev: Evaluator, info: EntityInfo, values: dict[str, Value], span: Span) -> Value:
    names = set(values)
    for position, (_, attributes) in enumerate(info.indexes):
        if set(attributes) != names:
            continue
        if any(isinstance(v, Unknown) for v in values.values()):
            return Unknown(span)
        key = tuple(index_key_part(values[a]) for a in attributes)
        table_key = (id(info), position)
        table = ev.index_tables.get(table_key)
        found = table.get(key) if table is not None else None
        if found is not None:
            return found
        waits = ev.index_waits.setdefault(table_key, {})
        entry = waits.get(key)
        if entry is None:
            text = ", ".join(f"{a}={show(values[a])}" for a in attributes)
            entry = waits[key] = (IndexWait(info.qname, text), span)
        raise Blocked(entry[0])
    indexes = "; ".join(f"{info.qname}({', '.join(a)})" for _, a in info.indexes) or "none"
    raise fail(
        f"no index of {info.qname} has exactly the attributes {', '.join(sorted(names))} "
        f"(indexes: {indexes})",
        span,
        "no-index",
    )


def find_existing(ev: Evaluator, info: EntityInfo, direct: dict[str, Any], span: Span) -> Instance | None:
    found: Instance | None = None
    for position, (_, names) in enumerate(info.indexes):
        values = [direct[n] for n in names]
        if not _KEY_TYPES.issuperset(map(type, values)) and _unindexable(info, names, values, span):
            continue  # an unknown key matches no other instance (inmanta)
        key = tuple(index_key_part(v) for v in values)
        table = ev.index_tables.get((id(info), position))
        hit = table.get(key) if table is not None else None
        if hit is None:
            continue
        if hit.info is not info:
            raise fail(
                f"{info.qname}({key_text(names, values)}) matches an existing {hit}, "
                f"which is a {hit.info.qname}, not a {info.qname}",
                span,
                "index-conflict",
                [Note(hit.span, "the existing instance was created here")],
            )
        if found is not None and found is not hit:
            raise fail(
                f"the index attributes of this {info.qname} match two different instances: {found} and {hit}",
                span,
                "index-collision",
                [
                    Note(found.span, "the first was created here"),
                    Note(hit.span, "the second was created here"),
                ],
            )
        found = hit
    return found


def register(ev: Evaluator, instance: Instance) -> None:
    info = instance.info
    info.instances.append(instance)
    ev.instances.append(instance)
    for entity in info.entity.mro:
        owner = ev.infos[entity]
        if entity is not info.entity:
            owner.count += 1
        for position, (index, names) in enumerate(owner.indexes):
            values = []
            for name in names:
                slot = instance.slots.get(name)
                values.append(slot_value(slot))
            if not _KEY_TYPES.issuperset(map(type, values)) and _unindexable(
                owner, names, values, instance.span
            ):
                continue  # not in this index: no lookup can name an unknown key
            key = tuple(index_key_part(v) for v in values)
            table_key = (id(owner), position)
            table = ev.index_tables.get(table_key)
            if table is None:
                table = ev.index_tables[table_key] = {}
            existing = table.get(key)
            if existing is not None and existing is not instance:
                raise fail(
                    f"duplicate key in index {owner.qname}({', '.join(names)}): "
                    f"{existing} already has {key_text(names, values)}",
                    instance.span,
                    "index-conflict",
                    [
                        Note(existing.span, "the existing instance was created here"),
                        Note(index.span, "the index"),
                    ],
                )
            table[key] = instance
            waits = ev.index_waits.get(table_key)
            if waits:
                entry = waits.pop(key, None)
                if entry is not None:
                    wait = entry[0]
                    wait.found = instance
                    wait.wake(ev.sched)
    info.count += 1
    if ev.injection is not None and ev.injection.waits:
        ev.injection.registered(instance)


#: Key values that are neither Unknown nor a reference (`_unindexable` is asked about the others).
_KEY_TYPES = frozenset({str, int, float, bool, type(None), Instance})


def _unindexable(info: EntityInfo, names: tuple[str, ...], values: list[Any], span: Span) -> bool:
    """Whether a key holds an Unknown value (then it is in no index table, as in inmanta:
    it matches no other key and no lookup); a reference in a key is a ``type-error``."""
    unknown = False
    for name, value in zip(names, values, strict=True):
        if isinstance(value, Unknown):
            unknown = True
        elif is_reference(value):
            raise fail(
                f"index attribute '{name}' of {info.qname} is a reference ({show(value)}): "
                "references cannot be used in indexes (they are resolved at deploy time)",
                span,
                "type-error",
            )
    return unknown


def slot_value(slot: Slot | None) -> Any:
    if slot is None:
        return None
    if isinstance(slot, Var | Constant):
        return slot.value
    if isinstance(slot, OptVar):
        return slot.value
    if isinstance(slot, ListVar):
        return list(slot.items)
    return None


def key_text(names: tuple[str, ...] | list[str], values: list[Any]) -> str:
    return ", ".join(f"{n}={show(v)}" for n, v in zip(names, values, strict=False))
