"""The JSON writer's generated code: per class, a function writing an object's members.

Input: a class's persistent features in EMF's order (supertypes first) and, for a
checked function, the document's `heads.Checks`. Output: ``members(obj, ids, names,
typed, K)``, which gives the object's JSON members in emfjson-jackson's order: ``typed``
(the ``"eClass"`` member, or ``""`` when the containing feature's type says it), the id
(``"@id": "…"``, the key the writer binds), then each set feature. A class without
containment features gets its whole object text (``{…}``); any other class gets a list
of member texts in which each set containment feature is a marker ``(key text, value or
values, many, feature type)`` the writer expands (`writer.Writer`). ``K`` is the layout
of the object's depth (`Layout`): compact, or indented as ``json.dumps(indent=n)``.

Values: strings through the C encoder of Python's ``json`` (non-ASCII kept), booleans,
integers and finite floats as JSON numbers, ``EBigDecimal`` as a JSON number of its exact
digits, non-finite floats as the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``
(what Jackson writes), dates as EMF's literal string, enums as their literal, references
as ``{"eClass": "<class URI>", "$ref": "<id or fragment>"}``.

Guarantees: the code is built by a `codegen.Emitter`: feature names enter it as `repr`
literals of JSON text only, every other value as a named parameter. A checked function
makes every check of `validate.check_objects` on the object (`validate.feature_check`)
and raises `heads.DoubtError` at the first problem or at a value outside PyEcore's
holders; an unchecked one writes what the object holds (read as `fastpath` reads it).
Both give the same text for a valid object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pyecore.ecore import EAttribute, EEnum

from cfmodel.metamodel.runtime import codegen, fastpath
from cfmodel.serializers import datatypes, model, validate
from cfmodel.serializers.xmi import heads

# The C encoder of a JSON string, quotes included; non-ASCII characters kept as they are.
quote: Callable[[str], str] = json.encoder.encode_basestring

MembersFunction = Callable[..., Any]
RunFunction = Callable[..., None]
_OUTSIDE = "type(v) not in classes or v not in inside"
_DOUBT = "raise Doubt"


class Layout:
    """The separators of an object at one depth: compact (``{"a": 1, "b": 2}``) or
    indented as ``json.dumps(..., indent=n)`` lays it out. ``kit`` is the tuple the
    generated functions unpack."""

    def __init__(self, depth: int, indent: int | None) -> None:
        def nl(level: int) -> str:
            return "" if indent is None else "\n" + " " * (indent * level)

        sep = ", " if indent is None else ","
        d = depth
        self.open, self.sep, self.close = "{" + nl(d + 1), sep + nl(d + 1), nl(d) + "}"
        # a member's array (items at d + 2), a single reference's object (members at d + 2)
        self.array_open, self.array_sep, self.array_close = "[" + nl(d + 2), sep + nl(d + 2), nl(d + 1) + "]"
        self.ref_open, self.ref_sep, self.ref_close = "{" + nl(d + 2), sep + nl(d + 2), nl(d + 1) + "}"
        # a reference object inside a member's array (members at d + 3)
        self.item_open, self.item_sep, self.item_close = "{" + nl(d + 3), sep + nl(d + 3), nl(d + 2) + "}"
        self.kit = (
            self.open,
            self.sep,
            self.close,
            self.array_open,
            self.array_sep,
            self.array_close,
            self.ref_open,
            self.ref_sep,
            self.ref_close,
            self.item_open,
            self.item_sep,
            self.item_close,
        )


def key_text(name: str) -> str:
    """A member's key and colon: ``"name": ``."""
    return quote(name) + ": "


def float_json(v: Any) -> str:
    """A float (or an int held by a float feature) as Jackson writes a double: a number
    when finite, else ``"NaN"``/``"Infinity"``/``"-Infinity"``."""
    f = float(v)
    if f - f == 0.0:
        return repr(f)
    return '"NaN"' if f != f else '"Infinity"' if f > 0 else '"-Infinity"'


def decimal_json(v: Decimal) -> str:
    """An ``EBigDecimal`` as a JSON number of its exact digits."""
    text = str(v)
    return text if text[:1] != "." else "0" + text


_FLOATS = ("EDouble", "EDoubleObject", "EFloat", "EFloatObject")
_INTS = (
    "EInt",
    "EIntegerObject",
    "ELong",
    "ELongObject",
    "EShort",
    "EShortObject",
    "EBigInteger",
)


