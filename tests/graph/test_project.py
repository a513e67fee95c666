"""The webshop's resource graph: compiled, exported (its web module registers resources), drawn,
ordered, written as mgmt's YAML graph and as XMI that real EMF loads."""

from __future__ import annotations

from html import unescape
from pathlib import Path

import pytest
import yaml

from cfmodel.cli import main
from cfmodel.metamodel import graph as gm
from cfmodel.metamodel.resource_graph import EdgeKind
from cfmodel.pipeline import compile_project
from cfmodel.serializers import ecore
from cfmodel.transforms.cf.export import export_resources
from cfmodel.transforms.graph.files import read_graph
from tests.conftest import skip_or_fail
from tests.emf.emf import EmfUnavailableError, build_checker

from .pictures import need, png_ink, rasterize, svg_titles

WEBSHOP = Path(__file__).resolve().parents[2] / "examples" / "webshop"
HOSTS = ("db.example.com", "lb.example.com", "web1.example.com", "web2.example.com")


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("webshop") / "webshop.xmi"
    assert main(["graph", str(WEBSHOP), "-o", str(path)]) == 0
    return path


def test_every_machine_deploys_its_resources_in_order() -> None:
    exported = export_resources(compile_project(WEBSHOP))
    assert exported.problems == []  # its modules without plugins/ have no code to fail loading
    graph = exported.graph("webshop")
    assert graph.agents() == list(HOSTS)
    assert len(graph) == 12
    conf = graph.resources["web::deploy::File[web1.example.com,path=/etc/nginx/sites-enabled/shop.conf]"]
    assert conf.attributes["content"] == "listen 80;\nworker_processes 4;\n"
    assert conf.meta["send_event"] is True
    (origin,) = conf.provenance
    assert origin.span is not None and origin.span.file.endswith("deploy.cf")
    assert (origin.span.line, origin.producer) == (44, "web::deploy::File instance")  # conf = File(...)
    kinds = {(e.source.split("[")[0], e.target.split("[")[0], e.kind) for e in graph.edges}
    assert kinds == {
        ("web::deploy::Package", "web::deploy::File", EdgeKind.REQUIRES),
        ("web::deploy::Package", "web::deploy::Service", EdgeKind.REQUIRES),
        ("web::deploy::File", "web::deploy::Service", EdgeKind.LISTEN),  # the file sends events
    }


def test_real_emf_loads_the_webshop_graph(graph_file: Path, tmp_path: Path) -> None:
    graph = read_graph(graph_file)
    assert (
        len(graph) == 12 and len(graph.edges) == 12
    )  # per machine: package → file, package → service, file → service
    ecore.write(tmp_path / "graph.ecore", gm.PACKAGE)
    try:
        emf = build_checker()
    except EmfUnavailableError as exc:
        skip_or_fail(f"real EMF unavailable: {exc}")
        raise
    report = emf.check([tmp_path / "graph.ecore"], [graph_file])
    assert report.problems() == [] and report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}


def test_the_picture_has_a_box_per_machine_and_every_resource(tmp_path: Path) -> None:
    need("dot", "graphviz")
    out = tmp_path / "webshop.svg"
    assert main(["graph", str(WEBSHOP), "-o", str(out)]) == 0
    nodes, edges = svg_titles(out.read_text(encoding="utf-8"))
    graph = export_resources(compile_project(WEBSHOP)).graph("webshop")
    assert sorted(unescape(n) for n in nodes if n != "legend") == sorted(graph.resources)
    assert sorted(unescape(e) for e in edges) == sorted(f"{e.source}->{e.target}" for e in graph.edges)
    rasterize(out, tmp_path / "webshop.png")
    width, height, ink = png_ink(tmp_path / "webshop.png")
    assert ink > width * height // 100


def test_order_and_mgmts_yaml_graph_per_machine(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(WEBSHOP), "--agent", "web1.example.com", "--format", "order"]) == 0
    assert capsys.readouterr().out == (
        "web::deploy::Package[web1.example.com,name=nginx]\n"
        "web::deploy::File[web1.example.com,path=/etc/nginx/sites-enabled/shop.conf]\n"
        "web::deploy::Service[web1.example.com,name=nginx]\n"
    )
    assert main(["graph", str(WEBSHOP), "--agent", "web1.example.com", "--format", "yamlgraph"]) == 0
    captured = capsys.readouterr()
    data = yaml.safe_load(captured.out)
    assert sorted(data["resources"]) == ["file", "pkg", "svc"]
    assert data["resources"]["file"][0]["mode"] == "0644"
    assert {(e["from"]["kind"], e["to"]["kind"], e.get("notify", False)) for e in data["edges"]} == {
        ("pkg", "file", False),
        ("pkg", "svc", False),
        ("file", "svc", True),
    }
    assert "warning: not carried into the YAML graph: agent: web1.example.com" in captured.err
    assert main(["graph", str(WEBSHOP), "--format", "yamlgraph"]) == 1  # four machines in one graph
    assert "[yamlgraph-clash]" in capsys.readouterr().err
