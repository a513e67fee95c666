"""Pictures of resource graphs: deterministic DOT, SVG made by real Graphviz with every resource
and edge, a raster made by a real renderer that is not blank."""

from __future__ import annotations

import random
from html import unescape
from pathlib import Path

import pytest

from cfmodel.errors import CfUsageError
from cfmodel.metamodel.resource_graph import Edge, EdgeKind
from cfmodel.serializers import dot
from cfmodel.transforms.graph import GraphBuilder
from cfmodel.transforms.graph.picture import graph_document, graph_picture

from .conftest import webshop_graph
from .pictures import need, png_ink, rasterize, svg_titles


def test_dot_text_depends_on_content_not_on_build_order() -> None:
    a = GraphBuilder("g")
    x, y = a.resource("file", "/x", agent="h"), a.resource("file", "/y")
    a.before(x, y)
    b = GraphBuilder("g")
    y2, x2 = b.resource("file", "/y"), b.resource("file", "/x", agent="h")
    b.before(x2, y2)
    assert graph_picture(a.build()).dot == graph_picture(b.build()).dot
    assert graph_picture(webshop_graph()).dot == graph_picture(webshop_graph()).dot


def test_the_fast_text_is_the_documents_text() -> None:
    b = GraphBuilder("g")
    x = b.resource("file", 'a "q" \\ b', agent="h1")
    y = b.resource("pkg", "p" * 60, agent='h"2')
    z = b.resource("svc", "s")
    b.send_recv(x, "out", z, "in")
    b.before(x, y)
    b.listen(z, y)
    for graph in (webshop_graph(), b.build(), GraphBuilder().build()):
        for legend in (True, False):
            assert graph_picture(graph, legend).dot == dot.to_text(graph_document(graph, legend))


def test_the_fast_text_is_the_documents_text_on_random_graphs() -> None:
    rng = random.Random(5)
    names = ["a", "b", 'q"uote', "back\\slash", "line\nbreak", "é", "a b"]
    for round_ in range(40):
        b = GraphBuilder(f"g{round_}")
        plain = round_ % 2 == 0  # every other graph has only names that need no escaping
        made = [
            b.resource(
                rng.choice(["file", "pkg"]),
                f"{i}" if plain else f"{rng.choice(names)}{i}",
                agent=rng.choice([None, "h1", "h2"]),
            )
            for i in range(12)
        ]
        for _ in range(30):
            x, y = rng.sample(made, 2)
            how = rng.randrange(6)
            if how == 5:  # send/recv between one pair, told apart by the fields only
                b.send_recv(x, rng.choice(["", "out", "b"]), y, rng.choice(["", "in", "a"]))
            else:
                [b.requires, b.before, b.notify, b.listen, b.before][how](x, y)
        graph = b.build()
        if round_ % 5 == 4:  # an edge to an id no resource has (a graph made by hand)
            graph.edges.append(Edge(EdgeKind.BEFORE, made[0].id, 'gh"ost'))
        for legend in (True, False):
            assert graph_picture(graph, legend).dot == dot.to_text(graph_document(graph, legend))


def test_the_document_has_a_cluster_per_agent_and_a_style_per_kind() -> None:
    doc = graph_document(webshop_graph())
    assert [c.attrs["label"] for c in doc.clusters] == ["db1", "web1"]
    assert all(len(c.nodes) == 3 for c in doc.clusters)
    styles = {(e.attrs["color"], e.attrs["style"]) for e in doc.edges}
    assert styles == {("#555555", "solid"), ("#1f6fd1", "solid"), ("#2e8b57", "bold")}
    (sendrecv,) = [e for e in doc.edges if e.attrs["style"] == "bold"]
    assert sendrecv.attrs["label"] == "content → reload"


def test_awkward_names_stay_inside_their_quotes() -> None:
    b = GraphBuilder()
    b.resource("file", 'a "quoted" \\ name\nwith a newline}', agent='x"y')
    text = graph_picture(b.build(), legend=False).dot
    assert '"file[x\\"y,a \\"quoted\\" \\\\ name\\nwith a newline}]"' in text
    assert 'subgraph "cluster_agent x\\"y"' in text


def test_real_graphviz_draws_every_resource_and_edge(tmp_path: Path) -> None:
    need("dot", "graphviz")
    graph = webshop_graph()
    picture = graph_picture(graph)
    svg = picture.svg()
    nodes, edges = svg_titles(svg)
    assert sorted(unescape(n) for n in nodes if n != "legend") == sorted(graph.resources)
    assert sorted(unescape(e) for e in edges) == sorted(f"{e.source}->{e.target}" for e in graph.edges)
    picture.write(tmp_path / "g.svg")
    assert (tmp_path / "g.svg").read_text(encoding="utf-8") == svg
    rasterize(tmp_path / "g.svg", tmp_path / "g.png")
    width, height, ink = png_ink(tmp_path / "g.png")
    assert width > 300 and height > 150
    assert ink > width * height // 100  # lines and text, not an empty canvas
    picture.write(tmp_path / "direct.png")
    assert (tmp_path / "direct.png").read_bytes()[:4] == b"\x89PNG"


def test_without_graphviz_dot_works_and_the_rest_says_how(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    picture = graph_picture(webshop_graph())
    picture.write(tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text(encoding="utf-8") == picture.dot
    with pytest.raises(CfUsageError) as err:
        picture.write(tmp_path / "g.svg")
    assert err.value.code == "graphviz-missing" and "apt-get install graphviz" in err.value.message
    assert not (tmp_path / "g.svg").exists()


def test_graphviz_refusing_the_text_is_a_clear_error() -> None:
    need("dot", "graphviz")
    with pytest.raises(CfUsageError) as err:
        dot.render("digraph { a -> }", "svg")
    assert err.value.code == "render-failed" and "syntax error" in err.value.message
