"""Ecore carried through ``.cf``: the ``#@ecore`` comments ``ecore import`` writes and
`lift` reads back, so that ``.ecore → .cf → .ecore`` gives the same metamodel.

The notation (docs/metamodel.md, "Ecore carried through .cf"): a comment line
``#@ecore {JSON}`` directly above a declaration (entity, attribute, relation, typedef,
enum) — other comments and blank lines may stand between — and ``#@ecore-package
{JSON}`` lines at the top of a namespace file hold, as one JSON object each, the Ecore
form of that declaration where ``.cf`` has no construct for it: its exact name, flags,
bounds, data type (``EInt`` stays ``EInt``), generic type, type parameters,
operations, generic supertypes, annotations; for a package its nsURI, nsPrefix, the
classifiers ``.cf`` does not declare (data types used as primitives) and the original
order of classifiers, subpackages and features. Long texts continue on further
``#@ecore`` lines (joined). Keys are Ecore's feature names; a key left out has EMF's
default; references are ``<nsURI of the root package>#<EMF fragment>``.

A comment is never code: JSON is written with every non-ASCII and control character
escaped, so a pragma is one comment line whatever a metamodel's strings hold.

Input (encode): elements of a read metamodel. Output: JSON texts. Input (`Carrier`):
the lifted packages and the program's pragmas. Output: the packages changed in place to
the carried form; every carried reference resolved (among the lifted packages, then
Ecore's own), or a `CfSemanticError` (``bad-ecore-pragma``) located at the pragma.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

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

from cfmodel.errors import CfSemanticError, Span
from cfmodel.serializers import datatypes, ecorepaths
from cfmodel.serializers import ecore as ecore_format
from cfmodel.serializers.base import ECORE_NS

PRAGMA = "#@ecore"
HIDES = "http://cfmodel.org/hides"  # lift's annotation of an attribute hiding a relation end
PACKAGE_PRAGMA = "#@ecore-package"
MAX_LINE = 4000  # a longer text continues on the next #@ecore line

# Scalar features per kind, with EMF's default (left out of the JSON when equal)
_TYPED = (("ordered", True), ("unique", True), ("lowerBound", 0), ("upperBound", 1))
_STRUCTURAL = (
    *_TYPED,
    ("changeable", True),
    ("volatile", False),
    ("transient", False),
    ("defaultValueLiteral", None),
    ("unsettable", False),
    ("derived", False),
)
_SCALARS: dict[str, tuple[tuple[str, Any], ...]] = {
    "EPackage": (("nsURI", None), ("nsPrefix", None)),
    "EClass": (("instanceClassName", None), ("abstract", False), ("interface", False)),
    "EDataType": (("instanceClassName", None), ("serializable", True)),
    "EEnum": (("instanceClassName", None), ("serializable", True)),
    "EAttribute": (*_STRUCTURAL, ("iD", False)),
    "EReference": (*_STRUCTURAL, ("containment", False), ("resolveProxies", True)),
    "EOperation": _TYPED,
    "EParameter": _TYPED,
    "ETypeParameter": (),
    "EEnumLiteral": (("value", 0), ("literal", None)),
    "EAnnotation": (),
}
_EMF_TRUE = frozenset({"resolveProxies", "serializable"})  # PyEcore's default is false
_KINDS: dict[str, type] = {
    "EPackage": EPackage,
    "EClass": EClass,
    "EDataType": EDataType,
    "EEnum": EEnum,
    "EAttribute": EAttribute,
    "EReference": EReference,
    "EOperation": EOperation,
    "EParameter": EParameter,
    "ETypeParameter": ETypeParameter,
    "EEnumLiteral": EEnumLiteral,
    "EAnnotation": EAnnotation,
}


KEYWORDS = frozenset(
    [
        "typedef",
        "as",
        "entity",
        "extends",
        "end",
        "in",
        "implementation",
        "for",
        "matching",
        "index",
        "implement",
        "using",
        "when",
        "and",
        "or",
        "not",
        "true",
        "false",
        "import",
        "is",
        "defined",
        "null",
        "undef",
        "parents",
        "if",
        "else",
        "elif",
        "enum",
        "include",
    ]
)


def safe_name(name: str) -> str:
    """*name* as a ``.cf`` name: other characters as ``_``, a ``_`` in front of a digit,
    a ``_`` after a keyword (``end`` is ``end_``)."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name) or "_"
    if not (text[:1].isalpha() or text[:1] == "_"):
        text = "_" + text
    return text + "_" if text in KEYWORDS else text


