"""The resource graph as a picture: one Graphviz document, a box per agent, a style per edge kind.

Input: a ``ResourceGraph``.
Output: ``graph_document`` — a ``DotGraph`` (``cfmodel.serializers.dot``): one node per resource
(named by its resource id; label: kind, then name), one cluster per agent (sorted by name;
resources without an agent outside any cluster), one edge per graph edge from the resource
that runs first to the one after it, styled by kind (``EDGE_STYLES``: ``requires`` solid grey,
``before`` dashed grey, ``notifies`` solid blue, ``listens`` dashed blue, ``sendrecv`` bold
green labelled ``send → recv``), and a legend node (a table of the kinds that occur).
``graph_picture`` — the same as a ``Picture`` (DOT text; ``svg()``, ``write(path)``).

Guarantees: the document depends on the graph's content only, not on the order resources or
edges were made in (nodes sorted by id within their cluster, edges by ends and kind), so the
DOT text is byte-identical for equal graphs.
"""

from __future__ import annotations

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
    html_text,
)

MAX_LABEL = 48  # characters of a name shown in a node (the tooltip has all of it)

EDGE_STYLES: dict[EdgeKind, dict[str, AttrValue]] = {
    EdgeKind.REQUIRES: {"color": "#555555", "style": "solid"},
    EdgeKind.BEFORE: {"color": "#555555", "style": "dashed"},
    EdgeKind.NOTIFY: {"color": "#1f6fd1", "style": "solid", "arrowhead": "vee", "penwidth": "1.6"},
    EdgeKind.LISTEN: {"color": "#1f6fd1", "style": "dashed", "arrowhead": "vee", "penwidth": "1.6"},
    EdgeKind.SENDRECV: {"color": "#2e8b57", "style": "bold", "fontcolor": "#2e8b57"},
}

FONT = "Helvetica"


def graph_document(graph: ResourceGraph, legend: bool = True) -> DotGraph:
    """The resource graph as a DOT document (module docstring)."""
    doc = DotGraph(
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
    by_agent: dict[str | None, list[Resource]] = {}
    for res in graph.resources.values():
        by_agent.setdefault(res.agent, []).append(res)
    for agent in sorted(a for a in by_agent if a is not None):
        cluster = DotCluster(
            f"agent {agent}",
            {"label": agent, "style": "rounded", "color": "#999999", "fontname": FONT},
            [_node(r) for r in sorted(by_agent[agent], key=_by_id)],
        )
        doc.clusters.append(cluster)
    doc.nodes.extend(_node(r) for r in sorted(by_agent.get(None, ()), key=_by_id))
    doc.edges.extend(_edge(e) for e in sorted(graph.edges, key=Edge.identity))
    if legend and graph.edges:
        doc.nodes.append(_legend({e.kind for e in graph.edges}, graph.resources))
    return doc


def graph_picture(graph: ResourceGraph, legend: bool = True) -> Picture:
    """The resource graph as a ``Picture`` (DOT text; SVG/PNG through Graphviz)."""
    return Picture.of(graph_document(graph, legend))


def _by_id(res: Resource) -> str:
    return res.id


def _node(res: Resource) -> DotNode:
    name = res.name if len(res.name) <= MAX_LABEL else res.name[: MAX_LABEL - 1] + "…"
    return DotNode(res.id, {"label": Label((res.kind, name)), "tooltip": res.id})


def _edge(edge: Edge) -> DotEdge:
    attrs = dict(EDGE_STYLES[edge.kind])
    if edge.kind is EdgeKind.SENDRECV:
        attrs["label"] = f"{edge.send_field} → {edge.recv_field}"
    attrs["tooltip"] = f"{edge.kind.value}: {edge.source} → {edge.target}"
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
