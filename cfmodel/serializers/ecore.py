"""``.ecore`` files: write a PyEcore metamodel the way EMF does, and read one back.

Input (write): one root `EPackage` (with subpackages). Output: an ``.ecore`` file whose
root element is ``ecore:EPackage``, replaced atomically. Input (read): an ``.ecore`` file,
parsed safely (`xmlsafe`). Output: a `Document` whose roots are new PyEcore packages,
registered by nsURI in the given (or a fresh) `ResourceSet` only.

Every construct of Ecore is read and written: packages and subpackages, classes
(abstract, interface, ``instanceClassName``/``instanceTypeName``), data types
(``serializable``), enums and their literals (value, literal), attributes and
references with every flag (ordered, unique, bounds, changeable, volatile, transient,
unsettable, derived, ``iD``, containment, ``resolveProxies``, ``eOpposite``, default
literals), operations (parameters, exceptions, type parameters), generics (type
parameters with bounds, ``eGenericType`` with arguments and wildcards, generic
supertypes and exceptions) and annotations (details, nested annotations, ``contents``,
``references``). What PyEcore has no feature for (``eKeys``) is refused with a located
error rather than dropped.

Guarantees: the package is validated first (`validate.check_packages`); EMF's Ecore
validator would reject nothing we write. ``eOpposite`` and ``defaultValueLiteral`` are
always written. Layout as EMF's: features, classifiers and containments in model order
(`ecorepaths` gives EMF's containment order); attributes only when they differ from
EMF's defaults; a typed element's type as ``eType`` when it is a plain classifier, as an
``eGenericType`` element otherwise (likewise supertypes and exceptions); references
by EMF's fragments (``#//Class``, ``#//sub/Class/feature``, ``#//Class/op.1``), to
other packages by ``<nsURI>#//Name`` and to Ecore's data types by
``http://www.eclipse.org/emf/2002/Ecore#//EString``. ``resolveProxies`` and
``serializable`` follow EMF's default (true) unless a reader set them. Output is
byte-identical for the same metamodel.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
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
    EGenericType,
    EOperation,
    EPackage,
    EParameter,
    EReference,
    ETypeParameter,
)
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError, Span
from cfmodel.serializers import atomic, datatypes, ecorepaths, model, validate
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


# ---- Ecore's own classifiers PyEcore does not define -----------------------------------

# name -> (instanceClassName, type parameters); facts about EMF's Ecore package, so that
# references such as http://www.eclipse.org/emf/2002/Ecore#//EEList resolve
_MISSING_ECORE_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "EEList": ("org.eclipse.emf.common.util.EList", ("E",)),
    "EEnumerator": ("org.eclipse.emf.common.util.Enumerator", ()),
    "EFeatureMap": ("org.eclipse.emf.ecore.util.FeatureMap", ()),
    "EMap": ("org.eclipse.emf.common.util.EMap", ("K", "V")),
    "EResource": ("org.eclipse.emf.ecore.resource.Resource", ()),
    "EResourceSet": ("org.eclipse.emf.ecore.resource.ResourceSet", ()),
    "ETreeIterator": ("org.eclipse.emf.common.util.TreeIterator", ("E",)),
    "EInvocationTargetException": ("java.lang.reflect.InvocationTargetException", ()),
}


@functools.cache
def _ecore_extras() -> EPackage:
    """Stand-ins (same nsURI, names, Java classes) for Ecore classifiers PyEcore lacks."""
    package = EPackage("ecore", nsURI=ECORE_NS, nsPrefix="ecore")
    package.eClassifiers.append(EClass("EFactory"))
    # PyEcore makes it a data type (a dict); in EMF it is a class, which references need
    entry = EClass("EStringToStringMapEntry")
    entry.instanceClassName = "java.util.Map$Entry"
    entry.eStructuralFeatures.extend(
        [EAttribute("key", ecore_module.EString), EAttribute("value", ecore_module.EString)]
    )
    package.eClassifiers.append(entry)
    for name, (java, parameters) in _MISSING_ECORE_TYPES.items():
        datatype = EDataType(name, instanceClassName=java)
        datatype.eTypeParameters.extend(ETypeParameter(p) for p in parameters)
        package.eClassifiers.append(datatype)
    return package


def ecore_element(fragment: str) -> Any:
    """An element of Ecore's own package by its fragment (``//EString``), or None."""
    extra = ecorepaths.resolve(_ecore_extras(), fragment)
    return extra if extra is not None else ecorepaths.resolve(ecore_module.eClass, fragment)


