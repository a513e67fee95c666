"""Lift: the linked program's definitions become the project's Ecore metamodel.

Input: a `LinkedProgram` (from `resolve`) and `LiftOptions`. Output: a `DomainMetamodel`:
one `EPackage` per namespace (a module's root namespace is a root package, its child
namespaces nest as ``eSubpackages``), one `EClass` per entity (every parent an
``eSuperType``; ``std::Entity`` at the root), one `EAttribute` per attribute, one
`EReference` per relation end (``eOpposite`` paired, bounds from the multiplicity), one
`EDataType` per value typedef, one `EEnum` per enum; indexes, docstrings and what Ecore
cannot say (typedef constraints, non-literal defaults, constructor typedefs) as
``EAnnotation``\\ s. The whole mapping, the nsURI scheme and every annotation source are
documented in docs/metamodel.md; this docstring keeps the rules the code relies on.

Guarantees: every package passes `cfmodel.serializers.validate.check_packages` (and so
loads in Eclipse EMF with no diagnostics); the same program gives the same packages,
features in the same order, so written ``.ecore`` files are byte-identical; source
spans stay in a side table (`DomainMetamodel.span_of`) unless ``LiftOptions.spans``
asks for ``http://cfmodel.org/source`` annotations.

A declaration with a ``#@ecore`` comment (written by ``ecore import`` for a metamodel
made for EMF) gets the Ecore form the comment carries, last (`ecore_carry`); the
`DomainMetamodel` still finds it by its cf name.

Rules that shape the result:

* nsURI ``<uri_base><namespace with / for ::>`` (default base
  ``http://cfmodel.org/model/``), nsPrefix the namespace with ``.`` for ``::`` (a ``_``
  in front when it would start with ``xml``), package name the namespace's last part.
* Attributes first, in declaration order; then references, by name (a relation end is
  a feature of its entity's class wherever the relation is declared, so the class must
  not depend on which file declares it). An attribute that re-declares an inherited one
  (to change its default) is no new feature: the class gets a defaults annotation.
* A relation that is its own inverse (``A.peers -- A.peers``) is one reference without
  ``eOpposite`` (EMF: "The opposite may not be its own opposite"), marked symmetric.
* An attribute named like a relation end its entity inherits hides that end (as in
  inmanta-core); Ecore needs distinct names among a class's features, so its EAttribute is
  named ``<name>_`` (``_2``, ...) and annotated `HIDES` with its cf name, which
  `DomainMetamodel.efeature` finds it by.
* A typedef's EDataType is renamed ``<name>_type`` (``_type2``, ...) when its name
  differs only in case from another classifier of the package (``ip::ip`` and
  ``ip::IP``); the annotation keeps the cf name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyecore.ecore import (
    EAnnotation,
    EAttribute,
    EBooleanObject,
    EClass,
    EDataType,
    EDoubleObject,
    EEnum,
    EEnumLiteral,
    ELongObject,
    EObject,
    EPackage,
    EReference,
    EString,
)
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSemanticError, CfUsageError, Span
from cfmodel.grammars import nodes
from cfmodel.metamodel.runtime.objects import build
from cfmodel.serializers import atomic, datatypes, ecorepaths
from cfmodel.serializers import ecore as ecore_format
from cfmodel.serializers.base import register_packages
from cfmodel.serializers.validate import check_packages
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.conditions import ConstantError, NotChecked, evaluate
from cfmodel.transforms.cf.ecore_carry import HIDES as CARRIED_HIDES
from cfmodel.transforms.cf.ecore_carry import TYPING, Carrier, carried_hiding_name, end_signature
from cfmodel.transforms.cf.ecore_carry import cf_name as carry_cf_name
from cfmodel.transforms.cf.facets import EXTENDED_METADATA, facets_of
from cfmodel.transforms.cf.unparse import to_source

DEFAULT_URI_BASE = "http://cfmodel.org/model/"

# Annotation sources (docs/metamodel.md)
GENMODEL = "http://www.eclipse.org/emf/2002/GenModel"  # detail "documentation": docstrings
NAMESPACE = "http://cfmodel.org/namespace"  # EPackage: "name" = the cf namespace
TYPE = "http://cfmodel.org/type"  # EAttribute: "type" = the cf type, when Ecore does not say it
DEFAULT = "http://cfmodel.org/default"  # EAttribute: "value" = a default that is no Ecore literal
DEFAULTS = "http://cfmodel.org/defaults"  # EClass: inherited attribute name -> its new default
TYPEDEF = "http://cfmodel.org/typedef"  # EDataType: "base", ["primitive"], "regex" | "condition", ["name"]
INDEX = "http://cfmodel.org/index"  # EClass: "1", "2", ... = "a, b" (the index properties)
RELATION = "http://cfmodel.org/relation"  # EReference: "annotations" (its expressions), "symmetric"
CONSTRUCTORS = "http://cfmodel.org/constructors"  # EPackage: typedef name -> "Entity(k=v)"
ENUM = "http://cfmodel.org/enum"  # EEnum: value -> its parent value (the "is" tree)
SHARED = "http://cfmodel.org/shared"  # generated abstract EClass: "attribute", "declared_by"
HIDES = CARRIED_HIDES  # EAttribute: "name" = its cf name, "relation" = the end it hides
SOURCE = "http://cfmodel.org/source"  # any element, only with LiftOptions(spans=True): "span"

# cf primitive -> (Ecore data type, Java class of a typedef built on it)
PRIMITIVE_TYPES: dict[str, tuple[EDataType, str]] = {
    "string": (EString, "java.lang.String"),
    "int": (ELongObject, "java.lang.Long"),
    "float": (EDoubleObject, "java.lang.Double"),
    "number": (EDoubleObject, "java.lang.Double"),
    "bool": (EBooleanObject, "java.lang.Boolean"),
    "dict": (EString, "java.lang.String"),
    "list": (EString, "java.lang.String"),
    "any": (EString, "java.lang.String"),
}
JSON_TYPES = frozenset({"dict", "list", "any"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True, slots=True)
class LiftOptions:
    """How to lift: the nsURI base, and whether source spans go into the packages."""

    uri_base: str = DEFAULT_URI_BASE
    spans: bool = False


def namespace_uri(namespace: str, base: str = DEFAULT_URI_BASE) -> str:
    """The nsURI of a namespace's package: ``<base><a>/<b>`` for ``a::b``."""
    return base + namespace.replace("::", "/")


