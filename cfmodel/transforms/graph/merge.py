"""Merging resources: identical duplicates become one resource, incompatible ones an error.

Input: resources in declaration order (possibly several with one id), or whole graphs.
Output: ``merge_resources`` — resources by id, first declaration first, each id once, the
provenance of every identical declaration kept in order; ``merge_graphs`` — one graph holding
every resource and edge of the given graphs (edges with one identity merged).

Guarantees: two declarations merge only when kind, name, agent, key, attributes and meta
parameters are all equal with their types (``values_equal``: ``1``, ``1.0`` and ``True``
differ); nothing is merged by guessing.

Errors: ``incompatible-duplicate`` (reported into the caller's ``Diagnostics`` by
``merge_resources``; raised as ``CfCompileError`` by ``merge_graphs``): at the later
declaration, naming the id and the first difference, with a note at the first declaration.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from cfmodel.errors import Diagnostics, Note
from cfmodel.metamodel.resource_graph import Edge, Resource, ResourceGraph, Value, values_equal


def merge_resources(
    resources: Iterable[Resource], diagnostics: Diagnostics, copy: bool = True
) -> dict[str, Resource]:
    """Resources by id with identical duplicates merged (module docstring). With ``copy``
    False the first declaration of each id is itself kept (and its provenance extended)."""
    merged: dict[str, Resource] = {}
    for res in resources:
        first = merged.get(res.id)
        if first is None:
            merged[res.id] = _copy(res) if copy else res
        elif first.same_content(res):
            first.provenance.extend(p for p in res.provenance if p not in first.provenance)
        else:
            where = first.span
            note = Note(where, f"{res.id} was first declared here") if where is not None else None
            diagnostics.error(
                res.span,
                f"resource {res.id} is declared twice with different values: {first_difference(first, res)}",
                "incompatible-duplicate",
                [note] if note is not None else [],
            )
    return merged


def merge_graphs(graphs: Iterable[ResourceGraph], name: str = "", language: str = "") -> ResourceGraph:
    """One graph of several (module docstring).

    Raises:
        CfCompileError: ``incompatible-duplicate``.
    """
    graphs = list(graphs)
    diagnostics = Diagnostics()
    resources = merge_resources((r for g in graphs for r in g.resources.values()), diagnostics)
    diagnostics.raise_if_errors()
    edges: dict[tuple[str, str, str, str | None, str | None], Edge] = {}
    for edge in (e for g in graphs for e in g.edges):
        found = edges.get(edge.identity())
        if found is None:
            edges[edge.identity()] = Edge(
                edge.kind, edge.source, edge.target, edge.send_field, edge.recv_field, list(edge.provenance)
            )
        else:
            found.provenance.extend(p for p in edge.provenance if p not in found.provenance)
    if not graphs:
        return ResourceGraph(name, language)
    return ResourceGraph(
        name or graphs[0].name, language or graphs[0].language, resources, list(edges.values())
    )


def first_difference(a: Resource, b: Resource) -> str:
    """The first feature in which two resources with one id differ, in words."""
    for label, x, y in (
        ("kind", a.kind, b.kind),
        ("name", a.name, b.name),
        ("agent", a.agent, b.agent),
        ("key", a.key, b.key),
    ):
        if x != y:
            return f"{label} is {_show(y)} here and {_show(x)} before"
    for label, xs, ys in (("attribute", a.attributes, b.attributes), ("meta parameter", a.meta, b.meta)):
        for name in [*xs, *(n for n in ys if n not in xs)]:
            if name not in ys:
                return f"{label} {name!r} is missing here and {_show(xs[name])} before"
            if name not in xs:
                return f"{label} {name!r} is {_show(ys[name])} here and missing before"
            if not values_equal(xs[name], ys[name]):
                return f"{label} {name!r} is {_show(ys[name])} here and {_show(xs[name])} before"
    return "their provenance only"  # not reached: same_content was False


def _show(value: Value | str | None) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _copy(res: Resource) -> Resource:
    return Resource(
        res.id,
        res.kind,
        res.name,
        res.agent,
        res.key,
        dict(res.attributes),
        dict(res.meta),
        list(res.provenance),
    )