# ---- writing --------------------------------------------------------------------------


def write(target: Path | str, package: EPackage, options: EcoreOptions | None = None) -> None:
    """Validate `package` and write it to `target` atomically.

    Raises:
        CfSerializationError: the metamodel is not valid Ecore (every problem as a note).
    """
    atomic.write_bytes(target, to_bytes(package, options))


def to_bytes(package: EPackage, options: EcoreOptions | None = None) -> bytes:
    validate.check_packages([package])
    w = XmlWriter()
    _Writer(package, w).package(package, "ecore:EPackage", root=True)
    return w.to_bytes()


def _flag(name: str, value: Any, default: bool) -> list[tuple[str, str]]:
    return [(name, "true" if value else "false")] if bool(value) != default else []


def _emf_flag(element: Any, name: str) -> list[tuple[str, str]]:
    """A flag EMF defaults to true and PyEcore to false: written only when a reader set
    it to false (PyEcore's own default means "not said")."""
    if element.eIsSet(name) and not getattr(element, name):
        return [(name, "false")]
    return []


def _is_simple(generic: Any) -> bool:
    """Whether a generic type is a plain classifier (EMF then writes ``eType``)."""
    return (
        generic.eClassifier is not None
        and generic.eTypeParameter is None
        and not generic.eTypeArguments
        and generic.eUpperBound is None
        and generic.eLowerBound is None
    )


_Part = tuple[list[Any], Callable[[Any], None]]


def _present(value: Any) -> list[Any]:
    return [] if value is None else [value]


