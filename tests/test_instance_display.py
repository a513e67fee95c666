"""Instances in a notebook (issue 20, rich display): a list of instances is a table, a page
at a time; one instance shows its attributes and relations, each related instance opening
onto its own attributes. Text and HTML, bounded whatever the model, escaped."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.formatters import DisplayFormatter
from pyecore.ecore import EAttribute, EClass, EPackage, EReference, EString

import cfmodel
from cfmodel.display import HTML_BUDGET, MAX_ROWS, InstanceList, attach_displays, instance_html, instance_text

WEBSHOP = Path(__file__).resolve().parents[1] / "examples" / "webshop"


@pytest.fixture(scope="module")
def result() -> cfmodel.CompileResult:
    return cfmodel.compile_project(WEBSHOP)


def test_a_list_of_instances_is_a_table(result: cfmodel.CompileResult) -> None:
    servers = result.instances("web::Server")
    assert isinstance(servers, InstanceList) and len(servers) == 2
    assert (
        repr(servers)
        == "<web::Server: 2 instances (web::Server web1.example.com, web::Server web2.example.com)>"
    )
    page = servers._repr_html_()
    assert page.startswith(
        '<div class="cfmodel"><strong>web::Server: 2 instances</strong><table><thead><tr><th>#</th>'
        "<th>instance</th><th>port</th><th>workers</th><th>tls</th><th>name</th><th>os</th><th>tags</th>"
    )
    assert (
        "<tr><td>1</td><td>web::Server web1.example.com</td><td>80</td><td>4</td><td>true</td>"
        "<td>web1.example.com</td><td>debian</td><td>[]</td></tr>"
    ) in page
    assert servers == list(servers)  # otherwise an ordinary list


def test_one_instance_shows_attributes_and_relations(result: cfmodel.CompileResult) -> None:
    web1 = result.instances("web::Server")[0]
    assert instance_text(web1) == "\n".join(
        [
            "web::Server web1.example.com",
            "  port = 80",
            "  workers = 4",
            "  tls = true",
            "  name = web1.example.com",
            "  os = debian",
            "  tags = []",
            "  balancer -> web::LoadBalancer lb.example.com",
            "  certificates -> [web::Certificate web1.example.com]",
            "  vhosts -> [web::services::Vhost shop.example.com]",
            "  provides -> []",
            "  requires -> []",
        ]
    )
    page = web1._repr_html_()
    assert page.startswith('<div class="cfmodel"><strong>web::Server web1.example.com</strong>')
    assert "<tr><td>port</td><td>80</td></tr>" in page
    # a related instance: its label, opening onto its attributes
    assert (
        "<tr><td>balancer →</td><td><details><summary>web::LoadBalancer lb.example.com</summary>"
        "<table><tbody><tr><td>port</td><td>443</td></tr>"
    ) in page


def test_ipython_finds_the_displays(result: cfmodel.CompileResult) -> None:
    formatter = DisplayFormatter()
    servers = result.instances("web::Server")
    data, _ = formatter.format(servers)
    assert data["text/plain"] == repr(servers) and data["text/html"] == servers._repr_html_()
    data, _ = formatter.format(servers[0])
    assert data["text/plain"] == instance_text(servers[0])
    assert data["text/html"] == instance_html(servers[0])
    assert repr(servers[0]).startswith("<pyecore.ecore.Server object at ")  # Python's repr is PyEcore's


def test_a_saved_model_shows_its_instances(result: cfmodel.CompileResult, tmp_path: Path) -> None:
    saved = cfmodel.load_xmi(result.save_xmi(tmp_path)[-1])
    vhosts = saved.instances("web::services::Vhost")
    assert isinstance(vhosts, InstanceList) and len(vhosts) == 2
    assert vhosts._repr_html_().startswith(
        '<div class="cfmodel"><strong>web::services::Vhost: 2 instances</strong>'
    )
    assert (
        DisplayFormatter()
        .format(vhosts[0])[0]["text/html"]
        .startswith('<div class="cfmodel"><strong>web::services::Vhost ')
    )


def _package() -> tuple[EPackage, EClass]:
    package = EPackage("big", nsURI="http://example.org/big", nsPrefix="big")
    node = EClass("Node")
    node.eStructuralFeatures.append(EAttribute("name", EString))
    node.eStructuralFeatures.append(EAttribute("many", EString, upper=-1))
    for n in range(60):
        node.eStructuralFeatures.append(EAttribute(f"text{n}", EString))
    node.eStructuralFeatures.append(EReference("peers", node, upper=-1))
    package.eClassifiers.append(node)
    attach_displays([package])
    return package, node


def test_displays_are_bounded_whatever_the_model() -> None:
    _, node = _package()
    nodes = []
    for n in range(300):
        obj = node()
        obj.name = f"<n{n}>" + "x" * 5000
        for k in range(60):
            setattr(obj, f"text{k}", "y" * 10_000)
        obj.many.extend(f"v{k}" for k in range(1000))
        nodes.append(obj)
    for obj in nodes:
        obj.peers.extend(nodes[:200])
    one = nodes[0]
    assert len(instance_text(one)) < 20_000
    assert "… 22 more features" in instance_text(one)  # 62 attributes, 40 shown
    assert "  peers -> [big::Node <n0>" in instance_text(one)  # relations are not crowded out
    page = instance_html(one)
    assert len(page) < HTML_BUDGET + 20_000
    assert "&lt;n0&gt;" in page and "<n0>" not in page  # escaped
    assert "<td>many</td><td>[v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, … 990 more]</td>" in page
    listed = InstanceList(nodes, "big::Node")
    assert len(repr(listed)) < 2_000 and "… 290 more" in repr(listed)
    table = listed._repr_html_()
    assert len(table) < 200_000
    assert table.count("<tr>") == 1 + MAX_ROWS  # the header, a page of rows
    assert "<code>.page(2)</code> shows the next 50" in table


def test_pages(result: cfmodel.CompileResult) -> None:
    objects = InstanceList(list(result.model) * 6, "every")  # 19 instances, six times: 114
    assert len(objects) == 114
    third = objects.page(3)
    assert len(third) == 14 and third.first == 100
    assert third._repr_html_().startswith('<div class="cfmodel"><strong>every: 101-114 of 114</strong>')
    assert "<td>101</td>" in third._repr_html_()
    assert (
        objects.page(2)._repr_html_().startswith('<div class="cfmodel"><strong>every: 51-100 of 114</strong>')
    )
    assert repr(objects.page(9)) == "<every: none>"
    with pytest.raises(ValueError, match="numbered from 1"):
        objects.page(0)


def test_the_areas_displays_are_bounded_too() -> None:
    from cfmodel.metamodel.resource_graph import Edge, EdgeKind, Resource, ResourceGraph
    from cfmodel.serializers.dot import Picture
    from cfmodel.sparql import Cell, QueryResult

    graph = ResourceGraph("big", "mcl")
    for n in range(20_000):
        graph.resources[f"file[{n}]"] = Resource(
            f"file[{n}]", "file", str(n), attributes={"content": "x" * 1000}
        )
    graph.edges.extend(Edge(EdgeKind.BEFORE, f"file[{n}]", f"file[{n + 1}]") for n in range(19_999))
    assert repr(graph) == "<ResourceGraph big (mcl): 20,000 resources, 19,999 edges>"
    assert len(graph._repr_html_()) < 20_000 and "… 19950 more rows" in graph._repr_html_()
    result = QueryResult(["a", "b"], [(Cell("literal", "<" * 10_000), None)] * 50_000)
    assert repr(result) == "<QueryResult: 50,000 rows of a, b>"
    page = result._repr_html_()
    assert len(page) < 300_000 and "&lt;" in page and "<<" not in page
    assert repr(Picture("digraph {" + "a -> b;" * 100_000 + "}")) == (
        "<Picture: DOT text of 700,010 characters; a notebook shows it as SVG>"
    )


def test_a_large_comparison_displays_bounded() -> None:
    from cfmodel.transforms.diff.model import Comparison, ObjectDiff, ValueChange

    objects = [
        ObjectDiff("changed", f"Host[{n}]", "Host", [ValueChange("port", n, n + 1)]) for n in range(5000)
    ]
    comparison = Comparison("before", "after", objects=objects)
    assert repr(comparison) == "<Comparison before → after: 0 added, 0 removed, 5,000 changed>"
    page = comparison._repr_html_()
    assert len(page) < 100_000 and "Host[49]" in page and "Host[50]" not in page
    assert page.endswith(
        "<p>The first 50 differences of each kind are shown, 4,950 are not (in all: 0 added, 0 removed, "
        "5,000 changed); <code>print(comparison)</code> shows them all.</p>"
    )
    assert "Host[4999]" in str(comparison)
    assert repr(Comparison("a", "b")) == "<Comparison a → b: equal>"


def test_one_entity_as_a_class_diagram(result: cfmodel.CompileResult) -> None:
    import re

    from cfmodel.errors import CfUsageError

    picture = result.diagram("web::Server")
    assert picture.dot == cfmodel.class_diagram(result.metamodel, title="webshop", entity="web::Server").dot
    drawn = sorted(set(re.findall(r'^\s*"([\w:]+)" \[label=<', picture.dot, re.M)))
    # the class, its parents, what its relations reach and what reaches it
    assert drawn == [
        "std::Entity",
        "web::Certificate",
        "web::LoadBalancer",
        "web::Machine",
        "web::Server",
        "web::services::Vhost",
    ]
    with pytest.raises(CfUsageError, match="no class named 'web::Nope' in the metamodel"):
        cfmodel.class_diagram(result.metamodel, entity="web::Nope")
