"""Graphviz DOT: a small document model written as text by cfmodel itself, rendered by ``dot``.

Input: a ``DotGraph`` (nodes, edges, clusters, attributes; made by the picture transforms).
Output: ``to_text`` — DOT text, byte-identical for equal documents (attributes sorted by name,
elements in the order given, every name and value quoted and escaped); ``Picture`` — DOT
text with ``svg()``/``png()`` and ``write(path)`` by extension (``.dot`` needs nothing else,
``.svg``/``.png`` run Graphviz's ``dot``); Jupyter shows a ``Picture`` as SVG.

Guarantees: a label never breaks the document: plain labels escape ``"`` and ``\\`` and write
line breaks as ``\\n`` (or ``\\l`` where a ``Label`` says left-aligned); HTML-like labels
(``HtmlLabel``) are XML-escaped by ``html_text``. Rendering is bounded in time (``RENDER_TIMEOUT``)
and in input (``MAX_DOT_BYTES``); files are replaced atomically.

Errors: ``CfUsageError`` ``graphviz-missing`` (no ``dot`` program: the message says how to get
it; ``.dot`` output still works), ``render-failed`` (``dot`` refused the text, ran out of time
or the input is too large), ``unknown-format``.
"""

from __future__ import annotations

import html
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cfmodel.errors import CfUsageError
from cfmodel.serializers import atomic

RENDER_TIMEOUT = 120.0  # seconds for one run of dot
MAX_DOT_BYTES = 64 * 1024 * 1024
PICTURE_FORMATS = (".dot", ".gv", ".svg", ".png")
INSTALL_HINT = (
    "Graphviz's 'dot' program is not installed (Debian/Ubuntu: apt-get install graphviz; "
    "macOS: brew install graphviz); write a .dot file to render it elsewhere"
)


@dataclass(frozen=True, slots=True)
class HtmlLabel:
    """A Graphviz HTML-like label (``<...>``); its text must come from ``html_text``."""

    markup: str


@dataclass(frozen=True, slots=True)
class Label:
    """A plain label of lines; ``left`` aligns each line left (``\\l``) instead of centring."""

    lines: tuple[str, ...]
    left: bool = False


AttrValue = str | int | float | HtmlLabel | Label


@dataclass(slots=True)
class DotNode:
    name: str
    attrs: dict[str, AttrValue] = field(default_factory=dict)


@dataclass(slots=True)
class DotEdge:
    tail: str
    head: str
    attrs: dict[str, AttrValue] = field(default_factory=dict)


@dataclass(slots=True)
class DotCluster:
    """A ``subgraph cluster_*`` box: drawn around its nodes with ``label``."""

    name: str
    attrs: dict[str, AttrValue] = field(default_factory=dict)
    nodes: list[DotNode] = field(default_factory=list)
    clusters: list[DotCluster] = field(default_factory=list)


@dataclass(slots=True)
class DotGraph:
    name: str
    directed: bool = True
    graph_attrs: dict[str, AttrValue] = field(default_factory=dict)
    node_attrs: dict[str, AttrValue] = field(default_factory=dict)
    edge_attrs: dict[str, AttrValue] = field(default_factory=dict)
    clusters: list[DotCluster] = field(default_factory=list)
    nodes: list[DotNode] = field(default_factory=list)
    edges: list[DotEdge] = field(default_factory=list)

    def node_names(self) -> list[str]:
        """Every node's name, clusters' included, in document order."""
        names: list[str] = []
        todo = list(self.clusters)
        while todo:
            cluster = todo.pop(0)
            names.extend(n.name for n in cluster.nodes)
            todo[:0] = cluster.clusters
        names.extend(n.name for n in self.nodes)
        return names


# ---- text -----------------------------------------------------------------------------------


def has_special(text: str) -> bool:
    """Whether ``text`` holds a character DOT text must escape (``\\``, ``"``, line breaks).

    Four substring tests: each is one fast scan (a regex character class is a hundred times
    slower on the joined text of a large graph)."""
    return "\\" in text or '"' in text or "\n" in text or "\r" in text


def quote(text: str) -> str:
    """A DOT quoted string holding ``text`` as it is (an ID: no escape sequences but ``\\"``)."""
    if not has_special(text):  # the usual case
        return f'"{text}"'
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "")
    return f'"{body}"'


def html_text(text: str) -> str:
    """Text for an HTML-like label: XML-escaped, line breaks as ``<br/>``."""
    return "<br/>".join(html.escape(line, quote=True) for line in text.split("\n"))


def label_text(lines: tuple[str, ...] | list[str], left: bool = False) -> str:
    """A plain label of lines as a DOT quoted string (``\\n`` between lines, ``\\l`` after each
    when left-aligned); backslashes and quotes in the text are escaped."""
    end = "\\l" if left else "\\n"
    if not any(map(has_special, lines)):
        body = end.join(lines)
    else:
        body = end.join(
            ln.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", end) for ln in lines
        )
    return f'"{body}{end if left else ""}"'


def _value(value: AttrValue) -> str:
    if isinstance(value, HtmlLabel):
        return f"<{value.markup}>"
    if isinstance(value, Label):
        return label_text(value.lines, value.left)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f'"{value}"'
    return quote(value)


