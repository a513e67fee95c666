"""Safe XML parsing for every reader: untrusted files never hang, expand or fetch.

Input: a path or bytes plus `XmlLimits`. Output: an lxml element tree (`parse_bytes`,
for `.ecore`), or a stream of events from expat into a caller's handlers (`event_parser`
and `feed`, for XMI instance files, which can be large). Guarantees: any DOCTYPE that
declares entities is refused before a parser sees the document (XXE, billion laughs,
quadratic blowup), and both parsers refuse again on their own (lxml: no entity is ever
expanded, ``resolve_entities=False``; expat: every entity declaration raises, parameter
entities are never parsed); no DTD or network access (lxml: ``load_dtd=False``,
``no_network=True``; expat reads nothing but the given bytes); libxml2's own size limits
stay on (``huge_tree=False``); files over ``max_bytes`` are refused before parsing, and
elements nested deeper than ``max_depth`` are refused (checked here for trees; event
handlers call `too_deep`). Every refusal and every syntax error is a
`CfSerializationError` with the file (and line, when known) as its span.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn
from xml.parsers import expat

from lxml import etree  # type: ignore[import-untyped]  # no stubs

from cfmodel.errors import CfSerializationError, Span


@dataclass(frozen=True, slots=True)
class XmlLimits:
    """Caps for reading: file size in bytes, element nesting depth, the size of one
    token (an attribute value, a run of text, a comment, a CDATA section), which is also
    libxml2's cap on a single value (``huge_tree=False``): expat rescans an unfinished
    token at every 1 MiB chunk pyexpat gives it, so one huge token costs quadratic time;
    and the memory reading an XMI file may take (`check_memory`: the byte cap alone does
    not bound it, objects take 10 to 30 times their XMI text)."""

    max_bytes: int = 512 * 1024 * 1024
    max_depth: int = 128
    max_token_bytes: int = 10_000_000
    max_memory: int = 1 << 30  # what reading an XMI file may take, estimated before reading


def _span(name: str, line: int | None = None, col: int | None = None) -> Span:
    line = line or 1
    col = col or 1
    return Span(name, line, col, line, col + 1)


# What reading one XMI element, attribute, space-separated token (a reference, a list
# item) and byte can cost at most, in bytes of resident memory: measured on both readers
# over files from a million empty elements to a thousand references per element
# (tests/reliability/test_read_memory.py checks every shape against the estimate).
_COST_PER_ELEMENT = 400
_COST_PER_ATTRIBUTE = 100
_COST_PER_TOKEN = 110
_COST_PER_BYTE = 3


def estimated_memory(data: bytes) -> int:
    """An upper bound of the memory reading the XMI document *data* takes (its objects,
    their values, the text), from counts made at C speed before anything is parsed."""
    elements = data.count(b"<")
    attributes = data.count(b'="') + data.count(b"='")
    tokens = data.count(b" ") - data.count(b"  ")  # runs of spaces: indentation counts once
    return _memory_cost(elements, attributes, tokens, len(data))


def _memory_cost(elements: int, attributes: int, tokens: int, size: int) -> int:
    return (
        _COST_PER_ELEMENT * elements
        + _COST_PER_ATTRIBUTE * attributes
        + _COST_PER_TOKEN * tokens
        + _COST_PER_BYTE * size
    )


def quick_memory_bound(data: bytes) -> int:
    """A bound never below `estimated_memory`, from single-byte counts only (memchr speed,
    about a third of the exact counts' time): each ``="`` or ``='`` starts at its own ``=``,
    and each space counted there is a space."""
    return _memory_cost(data.count(b"<"), data.count(b"="), data.count(b" "), len(data))


# The most `estimated_memory` can give per byte: '<', '=' and ' ' are distinct bytes, and
# the dearest of them, '<', costs _COST_PER_ELEMENT.
_MOST_PER_BYTE = _COST_PER_ELEMENT + _COST_PER_BYTE


def check_memory(data: bytes, name: str, limits: XmlLimits) -> None:
    """Refuse an XMI document whose reading could take more than ``limits.max_memory``.

    The verdict is `estimated_memory`'s; the cheaper bounds before it only spare the exact
    counts where they could not change it (a small document, or one under the limit even
    by `quick_memory_bound`)."""
    if len(data) * _MOST_PER_BYTE <= limits.max_memory or quick_memory_bound(data) <= limits.max_memory:
        return
    estimate = estimated_memory(data)
    if estimate > limits.max_memory:
        message = (
            f"reading the file could take {estimate >> 20:,} MiB of memory "
            f"(estimated from its size and counts), over the limit of {limits.max_memory >> 20:,} MiB"
        )
        raise _refuse(name, message, "too-large")


def _refuse(name: str, message: str, code: str, line: int | None = None) -> CfSerializationError:
    return CfSerializationError(f"{message}; refusing to read the file", _span(name, line), code=code)


def parse_file(path: Path | str, limits: XmlLimits = XmlLimits()) -> etree._ElementTree:
    """Read and parse a file within the limits (size checked before reading)."""
    return parse_bytes(read_file(path, limits), str(path), limits)


def read_file(path: Path | str, limits: XmlLimits = XmlLimits()) -> bytes:
    """A file's bytes, refused before reading when it is over ``limits.max_bytes``."""
    name = str(path)
    try:
        size = os.stat(path).st_size
        if size > limits.max_bytes:
            raise _refuse(name, f"file is {size} bytes, over the limit of {limits.max_bytes}", "too-large")
        with open(path, "rb") as fh:
            # the size seen, plus one byte to see growth (read(max_bytes + 1) would reserve the
            # whole limit, 512 MiB, for every file)
            want = min(size, limits.max_bytes) + 1
            data = fh.read(want)
            if len(data) == want and want <= limits.max_bytes:  # grew since: up to the limit
                data += fh.read(limits.max_bytes + 1 - want)
    except OSError as exc:
        raise CfSerializationError(f"cannot read: {exc.strerror}", _span(name), code="io") from exc
    return data


def parse_bytes(data: bytes, name: str = "<bytes>", limits: XmlLimits = XmlLimits()) -> etree._ElementTree:
    check_document(data, name, limits)
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        dtd_validation=False,
    )
    try:
        tree = etree.ElementTree(etree.fromstring(data, parser))
    except etree.XMLSyntaxError as exc:
        line, col = exc.position if exc.position else (None, None)
        raise CfSerializationError(
            f"not well-formed XML: {exc.msg}", _span(name, line, col), code="xml-syntax"
        ) from exc
    dtd = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise _refuse(name, "the DOCTYPE declares entities", "xml-entities")
    _check_depth(tree.getroot(), name, limits.max_depth)
    return tree


