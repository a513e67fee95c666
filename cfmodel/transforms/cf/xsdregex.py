"""XML Schema regular expressions ↔ the Python regexes of ``.cf`` typedefs.

EMF's ExtendedMetaData ``pattern`` facet holds an XML Schema regex (implicitly anchored
at both ends; ``^`` and ``$`` are ordinary characters; ``\\i``, ``\\c``, ``\\p{…}`` and
class subtraction ``[a-z-[aeiou]]``), while a ``.cf`` typedef's ``matching /…/`` is a
Python regex applied with ``re.match`` (anchored at the start only). After this module:

* :func:`xsd_to_python` gives a Python regex that accepts exactly the strings the XML
  Schema regex accepts (``^(?:…)\\Z``), or ``None`` when the pattern uses something it
  cannot translate exactly (a block escape ``\\p{IsGreek}``, a malformed pattern, nesting
  deeper than :data:`MAX_DEPTH`);
* :func:`python_to_xsd` gives the XML Schema regex that accepts exactly the strings
  ``re.match(pattern, s)`` accepts, or ``None`` (lookarounds, back references, word
  boundaries, flags, anchors that are not at an end);
* :func:`cf_regex_literal` writes any Python regex as a ``/…/`` token of the ``.cf``
  grammar that reads back as that regex: ``/`` and control characters escaped, so the
  token always ends where it should and nothing after it is ever parsed as code.

Both translations work on parse trees (a small parser for XML Schema's grammar, Python's
own ``re`` parser for Python's), never on text substitutions, and are bounded: time
linear in the pattern, recursion at most :data:`MAX_DEPTH` deep.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from re import _constants as sre_constants  # type: ignore[attr-defined]  # Python's own regex parser
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

MAX_DEPTH = 64
MAX_LENGTH = 10_000  # longer patterns are not translated

# ---------------------------------------------------------------------- cf token


def cf_regex_literal(pattern: str) -> str:
    """``/pattern/`` as ``.cf`` text: ``/`` → ``\\/``, control characters as ``\\xNN``.

    Inside a Python regex ``\\/`` is ``/`` and ``\\xNN`` is the character, so the token
    reads back as a regex with the same meaning.
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append("\\" + nxt if _printable(nxt) else _code(nxt))
            i += 2
            continue
        if ch == "\\":  # a trailing backslash: invalid in Python too; keep it literal
            out.append("\\\\")
        elif ch == "/":
            out.append("\\/")
        elif not _printable(ch):
            out.append(_code(ch))
        else:
            out.append(ch)
        i += 1
    return "/" + "".join(out) + "/"


def _printable(ch: str) -> bool:
    return ch.isprintable() and ch not in "\u2028\u2029"


def _code(ch: str) -> str:
    point = ord(ch)
    if point < 0x100:
        return f"\\x{point:02x}"
    if point < 0x10000:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


# ---------------------------------------------------------------------- XML Schema → Python


class _UntranslatableError(Exception):
    pass


_XSD_SINGLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
_XSD_ESCAPABLE = set("\\|.-^?*+{}()[]")
_XSD_META = set(".\\?*+{}()[]|")