def value_text(value: AttrValue) -> str:
    """An attribute value as DOT text (quoted, or ``<...>`` for an HTML-like label)."""
    return _value(value)


def attrs_text(attrs: Mapping[str, AttrValue]) -> str:
    """`` [a="x", b="y"]`` (names sorted), or nothing for no attributes."""
    return _attrs(attrs)


def header_lines(graph: DotGraph) -> list[str]:
    """The first lines of ``to_text(graph)``: the opening and the default attributes."""
    lines = [f"{'digraph' if graph.directed else 'graph'} {quote(graph.name)} {{"]
    for keyword, attrs in (
        ("graph", graph.graph_attrs),
        ("node", graph.node_attrs),
        ("edge", graph.edge_attrs),
    ):
        if attrs:
            lines.append(f"  {keyword}{_attrs(attrs)};")
    return lines


def _attrs(attrs: Mapping[str, AttrValue]) -> str:
    if not attrs:
        return ""
    return " [" + ", ".join(f"{k}={_value(attrs[k])}" for k in sorted(attrs)) + "]"


def _cluster_lines(cluster: DotCluster, indent: str) -> Iterable[str]:
    yield f"{indent}subgraph {quote('cluster_' + cluster.name)} {{"
    inner = indent + "  "
    for key in sorted(cluster.attrs):
        yield f"{inner}{key}={_value(cluster.attrs[key])};"
    for sub in cluster.clusters:
        yield from _cluster_lines(sub, inner)
    for node in cluster.nodes:
        yield f"{inner}{quote(node.name)}{_attrs(node.attrs)};"
    yield f"{indent}}}"


def to_text(graph: DotGraph) -> str:
    """The DOT text of ``graph`` (module docstring: deterministic, always well formed)."""
    arrow = "->" if graph.directed else "--"
    lines = [f"{'digraph' if graph.directed else 'graph'} {quote(graph.name)} {{"]
    for keyword, attrs in (
        ("graph", graph.graph_attrs),
        ("node", graph.node_attrs),
        ("edge", graph.edge_attrs),
    ):
        if attrs:
            lines.append(f"  {keyword}{_attrs(attrs)};")
    for cluster in graph.clusters:
        lines.extend(_cluster_lines(cluster, "  "))
    lines.extend(f"  {quote(node.name)}{_attrs(node.attrs)};" for node in graph.nodes)
    lines.extend(f"  {quote(e.tail)} {arrow} {quote(e.head)}{_attrs(e.attrs)};" for e in graph.edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- rendering --------------------------------------------------------------------------------


def dot_program() -> str | None:
    """The path of Graphviz's ``dot``, or None."""
    return shutil.which("dot")


def render(dot_text: str, fmt: str) -> bytes:
    """Run ``dot -T<fmt>`` (``svg`` or ``png``) on ``dot_text``.

    Raises:
        CfUsageError: ``graphviz-missing``, ``render-failed``.
    """
    program = dot_program()
    if program is None:
        raise CfUsageError(INSTALL_HINT, code="graphviz-missing")
    data = dot_text.encode("utf-8")
    if len(data) > MAX_DOT_BYTES:
        raise CfUsageError(
            f"the picture is too large to render ({len(data)} bytes of DOT)", code="render-failed"
        )
    try:
        proc = subprocess.run(
            [program, f"-T{fmt}"], input=data, capture_output=True, timeout=RENDER_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise CfUsageError(f"Graphviz took longer than {RENDER_TIMEOUT:.0f} s", code="render-failed") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"exit status {proc.returncode}"
        raise CfUsageError(f"Graphviz could not render the picture: {message}", code="render-failed")
    return proc.stdout


@dataclass(frozen=True, slots=True)
class Picture:
    """A picture as DOT text; rendered on demand. Notebooks show it inline (``_repr_svg_``)."""

    dot: str

    @staticmethod
    def of(graph: DotGraph) -> Picture:
        return Picture(to_text(graph))

    def svg(self) -> str:
        """The SVG text Graphviz makes of it.

        Raises:
            CfUsageError: ``graphviz-missing``, ``render-failed``.
        """
        return render(self.dot, "svg").decode("utf-8")

    def png(self) -> bytes:
        return render(self.dot, "png")

    def _repr_svg_(self) -> str:
        return self.svg()

    def __repr__(self) -> str:  # bounded: the DOT text of a large graph is megabytes
        return f"<Picture: DOT text of {len(self.dot):,} characters; a notebook shows it as SVG>"

    def write(self, path: Path | str) -> None:
        """Write by extension: ``.dot``/``.gv`` (the text), ``.svg``, ``.png``; atomically.

        Raises:
            CfUsageError: ``unknown-format``, ``graphviz-missing``, ``render-failed``.
        """
        suffix = Path(path).suffix.lower()
        if suffix in (".dot", ".gv"):
            atomic.write_bytes(path, self.dot.encode("utf-8"))
        elif suffix == ".svg":
            atomic.write_bytes(path, render(self.dot, "svg"))
        elif suffix == ".png":
            atomic.write_bytes(path, render(self.dot, "png"))
        else:
            known = ", ".join(PICTURE_FORMATS)
            raise CfUsageError(
                f"cannot draw into {str(path)!r}; picture formats: {known}", code="unknown-format"
            )