def cf_name(name: str, entity: bool = False) -> str:
    """The ``.cf`` name ``ecore import`` gives an Ecore name (an entity's is capitalized)."""
    if entity and not name[:1].isupper():
        name = name[:1].upper() + name[1:]
    return safe_name(name)


def hiding_name(feature: Any) -> str | None:
    """The ``.cf`` name of an attribute that hides a relation end its class inherits
    (lift names it ``<name>_`` and records *name* in a `HIDES` annotation): that name,
    when ``.cf`` can give it back here (a plain name, an inherited relation end of that
    name, no own feature of it); else None."""
    annotation = feature.getEAnnotation(HIDES) if isinstance(feature, EAttribute) else None
    name = annotation.details.get("name") if annotation is not None else None
    owner = feature.eContainingClass
    if not isinstance(name, str) or safe_name(name) != name or owner is None or name == feature.name:
        return None
    if any(f.name == name for f in owner.eStructuralFeatures):
        return None
    inherited = (f for parent in owner.eAllSuperTypes() for f in parent.eStructuralFeatures)
    return name if any(isinstance(f, EReference) and f.name == name for f in inherited) else None


def carried_hiding_name(data: dict[str, Any]) -> str | None:
    """The name a carried `HIDES` annotation gives (the ``.cf`` name of the attribute)."""
    for annotation in data.get("eAnnotations") or ():
        if isinstance(annotation, dict) and annotation.get("source") == HIDES:
            for pair in annotation.get("details") or ():
                if (
                    isinstance(pair, list)
                    and len(pair) == 2
                    and pair[0] == "name"
                    and isinstance(pair[1], str)
                ):
                    return pair[1]
    return None


def kind_of(element: Any) -> str:
    return str(element.eClass.name)


# ---------------------------------------------------------------------- encoding


def ref(target: Any, home: Any = None) -> str:
    """``#<fragment>`` for an element under *home* (the root package the pragma is in),
    else ``<nsURI of its root package>#<fragment>``."""
    root = ecorepaths.root_of(target)
    fragment = ecorepaths.fragment_of(target)
    return f"#{fragment}" if root is home and home is not None else f"{getattr(root, 'nsURI', '')}#{fragment}"


def _scalar(element: Any, name: str) -> Any:
    if name in _EMF_TRUE:
        return bool(getattr(element, name)) if element.eIsSet(name) else True
    if name == "defaultValueLiteral":
        return getattr(element, name, None)
    return getattr(element, name)


def emf_resolves_proxies(reference: Any) -> bool:
    """``resolveProxies`` as EMF has it (PyEcore's own default is false)."""
    return bool(_scalar(reference, "resolveProxies"))


def emf_serializable(datatype: Any) -> bool:
    """``serializable`` as EMF has it (PyEcore's own default is false)."""
    return bool(_scalar(datatype, "serializable"))


