"""The general XMI writer: any valid document, references to other documents included.

Input: a document's roots, its objects in pre-order, their ids, a namer of objects
outside the document (`crossrefs.Hrefs`) and the layout. Output: the document's text.
Used where the fast writer (`writer`, `heads`) does not go: a document whose references
leave it, a document holding proxies or feature maps, and EMF's layout (`XmiOptions.emf_layout`). It
reads values through PyEcore's public API, one object at a time (no generated code).

What it writes, as EMF's `XMLSaveImpl` writes it:

* a reference whose targets are all objects of the document is an XML attribute listing
  them (id, else positional fragment); one with a target elsewhere is written as one
  ``<feature href="uri"/>`` element per target, ``#fragment`` for the document's own;
* a proxy in a containment (a child kept in another document) is ``<feature href="uri"/>``;
* a feature map (`featuremaps`) is its entries in order, each an element of its member
  (text, a child, or an ``href``, ``#fragment`` inside the document, as EMF writes it);
  an attribute wildcard's entries are XML attributes, at the map's place among them
  (``prefix:name``, the prefix of the attribute's namespace, or unqualified), as EMF
  writes them with ``OPTION_EXTENDED_META_DATA`` (EMF's XMIResource without it cannot);
* ``xsi:type`` on an ``href`` element where EMF writes it (the target's class is not the
  feature's and the feature's is abstract) and, in cfmodel's layout, wherever the classes
  differ;
* EMF's layout: XML attributes and child elements each in EMF's feature order (supertypes
  first), ``xsi:type`` on a child only when its class is not the feature's type, and only
  the namespaces the document names (``xmlns:xsi`` only when it writes an ``xsi:type``),
  sorted by prefix; ``xsi:schemaLocation`` (the ``.ecore`` files the packages were read
  from, relative) when the document read had one, or as `XmiOptions.schema_location`
  says. cfmodel's layout: single-valued attributes before references,
  many-valued attributes, then references to other documents, then children, each child
  with ``xsi:type``, every namespace of the document's classes declared (the fast
  writer's text, for documents it writes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pyecore.ecore import EAttribute, EObject

from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers import canonical, crossrefs, datatypes, ecorepaths, featuremaps, linking, model
from cfmodel.serializers.base import XMI_NS, XSI_NS
from cfmodel.serializers.xmi.options import SCHEMA_LOCATION_KEY, XML_DECLARATION
from cfmodel.serializers.xmlwrite import escape_attr, escape_text

# EMF's escaping (XMLSaveImpl.Escape): ``>`` never; ``"`` in text too; line breaks and
# tabs only in attributes (cfmodel's layout keeps `xmlwrite`'s, which its golden files fix).
_EMF_ATTR = re.compile('[&<"\n\r\t]')
_EMF_TEXT = re.compile('[&<"\r]')
_EMF_MAP = {"&": "&amp;", "<": "&lt;", '"': "&quot;", "\n": "&#xA;", "\r": "&#xD;", "\t": "&#x9;"}


def _emf_escape(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def escape(value: str) -> str:
        if pattern.search(value) is None:
            return value
        return pattern.sub(lambda m: _EMF_MAP[m.group()], value)

    return escape


# What an object writes as child elements: (kind, its feature's plan, values), kinds below
# (in cfmodel's layout, in this order; a feature map's entries with the children); a
# plan's other kinds: single-valued attributes (XML attributes), references (XML attributes
# or, when a target is elsewhere, _HREFS elements).
_VALUES, _HREFS, _CHILDREN, _ENTRIES, _SINGLE_ATTR, _REFS, _WILDCARD = range(7)
# (kind, feature, name, type, literal function of an attribute's values or None)
_Plan = tuple[int, Any, str, Any, Callable[[Any], str] | None]
Element = tuple[int, _Plan, list[Any]]
_PROXY = crossrefs.PROXY_KEY


def _plan_of(f: Any, emf: bool) -> _Plan:
    if featuremaps.is_attribute_wildcard(f):
        return (_WILDCARD, f, f.name, None, None)
    if featuremaps.is_feature_map(f):
        return (_ENTRIES, f, f.name, None, None)
    if isinstance(f, EAttribute):
        kind = _VALUES if f.many else _SINGLE_ATTR
        return (kind, f, f.name, f.eType, _literal(f.eType, emf))
    return (_CHILDREN if f.containment else _REFS, f, f.name, f.eType, None)


def _literal(etype: Any, emf: bool) -> Callable[[Any], str]:
    """How values of a data type are written: as EMF writes them in EMF's layout (floating
    point as Java prints it), else as cfmodel's codecs write them (the fast writer's text)."""
    codec = datatypes.codec_for(etype)
    return datatypes.emf_literal(codec) if emf else codec.to_literal


class GeneralWriter:
    """One document (see the module docstring). `prefix` gives a package's prefix (the
    fast writer's table, so both name packages alike); `hrefs` names outside objects."""

    def __init__(
        self,
        roots: list[EObject],
        objects: list[EObject],
        ids: Mapping[EObject, str],
        hrefs: Callable[[EObject], str | None],
        prefixes: dict[str, str],
        prefix: Callable[[Any], str],
        emf_layout: bool,
        location: str | Path | None = None,
        schema_location: bool | None = None,
    ) -> None:
        self.location = location
        if schema_location is None:  # as the document the roots were read from
            resource = roots[0].eResource if roots else None
            schema_location = resource is not None and SCHEMA_LOCATION_KEY in resource.__dict__
        self.with_locations = schema_location
        self.roots = roots
        self.ids = ids
        self.hrefs = hrefs
        self.inside = {id(o) for o in objects}
        self.names = linking.Fragments(roots, ids, id_attributes=emf_layout)  # EMF names by iD attributes
        self.prefixes = prefixes
        self.prefix = prefix
        self.emf = emf_layout
        self.esc_attr = _emf_escape(_EMF_ATTR) if emf_layout else escape_attr
        self.esc_text = _emf_escape(_EMF_TEXT) if emf_layout else escape_text
        self.used: set[str] = set()  # nsURIs the document names (EMF's layout)
        self.packages: dict[str, Any] = {}
        self.xsi = not emf_layout
        self.plans: dict[int, list[_Plan]] = {}
        self.qnames: dict[int, str] = {}
        if not emf_layout:  # every class of the document, in document order (as the fast writer)
            for obj in canonical.one_per_class(objects):
                self.qname(obj.eClass)

    def attrs_text(self, attrs: list[tuple[str, str]]) -> str:
        esc = self.esc_attr
        return "".join(f' {k}="{esc(v)}"' for k, v in attrs)

    def qname(self, eclass: Any) -> str:
        found = self.qnames.get(id(eclass))
        if found is None:
            pkg = eclass.ePackage
            self.used.add(pkg.nsURI)
            self.packages[pkg.nsURI] = pkg
            found = self.qnames[id(eclass)] = f"{self.prefix(pkg)}:{eclass.name}"
        return found

    def document(self) -> bytes:
        body: list[str] = []
        single = len(self.roots) == 1
        for root in self.roots:
            self.element(body, root, self.qname(root.eClass), "", 0 if single else 1, single)
        declared = [(p, uri) for uri, p in self.prefixes.items() if uri in self.used]
        locations: list[str] = []
        if self.emf:
            declared.sort()
        if self.emf and self.with_locations:
            locations = [f"{uri} {where}" for _, uri in declared if (where := self.schema_location(uri))]
        ns = [("xmi:version", "2.0"), ("xmlns:xmi", XMI_NS)]
        if self.xsi or locations:
            ns.append(("xmlns:xsi", XSI_NS))
        ns += [(f"xmlns:{p}", uri) for p, uri in declared]
        if locations:
            ns.append(("xsi:schemaLocation", " ".join(locations)))
        if single:
            body[0] = body[0].replace("\0", self.attrs_text(ns), 1)
            return (XML_DECLARATION + "".join(body)).encode("utf-8")
        return (
            XML_DECLARATION + f"<xmi:XMI{self.attrs_text(ns)}>\n" + "".join(body) + "</xmi:XMI>\n"
        ).encode("utf-8")

    def schema_location(self, uri: str) -> str | None:
        """Where EMF says the package of `uri` is (``xsi:schemaLocation``): the ``.ecore``
        file a reader read it from, relative to this document (``net.ecore``,
        ``net.ecore#//sub``); None for a package in no file (a lifted or generated one)."""
        pkg = self.packages.get(uri)
        root = ecorepaths.root_of(pkg) if pkg is not None else None
        resource = getattr(root, "eResource", None)
        if resource is None or getattr(resource, "uri", None) is None:
            return None
        where = crossrefs.relative_uri(self.location, crossrefs.resolve_uri(".", str(resource.uri.plain)))
        fragment = ecorepaths.fragment_of(pkg)
        return where if fragment in ("/", "//") else f"{where}#{fragment}"

    def plan(self, eclass: Any) -> list[_Plan]:
        """The class's written features, each read once from PyEcore: (kind, feature, name,
        its type, the literal function of an attribute's values)."""
        found = self.plans.get(id(eclass))
        if found is None:
            feats = [f for f in model.persistent_features(eclass) if not model.is_container_ref(f)]
            if not self.emf:  # cfmodel's order: single-valued attributes (wildcards last), the rest
                single = [f for f in feats if isinstance(f, EAttribute) and not f.many]
                single += [f for f in feats if featuremaps.is_attribute_wildcard(f)]
                feats = single + [f for f in feats if f not in single]
            found = self.plans[id(eclass)] = [_plan_of(f, self.emf) for f in feats]
        return found

    def element(
        self, out: list[str], obj: EObject, tag: str, typed: str, depth: int, root: bool = False
    ) -> None:
        indent = "  " * depth
        attrs: list[tuple[str, str]] = []
        ident = self.ids.get(obj)
        if ident is not None:
            attrs.append(("xmi:id", ident))
        elements: list[Element] = []
        for p in self.plan(obj.eClass):
            self.feature(obj, p, attrs, elements)
        if not self.emf:
            elements.sort(key=lambda e: min(e[0], _CHILDREN))  # stable: values, hrefs, children
        start = f"{indent}<{tag}{typed}{chr(0) if root else ''}{self.attrs_text(attrs)}"
        if not elements:
            out.append(start + "/>\n")
            return
        out.append(start + ">\n")
        inner = "  " * (depth + 1)
        esc = self.esc_text
        for kind, (_, f, name, etype, literal), values in elements:
            if kind == _VALUES:
                assert literal is not None
                out.extend(f"{inner}<{name}>{esc(literal(v))}</{name}>\n" for v in values)
            elif kind == _HREFS:
                out.extend(self.href(f, t, inner) for t in values)
            elif kind == _ENTRIES:
                self.entries(out, values, depth + 1)
            else:
                for child in values:
                    if _PROXY in child.__dict__:
                        out.append(self.href(f, child, inner))
                    else:
                        self.element(out, child, name, self.child_type(etype, child), depth + 1)
        out.append(f"{indent}</{tag}>\n")

    def entries(self, out: list[str], entries: list[Any], depth: int) -> None:
        """A feature map's entries, in order, each as an element of its member: its value
        as text, the child, or an ``href`` (also to an object of this document, ``#…``,
        as EMF writes references inside feature maps)."""
        indent = "  " * depth
        for e in entries:
            member, v = e.feature, e.value
            if isinstance(member, EAttribute):
                literal = _literal(member.eType, self.emf)(v)
                out.append(f"{indent}<{member.name}>{self.esc_text(literal)}</{member.name}>\n")
            elif member.containment and crossrefs.proxy_uri(v) is None:
                self.element(out, v, member.name, self.child_type(member.eType, v), depth)
            else:
                out.append(self.href(member, v, indent))

    def feature(self, obj: EObject, p: _Plan, attrs: list[tuple[str, str]], elements: list[Element]) -> None:
        kind, f, name, _, literal = p
        if kind == _SINGLE_ATTR:
            v = fastpath.single(obj, f)
            if v is not None:
                assert literal is not None
                attrs.append((name, literal(v)))
            return
        if kind == _WILDCARD:
            for e in featuremaps.entries(obj, f):
                member = e.feature
                text = _literal(member.eType, self.emf)(e.value)
                attrs.append((self.attribute_qname(member), text))
            return
        if kind == _ENTRIES:
            found = featuremaps.entries(obj, f)
            if found:
                elements.append((_ENTRIES, p, found))
            return
        if kind == _VALUES or f.many:
            values = list(fastpath.items(obj, f))
        else:
            v = fastpath.single(obj, f)
            values = [] if v is None else [v]
        if not values:
            return
        if kind != _REFS:
            elements.append((kind, p, values))
        elif all(id(t) in self.inside and _PROXY not in t.__dict__ for t in values):
            ids, names = self.ids, self.names
            attrs.append((name, " ".join(ids.get(t) or names(t) for t in values)))
        else:
            elements.append((_HREFS, p, values))

    def attribute_qname(self, member: Any) -> str:
        """The XML name of an attribute a wildcard holds (its namespace declared)."""
        name = featuremaps.attribute_name(member)
        namespace = featuremaps.attribute_namespace(member)
        if namespace is None:
            return name
        pkg = member.eContainingClass.ePackage
        self.used.add(namespace)
        self.packages[namespace] = pkg
        return f"{self.prefix(pkg)}:{name}"

    def href(self, f: Any, target: EObject, indent: str) -> str:
        inside = id(target) in self.inside and crossrefs.proxy_uri(target) is None
        uri = f"#{self.ids.get(target) or self.names(target)}" if inside else self.hrefs(target)
        if uri is None:  # validate refused such targets before anything was written
            raise AssertionError(f"no document holds the target of {f.name}")
        expected = f.eType
        differs = target.eClass is not expected
        typed = ""
        if differs and (expected.abstract or not self.emf):
            typed = self.type_attribute(target.eClass)
        return f'{indent}<{f.name}{typed} href="{self.esc_attr(uri)}"/>\n'

    def child_type(self, etype: Any, child: EObject) -> str:
        if self.emf and child.eClass is etype:
            return ""
        return self.type_attribute(child.eClass)

    def type_attribute(self, eclass: Any) -> str:
        self.xsi = True
        return f' xsi:type="{self.esc_attr(self.qname(eclass))}"'
