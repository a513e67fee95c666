"""Issue 12, item 10: one huge token (a 64 MB attribute value, text or comment) in an XMI
file is refused before expat sees it (expat rescans an unfinished token at every 1 MiB
chunk, so reading it took 17.7 s and 368 MB), in time linear in the file."""

from __future__ import annotations

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import xmi
from cfmodel.serializers.xmlsafe import XmlLimits, check_document
from tests.serializers.samples import infra_model, infra_package

HUGE = 64 * 1024 * 1024


def _with(piece: bytes) -> bytes:
    data = xmi.to_bytes(infra_model(infra_package()))
    at = data.index(b"?>") + 2
    return data[:at] + piece + data[at:]


@pytest.mark.parametrize(
    "piece",
    [
        b"<!--" + b"x" * HUGE + b"-->",
        b"<!--" + b"<" * HUGE + b"-->",
        b'<a v="' + b"x" * HUGE + b'"/>',
    ],
    ids=["comment", "comment-of-brackets", "attribute"],
)
def test_a_huge_token_is_refused_quickly_and_located(piece: bytes) -> None:
    data = _with(b"\n" + piece)
    with pytest.raises(CfSerializationError, match="over 10,000,000 bytes") as exc:
        xmi.from_bytes(data, ResourceSet(), name="big.xmi")
    assert exc.value.code == "too-large"
    assert exc.value.span is not None and exc.value.span.line == 2


def test_text_over_the_token_limit_is_refused_and_under_it_is_read() -> None:
    limits = XmlLimits(max_token_bytes=1000)
    data = xmi.to_bytes(infra_model(infra_package()))
    check_document(data, "ok.xmi", limits)  # an ordinary model has no long token
    with pytest.raises(CfSerializationError, match="over 1,000 bytes"):
        check_document(_with(b"<!-- " + b"y" * 1500 + b" -->"), "big.xmi", limits)
    check_document(_with(b"<!-- " + b"y" * 900 + b" -->"), "small.xmi", limits)
    with pytest.raises(CfSerializationError, match="over 1,000 bytes"):
        check_document(data.replace(b"<", b" " * 1200 + b"<", 1), "spaces.xmi", limits)
