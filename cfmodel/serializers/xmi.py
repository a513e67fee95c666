"""XMI instance models: write PyEcore objects the way EMF's XMIResource does, read them back.

Input (write): the roots of an instance model (objects of metamodels that were, or will
be, written as `.ecore`), and `XmiOptions` with an optional id function. Output: one XMI
file, replaced atomically, byte-identical for the same model and ids. Input (read): an
XMI file (ours or EMF's), parsed safely; the metamodels registered in the caller's
`ResourceSet`. Output: a `Document` with new objects in that resource set.

Layout (decided here, documented in docs/serialization.md):

* Several roots, no synthetic container: a single root is the document element; several
  roots sit under ``xmi:XMI`` in order, as EMF writes them. Contained objects nest as
  child elements named after their containment feature, always with ``xsi:type``.
* Identity: an object the id function names gets ``xmi:id`` and every reference to it
  uses that id, so a reference survives edits elsewhere in the document. Objects
  without an id are referenced by EMF's positional fragments (``/1/@files.0``, or
  ``//@files.0`` under a single root).
* Values: single-valued attributes that are set (not None) are written, including values
  equal to a Python-side default, so EMF never substitutes its own default; many-valued
  attributes are child elements, one per value; non-containment references are
  attributes listing targets; container references (opposites of containments) are
  implied by nesting; transient, derived and volatile features are not written.

Guarantees: nothing is returned or written for a model `validate.check_objects` refuses
(its checks run while the bytes are built, in per-class generated code; any doubt hands
over to `validate` itself, which reports every problem); the reader sets both sides of
bidirectional references exactly as listed in the file, never duplicating an item
(PyEcore's own readers do), and adds a missing side.

Speed (docs/serialization.md, "Speed"): one pre-order pass writes, with a function
generated per class; reading streams the file through expat (`xmlsafe.event_parser`)
into per-class generated constructors that store values the way PyEcore's setters would
(`fastpath`), sets one-way references to ids already read at once, and links the rest
in one pass; the cyclic garbage collector is paused during both. Cost is linear in the
model: ids, positions and opposite memberships are all looked up in tables.
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import InvalidOperation
from pathlib import Path
from typing import Any

from pyecore.ecore import EAttribute, EObject, EString
from pyecore.innerutils import InternalSet
from pyecore.resources import ResourceSet
from pyecore.valuecontainer import EValue

from cfmodel.collector import gc_paused
from cfmodel.errors import CfSerializationError, Span
from cfmodel.metamodel.runtime import codegen, fastpath
from cfmodel.serializers import (
    atomic,
    canonical,
    crossrefs,
    datatypes,
    linking,
    model,
    validate,
    xmiscan,
    xmlsafe,
)
from cfmodel.serializers.base import (
    IDS_KEY,
    XMI_NS,
    XSI_NS,
    Document,
    IdFunction,
    attach,
    ids_from,
    local_registry,
)
from cfmodel.serializers.xmlsafe import XmlLimits
from cfmodel.serializers.xmlwrite import attrs_text, escape_attr, escape_text, find_attr_special

# Names as the expat parser reports them ("namespace-URI local-name").
_XSI_TYPE = f"{XSI_NS} type"
_XMI_ID = f"{XMI_NS} id"
_XMI_XMI = f"{XMI_NS} XMI"
_XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


@dataclass(frozen=True, slots=True)
class XmiOptions:
    """``id_of`` names objects (None: positional fragment); ``limits`` cap reading;
    ``scan``: read flat documents in cfmodel's own layout through the fast lane (which
    holds the document's text while it reads); False streams every document through expat."""

    id_of: IdFunction | None = None
    limits: XmlLimits = field(default_factory=XmlLimits)
    scan: bool = True
    # reading references to other documents (``href``, ``other.xmi#//@a.0``): a prefix of
    # their URIs → its replacement (``platform:/resource/`` → a workspace directory);
    # whether documents that exist on disk are read at once (else: proxies)
    uri_map: Mapping[str, str] = field(default_factory=dict)
    load_references: bool = True


# ---- writing --------------------------------------------------------------------------


def write(target: Path | str, roots: Sequence[EObject], options: XmiOptions | None = None) -> None:
    """Validate the model and write it to `target` atomically.

    Raises:
        CfSerializationError: the model breaks its metamodel (every problem as a note).
    """
    atomic.write_bytes(target, to_bytes(roots, options))


def to_bytes(roots: Sequence[EObject], options: XmiOptions | None = None) -> bytes:
    opts = options or XmiOptions()
    roots = list(roots)
    with gc_paused():
        cache = model.FeatureCache()
        classes = canonical.one_per_class(roots)
        objects = canonical.contents(roots, cache, classes)
        ids = ids_from(opts.id_of, objects)
        # As many objects as roots: the roots are all the objects (a flat document).
        writer = _Writer(roots, ids, objects, cache, classes if len(objects) == len(roots) else None)
        # Checked while written: the generated functions check what `validate` checks and
        # give up at the first doubt; then `validate` says what is wrong (or that nothing
        # is, for values PyEcore's descriptors did not store) before anything is returned.
        data = None if validate.id_problems(ids) else writer.document(checked=True)
        if data is None:
            validate.check_objects(objects, ids, cache)
            data = writer.document()
        assert data is not None
        return data


class _ClassPlan:
    """Per class: which features go to XML attributes, which to child elements, and how.

    `head` is a function generated for the class (see `_head_source`) that writes the
    object's XML attributes; `slow_head` is the same loop written out generally, the
    reference `head` is tested against and the fallback for holders PyEcore laid out
    differently (e.g. a value never set through PyEcore's descriptors). `checked_head`
    also makes every check of `validate.check_objects` on the object (all its persistent
    features) and raises `_DoubtError` at the first problem; None when the class is always
    checked in detail (``detail``: abstract, or with iD attributes) or no checks were asked.
    """

    __slots__ = (
        "attrs",
        "checked_head",
        "checked_run",
        "contained",
        "detail",
        "head",
        "leaf",
        "many_attrs",
        "refs",
        "type_name",
        "typed",
    )

    def __init__(self, eclass: Any, prefix: str, checks: _Checks | None = None) -> None:
        self.type_name = f"{prefix}:{eclass.name}"
        self.typed = f' xsi:type="{escape_attr(self.type_name)}"'
        feats = model.persistent_features(eclass)
        attrs = [f for f in feats if isinstance(f, EAttribute)]
        # (feature, key in the object's __dict__, name in the file, ...)
        self.attrs = [(f, f._name, f.name, datatypes.codec_for(f.eType)) for f in attrs if not f.many]
        self.many_attrs = [(f, f.name, datatypes.codec_for(f.eType).to_literal) for f in attrs if f.many]
        self.refs = [
            (f, f._name, f.name, bool(f.many))
            for f in feats
            if not isinstance(f, EAttribute) and not f.containment and not model.is_container_ref(f)
        ]
        self.contained = [
            (f, f.name, bool(f.many)) for f in feats if not isinstance(f, EAttribute) and f.containment
        ]
        self.leaf = not self.many_attrs and not self.contained  # always an empty element
        self.head = _compile_head(self.attrs, self.refs)
        self.checked_head: _HeadFunction | None = None
        self.checked_run: _RunFunction | None = None  # checked heads of a run of leaf roots
        self.detail = checks is not None and validate.needs_detail(eclass, checks.features)
        if checks is not None and not self.detail:
            written = {id(a[0]) for a in self.attrs} | {id(r[0]) for r in self.refs}
            others = [f for f in feats if id(f) not in written]
            self.checked_head, self.checked_run = _compile_checked_head(self.attrs, self.refs, others, checks)

    def slow_head(self, obj: EObject, ids: Mapping[EObject, str], names: Callable[[EObject], str]) -> str:
        parts = []
        ident = ids.get(obj)
        if ident is not None:
            parts.append(("xmi:id", ident))
        for f, _, name, codec in self.attrs:
            if obj.eIsSet(f):
                v = obj.eGet(f)
                if v is not None:
                    parts.append((name, codec.to_literal(v)))
        for f, _, name, many in self.refs:
            if many:
                targets = list(obj.eGet(f))
                if targets:
                    parts.append((name, " ".join(ids.get(t) or names(t) for t in targets)))
            else:
                t = obj.eGet(f)
                if t is not None:
                    parts.append((name, ids.get(t) or names(t)))
        return attrs_text(parts)


