"""mgmt's YAML graph: the text cfmodel writes (golden), what it reports it could not carry,
reading it back, and the errors of reading."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cfmodel.errors import CfSerializationError
from cfmodel.metamodel.resource_graph import EdgeKind
from cfmodel.serializers import yamlgraph
from cfmodel.transforms.graph import GraphBuilder, agent_subgraph

from .conftest import at, webshop_graph

EXPECTED = """\
---
graph: shop
comment: "written by cfmodel from a resource graph (cf)"
resources:
  file:
  - name: /etc/app
    path: /etc/app/
    state: absent
  - name: /etc/app/app.conf
    path: /etc/app/app.conf
    content: "port: 80\\nname: \\"shop\\"\\n"
    state: exists
    owner: app
    mode: "0640"
  pkg:
  - name: app
    meta:
      noop: true
      retry: 3
    state: uninstalled
  svc:
  - name: app
    state: running
    startup: enabled
  vhost:
  - name: shop.example.com
    port: 443
    ratio: 1.0e+20
    aliases:
    - www
    - "yes"
    - "1.5"
    tls:
      cert: /c.pem
      enabled: true
    empty: []
edges:
- name: e1
  from:
    kind: pkg
    name: app
  to:
    kind: svc
    name: app
- name: e2
  from:
    kind: file
    name: /etc/app/app.conf
  to:
    kind: svc
    name: app
  notify: true
- name: e3
  from:
    kind: pkg
    name: app
  to:
    kind: file
    name: /etc/app/app.conf
- name: e4
  from:
    kind: svc
    name: app
  to:
    kind: vhost
    name: shop.example.com
  notify: true
