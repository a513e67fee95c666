"""The front-end kit every grammar uses: reading sources, blanking comments, the textX
boundary and syntax-error rendering.

* `read_source(path, label, kind)`: a file's text, or a `CfLoadError` — a directory, a
  missing or unreadable file, a file over `MAX_SOURCE_BYTES` (``too-large``, before it is
  read), text that is not UTF-8 (``not-utf8``, at the first byte that cannot be decoded).
  Every grammar reads its files through it, so they fail alike.
* `CommentBlanker(pattern, markers)`: comments replaced by spaces, newlines kept, so every
  position stays exact and no grammar needs a comment rule. *pattern* matches what must be
  kept whole in group 1 (strings, regexes) and a comment in group 2; text with none of the
  *markers* is returned as it is; `split` also gives the comments (mcl's ``fmt`` keeps them).
* `attr`, `attrs`, `rule_of`: the typed boundary to textX's dynamic objects.
* `built_once`: a grammar's textX metamodel and compiled parsers, built once per process
  and by one thread at a time (textX parses every grammar with one shared parser of its
  own language, which two threads loading grammars at once break).
* `expected_text`, `syntax_error`: ``unexpected X (expected A, B or C)`` at a span;
  `TextxErrors`: a grammar's way of reading textX's syntax errors (its rules' names, its
  tokens, when the alternatives are "an expression"), so every textX grammar turns them
  into that message alike.

It imports nothing of cfmodel but `errors`.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from cfmodel.errors import CfLoadError, CfSyntaxError, Span

T = TypeVar("T")

MAX_SOURCE_BYTES = 64 * 1024 * 1024  # refused before reading (as `cfmodel.inputs.MAX_TEXT_BYTES`)


_BUILDING = threading.RLock()  # reentrant: a compiled parser is built from the metamodel


def built_once(build: Callable[[], T]) -> Callable[[], T]:
    """*build*'s product, made on the first call, by one thread at a time for every grammar
    (`_BUILDING`), and kept: compiles in threads parse with the same grammars."""
    made: list[T] = []

    @functools.wraps(build)
    def get() -> T:
        if not made:
            with _BUILDING:
                if not made:
                    made.append(build())
        return made[0]

    return get


def file_span(label: str) -> Span:
    """The span of a file as such (its start)."""
    return Span(label, 1, 1, 1, 1)


def read_source(path: Path, label: str | None = None, kind: str = "file") -> str:
    """The text of a source file, or a clear `CfLoadError`; *kind* names it in messages."""
    label = label or str(path)
    if path.is_dir():
        article = "an" if kind[:1] in ("a", "e", "i", "o", "u") else "a"
        raise CfLoadError(f"{label} is a directory, expected {article} {kind}", file_span(label), "load")
    try:
        with path.open("rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            data = b"" if size > MAX_SOURCE_BYTES else stream.read(MAX_SOURCE_BYTES + 1)
        if size > MAX_SOURCE_BYTES or len(data) > MAX_SOURCE_BYTES:
            message = f"file is too large ({max(size, len(data)):,} bytes; the limit is {MAX_SOURCE_BYTES:,})"
            raise CfLoadError(message, file_span(label), "too-large")
    except FileNotFoundError:
        raise CfLoadError(f"no such file: {label}", None, "load") from None
    except OSError as error:
        raise CfLoadError(f"cannot read {label}: {error.strerror}", None, "load") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        col = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise CfLoadError(
            f"file is not valid UTF-8 text (byte 0x{data[error.start]:02x} cannot be decoded)",
            Span(label, line, col, line, col + 1),
            "not-utf8",
        ) from None


class CommentBlanker:
    """Replace comments by spaces (newlines stay); what group 1 matches is kept whole.

    Called: the blanked text. `split`: the blanked text and the comments, for a formatter
    that puts them back (mcl's ``fmt``)."""

    __slots__ = ("markers", "pattern")

    def __init__(self, pattern: re.Pattern[str], markers: Iterable[str]) -> None:
        self.pattern = pattern
        self.markers = tuple(markers)

    def __call__(self, text: str) -> str:
        if not any(marker in text for marker in self.markers):
            return text
        return self.pattern.sub(_blank, text)

    def split(self, text: str) -> tuple[str, list[tuple[int, int, str]]]:
        """The blanked text, and each comment as (start offset, end offset, text)."""
        if not any(marker in text for marker in self.markers):
            return text, []
        comments: list[tuple[int, int, str]] = []

        def blank(match: re.Match[str]) -> str:
            if match.group(1) is None:
                comments.append((match.start(), match.end(), match.group(0)))
            return _blank(match)

        return self.pattern.sub(blank, text), comments


_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return match.group(0)
    comment = match.group(0)
    return " " * len(comment) if "\n" not in comment else _NOT_NEWLINE.sub(" ", comment)


# ---------------------------------------------------------------------- the textX boundary


def attr(node: Any, name: str) -> Any:
    """A textX attribute, None when absent (textX objects are dynamic; this is the typed boundary)."""
    return getattr(node, name, None)


def attrs(node: Any, name: str) -> list[Any]:
    """A textX attribute as a list: [] when absent, [x] for a single object."""
    value = getattr(node, name, None)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def rule_of(node: Any) -> str:
    """The grammar rule a textX object was made by."""
    return type(node).__name__


# ---------------------------------------------------------------------- syntax errors


def expected_text(names: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``; ``nothing more`` for none."""
    if not names:
        return "nothing more"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


def syntax_error(
    file: str, line: int, col: int, found: str, expected: list[str], code: str = "syntax"
) -> CfSyntaxError:
    """``unexpected 'found' (expected ...)`` at the found token (``end of file`` when empty),
    with the grammar's error code (``syntax``; mcl's: ``mcl-parse``)."""
    span = Span(file, line, col, line, col + max(len(found), 1))
    what = f"unexpected {found!r}" if found else "unexpected end of file"
    return CfSyntaxError(f"{what} (expected {expected_text(expected)})", span, code)


@dataclass(frozen=True)
class TextxErrors:
    """How a textX grammar's syntax errors read (the bindings, environments and mcl grammars).

    *rule_names*: what a rule textX expected is called (a name, or several for a rule of
    alternatives); any other rule is its text quoted (``'bind'``; a keyword's ``\\b`` left
    out, *shown* respelling a regex). *token*: the token found where parsing failed.
    *is_expression*: whether the names expected mean "an expression could start here";
    then the *expression_starts* among them are that one name. *code*: the error code."""

    rule_names: Mapping[str, str | tuple[str, ...]]
    token: re.Pattern[str]
    expression_starts: frozenset[str]
    is_expression: Callable[[list[str]], bool]
    code: str = "syntax"
    shown: Mapping[str, str] = field(default_factory=dict)

    def error(self, err: Any, text: str, file: str) -> CfSyntaxError:
        """``unexpected X (expected …)`` for textX's ``TextXSyntaxError`` *err* on *text*."""
        line, col = int(err.line or 1), int(err.col or 1)
        match = self.token.match(text, _offset(text, line, col))
        return syntax_error(file, line, col, match.group(0) if match else "", self.expected(err), self.code)

    def expected(self, err: Any) -> list[str]:
        """The names of what textX expected, each once, in textX's order."""
        names: list[str] = []
        for rule in err.expected_rules or ():
            rule_name = str(getattr(rule, "rule_name", "") or "")
            named = self.rule_names.get(rule_name)
            if named is None:
                literal = "'{}'".format(str(getattr(rule, "to_match", "") or rule_name).removesuffix(r"\b"))
                named = self.shown.get(literal, literal)
            for name in (named,) if isinstance(named, str) else named:
                if name not in names:
                    names.append(name)
        if self.is_expression(names):
            names = [name for name in names if name not in self.expression_starts] + ["an expression"]
        return names


def _offset(text: str, line: int, col: int) -> int:
    """The offset of textX's 1-based line and column (lines end at ``\\n``), at most the end."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return len(text)
    return min(start + col - 1, len(text))
