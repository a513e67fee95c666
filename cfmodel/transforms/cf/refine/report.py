"""The evaluated instances as text: a canonical dump and the counts per entity.

This is the printable product of the evaluate step (`cfmodel.pipeline.evaluate`): every
instance in creation order with its attributes (values as the language writes them) and
relations (the target instances' numbers), for tests, golden files and differential checks.
"""

from __future__ import annotations

from typing import Any

from cfmodel.transforms.cf.refine.errors import show
from cfmodel.transforms.cf.refine.values import ATTR, Instance, ListVar, OptVar, Var


def dump_instances(instances: list[Instance]) -> str:
    """A canonical text of the instances (empty values once they moved into a PyEcore model)."""
    numbers = {id(inst): i for i, inst in enumerate(instances)}
    lines: list[str] = []
    for inst in instances:
        lines.append(f"#{numbers[id(inst)]} {inst.info.qname}")
        for name in sorted(inst.info.fields):
            field = inst.info.fields[name]
            slot = inst.slots.get(name)
            if field.kind == ATTR:
                if isinstance(slot, Var) and slot.ready:
                    lines.append(f"  {name} = {show_full(slot.value)}")
                continue
            targets = _targets(slot)
            if targets:
                lines.append(f"  {name} -> " + ", ".join(f"#{numbers[id(t)]}" for t in targets))
    return "\n".join(lines) + "\n"


def count_instances(instances: list[Instance]) -> dict[str, int]:
    """Instances per entity (exact type), by qualified name, sorted by name."""
    out: dict[str, int] = {}
    for instance in instances:
        name = instance.info.qname
        out[name] = out.get(name, 0) + 1
    return dict(sorted(out.items()))


def _targets(slot: object) -> list[Instance]:
    if isinstance(slot, ListVar):
        return list(slot.items)
    if isinstance(slot, OptVar):
        return [slot.value] if slot.value is not None else []
    if isinstance(slot, Var) and slot.ready and isinstance(slot.value, Instance):
        return [slot.value]
    return []


def show_full(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(show_full(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show_full(k)}: {show_full(v)}" for k, v in value.items()) + "}"
    return show(value)