"""


def _shop() -> GraphBuilder:
    b = GraphBuilder("shop", language="cf")
    a = "h1"
    pkg = b.resource(
        "apt::Package",
        "app",
        agent=a,
        key="name",
        attributes={"name": "app", "state": "removed"},
        meta={"noop": True, "retry": 3, "purge_on_delete": False},
        provenance=at(1, "pkg"),
    )
    conf = b.resource(
        "std::File",
        "/etc/app/app.conf",
        agent=a,
        key="path",
        attributes={
            "path": "/etc/app/app.conf",
            "content": 'port: 80\nname: "shop"\n',
            "owner": "app",
            "group": None,
            "permissions": 640,
            "reload": True,
        },
    )
    b.resource("std::Directory", "/etc/app", agent=a, key="path", attributes={"purged": True})
    svc = b.resource(
        "std::Service", "app", agent=a, key="name", attributes={"state": "running", "onboot": True}
    )
    vhost = b.resource(
        "web::Vhost",
        "shop.example.com",
        agent=a,
        key="name",
        attributes={
            "port": 443,
            "ratio": 1e20,
            "aliases": ["www", "yes", "1.5"],
            "tls": {"cert": "/c.pem", "enabled": True},
            "empty": [],
        },
    )
    b.requires(conf, pkg)
    b.before(pkg, svc)
    b.notify(conf, svc)
    b.send_recv(svc, "status", vhost, "backend")
    return b


def test_the_text_and_what_it_could_not_carry() -> None:
    made = yamlgraph.to_text(_shop().build())
    assert made.text == EXPECTED
    assert made.losses == [
        "agent: h1 (a YAML graph does not name its host)",
        "apt::Package: meta parameters purge_on_delete are not mgmt's",
        "std::File: attributes reload have no field in mgmt's file",
        "kind web::Vhost: mgmt has no such kind; written as 'vhost' with its attributes",
        "send/recv std::Service[h1,name=app].status -> web::Vhost[h1,name=shop.example.com].backend: "
        "the format has no send/recv; written as a notifying edge",
        "provenance: source positions and statements are not part of the format",
    ]


def test_a_yaml_reader_reads_the_same_values() -> None:
    data = yaml.safe_load(EXPECTED)
    vhost = data["resources"]["vhost"][0]
    assert vhost["aliases"] == ["www", "yes", "1.5"] and vhost["ratio"] == 1e20 and vhost["empty"] == []
    assert data["resources"]["file"][1]["content"] == 'port: 80\nname: "shop"\n'


def test_reading_back_gives_mgmt_kinds_names_fields_and_edges(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    losses = yamlgraph.write(path, _shop().build())
    assert len(losses) == 6
    graph = yamlgraph.read(path)
    assert (graph.name, graph.language) == ("shop", "yamlgraph")
    assert list(graph.resources) == [
        "file[/etc/app]",
        "file[/etc/app/app.conf]",
        "pkg[app]",
        "svc[app]",
        "vhost[shop.example.com]",
    ]
    assert graph.resources["pkg[app]"].meta == {"noop": True, "retry": 3}
    assert graph.resources["vhost[shop.example.com]"].attributes["tls"] == {"cert": "/c.pem", "enabled": True}
    assert [(e.kind, e.source, e.target) for e in graph.edges] == [
        (EdgeKind.BEFORE, "pkg[app]", "svc[app]"),
        (EdgeKind.NOTIFY, "file[/etc/app/app.conf]", "svc[app]"),
        (EdgeKind.BEFORE, "pkg[app]", "file[/etc/app/app.conf]"),
        (EdgeKind.NOTIFY, "svc[app]", "vhost[shop.example.com]"),
    ]
    prov = graph.resources["svc[app]"].provenance[0]
    assert prov.span is not None and (prov.span.file, prov.span.line, prov.span.col) == (str(path), 22, 5)
    again, first = yaml.safe_load(yamlgraph.to_text(graph).text), yaml.safe_load(EXPECTED)
    assert again["resources"] == first["resources"]

    def edges(doc: dict[str, list[dict[str, object]]]) -> list[str]:
        return sorted(repr((e["from"], e["to"], e.get("notify"))) for e in doc["edges"])

    assert edges(again) == edges(first)


def test_two_agents_with_one_name_need_an_agent_chosen() -> None:
    with pytest.raises(CfSerializationError) as err:
        yamlgraph.to_text(webshop_graph())
    assert err.value.render() == (
        "main.cf:11:1: error: std::Package[db1,name=nginx] and std::Package[web1,name=nginx] would both be pkg"
        " 'nginx' in mgmt's graph (choose one agent)  [yamlgraph-clash]"
    )
    assert "pkg:" in yamlgraph.to_text(agent_subgraph(webshop_graph(), "web1")).text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "<yamlgraph>:1:1: error: the document is empty  [bad-yamlgraph]"),
        ("- a\n", "<yamlgraph>:1:1: error: the document must be a mapping  [bad-yamlgraph]"),
        (
            "graph: g\nresources:\n  file: x\n",
            "<yamlgraph>:3:9: error: resources of kind 'file' must be a list  [bad-yamlgraph]",
        ),
        (
            "graph: g\nresources:\n  file:\n  - path: /x\n",
            "<yamlgraph>:4:5: error: a file resource has no name  [bad-yamlgraph]",
        ),
        (
            "graph: g\nresources:\n  file:\n  - name: a\n  - name: a\n",
            "<yamlgraph>:5:5: error: file 'a' is declared twice  [bad-yamlgraph]",
        ),
        (
            "graph: g\nresources:\n  file:\n  - name: a\nedges:\n- from: {kind: file, name: a}\n  to: {kind: file, name: b}\n",
            "<yamlgraph>:7:7: error: an edge's 'to' names no resource of the graph: file 'b'  [bad-yamlgraph]",
        ),
        (
            "graph: g\nresources:\n  file:\n  - name: a\n    when: 2001-01-01\n",
            "<yamlgraph>:5:11: error: when: 'date' is not a graph value (strings, numbers, booleans, null, lists, maps)"
            "  [bad-yamlgraph]",
        ),
        ("a: &x [1]\nb: *x\n", "<yamlgraph>:2:4: error: aliases are not allowed here  [bad-yamlgraph]"),
        (
            "graph: [\n",
            "<yamlgraph>:2:1: error: expected the node content, but found '<stream end>'  [bad-yamlgraph]",
        ),
        (
            "graph: g\ngraph: h\n",
            "<yamlgraph>:2:1: error: the document has the key 'graph' twice  [bad-yamlgraph]",
        ),
    ],
)
def test_reading_errors_point_into_the_file(text: str, message: str) -> None:
    with pytest.raises(CfSerializationError) as err:
        yamlgraph.parse(text)
    assert err.value.render() == message


def test_one_loss_line_per_kind_with_its_count() -> None:
    b = GraphBuilder("g", language="cf")
    for name in ("a", "b", "c"):
        b.resource("std::Package", name, meta={"send_event": True}, attributes={"purged": name == "c"})
    made = yamlgraph.to_text(b.build())
    assert made.losses == ["std::Package: meta parameters send_event are not mgmt's (3 resources)"]
    assert "  - name: c\n    state: uninstalled\n" in made.text  # purged: the package goes