# How a literal is written, by data type; the escaping is left out where it cannot matter.
_LITERAL_CODE = {
    "EString": "v if type(v) is str and search(v) is None else esc(str(v))",
    "EBoolean": "'true' if v else 'false'",
    "EBooleanObject": "'true' if v else 'false'",
    # repr of a finite float (v - v == 0), else NaN, Infinity: nothing to escape
    **{
        n: "repr(v) if type(v) is float and v - v == 0.0 else L(v)"
        for n in ("EDouble", "EDoubleObject", "EFloat", "EFloatObject")
    },
    "EDate": "L(v)",  # digits and separators
    **{
        n: "str(v) if type(v) is int else esc(str(v))"
        for n in ("EInt", "EIntegerObject", "ELong", "ELongObject", "EShort", "EShortObject", "EBigInteger")
    },
}


_AttrPlan = tuple[Any, str, str, datatypes.Codec]
_RefPlan = tuple[Any, str, str, bool]


# How every generated head starts: the object's dict and set features, the parts list
# (`start` first) and the id (an NCName, validated: nothing to escape).
_HEAD_START = (
    "def head(obj, ids, names, start, end):",
    "    d = obj.__dict__",
    "    s = obj._isset",
    "    p = [start]",
    "    i = ids.get(obj)",
    "    if i is not None:",
    "        p += (' xmi:id=\"', i, '\"')",
)


def _head_source(attrs: list[_AttrPlan], refs: list[_RefPlan]) -> str:
    """Python source of a function writing one class's XML attributes, in plan order.

    Only feature names appear in the text, as `repr` literals; everything else comes
    from the closure (`F<k>` features, `L<k>` literal functions).
    """
    lines = list(_HEAD_START)
    for k, (_, key, name, codec) in enumerate(attrs):
        code = _LITERAL_CODE.get(codec.name, "esc(L(v))").replace("L(", f"L{k}(")
        lines += [
            f"    if F{k} in s:",
            f"        v = d[{key!r}]._value",
            "        if v is not None:",
            f"            p += ({f' {name}=' + chr(34)!r}, {code}, '\"')",
        ]
    for _, key, name, many in refs:
        pre = f" {name}=" + chr(34)
        lines.append(f"    h = d.get({key!r})")
        if many:
            lines += [
                "    if h:",
                f"        p += ({pre!r}, esc(' '.join([ids.get(t) or names(t) for t in h])), '\"')",
            ]
        else:
            lines += [
                "    if h is not None:",
                "        t = h._value",
                "        if t is not None:",
                "            x = ids.get(t)",
                f"            p += ({pre!r}, x if x is not None else esc(names(t)), '\"')",
            ]
    lines += ["    p.append(end)", "    return ''.join(p)"]
    free = [f"F{k}" for k in range(len(attrs))] + [f"L{k}" for k in range(len(attrs))]
    body = "\n".join("    " + line for line in lines)
    return f"def make({', '.join(['search', 'esc', *free])}):\n{body}\n    return head\n"


# head(obj, ids, names, start, end) -> start + the object's XML attributes + end
_HeadFunction = Callable[[EObject, Mapping[EObject, str], Callable[[EObject], str], str, str], str]


def _compile_head(attrs: list[_AttrPlan], refs: list[_RefPlan]) -> _HeadFunction:
    free = {f"F{k}": a[0] for k, a in enumerate(attrs)}
    free |= {f"L{k}": a[3].to_literal for k, a in enumerate(attrs)}
    head: _HeadFunction = codegen.build(
        _head_source(attrs, refs), "<cfmodel.xmi head>", search=find_attr_special, esc=escape_attr, **free
    )
    return head


# A checked literal: the common, valid case in one expression (also meaning "nothing to
# escape"), anything else through `_checked_literal` (the codec's check, then its literal).
_CHECKED_LITERAL = {
    "EString": "v if type(v) is str and plain(v) is None else slow(Ck, Lk, v, True)",
    **{
        n: "('true' if v else 'false') if type(v) is bool else slow(Ck, Lk, v, False)"
        for n in ("EBoolean", "EBooleanObject")
    },
    **{
        n: "repr(v) if type(v) is float and v - v == 0.0 else slow(Ck, Lk, v, False)"
        for n in ("EDouble", "EDoubleObject", "EFloat", "EFloatObject")
    },
    **{
        n: f"str(v) if type(v) is int and {-(2 ** (b - 1))} <= v < {2 ** (b - 1)} else slow(Ck, Lk, v, True)"
        for n, b in (
            ("EInt", 32),
            ("EIntegerObject", 32),
            ("ELong", 64),
            ("ELongObject", 64),
            ("EShort", 16),
            ("EShortObject", 16),
        )
    },
    "EBigInteger": "str(v) if type(v) is int else slow(Ck, Lk, v, True)",
    "EDate": "slow(Ck, Lk, v, False)",
}
# The fast path of a checked head: (valid and plainly written, the f-string field that
# writes it) of a value ``V``; the test makes the field's text the literal (``str`` of an
# exact int, ``repr`` of a finite float).
_FAST_LITERAL = {
    "EString": ("type(V) is str and (V.isalnum() or plain(V) is None)", "V"),  # letters, digits: plain
    **{n: ("type(V) is bool", "('true' if V else 'false')") for n in ("EBoolean", "EBooleanObject")},
    **{
        n: ("type(V) is float and V - V == 0.0", "V!r")
        for n in ("EDouble", "EDoubleObject", "EFloat", "EFloatObject")
    },
    **{
        n: (f"type(V) is int and {-(2 ** (b - 1))} <= V < {2 ** (b - 1)}", "V")
        for n, b in (
            ("EInt", 32),
            ("EIntegerObject", 32),
            ("ELong", 64),
            ("ELongObject", 64),
            ("EShort", 16),
            ("EShortObject", 16),
        )
    },
    "EBigInteger": ("type(V) is int", "V"),
}


