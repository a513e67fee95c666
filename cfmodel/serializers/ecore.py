"""``.ecore`` files: write a PyEcore metamodel the way EMF does, and read one back.

Input (write): one root `EPackage` (with subpackages). Output: an ``.ecore`` file whose
root element is ``ecore:EPackage``, replaced atomically. Input (read): an ``.ecore`` file,
parsed safely (`xmlsafe`). Output: a `Document` whose roots are new PyEcore packages,
registered by nsURI in the given (or a fresh) `ResourceSet` only.

Guarantees: the package is validated first (`validate.check_packages`); EMF's Ecore
validator would reject nothing we write. Unlike PyEcore 0.15's writer, ``eOpposite`` and
``defaultValueLiteral`` are always written. Layout: features and classifiers in model
order; attributes only when they differ from EMF's defaults; references to classifiers
by EMF's name fragments (``#//Class``, ``#//sub/Class``, ``#//Class/feature``), to other
packages by ``<nsURI>#//Name`` and to Ecore's data types by
``http://www.eclipse.org/emf/2002/Ecore#//EString``. ``resolveProxies`` and
``serializable`` are left at EMF's default (true): PyEcore does not model them. Generics
and operations are not supported and are refused. Output is byte-identical for the
same metamodel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree  # type: ignore[import-untyped]  # no stubs
from pyecore import ecore as ecore_module
from pyecore.ecore import (
    EAnnotation,
    EAttribute,
    EClass,
    EDataType,
    EEnum,
    EEnumLiteral,
    EPackage,
    EReference,
)
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError, Span
from cfmodel.serializers import atomic, datatypes, model, validate
from cfmodel.serializers.base import (
    ECORE_NS,
    XMI_NS,
    XSI_NS,
    Document,
    attach,
    local_registry,
    register_packages,
)
from cfmodel.serializers.xmlsafe import XmlLimits, parse_bytes, parse_file
from cfmodel.serializers.xmlwrite import XmlWriter

_XSI_TYPE = f"{{{XSI_NS}}}type"


@dataclass(frozen=True, slots=True)
class EcoreOptions:
    """Options for `.ecore` files (reading limits; writing has none yet)."""

    limits: XmlLimits = field(default_factory=XmlLimits)


# ---- writing --------------------------------------------------------------------------


def write(target: Path | str, package: EPackage, options: EcoreOptions | None = None) -> None:
    """Validate `package` and write it to `target` atomically.

    Raises:
        CfSerializationError: the metamodel is not valid Ecore (every problem as a note).
    """
    atomic.write_bytes(target, to_bytes(package, options))


def to_bytes(package: EPackage, options: EcoreOptions | None = None) -> bytes:
    validate.check_packages([package])
    for c in _all_classes(package):
        if c.eOperations:
            raise CfSerializationError(f"class {c.name}: operations are not supported", code="unsupported")
    w = XmlWriter()
    _Writer(package, w).package(package, root=True)
    return w.to_bytes()


def _all_classes(pkg: EPackage) -> list[EClass]:
    out = [c for c in pkg.eClassifiers if isinstance(c, EClass)]
    for sub in pkg.eSubpackages:
        out.extend(_all_classes(sub))
    return out


def _flag(name: str, value: Any, default: bool) -> list[tuple[str, str]]:
    return [(name, "true" if value else "false")] if bool(value) != default else []


class _Writer:
    def __init__(self, root: EPackage, w: XmlWriter) -> None:
        self.root = root
        self.w = w

    def package(self, pkg: EPackage, root: bool = False) -> None:
        attrs = [("name", pkg.name), ("nsURI", pkg.nsURI), ("nsPrefix", pkg.nsPrefix)]
        if root:
            attrs = [
                ("xmi:version", "2.0"),
                ("xmlns:xmi", XMI_NS),
                ("xmlns:xsi", XSI_NS),
                ("xmlns:ecore", ECORE_NS),
                *attrs,
            ]
        tag = "ecore:EPackage" if root else "eSubpackages"
        self.w.start(tag, attrs)
        self.annotations(pkg)
        for c in pkg.eClassifiers:
            self.classifier(c)
        for sub in pkg.eSubpackages:
            self.package(sub)
        self.w.end(tag)

    def annotations(self, element: Any) -> None:
        for a in element.eAnnotations:
            attrs = [("source", a.source)] if a.source is not None else []
            if not a.details:
                self.w.empty("eAnnotations", attrs)
                continue
            self.w.start("eAnnotations", attrs)
            for k, v in a.details.items():
                self.w.empty("details", [("key", str(k)), ("value", str(v))])
            self.w.end("eAnnotations")

    def classifier(self, c: Any) -> None:
        if isinstance(c, EClass):
            attrs = [
                ("xsi:type", "ecore:EClass"),
                ("name", c.name),
                *_flag("abstract", c.abstract, False),
                *_flag("interface", c.interface, False),
            ]
            if c.eSuperTypes:
                attrs.append(("eSuperTypes", " ".join(self.ref(s) for s in c.eSuperTypes)))
            self.container("eClassifiers", attrs, c, c.eStructuralFeatures, self.feature)
        elif isinstance(c, EEnum):
            self.container(
                "eClassifiers", [("xsi:type", "ecore:EEnum"), ("name", c.name)], c, c.eLiterals, self.literal
            )
        else:
            attrs = [("xsi:type", "ecore:EDataType"), ("name", c.name)]
            if c.instanceClassName:
                attrs.append(("instanceClassName", c.instanceClassName))
            self.container("eClassifiers", attrs, c, [], self.feature)

    def container(self, tag: str, attrs: list[tuple[str, str]], element: Any, items: Any, each: Any) -> None:
        if not element.eAnnotations and not items:
            self.w.empty(tag, attrs)
            return
        self.w.start(tag, attrs)
        self.annotations(element)
        for item in items:
            each(item)
        self.w.end(tag)

    def literal(self, lit: EEnumLiteral) -> None:
        attrs = [("name", lit.name)]
        if lit.value:
            attrs.append(("value", str(lit.value)))
        if lit.literal is not None:
            attrs.append(("literal", lit.literal))
        self.container("eLiterals", attrs, lit, [], self.feature)

    def feature(self, f: Any) -> None:
        kind = "ecore:EAttribute" if isinstance(f, EAttribute) else "ecore:EReference"
        attrs = [
            ("xsi:type", kind),
            ("name", f.name),
            *_flag("ordered", f.ordered, True),
            *_flag("unique", f.unique, True),
        ]
        if f.lowerBound:
            attrs.append(("lowerBound", str(f.lowerBound)))
        if f.upperBound != 1:
            attrs.append(("upperBound", str(f.upperBound)))
        attrs += [
            ("eType", self.typed_ref(f.eType)),
            *_flag("changeable", f.changeable, True),
            *_flag("volatile", f.volatile, False),
            *_flag("transient", f.transient, False),
        ]
        literal = model.default_literal(f)
        if literal is not None:
            attrs.append(("defaultValueLiteral", literal))
        attrs += [*_flag("unsettable", f.unsettable, False), *_flag("derived", f.derived, False)]
        if isinstance(f, EAttribute):
            attrs += _flag("iD", f.iD, False)
        else:
            attrs += _flag("containment", f.containment, False)
            if f.eOpposite is not None:
                attrs.append(("eOpposite", f"{self.ref(f.eOpposite.eContainingClass)}/{f.eOpposite.name}"))
        self.container("eStructuralFeatures", attrs, f, [], self.feature)

    def ref(self, c: Any) -> str:
        """A classifier reference without type prefix (eSuperTypes, eOpposite)."""
        path = _fragment(c)
        root = _root_package(c.ePackage)
        if root is self.root:
            return f"#{path}"
        return f"{root.nsURI}#{path}"

    def typed_ref(self, c: Any) -> str:
        """``eType``: same-file references are bare; others carry the EMF type prefix."""
        ref = self.ref(c)
        if ref.startswith("#"):
            return ref
        kind = "EClass" if isinstance(c, EClass) else "EEnum" if isinstance(c, EEnum) else "EDataType"
        return f"ecore:{kind} {ref}"


def _root_package(pkg: EPackage) -> EPackage:
    while pkg.eSuperPackage is not None:
        pkg = pkg.eSuperPackage
    return pkg


def _fragment(c: Any) -> str:
    names = [c.name]
    pkg = c.ePackage
    while pkg.eSuperPackage is not None:
        names.append(pkg.name)
        pkg = pkg.eSuperPackage
    return "//" + "/".join(reversed(names))


# ---- reading --------------------------------------------------------------------------


def read(
    source: Path | str, resource_set: ResourceSet | None = None, options: EcoreOptions | None = None
) -> Document:
    """Read an `.ecore` file into new PyEcore packages registered in `resource_set`.

    Raises:
        CfSerializationError: unsafe or malformed XML, unknown elements or references.
    """
    opts = options or EcoreOptions()
    tree = parse_file(source, opts.limits)
    return _read_tree(tree, str(source), resource_set)


def from_bytes(
    data: bytes,
    name: str = "<bytes>",
    resource_set: ResourceSet | None = None,
    options: EcoreOptions | None = None,
) -> Document:
    opts = options or EcoreOptions()
    return _read_tree(parse_bytes(data, name, opts.limits), name, resource_set)


def _read_tree(tree: etree._ElementTree, name: str, resource_set: ResourceSet | None) -> Document:
    rset = resource_set if resource_set is not None else ResourceSet()
    root = tree.getroot()
    elements = list(root) if root.tag == f"{{{XMI_NS}}}XMI" else [root]
    reader = _Reader(name, rset)
    packages = [reader.package(el) for el in elements]
    register_packages(rset, packages)
    reader.resolve()
    resource = attach(rset, name, packages)
    return Document(list(packages), {}, resource)


class _Reader:
    def __init__(self, name: str, rset: ResourceSet) -> None:
        self.name = name
        self.rset = rset
        self.by_fragment: dict[tuple[int, str], Any] = {}
        self.pending: list[tuple[etree._Element, Any, EPackage]] = []

    def fail(self, el: etree._Element, message: str) -> CfSerializationError:
        line = el.sourceline or 1
        return CfSerializationError(message, Span(self.name, line, 1, line, 2), code="bad-ecore")

    def package(self, el: etree._Element, parent: EPackage | None = None) -> EPackage:
        if el.tag not in (f"{{{ECORE_NS}}}EPackage", "eSubpackages"):
            raise self.fail(el, f"expected an EPackage, found <{el.tag}>")
        pkg = EPackage(el.get("name"), nsURI=el.get("nsURI"), nsPrefix=el.get("nsPrefix"))
        if parent is not None:
            parent.eSubpackages.append(pkg)
        root = _root_package(pkg)
        for child in el:
            if not isinstance(child.tag, str):
                continue  # comments and processing instructions
            if child.tag == "eClassifiers":
                c = self.classifier(child, root)
                pkg.eClassifiers.append(c)
                self.by_fragment[(id(root), _fragment(c))] = c
            elif child.tag == "eSubpackages":
                self.package(child, pkg)
            elif child.tag == "eAnnotations":
                pkg.eAnnotations.append(self.annotation(child))
            else:
                raise self.fail(child, f"unsupported element <{child.tag}> in EPackage")
        return pkg

    def annotation(self, el: etree._Element) -> EAnnotation:
        a = EAnnotation(el.get("source"))
        for d in el:
            if d.tag == "details":
                a.details[d.get("key")] = d.get("value")
            elif isinstance(d.tag, str):
                raise self.fail(d, f"unsupported element <{d.tag}> in EAnnotation")
        return a

    def classifier(self, el: etree._Element, root: EPackage) -> Any:
        kind = el.get(_XSI_TYPE)
        name = el.get("name")
        if kind == "ecore:EClass":
            c: Any = EClass(name, abstract=el.get("abstract") == "true")
            c.interface = el.get("interface") == "true"
        elif kind == "ecore:EEnum":
            c = EEnum(name)
        elif kind == "ecore:EDataType":
            c = EDataType(name, instanceClassName=el.get("instanceClassName"))
        else:
            raise self.fail(el, f"unsupported classifier type {kind!r}")
        self.pending.append((el, c, root))
        for child in el:
            self.classifier_child(child, c, root)
        return c

    def classifier_child(self, child: etree._Element, c: Any, root: EPackage) -> None:
        if not isinstance(child.tag, str):
            return
        if child.tag == "eAnnotations":
            c.eAnnotations.append(self.annotation(child))
        elif child.tag == "eLiterals" and isinstance(c, EEnum):
            lit = EEnumLiteral(child.get("name"), value=int(child.get("value", "0")))
            if child.get("literal") is not None:
                lit.literal = child.get("literal")
            c.eLiterals.append(lit)
        elif child.tag == "eStructuralFeatures" and isinstance(c, EClass):
            f = self.feature(child)
            c.eStructuralFeatures.append(f)
            self.pending.append((child, f, root))
        else:
            raise self.fail(child, f"unsupported element <{child.tag}> in {c.name}")

    def feature(self, el: etree._Element) -> Any:
        kind = el.get(_XSI_TYPE)
        if kind not in ("ecore:EAttribute", "ecore:EReference"):
            raise self.fail(el, f"unsupported feature type {kind!r}")
        flags = {k: el.get(k) == "true" for k in ("volatile", "transient", "unsettable", "derived")}
        common: dict[str, Any] = dict(
            ordered=el.get("ordered") != "false",
            unique=el.get("unique") != "false",
            lower=int(el.get("lowerBound", "0")),
            upper=int(el.get("upperBound", "1")),
            changeable=el.get("changeable") != "false",
            **flags,
        )
        if kind == "ecore:EAttribute":
            f: Any = EAttribute(el.get("name"), iD=el.get("iD") == "true", **common)
            f.defaultValueLiteral = el.get("defaultValueLiteral")
        else:
            f = EReference(el.get("name"), containment=el.get("containment") == "true", **common)
            f.defaultValueLiteral = el.get("defaultValueLiteral")
        for child in el:
            if child.tag == "eAnnotations":
                f.eAnnotations.append(self.annotation(child))
            elif isinstance(child.tag, str):
                raise self.fail(child, f"unsupported element <{child.tag}> in feature {f.name}")
        return f

    def resolve(self) -> None:
        for _, obj, _ in self.pending:  # first: features copy their type's default
            if isinstance(obj, EDataType):  # enums too, now that their literals are read
                datatypes.make_faithful(obj)
        for el, obj, root in self.pending:
            if isinstance(obj, EClass):
                for ref in (el.get("eSuperTypes") or "").split():
                    obj.eSuperTypes.append(self.lookup(el, ref, root))
            elif isinstance(obj, EAttribute | EReference):
                self.resolve_feature(el, obj, root)

    def resolve_feature(self, el: etree._Element, f: Any, root: EPackage) -> None:
        ref = el.get("eType")
        if ref is None:
            raise self.fail(el, f"feature {f.name} has no eType (generic types are not supported)")
        f.eType = self.lookup(el, ref, root)
        if isinstance(f, EAttribute) and f.default_value is None:
            f.default_value = f.eType.default_value if isinstance(f.eType, EDataType) else None
        opposite = el.get("eOpposite")
        if opposite is not None:
            cls_ref, _, feat = opposite.rpartition("/")
            target = self.lookup(el, cls_ref, root)
            found = next((x for x in target.eStructuralFeatures if x.name == feat), None)
            if found is None:
                raise self.fail(el, f"eOpposite {opposite!r} not found")
            f.eOpposite = found

    def lookup(self, el: etree._Element, ref: str, root: EPackage) -> Any:
        """Resolve ``#//X``, ``<nsURI>#//X``, ``ecore:EDataType <nsURI>#//X``, or
        ``<file>#//X`` (EMF's re-saves name another file of the resource set that way)."""
        uri, _, fragment = ref.split()[-1].partition("#")
        found = self.external(uri, fragment) if uri else self.by_fragment.get((id(root), fragment))
        if found is None:
            raise self.fail(el, f"unresolved reference {ref!r}")
        return found

    def external(self, uri: str, fragment: str) -> Any:
        if uri == ECORE_NS:
            found: Any = getattr(ecore_module, fragment.removeprefix("//"), None)
            return getattr(found, "eClass", None) if isinstance(found, type) else found
        pkg = local_registry(self.rset).get(uri) or self.package_in_file(uri)
        if pkg is None:
            return None
        for part in fragment.removeprefix("//").split("/")[:-1]:
            pkg = next((s for s in pkg.eSubpackages if s.name == part), None)
            if pkg is None:
                return None
        return pkg.getEClassifier(fragment.rsplit("/", 1)[-1])

    def package_in_file(self, uri: str) -> EPackage | None:
        """The root package of an `.ecore` file already read into the resource set, named
        by a path relative to the file being read (or a ``file:`` URI)."""
        location = uri.removeprefix("file://").removeprefix("file:")
        if "://" in location or not location.endswith(".ecore"):
            return None
        wanted = (Path(self.name).resolve().parent / location).resolve()
        for resource in list(self.rset.resources.values()):
            plain = getattr(getattr(resource, "uri", None), "plain", None)
            if isinstance(plain, str) and Path(plain).resolve() == wanted:
                roots = [r for r in resource.contents if isinstance(r, EPackage)]
                return roots[0] if roots else None
        return None
