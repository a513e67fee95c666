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

Guarantees: the model is validated before a byte is written (`validate.check_objects`);
the reader sets both sides of bidirectional references exactly as listed in the file,
never duplicating an item (PyEcore's own readers do), and adds a missing side.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import InvalidOperation
from pathlib import Path
from typing import Any

from lxml import etree  # type: ignore[import-untyped]  # no stubs
from pyecore.ecore import EAttribute, EObject
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError, Span
from cfmodel.serializers import atomic, canonical, datatypes, fastpath, linking, model, validate
from cfmodel.serializers.base import (
    XMI_NS,
    XSI_NS,
    Document,
    IdFunction,
    attach,
    gc_paused,
    ids_from,
    local_registry,
)
from cfmodel.serializers.xmlsafe import XmlLimits, parse_bytes, read_file
from cfmodel.serializers.xmlwrite import attrs_text, escape_attr, escape_text, find_attr_special

_XSI_TYPE = f"{{{XSI_NS}}}type"
_XMI_ID = f"{{{XMI_NS}}}id"
_XMI_XMI = f"{{{XMI_NS}}}XMI"
_XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


@dataclass(frozen=True, slots=True)
class XmiOptions:
    """``id_of`` names objects (None: positional fragment); ``limits`` cap reading."""

    id_of: IdFunction | None = None
    limits: XmlLimits = field(default_factory=XmlLimits)


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
        objects = list(canonical.walk(roots, cache))
        ids = ids_from(opts.id_of, objects)
        validate.check_objects(objects, ids, cache)
        return _Writer(roots, ids, objects).document()


class _ClassPlan:
    """Per class: which features go to XML attributes, which to child elements, and how.

    `head` is a function generated for the class (see `_head_source`) that writes the
    object's XML attributes; `slow_head` is the same loop written out generally, the
    reference `head` is tested against and the fallback for holders PyEcore laid out
    differently (e.g. a value never set through PyEcore's descriptors).
    """

    __slots__ = ("attrs", "contained", "head", "many_attrs", "refs", "type_name", "typed")

    def __init__(self, eclass: Any, prefix: str) -> None:
        self.type_name = f"{prefix}:{eclass.name}"
        self.typed = f' xsi:type="{escape_attr(self.type_name)}"'
        feats = model.persistent_features(eclass)
        attrs = [f for f in feats if isinstance(f, EAttribute)]
        # (feature, key in the object's __dict__, name in the file, ...)
        self.attrs = [(f, f._name, f.name, datatypes.codec_for(f.eType)) for f in attrs if not f.many]
        self.many_attrs = [(f, f.name, datatypes.codec_for(f.eType).to_literal) for f in attrs if f.many]
        self.refs = [(f, f._name, f.name, bool(f.many)) for f in feats
                     if not isinstance(f, EAttribute) and not f.containment and not model.is_container_ref(f)]
        self.contained = [(f, f.name, bool(f.many)) for f in feats
                          if not isinstance(f, EAttribute) and f.containment]
        self.head = _compile_head(self.attrs, self.refs)

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
    "EDouble": "L(v)",  # repr, NaN, Infinity: nothing to escape
    "EDoubleObject": "L(v)",
    "EFloat": "L(v)",
    "EFloatObject": "L(v)",
    "EDate": "L(v)",  # digits and separators
    **{n: "str(v) if type(v) is int else esc(str(v))" for n in (
        "EInt", "EIntegerObject", "ELong", "ELongObject", "EShort", "EShortObject", "EBigInteger")},
}


_AttrPlan = tuple[Any, str, str, datatypes.Codec]
_RefPlan = tuple[Any, str, str, bool]


def _head_source(attrs: list[_AttrPlan], refs: list[_RefPlan]) -> str:
    """Python source of a function writing one class's XML attributes, in plan order.

    Only feature names appear in the text, as `repr` literals; everything else comes
    from the closure (`F<k>` features, `L<k>` literal functions).
    """
    lines = [
        "def head(obj, ids, names):",
        "    d = obj.__dict__",
        "    s = obj._isset",
        "    p = []",
        "    i = ids.get(obj)",
        "    if i is not None:",  # an NCName (validated): nothing to escape
        "        p += (' xmi:id=\"', i, '\"')",
    ]
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
    lines.append("    return ''.join(p)")
    free = [f"F{k}" for k in range(len(attrs))] + [f"L{k}" for k in range(len(attrs))]
    body = "\n".join("    " + line for line in lines)
    return f"def make({', '.join(['search', 'esc', *free])}):\n{body}\n    return head\n"