def _fast_text(attrs: list[_AttrPlan], refs: list[_RefPlan], run: bool = False) -> tuple[str, dict[str, str]]:
    """The expression (source) of the fast path's text: an f-string from ``start``, ``i``
    (the id, or None), ``a<k>``, ``x<k>``, ``end``, and the fixed text between them
    (``T<k>``, and ``U`` after ``start`` without an id; returned: passed in, never part of
    the source). With `run`, ``start`` and ``end`` come joined to the fixed text next to
    them, as ``S``, ``SU`` and ``E`` (see `_run_lines`)."""
    fixed = [' xmi:id="']
    fields = ["i"]
    for k, (*_, name, codec) in enumerate(attrs):
        fixed.append(f'" {name}="')
        fields.append(_FAST_LITERAL[codec.name][1].replace("V", f"a{k}"))
    for k, (*_, name, _) in enumerate(refs):
        fixed.append(f'" {name}="')
        fields.append(f"x{k}")
    fixed.append('"')
    n = len(fields)
    named = "{start}" + "".join(f"{{T{k}}}{{{field}}}" for k, field in enumerate(fields)) + f"{{T{n}}}{{end}}"
    # Without an id, the first fixed text loses the id's closing quote.
    unnamed = "{start}{U}" + "".join(f"{{{fields[k]}}}{{T{k + 1}}}" for k in range(1, n)) + "{end}"
    if run:
        named = named.replace("{start}{T0}", "{S}").replace(f"{{T{n}}}{{end}}", "{E}")
        unnamed = unnamed.replace("{start}{U}", "{SU}").replace(f"{{T{n}}}{{end}}", "{E}")
    texts = {f"T{k}": t for k, t in enumerate(fixed)} | {"U": fixed[1][1:]}
    return f'f"{named}" if i is not None else f"{unnamed}"', texts


def _fast_lines(
    attrs: list[_AttrPlan],
    refs: list[_RefPlan],
    others: list[Any],
    emit: str = "return {}",
    run: bool = False,
) -> list[str]:
    """The common case of a checked head as one test and one f-string: every written
    feature is set to a valid value written without escaping, every target is an object of
    the document (and lists the object back, for opposites). Only for classes whose every
    persistent feature is written this way; anything else takes the general lines, which
    write the same text. Uses the names `_compile_checked_head` defines (``Fa<k>``,
    ``Fr<k>``, ``Or<k>``, ``T<k>``, ``U``); `emit` is the statement that takes the text
    (``{}``); `run`: the lines are in `_run_lines`' loop (``get`` for ``ids.get``, ``S``,
    ``SU`` and ``E``).

    A target of one of the document's classes with an id is an object of the document:
    the writer's ids are keyed by the document's objects only (`_Writer`), which hash and
    compare by identity (`_Checks`); only a target without an id is looked up in
    ``inside``."""
    if others or any(many for *_, many in refs) or any(c.name not in _FAST_LITERAL for *_, c in attrs):
        return []
    get = "get" if run else "ids.get"
    tests = [f"Fa{k} in s" for k in range(len(attrs))] + [f"Fr{k} in s" for k in range(len(refs))]
    values: list[str] = []
    ok: list[str] = []
    for k, (_, key, _name, codec) in enumerate(attrs):
        values.append(f"        a{k} = d[{key!r}]._value")
        ok.append(_FAST_LITERAL[codec.name][0].replace("V", f"a{k}"))
    for k, (f, key, _name, _) in enumerate(refs):
        values.append(f"        r{k} = d[{key!r}]._value")
        ok.append(
            f"type(r{k}) in classes and ((x{k} := {get}(r{k})) is not None"
            f" or (r{k} in inside and (x{k} := esc(names(r{k}))) is not None))"
        )
        if f.eOpposite is not None:
            opp = f.eOpposite
            ok.append(f"paired(r{k}, Or{k}, {bool(opp.many)}, {bool(opp.unique)}, obj)")
    text, _ = _fast_text(attrs, refs, run)
    return [
        f"    i = {get}(obj)",
        f"    if {' and '.join(tests) or 'True'}:",
        *values,
        f"        if {' and '.join(ok) or 'True'}:",
        *codegen.indent(emit.format(text).split("\n"), 3),
    ]


def _run_lines(attrs: list[_AttrPlan], refs: list[_RefPlan], others: list[Any]) -> list[str]:
    """``run``: the fast path for each object of a run (consecutive leaf roots of one class),
    ``head`` for the others; what is the same for the whole run is made once."""
    last = f"T{len(attrs) + len(refs) + 1}"
    return [
        "def run(objs, append, ids, names, start, end):",
        f"    get, S, SU, E = ids.get, start + T0, start + U, {last} + end",
        "    for obj in objs:",
        "        d = obj.__dict__",
        "        s = obj._isset",
        *codegen.indent(_fast_lines(attrs, refs, others, "append({})\ncontinue", run=True), 1),
        "        append(head(obj, ids, names, start, end))",
    ]


# Characters that need escaping in an attribute, or that XML 1.0 cannot carry at all.
_NOT_PLAIN = re.compile('[&<>"\n\r\t\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _checked_literal(
    check: Callable[[Any], bool], literal: Callable[[Any], str], v: Any, escape: bool
) -> str:
    if not check(v):
        raise _DoubtError
    text = literal(v)
    return escape_attr(text) if escape else text


class _DoubtError(Exception):
    """A checked head met something `validate` would report (or could not read a value)."""


@dataclass
class _Checks:
    """What checked heads need: the document's objects (``inside``: a set, or a mapping
    keyed by them) and classes, and `validate`'s tables.

    Membership is tested by hash and equality, which for these classes (`_Writer.document`
    makes sure) is identity: PyEcore's objects do not override ``__hash__``, but a resolved
    `EProxy` hashes and compares as the object it wraps. So a target is in the document
    when its class is one of ``classes`` and it is in ``inside`` (`_OUTSIDE`).
    """

    inside: Container[EObject]
    classes: set[type]
    pairs: validate.Pairs
    features: model.FeatureCache


_OUTSIDE = "type(v) not in classes or v not in inside"
_OBJECT_HASH: Any = object.__hash__


# run(objects, append, ids, names, start, end): appends each object's start + head + end
_RunFunction = Callable[
    [Any, Callable[[str], None], Mapping[EObject, str], Callable[[EObject], str], str, str], None
]


def _compile_checked_head(
    attrs: list[_AttrPlan], refs: list[_RefPlan], others: list[Any], checks: _Checks
) -> tuple[_HeadFunction, _RunFunction | None]:
    """`head` with `validate.feature_check` for every persistent feature: written ones where
    they are written (their value read once), the others (many-valued attributes,
    containments, container references) in between."""
    free: dict[str, Any] = {}
    fail = "raise Doubt"
    lines = list(_HEAD_START)
    for k, (f, _, name, codec) in enumerate(attrs):
        free[f"L{k}"] = codec.to_literal
        code = _CHECKED_LITERAL.get(codec.name, "slow(Ck, Lk, v, True)")
        code = code.replace("Ck", f"Ca{k}").replace("Lk", f"L{k}")
        lines += codegen.indent(validate.feature_check(f, f"a{k}", free, fail, values=False), 1)
        lines += ["    if v is not None:", f"        p += ({f' {name}=' + chr(34)!r}, {code}, '\"')"]
    for k, f in enumerate(others):
        lines += codegen.indent(validate.feature_check(f, f"x{k}", free, fail, outside=_OUTSIDE), 1)
    for k, (f, _, name, many) in enumerate(refs):
        pre = f" {name}=" + chr(34)
        lines += codegen.indent(validate.feature_check(f, f"r{k}", free, fail, outside=_OUTSIDE), 1)
        if many:
            joined = "esc(' '.join([ids.get(t) or names(t) for t in vs]))"
            lines += ["    if vs:", f"        p += ({pre!r}, {joined}, '\"')"]
        else:
            lines += [
                "    if v is not None:",
                "        x = ids.get(v)",
                f"        p += ({pre!r}, x if x is not None else esc(names(v)), '\"')",
            ]
    lines += ["    p.append(end)", "    return ''.join(p)"]
    fast = _fast_lines(attrs, refs, others)
    lines[3:3] = fast
    if fast:
        free |= _fast_text(attrs, refs)[1]
        lines += _run_lines(attrs, refs, others)
    else:
        lines += ["run = None"]
    fixed = ["plain", "slow", "esc", "Doubt", "inside", "classes", "paired", "items", "illegal"]
    body = "\n".join(codegen.indent(lines, 1))
    source = f"def make({', '.join([*fixed, *free])}):\n{body}\n    return head, run\n"
    head: tuple[_HeadFunction, _RunFunction | None] = codegen.build(
        source,
        "<cfmodel.xmi checked head>",
        plain=_NOT_PLAIN.search,
        slow=_checked_literal,
        esc=escape_attr,
        Doubt=_DoubtError,
        inside=checks.inside,
        classes=checks.classes,
        paired=checks.pairs.paired,
        items=fastpath.items,
        illegal=datatypes.find_xml_illegal,
        **free,
    )
    return head


