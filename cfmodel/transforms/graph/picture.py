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
_EDGE_TEXT = {k: attrs_text(v) + ";" for k, v in EDGE_STYLES.items()}


def graph_dot(graph: ResourceGraph, legend: bool = True) -> str:
    """``to_text(graph_document(graph, legend))``, written directly (module docstring)."""
    with gc_paused():  # one line per element, none of them garbage until the end
        return _graph_dot(graph, legend)


def _graph_dot(graph: ResourceGraph, legend: bool) -> str:
    lines = header_lines(_empty_document(graph))
    by_agent: dict[str | None, list[Resource]] = {}
    for res in graph.resources.values():
        by_agent.setdefault(res.agent, []).append(res)
    texts = [
        *graph.resources,
        *(r.kind for r in graph.resources.values()),
        *(r.name for r in graph.resources.values()),
    ]
    node_line = _plain_node_line if not has_special("".join(texts)) else _node_line
    by_id = attrgetter("id")
    for agent in sorted(a for a in by_agent if a is not None):
        lines.append(f"  subgraph {quote('cluster_agent ' + agent)} {{")
        attrs = _cluster_attrs(agent)
        lines.extend(f"    {key}={value_text(attrs[key])};" for key in sorted(attrs))
        lines.extend(node_line(r, "    ") for r in sorted(by_agent[agent], key=by_id))
        lines.append("  }")
    lines.extend(node_line(r, "  ") for r in sorted(by_agent.get(None, ()), key=by_id))
    if legend and graph.edges:
        node = _legend({e.kind for e in graph.edges}, graph.resources)
        lines.append(f"  {quote(node.name)}{attrs_text(node.attrs)};")
    # the order of Edge.identity (kind, ends, fields), by stable sorts with C-level keys
    edges = sorted(graph.edges, key=_fields)
    edges.sort(key=attrgetter("source", "target"))
    edges.sort(key=_kind_order)
    plain_ids = node_line is _plain_node_line
    for edge in edges:
        if edge.kind is EdgeKind.SENDRECV:
            tail = attrs_text(_edge(edge).attrs) + ";"
        else:
            tail = _EDGE_TEXT[edge.kind]
        if plain_ids:
            lines.append(f'  "{edge.source}" -> "{edge.target}"{tail}')
        else:
            lines.append(f"  {quote(edge.source)} -> {quote(edge.target)}{tail}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _fields(edge: Edge) -> tuple[str, str]:
    return (edge.send_field or "", edge.recv_field or "")


def _kind_order(edge: Edge) -> str:
    return _KIND_ORDER[edge.kind]


def _plain_node_line(res: Resource, indent: str) -> str:
    """``_node_line`` for a graph none of whose ids, kinds and names needs escaping."""
    name = res.name if len(res.name) <= MAX_LABEL else res.name[: MAX_LABEL - 1] + "…"
    return f'{indent}"{res.id}" [label="{res.kind}\\n{name}"];'


def _node_line(res: Resource, indent: str) -> str:
    name = res.name if len(res.name) <= MAX_LABEL else res.name[: MAX_LABEL - 1] + "…"
    return f"{indent}{quote(res.id)} [label={label_text((res.kind, name))}];"


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