_HeadFunction = Callable[[EObject, Mapping[EObject, str], Callable[[EObject], str]], str]


def _compile_head(attrs: list[_AttrPlan], refs: list[_RefPlan]) -> _HeadFunction:
    namespace: dict[str, Any] = {}
    exec(compile(_head_source(attrs, refs), "<cfmodel.xmi head>", "exec"), namespace)  # our own text
    closure = {f"F{k}": a[0] for k, a in enumerate(attrs)}
    closure |= {f"L{k}": a[3].to_literal for k, a in enumerate(attrs)}
    head: _HeadFunction = namespace["make"](search=find_attr_special, esc=escape_attr, **closure)
    return head


class _Writer:
    """One document: a pre-order pass over the objects with an explicit stack."""

    def __init__(self, roots: list[EObject], ids: dict[EObject, str], objects: list[EObject]) -> None:
        self.roots = roots
        self.ids = ids
        self.objects = objects
        self.prefixes: dict[str, str] = {}  # nsURI -> prefix
        self.plans: dict[type, _ClassPlan] = {}
        self.names = linking.Fragments(roots, ids)

    def plan(self, obj: EObject) -> _ClassPlan:
        found = self.plans.get(type(obj))
        if found is None:
            eclass = obj.eClass
            found = self.plans[type(obj)] = _ClassPlan(eclass, self.prefix(eclass.ePackage))
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

    def document(self) -> bytes:
        plans, plan = self.plans, self.plan
        for obj in self.objects:  # fixes prefixes in document order before writing
            if type(obj) not in plans:
                plan(obj)
        ns = [("xmi:version", "2.0"), ("xmlns:xmi", XMI_NS), ("xmlns:xsi", XSI_NS)]
        ns += [(f"xmlns:{p}", uri) for uri, p in self.prefixes.items()]
        out = [_XML_DECL]
        if len(self.roots) == 1:
            root = self.roots[0]
            self.elements(out, [(root, plan(root).type_name, attrs_text(ns), 0)])
        else:
            out.append(f"<xmi:XMI{attrs_text(ns)}>\n")
            self.elements(out, [(r, plans[type(r)].type_name, "", 1) for r in self.roots])
            out.append("</xmi:XMI>\n")
        return "".join(out).encode("utf-8")

    def elements(self, out: list[str], top: list[tuple[EObject, str, str, int]]) -> None:
        """Write objects and everything they contain; `top` holds (object, tag, head, depth)."""
        append = out.append
        plans, ids, names = self.plans, self.ids, self.names
        indents = [""]
        stack: list[Any] = list(reversed(top))
        pop, push = stack.pop, stack.append
        while stack:
            item = pop()
            if type(item) is str:  # a closing tag
                append(item)
                continue
            obj, tag, head, depth = item
            p = plans[type(obj)]
            while len(indents) <= depth + 1:
                indents.append("  " * len(indents))
            indent = indents[depth]
            try:
                attrs = p.head(obj, ids, names)
            except (AttributeError, KeyError, TypeError):
                attrs = p.slow_head(obj, ids, names)
            if not p.many_attrs and not p.contained:
                append(f"{indent}<{tag}{head}{attrs}/>\n")
                continue
            many_values = [(name, literal, values) for f, name, literal in p.many_attrs
                           if (values := fastpath.items(obj, f))]
            children: list[tuple[EObject, Any]] = []
            for f, _name, many in p.contained:
                if many:
                    children.extend((c, f) for c in fastpath.items(obj, f))
                else:
                    c = fastpath.value(obj, f)
                    if c is not None:
                        children.append((c, f))
            if not many_values and not children:
                append(f"{indent}<{tag}{head}{attrs}/>\n")
                continue
            append(f"{indent}<{tag}{head}{attrs}>\n")
            inner = indents[depth + 1]
            for name, literal, values in many_values:
                for v in values:
                    append(f"{inner}<{name}>{escape_text(literal(v))}</{name}>\n")
            push(f"{indent}</{tag}>\n")
            for c, f in reversed(children):
                push((c, f.name, plans[type(c)].typed, depth + 1))


# ---- reading --------------------------------------------------------------------------


def read(source: Path | str, resource_set: ResourceSet, options: XmiOptions | None = None) -> Document:
    """Read an XMI file into new objects; metamodels come from `resource_set`'s registry.

    Raises:
        CfSerializationError: unsafe or malformed XML, unknown classes or features, bad
            values, unresolved references (located at the file and line).
    """
    opts = options or XmiOptions()
    return from_bytes(read_file(source, opts.limits), resource_set, str(source), opts)