class _Writer:
    """One document: a pre-order pass over the objects with an explicit stack.

    `objects` are the document's objects in pre-order (`canonical.contents`); `ids` is keyed
    by some of them and nothing else (as `ids_from` makes it), which the checks rely on;
    `classes` is `canonical.one_per_class(objects)`, when the caller has it.
    """

    def __init__(
        self,
        roots: list[EObject],
        ids: dict[EObject, str],
        objects: list[EObject],
        cache: model.FeatureCache | None = None,
        classes: list[EObject] | None = None,
    ) -> None:
        self.roots = roots
        self.ids = ids
        self.objects = objects
        self.classes = classes
        self.cache = cache or model.FeatureCache()
        self.prefixes: dict[str, str] = {}  # nsURI -> prefix
        self.plans: dict[type, _ClassPlan] = {}
        self.checks: _Checks | None = None
        self.names = linking.Fragments(roots, ids)

    def plan(self, obj: EObject) -> _ClassPlan:
        found = self.plans.get(type(obj))
        if found is None:
            eclass = obj.eClass
            found = self.plans[type(obj)] = _ClassPlan(eclass, self.prefix(eclass.ePackage), self.checks)
        return found

    def prefix(self, pkg: Any) -> str:
        uri = pkg.nsURI
        if uri not in self.prefixes:
            base = pkg.nsPrefix
            taken = set(self.prefixes.values())
            name, n = base, 1
            while name in taken or name in ("xmi", "xsi"):
                name, n = f"{base}_{n}", n + 1
            self.prefixes[uri] = name
        return self.prefixes[uri]

    def document(self, checked: bool = False) -> bytes | None:
        """The document's bytes; with `checked`, None as soon as a check fails (see `to_bytes`)."""
        if self.classes is None:
            self.classes = canonical.one_per_class(self.objects)
        if checked and self.checks is None:
            classes = set(map(type, self.classes))
            if any(c.__hash__ is not _OBJECT_HASH for c in classes):
                return None  # membership would not be identity (see `_Checks`)
            # Every object named (the ids' keys are the objects): the ids are the set.
            inside = self.ids if len(self.ids) == len(self.objects) else set(self.objects)
            self.checks = _Checks(inside, classes, validate.Pairs(), self.cache)
            self.plans.clear()
        plans, plan = self.plans, self.plan
        for obj in self.classes:  # fixes prefixes in document order
            if type(obj) not in plans:
                plan(obj)
        if checked and any(p.detail for p in plans.values()):
            return None
        # The fast paths format ids in f-strings, which take a str subclass's __str__, where
        # the general heads join its characters: other ids are left to the general heads.
        if checked and not set(map(type, self.ids.values())) <= {str}:
            return None
        try:
            return self.write(checked)
        except (_DoubtError, AttributeError, KeyError, TypeError):
            if checked:
                return None
            raise

    def write(self, checked: bool) -> bytes:
        plans, plan = self.plans, self.plan
        ns = [("xmi:version", "2.0"), ("xmlns:xmi", XMI_NS), ("xmlns:xsi", XSI_NS)]
        ns += [(f"xmlns:{p}", uri) for uri, p in self.prefixes.items()]
        out = [_XML_DECL]
        if len(self.roots) == 1:
            root = self.roots[0]
            self.elements(out, [(root, plan(root).type_name, attrs_text(ns), 0)], checked)
            return "".join(out).encode("utf-8")
        out.append(f"<xmi:XMI{attrs_text(ns)}>\n")
        append = out.append
        # One class of objects (so of roots): one run, without grouping.
        runs = [(type(self.roots[0]), self.roots)] if len(plans) == 1 else itertools.groupby(self.roots, type)
        for cls, run in runs:
            p = plans[cls]
            if p.leaf:  # the common case: one line each
                self.leaves(append, p, run, f"  <{p.type_name}", checked)
            else:
                self.elements(out, [(r, p.type_name, "", 1) for r in run], checked)
        out.append("</xmi:XMI>\n")
        return "".join(out).encode("utf-8")

    def leaves(
        self, append: Callable[[str], None], p: _ClassPlan, objs: Any, start: str, checked: bool
    ) -> None:
        """Consecutive objects of one leaf class (always empty elements), each as one line."""
        ids, names = self.ids, self.names
        if checked and p.checked_run is not None:
            p.checked_run(objs, append, ids, names, start, "/>\n")
            return
        head = p.checked_head if checked else p.head
        for obj in objs:
            try:
                append(head(obj, ids, names, start, "/>\n"))  # type: ignore[misc]
            except (AttributeError, KeyError, TypeError):
                if checked:
                    raise
                append(f"{start}{p.slow_head(obj, ids, names)}/>\n")

    def elements(self, out: list[str], top: list[tuple[EObject, str, str, int]], checked: bool) -> None:
        """Write objects and everything they contain; `top` holds (object, tag, head, depth).

        The stack holds closing tags, objects (object, tag, head, depth), and runs of
        children of one leaf class in one feature (plan, objects, start), written as roots' are.
        """
        append = out.append
        plans, ids, names = self.plans, self.ids, self.names
        indents = [""]
        stack: list[Any] = list(reversed(top))
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            item = pop()
            if type(item) is str:  # a closing tag
                append(item)
                continue
            if len(item) == 3:
                run_plan, run, run_start = item
                self.leaves(append, run_plan, run, run_start, checked)
                continue
            obj, tag, head, depth = item
            p = plans[type(obj)]
            while len(indents) <= depth + 1:
                indents.append("  " * len(indents))
            indent, inner = indents[depth], indents[depth + 1]
            start = f"{indent}<{tag}{head}"
            if p.leaf:
                many_values: list[tuple[str, Any, Any]] = []
                kids: list[Any] = []
            else:
                many_values = [
                    (name, literal, values)
                    for f, name, literal in p.many_attrs
                    if (values := fastpath.items(obj, f))
                ]
                kids = self.children(obj, p, inner, depth + 1)
            end = ">\n" if many_values or kids else "/>\n"
            try:
                append((p.checked_head if checked else p.head)(obj, ids, names, start, end))  # type: ignore[misc]
            except (AttributeError, KeyError, TypeError):
                if checked:
                    raise
                append(f"{start}{p.slow_head(obj, ids, names)}{end}")
            if end == "/>\n":
                continue
            for name, literal, values in many_values:
                for v in values:
                    append(f"{inner}<{name}>{escape_text(literal(v))}</{name}>\n")
            push(f"{indent}</{tag}>\n")
            kids.reverse()
            extend(kids)

    def children(self, obj: EObject, p: _ClassPlan, indent: str, depth: int) -> list[Any]:
        """Stack items for the object's children, in order: a run for consecutive children
        of one leaf class in one feature, else one item per child."""
        plans = self.plans
        kids: list[Any] = []
        for f, name, many in p.contained:
            if many:
                values = fastpath.items(obj, f)
            else:
                c = fastpath.value(obj, f)
                values = () if c is None else (c,)
            for cls, run in itertools.groupby(values, type):
                cp = plans[cls]
                if cp.leaf:
                    kids.append((cp, list(run), f"{indent}<{name}{cp.typed}"))
                else:
                    kids.extend((c, name, cp.typed, depth) for c in run)
        return kids