class _Writer:
    def __init__(self, root: EPackage, w: XmlWriter) -> None:
        self.root = root
        self.w = w

    def element(self, tag: str, attrs: list[tuple[str, str]], parts: list[_Part]) -> None:
        """One element; each part is (items, how to write one), written in order.

        (Bound methods and partials, not closures: a deep package nest must not cost
        more than two Python frames per level.)
        """
        if not any(items for items, _ in parts):
            self.w.empty(tag, attrs)
            return
        self.w.start(tag, attrs)
        for items, write in parts:
            for item in items:
                write(item)
        self.w.end(tag)

    def annotations_part(self, element: Any) -> _Part:
        return (list(element.eAnnotations), partial(self.annotation, tag="eAnnotations"))

    def package(self, pkg: EPackage, tag: str, root: bool = False, typed: bool = False) -> None:
        attrs = [("name", pkg.name), ("nsURI", pkg.nsURI), ("nsPrefix", pkg.nsPrefix)]
        if root:
            attrs = [
                ("xmi:version", "2.0"),
                ("xmlns:xmi", XMI_NS),
                ("xmlns:xsi", XSI_NS),
                ("xmlns:ecore", ECORE_NS),
                *attrs,
            ]
        elif typed:
            attrs.insert(0, ("xsi:type", "ecore:EPackage"))
        attrs = [(k, v) for k, v in attrs if v is not None]
        self.element(
            tag,
            attrs,
            [
                self.annotations_part(pkg),
                (list(pkg.eClassifiers), partial(self.classifier, tag="eClassifiers")),
                (list(pkg.eSubpackages), partial(self.package, tag="eSubpackages")),
            ],
        )

    def annotation(self, a: EAnnotation, tag: str, typed: bool = False) -> None:
        attrs = [("xsi:type", "ecore:EAnnotation")] if typed else []
        if a.source is not None:
            attrs.append(("source", a.source))
        if a.references:
            attrs.append(("references", " ".join(self.ref(r, typed=True) for r in a.references)))
        self.element(
            tag,
            attrs,
            [
                self.annotations_part(a),
                (list(a.details.items()), self.detail),
                (list(a.contents), self.content),
            ],
        )

    def detail(self, entry: tuple[Any, Any]) -> None:
        key, value = entry
        attrs = [("key", str(key))] if key is not None else []
        self.w.empty("details", attrs + ([("value", str(value))] if value is not None else []))

    def content(self, element: Any) -> None:
        """An element of an annotation's ``contents`` (any Ecore element, typed)."""
        if isinstance(element, EPackage):
            self.package(element, "contents", typed=True)
        elif isinstance(element, EClass | EDataType):
            self.classifier(element, "contents")
        elif isinstance(element, EAttribute | EReference):
            self.feature(element, "contents")
        elif isinstance(element, EOperation):
            self.operation(element, "contents", typed=True)
        elif isinstance(element, EAnnotation):
            self.annotation(element, "contents", typed=True)
        else:
            raise CfSerializationError(
                f"annotation contents of class {element.eClass.name} cannot be written", code="unsupported"
            )

    def classifier_attrs(self, c: Any) -> list[tuple[str, str]]:
        attrs = [("name", c.name)]
        if c.instanceClassName:
            attrs.append(("instanceClassName", c.instanceClassName))
        type_name = c.instanceTypeName if c.eIsSet("instanceTypeName") else None
        if type_name and type_name != c.instanceClassName:
            attrs.append(("instanceTypeName", type_name))
        return attrs

    def classifier(self, c: Any, tag: str) -> None:
        if isinstance(c, EClass):
            attrs = [
                ("xsi:type", "ecore:EClass"),
                *self.classifier_attrs(c),
                *_flag("abstract", c.abstract, False),
                *_flag("interface", c.interface, False),
            ]
            generic = self.generic_list(c.eGenericSuperTypes)
            if not generic and c.eSuperTypes:
                attrs.append(("eSuperTypes", " ".join(self.ref(s) for s in c.eSuperTypes)))
            self.element(
                tag,
                attrs,
                [
                    self.annotations_part(c),
                    (list(c.eTypeParameters), self.type_parameter),
                    (list(c.eOperations), partial(self.operation, tag="eOperations")),
                    (list(c.eStructuralFeatures), partial(self.feature, tag="eStructuralFeatures")),
                    (generic, partial(self.generic, tag="eGenericSuperTypes")),
                ],
            )
            return
        kind = "ecore:EEnum" if isinstance(c, EEnum) else "ecore:EDataType"
        attrs = [("xsi:type", kind), *self.classifier_attrs(c), *_emf_flag(c, "serializable")]
        self.element(
            tag,
            attrs,
            [
                self.annotations_part(c),
                (list(c.eTypeParameters), self.type_parameter),
                (list(c.eLiterals) if isinstance(c, EEnum) else [], self.literal),
            ],
        )

    def generic_list(self, generics: Any) -> list[Any]:
        """The generic form of a list, when any item needs it (EMF: then all of them)."""
        items = list(generics)
        return items if any(not _is_simple(g) for g in items) else []

    def type_parameter(self, parameter: ETypeParameter) -> None:
        self.element(
            "eTypeParameters",
            [("name", parameter.name)] if parameter.name is not None else [],
            [
                self.annotations_part(parameter),
                (list(parameter.eBounds), partial(self.generic, tag="eBounds")),
            ],
        )

    def generic(self, g: Any, tag: str) -> None:
        attrs: list[tuple[str, str]] = []
        if g.eTypeParameter is not None:
            attrs.append(("eTypeParameter", self.ref(g.eTypeParameter)))
        if g.eClassifier is not None:
            attrs.append(("eClassifier", self.ref(g.eClassifier, typed=True)))
        self.element(
            tag,
            attrs,
            [
                (_present(g.eUpperBound), partial(self.generic, tag="eUpperBound")),
                (list(g.eTypeArguments), partial(self.generic, tag="eTypeArguments")),
                (_present(g.eLowerBound), partial(self.generic, tag="eLowerBound")),
            ],
        )

    def literal(self, lit: EEnumLiteral) -> None:
        attrs = [("name", lit.name)]
        if lit.value:
            attrs.append(("value", str(lit.value)))
        if lit.literal is not None:
            attrs.append(("literal", lit.literal))
        self.element("eLiterals", attrs, [self.annotations_part(lit)])

    def typed_attrs(self, f: Any) -> tuple[list[tuple[str, str]], _Part]:
        """A typed element's own attributes up to ``eType``, and the part that writes its
        generic type when that must be an element."""
        attrs = [("name", f.name), *_flag("ordered", f.ordered, True), *_flag("unique", f.unique, True)]
        if f.lowerBound:
            attrs.append(("lowerBound", str(f.lowerBound)))
        if f.upperBound != 1:
            attrs.append(("upperBound", str(f.upperBound)))
        generic = f.eGenericType
        write = partial(self.generic, tag="eGenericType")
        if generic is not None and not _is_simple(generic):
            return attrs, ([generic], write)
        etype = generic.eClassifier if generic is not None else f.eType
        if etype is not None:
            attrs.append(("eType", self.ref(etype, typed=True)))
        return attrs, ([], write)

    def feature(self, f: Any, tag: str) -> None:
        kind = "ecore:EAttribute" if isinstance(f, EAttribute) else "ecore:EReference"
        attrs, generic = self.typed_attrs(f)
        attrs = [
            ("xsi:type", kind),
            *attrs,
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
            attrs += _emf_flag(f, "resolveProxies")
            if f.eOpposite is not None:
                attrs.append(("eOpposite", self.ref(f.eOpposite)))
        self.element(tag, attrs, [self.annotations_part(f), generic])

    def operation(self, op: EOperation, tag: str, typed: bool = False) -> None:
        attrs, generic = self.typed_attrs(op)
        if typed:
            attrs.insert(0, ("xsi:type", "ecore:EOperation"))
        generic_exceptions = self.generic_list(op.eGenericExceptions)
        if not generic_exceptions and op.eExceptions:
            attrs.append(("eExceptions", " ".join(self.ref(e, typed=True) for e in op.eExceptions)))
        self.element(
            tag,
            attrs,
            [
                self.annotations_part(op),
                generic,
                (list(op.eTypeParameters), self.type_parameter),
                (list(op.eParameters), self.parameter),
                (generic_exceptions, partial(self.generic, tag="eGenericExceptions")),
            ],
        )

    def parameter(self, p: EParameter) -> None:
        attrs, generic = self.typed_attrs(p)
        self.element("eParameters", attrs, [self.annotations_part(p), generic])

    def ref(self, target: Any, typed: bool = False) -> str:
        """A reference to *target*: ``#<fragment>`` in this file, ``<nsURI>#<fragment>``
        to another package (with EMF's ``ecore:EClass`` prefix where the type is open)."""
        fragment = ecorepaths.fragment_of(target)
        root = ecorepaths.root_of(target)
        if root is self.root:
            return f"#{fragment}"
        nsuri = getattr(root, "nsURI", None)
        text = f"{nsuri}#{fragment}"
        if typed:
            return f"ecore:{target.eClass.name} {text}"
        return text


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


# Ecore's cross-references (never containments): what an element names by attribute, or
# by a child element with an ``href`` (``<eType xsi:type="ecore:EDataType" href="…"/>``,
# as EMF writes them without its encoded attribute style).
REFERENCE_FEATURES = (
    "eType",
    "eSuperTypes",
    "eOpposite",
    "eKeys",
    "eClassifier",
    "eTypeParameter",
    "eExceptions",
    "references",
)


def inline_hrefs(tree: etree._ElementTree) -> etree._ElementTree:
    """*tree* with every reference written as an ``href`` element moved into its
    parent's attribute of that name (appended, in order): the one form the reader and
    the importer read. A child that also has elements of its own is left as it is."""
    for el in list(tree.getroot().iter(*REFERENCE_FEATURES)):
        href = el.get("href")
        parent = el.getparent()
        if href is None or parent is None or len(el):
            continue
        before = parent.get(el.tag)
        parent.set(el.tag, f"{before} {href}" if before else href)
        parent.remove(el)
    return tree


def _read_tree(tree: etree._ElementTree, name: str, resource_set: ResourceSet | None) -> Document:
    rset = resource_set if resource_set is not None else ResourceSet()
    root = inline_hrefs(tree).getroot()
    elements = list(root) if root.tag == f"{{{XMI_NS}}}XMI" else [root]
    reader = _Reader(name, rset)
    packages = []
    for el in elements:
        if not isinstance(el.tag, str):
            continue
        if el.tag != f"{{{ECORE_NS}}}EPackage":
            raise reader.fail(el, f"expected an EPackage, found <{el.tag}>")
        pkg = reader.package(el)
        reader.roots.append(pkg)
        reader.root = None
        packages.append(pkg)
    register_packages(rset, packages)
    reader.resolve()
    resource = attach(rset, name, packages)
    return Document(list(packages), {}, resource)


# (element, object, the attribute that names the target(s), how to set what it names,
# the root package of the element: where ``#//X`` is looked up)
_Pending = tuple[etree._Element, Any, str, Callable[[Any, list[Any]], None], Any]
_TYPED_KINDS = {
    "ecore:EClass": "EClass",
    "ecore:EDataType": "EDataType",
    "ecore:EEnum": "EEnum",
    "ecore:EAttribute": "EAttribute",
    "ecore:EReference": "EReference",
    "ecore:EOperation": "EOperation",
    "ecore:EAnnotation": "EAnnotation",
    "ecore:EPackage": "EPackage",
}


def _bool(el: etree._Element, name: str, default: bool) -> bool:
    value = el.get(name)
    return default if value is None else value.strip() == "true"


class _Reader:
    def __init__(self, name: str, rset: ResourceSet) -> None:
        self.name = name
        self.rset = rset
        self.roots: list[EPackage] = []
        self.root: EPackage | None = None  # the root package being read
        self.pending: list[_Pending] = []
        self.datatypes: list[EDataType] = []
        self.attributes: list[EAttribute] = []
        self.erasures: list[tuple[Any, EGenericType]] = []  # after every reference is set
        self.raw_types: list[tuple[Any, EGenericType]] = []  # (eSuperTypes/eExceptions, generic)

    def fail(self, el: etree._Element, message: str) -> CfSerializationError:
        line = el.sourceline or 1
        return CfSerializationError(message, Span(self.name, line, 1, line, 2), code="bad-ecore")

    def later(
        self, el: etree._Element, obj: Any, attribute: str, apply: Callable[[Any, list[Any]], None]
    ) -> None:
        if el.get(attribute) is not None:
            self.pending.append((el, obj, attribute, apply, self.root))

    def children(
        self, el: etree._Element, handlers: dict[str, Callable[[etree._Element], None]], what: str
    ) -> None:
        for child in el:
            if not isinstance(child.tag, str):
                continue  # comments and processing instructions
            handler = handlers.get(child.tag)
            if handler is None:
                raise self.fail(child, f"unsupported element <{child.tag}> in {what}")
            handler(child)

    def integer(self, el: etree._Element, name: str, default: int) -> int:
        value = el.get(name)
        if value is None:
            return default
        try:
            return int(value.strip())
        except ValueError:
            raise self.fail(el, f"{name}={value!r} is not an integer") from None

    # -- elements

    def package(self, el: etree._Element, parent: EPackage | None = None) -> EPackage:
        pkg = EPackage(el.get("name"), nsURI=el.get("nsURI"), nsPrefix=el.get("nsPrefix"))
        if self.root is None:
            self.root = pkg
        if parent is not None:
            parent.eSubpackages.append(pkg)
        self.children(
            el,
            {
                "eAnnotations": lambda c: pkg.eAnnotations.append(self.annotation(c)),
                "eClassifiers": lambda c: pkg.eClassifiers.append(self.classifier(c)),
                "eSubpackages": lambda c: self.package(c, pkg),
            },
            f"EPackage {pkg.name}",
        )
        return pkg

    def annotation(self, el: etree._Element) -> EAnnotation:
        a = EAnnotation(el.get("source"))
        self.later(el, a, "references", lambda obj, found: obj.references.extend(found))
        self.children(
            el,
            {
                "details": lambda d: a.details.__setitem__(d.get("key"), d.get("value")),
                "eAnnotations": lambda c: a.eAnnotations.append(self.annotation(c)),
                "contents": lambda c: a.contents.append(self.content(c)),
            },
            "EAnnotation",
        )
        return a

    def content(self, el: etree._Element) -> Any:
        kind = _TYPED_KINDS.get(el.get(_XSI_TYPE) or "")
        if kind in ("EClass", "EDataType", "EEnum"):
            return self.classifier(el)
        if kind in ("EAttribute", "EReference"):
            return self.feature(el)
        if kind == "EOperation":
            return self.operation(el)
        if kind == "EAnnotation":
            return self.annotation(el)
        if kind == "EPackage":
            return self.package(el)
        raise self.fail(el, f"unsupported annotation contents of type {el.get(_XSI_TYPE)!r}")

    def classifier_common(self, el: etree._Element, c: Any) -> dict[str, Callable[[etree._Element], None]]:
        if el.get("instanceTypeName") is not None:
            c.instanceTypeName = el.get("instanceTypeName")
        return {
            "eAnnotations": lambda a: c.eAnnotations.append(self.annotation(a)),
            "eTypeParameters": lambda p: c.eTypeParameters.append(self.type_parameter(p)),
        }

    def classifier(self, el: etree._Element) -> Any:
        kind = el.get(_XSI_TYPE)
        name = el.get("name")
        c: Any
        if kind == "ecore:EClass":
            c = EClass(name, abstract=_bool(el, "abstract", False))
            c.interface = _bool(el, "interface", False)
            if el.get("instanceClassName") is not None:
                c.instanceClassName = el.get("instanceClassName")
            handlers = self.classifier_common(el, c)
            handlers["eOperations"] = lambda o: ecorepaths.add_operation(c, self.operation(o))
            handlers["eStructuralFeatures"] = lambda f: c.eStructuralFeatures.append(self.feature(f))
            handlers["eGenericSuperTypes"] = lambda g: self.generic_supertype(c, g)
            self.later(el, c, "eSuperTypes", lambda obj, found: obj.eSuperTypes.extend(found))
            self.children(el, handlers, f"class {name}")
            return c
        if kind == "ecore:EEnum":
            c = EEnum(name)
        elif kind == "ecore:EDataType":
            c = EDataType(name, instanceClassName=el.get("instanceClassName"))
        else:
            raise self.fail(el, f"unsupported classifier type {kind!r}")
        if el.get("instanceClassName") is not None:
            c.instanceClassName = el.get("instanceClassName")
        if el.get("serializable") is not None:
            c.serializable = _bool(el, "serializable", True)
        handlers = self.classifier_common(el, c)
        if isinstance(c, EEnum):
            handlers["eLiterals"] = lambda lit: c.eLiterals.append(self.literal(lit))
        self.children(el, handlers, f"data type {name}")
        self.datatypes.append(c)
        return c

    def literal(self, el: etree._Element) -> EEnumLiteral:
        lit = EEnumLiteral(el.get("name"), value=self.integer(el, "value", 0))
        if el.get("literal") is not None:
            lit.literal = el.get("literal")
        self.children(el, {"eAnnotations": lambda a: lit.eAnnotations.append(self.annotation(a))}, "literal")
        return lit

    def type_parameter(self, el: etree._Element) -> ETypeParameter:
        parameter = ETypeParameter(el.get("name"))
        self.children(
            el,
            {
                "eAnnotations": lambda a: parameter.eAnnotations.append(self.annotation(a)),
                "eBounds": lambda g: parameter.eBounds.append(self.generic(g)),
            },
            f"type parameter {parameter.name}",
        )
        return parameter

    def generic(self, el: etree._Element) -> EGenericType:
        g = EGenericType()
        self.later(el, g, "eClassifier", lambda obj, found: setattr(obj, "eClassifier", found[0]))
        self.later(el, g, "eTypeParameter", lambda obj, found: setattr(obj, "eTypeParameter", found[0]))
        self.children(
            el,
            {
                "eTypeArguments": lambda a: g.eTypeArguments.append(self.generic(a)),
                "eUpperBound": lambda b: setattr(g, "eUpperBound", self.generic(b)),
                "eLowerBound": lambda b: setattr(g, "eLowerBound", self.generic(b)),
            },
            "generic type",
        )
        return g

    def generic_supertype(self, c: EClass, el: etree._Element) -> None:
        g = self.generic(el)
        c.eGenericSuperTypes.append(g)
        # the raw supertype, once the generic type's classifier is known
        self.raw_types.append((c.eSuperTypes, g))

    def typed(self, el: etree._Element, f: Any) -> dict[str, Callable[[etree._Element], None]]:
        """Bounds, order, uniqueness and type of a typed element; its child handlers."""
        f.ordered = _bool(el, "ordered", True)
        f.unique = _bool(el, "unique", True)
        f.lowerBound = self.integer(el, "lowerBound", 0)
        f.upperBound = self.integer(el, "upperBound", 1)
        self.later(el, f, "eType", lambda obj, found: setattr(obj, "eType", found[0]))

        def generic_type(child: etree._Element) -> None:
            g = self.generic(child)
            f.eGenericType = g
            self.erasures.append((f, g))

        return {
            "eAnnotations": lambda a: f.eAnnotations.append(self.annotation(a)),
            "eGenericType": generic_type,
        }

    def feature(self, el: etree._Element) -> Any:
        kind = el.get(_XSI_TYPE)
        name = el.get("name")
        if kind == "ecore:EAttribute":
            f: Any = EAttribute(name, iD=_bool(el, "iD", False))
            self.attributes.append(f)
        elif kind == "ecore:EReference":
            f = EReference(name, containment=_bool(el, "containment", False))
            if el.get("resolveProxies") is not None:
                f.resolveProxies = _bool(el, "resolveProxies", True)
            self.later(el, f, "eOpposite", lambda obj, found: setattr(obj, "eOpposite", found[0]))
            if el.get("eKeys") is not None:
                raise self.fail(el, f"reference {name}: eKeys cannot be kept (PyEcore has no such feature)")
        else:
            raise self.fail(el, f"unsupported feature type {kind!r}")
        handlers = self.typed(el, f)
        f.changeable = _bool(el, "changeable", True)
        for flag in ("volatile", "transient", "unsettable", "derived"):
            setattr(f, flag, _bool(el, flag, False))
        if el.get("defaultValueLiteral") is not None:
            f.defaultValueLiteral = el.get("defaultValueLiteral")
        self.children(el, handlers, f"feature {name}")
        return f

    def operation(self, el: etree._Element) -> EOperation:
        op = EOperation(el.get("name"))
        handlers = self.typed(el, op)
        handlers["eTypeParameters"] = lambda p: op.eTypeParameters.append(self.type_parameter(p))
        handlers["eParameters"] = lambda p: op.eParameters.append(self.parameter(p))
        handlers["eGenericExceptions"] = lambda g: self.generic_exception(op, g)
        self.later(el, op, "eExceptions", lambda obj, found: obj.eExceptions.extend(found))
        self.children(el, handlers, f"operation {op.name}")
        return op

    def generic_exception(self, op: EOperation, el: etree._Element) -> None:
        g = self.generic(el)
        op.eGenericExceptions.append(g)
        self.raw_types.append((op.eExceptions, g))

    def parameter(self, el: etree._Element) -> EParameter:
        p = EParameter(el.get("name"))
        self.children(el, self.typed(el, p), f"parameter {p.name}")
        return p

    # -- references

    def resolve(self) -> None:
        for dt in self.datatypes:  # first: features copy their type's default
            datatypes.make_faithful(dt)
        for el, obj, attribute, apply, root in self.pending:
            targets = [self.lookup(el, token, root) for token in reference_tokens(el.get(attribute))]
            if targets:
                apply(obj, targets)
        for raw, generic in self.raw_types:  # the raw supertypes and exceptions
            if generic.eClassifier is not None:
                raw.append(generic.eClassifier)
        for typed, generic in self.erasures:
            erase(typed, generic)
        for f in self.attributes:
            if f.default_value is None and isinstance(f.eType, EDataType):
                f.default_value = f.eType.default_value

    def lookup(self, el: etree._Element, ref: str, root: Any) -> Any:
        """Resolve ``#//X`` (in *root*, the package the reference is written in),
        ``<nsURI>#//X`` (the type prefix is a separate token), or ``<file>#//X`` (EMF's
        re-saves name another file of the resource set that way)."""
        uri, _, fragment = ref.partition("#")
        if uri:
            found = self.external(uri, fragment)
        elif fragment[1:2].isdigit():  # EMF's "/1/String" in a file of several roots
            found = ecorepaths.resolve_in(self.roots, fragment)
        else:
            found = ecorepaths.resolve(root, fragment)
        if found is None:
            raise self.fail(el, f"unresolved reference {ref!r}")
        return found

    def external(self, uri: str, fragment: str) -> Any:
        registered = local_registry(self.rset).get(uri) or self.package_in_file(uri)
        if registered is not None and fragment[1:2].isdigit():  # "/1/String": a root of that file
            resource = ecorepaths.root_of(registered).eResource
            return ecorepaths.resolve_in(list(resource.contents) if resource else [registered], fragment)
        if registered is not None:
            return ecorepaths.resolve(ecorepaths.root_of(registered), fragment) or ecorepaths.resolve(
                registered, fragment
            )
        if uri == ECORE_NS:
            return ecore_element(fragment)
        return None

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


def reference_tokens(value: str) -> list[str]:
    """The references in an attribute's value, each as ``[uri]#fragment``. EMF writes one
    as ``#//X`` or ``other#//X`` (its encoded attribute style, as in `.ecore` files), as
    the bare fragment ``//X`` (the plain XMI style, as when a metamodel is saved as
    ``.xmi``), and may put the target's type before it (``ecore:EDataType uri#//X``), which
    names nothing. Any other token is kept as written, so it fails as an unresolved
    reference instead of being dropped."""
    tokens = value.split()
    found = []
    for index, token in enumerate(tokens):
        if "#" in token:
            found.append(token)
        elif token.startswith("/"):
            found.append("#" + token)
        elif ":" in token and index + 1 < len(tokens):
            continue  # the type before a reference
        else:
            found.append(token)
    return found


def erase(typed: Any, generic: EGenericType) -> None:
    """A typed element's raw type from its generic type (EMF's erasure): the classifier,
    or for a type parameter the classifier of its first bound (else none)."""
    if generic.eClassifier is not None:
        typed.eType = generic.eClassifier
        return
    parameter = generic.eTypeParameter
    bounds = list(parameter.eBounds) if parameter is not None else []
    if bounds and bounds[0].eClassifier is not None:
        typed.eType = bounds[0].eClassifier