def from_bytes(data: bytes, resource_set: ResourceSet, name: str = "<bytes>",
               options: XmiOptions | None = None) -> Document:
    opts = options or XmiOptions()
    with gc_paused():
        tree = parse_bytes(data, name, opts.limits)
        return _Reader(name, resource_set, data).document(tree)


# Kinds of what a name on an element stands for.
_ATTR, _MANY_ATTR, _CONTAIN, _REF = range(4)

_LiteralReader = Callable[[str], Any]


class _ReadPlan:
    """Per class: the handler of every feature name, and the class's constructor."""

    __slots__ = ("cls", "eclass", "handlers", "name")

    def __init__(self, eclass: Any) -> None:
        self.eclass = eclass
        self.cls = eclass.python_class
        self.name = eclass.name
        self.handlers: dict[str, tuple[int, Any, str, _LiteralReader | None, datatypes.Codec | None]] = {}
        for f in model.all_features(eclass):
            if isinstance(f, EAttribute):
                codec = datatypes.codec_for(f.eType)
                kind = _MANY_ATTR if f.many else _ATTR
                self.handlers[f.name] = (kind, f, f._name, codec.from_literal, codec)
            else:
                self.handlers[f.name] = (_CONTAIN if f.containment else _REF, f, f._name, None, None)