# ---- reading --------------------------------------------------------------------------


def read(source: Path | str, resource_set: ResourceSet, options: XmiOptions | None = None) -> Document:
    """Read an XMI file into new objects; metamodels come from `resource_set`'s registry.

    Raises:
        CfSerializationError: unsafe or malformed XML, unknown classes or features, bad
            values, unresolved references (located at the file and line).
    """
    opts = options or XmiOptions()
    return from_bytes(xmlsafe.read_file(source, opts.limits), resource_set, str(source), opts)


def from_bytes(
    data: bytes, resource_set: ResourceSet, name: str = "<bytes>", options: XmiOptions | None = None
) -> Document:
    opts = options or XmiOptions()
    with gc_paused(promote=True):
        xmlsafe.check_document(data, name, opts.limits)
        if opts.scan and opts.limits.max_depth >= 2:  # a flat document's elements are 2 deep
            scanned = _scanned(data, name, resource_set)
            if scanned is not None:
                return scanned
        reader = _Reader(name, resource_set, opts.limits.max_depth, opts)
        xmlsafe.feed(reader.parser, data, name, opts.limits, checked=True)
        return reader.document()


def _scanned(data: bytes, name: str, resource_set: ResourceSet) -> Document | None:
    """The document, read through the fast lane (`xmiscan`), or None when it is outside
    what that lane reads (nothing it made is kept then; expat reads it and reports any
    error, with its line)."""
    if not fastpath.LIGHT:
        return None
    try:
        return _ScanReader(name, resource_set, 2).read(xmiscan.decode(data))
    except (xmiscan.NotScannableError, CfSerializationError):
        return None


# What a name on an element of a class stands for.
_ATTR, _MANY_ATTR, _CONTAIN, _REF = range(4)
# What the element being read is: the document, xmi:XMI (roots inside), an object, the
# value of an attribute written as an element, or something inside such a value (ignored).
_DOC, _ROOTS, _OBJECT, _VALUE, _SKIP = range(5)

_Handler = tuple[int, Any, datatypes.Codec | None]


class _ReadPlan:
    """Per class: the handler of every feature name, and the generated `create` function."""

    __slots__ = ("cls", "create", "eclass", "handlers", "light", "name")

    def __init__(self, eclass: Any) -> None:
        self.eclass = eclass
        light = fastpath.light_class(eclass) if fastpath.LIGHT and fastpath.RAW else None
        self.light = light is not None
        self.cls = light or eclass.python_class
        self.name = eclass.name
        self.handlers: dict[str, _Handler] = {}
        for f in model.all_features(eclass):
            if isinstance(f, EAttribute):
                self.handlers[f.name] = (_MANY_ATTR if f.many else _ATTR, f, datatypes.codec_for(f.eType))
            else:
                self.handlers[f.name] = (_CONTAIN if f.containment else _REF, f, None)
        self.create: Callable[[dict[str, str]], EObject] = _unset_create


def _unset_create(attrs: dict[str, str]) -> EObject:
    raise AssertionError("create is set when the plan is made")


# How a literal is read, by data type (the codec's own function, inlined where it is a builtin).
_READ_CODE = {
    "EString": "text",
    "EDouble": "float(text)",
    "EDoubleObject": "float(text)",
    "EFloat": "float(text)",
    "EFloatObject": "float(text)",
    "EBoolean": "True if text == 'true' else False if text == 'false' else L(text)",
    "EBooleanObject": "True if text == 'true' else False if text == 'false' else L(text)",
    **{
        n: "int(text)"
        for n in ("EInt", "EIntegerObject", "ELong", "ELongObject", "EShort", "EShortObject", "EBigInteger")
    },
}


def _branches(plan: _ReadPlan, raw: bool, light: bool) -> tuple[dict[str, list[str]], list[Any]]:
    """Per name an element of `plan`'s class may carry: source lines storing its value
    (in ``text``) on ``obj`` (``d`` is its ``__dict__``), and the values those lines
    need (``L<k>``: features, literal readers, holder classes).

    Only attribute and feature names appear in the text, as `repr` literals. Single-valued
    attributes go straight into new `EValue` holders when `raw` (see `fastpath`), into
    per-feature light holders when `light` (the object is then a light object,
    `plan.light`), else through `fastpath.set_attribute`; references and ids go into the
    reader's tables. Names without lines (many-valued attributes) go to ``other``.
    """
    branches: dict[str, list[str]] = {
        _XMI_ID: [
            "if text in by_id:",
            "    duplicate(text)",
            "by_id[text] = obj",
            "ids[obj] = text",
        ],
    }
    free: list[Any] = []
    for key, (kind, f, codec) in plan.handlers.items():
        k = len(free)
        if kind == _ATTR and codec is not None:
            free += [f, codec.from_literal, fastpath.holder_class(f) if light else None]
            read = _READ_CODE.get(codec.name, "L(text)").replace("L(", f"L{k + 1}(")
            if read == "text":
                lines = ["v = text"]
            else:
                lines = [
                    "try:",
                    f"    v = {read}",
                    "except (ValueError, InvalidOperation, OverflowError):",
                    f"    v = bad({k + 1}, {key!r}, text)",
                ]
            if light:  # a new object: no holder yet (XML has no repeated attributes)
                lines += [f"h = new(L{k + 2})", "h.owner = obj", "h._value = v", f"d[{f._name!r}] = h"]
            elif raw:
                lines += [
                    "h = new(EValue)",
                    "h.owner = obj",
                    f"h.feature = L{k}",
                    "h.is_ref = False",
                    "h.is_cont = False",
                    "h.generic_type = None",
                    "h._value = v",
                    f"d[{f._name!r}] = h",
                    f"s[L{k}] = None",
                ]
            else:
                lines.append(f"set_attribute(obj, L{k}, v)")
            branches[key] = lines
        elif kind == _REF and raw and not f.many and f.eOpposite is None:
            # A single one-way reference to an id already read is set at once (the value
            # the deferred pass would set, since ids are never redefined); other tokens wait.
            free += [f, {}, fastpath.holder_class(f) if light else None]
            hold = (
                [f"    h = new(L{k + 2})", "    h.owner = obj", "    h._value = t"]
                if light
                else [
                    "    h = new(EValue)",
                    "    h.owner = obj",
                    f"    h.feature = L{k}",
                    "    h.is_ref = True",
                    "    h.is_cont = False",
                    "    h.generic_type = None",
                    "    h._value = t",
                ]
            )
            branches[key] = [
                "t = by_id.get(text)",
                # one token the deferred pass would look up by id (an identifier always is)
                "if (t is not None and (text.isidentifier() or (' ' not in text and text[:1] != '/'",
                "        and '#' not in text and text.isprintable()))",
                f"        and (L{k + 1}.get(type(t)) or conform(L{k + 1}, L{k}, t))",
                f"        and {f._name!r} not in d):",
                *hold,
                f"    d[{f._name!r}] = h",
                *([] if light else [f"    s[L{k}] = None"]),
                # PyEcore's inverse index: made when first read (fastpath.InverseBatch)
                "    r = t.__dict__.get('_inverse_rels')",
                "    if r is None:",
                f"        defer((t, obj, L{k}))",
                "    else:",
                f"        r.add((obj, L{k}))",
                "else:",
                f"    pending((obj, L{k}, text, P.CurrentLineNumber))",
            ]
        elif kind in (_REF, _CONTAIN):  # a containment here is odd; PyEcore's API handles it
            free += [f, None]
            branches[key] = [f"pending((obj, L{k}, text, P.CurrentLineNumber))"]
    return branches, free


