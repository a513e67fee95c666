"""The fast lane of the XMI reader: a strict scanner for flat documents laid out as
cfmodel and EMF write them (several roots under ``xmi:XMI``, one element per line, no
children), and `scanned`, which builds their objects row by row (`ScanReader`) with the
lines the streaming reader's constructors run (`reader.branches`).

Input: a document's text and, per element tag, the layouts (`Layout`) its class may be
written in (the XML attribute names in order, and which of them hold free text: cfmodel
writes attributes before references, EMF in feature order). Output: the namespace prefixes of
the document element and, in document order, runs of consecutive elements of one tag
written in one layout, each element as a tuple of its attribute values (``""`` where an
attribute is absent; free-text values are prefixed with ``"`` so that an empty value
differs from an absent one, and may still hold entity references: `unescape`).

Most of the work is done by the regular expression engine, in C: per chunk of the
document, one `findall` of the class's own pattern when every element has one tag, else
one per tag over the chunk's elements of that tag (then the next layout's, if one does
not account for all of them). A document is taken only if the
patterns account for every character of it; `NotScannableError` is raised at the first
thing outside the layout (comments, children, other whitespace, an attribute out of
order, a value the patterns do not admit, a DOCTYPE, another encoding...), and the
caller reads the document with the general, streaming reader instead. That reader also
reports every error, with its line: the scanner never decides that a document is wrong.

Guarantee: what the scanner accepts is well-formed XML that expat reports as the same
elements with the same attribute values. Names are NCNames, values exclude ``<``, the
quote, characters XML forbids and the ones it would normalize (tab, newline, carriage
return); ``&`` is only admitted in free text, where `unescape` accepts exactly XML's
predefined and character references; every element starts a line, so a value cannot
hide the start of another. The tests compare both readers on generated and mutated
documents.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pyecore.ecore import EAttribute, EObject, EString
from pyecore.resources import ResourceSet

from cfmodel.metamodel.runtime import codegen, fastpath
from cfmodel.serializers import datatypes, model
from cfmodel.serializers.base import IDS_KEY, XMI_NS, Document, attach
from cfmodel.serializers.xmi import reader
from cfmodel.serializers.xmi.options import XMI_ID


class NotScannableError(Exception):
    """The document (or a value in it) is outside what the fast lane reads."""


@dataclass(frozen=True, slots=True)
class Layout:
    """How elements of one class are written: XML attribute names in order, and per name
    whether its value is free text (may be empty or hold references) or a token."""

    names: tuple[str, ...]
    free_text: tuple[bool, ...]


# (namespace URI, class name) -> the layouts its elements may be written in (none: not read here)
LayoutsOf = Callable[[str, str], list[Layout]]

_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"  # an ASCII NCName (other names take the general reader)
_TOKEN = '[^"<&\\x00-\\x1f\\ufffe\\uffff]+'  # a token value: not empty, no reference
_TEXT = '"[^"<\\x00-\\x1f\\ufffe\\uffff]*'  # free text, with its opening quote
_DOCUMENT_ELEMENT = re.compile(rf'<xmi:XMI((?: {_NAME}(?::{_NAME})?="[^"<&\x00-\x1f\ufffe\uffff]*")*)>')
_ATTRIBUTE = re.compile(r' ([^=]+)="([^"]*)"')
_START = "\n  <"  # every element: a line of its own, indented once
_TAG = re.compile(rf"\n  <({_NAME}:{_NAME})(?=[ /])")
_IS_NAME = re.compile(_NAME)
_CHUNK = 1 << 18  # characters scanned per step: rows made and consumed while in cache


@dataclass(frozen=True, slots=True)
class Header:
    """The document element's namespace prefixes, and where its content starts and ends."""

    prefixes: dict[str, str]
    start: int
    end: int


