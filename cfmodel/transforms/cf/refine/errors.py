"""Errors of the evaluator, and how values are shown in messages.

Every error is a `CfEvaluationError` with a span and a stable code; secondary
locations (the first value of a double assignment, an attribute's declaration) are
`Note`s; values are shown in messages by `semantics.show` and `semantics.kind_of`
(re-exported here). `Blocked` is not an error: it is how a read of a value that is not known yet
leaves an evaluation, so the scheduler can run the statement again when it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from cfmodel.errors import CfEvaluationError, Note, Span
from cfmodel.transforms.cf.semantics import kind_of, show

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


__all__ = ["Blocked", "fail", "kind_of", "show"]
