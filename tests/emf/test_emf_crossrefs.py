"""The XMI reader takes the references EMF writes: ``#id`` and ``#//@a.0`` inside the
document, ``other.xmi#id`` and ``href`` elements to other documents of the resource set
(read once, even in a circle), proxies that keep their URI when the target's document is
absent, ``xsi:schemaLocation``, and data types without a Java class (strings). cfmodel's
reading of the documents dumps the same as EMF's own."""

from __future__ import annotations

from pathlib import Path

from pyecore.ecore import EAttribute, EClass, EDataType, EPackage, EReference, EString
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, crossrefs, ecore, xmi

from .emf import EmfChecker

NS = "http://example.org/net"
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<net:Network xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    f'xmlns:net="{NS}" xsi:schemaLocation="{NS} net.ecore"'
)


def _metamodel() -> EPackage:
    pkg = EPackage("net", nsURI=NS, nsPrefix="net")
    label = EDataType("Label")  # no instanceClassName: EMF keeps its values as strings
    element = EClass("Element", abstract=True)
    element.eStructuralFeatures.append(EAttribute("name", EString))
    node = EClass("Node", superclass=(element,))
    router = EClass("Router", superclass=(node,))
    network = EClass("Network", superclass=(element,))
    node.eStructuralFeatures.append(EAttribute("label", label))
    node.eStructuralFeatures.append(EReference("peers", node, upper=-1))
    node.eStructuralFeatures.append(EReference("gateway", node))
    node.eStructuralFeatures.append(EReference("owner", element))
    network.eStructuralFeatures.append(EReference("nodes", node, upper=-1, containment=True))
    network.eStructuralFeatures.append(EReference("uplink", network))
    pkg.eClassifiers.extend([label, element, node, router, network])
    return pkg


