"""Inmanta's export document (``inmanta export -j``'s list of resources) as a resource graph:
ids, kinds, agents, fields, meta parameters, requires; the CLI reads it for graph and diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfmodel.cli import main
from cfmodel.errors import CfCompileError, CfSerializationError
from cfmodel.metamodel.resource_graph import EdgeKind
from cfmodel.transforms.graph.inmanta import graph_from_export, parse_id, read_export

DOCUMENT = [
    {
        "id": "std::File[web1,path=/etc/nginx/nginx.conf],v=4",
        "path": "/etc/nginx/nginx.conf",
        "content": "worker_processes 2;\n",
        "permissions": 644,
        "owner": "root",
        "group": "root",
        "purged": False,
        "reload": True,
        "send_event": True,
        "purge_on_delete": False,
        "requires": ["std::Package[web1,name=nginx],v=4"],
        "version": 4,
    },
    {
        "id": "std::Package[web1,name=nginx],v=4",
        "name": "nginx",
        "state": "installed",
        "requires": [],
        "version": 4,
    },
    {
        "id": "std::Service[web1,name=nginx],v=4",
        "name": "nginx",
        "state": "running",
        "onboot": True,
        "requires": ["std::File[web1,path=/etc/nginx/nginx.conf],v=4", "std::Package[web1,name=nginx],v=4"],
        "version": 4,
    },
]


def test_ids_parse_as_inmanta_parses_them() -> None:
    assert parse_id("fs::File[host1,path=/etc/motd],v=3") == (
        "fs::File[host1,path=/etc/motd]",
        "fs::File",
        "host1",
        "path",
        "/etc/motd",
    )
    for bad in ("File[host1,path=/x]", "std::File[host1]", "std::File[h,path=/x],v=a"):
        with pytest.raises(ValueError):
            parse_id(bad)


def test_the_document_becomes_a_graph() -> None:
    graph = graph_from_export(DOCUMENT, "shop")
    conf = graph.resources["std::File[web1,path=/etc/nginx/nginx.conf]"]
    assert (conf.kind, conf.agent, conf.key, conf.name) == (
        "std::File",
        "web1",
        "path",
        "/etc/nginx/nginx.conf",
    )
    assert conf.meta == {"send_event": True, "purge_on_delete": False}
    assert "requires" not in conf.attributes and "version" not in conf.attributes
    assert conf.attributes["permissions"] == 644
    assert sorted((e.kind.value, e.source, e.target) for e in graph.edges) == [
        # the file sends events (send_event) and the service takes them: it listens
        ("listens", "std::File[web1,path=/etc/nginx/nginx.conf]", "std::Service[web1,name=nginx]"),
        ("requires", "std::Package[web1,name=nginx]", "std::File[web1,path=/etc/nginx/nginx.conf]"),
        ("requires", "std::Package[web1,name=nginx]", "std::Service[web1,name=nginx]"),
    ]
    quiet = [dict(e, receive_events=False) if e["id"].startswith("std::Service") else e for e in DOCUMENT]
    assert {e.kind for e in graph_from_export(quiet).edges} == {EdgeKind.REQUIRES}


def test_broken_documents_are_reported(tmp_path: Path) -> None:
    with pytest.raises(CfCompileError) as err:
        graph_from_export([{"id": "a::B[h,n=x],v=1", "requires": ["a::B[h,n=y],v=1"]}])
    assert err.value.code == "unknown-resource"
    path = tmp_path / "bad.json"
    path.write_text('[{"id": "nope"}]', encoding="utf-8")
    with pytest.raises(CfSerializationError) as bad:
        read_export(path)
    assert bad.value.render() == (
        f"{path}:1:1: error: resource 1: 'nope' is not a resource id (entity[agent,attribute=value])  [bad-export]"
    )
    path.write_text("[{]", encoding="utf-8")
    with pytest.raises(CfSerializationError) as broken:
        read_export(path)
    assert broken.value.render().startswith(f"{path}:1:3: error: not JSON:")


def test_graph_and_diff_read_export_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = tmp_path / "v4.json"
    first.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    assert main(["graph", str(first), "--format", "order"]) == 0
    assert capsys.readouterr().out == (
        "std::Package[web1,name=nginx]\nstd::File[web1,path=/etc/nginx/nginx.conf]\nstd::Service[web1,name=nginx]\n"
    )
    assert main(["graph", str(first), "--format", "yamlgraph"]) == 0
    text = capsys.readouterr().out
    assert (
        "  - name: /etc/nginx/nginx.conf\n    path: /etc/nginx/nginx.conf\n" in text
        and 'mode: "0644"' in text
    )
    changed = [dict(entry) for entry in DOCUMENT]
    changed[0]["permissions"] = 600
    changed[2]["requires"] = ["std::Package[web1,name=nginx],v=5"]
    second = tmp_path / "v5.json"
    second.write_text(json.dumps(changed), encoding="utf-8")
    assert main(["diff", str(first), str(second)]) == 1
    assert capsys.readouterr().out == "\n".join(
        [
            f"--- {first}",
            f"+++ {second}",
            "resources:",
            "~ std::File std::File[web1,path=/etc/nginx/nginx.conf]",
            "    permissions: 644 → 600",
            "edges:",
            "- listens std::File[web1,path=/etc/nginx/nginx.conf] -> std::Service[web1,name=nginx]",
            "0 added, 1 removed, 1 changed",
            "",
        ]
    )
