"""The resource graph as a picture: one Graphviz document, a box per agent, a style per edge kind.

Input: a ``ResourceGraph``.
Output: ``graph_document`` — a ``DotGraph`` (``cfmodel.serializers.dot``): one node per resource
(named by its resource id; label: kind, then name), one cluster per agent (sorted by name;
resources without an agent outside any cluster), one edge per graph edge from the resource
that runs first to the one after it, styled by kind (``EDGE_STYLES``: ``requires`` solid grey,
``before`` dashed grey, ``notifies`` solid blue, ``listens`` dashed blue, ``sendrecv`` bold
green labelled ``send → recv``), and a legend node (a table of the kinds that occur).
``graph_dot`` — its DOT text, written directly (the fast lane: a 10,000-resource graph in
milliseconds); ``graph_picture`` — that text as a ``Picture`` (``svg()``, ``write(path)``).

Guarantees: ``graph_dot(g) == to_text(graph_document(g))`` (the tests compare them: the
document is the readable specification, the text its optimisation). The document depends on
the graph's content only, not on the order resources or edges were made in (nodes sorted by
id within their cluster, edges by kind and ends), so the DOT text is byte-identical for equal
graphs. Node and edge titles in the SVG are the resource ids (``a->b`` for an edge), which
SVG viewers show as tooltips.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter

from cfmodel.collector import gc_paused
from cfmodel.metamodel.resource_graph import Edge, EdgeKind, Resource, ResourceGraph
from cfmodel.serializers.dot import (
    AttrValue,
    DotCluster,
    DotEdge,
    DotGraph,
    DotNode,
    HtmlLabel,
    Label,
    Picture,
    attrs_text,
    has_special,
    header_lines,
    html_text,
    label_text,
    quote,
    value_text,
)

MAX_LABEL = 48  # characters of a name shown in a node (its title, the id, has all of it)

EDGE_STYLES: dict[EdgeKind, dict[str, AttrValue]] = {
    EdgeKind.REQUIRES: {"color": "#555555", "style": "solid"},
    EdgeKind.BEFORE: {"color": "#555555", "style": "dashed"},
    EdgeKind.NOTIFY: {"color": "#1f6fd1", "style": "solid", "arrowhead": "vee", "penwidth": "1.6"},
    EdgeKind.LISTEN: {"color": "#1f6fd1", "style": "dashed", "arrowhead": "vee", "penwidth": "1.6"},
    EdgeKind.SENDRECV: {"color": "#2e8b57", "style": "bold", "fontcolor": "#2e8b57"},
}

FONT = "Helvetica"


def _empty_document(graph: ResourceGraph) -> DotGraph:
    return DotGraph(
        name=graph.name or "resources",
        graph_attrs={"rankdir": "LR", "fontname": FONT, "fontsize": "11", "compound": "true"},
        node_attrs={
            "shape": "box",
            "style": "rounded,filled",
            "fillcolor": "#f7f7f7",
            "fontname": FONT,
            "fontsize": "10",
        },
        edge_attrs={"fontname": FONT, "fontsize": "9"},
    )


def _cluster_attrs(agent: str) -> dict[str, AttrValue]:
    return {"label": agent, "style": "rounded", "color": "#999999", "fontname": FONT}


def graph_document(graph: ResourceGraph, legend: bool = True) -> DotGraph:
    """The resource graph as a DOT document (module docstring)."""
    doc = _empty_document(graph)
    by_agent: dict[str | None, list[Resource]] = {}
    for res in graph.resources.values():
        by_agent.setdefault(res.agent, []).append(res)
    for agent in sorted(a for a in by_agent if a is not None):
        cluster = DotCluster(
            f"agent {agent}", _cluster_attrs(agent), [_node(r) for r in sorted(by_agent[agent], key=_by_id)]
        )
        doc.clusters.append(cluster)
    doc.nodes.extend(_node(r) for r in sorted(by_agent.get(None, ()), key=_by_id))
    doc.edges.extend(_edge(e) for e in sorted(graph.edges, key=Edge.identity))
    if legend and graph.edges:
        doc.nodes.append(_legend({e.kind for e in graph.edges}, graph.resources))
    return doc


def graph_picture(graph: ResourceGraph, legend: bool = True) -> Picture:
    """The resource graph as a ``Picture`` (DOT text; SVG/PNG through Graphviz)."""
    return Picture(graph_dot(graph, legend))


_KIND_ORDER = {k: k.value for k in EdgeKind}
_KIND_RANK = {k: rank for rank, k in enumerate(sorted(EdgeKind, key=_KIND_ORDER.__getitem__))}
_KIND, _NAME = attrgetter("kind"), attrgetter("name")
_EDGE_TEXT = {k: attrs_text(v) + ";" for k, v in EDGE_STYLES.items()}


def graph_dot(graph: ResourceGraph, legend: bool = True) -> str:
    """``to_text(graph_document(graph, legend))``, written directly (module docstring)."""
    with gc_paused():  # one line per element, none of them garbage until the end
        return _graph_dot(graph, legend)


def _graph_dot(graph: ResourceGraph, legend: bool) -> str:
    lines = header_lines(_empty_document(graph))
    resources = graph.resources
    ids = sorted(resources)  # the node order within a cluster, and the edge order's ranks
    plain = not _any_special(ids) and not _any_special(map(_KIND, resources.values()))
    plain = plain and not _any_special(map(_NAME, resources.values()))
    by_agent: dict[str | None, list[str]] = {}  # node lines by agent, sorted by id
    group_of, limit = by_agent.get, MAX_LABEL  # locals: read per resource
    for res in map(resources.__getitem__, ids):
        name, agent = res.name, res.agent
        if len(name) > limit:
            name = name[: limit - 1] + "…"
        indent = "  " if agent is None else "    "
        if plain:
            line = f'{indent}"{res.id}" [label="{res.kind}\\n{name}"];'
        else:
            line = f"{indent}{quote(res.id)} [label={label_text((res.kind, name))}];"
        group = group_of(agent)
        if group is None:
            group = by_agent[agent] = []
        group.append(line)
    for agent in sorted(a for a in by_agent if a is not None):
        lines.append(f"  subgraph {quote('cluster_agent ' + agent)} {{")
        attrs = _cluster_attrs(agent)
        lines.extend(f"    {key}={value_text(attrs[key])};" for key in sorted(attrs))
        lines.extend(by_agent[agent])
        lines.append("  }")
    lines.extend(by_agent.get(None, ()))
    if legend and graph.edges:
        node = _legend({e.kind for e in graph.edges}, graph.resources)
        lines.append(f"  {quote(node.name)}{attrs_text(node.attrs)};")
    lines.extend(_edge_lines(graph.edges, ids, plain))
    lines.append("}\n")  # the text ends with a line break
    return "\n".join(lines)


def _any_special(texts: Iterable[str]) -> bool:
    """Whether any of ``texts`` holds a character DOT must escape (one scan of them joined)."""
    return has_special("".join(texts))


def _edge_lines(edges: list[Edge], ids: list[str], plain: bool) -> list[str]:
    """The edges' lines in the order of ``Edge.identity`` (kind, source, target, then the
    fields; stable), ``ids`` being the sorted resource ids, ``plain`` true when none of them
    needs escaping.

    Each line is written in the edges' own order (cheaper: they lie in memory in that order)
    beside one integer ranking it by kind, then source, then target; the lines are then
    sorted by those integers. When edges tie on it (one kind between one pair, which only
    send/recv fields can tell apart) or one names an id outside ``ids``, the edges are sorted
    by ``_sorted_by_identity`` and written one by one instead."""
    count = len(ids)
    rank = dict(zip(ids, range(count), strict=True))
    keys: list[int] = []
    lines: list[str] = []
    key, line = keys.append, lines.append
    kind_rank, tails, sendrecv = _KIND_RANK, _EDGE_TEXT, EdgeKind.SENDRECV  # locals: read per edge
    try:
        for edge in edges:
            source, target, kind = edge.source, edge.target, edge.kind
            key((kind_rank[kind] * count + rank[source]) * count + rank[target])
            if plain and kind is not sendrecv:
                line(f'  "{source}" -> "{target}"{tails[kind]}')
            else:
                line(_edge_line(edge))
    except KeyError:  # an end no resource has
        return list(map(_edge_line, _sorted_by_identity(edges)))
    by_key = dict(zip(keys, lines, strict=True))
    if len(by_key) < len(lines):
        return list(map(_edge_line, _sorted_by_identity(edges)))
    return list(map(by_key.__getitem__, sorted(by_key)))


def _edge_line(edge: Edge) -> str:
    """One edge's line, every name escaped as needed (``to_text``'s line for ``_edge(edge)``)."""
    if edge.kind is EdgeKind.SENDRECV:
        return f"  {quote(edge.source)} -> {quote(edge.target)}{attrs_text(_edge(edge).attrs)};"
    return f"  {quote(edge.source)} -> {quote(edge.target)}{_EDGE_TEXT[edge.kind]}"


def _sorted_by_identity(edges: list[Edge]) -> list[Edge]:
    """``edges`` in the order of ``Edge.identity`` by three stable sorts with C-level keys."""
    ordered = sorted(edges, key=_fields)
    ordered.sort(key=attrgetter("source", "target"))
    ordered.sort(key=_kind_order)
    return ordered


def _fields(edge: Edge) -> tuple[str, str]:
    return (edge.send_field or "", edge.recv_field or "")


def _kind_order(edge: Edge) -> str:
    return _KIND_ORDER[edge.kind]


def _by_id(res: Resource) -> str:
    return res.id


def _node(res: Resource) -> DotNode:
    name = res.name if len(res.name) <= MAX_LABEL else res.name[: MAX_LABEL - 1] + "…"
    return DotNode(res.id, {"label": Label((res.kind, name))})


def _edge(edge: Edge) -> DotEdge:
    attrs = dict(EDGE_STYLES[edge.kind])
    if edge.kind is EdgeKind.SENDRECV:
        attrs["label"] = f"{edge.send_field} → {edge.recv_field}"
    return DotEdge(edge.source, edge.target, attrs)


_STYLE_WORDS = {"solid": "solid", "dashed": "dashed", "bold": "bold"}


def _legend(kinds: set[EdgeKind], taken: dict[str, Resource]) -> DotNode:
    """One table naming each edge kind drawn (its line and colour), in the metamodel's order."""
    name = "legend"
    while name in taken:  # a resource may be called so
        name += "_"
    rows = "".join(
        f'<tr><td align="left"><font color="{EDGE_STYLES[k]["color"]}">'
        f"{html_text(k.value)}</font></td>"
        f'<td align="left"><font color="{EDGE_STYLES[k]["color"]}">{EDGE_STYLES[k]["style"]} '
        f"{'→' if not k.notifies else '⇢'}</font></td></tr>"
        for k in EdgeKind
        if k in kinds
    )
    head = '<tr><td colspan="2"><b>edges</b></td></tr>'
    table = f'<table border="0" cellborder="0" cellspacing="2">{head}{rows}</table>'
    return DotNode(name, {"shape": "note", "style": "", "color": "#bbbbbb", "label": HtmlLabel(table)})