def header(text: str) -> Header:
    """The XML declaration and ``xmi:XMI`` start tag cfmodel writes, and its end tag."""
    if not text.startswith(_DECLARATION):
        raise NotScannableError("another XML declaration")
    m = _DOCUMENT_ELEMENT.match(text, len(_DECLARATION))
    if m is None:
        raise NotScannableError("no xmi:XMI document element")
    prefixes: dict[str, str] = {}
    names: set[str] = set()
    for name, value in _ATTRIBUTE.findall(m.group(1)):
        if name in names:
            raise NotScannableError(f"attribute {name} twice")
        names.add(name)
        kind, _, prefix = name.partition(":")
        if kind == "xmlns" and prefix and prefix not in ("xml", "xmlns") and value and " " not in value:
            prefixes[prefix] = value  # (expat refuses a URI holding its separator, a space)
        elif name != "xmi:version":
            raise NotScannableError(f"attribute {name} on xmi:XMI")
    if prefixes.get("xmi") != XMI_NS:
        raise NotScannableError("xmi is not the XMI namespace")
    for trailer in ("\n</xmi:XMI>\n", "\n</xmi:XMI>"):
        if text.endswith(trailer):
            end = len(text) - len(trailer)
            if end < m.end():
                break
            return Header(prefixes, m.end(), end)
    raise NotScannableError("content after the elements")


def is_name(name: str) -> bool:
    """Is `name` a name the patterns take as an attribute (an ASCII NCName)?"""
    return _IS_NAME.fullmatch(name) is not None


def element_pattern(tag: str, layout: Layout) -> re.Pattern[str]:
    """One element of `tag` on its own line, each attribute optional, in `layout`'s order."""
    parts = [re.escape(_START + tag)]
    for name, free in zip(layout.names, layout.free_text, strict=True):
        value = f"({_TEXT})" if free else f'"({_TOKEN})'
        parts.append(f'(?: {re.escape(name)}={value}")?')
    parts.append(r"/>(?=\n|\Z)")
    return re.compile("".join(parts))


Rows = list[tuple[str, ...]]


class Scanner:
    """Runs of elements of one document (see the module's docstring)."""

    def __init__(self, text: str, layouts_of: LayoutsOf) -> None:
        self.text = text
        self.head = header(text)
        self.layouts_of = layouts_of
        self.forms: dict[str, list[tuple[int, re.Pattern[str]]]] = {}

    def patterns(self, tag: str) -> list[tuple[int, re.Pattern[str]]]:
        """(width, pattern) of each layout the class of `tag` may be written in."""
        found = self.forms.get(tag)
        if found is None:
            prefix, _, local = tag.partition(":")
            uri = self.head.prefixes.get(prefix)
            layouts = self.layouts_of(uri, local) if uri is not None and prefix != "xmi" else []
            if not layouts:
                raise NotScannableError(f"no class for {tag}")
            found = self.forms[tag] = [(len(lay.names), element_pattern(tag, lay)) for lay in layouts]
        return found

    def rows(
        self, tag: str, text: str, lines: int, pos: int = 0, stop: int | None = None
    ) -> tuple[int, Rows]:
        """The rows of the `lines` elements of `tag` in ``text[pos:stop]``, and the number of
        the layout they are all written in."""
        for k, (width, pattern) in enumerate(self.patterns(tag)):
            found = pattern.findall(text, pos, len(text) if stop is None else stop)
            if len(found) == lines:
                return k, _as_rows(found, width)
        raise NotScannableError(f"an element of {tag} outside its layouts")

    def runs(self) -> Iterator[tuple[str, int, Rows]]:
        """(tag, layout number, rows) of consecutive elements of one tag and layout, in
        document order."""
        text, end = self.text, self.head.end
        pos = self.head.start
        while pos < end:
            stop = text.find("\n", min(pos + _CHUNK, end), end)
            if stop < 0:
                stop = end
            yield from self.chunk(pos, stop)
            pos = stop

    def chunk(self, pos: int, stop: int) -> Iterator[tuple[str, int, Rows]]:
        """The elements of ``text[pos:stop]``, which starts a line; every line must be an
        element, so the number of rows must be the number of line starts."""
        text = self.text
        lines = text.count("\n", pos, stop)
        first = _TAG.match(text, pos)
        if first is None:
            raise NotScannableError("a line that is not an element")
        tag = first.group(1)
        same = text.count(f"{_START}{tag} ", pos, stop) + text.count(f"{_START}{tag}/", pos, stop)
        if same == lines:  # one class: its pattern over the chunk
            yield tag, *self.rows(tag, text, lines, pos, stop)
            return
        tags = _TAG.findall(text, pos, stop)
        pieces = text[pos + len(_START) : stop].split(_START)
        if len(tags) != lines or len(pieces) != lines:
            raise NotScannableError("a line that is not an element")
        grouped: dict[str, list[str]] = {}
        for t, piece in zip(tags, pieces, strict=True):
            group = grouped.get(t)
            if group is None:
                group = grouped[t] = []
            group.append(piece)
        by_tag: dict[str, tuple[int, Iterator[tuple[str, ...]]]] = {}
        for t, group in grouped.items():
            k, rows = self.rows(t, _START + _START.join(group), len(group))
            by_tag[t] = k, iter(rows)
        for t, run in itertools.groupby(tags):
            k, rows_of = by_tag[t]
            yield t, k, [next(rows_of) for _ in run]