# XML 1.0 (5th edition) NameStartChar / NameChar, the definition EMF's XML Schema regexes use
_NAME_START = (
    r":A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    r"\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_NAME_MORE = r"\-.0-9\u00b7\u0300-\u036f\u203f-\u2040"
_XSD_SPACE = " \\t\\n\\r"

# Unicode general categories and their one-letter groups
_CATEGORIES = frozenset(
    "L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po Z Zs Zl Zp S Sm Sc Sk So C Cc Cf Co Cn".split()  # noqa: E501, SIM905
)
_BLOCKS = {"IsBasicLatin": "\\x00-\\x7f", "IsLatin-1Supplement": "\\x80-\\xff"}


@cache
def _category_ranges(name: str) -> str:
    """A Python class body for a Unicode general category (``L`` = every ``L*``)."""
    ranges: list[tuple[int, int]] = []
    for point in range(0x110000):
        category = unicodedata.category(chr(point))
        if category == name or (len(name) == 1 and category[0] == name):
            if ranges and ranges[-1][1] == point - 1:
                ranges[-1] = (ranges[-1][0], point)
            else:
                ranges.append((point, point))
    return "".join(
        _class_char(chr(a)) if a == b else f"{_class_char(chr(a))}-{_class_char(chr(b))}" for a, b in ranges
    )


def _class_char(ch: str) -> str:
    if ch in "\\]-^[":
        return "\\" + ch
    return ch if _printable(ch) and ch.isascii() else _code(ch)


def _literal(ch: str) -> str:
    if ch.isalnum() and ch.isascii():
        return ch
    if ch in ".^$*+?{}[]\\|()":
        return "\\" + ch
    return ch if _printable(ch) and ch.isascii() else _code(ch)


class _XsdParser:
    """XML Schema regex (XSD 1.0, Appendix F) → a Python regex body with the same language."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.pos = 0

    def peek(self) -> str | None:
        return self.text[self.pos] if self.pos < len(self.text) else None

    def take(self) -> str:
        if self.pos >= len(self.text):
            raise _UntranslatableError("unexpected end")
        ch = self.text[self.pos]
        self.pos += 1
        return ch

    def regexp(self, depth: int) -> str:
        if depth > MAX_DEPTH:
            raise _UntranslatableError("too deep")
        branches = [self.branch(depth)]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.branch(depth))
        return "|".join(branches)

    def branch(self, depth: int) -> str:
        out: list[str] = []
        while self.peek() not in (None, "|", ")"):
            atom = self.atom(depth)
            out.append(atom + self.quantifier())
        return "".join(out)

    def quantifier(self) -> str:
        ch = self.peek()
        if ch in ("?", "*", "+"):
            self.pos += 1
            return ch
        if ch != "{":
            return ""
        end = self.text.find("}", self.pos)
        if end < 0:
            raise _UntranslatableError("unclosed quantifier")
        body = self.text[self.pos + 1 : end]
        if not re.fullmatch(r"[0-9]+(,[0-9]*)?", body):
            raise _UntranslatableError("bad quantifier")
        low, _, high = body.partition(",")
        if high and int(high) < int(low):
            raise _UntranslatableError("bad quantifier")
        self.pos = end + 1
        return "{" + body + "}"

    def atom(self, depth: int) -> str:
        ch = self.take()
        if ch == "(":
            inner = self.regexp(depth + 1)
            if self.take() != ")":
                raise _UntranslatableError("unclosed group")
            return f"(?:{inner})"
        if ch == "[":
            return self.char_class(depth + 1)
        if ch == ".":
            return "[^\\n\\r]"
        if ch == "\\":
            return self.escape(in_class=False)
        if ch in _XSD_META:
            raise _UntranslatableError(f"unescaped {ch}")
        return _literal(ch)

    def escape(self, in_class: bool) -> str:
        """A ``\\…`` escape: a class body fragment when *in_class*, else an atom."""
        ch = self.take()
        if ch in _XSD_SINGLE_ESCAPES:
            text = _code(_XSD_SINGLE_ESCAPES[ch])
            return text
        if ch in _XSD_ESCAPABLE:
            return _class_char(ch) if in_class else _literal(ch)
        positive = {"s": _XSD_SPACE, "i": _NAME_START, "c": _NAME_START + _NAME_MORE, "d": "\\d"}
        negative = {"S": "s", "I": "i", "C": "c", "D": "d"}
        if ch in positive:
            return positive[ch] if in_class else f"[{positive[ch]}]"
        if ch in negative:
            if in_class:
                raise _UntranslatableError("a negated escape inside a class")
            return f"[^{positive[negative[ch]]}]"
        if ch in ("w", "W"):
            # XML Schema's \w: everything but punctuation, separators and "other"
            body = _category_ranges("P") + _category_ranges("Z") + _category_ranges("C")
            if ch == "w" and not in_class:
                return f"[^{body}]"
            if ch == "W":
                return body if in_class else f"[{body}]"
            raise _UntranslatableError("\\w inside a class")
        if ch in ("p", "P"):
            if self.take() != "{":
                raise _UntranslatableError("bad \\p")
            end = self.text.find("}", self.pos)
            if end < 0:
                raise _UntranslatableError("bad \\p")
            name = self.text[self.pos : end]
            self.pos = end + 1
            if name in _CATEGORIES:
                body = _category_ranges(name)
            elif name in _BLOCKS:
                body = _BLOCKS[name]
            else:
                raise _UntranslatableError(f"\\p{{{name}}}")
            if ch == "P":
                if in_class:
                    raise _UntranslatableError("\\P inside a class")
                return f"[^{body}]"
            return body if in_class else f"[{body}]"
        raise _UntranslatableError(f"unknown escape \\{ch}")

    def char_class(self, depth: int) -> str:
        """After ``[``: a class, with XML Schema's subtraction ``[base-[excluded]]``.

        A negated escape inside a class (``[\\s\\S]``, ``[a\\P{L}]``) has no Python class
        form: it becomes an alternative beside the class (only in a class that is not
        itself negated).
        """
        if depth > MAX_DEPTH:
            raise _UntranslatableError("too deep")
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        items: list[str] = []
        alternatives: list[str] = []
        first = True
        while True:
            ch = self.peek()
            if ch is None:
                raise _UntranslatableError("unclosed class")
            if ch == "]" and not first:
                self.pos += 1
                return self.class_text(items, alternatives, negated)
            if ch == "-" and self.text.startswith("-[", self.pos) and not first:
                self.pos += 2
                excluded = self.char_class(depth + 1)
                if self.take() != "]":
                    raise _UntranslatableError("subtraction must end the class")
                return f"(?:(?!{excluded}){self.class_text(items, alternatives, negated)})"
            first = False
            start = self.class_char()
            if (
                self.peek() == "-"
                and not self.text.startswith("-[", self.pos)
                and self.text[self.pos + 1 : self.pos + 2] != "]"
            ):
                self.pos += 1
                end = self.class_char()
                if len(start) != 1 or len(end) != 1 or ord(end) < ord(start):
                    raise _UntranslatableError("bad range")
                items.append(f"{_class_char(start)}-{_class_char(end)}")
            elif len(start) == 1:
                items.append(_class_char(start))
            elif start[0] == "\x01":
                alternatives.append(start[1:])
            else:
                items.append(start[1:])  # a multi-character escape's class body

    @staticmethod
    def class_text(items: list[str], alternatives: list[str], negated: bool) -> str:
        body = "".join(items)
        if not alternatives:
            if not body:
                raise _UntranslatableError("empty class")
            return f"[^{body}]" if negated else f"[{body}]"
        if negated:
            raise _UntranslatableError("a negated escape inside a negated class")
        return "(?:" + "|".join(([f"[{body}]"] if body else []) + alternatives) + ")"

    def class_char(self) -> str:
        """One character (length 1), ``\\x00`` + the class body of an escape, or
        ``\\x01`` + an atom (a negated escape)."""
        ch = self.take()
        if ch == "\\":
            nxt = self.peek()
            if nxt in _XSD_SINGLE_ESCAPES:
                self.pos += 1
                return _XSD_SINGLE_ESCAPES[nxt]
            if nxt is not None and nxt in _XSD_ESCAPABLE:
                self.pos += 1
                return nxt
            if nxt in ("S", "I", "C", "D", "w", "P"):  # negated: an alternative, as an atom
                return "\x01" + self.escape(in_class=False)
            return "\x00" + self.escape(in_class=True)
        if ch == "[":
            raise _UntranslatableError("[ inside a class")
        return ch


def xsd_to_python(pattern: str) -> str | None:
    """A Python regex (for ``re.match``) accepting what the XML Schema regex accepts."""
    if len(pattern) > MAX_LENGTH:
        return None
    parser = _XsdParser(pattern)
    try:
        body = parser.regexp(0)
        if parser.pos != len(pattern):
            return None
        result = f"^(?:{body})\\Z"
        re.compile(result)
    except (_UntranslatableError, re.error, RecursionError, OverflowError, ValueError):
        return None
    return result


# ---------------------------------------------------------------------- Python → XML Schema

_AT_START = {sre_constants.AT_BEGINNING, sre_constants.AT_BEGINNING_STRING}
_XML_CHAR_CONTROLS = {"\t", "\n", "\r"}
_PY_SPACE_EXTRA = "\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"


def _xsd_char(ch: str, in_class: bool) -> str:
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if ord(ch) < 0x20 or 0xD800 <= ord(ch) <= 0xDFFF or ch in "\ufffe\uffff":
        raise _UntranslatableError("not an XML character")
    specials = "\\[]-^" if in_class else "\\|.?*+{}()[]"
    return "\\" + ch if ch in specials else ch


class _PythonToXsd:
    def __init__(self) -> None:
        self.depth = 0

    def seq(self, items: Any) -> str:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _UntranslatableError("too deep")
        out = "".join(self.item(op, av) for op, av in items)
        self.depth -= 1
        return out

    def item(self, op: Any, av: Any) -> str:
        c = sre_constants
        if op is c.LITERAL:
            return _xsd_char(chr(av), in_class=False)
        if op is c.NOT_LITERAL:
            return f"[^{_xsd_char(chr(av), in_class=True)}]"
        if op is c.ANY:
            return "[^\\n]"
        if op is c.IN:
            return self.char_class(av)
        if op is c.BRANCH:
            return "(" + "|".join(self.seq(alt) for alt in av[1]) + ")"
        if op is c.SUBPATTERN:
            _group, add_flags, del_flags, inner = av
            if add_flags or del_flags:
                raise _UntranslatableError("inline flags")
            return "(" + self.seq(inner) + ")"
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, high, inner = av
            body = self.seq(inner)
            if len(inner) != 1 or inner[0][0] in (c.MAX_REPEAT, c.MIN_REPEAT):
                body = f"({body})"
            if high is c.MAXREPEAT:
                suffix = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
            elif (low, high) == (0, 1):
                suffix = "?"
            else:
                suffix = f"{{{low}}}" if low == high else f"{{{low},{high}}}"
            return body + suffix
        raise _UntranslatableError(f"{op}")

    def char_class(self, items: Any) -> str:
        c = sre_constants
        negated = bool(items) and items[0][0] is c.NEGATE
        parts: list[str] = []
        for op, av in items[1:] if negated else items:
            if op is c.LITERAL:
                parts.append(_xsd_char(chr(av), in_class=True))
            elif op is c.RANGE:
                parts.append(f"{_xsd_char(chr(av[0]), True)}-{_xsd_char(chr(av[1]), True)}")
            elif op is c.CATEGORY and av is c.CATEGORY_DIGIT:
                parts.append("\\d")
            elif op is c.CATEGORY and av is c.CATEGORY_SPACE:
                parts.append("\\s" + _PY_SPACE_EXTRA)  # \f, \v, \x1c-\x1f cannot occur in XML
            elif op is c.CATEGORY and av is c.CATEGORY_WORD:
                parts.append("\\p{L}\\p{N}_")
            else:
                raise _UntranslatableError("class item")
        body = "".join(parts)
        if not body:
            raise _UntranslatableError("empty class")
        return f"[^{body}]" if negated else f"[{body}]"


def python_to_xsd(pattern: str) -> str | None:
    """The XML Schema regex accepting exactly the strings ``re.match(pattern, s)`` accepts."""
    if len(pattern) > MAX_LENGTH:
        return None
    try:
        parsed = sre_parse.parse(pattern)
        if parsed.state.flags & ~(re.UNICODE):
            return None
        items = list(parsed)
        anchored_end = None
        while items and items[0][0] is sre_constants.AT and items[0][1] in _AT_START:
            items = items[1:]
        if items and items[-1][0] is sre_constants.AT:
            anchored_end = items[-1][1]
            items = items[:-1]
        if any(op is sre_constants.AT for op, _ in items):
            return None
        body = _PythonToXsd().seq(items)
    except (_UntranslatableError, re.error, RecursionError, OverflowError, ValueError):
        return None
    if anchored_end is sre_constants.AT_END_STRING:
        return body
    if anchored_end is sre_constants.AT_END:
        return f"({body})\\n?" if body else "\\n?"
    if anchored_end is not None:
        return None
    return f"({body})[\\s\\S]*" if body else "[\\s\\S]*"
