"""GraphBuilder: ids, edges of each kind (source runs first), merging, and every error it reports."""

from __future__ import annotations

import pytest

from cfmodel.errors import CfCompileError
from cfmodel.metamodel.resource_graph import EdgeKind
from cfmodel.transforms.graph import GraphBuilder, merge_graphs, resource_id

from .conftest import at, webshop_graph


def test_ids_follow_inmanta_and_mgmt() -> None:
    assert resource_id("std::File", "/etc/motd", "host1", "path") == "std::File[host1,path=/etc/motd]"
    assert resource_id("exec", "run", "host1") == "exec[host1,run]"
    assert resource_id("file", "/tmp/x") == "file[/tmp/x]"


def test_every_statement_kind_is_normalised_to_first_then() -> None:
    b = GraphBuilder()
    x, y = b.resource("pkg", "a"), b.resource("svc", "b")
    b.requires(y, x)
    b.before(x, y)
    b.notify(x, y)
    b.listen(y, x)
    b.send_recv(x, "out", y, "in")
    graph = b.build()
    assert [(e.kind, e.source, e.target) for e in graph.edges] == [
        (kind, "pkg[a]", "svc[b]")
        for kind in (EdgeKind.REQUIRES, EdgeKind.BEFORE, EdgeKind.NOTIFY, EdgeKind.LISTEN, EdgeKind.SENDRECV)
    ]
    assert (graph.edges[-1].send_field, graph.edges[-1].recv_field) == ("out", "in")
    assert graph.successors() == {"pkg[a]": ["svc[b]"] * 5, "svc[b]": []}


def test_identical_duplicates_merge_with_both_provenances() -> None:
    b = GraphBuilder()
    one = b.resource("file", "/x", attributes={"mode": 1, "tags": ("a",)}, provenance=at(1, "first"))
    b.resource("file", "/x", attributes={"tags": ["a"], "mode": 1}, provenance=at(5, "second"))
    other = b.resource("file", "/y")
    b.before(one, other, at(7, "e"))
    b.before("file[/x]", "file[/y]", at(8, "e again"))
    graph = b.build()
    assert list(graph.resources) == ["file[/x]", "file[/y]"]
    assert [p.statement for p in graph.resources["file[/x]"].provenance] == ["first", "second"]
    assert graph.resources["file[/x]"].attributes == {"mode": 1, "tags": ["a"]}
    (edge,) = graph.edges
    assert [p.statement for p in edge.provenance] == ["e", "e again"]


def test_incompatible_duplicates_and_unknown_ends_are_reported_together() -> None:
    b = GraphBuilder()
    b.resource("file", "/x", attributes={"mode": 1}, provenance=at(1))
    b.resource("file", "/x", attributes={"mode": True}, provenance=at(4))
    b.resource("file", "/y", agent="a1", provenance=at(6))
    b.resource("file", "/y", agent="a1", id="file[a1,/y]", attributes={"extra": "x"}, provenance=at(7))
    b.before("file[/x]", "file[/nope]", at(9, "x -> nope"))
    b.resource("file", "/z", attributes={"bad": object()}, provenance=at(11))
    with pytest.raises(CfCompileError) as err:
        b.build()
    assert err.value.render() == "\n".join(
        [
            "main.cf:4:1: error: resource file[/x] is declared twice with different values:"
            " attribute 'mode' is true here and 1 before  [incompatible-duplicate]",
            "main.cf:1:1: note: file[/x] was first declared here",
            "main.cf:7:1: error: resource file[a1,/y] is declared twice with different values:"
            " attribute 'extra' is \"x\" here and missing before  [incompatible-duplicate]",
            "main.cf:6:1: note: file[a1,/y] was first declared here",
            "main.cf:9:1: error: before edge file[/x] -> file[/nope]: no resource has the id 'file[/nope]'  [unknown-resource]",
            "main.cf:11:1: error: attribute 'bad': 'object' is not a graph value"
            " (strings, numbers, booleans, null, lists, maps)  [bad-value]",
        ]
    )


def test_values_out_of_range_are_refused() -> None:
    b = GraphBuilder()
    b.resource("file", "/x", meta={"n": 2**64, "m": {1: "a"}})
    with pytest.raises(CfCompileError) as err:
        b.build()
    assert [d.message for d in err.value.diagnostics()] == [
        "meta parameter 'm': map key 1 is not a string",
        "meta parameter 'n': integer 18446744073709551616 does not fit in 64 bits",
    ]


def test_merge_graphs_unions_and_refuses_conflicts() -> None:
    a, b = webshop_graph(), webshop_graph()
    merged = merge_graphs([a, b])
    assert list(merged.resources) == list(a.resources) and len(merged.edges) == len(a.edges)
    first = merged.resources["std::Package[db1,name=nginx]"]
    assert len(first.provenance) == 1  # the same provenance twice is kept once
    b.resources["std::Package[db1,name=nginx]"].attributes["state"] = "removed"
    with pytest.raises(CfCompileError) as err:
        merge_graphs([a, b])
    assert err.value.code == "incompatible-duplicate"
    assert 'attribute \'state\' is "removed" here and "installed" before' in err.value.message


def test_values_are_copied_at_the_call_and_checked_by_each_build() -> None:
    b = GraphBuilder()
    given = {"mode": 1, "tags": ("a", ("b",))}
    made = b.resource("file", "/x", attributes=given, provenance=at(1))
    given["mode"] = 2  # the caller's dict is its own
    first = b.build()
    assert first.resources["file[/x]"].attributes == {"mode": 1, "tags": ["a", ["b"]]}
    assert made.attributes is first.resources["file[/x]"].attributes
    b.resource("file", "/y", meta={"n": 2**63, "ok": -(2**63)}, provenance=at(3))
    b.resource("file", "/z", attributes={"b": True, "f": 1.5, "s": "", "none": None}, provenance=at(4))
    with pytest.raises(CfCompileError) as err:
        b.build()  # the resources declared since the first build are checked too
    assert err.value.render() == (
        "main.cf:3:1: error: meta parameter 'n': integer 9223372036854775808 does not fit in 64 bits  [bad-value]"
    )
    with pytest.raises(CfCompileError) as again:
        b.build()  # and reported again, not lost
    assert again.value.render() == err.value.render()
