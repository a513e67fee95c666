"""The streaming XMI reader: expat's events into new objects, built by generated code.

Input: an XMI document (ours or EMF's) fed to an expat parser (`xmlsafe.event_parser`),
and the metamodels registered in the caller's `ResourceSet`. Output: `Reader.document()`,
a `Document` with new objects in that resource set; references listed in the file are set
on both sides of bidirectional features exactly as listed (never duplicating an item),
and a missing side is added. Errors are `CfSerializationError` (``bad-xmi``) at the file
and line.

Per class, a constructor is generated (`ReadPlan.create`, built by a `codegen.Emitter`)
that stores the values of an element's XML attributes the way PyEcore's setters would
(`fastpath`): into light objects and holders when PyEcore is laid out as `fastpath`
knows it, else through its API; one-way references to ids already read are set at once,
the others are linked in one pass at the end. The fast lane (`scan`) builds its objects
with the same generated lines (`branches`).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import weakref
from collections.abc import Callable
from decimal import InvalidOperation
from pathlib import Path
from typing import Any

from pyecore import ecore as ecore_module
from pyecore.ecore import EAttribute, EObject
from pyecore.innerutils import InternalSet
from pyecore.resources import ResourceSet
from pyecore.valuecontainer import EValue

from cfmodel.errors import CfSerializationError, Span
from cfmodel.metamodel.runtime import codegen, fastpath
from cfmodel.serializers import crossrefs, datatypes, ecorepaths, featuremaps, linking, model, xmlsafe
from cfmodel.serializers import ecore as ecore_files
from cfmodel.serializers.base import ECORE_NS, IDS_KEY, XMI_NS, XSI_NS, Document, attach, local_registry
from cfmodel.serializers.xmi.options import (
    SCHEMA_LOCATION_KEY,
    XMI_ID,
    XMI_XMI,
    XSI_SCHEMA_LOCATION,
    XSI_TYPE,
    XmiOptions,
)

# What a name on an element of a class stands for (MEMBER: a member of a feature map).
ATTR, MANY_ATTR, CONTAIN, REF, MEMBER = range(5)
# What the element being read is: the document, xmi:XMI (roots inside), an object, the
# value of an attribute written as an element, or something inside such a value (ignored).
_DOC, _ROOTS, _OBJECT, _VALUE, _SKIP = range(5)

Handler = tuple[int, Any, datatypes.Codec | None]
# Reading another document a reference names: (path, resource set, options).
ReadOther = Callable[[Path, ResourceSet, XmiOptions], Any]


class ReadPlan:
    """Per class: the handler of every feature name, and the generated `create` function."""

    __slots__ = ("cls", "create", "eclass", "handlers", "light", "name", "wildcards")

    def __init__(self, eclass: Any) -> None:
        self.eclass = eclass
        light = fastpath.light_class(eclass) if fastpath.LIGHT and fastpath.RAW else None
        self.light = light is not None
        self.cls = light or eclass.python_class
        self.name = eclass.name
        self.handlers: dict[str, Handler] = {}
        groups = featuremaps.groups_of(eclass)
        self.wildcards = featuremaps.attribute_wildcards(eclass)
        for f in model.all_features(eclass):
            if f.name in groups:  # an element of a feature map (its entries are not written as such)
                codec = datatypes.reading_codec(f.eType) if isinstance(f, EAttribute) else None
                self.handlers[f.name] = (MEMBER, groups[f.name], codec)
            elif featuremaps.is_feature_map(f):
                continue
            elif isinstance(f, EAttribute):
                self.handlers[f.name] = (MANY_ATTR if f.many else ATTR, f, datatypes.reading_codec(f.eType))
            else:
                self.handlers[f.name] = (CONTAIN if f.containment else REF, f, None)
        self.create: Callable[[dict[str, str]], EObject] = _unset_create


def _unset_create(attrs: dict[str, str]) -> EObject:
    raise AssertionError("create is set when the plan is made")


# ---- generated constructors -------------------------------------------------------------

# How a literal ``text`` is read, by data type (the codec's own function, ``{parse}``,
# inlined where it is a builtin).
_READ_CODE = {
    "EString": "text",
    "EDouble": "float(text)",
    "EDoubleObject": "float(text)",
    "EFloat": "float(text)",
    "EFloatObject": "float(text)",
    "EBoolean": "True if text == 'true' else False if text == 'false' else {parse}(text)",
    "EBooleanObject": "True if text == 'true' else False if text == 'false' else {parse}(text)",
    **{
        n: "int(text)"
        for n in ("EInt", "EIntegerObject", "ELong", "ELongObject", "EShort", "EShortObject", "EBigInteger")
    },
}
_ANY_READ_CODE = "{parse}(text)"

# The names every generated constructor's ``make`` takes (`Reader.build` passes them);
# the values its lines bind come after them.
MAKE_NAMES = (
    "cls",
    "new",
    "EValue",
    "set_attribute",
    "InvalidOperation",
    "by_id",
    "ids",
    "pending",
    "P",
    "duplicate",
    "bad",
    "other",
    "conform",
    "InternalSet",
    "register",
    "registry_add",
    "unregister",
    "pending_removals",
    "commit_removals",
    "weak",
    "batch",
    "defer",
    "sync_isset",
)

# Emits the lines storing the value of one name (in ``text``) on ``obj`` (``d``: its
# ``__dict__``, ``s``: its ``_isset`` unless light).
Branch = Callable[[codegen.Emitter], None]


def _id_branch(em: codegen.Emitter) -> None:
    with em.block("if text in by_id:"):
        em.line("duplicate(text)")
    em.line("by_id[text] = obj", "ids[obj] = text")


def _attribute_branch(
    key: str, f: Any, codec: datatypes.Codec, raw: bool, light: bool, em: codegen.Emitter
) -> None:
    read = _READ_CODE.get(codec.name, _ANY_READ_CODE)
    if read == "text":
        em.line("v = text")
    else:
        with em.block("try:"):
            em.line(f"v = {read.format(parse=em.bind(codec.from_literal, 'parse'))}")
        with em.block("except (ValueError, InvalidOperation, OverflowError):"):
            em.line(f"v = bad({em.literal(key)}, text)")
    if light:  # a new object: no holder yet (XML has no repeated attributes)
        holder = em.bind(fastpath.holder_class(f), "holder")
        em.line(f"h = new({holder})", "h.owner = obj", "h._value = v", f"d[{em.literal(f._name)}] = h")
    elif raw:
        feature = em.bind(f, "feature")
        em.line(
            "h = new(EValue)",
            "h.owner = obj",
            f"h.feature = {feature}",
            "h.is_ref = False",
            "h.is_cont = False",
            "h.generic_type = None",
            "h._value = v",
            f"d[{em.literal(f._name)}] = h",
            f"s[{feature}] = None",
        )
    else:
        em.line(f"set_attribute(obj, {em.bind(f, 'feature')}, v)")


# One token the deferred pass would look up by id (an identifier always is).
_ONE_ID = (
    "(text.isidentifier()"
    " or (' ' not in text and text[:1] != '/' and '#' not in text and text.isprintable()))"
)


def _one_way_branch(f: Any, light: bool, em: codegen.Emitter) -> None:
    """A single one-way reference to an id already read is set at once (the value the
    deferred pass would set, since ids are never redefined); other tokens wait."""
    feature, known, key = em.bind(f, "feature"), em.bind({}, "conforming"), em.literal(f._name)
    conforming = f"({known}.get(type(t)) or conform({known}, {feature}, t))"
    test = f"t is not None and {_ONE_ID} and {conforming} and {key} not in d"
    em.line("t = by_id.get(text)")
    with em.block(f"if {test}:"):
        if light:
            em.line(
                f"h = new({em.bind(fastpath.holder_class(f), 'holder')})", "h.owner = obj", "h._value = t"
            )
        else:
            em.line(
                "h = new(EValue)",
                "h.owner = obj",
                f"h.feature = {feature}",
                "h.is_ref = True",
                "h.is_cont = False",
                "h.generic_type = None",
                "h._value = t",
            )
        em.line(f"d[{key}] = h")
        if not light:
            em.line(f"s[{feature}] = None")
        # PyEcore's inverse index: made when first read (fastpath.InverseBatch)
        em.line("r = t.__dict__.get('_inverse_rels')")
        with em.block("if r is None:"):
            em.line(f"defer((t, obj, {feature}))")
        with em.block("else:"):
            em.line(f"r.add((obj, {feature}))")
    with em.block("else:"):
        em.line(f"pending((obj, {feature}, text, P.CurrentLineNumber))")


def _pending_branch(f: Any, em: codegen.Emitter) -> None:
    em.line(f"pending((obj, {em.bind(f, 'feature')}, text, P.CurrentLineNumber))")


def branches(plan: ReadPlan, raw: bool, light: bool) -> dict[str, Branch]:
    """Per name an element of `plan`'s class may carry, the lines storing its value.

    Single-valued attributes go straight into new `EValue` holders when `raw` (see
    `fastpath`), into per-feature light holders when `light` (the object is then a light
    object, `plan.light`), else through `fastpath.set_attribute`; references and ids go
    into the reader's tables. Names without lines (many-valued attributes) go to ``other``.
    """
    found: dict[str, Branch] = {XMI_ID: _id_branch}
    for key, (kind, f, codec) in plan.handlers.items():
        if kind == ATTR and codec is not None:
            found[key] = functools.partial(_attribute_branch, key, f, codec, raw, light)
        elif kind == REF and raw and not f.many and f.eOpposite is None:
            found[key] = functools.partial(_one_way_branch, f, light)
        elif kind in (REF, CONTAIN):  # a containment here is odd; PyEcore's API handles it
            found[key] = functools.partial(_pending_branch, f)
    return found


def new_object(em: codegen.Emitter, light: bool, register: bool = True) -> None:
    """Lines making ``obj`` and ``d``; a light object is put in PyEcore's registry of
    instances only if `register` (else the caller registers it later)."""
    if not light:
        em.line("obj = cls.__new__(cls)", "s = obj._isset", "d = obj.__dict__")
        return
    # (a light object's _isset is made from its light holders when first read)
    em.line("obj = new(cls)", f"obj.{fastpath.BATCH} = batch")
    if register and fastpath.REGISTRY is None:
        em.line("register(obj)")
    elif register:  # what WeakSet.add does, inlined
        with em.block("if pending_removals:"):
            em.line("commit_removals()")
        em.line("registry_add(weak(obj, unregister))")
    em.line("d = obj.__dict__")


FEW_NAMES = 16  # up to this many names on a class's elements, `create` looks each one up


def lookup_order(found: dict[str, Branch]) -> list[str]:
    """The order in which `create` looks names up when there are few: the id, the features
    in plan order, ``xsi:type``."""
    return [XMI_ID, *[k for k in found if k != XMI_ID], XSI_TYPE]


def create_emitter(plan: ReadPlan, raw: bool, light: bool = False) -> codegen.Emitter:
    """``create(attrs)``, building one object of `plan`'s class from its XML attributes (a
    dict, as expat gives them).

    With few names, each is looked up in the dict (the file's own order of the ids and
    values is kept: the id first, then features in plan order, as written); what is left
    over, if anything, goes to ``other`` in file order. With many, a binary search
    dispatches every attribute of the element; anything else goes to ``other``.
    """
    found = branches(plan, raw, light)
    em = codegen.Emitter(*MAKE_NAMES)
    with em.block("def create(attrs):"):
        new_object(em, light)
        if len(found) <= FEW_NAMES:
            em.line("n = len(attrs)")
            with em.block("if n:"):
                for key in lookup_order(found):
                    em.line(f"text = attrs.get({em.literal(key)})")
                    with em.block("if text is not None:"):
                        em.line("n -= 1")
                        if key in found:
                            found[key](em)
                known = em.bind(frozenset([*found, XSI_TYPE]), "known_names")
                leftover = em.block(f"if key not in {known}:")
                with em.block("if n:"), em.block("for key, text in attrs.items():"), leftover:
                    em.line("other(obj, key, text)")
        else:
            with em.block("for key, text in attrs.items():"):
                _dispatch(em, sorted(found), found)
        if light:
            with em.block("if '_isset' in d:"):
                em.line("sync_isset(obj)")
        em.line("return obj")
    return em


def _dispatch(em: codegen.Emitter, keys: list[str], found: dict[str, Branch]) -> None:
    """A binary search over sorted `keys` (equality tests at the leaves)."""
    if not keys:
        em.line("other(obj, key, text)")
    elif len(keys) <= 3:
        for i, key in enumerate(keys):
            with em.block(f"{'if' if i == 0 else 'elif'} key == {em.literal(key)}:"):
                found[key](em)
        with em.block("else:"):
            em.line("other(obj, key, text)")
    else:
        mid = len(keys) // 2
        with em.block(f"if key < {em.literal(keys[mid])}:"):
            _dispatch(em, keys[:mid], found)
        with em.block("else:"):
            _dispatch(em, keys[mid:], found)


# the elements that make a document a metamodel: read reflectively, as instances of Ecore,
# it would not be what EMF reads (Ecore's own classes compute what the document leaves
# implicit, such as each typed element's generic type), and PyEcore's EClass cannot even
# be made without a name
_METAMODEL_CLASSES = frozenset({"EPackage", "EClass"})


def _conform(known: dict[type, bool], f: Any, target: EObject) -> bool:
    ok = known[type(target)] = fastpath.conforms(target, f.eType)
    return ok


# ---- the reader ---------------------------------------------------------------------------

_XMI_NAMESPACES = frozenset((XMI_NS, XSI_NS, "http://www.w3.org/2000/xmlns/"))


class Reader:
    """Builds objects while expat streams the document (see the frame kinds above)."""

    def __init__(
        self,
        name: str,
        rset: ResourceSet,
        max_depth: int,
        options: XmiOptions | None = None,
        read_other: ReadOther | None = None,
    ) -> None:
        self.name = name
        self.read_other = read_other
        self.rset = rset
        self.options = options or XmiOptions()
        self.max_depth = max_depth
        self.registry = local_registry(rset)
        self.by_tag: dict[str, ReadPlan] = {}
        self.by_xsi: dict[str, ReadPlan] = {}
        self.by_class: dict[int, ReadPlan] = {}
        self.ids: dict[EObject, str] = {}
        self.by_id: dict[str, EObject] = {}
        self.pending: list[tuple[EObject, Any, str, int]] = []
        self.pending_entries: list[tuple[featuremaps.Entry, Any, str, int]] = []
        self.proxied: list[
            tuple[str, str, int, Any]
        ] = []  # containment proxies: (location, fragment, line, feature)
        self.schema_location: str | None = None
        self.batch = fastpath.InverseBatch()  # see fastpath.InverseBatch
        self.roots: list[EObject] = []
        self.stack: list[Any] = [(_DOC,)]
        self.prefixes: dict[str | None, list[str]] = {}
        self.seen_prefixes: dict[str | None, str] = {}
        self.parser = p = xmlsafe.event_parser(name)
        p.StartElementHandler, p.EndElementHandler = self.handlers()
        p.StartNamespaceDeclHandler = self.namespace_start
        p.EndNamespaceDeclHandler = self.namespace_end

    def fail(self, message: str, line: int | None = None) -> Exception:
        """The error to raise for `message` at `line` (default: the parser's): a located
        `CfSerializationError` here; the fast lane's doubt in `scan.ScanReader`."""
        return CfSerializationError(message, self.span(line), code="bad-xmi")

    def span(self, line: int | None = None) -> Span:
        """`line` (default: the parser's) of the document being read."""
        n = line or self.parser.CurrentLineNumber or 1
        return Span(self.name, n, 1, n, 2)

    def document(self) -> Document:
        documents = crossrefs.documents(self.rset)
        documents.add(self.name, self.roots, self.by_id)  # first: documents it reads may refer back
        try:
            self.resolve_references()
        finally:
            documents.remove(self.name)
        resource = attach(self.rset, self.name, self.roots)
        resource.__dict__[IDS_KEY] = self.ids  # EMF's URIs of these objects (base.emf_uri)
        if self.schema_location is not None:  # EMF writes it back then (XmiOptions.schema_location)
            resource.__dict__[SCHEMA_LOCATION_KEY] = self.schema_location
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
                self.schema_location = attrs.get(XSI_SCHEMA_LOCATION)
                if name == XMI_XMI:
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

    def feature_element(self, obj: EObject, plan: ReadPlan, name: str, attrs: dict[str, str]) -> None:
        local = name.rpartition(" ")[2]
        h = plan.handlers.get(local)
        if h is None:
            raise self.fail(f"class {plan.name} has no feature {local!r}")
        kind, f, codec = h
        if kind == MEMBER:
            self.entry_element(obj, f, codec, attrs)
        elif kind == CONTAIN and "href" in attrs:  # a containment proxy: the child is elsewhere
            child = self.containment_proxy(f, attrs)
            if f.many:
                fastpath.add_item(obj, f, fastpath.collection(obj, f), child, containment=True)
            else:
                fastpath.set_reference(obj, f, child, containment=True)
            self.stack.append((_SKIP,))
        elif kind == CONTAIN:
            xsi = attrs.get(XSI_TYPE)
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
        elif kind != REF:
            self.stack.append((_VALUE, obj, f, codec, [], self.parser.CurrentLineNumber))
            self.parser.CharacterDataHandler = self.text
        elif "href" in attrs:
            self.href(obj, f, attrs)
        else:
            raise self.fail(f"unexpected element for reference {local!r}")

    def href(self, obj: EObject, f: Any, attrs: dict[str, str]) -> None:
        """``<feature href="other.xmi#//@a.0"/>`` (with ``xsi:type`` when the target's class
        is not the feature's): resolved with the other references, once all are read."""
        xsi = attrs.get(XSI_TYPE)
        token = attrs["href"]
        if xsi is not None:
            token = f"{xsi} {token}"
        self.pending.append((obj, f, token, self.parser.CurrentLineNumber))
        self.stack.append((_SKIP,))

    def containment_proxy(self, f: Any, attrs: dict[str, str]) -> EObject:
        """A child kept in another document (``<nodes href="c.xmi#c1"/>``): a proxy in its
        place, in document order, that stays one (a PyEcore object has one container and one
        resource, so the other document's object cannot be both its root and this child);
        the other document is checked (`external`) and read, as any reference's, at the end."""
        href = attrs["href"]
        xsi = attrs.get(XSI_TYPE)
        plan = self.plan_of_xsi(xsi) if xsi is not None else self.plan_of_class(f.eType)
        location, _, fragment = href.partition("#")
        line = self.parser.CurrentLineNumber
        if not location or crossrefs.same_document(self.name, location):
            raise self.fail(f"{f.name}: a containment proxy must name another document, not {href!r}")
        self.proxied.append((location, fragment, line, f))
        child = crossrefs.proxy(plan.eclass, f"{crossrefs.absolute_uri(self.name, location)}#{fragment}")
        child.__dict__[crossrefs.LINE_KEY] = line
        return child

    def entry_element(
        self, obj: EObject, pair: tuple[Any, Any], codec: datatypes.Codec | None, attrs: dict[str, str]
    ) -> None:
        """An element of a member of a feature map: a new entry at the end of the map, whose
        value is the element's text, the child it holds, or the object its ``href`` names
        (set when references are resolved, so the entries keep the document's order)."""
        group, member = pair
        entry = featuremaps.Entry(member, None)
        fastpath.add_item(obj, group, fastpath.collection(obj, group), entry)
        line = self.parser.CurrentLineNumber
        if codec is not None:
            self.stack.append((_VALUE, entry, member, codec, [], line))
            self.parser.CharacterDataHandler = self.text
        elif member.containment and "href" not in attrs:
            xsi = attrs.get(XSI_TYPE)
            plan = self.plan_of_xsi(xsi) if xsi is not None else self.plan_of_class(member.eType)
            child = plan.create(attrs)
            child._container = obj
            child._containment_feature = member
            entry.value = child
            self.stack.append((_OBJECT, child, plan))
        elif member.containment:
            child = self.containment_proxy(member, attrs)
            child._container = obj
            child._containment_feature = member
            entry.value = child
            self.stack.append((_SKIP,))
        elif "href" in attrs:
            xsi = attrs.get(XSI_TYPE)
            token = attrs["href"] if xsi is None else f"{xsi} {attrs['href']}"
            self.pending_entries.append((entry, member, token, line))
            self.stack.append((_SKIP,))
        else:
            raise self.fail(f"unexpected element for reference {member.name!r} (no href)")

    def attribute_element(self, frame: tuple[Any, ...]) -> None:
        _, obj, f, codec, chunks, line = frame
        value = datatypes.parse_literal(codec, "".join(chunks), f.name, self.span(line))
        if type(obj) is featuremaps.Entry:
            obj.value = value
        elif f.many:
            fastpath.add_item(obj, f, fastpath.collection(obj, f), value)
        else:
            fastpath.set_attribute(obj, f, value)

    def other_attribute(self, obj: EObject, plan: ReadPlan, key: str, text: str) -> None:
        """An XML attribute the generated `create` does not handle itself."""
        h = plan.handlers.get(key)
        if h is not None and h[0] == MANY_ATTR:
            codec = h[2]
            where, span = f"{plan.name}.{key}", self.span()
            f = h[1]
            coll = fastpath.collection(obj, f)
            for t in text.split():
                fastpath.add_item(obj, f, coll, datatypes.parse_literal(codec, t, where, span))  # type: ignore[arg-type]
        elif plan.wildcards and self.wildcard_attribute(obj, plan, key, text):
            pass
        elif " " not in key:  # a namespaced attribute (xsi:type, xmi:version, ...) is ignored
            raise self.fail(f"class {plan.name} has no feature {key!r}")

    def wildcard_attribute(self, obj: EObject, plan: ReadPlan, key: str, text: str) -> bool:
        """An XML attribute the class does not declare, as an entry of the first attribute
        wildcard admitting its namespace (`featuremaps.AttributeWildcard`): the global
        attribute a registered package declares, else one made on demand (lax processing);
        False when no wildcard admits it (XMI's and XSI's own attributes never)."""
        namespace, _, local = key.rpartition(" ")
        if namespace in _XMI_NAMESPACES:
            return False
        ns = namespace or None
        for w in plan.wildcards:
            if w.admits(ns):
                f = featuremaps.global_attribute(self.registry.get(ns) if ns else None, local)
                if f is None and not w.lax:
                    raise self.fail(
                        f"class {plan.name} has no feature {local!r}, and no package declares"
                        f" it for its wildcard {w.feature.name} (strict processing)"
                    )
                if f is None:
                    f = featuremaps.demand_attribute(self.rset, ns, local)
                value = datatypes.parse_literal(
                    datatypes.reading_codec(f.eType), text, f"{plan.name}.{local}", self.span()
                )
                coll = fastpath.collection(obj, w.feature)
                fastpath.add_item(obj, w.feature, coll, featuremaps.Entry(f, value))
                return True
        return False

    def bad_literal(self, plan: ReadPlan, codec: datatypes.Codec, key: str, text: str) -> Any:
        return datatypes.parse_literal(codec, text, f"{plan.name}.{key}", self.span())

    def duplicate_id(self, ident: str) -> None:
        """An ``xmi:id`` given twice is read as EMF reads it (Eclipse's own
        ``LegacyIDE.e4xmi`` has one): both objects keep it, and from here on it names the
        later one (EMF's ``setID``); a reference already resolved keeps its target, as in
        EMF's default load."""

    # -- classes

    def plan_of_tag(self, name: str) -> ReadPlan:
        found = self.by_tag.get(name)
        if found is None:
            uri, _, local = name.rpartition(" ")
            found = self.by_tag[name] = self.plan_of(uri or None, local)
        return found

    def plan_of_xsi(self, xsi: str) -> ReadPlan:
        found = self.by_xsi.get(xsi)
        if found is None:
            prefix, _, local = xsi.rpartition(":")
            uris = self.prefixes.get(prefix or None)
            found = self.by_xsi[xsi] = self.plan_of(uris[-1] if uris else None, local)
        return found

    def plan_of(self, uri: str | None, name: str) -> ReadPlan:
        pkg = self.registry.get(uri) if uri else None
        if pkg is None and uri:
            pkg = self.located_package(uri)
        if pkg is None:
            raise self.fail(f"no metamodel registered for namespace {uri!r} (read its .ecore first)")
        eclass = pkg.getEClassifier(name)
        if eclass is None or not hasattr(eclass, "eStructuralFeatures"):
            raise self.fail(f"class {name!r} not found in {uri}")
        return self.plan_of_class(eclass)

    def located_package(self, uri: str) -> Any:
        """The package of `uri` read from the ``.ecore`` file the document's
        ``xsi:schemaLocation`` gives for it (``net.ecore``, ``net.ecore#//sub``; relative to
        the document, the URI map applied), as EMF loads an unregistered package from there;
        None without one. The file must lie where this reading may go (`allowed`)."""
        words = (self.schema_location or "").split()
        location = dict(zip(words[::2], words[1::2], strict=False)).get(uri)
        if location is None:
            return None
        file_part = location.partition("#")[0]
        path = crossrefs.local_path(crossrefs.resolve_uri(self.name, file_part, self.options.uri_map))
        if path is None or not path.is_file():
            raise self.fail(
                f"no metamodel registered for namespace {uri!r}, and its xsi:schemaLocation"
                f" {location!r} is no file here (read its .ecore first, or give --uri-map)"
            )
        if not crossrefs.confined(path, self.allowed):
            raise self.outside(location, self.parser.CurrentLineNumber or 1)
        ecore_files.read(path, self.rset, ecore_files.EcoreOptions(limits=self.options.limits))
        found = self.registry.get(uri)
        if found is None:
            raise self.fail(f"{location} (xsi:schemaLocation) declares no package {uri!r}")
        return found

    def plan_of_class(self, eclass: Any) -> ReadPlan:
        found = self.by_class.get(id(eclass))
        if found is not None and found.eclass is eclass:
            return found
        if not hasattr(eclass, "eStructuralFeatures"):  # a reference without a type, or typed by a data type
            raise self.fail(
                f"no class to make here (the feature's type is {getattr(eclass, 'name', eclass)!r})"
            )
        if eclass.abstract:
            raise self.fail(f"class {eclass.name!r} is abstract")
        if eclass.name in _METAMODEL_CLASSES and getattr(eclass.ePackage, "nsURI", None) == ECORE_NS:
            raise self.fail(
                f"an ecore:{eclass.name} is part of a metamodel: read .ecore files with "
                "cfmodel.serializers.ecore or `cfmodel ecore import`, not as an instance model"
            )
        plan = ReadPlan(eclass)
        em = create_emitter(plan, fastpath.RAW, plan.light)

        def bad(key: str, text: str) -> Any:
            codec = plan.handlers[key][2]
            assert codec is not None
            return self.bad_literal(plan, codec, key, text)

        def other(obj: EObject, key: str, text: str) -> None:
            self.other_attribute(obj, plan, key, text)

        plan.create = self.build(
            em, f"<cfmodel.xmi create {plan.name}>", "create", plan, bad=bad, other=other
        )
        self.by_class[id(eclass)] = plan
        return plan

    def build(self, em: codegen.Emitter, label: str, returns: str, plan: ReadPlan, **special: Any) -> Any:
        """The function `em` makes, over this reader's tables (see `MAKE_NAMES`); `special`
        gives the names particular to the function (``bad``, ``other``, ...)."""
        registry = fastpath.REGISTRY or (None,) * 4
        return em.build(
            label,
            returns,
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
            registry_add=registry[0],
            unregister=registry[1],
            pending_removals=registry[2],
            commit_removals=registry[3],
            weak=weakref.ref,
            batch=self.batch,
            defer=self.batch.extend,
            sync_isset=fastpath.sync_isset,
            **special,
        )

    # -- references

    def resolve_references(self) -> None:
        targets = linking.Targets(self.roots, self.by_id, settled=True)  # containments are all read
        links = linking.Linker(self.batch)
        for obj, f, text, line in self.pending:
            found = self.targets_of(targets, text, line, f)
            bad = links.set_references(obj, f, found)
            if bad is not None:
                message = f"{obj.eClass.name}.{f.name}: target {bad.eClass.name} is not a {f.eType.name}"
                raise self.fail(message, line)
        self.pending.clear()  # nothing left for the garbage collector to scan
        links.add_missing_opposites()
        for entry, member, text, line in self.pending_entries:
            found = self.targets_of(targets, text, line, member)
            if len(found) != 1:
                raise self.fail(f"{member.name}: expected one target, found {len(found)}", line)
            t = found[0]
            if not fastpath.conforms(t, member.eType):
                raise self.fail(f"{member.name}: target {t.eClass.name} is not a {member.eType.name}", line)
            entry.value = t
        self.pending_entries.clear()
        for location, fragment, line, f in self.proxied:  # confined, and read, as any reference
            self.external(location, fragment, line, f, None)
        self.proxied.clear()

    def targets_of(self, targets: linking.Targets, text: str, line: int, f: Any) -> list[EObject]:
        """The objects a reference's text names (ids, fragments, URIs, ``prefix:Class uri``)."""
        by_id = self.by_id
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
        return found

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
        exists, `XmiOptions.load_references` and the reader was given `read_other`, else a
        proxy that keeps the URI. A file outside the directories this reading may enter
        (`crossrefs.confined`) is an error, read or not. Elements of metamodels, as EMF
        names them: by a registered package's nsURI (``http://…/Ecore#//EString``), or in
        a ``.ecore`` file (read into the resource set; ``types.ecore#/1/String``)."""
        registered = self.metamodel_element(location, fragment)
        if registered is not None:
            return registered
        uri = crossrefs.resolve_uri(self.name, location, self.options.uri_map)
        documents = crossrefs.documents(self.rset)
        path = crossrefs.local_path(uri)
        if path is not None and not crossrefs.confined(path, self.allowed):
            raise self.outside(location, line)
        load = self.options.load_references and self.read_other is not None
        if path is not None and load and not documents.has(path) and path.is_file():
            if documents.depth >= crossrefs.MAX_NESTED_LOADS:
                raise self.fail(
                    f"more than {crossrefs.MAX_NESTED_LOADS} documents refer on to each other", line
                )
            documents.depth += 1
            try:
                assert self.read_other is not None
                if path.suffix == ".ecore":  # a metamodel: Ecore's reader
                    ecore_files.read(path, self.rset, ecore_files.EcoreOptions(limits=self.options.limits))
                else:
                    self.read_other(path, self.rset, dataclasses.replace(self.options, root=self.allowed[0]))
            finally:
                documents.depth -= 1
        found = documents.find(path, fragment) if path is not None else None
        if found is not None:
            return found
        eclass = f.eType
        if hint is not None:
            prefix, _, local = hint.rpartition(":")
            namespace = self.seen_prefixes.get(prefix or None)
            if namespace == ECORE_NS:  # (Ecore's classes are PyEcore's, no registered package's)
                eclass = ecore_module.eClass.getEClassifier(local) or eclass
            else:
                eclass = self.plan_of(namespace, local).eclass
        if getattr(eclass, "abstract", False):
            raise self.fail(f"a proxy for {uri}#{fragment} would be of abstract class {eclass.name}", line)
        found = crossrefs.proxy(eclass, f"{crossrefs.absolute_uri(self.name, location)}#{fragment}")
        found.__dict__[crossrefs.LINE_KEY] = line  # where the reference is, for reports
        return found

    def metamodel_element(self, location: str, fragment: str) -> EObject | None:
        """The element of a registered package (or of Ecore) ``nsURI#fragment`` names."""
        if location == ECORE_NS:
            found: EObject | None = ecore_files.ecore_element(fragment)
            return found
        pkg = self.registry.get(location)
        if pkg is None:
            return None
        root = ecorepaths.root_of(pkg)
        resource = getattr(root, "eResource", None)
        roots = list(resource.contents) if resource is not None else [root]
        return ecorepaths.resolve_in(roots, fragment) or ecorepaths.resolve(pkg, fragment)

    def outside(self, location: str, line: int) -> CfSerializationError:
        where = ", ".join(str(r) for r in self.allowed)
        return CfSerializationError(
            f"reference to {location!r} leaves the directories the model may be read from ({where});"
            " give XmiOptions.root (--root) to allow more",
            Span(self.name, line, 1, line, 2),
            code="outside-root",
        )

    @functools.cached_property
    def allowed(self) -> list[Path]:
        """The directories references may lead into: the root, then the URI map's targets."""
        root = self.options.root
        first = Path(root) if root is not None else Path(os.path.abspath(self.name)).parent
        mapped = [
            crossrefs.local_path(crossrefs.resolve_uri(self.name, t)) for t in self.options.uri_map.values()
        ]
        return [first, *(m for m in mapped if m is not None)]