def _new_object_lines(light: bool, register: bool = True) -> list[str]:
    """Lines making ``obj`` and ``d``; a light object is put in PyEcore's registry of
    instances only if `register` (else the caller registers it later)."""
    if not light:
        return ["obj = cls.__new__(cls)", "s = obj._isset", "d = obj.__dict__"]
    # (a light object's _isset is made from its light holders when first read)
    lines = ["obj = new(cls)", f"obj.{fastpath.BATCH} = batch"]
    if register:
        lines += (
            ["register(obj)"]
            if fastpath.REGISTRY is None
            else [
                "if pending_removals:",  # what WeakSet.add does, inlined
                "    commit_removals()",
                "registry_add(weak(obj, unregister))",
            ]
        )
    return [*lines, "d = obj.__dict__"]


# The names every generated constructor is made with (then its own ``L<k>``).
_MAKE_NAMES = (
    "cls, new, EValue, set_attribute, InvalidOperation, by_id, ids, pending, P, duplicate, bad,"
    " other, conform, InternalSet, register, registry_add, unregister, pending_removals,"
    " commit_removals, weak, batch, defer, sync_isset, unescape"
)


def _create_source(plan: _ReadPlan, raw: bool, light: bool = False) -> tuple[str, list[Any]]:
    """Python source of a function building one object of `plan`'s class from its XML
    attributes (a dict, as expat gives them), and the values its closure needs (`_branches`).

    With few names, each is looked up in the dict; with many, a binary search dispatches
    every attribute of the element; anything else goes to ``other``.
    """
    branches, free = _branches(plan, raw, light)
    if len(branches) <= _FEW_NAMES:
        # Few names: each looked up once (the file's own order of the ids and values is
        # kept: the id first, then features in plan order, as written); what is left
        # over, if anything, goes to ``other`` in file order.
        known = frozenset([*branches, _XSI_TYPE])
        free.append(known)
        body = ["        n = len(attrs)", "        if n:"]
        for key in _lookup_order(branches):
            body += [
                f"            text = attrs.get({key!r})",
                "            if text is not None:",
                "                n -= 1",
            ]
            body += [f"                {line}" for line in branches.get(key, [])]
        body += [
            "            if n:",
            "                for key, text in attrs.items():",
            f"                    if key not in L{len(free) - 1}:",
            "                        other(obj, key, text)",
        ]
    else:
        body = ["        for key, text in attrs.items():", *_dispatch(sorted(branches), branches, 2)]
    names = [f"L{k}" for k in range(len(free))]
    source = "\n".join(
        [
            f"def make({_MAKE_NAMES}, {', '.join(names)}):",
            "    def create(attrs):",
            *codegen.indent(_new_object_lines(light), 2),
            *body,
            *(["        if '_isset' in d:", "            sync_isset(obj)"] if light else []),
            "        return obj",
            "    return create",
            "",
        ]
    )
    return source, free


def _lookup_order(branches: dict[str, list[str]]) -> list[str]:
    """The order in which `create` looks names up when there are few: the id, the features
    in plan order, ``xsi:type``."""
    return [_XMI_ID, *[k for k in branches if k != _XMI_ID], _XSI_TYPE]


def _rows_source(plan: _ReadPlan, names: list[str], free_text: list[bool]) -> tuple[str, list[Any]]:
    """Python source of ``build(rows, add)``, making one light object of `plan`'s class per
    row of `xmiscan` (values of the XML attributes `names`, in that order; ``""`` where
    absent, free text after a ``"``), each passed to ``add``; and its closure's values.

    The objects are built by the lines `create` runs (`_branches`), in the order `create`
    takes the names, so both give equal objects with equal dicts. They are not registered
    as PyEcore instances (the caller does it once the document is read).
    """
    branches, free = _branches(plan, fastpath.RAW, True)
    position = {name: k for k, name in enumerate(names)}
    order = (
        [n for n in _lookup_order(branches) if n in position] if len(branches) <= _FEW_NAMES else names
    )  # `create` dispatches in file order then
    body: list[str] = []
    for name in order:
        k = position[name]
        body += [f"    if a{k}:"]
        if free_text[k]:
            body += [
                f"        text = a{k}[1:]",
                "        if '&' in text:",
                "            text = unescape(text)",
            ]
        else:
            body += [f"        text = a{k}"]
        body += codegen.indent(branches[name], 2)
    row = ", ".join(f"a{k}" for k in range(len(names)))
    source = "\n".join(
        [
            f"def make({_MAKE_NAMES}, {', '.join(f'L{k}' for k in range(len(free)))}):",
            "    def build(rows, add):",
            f"        for {row}{',' if len(names) == 1 else ''} in rows:",
            *codegen.indent(_new_object_lines(True, register=False), 3),
            *codegen.indent(body, 2),
            "            if '_isset' in d:",
            "                sync_isset(obj)",
            "            add(obj)",
            "    return build",
            "",
        ]
    )
    return source, free


_FEW_NAMES = 16  # up to this many names on a class's elements, `create` looks each one up


def _conform(known: dict[type, bool], f: Any, target: EObject) -> bool:
    ok = known[type(target)] = fastpath.conforms(target, f.eType)
    return ok


def _dispatch(keys: list[str], branches: dict[str, list[str]], depth: int) -> list[str]:
    """A binary search over sorted `keys` (equality tests at the leaves), as source lines."""
    pad = "    " * (depth + 1)
    if len(keys) <= 3:
        out: list[str] = []
        for i, key in enumerate(keys):
            out.append(f"{pad}{'if' if i == 0 else 'elif'} key == {key!r}:")
            out += [f"{pad}    {line}" for line in branches[key]]
        if out:
            out += [f"{pad}else:", f"{pad}    other(obj, key, text)"]
        else:
            out = [f"{pad}other(obj, key, text)"]
        return out
    mid = len(keys) // 2
    return [
        f"{pad}if key < {keys[mid]!r}:",
        *_dispatch(keys[:mid], branches, depth + 1),
        f"{pad}else:",
        *_dispatch(keys[mid:], branches, depth + 1),
    ]