def _as_rows(found: list[object], width: int) -> Rows:
    """`findall` gives strings, not tuples, for a pattern with one group."""
    if width == 1:
        return [(v,) for v in found]  # type: ignore[misc]
    return found  # type: ignore[return-value]


_REFERENCE = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));|&")
_PREDEFINED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _replace(m: re.Match[str]) -> str:
    named, decimal, hexadecimal = m.groups()
    if named is not None:
        return _PREDEFINED[named]
    if decimal is None and hexadecimal is None:
        raise NotScannableError("an & that starts no reference XML knows")
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    if not (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    ):
        raise NotScannableError("a character reference to a character XML forbids")
    return chr(code)


def unescape(value: str) -> str:
    """Free text with XML's predefined and character references replaced (exactly those)."""
    return _REFERENCE.sub(_replace, value)


def decode(data: bytes) -> str:
    """The document's text: UTF-8 only (the declaration the scanner requires says so)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotScannableError("not UTF-8") from None


# ---- building the objects ------------------------------------------------------------------


def scanned(data: bytes, name: str, resource_set: ResourceSet) -> Document | None:
    """The document, read through the fast lane, or None when it is outside what that
    lane reads (`NotScannableError`, its one signal; nothing it made is kept then, and
    expat reads the document and reports any error, with its line)."""
    if not fastpath.LIGHT:
        return None
    try:
        return ScanReader(name, resource_set, 2).read(decode(data))
    except NotScannableError:
        return None


def rows_emitter(plan: reader.ReadPlan, names: list[str], free_text: list[bool]) -> codegen.Emitter:
    """``build(rows, add)``, making one light object of `plan`'s class per row of the
    scanner (values of the XML attributes `names`, in that order; ``""`` where absent,
    free text after a ``"``), each passed to ``add``.

    The objects are built by the lines `create` runs (`reader.branches`), in the order
    `create` takes the names, so both give equal objects with equal dicts. They are not
    registered as PyEcore instances (the caller does it once the document is read).
    """
    found = reader.branches(plan, fastpath.RAW, True)
    position = {name: k for k, name in enumerate(names)}
    if len(found) <= reader.FEW_NAMES:
        order = [n for n in reader.lookup_order(found) if n in position]
    else:  # `create` dispatches in file order then
        order = names
    em = codegen.Emitter(*reader.MAKE_NAMES, "unescape")
    row = ", ".join(f"a{k}" for k in range(len(names))) + ("," if len(names) == 1 else "")
    with em.block("def build(rows, add):"), em.block(f"for {row} in rows:"):
        reader.new_object(em, True, register=False)
        for name in order:
            k = position[name]
            with em.block(f"if a{k}:"):
                if free_text[k]:
                    em.line(f"text = a{k}[1:]")
                    with em.block("if '&' in text:"):
                        em.line("text = unescape(text)")
                else:
                    em.line(f"text = a{k}")
                found[name](em)
        with em.block("if '_isset' in d:"):
            em.line("sync_isset(obj)")
        em.line("add(obj)")
    return em


RowsBuilder = Callable[[Rows, Callable[[EObject], None]], None]
_STRING = datatypes.codec_for(EString)  # free text: may be empty, may hold references


def _give_up(*_: Any) -> Any:
    raise NotScannableError("a value the streaming reader reports")


class ScanReader(reader.Reader):
    """Builds the objects of a document the scanner reads, row by row, with the lines the
    streaming reader's constructors run (`rows_emitter`); at the first doubt (an id used
    twice, a bad literal, a reference that does not resolve or leaves the document, a
    class it does not know) it gives up with `NotScannableError`, and the caller reads
    with expat, which says what is wrong."""

    def __init__(self, name: str, rset: ResourceSet, max_depth: int) -> None:
        super().__init__(name, rset, max_depth)
        # per (namespace URI, class name, layout number): the function building its rows
        self.builders: dict[tuple[str, str, int], RowsBuilder] = {}

    def fail(self, message: str, line: int | None = None) -> Exception:
        return NotScannableError(message)

    def read(self, text: str) -> Document:
        scanner = Scanner(text, self.layouts)
        prefixes, builders, add = scanner.head.prefixes, self.builders, self.roots.append
        for tag, k, rows in scanner.runs():
            prefix, _, local = tag.partition(":")
            builders[prefixes[prefix], local, k](rows, add)
        self.resolve_references()
        fastpath.register_all(self.roots)  # only now: nothing is registered if the lane gives up
        # every root is a new light object in no container (no containment is read here)
        resource = attach(self.rset, self.name, self.roots, fresh=True)
        resource.__dict__[IDS_KEY] = self.ids
        return Document(self.roots, self.ids, resource)

    def layouts(self, uri: str, local: str) -> list[Layout]:
        """The layouts elements of the class may be written in: cfmodel's (the writer's
        `ClassPlan`: attributes, then references) and EMF's (features in order); none for
        a class the lane does not build (unknown, not light, or with names the patterns
        cannot hold)."""
        try:
            plan = self.plan_of(uri, local)
        except NotScannableError:
            return []
        if not plan.light:
            return []
        written = [
            f
            for f in model.persistent_features(plan.eclass)
            if (
                not f.many
                if isinstance(f, EAttribute)
                else not f.containment and not model.is_container_ref(f)
            )
        ]
        if not all(is_name(f.name) for f in written):
            return []
        ours = [f for f in written if isinstance(f, EAttribute)] + [
            f for f in written if not isinstance(f, EAttribute)
        ]
        found: list[Layout] = []
        for order in (ours, written) if ours != written else (ours,):
            names = [XMI_ID, *(f.name for f in order)]
            free_text = [
                False,
                *(isinstance(f, EAttribute) and plan.handlers[f.name][2] is _STRING for f in order),
            ]
            em = rows_emitter(plan, names, free_text)
            label = f"<cfmodel.xmi rows {plan.name}>"
            self.builders[uri, local, len(found)] = self.build(
                em, label, "build", plan, bad=_give_up, other=_give_up, unescape=unescape
            )
            found.append(Layout(("xmi:id", *names[1:]), tuple(free_text)))
        return found

    def duplicate_id(self, ident: str) -> None:
        raise NotScannableError(f"xmi:id {ident!r} twice")

    def external(self, location: str, fragment: str, line: int, f: Any, hint: str | None) -> EObject:
        raise NotScannableError("a reference to another document")
