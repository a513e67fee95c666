"""Source spans, diagnostics and the one error family of cfmodel.

Positions are data, never text pasted into a message: a `Span` travels on every
`Diagnostic` and every `CfModelError`, and `render()` here is the only place that
turns them into the user-facing ``file:line:col: severity: message  [code]`` form.
Lines and columns are 1-based; ``end_col`` is exclusive (one past the last character).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A 1-based source range: ``file:line:col`` up to ``end_line:end_col`` (exclusive)."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def merge(self, other: Span) -> Span:
        """The smallest span that covers both (same file assumed)."""
        start = min((self.line, self.col), (other.line, other.col))
        end = max((self.end_line, self.end_col), (other.end_line, other.end_col))
        return Span(self.file, start[0], start[1], end[0], end[1])

    def start(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}-{self.end_line}:{self.end_col}"


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Note:
    """A secondary location attached to a diagnostic ("first value was set here")."""

    span: Span | None
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One reported problem: where, what, a stable kebab-case code, and optional notes."""

    span: Span | None
    message: str
    code: str
    severity: Severity = Severity.ERROR
    notes: tuple[Note, ...] = ()

    def sort_key(self) -> tuple[str, int, int, str]:
        if self.span is None:
            return ("", 0, 0, self.message)
        return (self.span.file, self.span.line, self.span.col, self.message)

    def render(self) -> str:
        lines = [_render_line(self.span, self.severity.value, self.message, self.code)]
        lines.extend(_render_line(n.span, "note", n.message, None) for n in self.notes)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The diagnostic for scripts (``--format json``): position, severity, code, message, notes."""
        return {
            **_span_json(self.span),
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "notes": [{**_span_json(n.span), "message": n.message} for n in self.notes],
        }


def _span_json(span: Span | None) -> dict[str, Any]:
    if span is None:
        return {"file": None, "line": None, "col": None, "end_line": None, "end_col": None}
    return {
        "file": span.file,
        "line": span.line,
        "col": span.col,
        "end_line": span.end_line,
        "end_col": span.end_col,
    }


def _render_line(span: Span | None, severity: str, message: str, code: str | None) -> str:
    where = f"{span.start()}: " if span is not None else ""
    tail = f"  [{code}]" if code else ""
    return f"{where}{severity}: {message}{tail}"


@dataclass
class Diagnostics:
    """Collects diagnostics of a stage; passes report and keep going."""

    items: list[Diagnostic] = field(default_factory=list)

    def report(self, diagnostic: Diagnostic) -> None:
        self.items.append(diagnostic)

    def error(self, span: Span | None, message: str, code: str, notes: Iterable[Note] = ()) -> None:
        self.items.append(Diagnostic(span, message, code, Severity.ERROR, tuple(notes)))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items, key=Diagnostic.sort_key)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.sorted())

    def __len__(self) -> int:
        return len(self.items)

    def raise_if_errors(self) -> None:
        """End of a stage: one exception carrying every diagnostic, sorted by position."""
        if self.has_errors:
            raise CfCompileError(self.sorted())


class CfModelError(Exception):
    """Base of every error cfmodel raises for bad input. Carries a span and a code."""

    code: str = "error"

    def __init__(
        self, message: str, span: Span | None = None, code: str | None = None, notes: Iterable[Note] = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        if code is not None:
            self.code = code
        self.notes = tuple(notes)

    def diagnostics(self) -> list[Diagnostic]:
        return [Diagnostic(self.span, self.message, self.code, Severity.ERROR, self.notes)]

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics())

    def __str__(self) -> str:
        return self.render()


class CfSyntaxError(CfModelError):
    """The text does not follow a grammar."""

    code = "syntax"


class CfLoadError(CfModelError):
    """A file, module or namespace cannot be found or read."""

    code = "load"


class CfSemanticError(CfModelError):
    """Names, types or declarations that do not fit together."""

    code = "semantic"


class CfEvaluationError(CfModelError):
    """Running the model went wrong (double assignment, multiplicity, ...)."""

    code = "evaluation"


class CfSerializationError(CfModelError):
    """A file to read or write is not in the expected format."""

    code = "serialization"


class CfUsageError(CfModelError):
    """The command line or API was called the wrong way."""

    code = "usage"


class CfCompileError(CfModelError):
    """Several diagnostics at once, sorted by file, line and column."""

    code = "compile"

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        items = sorted(diagnostics, key=Diagnostic.sort_key)
        first = items[0] if items else None
        super().__init__(
            first.message if first else "compilation failed",
            first.span if first else None,
            first.code if first else None,
        )
        self.items = items

    def diagnostics(self) -> list[Diagnostic]:
        return list(self.items)