def check_document(data: bytes, name: str, limits: XmlLimits) -> None:
    """Refuse a document over the size limit or with a DOCTYPE declaring entities."""
    if len(data) > limits.max_bytes:
        message = f"document is {len(data)} bytes, over the limit of {limits.max_bytes}"
        raise _refuse(name, message, "too-large")
    declarations = _first_declaration(data)
    _refuse_entity_declarations(data, name, declarations)
    _refuse_huge_tokens(data, name, limits.max_token_bytes, declarations)


def _first_declaration(data: bytes) -> int:
    """Where the first DOCTYPE, comment or CDATA section could start in ASCII-based text:
    the first ``<!`` (-1: none, the common case). Found from the first ``!``, a byte most
    documents hold rarely if at all (one memchr pass instead of a search per opener)."""
    bang = data.find(b"!")
    return -1 if bang < 0 else data.find(b"<!", max(bang - 1, 0))


def _refuse_huge_tokens(data: bytes, name: str, limit: int, declarations: int = 0) -> None:
    """Refuse a token longer than *limit*, in time linear in the data: a text or attribute
    run holds no ``<``, so only a window of *limit* bytes without one can hide a long run,
    and comments and CDATA sections are measured from their start to their end (none
    before *declarations*, the first ``<!``; -1: none at all)."""

    def refuse(start: int, size: int) -> NoReturn:
        line = data.count(b"\n", 0, start) + 1
        message = f"one value, text or comment is over {limit:,} bytes ({size:,})"
        raise _refuse(name, message, "too-large", line)

    if len(data) <= limit:
        return
    for opener, closer in ((b"<!--", b"-->"), (b"<![CDATA[", b"]]>")):
        start = data.find(opener, declarations) if declarations >= 0 else -1
        while start >= 0:
            end = data.find(closer, start + len(opener))
            end = len(data) if end < 0 else end
            if end - start > limit:
                refuse(start, end - start)
            start = data.find(opener, end)
    window = limit // 2
    position = 0
    while position + window < len(data):
        if data.find(b"<", position, position + window) >= 0:
            position += window
            continue
        before = data.rfind(b"<", 0, position) + 1
        after = data.find(b"<", position + window)
        after = len(data) if after < 0 else after
        if after - before > limit:
            refuse(before, after - before)
        position = after


