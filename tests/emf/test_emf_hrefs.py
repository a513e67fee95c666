"""Models spanning several XMI documents, both ways with real EMF: what cfmodel writes
(``xmi.write_all``: ``href``s between documents, proxies kept, relative URIs) EMF loads
with 0 problems and resolves; what EMF writes for a multi-file model cfmodel reads as EMF
does and, in EMF's layout, writes back byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyecore.ecore import EObject
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, crossrefs, ecore, xmi

from .emf import EmfChecker
from .test_emf_crossrefs import HEAD, _metamodel, _write


def _built(folder: Path) -> tuple[Path, ResourceSet, dict[str, list[EObject]]]:
    """A model of three documents made in Python (not read): nets A and B refer to each
    other's nodes; C (in a subdirectory) to both; A also holds a proxy to an absent file."""
    folder.mkdir(parents=True, exist_ok=True)
    pkg = _metamodel()
    mm = folder / "net.ecore"
    ecore.write(mm, pkg)
    rset = ResourceSet()
    (pkg,) = ecore.read(mm, rset).roots
    network, node, router = (pkg.getEClassifier(n) for n in ("Network", "Node", "Router"))
    a, b, c = network(name="A"), network(name="B"), network(name="C")
    a1, a2, b1 = node(name="a1"), router(name="a2"), node(name="b1")
    c1 = node(name="c1")
    a.nodes.extend([a1, a2])
    b.nodes.append(b1)
    c.nodes.append(c1)
    a.uplink = b
    b.uplink = a
    c.uplink = a
    a1.peers.extend([a2, b1])  # one inside, one in B: both written as hrefs
    a1.gateway = a2  # inside: an XML attribute
    b1.peers.append(a2)  # a Router where the feature says Node
    b1.owner = c  # Element is abstract: EMF writes xsi:type
    c1.peers.extend([a1, b1])
    a2.peers.append(crossrefs.proxy(node, f"file:{folder}/gone.xmi#g1"))
    a2.owner = crossrefs.proxy(network, "platform:/resource/proj/other.xmi#/")
    return mm, rset, {"a.xmi": [a], "b.xmi": [b], "sub/c.xmi": [c]}


def test_emf_loads_what_write_all_writes_and_resolves_every_href(emf: EmfChecker, tmp_path: Path) -> None:
    mm, _, documents = _built(tmp_path)
    out = tmp_path / "out"
    written = xmi.write_all(out, documents)
    assert written == [out / "a.xmi", out / "b.xmi", out / "sub" / "c.xmi"]
    text = {name: (out / name).read_text(encoding="utf-8") for name in documents}
    assert (
        '<peers xsi:type="net:Router" href="#//@nodes.1"/>' in text["a.xmi"]
        and '<peers href="b.xmi#//@nodes.0"/>' in text["a.xmi"]
    )
    assert 'gateway="//@nodes.1"' in text["a.xmi"]
    assert '<peers href="../gone.xmi#g1"/>' in text["a.xmi"]
    assert '<owner xsi:type="net:Network" href="platform:/resource/proj/other.xmi#/"/>' in text["a.xmi"]
    assert '<owner xsi:type="net:Network" href="sub/c.xmi#/"/>' in text["b.xmi"]
    assert '<peers xsi:type="net:Router" href="a.xmi#//@nodes.1"/>' in text["b.xmi"]
    assert '<uplink href="../a.xmi#/"/>' in text["sub/c.xmi"]
    report = emf.check([mm], written)
    assert report.of_kind("error") == []
    # EcoreValidator's remark on the metamodel (a data type without a Java class), and the
    # Diagnostician's on the two proxies: nothing else
    remarks = [(r["file"], "unresolved proxy" in r["message"]) for r in report.of_kind("diagnostic")]
    assert remarks == [("net.ecore", False), ("a.xmi", True), ("a.xmi", True)]
    # only the two proxies made on purpose stay unresolved; every href between documents resolves
    assert sorted(r["proxy"] for r in report.of_kind("unresolved")) == [
        f"file:{tmp_path}/gone.xmi#g1 from peers",
        "platform:/resource/proj/other.xmi#/ from owner",
    ]
    # and EMF reads the objects cfmodel holds (each document dumped by both)
    rset = ResourceSet()
    ecore.read(mm, rset)
    # (gone.xmi is beside out/: the reading may look there)
    read = xmi.read_all(written, rset, xmi.XmiOptions(root=tmp_path))
    for name, document in zip(documents, read, strict=True):
        assert canonical.dump_objects(document.roots, document.ids) == report.dump(Path(name).name), name


def test_written_sets_read_back_to_the_same_objects(tmp_path: Path) -> None:
    mm, _, documents = _built(tmp_path)
    out = tmp_path / "out"
    written = xmi.write_all(out, documents)
    rset = ResourceSet()
    ecore.read(mm, rset)
    # reads b.xmi and sub/c.xmi through its references; gone.xmi is beside out/
    (a,) = xmi.read(written[0], rset, xmi.XmiOptions(root=tmp_path)).roots
    b = a.uplink
    a1, a2 = a.nodes
    (b1,) = b.nodes
    assert list(a1.peers) == [a2, b1] and a1.gateway is a2 and b.uplink is a
    assert b1.owner.name == "C" and list(b1.owner.nodes[0].peers) == [a1, b1]
    gone, other = a2.peers[0], a2.owner
    assert crossrefs.proxy_uri(gone) == f"file:{tmp_path}/gone.xmi#g1"
    assert crossrefs.proxy_uri(other) == "platform:/resource/proj/other.xmi#/"
    # written again where they were read from: the same bytes (proxies written back unchanged)
    again = xmi.set_to_bytes(out, {"a.xmi": [a], "b.xmi": [b], "sub/c.xmi": [b1.owner]})
    assert again == {name: (out / name).read_bytes() for name in documents}


