"""Hostile XML is refused quickly with a clear error; nothing is expanded or fetched.

Both readers are covered: `.ecore` (lxml tree) and XMI (expat event stream), through
bytes and through files, for XXE, billion laughs, quadratic blowup, parameter entities,
entity declarations the prescan cannot see, external DTDs, absurd sizes and depths.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from lxml import etree  # type: ignore[import-untyped]  # no stubs
from pyecore.ecore import EPackage
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import ecore, xmi, xmlsafe
from cfmodel.serializers.xmlsafe import XmlLimits, parse_bytes, parse_file
from tests.serializers.samples import infra_model, infra_package

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<r>&x;</r>"""

LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n'
    + b"".join(
        b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
        for i in range(1, 10)
    )
    + b"]>\n<lolz>&lol9;</lolz>"
)

QUADRATIC = (
    b'<?xml version="1.0"?>\n<!DOCTYPE q [<!ENTITY a "'
    + b"x" * 50_000
    + b'">]>\n<q>'
    + b"&a;" * 50_000
    + b"</q>"
)

UTF16_XXE = XXE.decode().replace('version="1.0"', 'version="1.0" encoding="UTF-16"').encode("utf-16")

PARAMETER = b"""<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY % p SYSTEM "http://127.0.0.1:9/evil.dtd"> %p;]>
<r/>"""

HOSTILE = {"xxe": XXE, "laughs": LAUGHS, "quadratic": QUADRATIC, "utf16": UTF16_XXE, "parameter": PARAMETER}


def _read_xmi(data: bytes, name: str = "evil.xmi", limits: XmlLimits | None = None) -> object:
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(infra_package()), "infra.ecore", rset)
    return xmi.from_bytes(data, rset, name, xmi.XmiOptions(limits=limits or XmlLimits()))


def _read_ecore(data: bytes, name: str = "evil.ecore", limits: XmlLimits | None = None) -> object:
    return ecore.from_bytes(data, name, options=ecore.EcoreOptions(limits=limits or XmlLimits()))


READERS = {"xmi": _read_xmi, "ecore": _read_ecore}


@pytest.mark.parametrize(
    "data", [XXE, LAUGHS, QUADRATIC, UTF16_XXE], ids=["xxe", "laughs", "quadratic", "utf16"]
)
def test_entity_declarations_are_refused_quickly(data: bytes) -> None:
    start = time.perf_counter()
    with pytest.raises(CfSerializationError, match="DOCTYPE declares entities") as exc:
        parse_bytes(data, "evil.xmi")
    assert time.perf_counter() - start < 1.0
    assert exc.value.code == "xml-entities"
    assert exc.value.span is not None and exc.value.span.file == "evil.xmi"


@pytest.mark.parametrize(
    "before",
    [b"", b"<?pi hello! ?>\n", b"<?pi !?>\n", b"<?pi <! ?>\n", b"<!-- a comment! -->\n"],
    ids=["plain", "bang-in-pi", "bang-alone", "half-opener", "comment-first"],
)
def test_the_prescan_finds_markup_declarations_after_any_bang(before: bytes) -> None:
    """The prescan looks for DOCTYPEs, comments and CDATA from the first ``<!``, found from
    the first ``!``: what comes before (a ``!`` elsewhere, a lone ``<!``) changes nothing."""
    head = b'<?xml version="1.0"?>\n' + before
    with pytest.raises(CfSerializationError, match="DOCTYPE declares entities") as exc:
        xmlsafe.check_document(head + XXE.split(b"\n", 1)[1], "evil.xmi", XmlLimits())
    assert exc.value.span is not None and exc.value.span.line == 2 + before.count(b"\n")
    # brackets inside: only the measure from opener to closer sees these as one token
    long_comment = b"<r/>\n<!-- " + b"<" * 1500 + b" -->"
    with pytest.raises(CfSerializationError, match="over 1,000 bytes"):
        xmlsafe.check_document(head + long_comment, "big.xmi", XmlLimits(max_token_bytes=1000))
    with pytest.raises(CfSerializationError, match="over 1,000 bytes"):
        cdata = b"<r><![CDATA[" + b"<" * 1500 + b"]]></r>"
        xmlsafe.check_document(head + cdata, "big.xmi", XmlLimits(max_token_bytes=1000))
    xmlsafe.check_document(head + b'<r v="no declaration!"/>', "ok.xmi", XmlLimits(max_token_bytes=1000))