class Encoder:
    """JSON forms of elements, references relative to *home* (a root package)."""

    def __init__(self, home: Any) -> None:
        self.home = home

    def ref(self, target: Any) -> str:
        return ref(target, self.home)

    def generic(self, g: Any) -> Any:
        """A generic type: a plain reference when it is just a classifier."""
        out: dict[str, Any] = {}
        if g.eClassifier is not None:
            out["eClassifier"] = self.ref(g.eClassifier)
        if g.eTypeParameter is not None:
            out["eTypeParameter"] = self.ref(g.eTypeParameter)
        if g.eTypeArguments:
            out["eTypeArguments"] = [self.generic(a) for a in g.eTypeArguments]
        if g.eUpperBound is not None:
            out["eUpperBound"] = self.generic(g.eUpperBound)
        if g.eLowerBound is not None:
            out["eLowerBound"] = self.generic(g.eLowerBound)
        return out["eClassifier"] if set(out) == {"eClassifier"} else out

    def type_of(self, typed: Any) -> Any:
        if typed.eGenericType is not None:
            return self.generic(typed.eGenericType)
        return self.ref(typed.eType) if typed.eType is not None else None

    def generics(self, generic: Iterable[Any], raw: Iterable[Any]) -> list[Any]:
        items = list(generic)
        return [self.generic(g) for g in items] if items else [self.ref(c) for c in raw]

    def annotation(self, a: EAnnotation) -> dict[str, Any]:
        out: dict[str, Any] = {"source": a.source}
        if a.details:
            out["details"] = [[k, v] for k, v in a.details.items()]
        if a.eAnnotations:
            out["eAnnotations"] = [self.annotation(x) for x in a.eAnnotations]
        if a.contents:
            out["contents"] = [self.encode(x) for x in a.contents]
        if a.references:
            out["references"] = [self.ref(x) for x in a.references]
        return out

    def encode(self, element: Any, own_only: bool = False) -> dict[str, Any]:
        """The JSON form of *element*. *own_only*: the form of a declaration of ``.cf``:
        without its kind (the declaration says it) and without what ``.cf`` declares
        itself (a class's features, a package's classifiers and subpackages)."""
        kind = kind_of(element)
        out: dict[str, Any] = {} if own_only else {"eClass": kind}
        if kind == "EAnnotation":
            return {**out, **self.annotation(element)}
        if getattr(element, "name", None) is not None:
            out["name"] = element.name
        for name, default in _SCALARS.get(kind, ()):
            value = _scalar(element, name)
            if value != default or type(value) is not type(default):
                out[name] = value
        if isinstance(element, EClass | EDataType):
            type_name = element.instanceTypeName if element.eIsSet("instanceTypeName") else None
            if type_name and type_name != element.instanceClassName:
                out["instanceTypeName"] = type_name
        if element.eAnnotations:
            out["eAnnotations"] = [self.annotation(a) for a in element.eAnnotations]
        if isinstance(element, EClass | EDataType | EOperation) and element.eTypeParameters:
            out["eTypeParameters"] = [self.encode(p) for p in element.eTypeParameters]
        if isinstance(element, ETypeParameter) and element.eBounds:
            out["eBounds"] = [self.generic(b) for b in element.eBounds]
        if isinstance(element, EAttribute | EReference | EOperation | EParameter):
            found = self.type_of(element)
            if found is not None:
                out["eGenericType"] = found
        if isinstance(element, EOperation):
            if element.eParameters:
                out["eParameters"] = [self.encode(p) for p in element.eParameters]
            exceptions = self.generics(element.eGenericExceptions, element.eExceptions)
            if exceptions:
                out["eGenericExceptions"] = exceptions
        if isinstance(element, EEnum):
            out["eLiterals"] = [self.encode(lit) for lit in element.eLiterals]
        if isinstance(element, EClass):
            out["eGenericSuperTypes"] = self.generics(element.eGenericSuperTypes, element.eSuperTypes)
            if element.eOperations:
                out["eOperations"] = [self.encode(o) for o in element.eOperations]
            if own_only:
                out["features"] = [f.name for f in element.eStructuralFeatures]
            else:
                out["eStructuralFeatures"] = [self.encode(f) for f in element.eStructuralFeatures]
        if isinstance(element, EReference) and element.eOpposite is not None and not own_only:
            out["eOpposite"] = self.ref(element.eOpposite)
        if isinstance(element, EPackage) and not own_only:
            out["eClassifiers"] = [self.encode(c) for c in element.eClassifiers]
            out["eSubpackages"] = [self.encode(sub) for sub in element.eSubpackages]
        return out


def encode(element: Any, own_only: bool = False) -> dict[str, Any]:
    """*element*'s JSON form, references relative to its own root package."""
    return Encoder(ecorepaths.root_of(element)).encode(element, own_only)


def encode_package(package: EPackage, hidden: list[Any]) -> dict[str, Any]:
    """A package's pragma: its own form, the classifiers ``.cf`` does not declare, and
    the original order of classifiers and subpackages."""
    encoder = Encoder(ecorepaths.root_of(package))
    out = encoder.encode(package, own_only=True)
    out["classifiers"] = [c.name for c in package.eClassifiers]
    out["subpackages"] = [s.name for s in package.eSubpackages]
    if hidden:
        out["hidden"] = [encoder.encode(c) for c in hidden]
    return out


# What a declaration's type says: taken from a pragma only while the declaration still
# says what it said when the pragma was written (its "cf" key)
TYPING = frozenset({"eGenericType", "lowerBound", "upperBound", "unique", "ordered", "defaultValueLiteral"})