def namespace_prefix(namespace: str) -> str:
    """The nsPrefix of a namespace's package: ``a.b`` for ``a::b`` (an XML NCName)."""
    prefix = namespace.replace("::", ".")
    return "_" + prefix if prefix.lower().startswith("xml") else prefix


def base_primitive(base: p.BaseType) -> p.Primitive | None:
    """The primitive at the bottom of a type (None for an enum)."""
    if isinstance(base, p.Primitive):
        return base
    if isinstance(base, p.Typedef):
        return base.base
    return None


def lift(program: p.LinkedProgram, options: LiftOptions | None = None) -> DomainMetamodel:
    """Lift *program* into its domain metamodel.

    Raises:
        CfSemanticError: the program cannot be expressed as valid Ecore (cannot happen for
            a program resolve accepted; kept as a guard).
    """
    return _Lifter(program, options or LiftOptions()).run()


# ---------------------------------------------------------------------- the result


class DomainMetamodel:
    """A project's derived metamodel: its packages and the lookups to reach into them.

    Works for a lifted program (`program` set) and for packages read from ``.ecore``
    files (`from_packages`; entity arguments are then qualified names).
    """

    def __init__(
        self,
        roots: list[EPackage],
        program: p.LinkedProgram | None = None,
        names: dict[int, str] | None = None,
    ) -> None:
        self.program = program
        self.roots = roots
        # cf names where the Ecore name differs (an element carried from .ecore: #@ecore)
        self._given = names or {}
        self.namespaces: dict[str, EPackage] = {}
        self._classes: dict[str, EClass] = {}
        self._classifiers: dict[str, Any] = {}
        self._names: dict[int, str] = {}
        self._spans: dict[int, Span] = {}
        self._entities: dict[int, p.EntityType] = {}
        for root in roots:
            self._index(root)

    @classmethod
    def from_packages(cls, roots: Iterable[EPackage]) -> DomainMetamodel:
        """A metamodel for packages read back from ``.ecore`` files."""
        return cls(sorted(roots, key=lambda pkg: pkg.name))

    def _index(self, package: EPackage) -> None:
        name = self._given.get(id(package)) or package_namespace(package)
        self.namespaces[name] = package
        self._names[id(package)] = name
        for classifier in package.eClassifiers:
            qualified = self._given.get(id(classifier)) or f"{name}::{classifier_name(classifier)}"
            self._classifiers[qualified] = classifier
            self._names[id(classifier)] = qualified
            if isinstance(classifier, EClass):
                self._classes[qualified] = classifier
        for sub in package.eSubpackages:
            self._index(sub)

    # -- packages

    @property
    def packages(self) -> list[EPackage]:
        """The root packages (one per module, child namespaces nested), by name."""
        return list(self.roots)

    def package(self, namespace: str) -> EPackage:
        """The package of a namespace (``web::services``)."""
        try:
            return self.namespaces[namespace]
        except KeyError:
            raise CfUsageError(f"no namespace {namespace!r} in this metamodel") from None

    # -- lookups

    def eclass(self, entity: p.EntityType | str) -> EClass:
        """The EClass of an entity (or of a qualified entity name)."""
        name = entity if isinstance(entity, str) else entity.qualified_name
        found = self._classes.get(name)
        if found is None:
            close = [n for n in self._classes if n.rpartition("::")[2] == name.rpartition("::")[2]]
            hint = f"; did you mean {', '.join(sorted(close))}?" if close else ""
            raise CfUsageError(f"no entity {name!r} in this metamodel{hint}")
        return found

    def efeature(self, entity: p.EntityType | str, name: str) -> Any:
        """An attribute or reference of an entity by its cf name, inherited ones included (an
        attribute that hides an inherited relation end is found by its `HIDES` name)."""
        eclass = self.eclass(entity)
        feature = None
        for candidate in eclass.eAllAttributes():
            annotation = candidate.getEAnnotation(HIDES)
            if annotation is not None and annotation.details.get("name") == name:
                feature = candidate
        if feature is None:
            feature = eclass.findEStructuralFeature(name)
        if feature is None:
            raise CfUsageError(f"{self.name_of(eclass)} has no attribute or relation {name!r}")
        return feature

    def eattribute(self, entity: p.EntityType | str, name: str) -> EAttribute:
        feature = self.efeature(entity, name)
        if not isinstance(feature, EAttribute):
            raise CfUsageError(f"{self.name_of(self.eclass(entity))}.{name} is a relation, not an attribute")
        return feature

    def ereference(self, entity: p.EntityType | str, name: str) -> EReference:
        feature = self.efeature(entity, name)
        if not isinstance(feature, EReference):
            raise CfUsageError(f"{self.name_of(self.eclass(entity))}.{name} is an attribute, not a relation")
        return feature

    def edatatype(self, typedef: p.Typedef | str) -> EDataType:
        """The EDataType of a value typedef (or of its qualified name)."""
        name = typedef if isinstance(typedef, str) else typedef.qualified_name
        found = self._classifiers.get(name)
        if not isinstance(found, EDataType) or isinstance(found, EEnum):
            raise CfUsageError(f"no typedef {name!r} in this metamodel")
        return found

    def eenum(self, enum: p.EnumType | str) -> EEnum:
        name = enum if isinstance(enum, str) else enum.qualified_name
        found = self._classifiers.get(name)
        if not isinstance(found, EEnum):
            raise CfUsageError(f"no enum {name!r} in this metamodel")
        return found

    def classifier(self, qualified_name: str) -> Any:
        """Any classifier by its cf qualified name (``web::port``, ``web::Server``)."""
        found = self._classifiers.get(qualified_name)
        if found is None:
            raise CfUsageError(f"no type {qualified_name!r} in this metamodel")
        return found

    def classes(self) -> list[EClass]:
        """Every EClass, packages in name order, classes in declaration order."""
        return list(self._classes.values())

    def name_of(self, element: Any) -> str:
        """The cf qualified name of a package or classifier of this metamodel."""
        found = self._names.get(id(element))
        if found is None:
            raise CfUsageError(f"{element!r} is not part of this metamodel")
        return found

    def entity_of(self, eclass: EClass) -> p.EntityType:
        """The entity an EClass was lifted from (lifted metamodels only)."""
        found = self._entities.get(id(eclass))
        if found is None:
            raise CfUsageError(f"{eclass.name} was not lifted from a program")
        return found

    def span_of(self, element: Any) -> Span | None:
        """Where a lifted element was defined (the side table; None when unknown)."""
        return self._spans.get(id(element))

    # -- values

    def to_ecore(self, feature: Any, value: Any) -> Any:
        """A cf value (one item of a many-valued feature) as the feature's Ecore value."""
        return to_ecore_value(feature, value)

    def from_ecore(self, feature: Any, value: Any) -> Any:
        return from_ecore_value(feature, value)

    def create(self, entity: p.EntityType | str, **values: Any) -> EObject:
        """A new instance of an entity, with attributes and relations set from cf values.

        Many-valued features take a list (added in order); relations take EObjects. The
        object is the runtime's (`cfmodel.metamodel.runtime.objects.build`), as the
        compiler's are; its values are set through PyEcore's setters (checked, with
        opposite ends).
        """
        obj = build(self.eclass(entity))
        for name, value in values.items():
            self.set(obj, name, value)
        return obj

    def set(self, obj: EObject, name: str, value: Any) -> None:
        """Set (many-valued: extend) a feature of *obj* from a cf value."""
        feature = obj.eClass.findEStructuralFeature(name)
        if feature is None:
            raise CfUsageError(f"{obj.eClass.name} has no attribute or relation {name!r}")
        if feature.many:
            items = value if isinstance(value, list | tuple) else [value]
            collection = obj.eGet(feature)
            for item in items:
                collection.append(to_ecore_value(feature, item) if isinstance(feature, EAttribute) else item)
        elif value is None:
            obj.eUnset(feature)
        else:
            obj.eSet(feature, to_ecore_value(feature, value) if isinstance(feature, EAttribute) else value)

    def get(self, obj: EObject, name: str) -> Any:
        """A feature's value as a cf value (lists for many-valued features)."""
        feature = obj.eClass.findEStructuralFeature(name)
        if feature is None:
            raise CfUsageError(f"{obj.eClass.name} has no attribute or relation {name!r}")
        value = obj.eGet(feature)
        if feature.many:
            return [from_ecore_value(feature, v) if isinstance(feature, EAttribute) else v for v in value]
        return from_ecore_value(feature, value) if isinstance(feature, EAttribute) else value

    # -- files

    def resource_set(self) -> ResourceSet:
        """A fresh ResourceSet with every package registered (to read instance files)."""
        rset = ResourceSet()
        register_packages(rset, self.roots)
        return rset

    def ecore_files(self) -> dict[str, bytes]:
        """``<root package>.ecore`` → its bytes, for every root package."""
        return {f"{root.name}.ecore": ecore_format.to_bytes(root) for root in self.roots}

    def write(self, directory: Path | str) -> list[Path]:
        """Write every root package to ``<directory>/<name>.ecore`` (all made before any is written)."""
        return atomic.write_files(directory, self.ecore_files(), owner="ecore export")