def _write(folder: Path) -> tuple[Path, Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    mm = folder / "net.ecore"
    ecore.write(mm, _metamodel())
    a, b = folder / "a.xmi", folder / "b.xmi"
    a.write_text(
        HEAD + ' xmi:id="netA" name="A" uplink="b.xmi#netB">\n'
        '  <nodes xmi:id="a1" name="a1" label="edge one" peers="#a2 b.xmi#b1" gateway="#//@nodes.1"/>\n'
        '  <nodes xmi:id="a2" name="a2" gateway="b.xmi#//@nodes.0" owner="#netA"/>\n'
        '  <nodes xsi:type="net:Router" name="a3">\n'
        '    <peers href="b.xmi#b1"/>\n'
        '    <peers xsi:type="net:Router" href="missing.xmi#r9"/>\n'
        '    <owner xsi:type="net:Network" href="b.xmi#/"/>\n'
        "  </nodes>\n"
        "</net:Network>\n",
        encoding="utf-8",
    )
    b.write_text(
        HEAD + ' xmi:id="netB" name="B" uplink="a.xmi#netA">\n'
        '  <nodes xmi:id="b1" name="b1" peers="a.xmi#a1 a.xmi#//@nodes.2"/>\n'
        "</net:Network>\n",
        encoding="utf-8",
    )
    return mm, a, b


def test_cross_document_references_read_as_emf_reads_them(emf: EmfChecker, tmp_path: Path) -> None:
    mm, a, b = _write(tmp_path)
    report = emf.check([mm], [a, b])
    # EMF keeps the reference to the absent document as an unresolved proxy, as we do
    assert [r["proxy"] for r in report.of_kind("unresolved")] == [
        f"file:{tmp_path}/missing.xmi#r9 from peers"
    ]
    assert report.of_kind("error") == []
    rset = ResourceSet()
    ecore.read(mm, rset)
    doc_a = xmi.read(a, rset)  # reads b.xmi too: a refers to it
    assert crossrefs.documents(rset).has(b)
    (resource_b,) = [r for r in rset.resources.values() if str(r.uri.plain).endswith("b.xmi")]
    # the one difference, on purpose: EMF reads a value of a data type without a Java class
    # as null (its factory has no class to make); cfmodel keeps the text
    emf_a = [
        line.replace("label = null", 'label = "edge one"', 1) if i == 6 else line
        for i, line in enumerate(report.dump("a.xmi"))
    ]
    assert report.dump("a.xmi")[6] == "  label = null"
    assert canonical.dump_objects(doc_a.roots, doc_a.ids) == emf_a
    roots_b = list(resource_b.contents)
    ids_b = resource_b.__dict__["_cfmodel_ids"]
    assert canonical.dump_objects(roots_b, ids_b) == report.dump("b.xmi")


def test_the_circle_is_read_once_and_closes(tmp_path: Path) -> None:
    mm, a, _ = _write(tmp_path)
    rset = ResourceSet()
    ecore.read(mm, rset)
    (net_a,) = xmi.read(a, rset).roots
    net_b = net_a.uplink
    assert net_b.name == "B" and net_b.uplink is net_a
    a1, a2, a3 = net_a.nodes
    (b1,) = net_b.nodes
    assert list(a1.peers) == [a2, b1] and a1.gateway is a2 and a2.gateway is b1 and a2.owner is net_a
    assert list(b1.peers) == [a1, a3]
    assert a1.label == "edge one"
    missing = a3.peers[1]
    assert missing.eClass.name == "Router"
    assert crossrefs.proxy_uri(missing) == f"file:{tmp_path}/missing.xmi#r9"
    assert a3.owner is net_b
    assert len(rset.resources) == 3  # net.ecore, a.xmi, b.xmi: each once


def test_without_loading_every_other_document_is_a_proxy(tmp_path: Path) -> None:
    mm, a, _ = _write(tmp_path)
    rset = ResourceSet()
    ecore.read(mm, rset)
    (net_a,) = xmi.read(a, rset, xmi.XmiOptions(load_references=False)).roots
    assert crossrefs.proxy_uri(net_a.uplink) == f"file:{tmp_path}/b.xmi#netB"
    assert not crossrefs.documents(rset).has(tmp_path / "b.xmi")


def test_platform_uris_go_through_the_uri_map(tmp_path: Path) -> None:
    mm, a, _ = _write(tmp_path / "workspace" / "proj")
    text = a.read_text(encoding="utf-8").replace("b.xmi#", "platform:/resource/proj/b.xmi#")
    a.write_text(text, encoding="utf-8")
    rset = ResourceSet()
    ecore.read(mm, rset)
    options = xmi.XmiOptions(uri_map={"platform:/resource/": f"{tmp_path}/workspace/"})
    (net_a,) = xmi.read(a, rset, options).roots
    assert net_a.uplink.name == "B" and crossrefs.proxy_uri(net_a.uplink) is None
    rset = ResourceSet()
    ecore.read(mm, rset)
    (net_a,) = xmi.read(a, rset).roots  # no map: kept as proxies, the URI as written
    assert crossrefs.proxy_uri(net_a.uplink) == "platform:/resource/proj/b.xmi#netB"


def test_uri_resolution() -> None:
    assert crossrefs.resolve_uri("/m/a.xmi", "b.xmi") == "file:/m/b.xmi"
    assert crossrefs.resolve_uri("/m/a.xmi", "../x/b.xmi") == "file:/x/b.xmi"
    assert crossrefs.resolve_uri("/m/a.xmi", "file:///y/b.xmi") == "file:/y/b.xmi"
    assert crossrefs.resolve_uri("/m/a.xmi", "http://e.org/b") == "http://e.org/b"
    assert crossrefs.same_document("/m/a.xmi", "a.xmi") and crossrefs.same_document("/m/a.xmi", "../m/a.xmi")
    assert not crossrefs.same_document("/m/a.xmi", "b.xmi")


def test_the_metamodel_is_found_through_xsi_schema_location(emf: EmfChecker, tmp_path: Path) -> None:
    """No metamodel registered: EMF loads ``net.ecore`` from the documents'
    ``xsi:schemaLocation``, and so does cfmodel (once, for both documents); the dumps agree.
    A location that is no file here, or one outside the directories the reading may enter,
    is a located error naming it."""
    _, a, b = _write(tmp_path / "m")
    report = emf.check([], [a, b])
    assert report.of_kind("error") == []
    rset = ResourceSet()
    doc_a = xmi.read(a, rset)
    assert [str(r.uri.plain).rsplit("/", 1)[-1] for r in rset.resources.values()] == [
        "net.ecore",
        "b.xmi",
        "a.xmi",
    ]
    dump = canonical.dump_objects(doc_a.roots, doc_a.ids)
    assert dump[6] == '  label = "edge one"' and report.dump("a.xmi")[6] == "  label = null"
    assert dump[:6] == report.dump("a.xmi")[:6] and dump[7:] == report.dump("a.xmi")[7:]
    a.write_text(
        a.read_text(encoding="utf-8").replace(f"{NS} net.ecore", f"{NS} gone.ecore"), encoding="utf-8"
    )
    try:
        xmi.read(a, ResourceSet())
    except CfSerializationError as exc:
        assert str(exc) == (
            f"{a}:2:1: error: no metamodel registered for namespace '{NS}', and its xsi:schemaLocation"
            " 'gone.ecore' is no file here (read its .ecore first, or give --uri-map)  [bad-xmi]"
        )
    else:
        raise AssertionError("read without its metamodel")
    inner = tmp_path / "m" / "inner"
    inner.mkdir()
    (inner / "c.xmi").write_text(
        b.read_text(encoding="utf-8")
        .replace(f"{NS} net.ecore", f"{NS} ../net.ecore")
        .replace("a.xmi#", "x#"),
        encoding="utf-8",
    )
    try:
        xmi.read(inner / "c.xmi", ResourceSet())
    except CfSerializationError as exc:
        assert exc.code == "outside-root" and "'../net.ecore' leaves the directories" in str(exc)
    else:
        raise AssertionError("read a metamodel outside the root")
    (net_c,) = xmi.read(inner / "c.xmi", ResourceSet(), xmi.XmiOptions(root=tmp_path / "m")).roots
    assert net_c.name == "B" and net_c.eClass.ePackage.nsURI == NS
