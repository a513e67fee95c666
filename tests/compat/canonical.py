"""Compare instance models from two compilers, independent of creation order.

Both sides give records ``{"id", "entity", "attrs", "rels"}`` (relations as lists of
ids). Instances have no names in common, so each gets a label by colour refinement:
first its entity and attribute values, then, a few times over, its own label with the
sorted labels of its relation targets. The canonical form is the sorted list of
``entity attrs rels`` lines with targets written as labels; two models are the same
(up to the order of creation and of relation values) when these lists are equal.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from cfmodel.pipeline import CompileResult
from cfmodel.plugins import Unknown
from cfmodel.references import is_reference
from cfmodel.transforms.cf.refine.values import ATTR, Instance, ListVar, OptVar, Var

Record = dict[str, Any]
ROUNDS = 4


def records_of(result: CompileResult) -> list[Record]:
    """cfmodel's instances as records (std instances and std::Entity's relations left out)."""
    ids: dict[int, int] = {}
    for instance in result.raw_instances:
        ids[id(instance)] = len(ids)
    out: list[Record] = []
    for instance in result.raw_instances:
        if instance.info.qname.startswith("std::"):
            continue
        record: Record = {"id": ids[id(instance)], "entity": instance.info.qname, "attrs": {}, "rels": {}}
        for name, field in instance.info.fields.items():
            declared_on = (field.attribute or field.relation).entity.qualified_name  # type: ignore[union-attr]
            if declared_on == "std::Entity":
                continue
            slot = instance.slots.get(name)
            if field.kind == ATTR:
                record["attrs"][name] = (
                    _plain(slot.value, ids) if isinstance(slot, Var) and slot.ready else None
                )
                continue
            targets: list[Instance] = []
            if isinstance(slot, ListVar):
                targets = list(slot.items)
            elif (isinstance(slot, OptVar) and slot.value is not None) or (
                isinstance(slot, Var) and slot.ready
            ):
                targets = [slot.value]
            record["rels"][name] = [ids[id(t)] for t in targets]
        out.append(record)
    return out


def _plain(value: Any, ids: dict[int, int]) -> Any:
    """A value as the reference runner writes it (`tests.compat.inmanta`)."""
    if isinstance(value, Instance):
        return {"$ref": ids[id(value)]}
    if isinstance(value, Unknown):
        return {"$unknown": True}
    if is_reference(value):
        return {"$reference": value.serialize().model_dump()}
    if isinstance(value, list):
        return [_plain(v, ids) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, ids) for k, v in value.items()}
    return value


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def canonical(records: list[Record]) -> list[str]:
    """Sorted lines describing every instance, with relation targets as structural labels."""
    by_id = {r["id"]: r for r in records}
    labels = {
        r["id"]: _hash(json.dumps([r["entity"], _no_refs(r["attrs"])], sort_keys=True)) for r in records
    }
    for _ in range(ROUNDS):
        labels = {
            rid: _hash(
                labels[rid]
                + json.dumps(
                    {
                        name: sorted(labels.get(t, "?") for t in targets)
                        for name, targets in r["rels"].items()
                    },
                    sort_keys=True,
                )
            )
            for rid, r in by_id.items()
        }
    lines = []
    for r in records:
        rels = {
            name: sorted(labels.get(t, "?") for t in targets)
            for name, targets in r["rels"].items()
            if targets
        }
        lines.append(json.dumps([r["entity"], _no_refs(r["attrs"]), rels], sort_keys=True))
    return sorted(lines)


def _no_refs(value: Any) -> Any:
    if isinstance(value, dict):
        if "$ref" in value:
            return "<instance>"
        return {k: _no_refs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_refs(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return value  # 1.0 stays a float: int and float are different values
    return value


def describe(records: list[Record]) -> str:
    """A readable summary for assertion messages."""
    return "\n".join(canonical(records))
