"""References in untrusted XMI never make cfmodel read outside the model's directories:
an ``href`` to an absolute path, a ``..`` out of the root, or a symlink leading out is a
located ``outside-root`` error (read eagerly, lazily, or resolved later), never a read; the
root (`XmiOptions.root`) and the URI map's directories are where it may read. Also the
names of written sets, and file names that need escaping in URIs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import crossrefs, ecore, xmi
from tests.emf.test_emf_crossrefs import HEAD, _metamodel

OUTSIDE = '  <nodes xmi:id="n" name="n" gateway="{}"/>\n'


def _model(folder: Path, target: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ecore.write(folder / "net.ecore", _metamodel())
    doc = folder / "a.xmi"
    doc.write_text(HEAD + ' name="A">\n' + OUTSIDE.format(target) + "</net:Network>\n", encoding="utf-8")
    return doc


def _rset(folder: Path) -> ResourceSet:
    rset = ResourceSet()
    ecore.read(folder / "net.ecore", rset)
    return rset


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.xmi"
    secret.write_text(
        HEAD + ' name="S">\n  <nodes xmi:id="s" name="secret"/>\n</net:Network>\n', encoding="utf-8"
    )
    return secret


@pytest.mark.parametrize("load", [True, False])
@pytest.mark.parametrize("form", ["absolute", "file-uri", "dotdot"])
def test_a_reference_out_of_the_root_is_a_located_error_not_a_read(
    tmp_path: Path, form: str, load: bool
) -> None:
    secret = _secret(tmp_path)
    target = {"absolute": f"{secret}#s", "file-uri": f"file://{secret}#s", "dotdot": "../secret.xmi#s"}[form]
    doc = _model(tmp_path / "proj", target)
    rset = _rset(tmp_path / "proj")
    with pytest.raises(CfSerializationError) as exc:
        xmi.read(doc, rset, xmi.XmiOptions(load_references=load))
    assert exc.value.code == "outside-root"
    assert exc.value.render().startswith(f"{doc}:3:1: error: reference to ")
    assert "leaves the directories the model may be read from" in exc.value.render()
    assert not crossrefs.documents(rset).has(secret)  # nothing was read


def test_a_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    doc = _model(tmp_path / "proj", "link.xmi#s")
    os.symlink(secret, tmp_path / "proj" / "link.xmi")
    with pytest.raises(CfSerializationError) as exc:
        xmi.read(doc, _rset(tmp_path / "proj"))
    assert exc.value.code == "outside-root"


def test_the_root_says_where_it_may_read(tmp_path: Path) -> None:
    _secret(tmp_path)
    doc = _model(tmp_path / "proj", "../secret.xmi#s")
    (net,) = xmi.read(doc, _rset(tmp_path / "proj"), xmi.XmiOptions(root=tmp_path)).roots
    assert net.nodes[0].gateway.name == "secret"


def test_the_map_target_is_allowed_and_nothing_else(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "b.xmi").write_text(
        HEAD + ' name="B">\n  <nodes xmi:id="b1" name="b1"/>\n</net:Network>\n', encoding="utf-8"
    )
    doc = _model(tmp_path / "proj", "platform:/resource/shared/b.xmi#b1")
    options = xmi.XmiOptions(uri_map={"platform:/resource/": f"{tmp_path}/"})
    (net,) = xmi.read(doc, _rset(tmp_path / "proj"), options).roots
    assert net.nodes[0].gateway.name == "b1"
    # the map's directory is allowed, not its parent
    _secret(tmp_path)
    doc = _model(tmp_path / "proj3", "platform:/resource/../secret.xmi#s")
    options = xmi.XmiOptions(uri_map={"platform:/resource/": f"{shared}/"})
    with pytest.raises(CfSerializationError) as exc:
        xmi.read(doc, _rset(tmp_path / "proj3"), options)
    assert exc.value.code == "outside-root"


def test_proxies_resolved_later_are_confined_too(tmp_path: Path) -> None:
    _secret(tmp_path)
    doc = _model(tmp_path / "proj", "b.xmi#b1")
    (tmp_path / "proj" / "b.xmi").write_text(
        HEAD + ' name="B">\n  <nodes xmi:id="b1" name="b1"/>\n</net:Network>\n', encoding="utf-8"
    )
    rset = _rset(tmp_path / "proj")
    (net,) = xmi.read_all([doc], rset, xmi.XmiOptions(load_references=False))[0].roots
    node = net.nodes[0]
    assert crossrefs.proxy_uri(node.gateway) == f"file:{tmp_path}/proj/b.xmi#b1"
    assert xmi.resolve_proxies(rset) == []
    assert node.gateway.name == "b1" and crossrefs.proxy_uri(node.gateway) is None
    # a proxy that names a file outside: an error when resolved, nothing read
    node.gateway = crossrefs.proxy(node.eClass, f"file:{tmp_path}/secret.xmi#s")
    with pytest.raises(CfSerializationError) as exc:
        xmi.resolve_proxies(rset)
    assert exc.value.code == "outside-root"
    assert not crossrefs.documents(rset).has(tmp_path / "secret.xmi")


def test_an_absent_document_leaves_a_proxy_that_resolve_reports(tmp_path: Path) -> None:
    doc = _model(tmp_path / "proj", "later.xmi#b1")
    rset = _rset(tmp_path / "proj")
    (net,) = xmi.read(doc, rset).roots
    assert crossrefs.proxy_uri(net.nodes[0].gateway) == f"file:{tmp_path}/proj/later.xmi#b1"
    assert xmi.resolve_proxies(rset) == [f"file:{tmp_path}/proj/later.xmi#b1"]
    (tmp_path / "proj" / "later.xmi").write_text(
        HEAD + ' name="L">\n  <nodes xmi:id="b1" name="late"/>\n</net:Network>\n', encoding="utf-8"
    )
    assert xmi.resolve_proxies(rset) == []
    assert net.nodes[0].gateway.name == "late"


@pytest.mark.parametrize("name", ["../a.xmi", "/abs/a.xmi", "x/../../a.xmi", ""])
def test_written_sets_stay_in_their_directory(tmp_path: Path, name: str) -> None:
    with pytest.raises(CfSerializationError) as exc:
        xmi.write_all(tmp_path / "out", {name: []})
    assert exc.value.code == "io" and "must be a relative path inside" in exc.value.render()
    assert not (tmp_path / "out").exists()


def test_file_names_are_escaped_in_hrefs_and_read_back(tmp_path: Path) -> None:
    rset = ResourceSet()
    ecore.write(tmp_path / "net.ecore", _metamodel())
    (pkg,) = ecore.read(tmp_path / "net.ecore", rset).roots
    network, node = pkg.getEClassifier("Network"), pkg.getEClassifier("Node")
    a, b = network(name="A"), network(name="B")
    b.nodes.append(node(name="b1"))
    a.uplink = b
    xmi.write_all(tmp_path / "out", {"a.xmi": [a], "my nets/b #1.xmi": [b]})
    text = (tmp_path / "out" / "a.xmi").read_text(encoding="utf-8")
    assert '<uplink href="my%20nets/b%20%231.xmi#/"/>' in text
    (back,) = xmi.read(tmp_path / "out" / "a.xmi", rset).roots
    assert back.uplink.name == "B" and back.uplink.nodes[0].name == "b1"


def test_files_read_together_may_refer_to_each_other(tmp_path: Path) -> None:
    a = _model(tmp_path / "proj", "sub/b.xmi#b1")
    (tmp_path / "proj" / "sub").mkdir()
    b = tmp_path / "proj" / "sub" / "b.xmi"
    b.write_text(
        HEAD + ' name="B" uplink="../a.xmi#/">\n  <nodes xmi:id="b1" name="b1"/>\n</net:Network>\n',
        encoding="utf-8",
    )
    rset = _rset(tmp_path / "proj")
    doc_b, doc_a = xmi.read_all([b, a], rset)  # the root is proj/, where both are
    assert (
        doc_b.roots[0].uplink is doc_a.roots[0] and doc_a.roots[0].nodes[0].gateway is doc_b.roots[0].nodes[0]
    )
    with pytest.raises(CfSerializationError) as exc:  # alone, b.xmi may not leave sub/
        xmi.read(b, _rset(tmp_path / "proj"))
    assert exc.value.code == "outside-root"