def _literal_code(em: codegen.Emitter, f: Any, codec: datatypes.Codec, var: str) -> str:
    """The expression writing one valid value ``var`` of attribute `f` as JSON."""
    name = codec.name
    if isinstance(f.eType, EEnum):
        return f"q({em.bind(datatypes.literal_text, 'literal')}({var}))"
    if name == "EString":
        return f"q({var})"
    if name in ("EBoolean", "EBooleanObject"):
        return f"('true' if {var} else 'false')"
    if name in _INTS:
        return f"('%d' % {var})"
    if name in _FLOATS:
        slow = em.bind(float_json, "num")
        return f"(repr({var}) if type({var}) is float and {var} - {var} == 0.0 else {slow}({var}))"
    if name == "EBigDecimal":
        return f"{em.bind(decimal_json, 'dec')}({var})"
    return f"q({em.bind(codec.to_literal, 'literal')}({var}))"


def _reference_code(var: str, open_: str, sep: str, close: str) -> str:
    """The expression writing a reference to ``var`` (an object of the document)."""
    target = f"('\"' + x + '\"' if (x := ids.get({var})) is not None else q(names({var})))"
    return f"{open_} + EC[type({var})] + {sep} + RK + {target} + {close}"


def members(
    eclass: Any,
    features: model.FeatureCache,
    id_key: str,
    checks: heads.Checks | None,
    eclass_members: dict[type, str],
) -> tuple[MembersFunction, RunFunction | None, bool]:
    """The generated ``members`` function of a class, its ``run(objs, append, ids, names,
    typed, K)`` (appending the texts of objects of the class at one depth; None unless
    checked and every feature is written in the common case's one f-string), and whether
    it has containment features (then ``members`` returns a list, else the object's
    text). With `checks`, the function is checked (see the module's guarantees).
    `eclass_members`: the ``"eClass"`` member of every class of the document, by Python
    class (read when a reference is written; the writer fills it before writing)."""
    persistent = features.persistent(eclass)
    nests = any(not isinstance(f, EAttribute) and f.containment for f in persistent)
    em = codegen.Emitter(
        "Doubt", "inside", "classes", "paired", "items", "illegal", "single", "q", "EC", "RK", "plain"
    )
    with em.block("def members(obj, ids, names, typed, K):"):
        em.line("d = obj.__dict__", "s = obj._isset")
        em.line("ko, ks, kc, kao, kas, kac, kro, krs, krc, kio, kis, kic = K")
        em.line("get = ids.get", "i = get(obj)")
        fast = checks is not None and _has_fast_path(persistent)
        if fast:
            em.line("S = ko + typed + ks if typed else ko")
            _FastCase(em, persistent, id_key, run=False).lines(em, ["return {}"])
        em.line("p = [typed] if typed else []")
        with em.block("if i is not None:"):
            em.line(f"p.append({em.literal(key_text(id_key) + chr(34))} + i + '\"')")
        for f in persistent:
            _feature(em, f, checks is not None)
        em.line("return p" if nests else "return ko + ks.join(p) + kc if p else '{}'")
    if fast:
        with em.block("def run(objs, append, ids, names, typed, K):"):
            em.line("ko, ks, kc, kao, kas, kac, kro, krs, krc, kio, kis, kic = K")
            em.line("S = ko + typed + ks if typed else ko", "get = ids.get")
            case = _FastCase(em, persistent, id_key, run=True)
            em.line(*case.prelude)
            with em.block("for obj in objs:"):
                em.line("d = obj.__dict__", "s = obj._isset", "i = get(obj)")
                case.lines(em, ["append({})", "continue"])
                em.line("append(members(obj, ids, names, typed, K))")
    else:
        em.line("run = None")
    label = f"<cfmodel.json {'checked ' if checks else ''}members>"
    compiled: tuple[MembersFunction, RunFunction | None] = em.build(
        label,
        "members, run",
        Doubt=heads.DoubtError,
        inside=checks.inside if checks else (),
        classes=checks.classes if checks else (),
        paired=checks.pairs.paired if checks else None,
        items=fastpath.items,
        illegal=datatypes.find_xml_illegal,
        single=fastpath.single,
        q=quote,
        EC=eclass_members,
        RK=key_text("$ref"),
        plain=_NOT_PLAIN.search,
    )
    return compiled[0], compiled[1], nests


