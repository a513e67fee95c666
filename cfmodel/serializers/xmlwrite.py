"""A small streaming XML writer with EMF's escaping, for deterministic output.

Input: start/end/empty element calls with attribute pairs in the caller's order.
Output: UTF-8 bytes with a fixed two-space indentation, attributes in the given order,
and the escaping EMF's XMLSaveImpl uses (``&amp; &lt; &gt; &quot;`` plus ``&#xA; &#xD;
&#x9;`` inside attribute values, so line breaks survive a round trip). The same calls
always give the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_ATTR_SPECIAL = re.compile(r'[&<>"\n\r\t]')
_TEXT_SPECIAL = re.compile(r"[&<>\r]")
_ATTR_MAP = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "\n": "&#xA;",
    "\r": "&#xD;",
    "\t": "&#x9;",
}


find_attr_special = _ATTR_SPECIAL.search  # None: the value needs no escaping


def escape_attr(value: str) -> str:
    if _ATTR_SPECIAL.search(value) is None:
        return value
    return _ATTR_SPECIAL.sub(lambda m: _ATTR_MAP[m.group()], value)


def escape_text(value: str) -> str:
    if _TEXT_SPECIAL.search(value) is None:
        return value
    return _TEXT_SPECIAL.sub(lambda m: _ATTR_MAP[m.group()], value)


def attrs_text(attrs: Iterable[tuple[str, str]]) -> str:
    return "".join(f' {k}="{escape_attr(v)}"' for k, v in attrs)


class XmlWriter:
    """Collects the document as text pieces; `to_bytes` joins them once."""

    def __init__(self) -> None:
        self.parts: list[str] = ['<?xml version="1.0" encoding="UTF-8"?>\n']
        self.depth = 0

    def start(self, tag: str, attrs: Iterable[tuple[str, str]] = ()) -> None:
        self.parts.append(f"{'  ' * self.depth}<{tag}{attrs_text(attrs)}>\n")
        self.depth += 1

    def end(self, tag: str) -> None:
        self.depth -= 1
        self.parts.append(f"{'  ' * self.depth}</{tag}>\n")

    def empty(self, tag: str, attrs: Iterable[tuple[str, str]] = ()) -> None:
        self.parts.append(f"{'  ' * self.depth}<{tag}{attrs_text(attrs)}/>\n")

    def to_bytes(self) -> bytes:
        return "".join(self.parts).encode("utf-8")
