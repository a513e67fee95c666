"""Errors of the evaluator, and how values are shown in messages.

Every error is a `CfEvaluationError` with a span and a stable code; secondary
locations (the first value of a double assignment, an attribute's declaration) are
`Note`s. `Blocked` is not an error: it is how a read of a value that is not known yet
leaves an evaluation, so the scheduler can run the statement again when it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from cfmodel.errors import CfEvaluationError, Note, Span
from cfmodel.plugins import Unknown

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.values import Slot


class Blocked(Exception):  # noqa: N818 - control flow, not an error
    """A read hit a value that is not known yet (control flow, never shown to users)."""

    __slots__ = ("slot",)

    def __init__(self, slot: Slot) -> None:
        self.slot = slot


def fail(message: str, span: Span | None, code: str, notes: Iterable[Note] = ()) -> CfEvaluationError:
    """The error to raise (``raise fail(...)``)."""
    return CfEvaluationError(message, span, code, notes)


MAX_SHOWN_ITEMS = 8
MAX_SHOWN_TEXT = 80


def show(value: object) -> str:
    """A value as the language writes it, shortened for messages."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= MAX_SHOWN_TEXT else text[: MAX_SHOWN_TEXT - 4] + '..."'
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        items = [show(v) for v in value[:MAX_SHOWN_ITEMS]]
        if len(value) > MAX_SHOWN_ITEMS:
            items.append(f"... ({len(value)} items)")
        return "[" + ", ".join(items) + "]"
    if isinstance(value, dict):
        pairs = [f"{json.dumps(str(k))}: {show(v)}" for k, v in list(value.items())[:MAX_SHOWN_ITEMS]]
        if len(value) > MAX_SHOWN_ITEMS:
            pairs.append(f"... ({len(value)} keys)")
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, Unknown):
        return "unknown"
    return str(value)


def kind_of(value: object) -> str:
    """The language's name for the kind of a value (for type errors)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, Unknown):
        return "unknown"
    name = getattr(getattr(value, "info", None), "qname", None)
    return name if isinstance(name, str) else type(value).__name__
