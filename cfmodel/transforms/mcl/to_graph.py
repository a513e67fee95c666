"""The resource graph model: the interpreted output as `cfmodel.metamodel.resource_graph`.

Input: the `Output` of interpret (and autoedge). Output: a `ResourceGraph` (language
``mcl``) built with `GraphBuilder`: one resource per ``kind[name]`` (id ``kind[name]``,
mgmt's), its set fields as attributes and the meta parameters that differ from mgmt's
defaults as meta; one edge per edge
of the output, of the kind its statement wrote (chains and ``Before``: ``before``;
``Depend`` and autoedges: ``requires``; ``Notify``; ``Listen``; send/recv pairs:
``sendrecv`` with their fields); each with its provenance (the span and the statement's
first line).

Values: mcl's lists, structs (in field order) and maps become the graph's lists and maps;
a map whose keys are not strings has them written as mgmt prints them (``1``, ``true``),
the one place where the graph model cannot keep an mcl type.

`output_json`: the output itself, with mcl's values, as JSON (``cfmodel mcl graph
--format json``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cfmodel.errors import Span
from cfmodel.metamodel.mcl_kinds import META_DEFAULTS
from cfmodel.metamodel.resource_graph import Provenance, ResourceGraph, Value, values_equal
from cfmodel.transforms.graph.build import GraphBuilder
from cfmodel.transforms.mcl.core import go_format
from cfmodel.transforms.mcl.funcs import Value as McValue
from cfmodel.transforms.mcl.interpret import Output


def to_resource_graph(output: Output, name: str, sources: Mapping[str, str]) -> ResourceGraph:
    """Run the stage (see the module docstring)."""
    builder = GraphBuilder(name, language="mcl")
    lines = {file: text.split("\n") for file, text in sources.items()}
    for resource in output.resources.values():
        builder.resource(
            resource.kind,
            resource.name,
            id=resource_id(resource.key),
            attributes={k: graph_value(v) for k, v in resource.fields.items()},
            meta={k: graph_value(v) for k, v in resource.meta.items() if not _is_default(k, v)},
            provenance=_provenance(resource.span, lines),
        )
    for edge in output.edges:
        source, target = resource_id(edge.source), resource_id(edge.target)
        where = _provenance(output.edge_spans[edge], lines)
        if edge.send is not None and edge.recv is not None:
            builder.send_recv(source, edge.send, target, edge.recv, where)
        elif edge.kind == "requires":
            builder.requires(target, source, where)
        elif edge.kind == "notify":
            builder.notify(source, target, where)
        elif edge.kind == "listen":
            builder.listen(target, source, where)
        else:
            builder.before(source, target, where)
    return builder.build()


def graph_text(graph: ResourceGraph) -> str:
    """mgmt's text form of a graph: ``Vertex: kind[name]`` and ``Edge: kind[a] -> kind[b]``
    lines, sorted (an edge once, whatever its kinds)."""
    lines = {f"Vertex: {r.kind}[{r.name}]" for r in graph.resources.values()}
    for edge in graph.edges:
        source, target = graph.resources[edge.source], graph.resources[edge.target]
        lines.add(f"Edge: {source.kind}[{source.name}] -> {target.kind}[{target.name}]")
    return "".join(line + "\n" for line in sorted(lines))


def output_json(output: Output) -> str:
    """The output with mcl's values as JSON (``cfmodel mcl graph --format json``): the
    resources (sorted by kind and name) with their fields and meta parameters, and the
    edges (sorted); a map whose keys are not strings is a list of pairs, sorted as mgmt
    prints the keys; NaN and infinities are written as mgmt prints them."""
    resources = [
        {"kind": r.kind, "name": r.name, "fields": plain_value(r.fields), "meta": plain_value(r.meta)}
        for r in sorted(output.resources.values(), key=lambda r: r.key)
    ]
    edges = [
        {
            "from": {"kind": e.source[0], "name": e.source[1]},
            "to": {"kind": e.target[0], "name": e.target[1]},
            "notify": e.notify,
            **({"send": e.send, "recv": e.recv} if e.send else {}),
            **({"auto": True} if e.auto else {}),
        }
        for e in sorted(output.edges, key=lambda e: (e.source, e.target, e.send or "", e.recv or ""))
    ]
    return json.dumps({"resources": resources, "edges": edges}, indent=2, sort_keys=True) + "\n"


def plain_value(value: Any) -> Any:
    """An mcl value as JSON data (see `output_json`)."""
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: plain_value(v) for k, v in value.items()}
        return [
            [plain_value(k), plain_value(v)]
            for k, v in sorted(value.items(), key=lambda kv: go_format(kv[0]))
        ]
    if isinstance(value, tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return go_format(value)
    return value


def _is_default(name: str, value: McValue) -> bool:
    default = META_DEFAULTS.get(name, _NO_DEFAULT)
    return default is not _NO_DEFAULT and values_equal(graph_value(value), graph_value(default))


_NO_DEFAULT = object()


def resource_id(key: tuple[str, str]) -> str:
    return f"{key[0]}[{key[1]}]"


def graph_value(value: McValue) -> Value:
    if isinstance(value, tuple | list):
        return [graph_value(v) for v in value]
    if isinstance(value, dict):
        return {k if isinstance(k, str) else go_format(k): graph_value(v) for k, v in value.items()}
    plain: Value = value
    return plain


def _provenance(span: Span, lines: Mapping[str, list[str]]) -> Provenance:
    source = lines.get(span.file, [])
    statement = source[span.line - 1].strip() if 0 < span.line <= len(source) else ""
    return Provenance(span, statement=statement)
