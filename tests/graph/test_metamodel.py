"""The graph metamodel: its package, the typed graph's Ecore form, XMI/JSON files, real EMF."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.resources import ResourceSet, global_registry

from cfmodel.metamodel import graph as gm
from cfmodel.metamodel.resource_graph import EdgeKind, from_ecore, graph_equal, to_ecore, values_equal
from cfmodel.serializers import canonical, ecore, read
from cfmodel.serializers.base import register_packages
from cfmodel.transforms.graph.files import graph_ids, read_graph, write_graph
from tests.conftest import skip_or_fail
from tests.emf.emf import EmfChecker, EmfUnavailableError, build_checker

from .conftest import webshop_graph


@pytest.fixture(scope="module")
def emf() -> EmfChecker:
    try:
        return build_checker()
    except EmfUnavailableError as exc:
        skip_or_fail(f"real EMF unavailable: {exc}")
        raise


def test_package_identity_and_classes() -> None:
    assert (gm.PACKAGE.name, gm.PACKAGE.nsURI, gm.PACKAGE.nsPrefix) == (
        "graph",
        "http://cfmodel.org/graph/1.0",
        "graph",
    )
    assert [lit.name for lit in gm.EdgeKind.eLiterals] == [
        "requires",
        "before",
        "notifies",
        "listens",
        "sendrecv",
    ]
    assert [f.name for f in gm.Resource.eStructuralFeatures] == [
        "resourceId",
        "kind",
        "name",
        "key",
        "agent",
        "attributes",
        "meta",
        "provenance",
    ]
    assert [f.name for f in gm.Edge.eStructuralFeatures] == [
        "kind",
        "source",
        "target",
        "sendField",
        "recvField",
        "provenance",
    ]
    assert not gm.Edge.findEStructuralFeature("source").containment
    assert gm.NS_URI not in global_registry


def test_typed_values_survive_the_ecore_form() -> None:
    graph = webshop_graph()
    root = to_ecore(graph)
    conf = next(r for r in root.resources if r.resourceId == "std::File[db1,path=/etc/nginx.conf]")
    kinds = {a.name: a.value.eClass.name for a in conf.attributes}
    assert kinds == {
        "content": "StringValue",
        "mode": "IntegerValue",
        "owner": "NullValue",
        "tags": "ListValue",
        "env": "MapValue",
    }
    assert [v.eClass.name for v in next(a for a in conf.attributes if a.name == "tags").value.items] == [
        "StringValue",
        "IntegerValue",
        "FloatValue",
        "BooleanValue",
    ]
    back = from_ecore(root)
    assert graph_equal(graph, back)
    assert back.resources[conf.resourceId].attributes["tags"] == ["a", 1, 1.5, True]
    assert (
        not values_equal(1, True)
        and not values_equal(1, 1.0)
        and values_equal({"a": 1, "b": 2}, {"b": 2, "a": 1})
    )


def test_edges_keep_kind_fields_and_provenance() -> None:
    root = to_ecore(webshop_graph())
    sendrecv = [e for e in root.edges if e.kind.name == "sendrecv"]
    assert len(sendrecv) == 1
    edge = sendrecv[0]
    assert (edge.source.resourceId, edge.sendField, edge.target.resourceId, edge.recvField) == (
        "std::File[web1,path=/etc/nginx.conf]",
        "content",
        "std::Service[db1,name=nginx]",
        "reload",
    )
    (prov,) = edge.provenance
    assert (prov.file, prov.line, prov.column, prov.endLine, prov.endColumn, prov.statement) == (
        "main.cf",
        30,
        1,
        30,
        20,
        "send/recv",
    )
    assert EdgeKind.SENDRECV.notifies and EdgeKind.NOTIFY.notifies and not EdgeKind.REQUIRES.notifies


@pytest.mark.parametrize("suffix", [".xmi", ".json"])
def test_files_read_back_equal(tmp_path: Path, suffix: str) -> None:
    graph = webshop_graph()
    path = tmp_path / f"graph{suffix}"
    write_graph(path, graph)
    assert graph_equal(read_graph(path), graph)
    first = path.read_bytes()
    write_graph(path, webshop_graph())
    assert path.read_bytes() == first  # deterministic
    if suffix == ".xmi":
        text = first.decode()
        assert 'xmi:id="std_3a__3a_File_5b_db1_2c_path_3d__2f_etc_2f_nginx.conf_5d_"' in text


def test_a_file_that_holds_no_graph_is_refused(tmp_path: Path) -> None:
    from cfmodel.errors import CfSerializationError
    from cfmodel.metamodel import environments as em
    from cfmodel.serializers import write

    path = tmp_path / "other.xmi"
    write(path, [gm.Provenance(producer="x")])
    with pytest.raises(CfSerializationError) as err:
        read_graph(path)
    assert err.value.render() == (
        f"{path}:1:1: error: expected one Graph of http://cfmodel.org/graph/1.0 as the only root  [not-a-graph]"
    )
    write(path, [em.Fact(name="a", value="1")])
    with pytest.raises(CfSerializationError) as err:
        read_graph(path)
    assert err.value.code == "bad-xmi"  # another package's model: no metamodel for it here


def test_real_emf_loads_the_metamodel_and_a_graph(emf: EmfChecker, tmp_path: Path) -> None:
    graph = webshop_graph()
    ecore.write(tmp_path / "graph.ecore", gm.PACKAGE)
    write_graph(tmp_path / "webshop.xmi", graph)
    report = emf.check([tmp_path / "graph.ecore"], [tmp_path / "webshop.xmi"])
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    assert report.dump("graph.ecore") == canonical.dump_packages([gm.PACKAGE])
    rset = ResourceSet()
    register_packages(rset, [gm.PACKAGE])
    doc = read(tmp_path / "webshop.xmi", rset)
    ids = {o: i for o in canonical.walk(doc.roots) if (i := graph_ids(o))}
    assert report.dump("webshop.xmi") == canonical.dump_objects(doc.roots, ids)
