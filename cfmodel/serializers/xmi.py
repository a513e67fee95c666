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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree  # type: ignore[import-untyped]  # no stubs
from pyecore.ecore import EAttribute, EObject
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError, Span
from cfmodel.serializers import atomic, canonical, datatypes, linking, model, validate
from cfmodel.serializers.base import XMI_NS, XSI_NS, Document, IdFunction, attach, ids_from, local_registry
from cfmodel.serializers.xmlsafe import XmlLimits, parse_bytes, parse_file
from cfmodel.serializers.xmlwrite import XmlWriter

_XSI_TYPE = f"{{{XSI_NS}}}type"
_XMI_ID = f"{{{XMI_NS}}}id"


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
    cache = model.FeatureCache()
    objects = list(canonical.walk(roots, cache))
    ids = ids_from(opts.id_of, objects)
    validate.check_objects(objects, ids, cache)
    return _Writer(roots, ids).document()


class _ClassPlan:
    """Per class: which features go to XML attributes, which to child elements."""

    def __init__(self, eclass: Any, prefix: str) -> None:
        self.type_name = f"{prefix}:{eclass.name}"
        feats = model.persistent_features(eclass)
        self.attrs = [(f, datatypes.codec_for(f.eType)) for f in feats
                      if isinstance(f, EAttribute) and not f.many]
        self.refs = [f for f in feats if not isinstance(f, EAttribute) and not f.containment
                     and not model.is_container_ref(f)]
        self.many_attrs = [(f, datatypes.codec_for(f.eType)) for f in feats
                           if isinstance(f, EAttribute) and f.many]
        self.contained = [f for f in feats if not isinstance(f, EAttribute) and f.containment]


class _Writer:
    def __init__(self, roots: list[EObject], ids: dict[EObject, str]) -> None:
        self.roots = roots
        self.ids = ids
        self.w = XmlWriter()
        self.prefixes: dict[str, str] = {}  # nsURI -> prefix
        self.plans: dict[int, _ClassPlan] = {}
        self.names = linking.Fragments(roots, ids)

    def plan(self, eclass: Any) -> _ClassPlan:
        found = self.plans.get(id(eclass))
        if found is None:
            found = _ClassPlan(eclass, self.prefix(eclass.ePackage))
            self.plans[id(eclass)] = found
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
        for obj in canonical.walk(self.roots):
            self.plan(obj.eClass)  # fixes prefixes in document order before writing
        ns = [("xmlns:xmi", XMI_NS), ("xmlns:xsi", XSI_NS)]
        ns += [(f"xmlns:{p}", uri) for uri, p in self.prefixes.items()]
        if len(self.roots) == 1:
            root = self.roots[0]
            self.element(root, self.plan(root.eClass).type_name, [("xmi:version", "2.0"), *ns], False)
        else:
            self.w.start("xmi:XMI", [("xmi:version", "2.0"), *ns])
            for root in self.roots:
                self.element(root, self.plan(root.eClass).type_name, [], False)
            self.w.end("xmi:XMI")
        return self.w.to_bytes()

    def element(self, obj: EObject, tag: str, head: list[tuple[str, str]], typed: bool) -> None:
        plan = self.plan(obj.eClass)
        attrs = list(head)
        if typed:
            attrs.append(("xsi:type", plan.type_name))
        ident = self.ids.get(obj)
        if ident is not None:
            attrs.append(("xmi:id", ident))
        attrs.extend(self.value_attrs(obj, plan))
        children = [(f, obj.eGet(f)) for f in plan.contained]
        many = [(f, c, obj.eGet(f)) for f, c in plan.many_attrs]
        if not any(v for _, v in children) and not any(v for _, _, v in many):
            self.w.empty(tag, attrs)
            return
        self.w.start(tag, attrs)
        for f, codec, values in many:
            for v in values:
                self.w.text_element(f.name, codec.to_literal(v))
        for f, value in children:
            for child in (value if f.many else [value] if value is not None else []):
                self.element(child, f.name, [], True)
        self.w.end(tag)

    def value_attrs(self, obj: EObject, plan: _ClassPlan) -> Iterable[tuple[str, str]]:
        isset = obj.eIsSet
        for f, codec in plan.attrs:
            if isset(f):
                v = obj.eGet(f)
                if v is not None:
                    yield f.name, codec.to_literal(v)
        for f in plan.refs:
            if f.many:
                targets = list(obj.eGet(f))
                if targets:
                    yield f.name, " ".join(self.fragment(t) for t in targets)
            else:
                t = obj.eGet(f)
                if t is not None:
                    yield f.name, self.fragment(t)

    def fragment(self, obj: EObject) -> str:
        return self.names(obj)


# ---- reading --------------------------------------------------------------------------


def read(source: Path | str, resource_set: ResourceSet, options: XmiOptions | None = None) -> Document:
    """Read an XMI file into new objects; metamodels come from `resource_set`'s registry.

    Raises:
        CfSerializationError: unsafe or malformed XML, unknown classes or features, bad
            values, unresolved references (located at the file and line).
    """
    opts = options or XmiOptions()
    return _Reader(str(source), resource_set).document(parse_file(source, opts.limits))


def from_bytes(data: bytes, resource_set: ResourceSet, name: str = "<bytes>",
               options: XmiOptions | None = None) -> Document:
    opts = options or XmiOptions()
    return _Reader(name, resource_set).document(parse_bytes(data, name, opts.limits))


class _ReadPlan:
    def __init__(self, eclass: Any) -> None:
        self.features = {f.name: f for f in model.all_features(eclass)}
        self.codecs = {f.name: datatypes.codec_for(f.eType) for f in self.features.values()
                       if isinstance(f, EAttribute)}