def end_signature(target: str, lower: int, upper: int | None) -> str:
    """A relation end's target and multiplicity, as the pragma's "cf" key records them."""
    return f"{target} [{lower}:{'' if upper is None else upper}]"


def as_lifted(feature: Any, cf_type: str, cf_name: str) -> bool:
    """Whether lift makes exactly *feature* from its ``.cf`` declaration (then no pragma
    is needed): a plain ``string`` attribute, or a relation end, with bounds, order and
    uniqueness as ``.cf`` says them and nothing else."""
    if feature.name != cf_name or feature.eAnnotations or feature.eGenericType is not None:
        return False
    flags = (feature.changeable, not feature.volatile, not feature.transient, not feature.unsettable)
    if not all(flags) or feature.derived or not feature.ordered or _scalar(feature, "defaultValueLiteral"):
        return False
    if isinstance(feature, EReference):
        return not feature.containment and _scalar(feature, "resolveProxies") and feature.unique
    multi = cf_type.endswith("[]")
    etype = feature.eType
    plain_string = (
        etype is not None and etype.name == "EString" and getattr(etype.ePackage, "nsURI", "") == ECORE_NS
    )
    bounds = (0, -1) if multi else ((0, 1) if cf_type.endswith("?") else (1, 1))
    return (
        plain_string
        and cf_type.rstrip("?").removesuffix("[]") == "string"
        and not feature.iD
        and (feature.lowerBound, feature.upperBound) == bounds
        and feature.unique is not multi
    )


