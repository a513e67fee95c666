"""Typedef constraints as ExtendedMetaData facets, the constraints EMF itself enforces.

Input: a linked `Typedef` (its regex or condition, its primitive). Output: the details
of an ``http:///org/eclipse/emf/ecore/util/ExtendedMetaData`` annotation — ``pattern``,
``minInclusive``/``maxInclusive``/``minExclusive``/``maxExclusive``, ``enumeration``,
``length``/``minLength``/``maxLength`` — that EMF's Diagnostician checks on every value
of the data type (lift adds ``baseType`` for a typedef declared on another typedef, so
EMF checks the whole chain, as cfmodel does).

Guarantee: a facet is written only for what means exactly the same in EMF: a regex
`python_to_xsd` translates; a condition's conjuncts of the forms ``self OP number``,
``number OP self``, ``self == literal``, ``self in [literals]``, ``std::length(self) OP
n``. Other conjuncts (``or``, ``not``, plugin calls, …) give no facet: EMF then accepts
more than cfmodel does, never less, and the ``http://cfmodel.org/typedef`` annotation
keeps the whole constraint for cfmodel's own readers.
"""

from __future__ import annotations

import math
from typing import Any

from cfmodel.grammars import nodes
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.xsdregex import python_to_xsd

EXTENDED_METADATA = "http:///org/eclipse/emf/ecore/util/ExtendedMetaData"

_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}
_BOUND_KEY = {">=": "minInclusive", ">": "minExclusive", "<=": "maxInclusive", "<": "maxExclusive"}


def facets_of(typedef: p.Typedef) -> dict[str, str]:
    """The ExtendedMetaData facets of *typedef*'s own constraint (empty: none exact)."""
    primitive = typedef.base.name if typedef.base is not None else ""
    if typedef.regex is not None:
        pattern = python_to_xsd(typedef.regex) if primitive == "string" else None
        return {"pattern": pattern} if pattern is not None else {}
    if typedef.condition is None or primitive not in ("string", "int", "float", "number"):
        return {}
    found = _Facets(primitive)
    for conjunct in nodes.conjuncts(typedef.condition):
        found.add(conjunct)
    return found.details()


def _is_self(e: Any) -> bool:
    return isinstance(e, nodes.Reference) and e.name.text == "self"


def _is_length_of_self(e: Any) -> bool:
    return (
        isinstance(e, nodes.FunctionCall)
        and e.name.text == "std::length"
        and len(e.positional) == 1
        and not e.arguments
        and not e.wrapped_kwargs
        and _is_self(e.positional[0])
    )


def _number(e: Any) -> int | float | None:
    if not isinstance(e, nodes.Literal) or isinstance(e.value, bool):
        return None
    if isinstance(e.value, int) or (isinstance(e.value, float) and math.isfinite(e.value)):
        return e.value
    return None


class _Facets:
    def __init__(self, primitive: str) -> None:
        self.primitive = primitive
        self.lower: dict[str, int | float] = {}  # minInclusive / minExclusive
        self.upper: dict[str, int | float] = {}
        self.enumeration: list[Any] | None = None
        self.min_length: int | None = None
        self.max_length: int | None = None

    def add(self, e: nodes.Expression) -> None:
        if isinstance(e, nodes.BinaryOperation) and e.operator == "in" and _is_self(e.left):
            if isinstance(e.right, nodes.ListLiteral):
                values = [self.value(item) for item in e.right.items]
                if values and all(v is not None for v in values):
                    self.restrict(values)
            return
        if not isinstance(e, nodes.BinaryOperation) or e.operator not in _MIRROR:
            return
        operator, subject, other = e.operator, e.left, e.right
        if not (_is_self(subject) or _is_length_of_self(subject)):
            operator, subject, other = _MIRROR[operator], e.right, e.left
        if _is_self(subject):
            if operator == "==":
                value = self.value(other)
                if value is not None:
                    self.restrict([value])
                return
            number = _number(other)
            if (
                number is None
                or self.primitive == "string"
                or (self.primitive == "int" and isinstance(number, float))
            ):
                return
            self.bound(operator, number)
        elif _is_length_of_self(subject) and self.primitive == "string":
            n = _number(other)
            if not isinstance(n, int):
                return
            low = {"==": n, ">=": n, ">": n + 1}.get(operator)
            high = {"==": n, "<=": n, "<": n - 1}.get(operator)
            if low is not None:
                self.min_length = max(low, self.min_length or 0)
            if high is not None:
                self.max_length = max(-1, high) if self.max_length is None else min(self.max_length, high)

    def value(self, e: Any) -> Any:
        """A literal of the typedef's primitive that EMF's enumeration can spell."""
        if not isinstance(e, nodes.Literal) or isinstance(e.value, bool) or e.value is None:
            return None
        v = e.value
        if self.primitive == "string":
            return v if isinstance(v, str) and v and not any(ch.isspace() for ch in v) else None
        if self.primitive == "int":
            return v if isinstance(v, int) else None
        return float(v) if isinstance(v, int | float) and math.isfinite(v) else None

    def restrict(self, values: list[Any]) -> None:
        if self.enumeration is None:
            self.enumeration = list(dict.fromkeys(values))
        else:
            self.enumeration = [v for v in self.enumeration if v in values]

    def bound(self, operator: str, number: int | float) -> None:
        key = _BOUND_KEY[operator]
        if operator in (">", ">="):
            if key not in self.lower or number > self.lower[key]:
                self.lower[key] = number
        elif key not in self.upper or number < self.upper[key]:
            self.upper[key] = number

    def details(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, number in sorted({**self.lower, **self.upper}.items()):
            out[key] = self.text(number)
        if self.enumeration is not None:
            if not self.enumeration:
                return out  # contradictory: leave it to cfmodel's own check
            out["enumeration"] = " ".join(self.text(v) for v in self.enumeration)
        if self.min_length is not None and self.max_length is not None and self.min_length == self.max_length:
            out["length"] = str(self.min_length)
        else:
            if self.min_length is not None:
                out["minLength"] = str(self.min_length)
            if self.max_length is not None and self.max_length >= 0:
                out["maxLength"] = str(self.max_length)
        return out

    def text(self, v: Any) -> str:
        if isinstance(v, str):
            return v
        if self.primitive in ("float", "number"):
            return repr(float(v))
        return str(v)