class _Reader:
    def __init__(self, name: str, rset: ResourceSet) -> None:
        self.name = name
        self.rset = rset
        self.registry = local_registry(rset)
        self.plans: dict[int, _ReadPlan] = {}
        self.ids: dict[EObject, str] = {}
        self.by_id: dict[str, EObject] = {}
        self.pending: list[tuple[EObject, Any, str, int]] = []
        self.roots: list[EObject] = []

    def fail(self, line: int | None, message: str) -> CfSerializationError:
        n = line or 1
        return CfSerializationError(message, Span(self.name, n, 1, n, 2), code="bad-xmi")

    def plan(self, eclass: Any) -> _ReadPlan:
        found = self.plans.get(id(eclass))
        if found is None:
            found = _ReadPlan(eclass)
            self.plans[id(eclass)] = found
        return found

    def document(self, tree: etree._ElementTree) -> Document:
        root = tree.getroot()
        elements = [e for e in root if isinstance(e.tag, str)] if root.tag == f"{{{XMI_NS}}}XMI" else [root]
        for el in elements:
            self.roots.append(self.create(el, self.class_of_tag(el)))
        self.resolve_references()
        resource = attach(self.rset, self.name, self.roots)
        return Document(self.roots, self.ids, resource)

    def class_of_tag(self, el: etree._Element) -> Any:
        q = etree.QName(el)
        return self.lookup_class(q.namespace, q.localname, el.sourceline)

    def class_of_xsi(self, el: etree._Element, default: Any) -> Any:
        xsi = el.get(_XSI_TYPE)
        if xsi is None:
            return default
        prefix, _, local = xsi.rpartition(":")
        return self.lookup_class(el.nsmap.get(prefix or None), local, el.sourceline)

    def lookup_class(self, uri: str | None, name: str, line: int | None) -> Any:
        pkg = self.registry.get(uri) if uri else None
        if pkg is None:
            raise self.fail(line, f"no metamodel registered for namespace {uri!r} (read its .ecore first)")
        eclass = pkg.getEClassifier(name)
        if eclass is None or not hasattr(eclass, "eStructuralFeatures"):
            raise self.fail(line, f"class {name!r} not found in {uri}")
        if eclass.abstract:
            raise self.fail(line, f"class {name!r} is abstract")
        return eclass

    def create(self, el: etree._Element, eclass: Any) -> EObject:
        obj = eclass()
        plan = self.plan(eclass)
        for key, text in el.attrib.items():
            self.xml_attribute(obj, plan, key, text, el.sourceline)
        for child in el:
            if isinstance(child.tag, str):
                self.child(obj, plan, child)
        return obj

    def xml_attribute(self, obj: EObject, plan: _ReadPlan, key: str, text: str, line: int | None) -> None:
        if key[0] == "{":
            if key == _XMI_ID:
                self.name_object(obj, text, line)
            return  # xsi:type, xmi:version and other namespaced attributes
        f = plan.features.get(key)
        if f is None:
            raise self.fail(line, f"class {obj.eClass.name} has no feature {key!r}")
        if isinstance(f, EAttribute):
            codec = plan.codecs[key]
            where = f"{self.name}:{line}: {obj.eClass.name}.{key}"
            if f.many:
                obj.eGet(f).extend(datatypes.parse_literal(codec, t, where) for t in text.split())
            else:
                obj.eSet(f, datatypes.parse_literal(codec, text, where))
        else:
            self.pending.append((obj, f, text, line or 1))

    def name_object(self, obj: EObject, ident: str, line: int | None) -> None:
        if ident in self.by_id:
            raise self.fail(line, f"xmi:id {ident!r} is used twice")
        self.by_id[ident] = obj
        self.ids[obj] = ident

    def child(self, obj: EObject, plan: _ReadPlan, el: etree._Element) -> None:
        name = etree.QName(el).localname
        f = plan.features.get(name)
        if f is None:
            raise self.fail(el.sourceline, f"class {obj.eClass.name} has no feature {name!r}")
        if isinstance(f, EAttribute):
            value = datatypes.parse_literal(plan.codecs[name], el.text or "", f"{self.name}:{el.sourceline}")
            if f.many:
                obj.eGet(f).append(value)
            else:
                obj.eSet(f, value)
        elif f.containment:
            self.contain(obj, f, self.create(el, self.class_of_xsi(el, f.eType)))
        elif el.get("href") is not None:
            raise self.fail(el.sourceline, f"cross-document reference {el.get('href')!r} is not supported")
        else:
            raise self.fail(el.sourceline, f"unexpected element for reference {name!r}")

    def contain(self, parent: EObject, f: Any, child: EObject) -> None:
        if f.many:
            parent.eGet(f).append(child, update_opposite=False)
        else:
            linking.set_single(parent, f, child)
        if f.eOpposite is not None:
            linking.set_single(child, f.eOpposite, parent)

    def resolve_references(self) -> None:
        targets = linking.Targets(self.roots, self.by_id)
        paired: list[tuple[EObject, Any, EObject]] = []
        for obj, f, text, line in self.pending:
            found = [self.target(targets, tok, line) for tok in text.split()]
            linking.set_references(obj, f, found)
            if f.eOpposite is not None:
                paired.extend((obj, f, t) for t in found)
        for obj, f, t in paired:
            linking.ensure_back(obj, f, t)

    def target(self, targets: linking.Targets, token: str, line: int) -> EObject:
        if "#" in token:
            raise self.fail(line, f"cross-document reference {token!r} is not supported")
        found = targets.find(token)
        if found is None:
            raise self.fail(line, f"unresolved reference {token!r}")
        return found
