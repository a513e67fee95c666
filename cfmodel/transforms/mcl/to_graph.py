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
"""

from __future__ import annotations

from collections.abc import Mapping

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