def pragma_lines(data: dict[str, Any], marker: str = PRAGMA) -> list[str]:
    """The comment lines that carry *data* (ASCII only: nothing can end a comment)."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return [f"{marker} {text[i : i + MAX_LINE]}" for i in range(0, len(text), MAX_LINE)]


# ---------------------------------------------------------------------- decoding


class Carrier:
    """Applies carried Ecore forms to lifted elements; resolves their references last.

    Use: `load` each pragma text (located), `apply_*` to the lifted element it belongs
    to, then `finish` once every package is complete.
    """

    def __init__(self) -> None:
        self.pending: list[tuple[str, Callable[[Any], None], Span | None, Any]] = []
        self.erasures: list[tuple[Any, EGenericType]] = []  # (typed element, its generic type)
        self.raw_types: list[tuple[Any, EGenericType]] = []  # (eSuperTypes/eExceptions, generic)
        self.orders: list[Callable[[], None]] = []
        self.span: Span | None = None
        self.home: Any = None  # the root package ``#//…`` references are in

    def load(self, text: str, span: Span, home: Any) -> dict[str, Any]:
        """The JSON object of a pragma in the package tree *home* (located errors for
        anything else)."""
        self.span = span
        self.home = home
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise self.error(f"the #@ecore comment is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise self.error("the #@ecore comment is not a JSON object")
        return data

    def error(self, message: str) -> CfSemanticError:
        return CfSemanticError(message, self.span, code="bad-ecore-pragma")

    # -- building elements

    def later(self, reference: Any, apply: Callable[[Any], None]) -> None:
        if not isinstance(reference, str):
            raise self.error(f"a reference must be a string, not {reference!r}")
        self.pending.append((reference, apply, self.span, self.home))

    def generic(self, data: Any) -> EGenericType:
        if isinstance(data, str):  # just a classifier
            data = {"eClassifier": data}
        if not isinstance(data, dict):
            raise self.error(f"a generic type must be an object, not {data!r}")
        g = EGenericType()
        if "eClassifier" in data:
            self.later(data["eClassifier"], lambda target: setattr(g, "eClassifier", target))
        if "eTypeParameter" in data:
            self.later(data["eTypeParameter"], lambda target: setattr(g, "eTypeParameter", target))
        for argument in self.items(data, "eTypeArguments"):
            g.eTypeArguments.append(self.generic(argument))
        if "eUpperBound" in data:
            g.eUpperBound = self.generic(data["eUpperBound"])
        if "eLowerBound" in data:
            g.eLowerBound = self.generic(data["eLowerBound"])
        return g

    def items(self, data: dict[str, Any], key: str) -> list[Any]:
        found = data.get(key, [])
        if not isinstance(found, list):
            raise self.error(f"{key} must be a list")
        return found

    def annotation(self, data: Any) -> EAnnotation:
        if not isinstance(data, dict):
            raise self.error(f"an annotation must be an object, not {data!r}")
        a = EAnnotation(self.text(data.get("source")))
        for pair in self.items(data, "details"):
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.error(f"an annotation detail must be a [key, value] pair, not {pair!r}")
            a.details[self.text(pair[0])] = self.text(pair[1])
        for nested in self.items(data, "eAnnotations"):
            a.eAnnotations.append(self.annotation(nested))
        for content in self.items(data, "contents"):
            a.contents.append(self.element(content))
        for reference in self.items(data, "references"):
            self.later(reference, a.references.append)
        return a

    def text(self, value: Any) -> str | None:
        if value is not None and not isinstance(value, str):
            raise self.error(f"expected a string, not {value!r}")
        return value

    def element(self, data: Any) -> Any:
        """A whole element (operation, parameter, data type, ...) from its JSON form."""
        if not isinstance(data, dict) or data.get("eClass") not in _KINDS:
            raise self.error(f"not an Ecore element: {str(data)[:80]!r}")
        kind = data["eClass"]
        if kind == "EAnnotation":
            return self.annotation(data)
        element = _KINDS[kind]()
        self.apply(element, data)
        for feature in self.items(data, "eStructuralFeatures"):
            element.eStructuralFeatures.append(self.element(feature))
        for classifier in self.items(data, "eClassifiers"):
            element.eClassifiers.append(self.element(classifier))
        for sub in self.items(data, "eSubpackages"):
            element.eSubpackages.append(self.element(sub))
        if "eOpposite" in data:
            self.later(data["eOpposite"], lambda target: setattr(element, "eOpposite", target))
        if isinstance(element, EDataType):
            datatypes.make_faithful(element)
        return element

    # -- applying to an element

    def apply(
        self, element: Any, data: dict[str, Any], name: bool = True, keep: frozenset[str] = frozenset()
    ) -> None:
        """Set what *data* carries on *element* (left-out keys: EMF's defaults); replace
        its annotations, type parameters, operations, literals and parameters; its type
        and supertypes once references resolve. *name*: take the carried name too;
        *keep*: keys whose value stays as lift made it (`TYPING` of a changed declaration)."""
        kind = kind_of(element)
        if name and "name" in data:
            element.name = self.text(data["name"])
        for key, default in _SCALARS.get(kind, ()):
            if key in keep:
                continue
            value = data.get(key, default)
            if key in ("nsURI", "nsPrefix") and key not in data:
                continue  # a package's own (lifted) value stays
            self.scalar(element, key, value, default)
        if isinstance(element, EClass | EDataType) and "instanceTypeName" in data:
            element.instanceTypeName = self.text(data["instanceTypeName"])
        annotations = [self.annotation(a) for a in self.items(data, "eAnnotations")]
        if isinstance(element, EClass):
            with ecorepaths.quiet(element):
                element.eAnnotations.clear()
                element.eAnnotations.extend(annotations)
        else:
            element.eAnnotations.clear()
            element.eAnnotations.extend(annotations)
        if isinstance(element, EClass | EDataType | EOperation):
            element.eTypeParameters.clear()
            for parameter in self.items(data, "eTypeParameters"):
                element.eTypeParameters.append(self.element(parameter))
        if isinstance(element, ETypeParameter):
            for bound in self.items(data, "eBounds"):
                element.eBounds.append(self.generic(bound))
        if (
            isinstance(element, EAttribute | EReference | EOperation | EParameter)
            and "eGenericType" in data
            and "eGenericType" not in keep
        ):
            self.typed(element, data["eGenericType"])
        if isinstance(element, EOperation):
            for parameter in self.items(data, "eParameters"):
                element.eParameters.append(self.element(parameter))
            for exception in self.items(data, "eGenericExceptions"):
                self.raw_generic(element.eGenericExceptions, element.eExceptions, exception)
        if isinstance(element, EEnum) and "eLiterals" in data:
            element.eLiterals.clear()
            for literal in self.items(data, "eLiterals"):
                element.eLiterals.append(self.element(literal))
        if isinstance(element, EClass):
            self.class_parts(element, data)

    def scalar(self, element: Any, key: str, value: Any, default: Any) -> None:
        if value is None:
            fits = default is None
        elif default is None:
            fits = isinstance(value, str)
        elif isinstance(default, bool):
            fits = isinstance(value, bool)
        else:
            fits = isinstance(value, int) and not isinstance(value, bool)
        if not fits:
            raise self.error(f"{key}: {value!r} is not a value of its type")
        if key == "defaultValueLiteral":
            element.defaultValueLiteral = value
            if value is None and isinstance(element, EAttribute):
                element.default_value = None
            return
        if key in _EMF_TRUE:
            if value is True and not element.eIsSet(key):
                return  # EMF's default: not said
        elif getattr(element, key, None) == value and type(getattr(element, key, None)) is type(value):
            return  # unchanged (PyEcore reacts to some settings, such as an enum's Java class)
        setattr(element, key, value)

    def typed(self, element: Any, data: Any) -> None:
        element.eType = None
        if isinstance(data, str):  # just a classifier
            element.eGenericType = None
            self.later(data, lambda target: setattr(element, "eType", target))
            return
        g = self.generic(data)
        element.eGenericType = g
        self.erasures.append((element, g))

    def raw_generic(self, generic_list: Any, raw_list: Any, data: Any) -> None:
        """One generic supertype or exception: the raw form always, the generic form
        only when it says more than the classifier."""
        if isinstance(data, str):  # just a classifier
            self.later(data, raw_list.append)
            return
        g = self.generic(data)
        generic_list.append(g)
        self.raw_types.append((raw_list, g))

    def class_parts(self, eclass: EClass, data: dict[str, Any]) -> None:
        if "eGenericSuperTypes" in data:
            eclass.eSuperTypes.clear()
            eclass.eGenericSuperTypes.clear()
            generic = [g for g in self.items(data, "eGenericSuperTypes") if not isinstance(g, str)]
            for supertype in self.items(data, "eGenericSuperTypes"):
                if generic:  # EMF: one non-plain supertype makes all of them generic
                    g = self.generic(supertype)
                    eclass.eGenericSuperTypes.append(g)
                    self.raw_types.append((eclass.eSuperTypes, g))
                else:
                    self.later(supertype, eclass.eSuperTypes.append)
        for operation in self.items(data, "eOperations"):
            ecorepaths.add_operation(eclass, self.element(operation))
        order = self.items(data, "features")
        if order:
            self.orders.append(lambda: _reorder(eclass.eStructuralFeatures, order, eclass))

    def apply_package(self, package: EPackage, data: dict[str, Any]) -> None:
        self.apply(package, data)
        for hidden in self.items(data, "hidden"):
            package.eClassifiers.append(self.element(hidden))
        classifiers, subpackages = self.items(data, "classifiers"), self.items(data, "subpackages")
        self.orders.append(lambda: _reorder(package.eClassifiers, classifiers))
        self.orders.append(lambda: _reorder(package.eSubpackages, subpackages))

    # -- the end

    def finish(self, roots: list[EPackage]) -> None:
        """Resolve every carried reference (lifted packages first, then Ecore's own) and
        restore the carried orders.

        Raises:
            CfSemanticError: a reference names nothing (``bad-ecore-pragma``).
        """
        by_uri = {root.nsURI: root for root in roots}
        for reference, apply, span, home in self.pending:
            uri, _, fragment = reference.partition("#")
            root = home if not uri else by_uri.get(uri)
            target = ecorepaths.resolve(root, fragment) if root is not None else None
            if target is None and uri == ECORE_NS:
                target = ecore_format.ecore_element(fragment)
            if target is None:
                self.span = span
                raise self.error(f"the #@ecore comment refers to {reference!r}, which is not in this program")
            apply(target)
        for raw, g in self.raw_types:
            if g.eClassifier is not None:
                raw.append(g.eClassifier)
        for typed, g in self.erasures:
            ecore_format.erase(typed, g)
        for reorder in self.orders:
            reorder()


def _reorder(collection: Any, names: list[Any], eclass: EClass | None = None) -> None:
    """Put the named items of *collection* first, in *names*' order (others after;
    a class's features are moved quietly: `ecorepaths.quiet`)."""
    position = {name: index for index, name in enumerate(names) if isinstance(name, str)}
    items = list(collection)
    ordered = sorted(items, key=lambda x: (position.get(x.name, len(position)), items.index(x)))
    if ordered == items:
        return
    if eclass is None:
        collection.clear()
        collection.extend(ordered)
        return
    with ecorepaths.quiet(eclass):
        collection.clear()
        collection.extend(ordered)
