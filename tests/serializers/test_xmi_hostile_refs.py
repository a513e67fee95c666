"""Hostile references and feature-map entries in untrusted XMI: each is a located error
(``bad-xmi`` or ``outside-root``) at its line, or a proxy that reads nothing; never another
exception. Also ``file://`` URIs of other hosts, which are never files here."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import crossrefs, ecore, xmi
from tests.emf.test_emf_crossrefs import HEAD, _metamodel
from tests.emf.test_emf_featuremaps import HEAD as DOC_HEAD
from tests.emf.test_emf_featuremaps import METAMODEL


def _net(tmp_path: Path, body: str) -> tuple[Path, ResourceSet]:
    ecore.write(tmp_path / "net.ecore", _metamodel())
    rset = ResourceSet()
    ecore.read(tmp_path / "net.ecore", rset)
    doc = tmp_path / "a.xmi"
    doc.write_text(HEAD + ' name="A">\n' + body + "</net:Network>\n", encoding="utf-8")
    return doc, rset


def _doc(tmp_path: Path, body: str) -> tuple[Path, ResourceSet]:
    (tmp_path / "doc.ecore").write_text(METAMODEL, encoding="utf-8")
    rset = ResourceSet()
    ecore.read(tmp_path / "doc.ecore", rset)
    doc = tmp_path / "d.xmi"
    doc.write_text(DOC_HEAD + ' title="T">\n' + body + "</doc:Section>\n", encoding="utf-8")
    return doc, rset


@pytest.mark.parametrize(
    "body, message",
    [
        ('  <nodes href=""/>\n', "nodes: a containment proxy must name another document, not ''"),
        ('  <nodes href="#//@nodes.0"/>\n', "a containment proxy must name another document"),
        ('  <nodes href="/etc/passwd#x"/>\n', "leaves the directories the model may be read from"),
        ('  <nodes name="n"><peers/></nodes>\n', "unexpected element for reference 'peers'"),
        ('  <nodes name="n"><peers href="#nowhere"/></nodes>\n', "unresolved reference '#nowhere'"),
        ('  <nodes name="n"><peers href="#"/></nodes>\n', "unresolved reference '#'"),
        ('  <nodes xsi:type="net:Element" href="b.xmi#x"/>\n', "class 'Element' is abstract"),
    ],
)
def test_hostile_references_are_located_errors(tmp_path: Path, body: str, message: str) -> None:
    doc, rset = _net(tmp_path, body)
    with pytest.raises(CfSerializationError) as exc:
        xmi.read(doc, rset)
    assert exc.value.span is not None and exc.value.span.line == 3, exc.value.render()
    assert message in exc.value.message


@pytest.mark.parametrize(
    "body, message",
    [
        ('  <cites href=""/>\n', "cites: expected one target, found 0"),
        ("  <cites/>\n", "unexpected element for reference 'cites' (no href)"),
        ('  <cites href="#a #b"/>\n', "unresolved reference '#a'"),
        ('  <paragraphs href=""/>\n', "paragraphs: a containment proxy must name another document"),
        (
            '  <cites href="#//@sections.0"/><sections title="x"/>\n',
            "cites: target Section is not a Paragraph",
        ),
        ("  <content>x</content>\n", "class Section has no feature 'content'"),
    ],
)
def test_hostile_feature_map_entries_are_located_errors(tmp_path: Path, body: str, message: str) -> None:
    doc, rset = _doc(tmp_path, body)
    with pytest.raises(CfSerializationError) as exc:
        xmi.read(doc, rset)
    assert exc.value.span is not None and exc.value.span.line == 3, exc.value.render()
    assert message in exc.value.message


def test_file_uris_of_other_hosts_are_proxies_never_files(tmp_path: Path) -> None:
    doc, rset = _net(tmp_path, '  <nodes name="n" gateway="file://evil.example/etc/passwd#x"/>\n')
    (net,) = xmi.read(doc, rset).roots
    assert crossrefs.proxy_uri(net.nodes[0].gateway) == "file://evil.example/etc/passwd#x"
    doc, rset = _net(tmp_path, '  <nodes name="n" gateway="file://localhost/etc/passwd#x"/>\n')
    with pytest.raises(CfSerializationError) as exc:
        xmi.read(doc, rset)
    assert exc.value.code == "outside-root"
