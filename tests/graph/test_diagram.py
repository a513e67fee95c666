"""Class and instance diagrams: every entity/object a node, every relation and inheritance an
edge in the SVG real Graphviz makes; std hidden unless asked; size limits; the CLI."""

from __future__ import annotations

from html import unescape
from pathlib import Path

import pytest

from cfmodel.cli import main
from cfmodel.errors import CfUsageError
from cfmodel.metamodel import graph as gm
from cfmodel.pipeline import compile_project
from cfmodel.project import load_project
from cfmodel.serializers import ecore
from cfmodel.transforms.cf.lift import lift
from cfmodel.transforms.cf.resolve import resolve
from cfmodel.transforms.graph.diagram import (
    class_diagram,
    class_document,
    instance_diagram,
    instance_document,
)

from .pictures import need, png_ink, rasterize, svg_titles

WEBSHOP = Path(__file__).resolve().parents[2] / "examples" / "webshop"


@pytest.fixture(scope="module")
def packages() -> list[object]:
    return list(lift(resolve(load_project(WEBSHOP))).packages)


def test_class_document_clusters_entities_relations_and_inheritance(packages: list[object]) -> None:
    doc = class_document(packages)  # type: ignore[arg-type]
    # std hidden unless asked; namespaces without definitions (the main file's) draw nothing
    assert [c.name for c in doc.clusters] == ["web", "web::deploy", "web::services"]
    nodes = doc.node_names()
    assert {"web::Machine", "web::Server", "web::LoadBalancer", "web::services::Vhost", "web::port"} <= set(
        nodes
    )
    assert not any(n.startswith("std::") for n in nodes)
    inheritance = {(e.tail, e.head) for e in doc.edges if e.attrs.get("arrowhead") == "onormal"}
    assert ("web::Server", "web::Machine") in inheritance
    (vhosts,) = [e for e in doc.edges if {e.tail, e.head} == {"web::Server", "web::services::Vhost"}]
    ends = {vhosts.tail: vhosts.attrs["taillabel"], vhosts.head: vhosts.attrs["headlabel"]}
    assert ends == {"web::Server": "server [1]", "web::services::Vhost": "vhosts [0..*]"}
    assert vhosts.attrs["dir"] == "none"  # a pair of opposite references: one undirected edge
    server = next(n for c in doc.clusters for n in c.nodes if n.name == "web::Server")
    label = str(server.attrs["label"])
    assert "port : port = 80" in label and "tls : bool = false" in label and "workers : int = 4" in label
    with_std = class_document(packages, include_std=True)  # type: ignore[arg-type]
    assert "std::Entity" in with_std.node_names()


def test_real_graphviz_draws_every_class_and_edge(packages: list[object], tmp_path: Path) -> None:
    need("dot", "graphviz")
    doc = class_document(packages)  # type: ignore[arg-type]
    picture = class_diagram(packages)  # type: ignore[arg-type]
    svg = picture.svg()
    nodes, edges = svg_titles(svg)
    assert sorted(unescape(n) for n in nodes) == sorted(doc.node_names())
    assert sorted(unescape(e) for e in edges) == sorted(f"{e.tail}->{e.head}" for e in doc.edges)
    (tmp_path / "c.svg").write_text(svg, encoding="utf-8")
    rasterize(tmp_path / "c.svg", tmp_path / "c.png")
    width, height, ink = png_ink(tmp_path / "c.png")
    assert ink > width * height // 100


def test_any_ecore_metamodel_draws(tmp_path: Path) -> None:
    doc = class_document([gm.PACKAGE], include_std=True, title="graph")
    assert {"graph::Graph", "graph::Resource", "graph::EdgeKind", "graph::Value"} <= set(doc.node_names())
    containment = [e for e in doc.edges if e.attrs.get("arrowtail") == "diamond"]
    assert ("graph::Graph", "graph::Resource") in {(e.tail, e.head) for e in containment}
    ecore.write(tmp_path / "graph.ecore", gm.PACKAGE)
    assert main(["diagram", str(tmp_path / "graph.ecore"), "-o", str(tmp_path / "g.dot")]) == 0
    assert '"graph::Edge" -> "graph::Resource"' in (tmp_path / "g.dot").read_text(encoding="utf-8")


def test_instance_diagram_of_the_webshop(tmp_path: Path) -> None:
    result = compile_project(WEBSHOP)
    doc = instance_document(result.model, result.id_of)
    assert len(doc.node_names()) == len(result.model)
    assert "web.Server[web1.example.com]" in doc.node_names()
    pairs = {(e.tail, e.head) for e in doc.edges}
    assert ("web.LoadBalancer[lb.example.com]", "web.Server[web1.example.com]") in pairs or (
        "web.Server[web1.example.com]",
        "web.LoadBalancer[lb.example.com]",
    ) in pairs
    assert len({frozenset(p) for p in pairs}) == len(pairs)  # a pair of opposites is drawn once
    with pytest.raises(CfUsageError) as err:
        instance_diagram(result.model, result.id_of, max_objects=3)
    assert err.value.code == "too-large"
    need("dot", "graphviz")
    nodes, _ = svg_titles(instance_diagram(result.model, result.id_of).svg())
    assert sorted(unescape(n) for n in nodes) == sorted(doc.node_names())


def test_the_diagram_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram", str(WEBSHOP)]) == 0
    first = capsys.readouterr().out
    assert first.startswith('digraph "webshop" {') and '"web::Server"' in first
    assert main(["diagram", str(WEBSHOP)]) == 0
    assert capsys.readouterr().out == first  # deterministic
    assert main(["diagram", str(WEBSHOP), "--instances", "--max-objects", "2"]) == 2
    assert "too many for an instance diagram" in capsys.readouterr().err
    assert main(["diagram", str(WEBSHOP), "-o", str(tmp_path / "x.pdf")]) == 2
    need("dot", "graphviz")
    assert main(["diagram", str(WEBSHOP), "--instances", "-o", str(tmp_path / "i.svg")]) == 0
    assert svg_titles((tmp_path / "i.svg").read_text(encoding="utf-8"))[0]
