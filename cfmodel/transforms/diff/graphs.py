"""Comparing two resource graphs: resources by id, then edges by identity.

Input: two ``ResourceGraph``s.
Output: ``compare_graphs`` fills a ``Comparison``'s ``resources`` (``added``/``removed`` by
resource id; ``changed`` attribute by attribute — attributes by name, meta parameters as
``meta.<name>``, and ``kind``, ``name``, ``agent``, ``key``) and ``edges`` (an edge is its
kind, source and target ids and send/recv fields; one only one side has is added or
removed). Provenance is not compared: moving a statement is no change to what is deployed.

Guarantees: values compared with their types (``values_equal``); sorted by identity.
"""

from __future__ import annotations

from typing import Any

from cfmodel.metamodel.resource_graph import Edge, Resource, ResourceGraph, values_equal
from cfmodel.transforms.diff.model import Comparison, EdgeDiff, ObjectDiff, ValueChange


def compare_graphs(comparison: Comparison, left: ResourceGraph, right: ResourceGraph) -> Comparison:
    """Compare two graphs into ``comparison`` (module docstring)."""
    found: list[ObjectDiff] = []
    for rid, res in left.resources.items():
        other = right.resources.get(rid)
        if other is None:
            found.append(ObjectDiff("removed", rid, res.kind, values=_values(res)))
            continue
        changes = _changes(res, other)
        if changes:
            found.append(ObjectDiff("changed", rid, other.kind, attributes=changes))
    found.extend(
        ObjectDiff("added", rid, res.kind, values=_values(res))
        for rid, res in right.resources.items()
        if rid not in left.resources
    )
    found.sort(key=lambda d: (d.identity, d.change))
    comparison.resources.extend(found)
    left_edges = {_edge_key(e): e for e in left.edges}
    right_edges = {_edge_key(e): e for e in right.edges}
    edges = [EdgeDiff("removed", *_shown(e)) for k, e in left_edges.items() if k not in right_edges]
    edges += [EdgeDiff("added", *_shown(e)) for k, e in right_edges.items() if k not in left_edges]
    edges.sort(key=lambda e: (e.source, e.target, e.kind, e.change))
    comparison.edges.extend(edges)
    return comparison


def _edge_key(edge: Edge) -> tuple[str, str, str, str | None, str | None]:
    return edge.identity()


def _shown(edge: Edge) -> tuple[str, str, str]:
    kind = edge.kind.value
    if edge.send_field is not None or edge.recv_field is not None:
        kind = f"{kind} {edge.send_field} -> {edge.recv_field}"
    return kind, edge.source, edge.target


def _values(res: Resource) -> dict[str, Any]:
    values: dict[str, Any] = {"agent": res.agent} if res.agent is not None else {}
    values.update(res.attributes)
    values.update({f"meta.{k}": v for k, v in res.meta.items()})
    return values


def _changes(a: Resource, b: Resource) -> list[ValueChange]:
    changes = [
        ValueChange(label, x, y)
        for label, x, y in (
            ("kind", a.kind, b.kind),
            ("name", a.name, b.name),
            ("agent", a.agent, b.agent),
            ("key", a.key, b.key),
        )
        if x != y
    ]
    for prefix, xs, ys in (("", a.attributes, b.attributes), ("meta.", a.meta, b.meta)):
        for name in [*xs, *(n for n in ys if n not in xs)]:
            x, y = xs.get(name), ys.get(name)
            if (name in xs) != (name in ys) or not values_equal(x, y):
                changes.append(ValueChange(prefix + name, x, y))
    return changes