def test_too_deep_is_refused() -> None:
    data = b"<a>" * 200 + b"</a>" * 200
    with pytest.raises(CfSerializationError, match="nest deeper than 128 levels") as exc:
        parse_bytes(data, "deep.xml")
    assert exc.value.code == "too-deep"
    far_too_deep = b"<a>" * 100_000 + b"</a>" * 100_000  # libxml2's own cap answers first
    with pytest.raises(CfSerializationError):
        parse_bytes(far_too_deep, "deeper.xml")


def test_too_large_is_refused_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.xmi"
    big.write_bytes(b"<a>" + b" " * 5000 + b"</a>")
    with pytest.raises(CfSerializationError, match="over the limit of 1000") as exc:
        parse_file(big, XmlLimits(max_bytes=1000))
    assert exc.value.code == "too-large"


def test_syntax_errors_carry_the_position() -> None:
    with pytest.raises(CfSerializationError) as exc:
        parse_bytes(b"<a>\n<b></a>", "broken.xmi")
    assert exc.value.code == "xml-syntax"
    assert exc.value.span is not None and exc.value.span.line == 2


def test_readers_use_the_safe_parser() -> None:
    with pytest.raises(CfSerializationError, match="DOCTYPE declares entities"):
        ecore.from_bytes(XXE, "m.ecore")
    with pytest.raises(CfSerializationError, match="DOCTYPE declares entities"):
        xmi.from_bytes(LAUGHS, ResourceSet())


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_both_readers_refuse_entities_quickly(reader: str, attack: str, tmp_path: Path) -> None:
    start = time.perf_counter()
    with pytest.raises(CfSerializationError, match="DOCTYPE declares entities") as exc:
        READERS[reader](HOSTILE[attack], f"evil.{reader}")
    assert exc.value.code == "xml-entities"
    assert exc.value.span is not None and exc.value.span.file == f"evil.{reader}"
    path = tmp_path / f"evil.{reader}"
    path.write_bytes(HOSTILE[attack])
    with pytest.raises(CfSerializationError, match="DOCTYPE declares entities"):
        if reader == "xmi":
            rset = ResourceSet()
            ecore.from_bytes(ecore.to_bytes(infra_package()), "infra.ecore", rset)
            xmi.read(path, rset)
        else:
            ecore.read(path)
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_the_parsers_refuse_entities_on_their_own(attack: str) -> None:
    """Behind the prescan: expat raises on any entity declaration; lxml expands nothing."""
    data = HOSTILE[attack]
    parser = xmlsafe.event_parser("evil.xmi")
    with pytest.raises(CfSerializationError, match="DOCTYPE declares entities") as exc:
        parser.Parse(data, True)
    assert exc.value.code == "xml-entities"
    if attack in ("xxe", "utf16"):
        tree = etree.fromstring(
            data, etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        )
        assert "root:" not in (tree.text or "") and "root:" not in etree.tostring(tree).decode()


def _nested(reader: str, depth: int) -> bytes:
    """A document nesting `depth` elements, valid up to the nesting for `reader`."""
    if reader == "ecore":
        pkg = sub = EPackage("p0", nsURI="http://cfmodel.example/p0", nsPrefix="p0")
        for i in range(1, min(depth, 300)):
            nested = EPackage(f"p{i}", nsURI=f"http://cfmodel.example/p{i}", nsPrefix=f"p{i}")
            sub.eSubpackages.append(nested)
            sub = nested
        if depth <= 300:
            return ecore.to_bytes(pkg)
        return b"<a>" * depth + b"</a>" * depth
    host = infra_package().getEClassifier("Host")(name="h")
    return xmi.to_bytes([host]).replace(
        b"/>\n", b">\n" + b"<tags>" * (depth - 1) + b"</tags>" * (depth - 1) + b"</infra:Host>\n"
    )


@pytest.mark.parametrize("reader", sorted(READERS))
def test_too_deep_is_refused_by_both_readers(reader: str) -> None:
    with pytest.raises(CfSerializationError, match="nest deeper than 128 levels") as exc:
        READERS[reader](_nested(reader, 200))
    assert exc.value.code == "too-deep"
    assert exc.value.span is not None and exc.value.span.line == (
        130 if reader == "ecore" else 3
    )  # the 129th
    with pytest.raises(CfSerializationError, match="nest deeper than 50 levels"):
        READERS[reader](_nested(reader, 51), limits=XmlLimits(max_depth=50))
    READERS[reader](_nested(reader, 50), limits=XmlLimits(max_depth=50))
    start = time.perf_counter()
    with pytest.raises(CfSerializationError) as exc:
        READERS[reader](_nested(reader, 1_000_000))
    assert exc.value.code in ("too-deep", "xml-syntax")  # libxml2 has a cap of its own
    assert time.perf_counter() - start < 3.0


