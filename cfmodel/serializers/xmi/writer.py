"""The XMI writer: PyEcore objects written the way EMF's XMIResource writes them.

Input: the roots of an instance model and `XmiOptions` (an optional id function).
Output: the document's bytes (`to_bytes`), or a file replaced atomically (`write`),
byte-identical for the same model and ids; nothing for a model `validate.check_objects`
refuses.

One pre-order pass with an explicit stack writes the document, with a function generated
per class (`heads`) for the XML attributes of its objects. The first pass is checked: the
generated heads make `validate`'s checks while they write, and at the first doubt
(`heads.DoubtError`, the only signal that stops it) the writer hands over to `validate`,
which reports every problem, or finds none and the unchecked heads write the document.
The cyclic garbage collector is paused meanwhile.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pyecore.ecore import EAttribute, EObject

from cfmodel.collector import gc_paused
from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers import atomic, canonical, crossrefs, datatypes, featuremaps, linking, model, validate
from cfmodel.serializers.base import IDS_KEY, XMI_NS, XSI_NS, ids_from
from cfmodel.serializers.xmi import general, heads
from cfmodel.serializers.xmi.options import XML_DECLARATION, XmiOptions
from cfmodel.serializers.xmlwrite import attrs_text, escape_attr, escape_text


def write(target: Path | str, roots: Sequence[EObject], options: XmiOptions | None = None) -> None:
    """Validate the model and write it to `target` atomically; objects of other documents
    it refers to are written as ``href``s relative to `target` (see `general`).

    Raises:
        CfSerializationError: the model breaks its metamodel (every problem as a note).
    """
    atomic.write_bytes(target, to_bytes(roots, options, location=target))


def to_bytes(
    roots: Sequence[EObject],
    options: XmiOptions | None = None,
    *,
    location: Path | str | None = None,
    hrefs: Callable[[EObject], str | None] | None = None,
) -> bytes:
    """The document's bytes. `location`: where it will be (``href``s to other documents
    are relative to it; None: absolute); `hrefs`: names objects of other documents
    (default `crossrefs.Hrefs(location)`: documents a reader read, and proxies)."""
    opts = options or XmiOptions()
    roots = list(roots)
    elsewhere = hrefs or crossrefs.Hrefs(location)
    with gc_paused():
        cache = model.FeatureCache()
        classes = canonical.one_per_class(roots)
        objects = canonical.contents(roots, cache, classes)
        ids = ids_from(opts.id_of, objects) if opts.id_of is not None else read_ids(roots, objects)
        # As many objects as roots: the roots are all the objects (a flat document).
        writer = Writer(roots, ids, objects, cache, classes if len(objects) == len(roots) else None)
        # Checked while written: the generated functions check what `validate` checks and
        # give up at the first doubt (a target outside the document among them); then
        # `validate` says what is wrong (or that nothing is, for values PyEcore's descriptors
        # did not store) before anything is returned. Proxies (of their own classes),
        # feature maps and EMF's layout take the general writer.
        if writer.classes is None:
            writer.classes = canonical.one_per_class(objects)
        general_only = opts.emf_layout or any(
            crossrefs.is_proxy_class(type(c)) or featuremaps.has_feature_maps(c.eClass)
            for c in writer.classes
        )
        fast = not general_only and not validate.id_problems(ids)
        data = writer.document(checked=True) if fast else None
        if data is None:
            outside: list[EObject] = []
            validate.check_objects(
                objects, ids, cache, elsewhere=elsewhere, outside=outside, ids_as_read=opts.id_of is None
            )
            if outside or general_only:
                data = general.GeneralWriter(
                    roots,
                    objects,
                    ids,
                    elsewhere,
                    writer.prefixes,
                    writer.prefix,
                    opts.emf_layout,
                    location,
                    opts.schema_location,
                ).document()
            else:
                data = writer.document()
        assert data is not None
        return data


def read_ids(roots: list[EObject], objects: list[EObject]) -> dict[EObject, str]:
    """Without an id function, the ids a reader gave the objects (``xmi:id``s of the
    documents the roots were read from): a document read and written back keeps them."""
    tables: list[dict[EObject, str]] = []
    for root in roots:
        resource = root.eResource
        table = resource.__dict__.get(IDS_KEY) if resource is not None else None
        if table and all(table is not t for t in tables):
            tables.append(table)
    if not tables:
        return {}
    found = tables[0] if len(tables) == 1 else {k: v for t in tables for k, v in t.items()}
    return {obj: ident for obj in objects if (ident := found.get(obj)) is not None}


class ClassPlan:
    """Per class: which features go to XML attributes, which to child elements, and how.

    `head` writes the object's XML attributes: a function generated for the class
    (`heads.head`) when PyEcore lays out its holders as `fastpath` knows them (``RAW``),
    else `slow_head`, the same loop written out with PyEcore's public API (also the
    reference the generated heads are tested against). `checked_head` also makes every
    check of `validate.check_objects` on the object (all its persistent features) and
    raises `heads.DoubtError` at the first problem; None when the class is always checked
    in detail (``detail``: abstract, or with iD attributes), when the holders are not laid
    out as known, or when no checks were asked.
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

    def __init__(self, eclass: Any, prefix: str, checks: heads.Checks | None = None) -> None:
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
        self.head: heads.HeadFunction = (
            heads.head(self.attrs, self.refs) if fastpath.RAW else self.general_head
        )
        self.checked_head: heads.HeadFunction | None = None
        self.checked_run: heads.RunFunction | None = None  # checked heads of a run of leaf roots
        self.detail = checks is not None and (
            not fastpath.RAW or validate.needs_detail(eclass, checks.features)
        )
        if checks is not None and not self.detail:
            written = {id(a[0]) for a in self.attrs} | {id(r[0]) for r in self.refs}
            others = [f for f in feats if id(f) not in written]
            every = len(eclass.eAllStructuralFeatures())
            self.checked_head, self.checked_run = heads.checked_head(
                self.attrs, self.refs, others, checks, every
            )

    def general_head(
        self, obj: EObject, ids: Mapping[EObject, str], names: Callable[[EObject], str], start: str, end: str
    ) -> str:
        return f"{start}{self.slow_head(obj, ids, names)}{end}"

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