class _Reader:
    def __init__(self, name: str, rset: ResourceSet, data: bytes) -> None:
        self.name = name
        self.rset = rset
        self.data = data
        self.registry = local_registry(rset)
        self.plans: dict[Any, _ReadPlan] = {}
        self.ids: dict[EObject, str] = {}
        self.by_id: dict[str, EObject] = {}
        self.pending: list[tuple[EObject, Any, str, int]] = []
        self.roots: list[EObject] = []
        self.root_nsmap: dict[str | None, str] | None = None

    def fail(self, line: int | None, message: str) -> CfSerializationError:
        n = line or 1
        return CfSerializationError(message, Span(self.name, n, 1, n, 2), code="bad-xmi")

    def document(self, tree: etree._ElementTree) -> Document:
        root = tree.getroot()
        # Namespaces declared only on the document element (as EMF and we write them):
        # then every element's prefixes are the root's, and xsi:type needs no lookup.
        nsmap = root.nsmap
        if self.data.count(b"xmlns") == len(nsmap):
            self.root_nsmap = nsmap
        elements = [e for e in root if type(e.tag) is str] if root.tag == _XMI_XMI else [root]
        for el in elements:
            self.roots.append(self.create(el, self.plan_of_tag(el)))
        self.resolve_references()
        resource = attach(self.rset, self.name, self.roots)
        return Document(self.roots, self.ids, resource)

    def plan_of_tag(self, el: etree._Element) -> _ReadPlan:
        found = self.plans.get(el.tag)
        if found is None:
            q = etree.QName(el)
            found = self.plans[el.tag] = self.plan_of(q.namespace, q.localname, el.sourceline)
        return found

    def plan_of_xsi(self, el: etree._Element, default: Any) -> _ReadPlan:
        xsi = el.get(_XSI_TYPE)
        if xsi is None:
            key: Any = default
            found = self.plans.get(key)
            if found is None:
                found = self.plans[key] = self.plan_of_class(default, el.sourceline)
            return found
        nsmap = self.root_nsmap
        key = xsi if nsmap is not None else (xsi, tuple(sorted(el.nsmap.items(), key=str)))
        found = self.plans.get(key)
        if found is None:
            prefix, _, local = xsi.rpartition(":")
            uri = (nsmap if nsmap is not None else el.nsmap).get(prefix or None)
            found = self.plans[key] = self.plan_of(uri, local, el.sourceline)
        return found

    def plan_of(self, uri: str | None, name: str, line: int | None) -> _ReadPlan:
        pkg = self.registry.get(uri) if uri else None
        if pkg is None:
            raise self.fail(line, f"no metamodel registered for namespace {uri!r} (read its .ecore first)")
        eclass = pkg.getEClassifier(name)
        if eclass is None or not hasattr(eclass, "eStructuralFeatures"):
            raise self.fail(line, f"class {name!r} not found in {uri}")
        return self.plan_of_class(eclass, line)

    def plan_of_class(self, eclass: Any, line: int | None) -> _ReadPlan:
        if eclass.abstract:
            raise self.fail(line, f"class {eclass.name!r} is abstract")
        return _ReadPlan(eclass)

    def create(self, el: etree._Element, plan: _ReadPlan) -> EObject:
        cls = plan.cls
        obj: EObject = cls.__new__(cls)  # PyEcore's constructor without keyword handling
        d = obj.__dict__
        isset = obj._isset
        handlers = plan.handlers
        raw = fastpath.RAW
        holder = fastpath.attribute_holder
        for key, text in el.items():
            h = handlers.get(key)
            if h is None:
                if key[0] != "{":
                    raise self.fail(el.sourceline, f"class {plan.name} has no feature {key!r}")
                if key == _XMI_ID:
                    self.name_object(obj, text, el.sourceline)
                continue  # xsi:type, xmi:version and other namespaced attributes
            kind, f, name, from_literal, codec = h
            if kind == _ATTR:
                try:
                    value = from_literal(text)  # type: ignore[misc]
                except (ValueError, InvalidOperation, OverflowError):
                    value = self.literal(codec, text, f"{plan.name}.{key}", el.sourceline)
                if raw:  # a new object: no holder yet (XML has no repeated attributes)
                    d[name] = holder(obj, f, value)
                    isset[f] = None
                else:
                    fastpath.set_attribute(obj, f, value)
            elif kind == _MANY_ATTR:
                where = f"{self.name}:{el.sourceline}: {plan.name}.{key}"
                obj.eGet(f).extend(datatypes.parse_literal(codec, t, where) for t in text.split())  # type: ignore[arg-type]
            else:
                self.pending.append((obj, f, text, el.sourceline or 1))
        if len(el):
            for child in list(el):
                if type(child.tag) is str:
                    self.child(obj, plan, child)
        return obj

    def literal(self, codec: Any, text: str, what: str, line: int | None) -> Any:
        return datatypes.parse_literal(codec, text, f"{self.name}:{line}: {what}")

    def name_object(self, obj: EObject, ident: str, line: int | None) -> None:
        if ident in self.by_id:
            raise self.fail(line, f"xmi:id {ident!r} is used twice")
        self.by_id[ident] = obj
        self.ids[obj] = ident

    def child(self, obj: EObject, plan: _ReadPlan, el: etree._Element) -> None:
        tag = el.tag
        name = tag if tag[0] != "{" else etree.QName(el).localname
        h = plan.handlers.get(name)
        if h is None:
            raise self.fail(el.sourceline, f"class {plan.name} has no feature {name!r}")
        kind, f, _, _, codec = h
        if kind in (_ATTR, _MANY_ATTR):
            value = datatypes.parse_literal(codec, el.text or "", f"{self.name}:{el.sourceline}")  # type: ignore[arg-type]
            if f.many:
                obj.eGet(f).append(value)
            else:
                fastpath.set_attribute(obj, f, value)
        elif kind == _CONTAIN:
            self.contain(obj, f, self.create(el, self.plan_of_xsi(el, f.eType)))
        elif el.get("href") is not None:
            raise self.fail(el.sourceline, f"cross-document reference {el.get('href')!r} is not supported")
        else:
            raise self.fail(el.sourceline, f"unexpected element for reference {name!r}")

    def contain(self, parent: EObject, f: Any, child: EObject) -> None:
        if f.many:
            fastpath.add_item(parent, f, fastpath.collection(parent, f), child, containment=True)
        else:
            fastpath.set_reference(parent, f, child, containment=True)
        opp = f.eOpposite
        if opp is not None:
            fastpath.set_reference(child, opp, parent)

    def resolve_references(self) -> None:
        targets = linking.Targets(self.roots, self.by_id)
        links = linking.Linker()
        by_id = self.by_id
        for obj, f, text, line in self.pending:
            found = []
            for tok in text.split():
                t = by_id.get(tok) if tok[0] != "/" and "#" not in tok else None
                found.append(t if t is not None else self.target(targets, tok, line))
            bad = links.set_references(obj, f, found)
            if bad is not None:
                message = f"{obj.eClass.name}.{f.name}: target {bad.eClass.name} is not a {f.eType.name}"
                raise self.fail(line, message)
        links.add_missing_opposites()

    def target(self, targets: linking.Targets, token: str, line: int) -> EObject:
        if "#" in token:
            raise self.fail(line, f"cross-document reference {token!r} is not supported")
        found = targets.find(token)
        if found is None:
            raise self.fail(line, f"unresolved reference {token!r}")
        return found