def test_a_document_written_alone_names_objects_of_documents_read_before(tmp_path: Path) -> None:
    mm, a_path, _ = _write(tmp_path)
    rset = ResourceSet()
    ecore.read(mm, rset)
    (net_a,) = xmi.read(a_path, rset).roots
    net_b = net_a.uplink
    extra = net_a.eClass.ePackage.getEClassifier("Node")(name="x")
    extra.peers.extend([net_b.nodes[0], net_a.nodes[0]])  # objects of b.xmi and a.xmi, both read
    target = tmp_path / "more" / "x.xmi"
    target.parent.mkdir()
    xmi.write(target, [extra])
    text = target.read_text(encoding="utf-8")
    assert '<peers href="../b.xmi#b1"/>' in text and '<peers href="../a.xmi#a1"/>' in text


def test_a_target_in_no_document_is_still_refused(tmp_path: Path) -> None:
    _, _, documents = _built(tmp_path)
    (a,) = documents["a.xmi"]
    with pytest.raises(CfSerializationError) as exc:
        xmi.to_bytes([a])  # B is not written with it, and is in no resource
    said = [
        (n.message.split(":")[0], n.message.endswith("is not an object of this document"))
        for n in exc.value.notes
    ]
    assert said == [("Network #0.uplink", True), ("Node #1.peers", True)]  # B, and b1 in it


def test_emf_written_multi_file_models_read_as_emf_reads_them_and_write_back_byte_for_byte(
    emf: EmfChecker, tmp_path: Path
) -> None:
    mm, a, b = _write(tmp_path / "in")
    out = tmp_path / "emf"
    out.mkdir()
    report = emf.check([mm], [a, b], resave_dir=out)  # EMF's own files: hrefs between them
    assert report.of_kind("error") == []
    emf_a, emf_b = out / "a.xmi", out / "b.xmi"
    assert '<peers href="b.xmi#b1"/>' in emf_a.read_text(encoding="utf-8")
    shutil.rmtree(tmp_path / "in")  # nothing is read from where the originals were
    rset = ResourceSet()
    ecore.read(out / "net.ecore", rset)
    # (the proxy EMF kept names ../in/missing.xmi: the reading may look beside emf/)
    documents = xmi.read_all([emf_a, emf_b], rset, xmi.XmiOptions(root=tmp_path))
    again = emf.check([out / "net.ecore"], [emf_a, emf_b])
    for doc, name in zip(documents, ("a.xmi", "b.xmi"), strict=True):
        assert canonical.dump_objects(doc.roots, doc.ids) == again.dump(name), name
    ids = {**documents[0].ids, **documents[1].ids}
    written = xmi.set_to_bytes(
        out,
        {"a.xmi": documents[0].roots, "b.xmi": documents[1].roots},
        xmi.XmiOptions(id_of=ids.get, emf_layout=True),
    )
    assert written == {"a.xmi": emf_a.read_bytes(), "b.xmi": emf_b.read_bytes()}


def test_containment_proxies_keep_their_place_and_their_document(emf: EmfChecker, tmp_path: Path) -> None:
    """A child kept in another document (EMF's containment proxy) stays a proxy in its place
    (its document keeps its root), and the document is written back as EMF writes it."""
    src = tmp_path / "in"
    mm, a, _ = _write(src)
    a.write_text(
        HEAD + ' xmi:id="netA" name="A">\n  <nodes xsi:type="net:Router" href="c.xmi#c1"/>\n'
        '  <nodes xmi:id="a2" name="a2" gateway="c.xmi#c1"/>\n</net:Network>\n',
        encoding="utf-8",
    )
    (src / "c.xmi").write_text(
        HEAD.replace("net:Network", "net:Router") + ' xmi:id="c1" name="c1"/>\n', encoding="utf-8"
    )
    out = tmp_path / "emf"
    out.mkdir()
    report = emf.check([mm], [a, src / "c.xmi"], resave_dir=out)
    assert report.problems() == [
        "diagnostic in net.ecore: error: The instance type name 'null' is not well formed"
    ]
    assert report.summary["unresolved"] == 0  # EMF resolves the child in c.xmi
    shutil.rmtree(src)
    rset = ResourceSet()
    ecore.read(out / "net.ecore", rset)
    doc_a, doc_c = xmi.read_all([out / "a.xmi", out / "c.xmi"], rset)
    first, second = doc_a.roots[0].nodes
    # (EMF leaves out xsi:type where the feature's class is not abstract: the proxy is a Node)
    assert crossrefs.proxy_uri(first) == f"file:{out}/c.xmi#c1" and first.eClass.name == "Node"
    (c1,) = doc_c.roots
    assert second.gateway is c1 and c1.eContainer() is None  # c.xmi keeps its root
    written = xmi.set_to_bytes(
        out,
        {"a.xmi": doc_a.roots, "c.xmi": doc_c.roots},
        xmi.XmiOptions(id_of={**doc_a.ids, **doc_c.ids}.get, emf_layout=True),
    )
    assert written == {"a.xmi": (out / "a.xmi").read_bytes(), "c.xmi": (out / "c.xmi").read_bytes()}
    assert '  <nodes href="c.xmi#c1"/>\n' in written["a.xmi"].decode()
