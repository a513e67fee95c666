"""References from a JSON document to other documents, written as emfjson-jackson writes
them (issue 17, item 6): ``{"eClass": …, "$ref": "<other document, relative>#<fragment>"}``,
the fragment as the other document names the object (its id, else its position), a
proxy by the URI it keeps; `json.write_all` writes a set referring to each other, and
cfmodel's JSON reader reads it back to the same objects and targets."""

from __future__ import annotations

import json as std_json
from pathlib import Path
from typing import Any

import pytest
from pyecore.ecore import EObject
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, crossrefs, ecore, json, xmi
from tests.emf.test_emf_crossrefs import NS, _metamodel

NETWORK = f"{NS}#//Network"
NODE = f"{NS}#//Node"
ROUTER = f"{NS}#//Router"


def _refs(value: Any) -> list[tuple[str, str]]:
    """Every (eClass, $ref) of a JSON value, in document order."""
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    if not isinstance(value, dict):
        return []
    if "$ref" in value:
        return [(value["eClass"], value["$ref"])]
    return [r for v in value.values() for r in _refs(v)]


class _Set:
    """Two JSON documents (``a.json``, ``sub/b #1.json``) and an XMI one (``x.xmi``, read
    back into the resource set) referring to each other, and a proxy."""

    def __init__(self, out: Path) -> None:
        out.mkdir()
        self.out = out
        ecore.write(out / "net.ecore", _metamodel())
        rset = ResourceSet()
        (pkg,) = ecore.read(out / "net.ecore", rset).roots
        network, node, router = (pkg.getEClassifier(n) for n in ("Network", "Node", "Router"))
        x = network(name="X")
        x.nodes.extend([node(name="x1"), router(name="x2")])
        xmi.write(out / "x.xmi", [x], xmi.XmiOptions(id_of={x.nodes[0]: "x1"}.get))
        (self.x,) = xmi.read(out / "x.xmi", rset).roots
        a, b = network(name="A"), network(name="B")
        a.nodes.extend([node(name="a1"), node(name="a2")])
        b.nodes.extend([node(name="b1"), router(name="b2")])
        a.uplink, b.uplink = b, a
        a.nodes[0].peers.extend([b.nodes[0], b.nodes[1], self.x.nodes[0], self.x.nodes[1], a.nodes[1]])
        a.nodes[1].gateway = crossrefs.proxy(node, f"file:{out}/missing.json#m1")
        b.nodes[0].gateway = a.nodes[0]
        b.nodes[0].owner = self.x
        self.a, self.b = a, b
        ids = {a: "netA", a.nodes[0]: "a1", b.nodes[0]: "b1"}
        self.options = json.JsonOptions(id_of=ids.get, indent=1)
        self.documents = {"a.json": [a], "sub/b #1.json": [b]}


def test_a_set_of_documents_is_written_with_relative_refs_and_read_back_equal(tmp_path: Path) -> None:
    made = _Set(tmp_path / "out")
    out = made.out
    written = json.write_all(out, made.documents, made.options)
    assert written == [out / "a.json", out / "sub" / "b #1.json"]
    a_text, b_text = (p.read_bytes() for p in written)
    assert _refs(std_json.loads(a_text)) == [
        (NODE, "sub/b%20%231.json#b1"),  # by id, the file name escaped as EMF escapes it
        (ROUTER, "sub/b%20%231.json#//@nodes.1"),  # by position in its document
        (NODE, "x.xmi#x1"),  # an XMI document's object by its xmi:id
        (ROUTER, "x.xmi#//@nodes.1"),
        (NODE, "//@nodes.1"),  # the document's own object: as before
        (NODE, "missing.json#m1"),  # a proxy: the URI it keeps, relative
        (NETWORK, "sub/b%20%231.json#/"),
    ]
    assert _refs(std_json.loads(b_text)) == [
        (NODE, "../a.json#a1"),
        (NETWORK, "../x.xmi#/"),
        (NETWORK, "../a.json#netA"),
    ]
    # deterministic: the same bytes again, in memory and on disk
    again = json.set_to_bytes(out, made.documents, made.options)
    assert again == {"a.json": a_text, "sub/b #1.json": b_text}

    rset = ResourceSet()
    ecore.read(out / "net.ecore", rset)
    first, second = json.read_all(written, rset)
    (ra,), (rb,) = first.roots, second.roots
    assert canonical.dump_objects([ra, rb]) == canonical.dump_objects([made.a, made.b])
    assert (first.ids[ra], first.ids[ra.nodes[0]], second.ids[rb.nodes[0]]) == ("netA", "a1", "b1")
    peers = list(ra.nodes[0].peers)
    assert peers[:2] == list(rb.nodes) and peers[4] is ra.nodes[1]  # same objects, not copies
    assert [p.name for p in peers[2:4]] == ["x1", "x2"] and peers[2].eResource is peers[3].eResource
    assert peers[2].eResource.uri.plain.endswith("x.xmi") and rb.nodes[0].owner is peers[2].eContainer()
    assert rb.nodes[0].gateway is ra.nodes[0] and (ra.uplink, rb.uplink) == (rb, ra)
    assert crossrefs.proxy_uri(ra.nodes[1].gateway) == f"file:{out}/missing.json#m1"
    # what was read writes back to the same bytes (the ids and places as read)
    ids = {**first.ids, **second.ids}
    reread = json.set_to_bytes(out, {"a.json": [ra], "sub/b #1.json": [rb]}, _options(ids))
    assert reread == {"a.json": a_text, "sub/b #1.json": b_text}


def _options(ids: dict[EObject, str]) -> json.JsonOptions:
    return json.JsonOptions(id_of=ids.get, indent=1)


def test_one_document_refers_relative_to_where_it_is_written(tmp_path: Path) -> None:
    """`json.write` names another document's objects relative to the target; `to_bytes`
    without a location names them by absolute ``file:`` URI; a model without such
    references is written as before (the fast path's bytes)."""
    made = _Set(tmp_path / "out")
    node = made.x.nodes[0].eClass
    alone = made.x.eClass(name="alone")
    alone.nodes.append(node(name="n"))
    before = json.to_bytes([alone])
    alone.nodes[0].peers.append(made.x.nodes[1])
    (made.out / "deep").mkdir()
    json.write(made.out / "deep" / "c.json", [alone])
    text = (made.out / "deep" / "c.json").read_text(encoding="utf-8")
    assert _refs(std_json.loads(text)) == [(ROUTER, "../x.xmi#//@nodes.1")]
    assert _refs(std_json.loads(json.to_bytes([alone]))) == [(ROUTER, f"file:{made.out}/x.xmi#//@nodes.1")]
    alone.nodes[0].peers.clear()
    assert json.to_bytes([alone]) == before


def test_what_no_document_holds_or_a_contained_proxy_is_refused(tmp_path: Path) -> None:
    made = _Set(tmp_path / "out")
    stray = made.x.nodes[0].eClass(name="stray")  # in no document and no resource
    made.a.nodes[0].gateway = stray
    with pytest.raises(CfSerializationError) as exc:
        json.set_to_bytes(made.out, made.documents, made.options)
    assert exc.value.code == "invalid-model"
    assert "is not an object of this document" in exc.value.render()
    made.a.nodes[0].gateway = None
    made.b.nodes.append(crossrefs.proxy(stray.eClass, f"file:{made.out}/y.json#y"))
    with pytest.raises(CfSerializationError, match=r"a proxy \(file:.*y\.json#y\) is contained in Network"):
        json.write_all(made.out / "new", made.documents, made.options)
    assert not (made.out / "new").exists()  # nothing written