class _Reader:
    """Builds objects while expat streams the document (see the frame kinds above)."""

    def __init__(
        self, name: str, rset: ResourceSet, max_depth: int, options: XmiOptions | None = None
    ) -> None:
        self.name = name
        self.rset = rset
        self.options = options or XmiOptions()
        self.max_depth = max_depth
        self.registry = local_registry(rset)
        self.by_tag: dict[str, _ReadPlan] = {}
        self.by_xsi: dict[str, _ReadPlan] = {}
        self.by_class: dict[int, _ReadPlan] = {}
        self.ids: dict[EObject, str] = {}
        self.by_id: dict[str, EObject] = {}
        self.pending: list[tuple[EObject, Any, str, int]] = []
        self.batch = fastpath.InverseBatch()  # see fastpath.InverseBatch
        self.roots: list[EObject] = []
        self.stack: list[Any] = [(_DOC,)]
        self.prefixes: dict[str | None, list[str]] = {}
        self.seen_prefixes: dict[str | None, str] = {}
        self.parser = p = xmlsafe.event_parser(name)
        p.StartElementHandler, p.EndElementHandler = self.handlers()
        p.StartNamespaceDeclHandler = self.namespace_start
        p.EndNamespaceDeclHandler = self.namespace_end

    def fail(self, message: str, line: int | None = None) -> CfSerializationError:
        n = line or self.parser.CurrentLineNumber or 1
        return CfSerializationError(message, Span(self.name, n, 1, n, 2), code="bad-xmi")

    def document(self) -> Document:
        documents = crossrefs.documents(self.rset)
        documents.add(self.name, self.roots, self.by_id)  # first: documents it reads may refer back
        try:
            self.resolve_references()
        finally:
            documents.remove(self.name)
        resource = attach(self.rset, self.name, self.roots)
        resource.__dict__[IDS_KEY] = self.ids  # EMF's URIs of these objects (base.emf_uri)
        return Document(self.roots, self.ids, resource)

    # -- events

    def handlers(self) -> tuple[Callable[[str, dict[str, str]], None], Callable[[str], None]]:
        """The element handlers, as closures over the reader's tables (the hot path)."""
        stack, by_tag, max_depth, parser = self.stack, self.by_tag, self.max_depth, self.parser
        push, pop, add_root = stack.append, stack.pop, self.roots.append

        def start(name: str, attrs: dict[str, str]) -> None:
            if len(stack) > max_depth:
                raise xmlsafe.too_deep(self.name, max_depth, parser.CurrentLineNumber)
            top = stack[-1]
            kind = top[0]
            if kind == _ROOTS:
                plan = by_tag.get(name) or self.plan_of_tag(name)
                obj = plan.create(attrs)
                add_root(obj)
                push((_OBJECT, obj, plan))
            elif kind == _OBJECT:
                self.feature_element(top[1], top[2], name, attrs)
            elif kind == _DOC:
                if name == _XMI_XMI:
                    push((_ROOTS,))
                else:
                    plan = self.plan_of_tag(name)
                    obj = plan.create(attrs)
                    add_root(obj)
                    push((_OBJECT, obj, plan))
            else:  # inside an attribute's value: ignored, the value is the text before it
                if kind == _VALUE:
                    parser.CharacterDataHandler = None
                push((_SKIP,))

        def end(name: str) -> None:
            top = pop()
            if top[0] == _VALUE:
                parser.CharacterDataHandler = None
                self.attribute_element(top)

        return start, end

    def text(self, data: str) -> None:
        self.stack[-1][4].append(data)

    def namespace_start(self, prefix: str | None, uri: str) -> None:
        self.prefixes.setdefault(prefix, []).append(uri)
        self.seen_prefixes[prefix] = uri  # for classes named in references, read at the end
        self.by_xsi.clear()

    def namespace_end(self, prefix: str | None) -> None:
        self.prefixes[prefix].pop()
        self.by_xsi.clear()

    # -- elements

    def feature_element(self, obj: EObject, plan: _ReadPlan, name: str, attrs: dict[str, str]) -> None:
        local = name.rpartition(" ")[2]
        h = plan.handlers.get(local)
        if h is None:
            raise self.fail(f"class {plan.name} has no feature {local!r}")
        kind, f, codec = h
        if kind == _CONTAIN and "href" in attrs:  # a containment proxy: the child is elsewhere
            self.href(obj, f, attrs)
        elif kind == _CONTAIN:
            xsi = attrs.get(_XSI_TYPE)
            child_plan = self.plan_of_xsi(xsi) if xsi is not None else self.plan_of_class(f.eType)
            child = child_plan.create(attrs)
            if f.many:
                fastpath.add_item(obj, f, fastpath.collection(obj, f), child, containment=True)
            else:
                fastpath.set_reference(obj, f, child, containment=True)
            opp = f.eOpposite
            if opp is not None:
                fastpath.set_reference(child, opp, obj)
            self.stack.append((_OBJECT, child, child_plan))
        elif kind != _REF:
            self.stack.append((_VALUE, obj, f, codec, [], self.parser.CurrentLineNumber))
            self.parser.CharacterDataHandler = self.text
        elif "href" in attrs:
            self.href(obj, f, attrs)
        else:
            raise self.fail(f"unexpected element for reference {local!r}")

    def href(self, obj: EObject, f: Any, attrs: dict[str, str]) -> None:
        """``<feature href="other.xmi#//@a.0"/>`` (with ``xsi:type`` when the target's class
        is not the feature's): resolved with the other references, once all are read."""
        xsi = attrs.get(_XSI_TYPE)
        token = attrs["href"]
        if xsi is not None:
            token = f"{xsi} {token}"
        self.pending.append((obj, f, token, self.parser.CurrentLineNumber))
        self.stack.append((_SKIP,))

    def attribute_element(self, frame: tuple[Any, ...]) -> None:
        _, obj, f, codec, chunks, line = frame
        value = datatypes.parse_literal(codec, "".join(chunks), f"{self.name}:{line}")
        if f.many:
            fastpath.add_item(obj, f, fastpath.collection(obj, f), value)
        else:
            fastpath.set_attribute(obj, f, value)

    def other_attribute(self, obj: EObject, plan: _ReadPlan, key: str, text: str) -> None:
        """An XML attribute the generated `create` does not handle itself."""
        h = plan.handlers.get(key)
        if h is not None and h[0] == _MANY_ATTR:
            codec = h[2]
            where = f"{self.name}:{self.parser.CurrentLineNumber}: {plan.name}.{key}"
            f = h[1]
            coll = fastpath.collection(obj, f)
            for t in text.split():
                fastpath.add_item(obj, f, coll, datatypes.parse_literal(codec, t, where))  # type: ignore[arg-type]
        elif " " not in key:  # a namespaced attribute (xsi:type, xmi:version, ...) is ignored
            raise self.fail(f"class {plan.name} has no feature {key!r}")

    def bad_literal(self, plan: _ReadPlan, codec: datatypes.Codec, key: str, text: str) -> Any:
        where = f"{self.name}:{self.parser.CurrentLineNumber}: {plan.name}.{key}"
        return datatypes.parse_literal(codec, text, where)

    def duplicate_id(self, ident: str) -> None:
        raise self.fail(f"xmi:id {ident!r} is used twice")

    # -- classes

    def plan_of_tag(self, name: str) -> _ReadPlan:
        found = self.by_tag.get(name)
        if found is None:
            uri, _, local = name.rpartition(" ")
            found = self.by_tag[name] = self.plan_of(uri or None, local)
        return found

    def plan_of_xsi(self, xsi: str) -> _ReadPlan:
        found = self.by_xsi.get(xsi)
        if found is None:
            prefix, _, local = xsi.rpartition(":")
            uris = self.prefixes.get(prefix or None)
            found = self.by_xsi[xsi] = self.plan_of(uris[-1] if uris else None, local)
        return found

    def plan_of(self, uri: str | None, name: str) -> _ReadPlan:
        pkg = self.registry.get(uri) if uri else None
        if pkg is None:
            raise self.fail(f"no metamodel registered for namespace {uri!r} (read its .ecore first)")
        eclass = pkg.getEClassifier(name)
        if eclass is None or not hasattr(eclass, "eStructuralFeatures"):
            raise self.fail(f"class {name!r} not found in {uri}")
        return self.plan_of_class(eclass)

    def plan_of_class(self, eclass: Any) -> _ReadPlan:
        found = self.by_class.get(id(eclass))
        if found is not None and found.eclass is eclass:
            return found
        if eclass.abstract:
            raise self.fail(f"class {eclass.name!r} is abstract")
        plan = _ReadPlan(eclass)
        source, free = _create_source(plan, fastpath.RAW, plan.light)

        def bad(k: int, key: str, text: str) -> Any:  # free[k] is the feature's from_literal
            codec = plan.handlers[key][2]
            assert codec is not None and codec.from_literal is free[k]
            return self.bad_literal(plan, codec, key, text)

        def other(obj: EObject, key: str, text: str) -> None:
            self.other_attribute(obj, plan, key, text)

        plan.create = self.bind(source, f"<cfmodel.xmi create {plan.name}>", plan, free, bad=bad, other=other)
        self.by_class[id(eclass)] = plan
        return plan

    def bind(self, source: str, label: str, plan: _ReadPlan, free: list[Any], **special: Any) -> Any:
        """The function `source` makes, over this reader's tables (see `_MAKE_NAMES`)."""
        return codegen.build(
            source,
            label,
            cls=plan.cls,
            new=object.__new__,
            EValue=EValue,
            set_attribute=fastpath.set_attribute,
            InvalidOperation=InvalidOperation,
            by_id=self.by_id,
            ids=self.ids,
            pending=self.pending.append,
            P=self.parser,
            duplicate=self.duplicate_id,
            conform=_conform,
            InternalSet=InternalSet,
            register=fastpath.register,
            **dict(
                zip(
                    ("registry_add", "unregister", "pending_removals", "commit_removals"),
                    fastpath.REGISTRY or (None,) * 4,
                    strict=True,
                )
            ),
            weak=weakref.ref,
            batch=self.batch,
            defer=self.batch.extend,
            sync_isset=fastpath.sync_isset,
            unescape=xmiscan.unescape,
            **special,
            **{f"L{k}": v for k, v in enumerate(free)},
        )

    # -- references

    def resolve_references(self) -> None:
        targets = linking.Targets(self.roots, self.by_id)
        links = linking.Linker(self.batch)
        by_id = self.by_id
        for obj, f, text, line in self.pending:
            found = []
            tokens = text.split()
            for i, tok in enumerate(tokens):
                t = by_id.get(tok) if tok[0] != "/" and "#" not in tok else None
                if t is None:
                    if "#" not in tok and ":" in tok and i + 1 < len(tokens) and "#" in tokens[i + 1]:
                        continue  # EMF's "prefix:Class uri#fragment": the class of the next target
                    hint = tokens[i - 1] if i and "#" not in tokens[i - 1] and ":" in tokens[i - 1] else None
                    t = self.target(targets, tok, line, f, hint)
                found.append(t)
            bad = links.set_references(obj, f, found)
            if bad is not None:
                message = f"{obj.eClass.name}.{f.name}: target {bad.eClass.name} is not a {f.eType.name}"
                raise self.fail(message, line)
        self.pending.clear()  # nothing left for the garbage collector to scan
        links.add_missing_opposites()

    def target(
        self, targets: linking.Targets, token: str, line: int, f: Any = None, hint: str | None = None
    ) -> EObject:
        location, sep, fragment = token.partition("#")
        if sep and location and not crossrefs.same_document(self.name, location):
            return self.external(location, fragment, line, f, hint)
        found = targets.find(fragment if sep else token)
        if found is None:
            raise self.fail(f"unresolved reference {token!r}", line)
        return found

    def external(self, location: str, fragment: str, line: int, f: Any, hint: str | None) -> EObject:
        """The object ``location#fragment`` names in another document: read (once) when it
        exists and `XmiOptions.load_references`, else a proxy that keeps the URI."""
        uri = crossrefs.resolve_uri(self.name, location, self.options.uri_map)
        documents = crossrefs.documents(self.rset)
        path = crossrefs.local_path(uri)
        if path is not None and not documents.has(path) and self.options.load_references and path.is_file():
            if documents.depth >= crossrefs.MAX_NESTED_LOADS:
                raise self.fail(
                    f"more than {crossrefs.MAX_NESTED_LOADS} documents refer on to each other", line
                )
            documents.depth += 1
            try:
                read(path, self.rset, self.options)
            finally:
                documents.depth -= 1
        found = documents.find(path, fragment) if path is not None else None
        if found is not None:
            return found
        eclass = f.eType
        if hint is not None:
            prefix, _, local = hint.rpartition(":")
            eclass = self.plan_of(self.seen_prefixes.get(prefix or None), local).eclass
        if getattr(eclass, "abstract", False):
            raise self.fail(f"a proxy for {uri}#{fragment} would be of abstract class {eclass.name}", line)
        return crossrefs.proxy(eclass, f"{uri}#{fragment}")