def package_namespace(package: EPackage) -> str:
    """The cf namespace of a package: its namespace annotation, else its path of names."""
    annotation = package.getEAnnotation(NAMESPACE)
    if annotation is not None and annotation.details.get("name"):
        return str(annotation.details["name"])
    names = [package.name]
    parent = package.eSuperPackage
    while parent is not None:
        names.append(parent.name)
        parent = parent.eSuperPackage
    return "::".join(reversed(names))


def classifier_name(classifier: Any) -> str:
    """The cf name of a classifier (a renamed typedef keeps its name in its annotation)."""
    annotation = classifier.getEAnnotation(TYPEDEF) if isinstance(classifier, EDataType) else None
    if annotation is not None and annotation.details.get("name"):
        return str(annotation.details["name"])
    return str(classifier.name)


def cf_type_of(feature: Any) -> str | None:
    """The cf type an attribute records in its type annotation (None: Ecore says it all)."""
    annotation = feature.getEAnnotation(TYPE)
    if annotation is None:
        return None
    found = annotation.details.get("type")
    return str(found) if found is not None else None


def json_kind(feature: Any) -> str | None:
    """``dict``/``list``/``any`` for an attribute whose values are JSON text, else None."""
    declared = cf_type_of(feature)
    if declared is not None:
        base = declared.rstrip("?").removesuffix("[]")
        if base in JSON_TYPES:
            return base
    etype = feature.eType
    if isinstance(etype, EDataType) and not isinstance(etype, EEnum):
        annotation = etype.getEAnnotation(TYPEDEF)
        if annotation is not None:
            primitive = str(annotation.details.get("primitive") or annotation.details.get("base", ""))
            if primitive in JSON_TYPES:
                return primitive
    return None