def event_parser(name: str) -> Any:
    """A namespace-aware expat parser (names as ``"uri local"``) that refuses entities.

    The caller sets its element handlers, then calls `feed`. Text arrives in large
    chunks (``buffer_text``); attributes as a dict in document order.
    """
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True
    parser.buffer_size = 1 << 16
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def refuse(*_: Any) -> NoReturn:
        raise _refuse(name, "the DOCTYPE declares entities", "xml-entities", parser.CurrentLineNumber)

    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    return parser


def feed(parser: Any, data: bytes, name: str, limits: XmlLimits = XmlLimits(), checked: bool = False) -> None:
    """Check `data` (size, entity declarations; not again when the caller says it is
    `checked`), then parse all of it with `parser`.

    Errors raised by the caller's handlers pass through unchanged.
    """
    if not checked:
        check_document(data, name, limits)
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        message = f"not well-formed XML: {expat.ErrorString(exc.code)}"
        span = _span(name, exc.lineno, exc.offset + 1)
        raise CfSerializationError(message, span, code="xml-syntax") from exc
    except LookupError as exc:  # the XML declaration names an encoding Python does not know
        line = parser.CurrentLineNumber or 1
        message = f"cannot read the document: {exc}"
        raise CfSerializationError(
            message, _span(name, line, parser.CurrentColumnNumber + 1), code="xml-encoding"
        ) from exc


def too_deep(name: str, max_depth: int, line: int | None) -> CfSerializationError:
    """The refusal for elements nested deeper than `max_depth` (event handlers raise it)."""
    return _refuse(name, f"elements nest deeper than {max_depth} levels", "too-deep", line)


def _is_utf16(data: bytes) -> bool:
    return data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:2] in (b"\x00<", b"<\x00")


def _refuse_entity_declarations(data: bytes, name: str, declarations: int = 0) -> None:
    """Refuse a DOCTYPE declaring entities. *declarations*: the first ``<!`` in the bytes
    (-1: none; the bytes before it are not searched again)."""
    # ASCII markup is found in the bytes themselves (one byte per character but in UTF-16).
    if _is_utf16(data):
        text = data.decode("utf-16", errors="replace")
        start = text.find("<!DOCTYPE")
        declares = start >= 0 and "<!ENTITY" in text[start:]
        where: str | bytes = text
    else:
        start = data.find(b"<!DOCTYPE", declarations) if declarations >= 0 else -1
        declares = start >= 0 and data.find(b"<!ENTITY", start) >= 0
        where = data
    # Anything entity-like after a DOCTYPE is refused; EMF never writes a DOCTYPE at all.
    if declares:
        line = where.count("\n" if isinstance(where, str) else b"\n", 0, start) + 1  # type: ignore[arg-type]
        raise _refuse(name, "the DOCTYPE declares entities (XXE / entity expansion)", "xml-entities", line)


def _check_depth(root: etree._Element, name: str, max_depth: int) -> None:
    if max_depth <= _XPATH_MAX_STEPS:
        # One XPath step per level, evaluated in C: linear in the number of elements.
        found = _deeper_than(max_depth)(root)
        found_el = found[0] if found else None
    else:
        found_el = _walk_deeper_than(root, max_depth)
    if found_el is not None:
        raise too_deep(name, max_depth, found_el.sourceline)


_XPATH_MAX_STEPS = 1000  # libxml2's XPath recursion limit is a little above this


@functools.lru_cache(maxsize=8)
def _deeper_than(max_depth: int) -> etree.XPath:
    return etree.XPath("(" + "/*" * (max_depth + 1) + ")[1]")


def _walk_deeper_than(root: etree._Element, max_depth: int) -> etree._Element | None:
    depth = 0
    for event, el in etree.iterwalk(root, events=("start", "end")):
        if event == "start":
            depth += 1
            if depth > max_depth:
                return el
        else:
            depth -= 1
    return None