def _feature(em: codegen.Emitter, f: Any, checked: bool) -> None:
    """Lines reading (and, `checked`, checking) one persistent feature and writing it."""
    feature = em.bind(f, "feature")
    if model.is_container_ref(f):
        if checked:
            validate.feature_check(f, em, _DOUBT, outside=_OUTSIDE)
        return
    key = em.literal(key_text(f.name))
    if checked:
        validate.feature_check(f, em, _DOUBT, outside=_OUTSIDE)
    elif f.many:
        em.line(f"vs = items(obj, {feature})")
    else:
        em.line(f"v = single(obj, {feature})")
    if isinstance(f, EAttribute):
        codec = datatypes.codec_for(f.eType)
        if f.many:
            with em.block("if vs:"):
                code = _literal_code(em, f, codec, "w")
                em.line(f"p.append({key} + kao + kas.join([{code} for w in vs]) + kac)")
        else:
            with em.block("if v is not None:"):
                em.line(f"p.append({key} + {_literal_code(em, f, codec, 'v')})")
        return
    if f.containment:
        ftype = em.bind(f.eType, "ftype")
        if f.many:
            with em.block("if vs:"):
                em.line(f"p.append(({key}, vs, True, {ftype}))")
        else:
            with em.block("if v is not None:"):
                em.line(f"p.append(({key}, v, False, {ftype}))")
        return
    if f.many:
        with em.block("if vs:"):
            ref = _reference_code("w", "kio", "kis", "kic")
            em.line(f"p.append({key} + kao + kas.join([{ref} for w in vs]) + kac)")
    else:
        with em.block("if v is not None:"):
            em.line(f"p.append({key} + {_reference_code('v', 'kro', 'krs', 'krc')})")


# The common case of a checked function in one test and one f-string, per data type: (the
# test that a value ``{v}`` is valid and written as the field shows it, the field). A
# string is plain when it needs no escaping in JSON and is one `validate` takes (no
# character XML 1.0 cannot carry): it is written between quotes as it is.
_FAST = {
    "EString": ("type({v}) is str and ({v}.isalnum() or plain({v}) is None)", "{v}"),
    **{n: ("type({v}) is bool", "'true' if {v} else 'false'") for n in ("EBoolean", "EBooleanObject")},
    **{n: ("type({v}) is float and {v} - {v} == 0.0", "{v}!r") for n in _FLOATS},
    **{n: (datatypes.integer_range_test(b), "{v}") for n, b in datatypes.INTEGER_BITS.items()},
    "EBigInteger": ("type({v}) is int", "{v}"),
}
# Characters a plain string has none of: JSON's escapes, and what XML 1.0 cannot carry.
_NOT_PLAIN = re.compile('["\\\\\x00-\x1f\ud800-\udfff\ufffe\uffff]')


def _has_fast_path(persistent: list[Any]) -> bool:
    """Is every persistent feature single-valued: an attribute of a type in `_FAST`
    (not an enum), or a non-containment reference? (And is there one at all?)"""
    if not persistent:
        return False
    for f in persistent:
        if f.many or model.is_container_ref(f):
            return False
        if isinstance(f, EAttribute):
            if isinstance(f.eType, EEnum) or datatypes.codec_for(f.eType).name not in _FAST:
                return False
        elif f.containment:
            return False
    return True


# A piece of the common case's text: a constant (an expression the same for every object
# of a run) or a value.
_CONST, _VALUE = 0, 1


def _pieces(
    em: codegen.Emitter, persistent: list[Any], id_key: str, named: bool, run: bool
) -> list[tuple[int, str]]:
    """The pieces of an object's text in the common case, with its id (`named`) or without."""
    quote_mark = em.bind('"', "quote")
    out: list[tuple[int, str]] = [(_CONST if run else _VALUE, "S")]
    if named:
        out += [(_CONST, em.bind(key_text(id_key) + '"', "idkey")), (_VALUE, "i"), (_CONST, quote_mark)]
    for k, f in enumerate(persistent):
        if k or named:
            out.append((_CONST, "ks"))
        out.append((_CONST, em.bind(key_text(f.name), "key")))
        if not isinstance(f, EAttribute):
            if run:
                out += [(_VALUE, f"REF[type(a{k})]"), (_VALUE, f"x{k}"), (_CONST, "RC")]
            else:
                out += [(_CONST, "kro"), (_VALUE, f"EC[type(a{k})]"), (_CONST, "krs"), (_CONST, "RK")]
                out += [(_CONST, quote_mark), (_VALUE, f"x{k}"), (_CONST, quote_mark), (_CONST, "krc")]
            continue
        name = datatypes.codec_for(f.eType).name
        field = _FAST[name][1].format(v=f"a{k}")
        if name == "EString":
            out += [(_CONST, quote_mark), (_VALUE, field), (_CONST, quote_mark)]
        else:
            out.append((_VALUE, field))
    out.append((_CONST, "kc"))
    return out


