"""Hostile XML is refused quickly with a clear error; nothing is expanded or fetched."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import ecore, xmi
from cfmodel.serializers.xmlsafe import XmlLimits, parse_bytes, parse_file

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<r>&x;</r>"""

LAUGHS = b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n' + b"".join(
    b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10) for i in range(1, 10)
) + b"]>\n<lolz>&lol9;</lolz>"

QUADRATIC = (b'<?xml version="1.0"?>\n<!DOCTYPE q [<!ENTITY a "' + b"x" * 50_000 + b'">]>\n<q>'
             + b"&a;" * 50_000 + b"</q>")

UTF16_XXE = XXE.decode().replace('version="1.0"', 'version="1.0" encoding="UTF-16"').encode("utf-16")


@pytest.mark.parametrize("data", [XXE, LAUGHS, QUADRATIC, UTF16_XXE], ids=["xxe", "laughs", "quadratic", "utf16"])
def test_entity_declarations_are_refused_quickly(data: bytes) -> None:
    start = time.perf_counter()
    with pytest.raises(CfSerializationError, match="DOCTYPE declares entities") as exc:
        parse_bytes(data, "evil.xmi")
    assert time.perf_counter() - start < 1.0
    assert exc.value.code == "xml-entities"
    assert exc.value.span is not None and exc.value.span.file == "evil.xmi"


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


def test_external_dtd_is_not_loaded() -> None:
    data = b'<?xml version="1.0"?>\n<!DOCTYPE r SYSTEM "http://127.0.0.1:9/x.dtd">\n<r/>'
    start = time.perf_counter()
    assert parse_bytes(data).getroot().tag == "r"
    assert time.perf_counter() - start < 1.0