def to_ecore_value(feature: Any, value: Any) -> Any:
    """One cf value as an Ecore value of *feature*'s type.

    dict/list/any (and typedefs on them) become canonical JSON text; numbers for
    ``EDoubleObject``-like types become floats; enum values their `EEnumLiteral`.
    """
    etype = feature.eType
    if isinstance(etype, EEnum):
        if isinstance(value, EEnumLiteral):
            return value
        for literal in etype.eLiterals:
            if literal.literal == value or (literal.literal is None and literal.name == value):
                return literal
        raise CfUsageError(f"{value!r} is not a value of enum {etype.name}")
    if json_kind(feature) is not None:
        return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    if isinstance(etype, EDataType) and etype.eType is float and type(value) is int:
        return float(value)
    return value


def from_ecore_value(feature: Any, value: Any) -> Any:
    """The inverse of `to_ecore_value` (JSON text back to dicts and lists)."""
    if value is None:
        return None
    if isinstance(value, EEnumLiteral):
        return value.literal if value.literal is not None else value.name
    if json_kind(feature) is not None and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


# ---------------------------------------------------------------------- lifting


class _Lifter:
    def __init__(self, program: p.LinkedProgram, options: LiftOptions) -> None:
        self.program = program
        self.options = options
        self.packages: dict[str, EPackage] = {}
        self.roots: list[EPackage] = []
        self.classes: dict[int, EClass] = {}
        self.datatypes: dict[int, EDataType] = {}
        self.enums: dict[int, EEnum] = {}
        self.features: dict[int, Any] = {}
        self.spans: dict[int, Span] = {}
        self.problems: list[str] = []
        # multiple inheritance: declaration id -> the one feature of an attribute that
        # unrelated entities each declare (`shared_attributes`)
        self.shared: dict[int, EAttribute] = {}

    def run(self) -> DomainMetamodel:
        names = sorted(self.program.namespaces)
        for name in names:
            self.package(name)
        for name in names:
            self.classifiers(self.program.namespaces[name])
        for name in names:
            for typedef in self.program.namespaces[name].typedefs.values():
                self.facets(typedef)
        for entity in self.program.entities():
            self.supertypes(entity)
        self.shared_attributes()
        for entity in self.program.entities():
            self.entity_features(entity)
        self.opposites()
        if self.problems:
            raise CfSemanticError(
                "the program cannot be lifted to Ecore: " + "; ".join(self.problems), code="lift"
            )
        carried_names = self.carry_ecore()
        check_packages(self.roots)
        result = DomainMetamodel(self.roots, self.program, carried_names)
        result._spans = self.spans
        result._entities = {id(self.classes[id(e)]): e for e in self.program.entities()}
        return result

    # -- Ecore carried through .cf (#@ecore comments; ecore_carry)

    def carry_ecore(self) -> dict[int, str]:
        """Give every declaration with a ``#@ecore`` comment the Ecore form it carries;
        return the cf names of the packages and classifiers whose Ecore name differs."""
        by_file = {ns.file: ns.pragmas for ns in self.program.namespaces.values() if ns.pragmas}
        if not by_file:
            return {}
        names: dict[int, str] = {}
        carrier = Carrier()

        def found(span: Span | None, element: Any) -> tuple[str, Span, Any] | None:
            text = by_file.get(span.file, {}).get(span.line) if span is not None else None
            if text is None or span is None:
                return None
            return text, span, ecorepaths.root_of(element)

        def apply(
            element: Any,
            pragma: tuple[str, Span, Any] | None,
            cf_name: str,
            entity: bool = False,
            signature: str | None = None,
        ) -> None:
            if pragma is None:
                return
            data = carrier.load(*pragma)
            original = data.get("name")
            same = isinstance(original, str) and carry_cf_name(original, entity) == cf_name
            same = same or carried_hiding_name(data) == cf_name  # an attribute hiding a relation end
            # the declaration's type changed since the import: its type is the .cf's
            keep = TYPING if signature is not None and data.get("cf", signature) != signature else frozenset()
            carrier.apply(element, data, name=same, keep=keep)

        for namespace, package in self.packages.items():
            linked = self.program.namespaces.get(namespace)
            if linked is not None and 0 in linked.pragmas:
                names[id(package)] = namespace
                data = carrier.load(
                    linked.pragmas[0], Span(linked.file, 1, 1, 1, 1), ecorepaths.root_of(package)
                )
                same = isinstance(data.get("name"), str) and carry_cf_name(data["name"]) == package.name
                carrier.apply_package(package, data if same else {**data, "name": package.name})
        for ns in self.program.namespaces.values():
            for typedef in ns.typedefs.values():
                datatype = self.datatypes.get(id(typedef))
                if datatype is not None:
                    names[id(datatype)] = typedef.qualified_name
                    apply(datatype, found(typedef.span, datatype), typedef.name)
            for enum in ns.enums.values():
                eenum = self.enums[id(enum)]
                names[id(eenum)] = enum.qualified_name
                apply(eenum, found(enum.span, eenum), enum.name)
        for entity in self.program.entities():
            eclass = self.classes[id(entity)]
            names[id(eclass)] = entity.qualified_name
            apply(eclass, found(entity.span, eclass), entity.name, entity=True)
            for attribute in entity.attributes.values():
                feature = self.features.get(id(attribute))
                if feature is not None and attribute.overrides is None and id(attribute) not in self.shared:
                    apply(
                        feature, found(attribute.span, feature), attribute.name, signature=str(attribute.type)
                    )
            for end in entity.relations.values():
                pragma = found(end.span, eclass)
                if pragma is None:
                    continue
                ends = carrier.load(*pragma).get("ends")
                carried = ends.get(f"{entity.name}.{end.name}") if isinstance(ends, dict) else None
                if isinstance(carried, dict):
                    same = isinstance(carried.get("name"), str) and carry_cf_name(carried["name"]) == end.name
                    signature = end_signature(end.target.qualified_name, end.lower, end.upper)
                    keep = TYPING if carried.get("cf", signature) != signature else frozenset()
                    carrier.apply(self.features[id(end)], carried, name=same, keep=keep)
        carrier.finish(self.roots)
        return names

    # -- helpers

    def annotate(self, element: Any, source: str, details: dict[str, str]) -> None:
        if not details:
            return
        annotation = element.getEAnnotation(source)
        if annotation is None:
            annotation = EAnnotation(source)
            element.eAnnotations.append(annotation)
        for key, value in details.items():
            annotation.details[key] = value

    def document(self, element: Any, doc: str | None) -> None:
        if doc:
            self.annotate(element, GENMODEL, {"documentation": _clean_doc(doc)})

    def located(self, element: Any, span: Span | None) -> None:
        if span is None:
            return
        self.spans[id(element)] = span
        if self.options.spans:
            self.annotate(element, SOURCE, {"span": str(span)})

    # -- packages and classifiers

    def package(self, namespace: str) -> EPackage:
        found = self.packages.get(namespace)
        if found is not None:
            return found
        parent, _, local = namespace.rpartition("::")
        if not _IDENTIFIER.match(local):
            self.problems.append(f"namespace {namespace}: '{local}' is not a valid package name")
        package = EPackage(
            local, nsURI=namespace_uri(namespace, self.options.uri_base), nsPrefix=namespace_prefix(namespace)
        )
        self.annotate(package, NAMESPACE, {"name": namespace})
        linked = self.program.namespaces.get(namespace)
        if linked is not None:
            self.document(package, linked.doc)
            self.located(package, Span(linked.file, 1, 1, 1, 1))
        if parent:
            self.package(parent).eSubpackages.append(package)
        else:
            self.roots.append(package)
            self.roots.sort(key=lambda pkg: pkg.name)
        self.packages[namespace] = package
        return package

    def classifiers(self, ns: p.LinkedNamespace) -> None:
        package = self.packages[ns.name]
        taken = {e.lower() for e in ns.entities} | {e.lower() for e in ns.enums}
        constructors: dict[str, str] = {}
        for typedef in ns.typedefs.values():
            if typedef.constructor is not None:
                constructors[typedef.name] = _constructor_text(typedef.constructor)
                continue
            datatype = self.typedef(typedef, _free_name(typedef.name, taken))
            taken.add(datatype.name.lower())
            package.eClassifiers.append(datatype)
        self.annotate(package, CONSTRUCTORS, constructors)
        for enum in ns.enums.values():
            package.eClassifiers.append(self.enum(enum))
        seen: dict[str, str] = {}
        for entity in ns.entities.values():
            other = seen.setdefault(entity.name.lower(), entity.name)
            if other != entity.name:
                self.problems.append(f"{ns.name}: entities {other} and {entity.name} differ only in case")
            eclass = EClass(entity.name)
            self.document(eclass, entity.doc)
            self.located(eclass, entity.name_span)
            self.classes[id(entity)] = eclass
            package.eClassifiers.append(eclass)

    def typedef(self, typedef: p.Typedef, name: str) -> EDataType:
        assert typedef.base is not None
        java = PRIMITIVE_TYPES[typedef.base.name][1]
        datatype = EDataType(name, instanceClassName=java)
        details = {"base": typedef.parent.qualified_name if typedef.parent else typedef.base.name}
        if typedef.parent is not None:
            details["primitive"] = typedef.base.name
        if typedef.regex is not None:
            details["regex"] = typedef.regex
        elif typedef.condition is not None:
            details["condition"] = to_source(typedef.condition)
        if name != typedef.name:
            details["name"] = typedef.name
        self.annotate(datatype, TYPEDEF, details)
        self.document(datatype, typedef.doc)
        self.located(datatype, typedef.node.name.span)
        self.datatypes[id(typedef)] = datatype
        return datatypes.make_faithful(datatype)

    def facets(self, typedef: p.Typedef) -> None:
        """EMF's own form of the constraint (ExtendedMetaData facets, ``baseType``)."""
        datatype = self.datatypes.get(id(typedef))
        if datatype is None:
            return
        details = facets_of(typedef)
        if typedef.parent is not None:
            base = self.datatypes[id(typedef.parent)]
            same = base.ePackage is datatype.ePackage
            details["baseType"] = base.name if same else f"{base.ePackage.nsURI}#{base.name}"
        self.annotate(datatype, EXTENDED_METADATA, details)

    def enum(self, enum: p.EnumType) -> EEnum:
        eenum = EEnum(enum.name)
        used: set[str] = set()
        literals: dict[str, EEnumLiteral] = {}
        for index, value in enumerate(enum.values):
            literal = EEnumLiteral(_free_name(_identifier(value), used, suffix="_"), value=index)
            used.add(literal.name.lower())
            literal.literal = value
            literals[value] = literal
            eenum.eLiterals.append(literal)
        tree = {value: parent for value, parent in enum.values.items() if parent is not None}
        self.annotate(eenum, ENUM, tree)
        self.located(eenum, enum.span)
        self.enums[id(enum)] = eenum
        return datatypes.make_faithful(eenum)

    # -- classes

    def supertypes(self, entity: p.EntityType) -> None:
        eclass = self.classes[id(entity)]
        for parent in entity.parents:
            eclass.eSuperTypes.append(self.classes[id(parent)])
        indexes = {str(i + 1): ", ".join(index.attributes) for i, index in enumerate(entity.indexes)}
        self.annotate(eclass, INDEX, indexes)

    def shared_attributes(self) -> None:
        """An attribute that unrelated entities each declare, and that meets in a common
        subtype (multiple inheritance), is one feature: an Ecore class may not have two
        features of one name (EMF's EcoreValidator). It is declared once, on a generated
        abstract class (annotated `SHARED`) that each declaring entity's class extends; each
        declaration's own default goes into its class's `DEFAULTS` annotation, and so does
        the default every class that inherits it gets (`EntityType.defaults`; "" for none)."""
        representative: dict[int, p.Attribute] = {}
        involved: set[int] = set()

        def find(attribute: p.Attribute) -> p.Attribute:
            while representative.get(id(attribute), attribute) is not attribute:
                attribute = representative[id(attribute)]
            return attribute

        for entity in self.program.entities():
            by_name: dict[str, list[p.Attribute]] = {}
            seen: set[int] = set()
            for ancestor in entity.mro:
                for attribute in ancestor.attributes.values():
                    if attribute.overrides is None and id(attribute) not in seen:
                        seen.add(id(attribute))
                        by_name.setdefault(attribute.name, []).append(attribute)
            for declared in by_name.values():
                if len(declared) < 2:
                    continue
                involved.update(id(a) for a in declared)
                first = find(declared[0])
                for other in declared[1:]:
                    root = find(other)
                    if root is not first:
                        representative[id(root)] = first
        groups: dict[int, list[p.Attribute]] = {}
        for entity in self.program.entities():
            for attribute in entity.attributes.values():
                if id(attribute) in involved:
                    groups.setdefault(id(find(attribute)), []).append(attribute)
        for members in groups.values():
            first = members[0]
            package = self.packages[first.entity.namespace.name]
            taken = {classifier.name.lower() for classifier in package.eClassifiers}
            holder = EClass(_free_name(f"Shared_{first.name}", taken, "_"), abstract=True)
            feature = self.attribute(first, with_default=False)
            holder.eStructuralFeatures.append(feature)
            declared_by = ", ".join(a.entity.qualified_name for a in members)
            self.annotate(holder, SHARED, {"attribute": first.name, "declared_by": declared_by})
            self.document(
                holder,
                f"Generated: the attribute '{first.name}' that {declared_by} each declare, once "
                "(a class that extends several of them has one such feature).",
            )
            package.eClassifiers.append(holder)
            for attribute in members:
                self.shared[id(attribute)] = feature
                self.features[id(attribute)] = feature
                self.classes[id(attribute.entity)].eSuperTypes.append(holder)

    def entity_features(self, entity: p.EntityType) -> None:
        eclass = self.classes[id(entity)]
        overridden: dict[str, str] = {}
        inherited_shared = sorted(
            name
            for name, attribute in entity.all_attributes.items()
            if id(attribute) in self.shared and name not in entity.attributes
        )
        if inherited_shared:
            defaults = entity.defaults()
            for name in inherited_shared:
                overridden[name] = _default_text(defaults.get(name))
        for attribute in entity.attributes.values():
            if attribute.overrides is not None or id(attribute) in self.shared:
                overridden[attribute.name] = _default_text(attribute.default)
                continue
            feature = self.attribute(attribute)
            hidden = next(
                (end for parent in entity.parents if (end := parent.all_relations.get(attribute.name))), None
            )
            if hidden is not None:
                taken = {f.name.lower() for f in eclass.eAllStructuralFeatures()}
                feature.name = _free_name(attribute.name, taken, "_")
                relation = f"{hidden.entity.qualified_name}.{hidden.name}"
                self.annotate(feature, HIDES, {"name": attribute.name, "relation": relation})
            eclass.eStructuralFeatures.append(feature)
            self.features[id(attribute)] = feature
        self.annotate(eclass, DEFAULTS, overridden)
        for name in sorted(entity.relations):
            end = entity.relations[name]
            reference = EReference(
                end.name,
                self.classes[id(end.target)],
                lower=end.lower,
                upper=-1 if end.upper is None else end.upper,
            )
            details: dict[str, str] = {}
            if end.annotations:
                details["annotations"] = ", ".join(to_source(a) for a in end.annotations)
            if end.opposite is end:
                details["symmetric"] = "true"  # EMF: a reference may not be its own opposite
            self.annotate(reference, RELATION, details)
            self.document(reference, end.doc)
            self.located(reference, end.name_span)
            eclass.eStructuralFeatures.append(reference)
            self.features[id(end)] = reference

    def attribute(self, attribute: p.Attribute, with_default: bool = True) -> EAttribute:
        spec = attribute.type
        etype = self.datatype(spec.base)
        feature = EAttribute(
            attribute.name,
            etype,
            lower=0 if spec.nullable or spec.multi else 1,
            upper=-1 if spec.multi else 1,
            unique=not spec.multi,
        )
        primitive = base_primitive(spec.base)
        if (isinstance(spec.base, p.Primitive) and spec.base.name in (*JSON_TYPES, "number")) or (
            spec.multi and spec.nullable
        ):
            self.annotate(feature, TYPE, {"type": str(spec)})
        if with_default:
            self.default(attribute, feature, primitive)
        self.document(feature, attribute.doc)
        self.located(feature, attribute.name_span)
        return feature

    def datatype(self, base: p.BaseType) -> Any:
        if isinstance(base, p.Primitive):
            return PRIMITIVE_TYPES[base.name][0]
        if isinstance(base, p.Typedef):
            return self.datatypes[id(base)]
        return self.enums[id(base)]

    def default(self, attribute: p.Attribute, feature: EAttribute, primitive: p.Primitive | None) -> None:
        """A constant scalar default (JSON for dict/list) as defaultValueLiteral, else annotated."""
        default = attribute.default
        if default is None:
            return
        if isinstance(default, nodes.Undef):  # pragma: no cover - only on re-declarations
            return
        literal = None
        value: Any = None
        if not attribute.type.multi:
            try:
                value = evaluate(default)
            except (NotChecked, ConstantError):
                value = None
            literal = _literal_for(value, feature, primitive)
        if literal is not None:
            feature.defaultValueLiteral = literal
            converted = _python_default(value, feature, primitive)
            if converted is not None:
                feature.default_value = converted
        else:
            self.annotate(feature, DEFAULT, {"value": to_source(default)})

    def opposites(self) -> None:
        for entity in self.program.entities():
            for end in entity.relations.values():
                if end.opposite is not None and end.opposite is not end:
                    self.features[id(end)].eOpposite = self.features[id(end.opposite)]