def _f_string(pieces: list[tuple[int, str]], prelude: list[str] | None) -> str:
    """The f-string of `pieces`; with a `prelude` (a run's), each stretch of constants is
    one name assigned there once."""
    fields: list[str] = []
    constants: list[str] = []

    def flush() -> None:
        if constants:
            name = f"C{sum(line.startswith('C') for line in prelude or ())}"
            assert prelude is not None
            prelude.append(f"{name} = {' + '.join(constants)}")
            fields.append(name)
            constants.clear()

    for kind, expr in pieces:
        if kind == _CONST and prelude is not None:
            constants.append(expr)
            continue
        flush()
        fields.append(expr)
    flush()
    return 'f"' + "".join(f"{{{field}}}" for field in fields) + '"'


class _FastCase:
    """Every feature set in one of PyEcore's holders to a valid value written plainly,
    every target an object of the document (listing the object back, for opposites): the
    object's text in one f-string (`lines`). Anything else falls through to the general
    lines, which write the same text or raise `DoubtError`.

    The tests are ordered by cost, as the XMI writer's (`heads._set_test`,
    `heads._holder_test`): every feature set (one comparison of ``_isset`` with the dict
    of them, else one by one), the holders' exact classes (all PyEcore's `EValue`, or all
    light holders), then the values. As in `heads._fast_lines`, a target with an id is an
    object of the document (ids are keyed by the document's objects only). The lines use
    ``S``: the object's opening text up to its first feature (``{``, and the ``eClass``
    member when ``typed``). In a `run`, the stretches of constant text are made once
    before the loop (`prelude`), with ``REF`` and ``RC`` (a reference's text before and
    after its target, ``REF`` by class)."""

    def __init__(self, em: codegen.Emitter, persistent: list[Any], id_key: str, run: bool) -> None:
        self.persistent = persistent
        self.ok: list[str] = []
        for k, f in enumerate(persistent):
            if isinstance(f, EAttribute):
                self.ok.append(_FAST[datatypes.codec_for(f.eType).name][0].format(v=f"a{k}"))
                continue
            self.ok.append(
                f"type(a{k}) in classes and ((x{k} := get(a{k})) is not None"
                f" or (a{k} in inside and (x{k} := q(names(a{k}))[1:-1])))"
            )
            opp = f.eOpposite
            if opp is not None:
                self.ok.append(
                    f"paired(a{k}, {em.bind(opp, 'opposite')}, {bool(opp.many)}, {bool(opp.unique)}, obj)"
                )
        self.prelude: list[str] = []
        if run and any(not isinstance(f, EAttribute) for f in persistent):
            qm = em.bind('"', "quote")
            self.prelude += [
                f"REF = {{c: kro + t + krs + RK + {qm} for c, t in EC.items()}}",
                f"RC = {qm} + krc",
            ]
        prelude = self.prelude if run else None
        self.named = _f_string(_pieces(em, persistent, id_key, True, run), prelude)
        self.unnamed = _f_string(_pieces(em, persistent, id_key, False, run), prelude)

    def lines(self, em: codegen.Emitter, emit: list[str]) -> None:
        """The lines of the common case; the `emit` statements take the text (``{}``)."""
        persistent = self.persistent
        exactly = em.bind(dict.fromkeys(persistent), "written")
        each = " and ".join(f"{em.bind(f, 'feature')} in s" for f in persistent)
        pairs = [fastpath.holder_pair(f) for f in persistent]
        same = " is ".join(f"type(h{k})" for k in range(len(persistent)))
        light = " and ".join(f"type(h{k}) is {em.bind(pair[1], 'light')}" for k, pair in enumerate(pairs))
        with em.block(f"if s == {exactly} or {each}:"):
            em.line(*(f"h{k} = d.get({em.literal(f._name)})" for k, f in enumerate(persistent)))
            with em.block(f"if {same} is {em.bind(pairs[0][0], 'EValue')} or {light}:"):
                em.line(*(f"a{k} = h{k}._value" for k in range(len(persistent))))
                with em.block(f"if {' and '.join(self.ok)}:"):
                    string = f"{self.named} if i is not None else {self.unnamed}"
                    em.line(*(statement.format(string) for statement in emit))