def test_nested_elements_inside_a_value_are_ignored() -> None:
    doc = _read_xmi(_nested("xmi", 20))
    assert list(doc.roots[0].tags) == [""]  # type: ignore[attr-defined]  # the text before the first child


@pytest.mark.parametrize("reader", sorted(READERS))
def test_too_large_is_refused_by_both_readers(reader: str, tmp_path: Path) -> None:
    limits = XmlLimits(max_bytes=1000)
    data = xmi.to_bytes(infra_model(infra_package())) if reader == "xmi" else ecore.to_bytes(infra_package())
    assert len(data) > 1000
    with pytest.raises(CfSerializationError, match="over the limit of 1000") as exc:
        READERS[reader](data, limits=limits)
    assert exc.value.code == "too-large"
    path = tmp_path / f"big.{reader}"
    path.write_bytes(data)
    with pytest.raises(CfSerializationError, match="over the limit of 1000"):
        if reader == "xmi":
            xmi.read(path, ResourceSet(), xmi.XmiOptions(limits=limits))
        else:
            ecore.read(path, options=ecore.EcoreOptions(limits=limits))


@pytest.mark.parametrize("reader", sorted(READERS))
def test_huge_values_are_read_in_linear_time(reader: str) -> None:
    """One attribute of 20 MB and 200k attributes on one element: no quadratic step."""
    start = time.perf_counter()
    big_value = b'<a x="' + b"y" * 20_000_000 + b'"/>'
    many_attrs = b"<a " + b" ".join(b'a%d="1"' % i for i in range(200_000)) + b"/>"
    for data in (big_value, many_attrs):
        with pytest.raises(CfSerializationError):
            READERS[reader](data)
    if reader == "xmi":  # expat has no cap of its own on one value: XmlLimits.max_token_bytes is
        host = infra_package().getEClassifier("Host")(name="y" * 9_000_000)
        document = xmi.to_bytes([host])
        assert len(_read_xmi(document).roots[0].name) == 9_000_000  # type: ignore[attr-defined]
        with pytest.raises(CfSerializationError, match="over 10,000,000 bytes"):
            _read_xmi(document.replace(b"y" * 9_000_000, b"y" * 20_000_000))
    assert time.perf_counter() - start < 10.0


@pytest.mark.parametrize("reader", sorted(READERS))
def test_syntax_errors_carry_the_position_in_both_readers(reader: str) -> None:
    data = (
        ecore.to_bytes(infra_package()) if reader == "ecore" else xmi.to_bytes(infra_model(infra_package()))
    )
    lines = data.split(b"\n")
    lines[1] = lines[1] + b"</oops>"
    with pytest.raises(CfSerializationError) as exc:
        READERS[reader](b"\n".join(lines))
    assert exc.value.code == "xml-syntax"
    assert exc.value.span is not None and exc.value.span.line == 2


def test_external_dtd_is_not_loaded_by_the_xmi_reader() -> None:
    pkg = infra_package()
    data = xmi.to_bytes([pkg.getEClassifier("Host")(name="h")])
    data = data.replace(b"?>\n", b'?>\n<!DOCTYPE infra:Host SYSTEM "http://127.0.0.1:9/x.dtd">\n', 1)
    start = time.perf_counter()
    assert _read_xmi(data).roots[0].name == "h"  # type: ignore[attr-defined]
    assert time.perf_counter() - start < 1.0


def test_external_dtd_is_not_loaded() -> None:
    data = b'<?xml version="1.0"?>\n<!DOCTYPE r SYSTEM "http://127.0.0.1:9/x.dtd">\n<r/>'
    start = time.perf_counter()
    assert parse_bytes(data).getroot().tag == "r"
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("reader", sorted(READERS))
def test_an_unknown_encoding_is_a_clear_error_in_both_readers(reader: str) -> None:
    data = (
        ecore.to_bytes(infra_package()) if reader == "ecore" else xmi.to_bytes(infra_model(infra_package()))
    )
    with pytest.raises(CfSerializationError) as exc:
        READERS[reader](data.replace(b'encoding="UTF-8"', b'encoding="no-such-codec"', 1))
    assert exc.value.span is not None and exc.value.span.line == 1
    assert "no-such-codec" in str(exc.value) or "encoding" in str(exc.value).lower()
