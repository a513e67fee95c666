"""The XMI writer's generated code: per class, a function writing an object's XML attributes.

Input: a class's written features in plan order (`AttrPlan`: single-valued attributes,
`RefPlan`: non-containment references) and, for checked heads, its other persistent
features and the document's `Checks`. Output: ``head(obj, ids, names, start, end)``,
which returns ``start`` + the object's ``xmi:id`` and attributes + ``end``, and, for a
class written in one expression, ``run(objs, append, ids, names, start, end)``, which
appends the heads of a run of such objects.

Guarantees: the code is built by a `codegen.Emitter`: feature names enter it as `repr`
literals only, every other value (features, codecs, holder classes, the fixed text between
values) as a named parameter; no generated text is edited after it is written. An
unchecked head writes whatever the object holds (a value stored around PyEcore's holders
is read through `fastpath.value`). A checked head also makes every check of
`validate.check_objects` on the object and raises `DoubtError`, the one explicit signal,
at the first problem or at anything it does not read itself (a value outside PyEcore's
holders); it never writes text the unchecked head would not (both take the features an
object has set from PyEcore's ``_isset``, which lists features of the object's class only).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from typing import Any

from pyecore.ecore import EObject

from cfmodel.metamodel.runtime import codegen, fastpath
from cfmodel.serializers import datatypes, model, validate
from cfmodel.serializers.xmlwrite import escape_attr, find_attr_special

# (feature, key in the object's __dict__, name in the file, codec)
AttrPlan = tuple[Any, str, str, datatypes.Codec]
# (feature, key in the object's __dict__, name in the file, many)
RefPlan = tuple[Any, str, str, bool]

# head(obj, ids, names, start, end) -> start + the object's XML attributes + end
HeadFunction = Callable[[EObject, Mapping[EObject, str], Callable[[EObject], str], str, str], str]
# run(objects, append, ids, names, start, end): appends each object's start + head + end
RunFunction = Callable[
    [Any, Callable[[str], None], Mapping[EObject, str], Callable[[EObject], str], str, str], None
]


class DoubtError(Exception):
    """A checked head met something `validate` would report, or a value it does not read
    itself: the writer hands the document over to `validate` and the unchecked heads."""


def _opening(name: str) -> str:
    return f' {name}="'


# ---- unchecked heads ----------------------------------------------------------------------

# How a literal ``v`` is written, by data type; the escaping is left out where it cannot
# matter. ``{literal}``: the codec's to_literal.
_LITERAL_CODE = {
    "EString": "v if type(v) is str and search(v) is None else esc(str(v))",
    "EBoolean": "'true' if v else 'false'",
    "EBooleanObject": "'true' if v else 'false'",
    # repr of a finite float (v - v == 0), else NaN, Infinity: nothing to escape
    **{
        n: "repr(v) if type(v) is float and v - v == 0.0 else {literal}(v)"
        for n in ("EDouble", "EDoubleObject", "EFloat", "EFloatObject")
    },
    "EDate": "{literal}(v)",  # digits and separators
    **{
        n: "str(v) if type(v) is int else esc(str(v))"
        for n in ("EInt", "EIntegerObject", "ELong", "ELongObject", "EShort", "EShortObject", "EBigInteger")
    },
}
_ANY_LITERAL_CODE = "esc({literal}(v))"


def _head_start(em: codegen.Emitter) -> None:
    """Every head starts alike: the parts list (``start`` first) and the id (an NCName,
    validated: nothing to escape)."""
    em.line("p = [start]", "i = ids.get(obj)")
    with em.block("if i is not None:"):
        em.line("p += (' xmi:id=\"', i, '\"')")


def _head_end(em: codegen.Emitter) -> None:
    em.line("p.append(end)", "return ''.join(p)")


def head(attrs: list[AttrPlan], refs: list[RefPlan]) -> HeadFunction:
    """The unchecked head of a class: its attributes in plan order, then its references."""
    em = codegen.Emitter("search", "esc", "value", "items")
    with em.block("def head(obj, ids, names, start, end):"):
        em.line("d = obj.__dict__", "s = obj._isset")
        _head_start(em)
        for f, key, name, codec in attrs:
            feature = em.bind(f, "feature")
            code = _LITERAL_CODE.get(codec.name, _ANY_LITERAL_CODE)
            with em.block(f"if {feature} in s:"):
                em.line(f"h = d.get({em.literal(key)})")
                holders = em.bind(fastpath.holder_types(f), "holders")
                em.line(f"v = h._value if type(h) in {holders} else value(obj, {feature})")
                with em.block("if v is not None:"):
                    literal = code.format(literal=em.bind(codec.to_literal, "literal"))
                    em.line(f"p += ({em.literal(_opening(name))}, {literal}, '\"')")
        for f, _, name, many in refs:
            opening = em.literal(_opening(name))
            feature = em.bind(f, "feature")
            if many:
                em.line(f"ts = items(obj, {feature})")
                with em.block("if ts:"):
                    em.line(f"p += ({opening}, esc(' '.join([ids.get(t) or names(t) for t in ts])), '\"')")
            else:
                em.line(f"t = value(obj, {feature})")
                with em.block("if t is not None:"):
                    em.line("x = ids.get(t)")
                    em.line(f"p += ({opening}, x if x is not None else esc(names(t)), '\"')")
        _head_end(em)
    compiled: HeadFunction = em.build(
        "<cfmodel.xmi head>",
        "head",
        search=find_attr_special,
        esc=escape_attr,
        value=fastpath.value,
        items=fastpath.items,
    )
    return compiled


# ---- checked heads ------------------------------------------------------------------------

# A checked literal: the common, valid case in one expression (also meaning "nothing to
# escape"), anything else through `_checked_literal` (the codec's check, then its literal).
_CHECKED_LITERAL = {
    "EString": "v if type(v) is str and plain(v) is None else slow({check}, {literal}, v, True)",
    **{
        n: "('true' if v else 'false') if type(v) is bool else slow({check}, {literal}, v, False)"
        for n in ("EBoolean", "EBooleanObject")
    },
    **{
        n: "repr(v) if type(v) is float and v - v == 0.0 else slow({check}, {literal}, v, False)"
        for n in ("EDouble", "EDoubleObject", "EFloat", "EFloatObject")
    },
    **{
        n: f"str(v) if type(v) is int and {-(2 ** (b - 1))} <= v < {2 ** (b - 1)}"
        " else slow({check}, {literal}, v, True)"
        for n, b in (
            ("EInt", 32),
            ("EIntegerObject", 32),
            ("ELong", 64),
            ("ELongObject", 64),
            ("EShort", 16),
            ("EShortObject", 16),
        )
    },
    "EBigInteger": "str(v) if type(v) is int else slow({check}, {literal}, v, True)",
    "EDate": "slow({check}, {literal}, v, False)",
}
_ANY_CHECKED_LITERAL = "slow({check}, {literal}, v, True)"

# The fast path of a checked head, per data type: (the test that a value ``{v}`` is valid
# and written plainly, the f-string field that writes it); the test makes the field's
# text the literal (``str`` of an exact int, ``repr`` of a finite float).
_FAST_LITERAL = {
    "EString": (
        "type({v}) is str and ({v}.isalnum() or plain({v}) is None)",
        "{v}",
    ),  # letters, digits: plain
    **{n: ("type({v}) is bool", "('true' if {v} else 'false')") for n in ("EBoolean", "EBooleanObject")},
    **{
        n: ("type({v}) is float and {v} - {v} == 0.0", "{v}!r")
        for n in ("EDouble", "EDoubleObject", "EFloat", "EFloatObject")
    },
    **{n: (datatypes.integer_range_test(b), "{v}") for n, b in datatypes.INTEGER_BITS.items()},
    "EBigInteger": ("type({v}) is int", "{v}"),
}

# Characters that need escaping in an attribute, or that XML 1.0 cannot carry at all.
_NOT_PLAIN = re.compile('[&<>"\n\r\t\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _checked_literal(
    check: Callable[[Any], bool], literal: Callable[[Any], str], v: Any, escape: bool
) -> str:
    if not check(v):
        raise DoubtError
    text = literal(v)
    return escape_attr(text) if escape else text


@dataclass
class Checks:
    """What checked heads need: the document's objects (``inside``: a set, or a mapping
    keyed by them) and classes, and `validate`'s tables.

    Membership is tested by hash and equality, which for these classes (the writer makes
    sure) is identity: PyEcore's objects do not override ``__hash__``, but a resolved
    `EProxy` hashes and compares as the object it wraps. So a target is in the document
    when its class is one of ``classes`` and it is in ``inside`` (`_OUTSIDE`).
    """

    inside: Container[EObject]
    classes: set[type]
    pairs: validate.Pairs
    features: model.FeatureCache


_OUTSIDE = "type(v) not in classes or v not in inside"
_DOUBT = "raise Doubt"


def has_fast_path(attrs: list[AttrPlan], refs: list[RefPlan], others: list[Any]) -> bool:
    """Is the class written in one test and one f-string in the common case? Only when
    every persistent feature is written that way: single-valued, of a data type in
    `_FAST_LITERAL`, or a single reference."""
    return (
        not others and not any(many for *_, many in refs) and all(c.name in _FAST_LITERAL for *_, c in attrs)
    )


@dataclass(frozen=True)
class _FastText:
    """What a fast path binds once per class: the fixed text between the values of its
    f-string, and its test that every written feature is set (`_set_test`)."""

    texts: list[str]  # names of ' xmi:id="', then '" name="' per value, then '"'
    unnamed: str  # name of the text after ``start`` when there is no id (no quote to close)
    all_set: str  # the test


def _fast_text(em: codegen.Emitter, attrs: list[AttrPlan], refs: list[RefPlan], features: int) -> _FastText:
    written = [*attrs, *refs]
    fixed = [' xmi:id="', *(f'"{_opening(name)}' for *_, name, _ in written), '"']
    return _FastText(
        [em.bind(t, "text") for t in fixed], em.bind(fixed[1][1:], "text"), _set_test(em, written, features)
    )


def _fast_string(fields: list[str], text: _FastText, run: bool) -> str:
    """The expression writing the common case: an f-string with the id ``i`` and the
    `fields` (one per written feature), or without the id when ``i`` is None. In a `run`,
    ``S``, ``SU`` and ``E`` are ``start`` and ``end`` joined to the fixed text next to them."""
    t, n = text.texts, len(fields) + 1

    def between(k: int) -> str:  # fixed text k, then field k
        return f"{{{t[k]}}}{{{fields[k - 1]}}}"

    tail = "{E}" if run else f"{{{t[n]}}}{{end}}"
    named = (
        ("{S}" if run else f"{{start}}{{{t[0]}}}") + "{i}" + "".join(between(k) for k in range(1, n)) + tail
    )
    if n == 1:
        unnamed = "{start}{end}"
    else:
        first = ("{SU}" if run else f"{{start}}{{{text.unnamed}}}") + f"{{{fields[0]}}}"
        unnamed = first + "".join(between(k) for k in range(2, n)) + tail
    return f'f"{named}" if i is not None else f"{unnamed}"'


def _fast_lines(
    em: codegen.Emitter,
    attrs: list[AttrPlan],
    refs: list[RefPlan],
    text: _FastText,
    emit: list[str],
    run: bool = False,
) -> None:
    """The common case of a checked head as one test and one f-string: every written
    feature is set to a valid value, held in one of PyEcore's holders and written without
    escaping, every target is an object of the document (and lists the object back, for
    opposites). Anything else falls through to the general lines, which write the same
    text or raise `DoubtError`. `emit`: the statements taking the text (``{}``); `run`:
    the lines are in ``run``'s loop (``get`` for ``ids.get``, ``S``, ``SU`` and ``E``).

    The tests are ordered by cost, each made once per object (`_set_test`, `_holder_test`).

    A target of one of the document's classes with an id is an object of the document:
    the writer's ids are keyed by the document's objects only, which hash and compare by
    identity (`Checks`); only a target without an id is looked up in ``inside``."""
    get = "get" if run else "ids.get"
    written = [*attrs, *refs]
    ok: list[str] = []
    fields: list[str] = []
    for k, (_f, _key, _name, codec) in enumerate(attrs):
        valid, field = _FAST_LITERAL[codec.name]
        ok.append(valid.format(v=f"a{k}"))
        fields.append(field.format(v=f"a{k}"))
    for k, (f, _key, _name, _many) in enumerate(refs):
        r, x = f"r{k}", f"x{k}"
        ok.append(
            f"type({r}) in classes and (({x} := {get}({r})) is not None"
            f" or ({r} in inside and ({x} := esc(names({r}))) is not None))"
        )
        if f.eOpposite is not None:
            opp = f.eOpposite
            ok.append(f"paired({r}, {em.bind(opp, 'opposite')}, {bool(opp.many)}, {bool(opp.unique)}, obj)")
        fields.append(x)
    em.line(f"i = {get}(obj)")
    with em.block(f"if {text.all_set}:"):
        _holder_lines(em, written)
        with em.block(f"if {_holder_test(em, written)}:"):
            em.line(*(f"a{k} = h{k}._value" for k in range(len(attrs))))
            em.line(*(f"r{k} = h{len(attrs) + k}._value" for k in range(len(refs))))
            with em.block(f"if {' and '.join(ok) or 'True'}:"):
                string = _fast_string(fields, text, run)
                em.line(*(statement.format(string) for statement in emit))


def _set_test(em: codegen.Emitter, written: list[Any], features: int) -> str:
    """Is every written feature set (in ``s``, the object's ``_isset``, PyEcore's dict of
    the features an object has set)? When the written features are all the class's
    `features` (the common case), by their count: ``_isset`` holds features of the
    object's class only (PyEcore adds a feature when the holder its class's descriptor
    made is set; its own writers write exactly what ``_isset`` lists). Else as one
    comparison with a dict of exactly those features (in C), then feature by feature."""
    if not written:
        return "True"
    if features == len(written):
        return f"len(s) == {len(written)}"
    exactly = em.bind(dict.fromkeys(f for f, *_ in written), "written")
    return f"s == {exactly} or " + " and ".join(f"{em.bind(f, 'feature')} in s" for f, *_ in written)


def _holder_lines(em: codegen.Emitter, written: list[Any]) -> None:
    """``h<k>``: what the object's ``__dict__`` holds under each written feature's key, by
    subscript (the dict's own fast path; a method call per value costs more). A key that
    is missing (a value kept around PyEcore's holders) can only raise `KeyError` here:
    every ``h<k>`` is then None (none unbound, none left from the previous object of a
    run), which no holder test takes, so the general lines decide, reading with ``d.get``."""
    if not written:
        return
    with em.block("try:"):
        em.line(*(f"h{k} = d[{em.literal(key)}]" for k, (_, key, *_) in enumerate(written)))
    with em.block("except KeyError:"):
        em.line(" = ".join(f"h{k}" for k in range(len(written))) + " = None")


def _holder_test(em: codegen.Emitter, written: list[Any]) -> str:
    """Is every value ``h<k>`` in one of PyEcore's holders (exact classes, `fastpath.holder_pair`)?
    Tested for the common layouts in turn: every value in an `EValue` (objects built by
    PyEcore's setters), every value in its light holder (objects a reader or the compiler
    built); a mix goes to the general lines."""
    if not written:
        return "True"
    pairs = [fastpath.holder_pair(f) for f, *_ in written]
    value = em.bind(pairs[0][0], "EValue")
    same = " is ".join(f"type(h{k})" for k in range(len(written)))
    light = " and ".join(f"type(h{k}) is {em.bind(pair[1], 'light')}" for k, pair in enumerate(pairs))
    return f"{same} is {value} or {light}"


def _checked_attribute(em: codegen.Emitter, f: Any, name: str, codec: datatypes.Codec) -> None:
    validate.feature_check(f, em, _DOUBT, values=False)
    code = _CHECKED_LITERAL.get(codec.name, _ANY_CHECKED_LITERAL).format(
        check=em.bind(codec.check, "check"), literal=em.bind(codec.to_literal, "literal")
    )
    with em.block("if v is not None:"):
        em.line(f"p += ({em.literal(_opening(name))}, {code}, '\"')")


def _checked_reference(em: codegen.Emitter, f: Any, name: str, many: bool) -> None:
    validate.feature_check(f, em, _DOUBT, outside=_OUTSIDE)
    opening = em.literal(_opening(name))
    if many:
        with em.block("if vs:"):
            em.line(f"p += ({opening}, esc(' '.join([ids.get(t) or names(t) for t in vs])), '\"')")
    else:
        with em.block("if v is not None:"):
            em.line("x = ids.get(v)", f"p += ({opening}, x if x is not None else esc(names(v)), '\"')")


def checked_head(
    attrs: list[AttrPlan], refs: list[RefPlan], others: list[Any], checks: Checks, features: int = -1
) -> tuple[HeadFunction, RunFunction | None]:
    """`head` with `validate.feature_check` for every persistent feature: written ones where
    they are written (their value read once), the others (many-valued attributes,
    containments, container references) in between; and `run` when the class has a fast
    path (`has_fast_path`). `features`: how many structural features the class has, of
    every kind (-1: unknown)."""
    em = codegen.Emitter("plain", "slow", "esc", "Doubt", "inside", "classes", "paired", "items", "illegal")
    fast = has_fast_path(attrs, refs, others)
    text = _fast_text(em, attrs, refs, features) if fast else None
    with em.block("def head(obj, ids, names, start, end):"):
        em.line("d = obj.__dict__", "s = obj._isset")
        if text is not None:
            _fast_lines(em, attrs, refs, text, ["return {}"])
        _head_start(em)
        for f, _, name, codec in attrs:
            _checked_attribute(em, f, name, codec)
        for f in others:
            validate.feature_check(f, em, _DOUBT, outside=_OUTSIDE)
        for f, _, name, many in refs:
            _checked_reference(em, f, name, many)
        _head_end(em)
    if text is None:
        em.line("run = None")
    else:
        with em.block("def run(objs, append, ids, names, start, end):"):
            fixed = f"start + {text.texts[0]}, start + {text.unnamed}, {text.texts[-1]} + end"
            em.line(f"get, S, SU, E = ids.get, {fixed}")
            with em.block("for obj in objs:"):
                em.line("d = obj.__dict__", "s = obj._isset")
                _fast_lines(em, attrs, refs, text, ["append({})", "continue"], run=True)
                em.line("append(head(obj, ids, names, start, end))")
    compiled: tuple[HeadFunction, RunFunction | None] = em.build(
        "<cfmodel.xmi checked head>",
        "head, run",
        plain=_NOT_PLAIN.search,
        slow=_checked_literal,
        esc=escape_attr,
        Doubt=DoubtError,
        inside=checks.inside,
        classes=checks.classes,
        paired=checks.pairs.paired,
        items=fastpath.items,
        illegal=datatypes.find_xml_illegal,
    )
    return compiled
