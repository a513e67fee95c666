"""Type checks of values against the language's types, on every assignment.

`check` takes an attribute type (`TypeSpec`: base, ``[]``, ``?``) and returns the
value to store or raises a ``type-error`` / ``typedef`` error. Typedef constraints are checked on every value,
through the whole typedef chain: a regex must match from the start of the string
(as Python's ``re.match``), a condition is evaluated with ``self`` bound to the value
and must be true (it may call plugins).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from cfmodel.errors import Note, Span
from cfmodel.plugins import Unknown
from cfmodel.references import is_reference, reference_type
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf import semantics as sem
from cfmodel.transforms.cf.refine.errors import fail, kind_of, show
from cfmodel.transforms.cf.refine.values import Instance

ConditionRunner = Callable[[p.Typedef, Any], Any]
# what is being checked, for messages: text, or a function that makes it (only on failure)
What = str | Callable[[], str]


def _w(what: What) -> str:
    return what if isinstance(what, str) else what()


def _item_what(what: What, position: int) -> What:
    return lambda: f"{_w(what)} (item {position})"


def _is_int(value: Any) -> bool:
    return type(value) is int and sem.INT_MIN <= value <= sem.INT_MAX  # 64 bits: semantics.INT_MAX


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float


_PRIMITIVE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: type(v) is str,
    "int": _is_int,
    "float": lambda v: type(v) is float,
    "number": _is_number,
    "bool": lambda v: type(v) is bool,
    "dict": lambda v: type(v) is dict,
    "list": lambda v: type(v) is list,
    "any": lambda v: True,
}


class TypeChecker:
    """Checks values; typedef conditions run through the evaluator (`run_condition`)."""

    def __init__(self, run_condition: ConditionRunner) -> None:
        self.run_condition = run_condition
        self._regexes: dict[str, re.Pattern[str]] = {}
        # (typedef, value) pairs already known to pass, for hashable values
        self._passed: set[tuple[int, Any]] = set()

    def check(self, spec: p.TypeSpec, value: Any, span: Span | None, what: What) -> Any:
        if value is None:
            if spec.nullable:
                return None
            raise fail(
                f"{_w(what)} cannot be null: its type is {spec} (write {spec}? to allow null)",
                span,
                "type-error",
            )
        if isinstance(value, Unknown):
            return value
        if is_reference(value):
            return self.check_reference(spec, value, span, what)
        if spec.multi:
            if type(value) is not list:
                raise fail(
                    f"{_w(what)} must be a list ({spec}), not {kind_of(value)} {show(value)}",
                    span,
                    "type-error",
                )
            base = spec.base
            converted = None
            for position, item in enumerate(value):
                if isinstance(item, Unknown):
                    continue
                if is_reference(item):
                    self.check_reference(
                        p.TypeSpec(base, False, False), item, span, _item_what(what, position)
                    )
                    continue
                if item is None:
                    raise fail(
                        f"{_w(what)}: item {position} of the list is null; a {spec} holds no nulls",
                        span,
                        "type-error",
                    )
                new = self.check_base(base, item, span, _item_what(what, position), base.qualified_name)
                if new is not item:
                    if converted is None:
                        converted = list(value)
                    converted[position] = new
            return converted if converted is not None else value
        return self.check_base(spec.base, value, span, what, spec)

    def check_reference(self, spec: p.TypeSpec, value: Any, span: Span | None, what: What) -> Any:
        """A reference (Inmanta 20: resolved at deploy time) where its type fits: ``Reference[str]``
        in a ``string`` attribute (a typedef's constraints cannot be checked before deploy time)."""
        held = reference_type(value)
        if held is None:
            raise fail(
                f"{_w(what)}: the type of reference {show(value)} is not known (its class must extend "
                "Reference[T] with a concrete T, as Reference[str])",
                span,
                "type-error",
            )
        if not spec.multi and _reference_fits(spec.base, held):
            return value
        raise fail(
            f"{_w(what)} must be {_article(str(spec))} {spec}, not a reference to {held} ({show(value)})",
            span,
            "type-error",
        )

    def check_base(self, base: p.BaseType, value: Any, span: Span | None, what: What, spec: object) -> Any:
        if isinstance(base, p.Primitive):
            return self._primitive(base.name, value, span, what, spec)
        if isinstance(base, p.Typedef):
            return self.check_typedef(base, value, span, what)
        if isinstance(base, p.EnumType):
            if type(value) is not str or value not in base.values:
                choices = ", ".join(show(v) for v in base.values)
                raise fail(
                    f"{_w(what)} must be one of the values of enum {base.qualified_name} ({choices}), "
                    f"not {show(value)}",
                    span,
                    "type-error",
                )
            return value
        raise fail(f"{_w(what)}: unsupported type {spec}", span, "type-error")  # pragma: no cover

    def _primitive(self, name: str, value: Any, span: Span | None, what: What, spec: object) -> Any:
        test = _PRIMITIVE_CHECKS.get(name)
        if test is None or test(value):
            return value
        if name == "int" and type(value) is int:
            raise fail(
                f"{_w(what)} must be a 64-bit int ({sem.INT_MIN} to {sem.INT_MAX}: the metamodel's int is a "
                f"Java long), not {show(value)}",
                span,
                "type-error",
            )
        shown = str(value) if isinstance(value, Instance) else f"{kind_of(value)} {show(value)}"
        raise fail(f"{_w(what)} must be {_article(str(spec))} {spec}, not {shown}", span, "type-error")

    def check_typedef(self, typedef: p.Typedef, value: Any, span: Span | None, what: What) -> Any:
        chain: list[p.Typedef] = []
        current: p.Typedef | None = typedef
        while current is not None:
            chain.append(current)
            current = current.parent
        if typedef.base is not None:
            value = self._primitive(typedef.base.name, value, span, what, typedef.qualified_name)
        try:
            memo_key: tuple[int, Any] | None = (id(typedef), value)
            if memo_key in self._passed:
                return value
        except TypeError:  # unhashable (list, dict)
            memo_key = None
        for td in reversed(chain):
            self._constraint(td, value, span, what)
        if memo_key is not None and len(self._passed) < 100_000:
            self._passed.add(memo_key)
        return value

    def _constraint(self, td: p.Typedef, value: Any, span: Span | None, what: What) -> None:
        note = [Note(td.span, f"typedef {td.qualified_name} is defined here")]
        if td.regex is not None:
            pattern = self._regexes.get(td.regex)
            if pattern is None:
                pattern = self._regexes[td.regex] = re.compile(td.regex)
            if type(value) is not str or pattern.match(value) is None:
                raise fail(
                    f"{_w(what)}: {show(value)} does not match typedef {td.qualified_name} (/{td.regex}/)",
                    span,
                    "typedef",
                    note,
                )
        if td.condition is not None:
            result = self.run_condition(td, value)
            if isinstance(result, Unknown):
                return
            if result is not True:
                if type(result) is not bool:
                    raise fail(
                        f"the condition of typedef {td.qualified_name} gave {show(result)} for "
                        f"{show(value)}, not a bool",
                        span,
                        "typedef",
                        note,
                    )
                raise fail(
                    f"{_w(what)}: {show(value)} does not satisfy typedef {td.qualified_name}",
                    span,
                    "typedef",
                    note,
                )


def _reference_fits(base: p.BaseType, held: str) -> bool:
    """Whether a reference to *held* (a primitive's name) may stand where *base* is expected."""
    if isinstance(base, p.Typedef):
        if base.base is None:
            return False  # a constructor typedef: an entity
        base = base.base
    if isinstance(base, p.EnumType):
        return held == "string"
    name = base.name
    return name == held or name == "any" or (name == "number" and held in ("int", "float"))


def _article(text: str) -> str:
    return "an" if text[:1] in "aeiou" else "a"


def check_entity(target: p.EntityType, value: Any, span: Span | None, what: What) -> Instance:
    """A relation value must be an instance of the target entity (or a subtype)."""
    if type(value) is Instance and target in value.info.ancestors:
        return value
    shown = str(value) if type(value) is Instance else f"{kind_of(value)} {show(value)}"
    raise fail(
        f"{_w(what)} must be {_article(target.qualified_name)} {target.qualified_name}, not {shown}",
        span,
        "type-error",
    )


def fast_check(spec: p.TypeSpec) -> Callable[[Any], bool] | None:
    """A quick test that accepts the common valid values of a plain primitive type (else None)."""
    base = spec.base
    if spec.multi or not isinstance(base, p.Primitive):
        return None
    test = _PRIMITIVE_CHECKS.get(base.name)
    if test is None:
        return None
    if spec.nullable:
        return lambda v: v is None or test(v)
    return test