def _literal_for(value: Any, feature: EAttribute, primitive: p.Primitive | None) -> str | None:
    if value is None:
        return None
    etype = feature.eType
    if isinstance(etype, EEnum):
        found = next((lit for lit in etype.eLiterals if lit.literal == value), None)
        return str(found.literal) if found is not None else None
    if primitive is None:
        return None
    if primitive.name in JSON_TYPES:
        return json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else None
    if isinstance(value, bool):
        return ("true" if value else "false") if primitive.name == "bool" else None
    if primitive.name == "string" and isinstance(value, str):
        return value
    if primitive.name == "int" and isinstance(value, int):
        return str(value) if -(2**63) <= value < 2**63 else None
    if primitive.name in ("float", "number") and isinstance(value, int | float):
        return repr(float(value))
    return None


def _python_default(value: Any, feature: EAttribute, primitive: p.Primitive | None) -> Any:
    if isinstance(feature.eType, EEnum):
        return next((lit for lit in feature.eType.eLiterals if lit.literal == value), None)
    if primitive is not None and primitive.name in JSON_TYPES:
        return json.dumps(value, sort_keys=True)
    if primitive is not None and primitive.name in ("float", "number"):
        return float(value)
    return value


def _default_text(default: nodes.Expression | nodes.Undef | None) -> str:
    if default is None:
        return ""
    if isinstance(default, nodes.Undef):
        return "undef"
    return to_source(default)


def _constructor_text(constructor: p.ConstructorTypedef) -> str:
    arguments = ", ".join(f"{a.name.text}={to_source(a.value)}" for a in constructor.arguments)
    return f"{constructor.entity.qualified_name}({arguments})"


def _clean_doc(doc: str) -> str:
    """A docstring without its common indentation and surrounding blank lines."""
    lines = doc.expandtabs().splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    if lines and lines[0].strip() == "" and indents:
        cut = min(indents)
        lines = [line[cut:] for line in lines]
    elif indents:
        cut = min(indents)
        lines = [lines[0].strip()] + [line[cut:] for line in lines[1:]]
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def _identifier(value: str) -> str:
    text = re.sub(r"[^A-Za-z0-9_]", "_", value)
    return text if text[:1].isalpha() or text[:1] == "_" else f"_{text}"


def _free_name(name: str, taken: set[str], suffix: str = "_type") -> str:
    """*name*, or *name* + suffix (+ a number) when it clashes, ignoring case, with *taken*."""
    if name.lower() not in taken:
        return name
    candidate = name + suffix
    number = 2
    while candidate.lower() in taken:
        candidate = f"{name}{suffix}{number}"
        number += 1
    return candidate