class Writer:
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
        self.plans: dict[type, ClassPlan] = {}
        self.checks: heads.Checks | None = None
        self.names = linking.Fragments(roots, ids)

    def plan(self, obj: EObject) -> ClassPlan:
        found = self.plans.get(type(obj))
        if found is None:
            eclass = obj.eClass
            found = self.plans[type(obj)] = ClassPlan(eclass, self.prefix(eclass.ePackage), self.checks)
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
                return None  # membership would not be identity (see `heads.Checks`)
            # Every object named (the ids' keys are the objects): the ids are the set.
            inside = self.ids if len(self.ids) == len(self.objects) else set(self.objects)
            self.checks = heads.Checks(inside, classes, validate.Pairs(), self.cache)
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
        if not checked:
            return self.write(False)
        try:
            return self.write(True)
        except heads.DoubtError:
            return None

    def write(self, checked: bool) -> bytes:
        plans, plan = self.plans, self.plan
        ns = [("xmi:version", "2.0"), ("xmlns:xmi", XMI_NS), ("xmlns:xsi", XSI_NS)]
        ns += [(f"xmlns:{p}", uri) for uri, p in self.prefixes.items()]
        out = [XML_DECLARATION]
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
        self, append: Callable[[str], None], p: ClassPlan, objs: Any, start: str, checked: bool
    ) -> None:
        """Consecutive objects of one leaf class (always empty elements), each as one line."""
        ids, names = self.ids, self.names
        if checked and p.checked_run is not None:
            p.checked_run(objs, append, ids, names, start, "/>\n")
            return
        head = p.checked_head if checked else p.head
        assert head is not None, "checked heads are made for every class the checked pass writes"
        for obj in objs:
            append(head(obj, ids, names, start, "/>\n"))

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
            head = p.checked_head if checked else p.head
            assert head is not None, "checked heads are made for every class the checked pass writes"
            append(head(obj, ids, names, start, end))
            if end == "/>\n":
                continue
            for name, literal, values in many_values:
                for v in values:
                    append(f"{inner}<{name}>{escape_text(literal(v))}</{name}>\n")
            push(f"{indent}</{tag}>\n")
            kids.reverse()
            extend(kids)

    def children(self, obj: EObject, p: ClassPlan, indent: str, depth: int) -> list[Any]:
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


_OBJECT_HASH: Any = object.__hash__
