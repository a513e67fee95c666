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
    it has containment features (then ``members`` returns a list, else the object's text). With `checks`, the
    function is checked (see the module's guarantees). `eclass_members`: the ``"eClass"``
    member of every class of the document, by Python class (read when a reference is
    written; the writer fills it before writing)."""
    persistent = features.persistent(eclass)
    nests = any(not isinstance(f, EAttribute) and f.containment for f in persistent)
    em = codegen.Emitter(
        "Doubt", "inside", "classes", "paired", "items", "illegal", "single", "q", "EC", "RK"
    )
    with em.block("def members(obj, ids, names, typed, K):"):
        em.line("d = obj.__dict__", "s = obj._isset")
        em.line("ko, ks, kc, kao, kas, kac, kro, krs, krc, kio, kis, kic = K")
        em.line("get = ids.get", "i = get(obj)")
        fast = checks is not None and _has_fast_path(persistent)
        if fast:
            em.line("S = ko + typed + ks if typed else ko")
            _fast_lines(em, persistent, id_key, ["return {}"])
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
            _run_prelude(em, persistent)
            with em.block("for obj in objs:"):
                em.line("d = obj.__dict__", "s = obj._isset", "i = get(obj)")
                _fast_lines(em, persistent, id_key, ["append({})", "continue"], run=True)
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
# test that a value ``{v}`` is valid, the f-string field that writes it).
_FAST = {
    "EString": ("type({v}) is str and illegal({v}) is None", "q({v})"),
    **{n: ("type({v}) is bool", "'true' if {v} else 'false'") for n in ("EBoolean", "EBooleanObject")},
    **{n: ("type({v}) is float and {v} - {v} == 0.0", "{v}!r") for n in _FLOATS},
    **{
        n: (f"type({{v}}) is int and {-(2 ** (b - 1))} <= {{v}} < {2 ** (b - 1)}", "{v}")
        for n, b in (
            ("EInt", 32),
            ("EIntegerObject", 32),
            ("ELong", 64),
            ("ELongObject", 64),
            ("EShort", 16),
            ("EShortObject", 16),
        )
    },
    "EBigInteger": ("type({v}) is int", "{v}"),
}


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


def _fast_lines(
    em: codegen.Emitter, persistent: list[Any], id_key: str, emit: list[str], run: bool = False
) -> None:
    """Every feature set in one of PyEcore's holders to a valid value, every target an
    object of the document (listing the object back, for opposites): the object's text
    in one f-string, taken by the `emit` statements (``{}``). Anything else falls
    through to the general lines, which write the same text or raise `DoubtError`. As
    in `heads._fast_lines`, a target with an id is an object of the document (ids are
    keyed by the document's objects only). The lines use ``S``: the object's opening
    text up to its first feature (``{``, and the ``eClass`` member when ``typed``); in a
    `run`, ``P<k>`` (the text before feature k: separator and key) and ``REF`` (by
    class, a reference's text up to the opening quote of its target), made once."""
    tests: list[str] = []
    ok: list[str] = []
    fields: list[str] = []
    for k, f in enumerate(persistent):
        holders = em.bind(fastpath.holder_types(f), "holders")
        tests.append(
            f"{em.bind(f, 'feature')} in s and type(h{k} := d.get({em.literal(f._name)})) in {holders}"
        )
        key = em.bind(key_text(f.name), "key")
        before = f"{{P{k}}}" if run else ("" if k == 0 else "{ks}") + f"{{{key}}}"
        if isinstance(f, EAttribute):
            valid, field = _FAST[datatypes.codec_for(f.eType).name]
            ok.append(valid.format(v=f"a{k}"))
            fields.append(f"{before}{{{field.format(v=f'a{k}')}}}")
            continue
        ok.append(
            f"type(a{k}) in classes and ((x{k} := get(a{k})) is not None"
            f" or (a{k} in inside and (x{k} := q(names(a{k}))[1:-1])))"
        )
        opp = f.eOpposite
        if opp is not None:
            ok.append(f"paired(a{k}, {em.bind(opp, 'opposite')}, {bool(opp.many)}, {bool(opp.unique)}, obj)")
        if run:
            fields.append(f"{before}{{REF[type(a{k})]}}{{x{k}}}{{RC}}")
        else:
            fields.append(f'{before}{{kro}}{{EC[type(a{k})]}}{{krs}}{{RK}}\\"{{x{k}}}\\"{{krc}}')
    body = "".join(fields) + "{kc}"
    idk = em.bind(key_text(id_key) + '"', "idkey")
    string = f'f"{{S}}{{{idk}}}{{i}}\\"{{ks}}{body}" if i is not None else f"{{S}}{body}"'
    with em.block(f"if {' and '.join(tests)}:"):
        em.line(*(f"a{k} = h{k}._value" for k in range(len(persistent))))
        with em.block(f"if {' and '.join(ok)}:"):
            em.line(*(statement.format(string) for statement in emit))


def _run_prelude(em: codegen.Emitter, persistent: list[Any]) -> None:
    """``P<k>`` and ``REF`` for `_fast_lines` in a run (see there)."""
    for k, f in enumerate(persistent):
        key = em.bind(key_text(f.name), "key")
        em.line(f"P{k} = {key}" if k == 0 else f"P{k} = ks + {key}")
    if any(not isinstance(f, EAttribute) for f in persistent):
        em.line("REF = {c: kro + t + krs + RK + '\"' for c, t in EC.items()}", "RC = '\"' + krc")