class _ScanReader(_Reader):
    """Builds the objects of a document `xmiscan` reads, row by row, with the lines the
    streaming reader's constructors run (`_rows_source`); at the first doubt (an id used
    twice, a bad literal, a reference that does not resolve) it gives up with
    `xmiscan.NotScannableError` or `CfSerializationError`, and the caller reads with expat."""

    def __init__(self, name: str, rset: ResourceSet, max_depth: int) -> None:
        super().__init__(name, rset, max_depth)
        # per (namespace URI, class name, layout number): the function building its rows
        self.builders: dict[tuple[str, str, int], _RowsBuilder] = {}

    def read(self, text: str) -> Document:
        scanner = xmiscan.Scanner(text, self.layouts)
        prefixes, builders, add = scanner.head.prefixes, self.builders, self.roots.append
        for tag, k, rows in scanner.runs():
            prefix, _, local = tag.partition(":")
            builders[prefixes[prefix], local, k](rows, add)
        self.resolve_references()
        fastpath.register_all(self.roots)  # only now: nothing is registered if the lane gives up
        # every root is a new light object in no container (no containment is read here)
        resource = attach(self.rset, self.name, self.roots, fresh=True)
        resource.__dict__[IDS_KEY] = self.ids
        return Document(self.roots, self.ids, resource)

    def layouts(self, uri: str, local: str) -> list[xmiscan.Layout]:
        """The layouts elements of the class may be written in: cfmodel's (`_ClassPlan`:
        attributes, then references) and EMF's (features in order); none for a class the
        lane does not build (not light, or with names the patterns cannot hold)."""
        try:
            plan = self.plan_of(uri, local)
        except CfSerializationError:
            return []
        if not plan.light:
            return []
        written = [
            f
            for f in model.persistent_features(plan.eclass)
            if (
                not f.many
                if isinstance(f, EAttribute)
                else not f.containment and not model.is_container_ref(f)
            )
        ]
        if not all(xmiscan.is_name(f.name) for f in written):
            return []
        ours = [f for f in written if isinstance(f, EAttribute)] + [
            f for f in written if not isinstance(f, EAttribute)
        ]
        found: list[xmiscan.Layout] = []
        for order in (ours, written) if ours != written else (ours,):
            names = [_XMI_ID, *(f.name for f in order)]
            free_text = [
                False,
                *(isinstance(f, EAttribute) and plan.handlers[f.name][2] is _STRING for f in order),
            ]
            source, free = _rows_source(plan, names, free_text)
            self.builders[uri, local, len(found)] = self.bind(
                source, f"<cfmodel.xmi rows {plan.name}>", plan, free, bad=_give_up, other=_give_up
            )
            found.append(xmiscan.Layout(("xmi:id", *names[1:]), tuple(free_text)))
        return found

    def duplicate_id(self, ident: str) -> None:
        raise xmiscan.NotScannableError(f"xmi:id {ident!r} twice")

    def external(self, location: str, fragment: str, line: int, f: Any, hint: str | None) -> EObject:
        raise xmiscan.NotScannableError("a reference to another document")


_RowsBuilder = Callable[[xmiscan.Rows, Callable[[EObject], None]], None]
_STRING = datatypes.codec_for(EString)  # free text: may be empty, may hold references


def _give_up(*_: Any) -> Any:
    raise xmiscan.NotScannableError("a value the streaming reader reports")
