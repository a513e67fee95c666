"""RDFS/OWL → EPackage: the metamodels `cfmodel.serializers.rdf` writes, read back.

Input: an RDF document (any of the four formats) or an rdflib graph holding the metamodel
`rdf.metamodel_triples` writes (alone, or with its instances and shapes). Output: new
PyEcore root packages equal to the written ones: `cfmodel.serializers.ecore.to_bytes` of
each is the same as the original's (names, nsURIs and prefixes, subpackages, classifiers
and features in order, classes with abstract/interface and supertypes, attributes with
their types, bounds, defaults and flags, references with containment and opposites,
enums with their literals' names, values and texts, data types with their instance class
names, every EAnnotation). `read_document` reads the metamodel and then the instances of
the same file against it.

What is read: OWL gives the classes (``owl:Class``, ``rdfs:subClassOf``), the features'
types (``owl:allValuesFrom``) and bounds (cardinality restrictions); ``cfm:`` facts give
what OWL cannot say (order, flags, Ecore types XSD does not name, annotations). Types may
be classifiers of the document, Ecore's built-ins, or classifiers of packages already in
the caller's `ResourceSet`.

Guarantees: RDF cfmodel did not write (an ``owl:Class`` or ``rdfs:Datatype`` no ontology
lists, a restriction without a type, a type no package has, lists that do not end, ...)
is refused with `CfSerializationError` (``bad-rdf``) naming the element, located at the
first line of the document that mentions it (line 1 when it cannot be found, as for a
blank node); nothing is registered anywhere on failure; the packages pass
`validate.check_packages`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyecore.ecore as ecore_module
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

from cfmodel.errors import CfModelError, CfSerializationError, Span
from cfmodel.serializers import datatypes, rdf, validate
from cfmodel.serializers.base import Document, local_registry, register_packages

RDF_TYPE, RDFS, OWL, CFM, XSD = rdf.RDF_TYPE, rdf.RDFS, rdf.OWL, rdf.CFM, rdf.XSD
ECORE_NS = rdf.ECORE_NS + "#"
MAX_LIST = 1_000_000  # cells of one rdf:List


def read(source: Path | str, options: rdf.RdfOptions | None = None) -> list[EPackage]:
    """The root packages of the metamodel in an RDF file (format from `options` or the
    file's extension), in the order of their ontologies' IRIs.

    Raises:
        CfSerializationError: not RDF, or not a metamodel cfmodel wrote (located).
    """
    opts = options or rdf.RdfOptions()
    name, data = _read(source, opts)
    return from_bytes(data, name, rdf.format_of(source, opts.format))


def from_bytes(
    data: bytes, name: str = "<bytes>", fmt: str = "ttl", resource_set: ResourceSet | None = None
) -> list[EPackage]:
    """`read` of a document already in memory."""
    graph = rdf.parse_graph(data, fmt, name)
    return from_graph(graph, name, resource_set, rdf.Locator(data, dict(graph.namespaces())))


def from_graph(
    graph: Any,
    name: str = "<graph>",
    resource_set: ResourceSet | None = None,
    locate: Callable[[str], tuple[int, int]] | None = None,
) -> list[EPackage]:
    """The root packages an rdflib graph describes (types may also come from the packages
    registered in `resource_set`)."""
    return _Builder(graph, name, resource_set, locate or (lambda _: (1, 1))).build()


def read_document(
    source: Path | str, options: rdf.RdfOptions | None = None, resource_set: ResourceSet | None = None
) -> tuple[list[EPackage], Document]:
    """The metamodel of an RDF file and its instances read against it (the packages are
    registered in `resource_set`, a new one if not given, and given in the document's
    resource set).

    Raises:
        CfSerializationError: not RDF, not a metamodel cfmodel wrote, or instances that do
            not match it.
    """
    opts = options or rdf.RdfOptions()
    name, data = _read(source, opts)
    fmt = rdf.format_of(source, opts.format)
    graph = rdf.parse_graph(data, fmt, name)
    rset = resource_set if resource_set is not None else ResourceSet()
    packages = from_graph(graph, name, rset, rdf.Locator(data, dict(graph.namespaces())))
    register_packages(rset, packages)
    return packages, rdf.from_graph(graph, rset, name, replace(opts, format=fmt))


def _read(source: Path | str, opts: rdf.RdfOptions) -> tuple[str, bytes]:
    name = str(source)
    try:
        size = Path(source).stat().st_size
        if size > opts.max_bytes:
            raise _fail(name, (1, 1), f"file is {size} bytes, over the limit of {opts.max_bytes}")
        return name, Path(source).read_bytes()
    except OSError as exc:
        raise _fail(name, (1, 1), f"cannot read: {exc.strerror}") from exc


def _fail(name: str, where: tuple[int, int], message: str) -> CfSerializationError:
    line, col = where
    return CfSerializationError(message, Span(name, line, col, line, col + 1), code="bad-rdf")


class _Builder:
    def __init__(
        self, graph: Any, name: str, rset: ResourceSet | None, locate: Callable[[str], tuple[int, int]]
    ) -> None:
        import rdflib

        self.rdflib = rdflib
        self.graph = graph
        self.name = name
        self.locate = locate
        self.classifiers: dict[str, Any] = {}  # IRI -> classifier of this document
        self.external: dict[str, Any] = {}  # IRI -> classifier of a package of the resource set
        if rset is not None:
            for pkg in rdf.all_packages(local_registry(rset).values()):
                for c in pkg.eClassifiers:
                    self.external[rdf.class_iri(c)] = c
        self.packages: dict[str, EPackage] = {}  # ontology IRI -> package
        self.features: list[tuple[str, Any, Any]] = []  # (class IRI, restriction node, feature)

    # ---- reading the graph ----------------------------------------------------------------

    def fail(self, subject: Any, message: str, at: Any = None) -> CfSerializationError:
        """An error about `subject`, located where the document first mentions `at` (the
        subject by default)."""
        place = subject if at is None else at
        where = self.locate(str(place)) if isinstance(place, self.rdflib.URIRef) else (1, 1)
        label = f"<{subject}>" if isinstance(subject, self.rdflib.URIRef) else "a blank node"
        return _fail(self.name, where, f"{label}: {message}")

    def uri(self, text: str) -> Any:
        return self.rdflib.URIRef(text)

    def one(self, s: Any, p: str, what: str, required: bool = True) -> Any:
        values = list(self.graph.objects(s, self.uri(p)))
        if len(values) > 1:
            raise self.fail(s, f"{len(values)} values of {what}, expected one")
        if not values:
            if required:
                raise self.fail(s, f"no {what} (not a metamodel cfmodel wrote)")
            return None
        return values[0]

    def text(self, s: Any, p: str, what: str, required: bool = True) -> str | None:
        value = self.one(s, p, what, required)
        if value is None:
            return None
        if not isinstance(value, self.rdflib.Literal):
            raise self.fail(s, f"{what} is <{value}>, expected a literal")
        return str(value)

    def integer(self, s: Any, p: str, what: str) -> int | None:
        value = self.text(s, p, what, required=False)
        if value is None:
            return None
        try:
            return int(value)
        except ValueError:
            raise self.fail(s, f"{what} {value!r} is not an integer") from None

    def flag(self, s: Any, name: str, default: bool) -> bool:
        value = self.text(s, CFM + name, f"cfm:{name}", required=False)
        if value is None:
            return default
        if value.strip() not in ("true", "false", "1", "0"):
            raise self.fail(s, f"cfm:{name} {value!r} is not a boolean")
        return value.strip() in ("true", "1")

    def items(self, s: Any, p: str, what: str) -> list[Any]:
        """The members of ``s p ( … )`` (none when absent)."""
        rdflib = self.rdflib
        head = self.one(s, p, what, required=False)
        out: list[Any] = []
        seen: set[Any] = set()
        while head is not None and head != rdflib.RDF.nil:
            if head in seen or len(out) >= MAX_LIST:
                raise self.fail(s, f"the list of {what} does not end in rdf:nil")
            seen.add(head)
            first = list(self.graph.objects(head, rdflib.RDF.first))
            rest = list(self.graph.objects(head, rdflib.RDF.rest))
            if len(first) != 1 or len(rest) != 1:
                raise self.fail(s, f"the list of {what} has a cell without one rdf:first and one rdf:rest")
            out.append(first[0])
            head = rest[0]
        return out

    def typed(self, kind: str) -> list[Any]:
        return sorted(
            (
                s
                for s in self.graph.subjects(self.rdflib.RDF.type, self.uri(kind))
                if isinstance(s, self.rdflib.URIRef)
            ),
            key=str,
        )

    # ---- building ------------------------------------------------------------------------

    def build(self) -> list[EPackage]:
        ontologies = self.typed(OWL + "Ontology")
        if not ontologies:
            raise _fail(self.name, (1, 1), "no metamodel: the document has no owl:Ontology")
        for onto in ontologies:
            self.package(onto)
        for onto in ontologies:
            pkg = self.packages[str(onto)]
            for sub in self.items(onto, CFM + "subpackages", "cfm:subpackages"):
                child = self.packages.get(str(sub))
                if child is None or child.eSuperPackage is not None:
                    raise self.fail(
                        onto, f"subpackage <{sub}> is not an ontology of the document, or is listed twice"
                    )
                pkg.eSubpackages.append(child)
        for onto in ontologies:
            parent = self.one(onto, CFM + "subpackageOf", "cfm:subpackageOf", required=False)
            pkg = self.packages[str(onto)]
            owner = pkg.eSuperPackage
            if (parent is None) != (owner is None) or (
                owner is not None and str(parent) != rdf.ontology_iri(owner)
            ):
                raise self.fail(onto, "cfm:subpackageOf does not match the cfm:subpackages that list it")
        self.unlisted(OWL + "Class", "an owl:Class")
        self.unlisted(RDFS + "Datatype", "an rdfs:Datatype")
        for c in list(self.classifiers.values()):
            if isinstance(c, EDataType):
                datatypes.make_faithful(c)
        for iri, c in list(self.classifiers.items()):
            if isinstance(c, EClass):
                self.eclass(self.uri(iri), c)
        for class_iri, node, f in self.features:
            self.opposite(class_iri, node, f)
        roots = [p for p in self.packages.values() if p.eSuperPackage is None]
        try:
            validate.check_packages(roots)
        except CfModelError as error:
            failure = _fail(self.name, (1, 1), f"the metamodel read is not valid: {error.message}")
            failure.notes = error.notes
            raise failure from error
        return roots

    def unlisted(self, kind: str, what: str) -> None:
        for s in self.typed(kind):
            if str(s) not in self.classifiers and not str(s).startswith(rdf.XSD):
                raise self.fail(
                    s,
                    f"{what} that no ontology lists in cfm:classifiers: cfmodel reads back the "
                    "metamodels it writes, not any OWL",
                )

    def package(self, onto: Any) -> None:
        name = self.text(onto, RDFS + "label", "rdfs:label (the package's name)")
        ns_uri = self.text(onto, CFM + "nsURI", "cfm:nsURI", required=False)
        prefix = self.text(onto, CFM + "nsPrefix", "cfm:nsPrefix", required=False)
        pkg = EPackage(name, nsURI=ns_uri, nsPrefix=prefix)
        self.annotations(onto, pkg)
        self.packages[str(onto)] = pkg
        for c in self.items(onto, CFM + "classifiers", "cfm:classifiers"):
            classifier = self.classifier(c)
            if str(c) in self.classifiers:
                raise self.fail(c, "listed by two ontologies")
            pkg.eClassifiers.append(classifier)
            self.classifiers[str(c)] = classifier
            if rdf.class_iri(classifier) != str(c):
                raise self.fail(
                    c, f"the IRI of {classifier.name} in package {name} is <{rdf.class_iri(classifier)}>"
                )

    def classifier(self, c: Any) -> Any:
        rdflib = self.rdflib
        if not isinstance(c, rdflib.URIRef):
            raise _fail(self.name, (1, 1), "cfm:classifiers lists a blank node or a literal")
        kinds = set(self.graph.objects(c, rdflib.RDF.type))
        name = self.text(c, RDFS + "label", "rdfs:label (the classifier's name)")
        if self.uri(OWL + "Class") in kinds:
            made: Any = EClass(name, abstract=self.flag(c, "abstract", False))
            made.interface = self.flag(c, "interface", False)
        elif self.uri(RDFS + "Datatype") in kinds:
            equivalent = self.one(c, OWL + "equivalentClass", "owl:equivalentClass")
            if isinstance(equivalent, rdflib.BNode):
                made = self.enum(c, name, equivalent)
            else:
                made = EDataType(
                    name,
                    instanceClassName=self.text(c, CFM + "instanceClassName", "cfm:instanceClassName", False),
                )
        else:
            raise self.fail(c, "neither an owl:Class nor an rdfs:Datatype")
        self.annotations(c, made)
        return made

    def enum(self, c: Any, name: str | None, equivalent: Any) -> EEnum:
        texts = [str(t) for t in self.items(equivalent, OWL + "oneOf", "owl:oneOf")]
        enum = EEnum(name)
        for node in self.items(c, CFM + "literals", "cfm:literals"):
            literal = EEnumLiteral(
                self.text(node, RDFS + "label", "rdfs:label (the literal's name)"),
                value=self.integer(node, CFM + "enumValue", "cfm:enumValue") or 0,
            )
            text = self.text(node, CFM + "literal", "cfm:literal", required=False)
            if text is not None:
                literal.literal = text
            self.annotations(node, literal)
            enum.eLiterals.append(literal)
        if [datatypes.literal_text(lit) for lit in enum.eLiterals] != texts:
            raise self.fail(c, "its cfm:literals do not match its owl:oneOf")
        return enum

    def annotations(self, s: Any, element: Any) -> None:
        for node in self.items(s, CFM + "annotations", "cfm:annotations"):
            annotation = EAnnotation(self.text(node, CFM + "source", "cfm:source", required=False))
            for detail in self.items(node, CFM + "details", "cfm:details"):
                key = self.text(detail, CFM + "key", "cfm:key")
                annotation.details[key] = self.text(detail, CFM + "value", "cfm:value")
            element.eAnnotations.append(annotation)

    # ---- classes and features -----------------------------------------------------------------

    def eclass(self, c: Any, eclass: EClass) -> None:
        rdflib = self.rdflib
        named = [s for s in self.graph.objects(c, rdflib.RDFS.subClassOf) if isinstance(s, rdflib.URIRef)]
        listed = self.items(c, CFM + "supertypes", "cfm:supertypes")
        supertypes = listed if listed else named
        if len(supertypes) > 1 and not listed:
            raise self.fail(c, "several rdfs:subClassOf without cfm:supertypes to order them")
        if {str(s) for s in supertypes} != {str(s) for s in named}:
            raise self.fail(c, "cfm:supertypes does not list its rdfs:subClassOf classes")
        for sup in supertypes:
            found = self.resolve(c, sup)
            if not isinstance(found, EClass):
                raise self.fail(c, f"supertype <{sup}> is not a class")
            eclass.eSuperTypes.append(found)
        restrictions: dict[str, list[Any]] = {}
        for node in self.graph.objects(c, rdflib.RDFS.subClassOf):
            if isinstance(node, rdflib.BNode):
                prop = self.one(node, OWL + "onProperty", "owl:onProperty")
                restrictions.setdefault(str(prop), []).append(node)
        for p in self.items(c, CFM + "features", "cfm:features"):
            eclass.eStructuralFeatures.append(self.feature(c, eclass, p, restrictions.get(str(p), [])))

    def feature(self, c: Any, eclass: EClass, p: Any, nodes: list[Any]) -> Any:
        typed = [
            n for n in nodes if self.one(n, OWL + "allValuesFrom", "owl:allValuesFrom", False) is not None
        ]
        if len(typed) != 1:
            raise self.fail(c, f"feature <{p}> has {len(typed)} owl:allValuesFrom restrictions, expected one")
        node = typed[0]
        name = self.text(p, RDFS + "label", "rdfs:label (the feature's name)")
        lower = upper = None
        for n in nodes:
            exact = self.integer(n, OWL + "cardinality", "owl:cardinality")
            low = self.integer(n, OWL + "minCardinality", "owl:minCardinality")
            high = self.integer(n, OWL + "maxCardinality", "owl:maxCardinality")
            lower = exact if exact is not None else low if low is not None else lower
            upper = exact if exact is not None else high if high is not None else upper
        explicit = self.integer(node, CFM + "upperBound", "cfm:upperBound")
        bounds = {
            "lower": lower or 0,
            "upper": explicit if explicit is not None else upper if upper is not None else -1,
        }
        flags = {name_: self.flag(node, name_, default) for name_, default in rdf.FEATURE_FLAGS}
        etype = self.feature_type(c, p, node)
        common: dict[str, Any] = {**bounds, **flags}
        if isinstance(etype, EClass):
            f: Any = EReference(name, etype, containment=self.flag(node, "containment", False), **common)
        else:
            f = EAttribute(name, etype, iD=self.flag(node, "iD", False), **common)
        f.defaultValueLiteral = self.text(node, CFM + "default", "cfm:default", required=False)
        if isinstance(f, EAttribute) and f.default_value is None and isinstance(etype, EDataType):
            f.default_value = etype.default_value
        self.annotations(node, f)
        if rdf.namespace(eclass.ePackage) + rdf.iri_safe(str(name)) != str(p):
            raise self.fail(c, f"feature {name} of {eclass.name} is not the property <{p}>")
        self.features.append((str(c), node, f))
        return f

    def feature_type(self, c: Any, p: Any, node: Any) -> Any:
        target = str(self.one(node, OWL + "allValuesFrom", "owl:allValuesFrom"))
        ecore_type = self.text(node, CFM + "ecoreType", "cfm:ecoreType", required=False)
        if ecore_type is not None or target.startswith(XSD) or target == RDFS + "Literal":
            builtin = ecore_type or rdf.BUILTIN_OF_XSD.get(target)
            found = ecore_module.eClass.getEClassifier(builtin) if builtin else None
            if found is None:
                raise self.fail(
                    c, f"feature <{p}>: no Ecore data type for <{target}> ({builtin or 'no cfm:ecoreType'})"
                )
            return found
        return self.resolve(c, target)

    def resolve(self, c: Any, iri: Any) -> Any:
        text = str(iri)
        found = self.classifiers.get(text) or self.external.get(text)
        if found is None and text.startswith(ECORE_NS):
            found = ecore_module.eClass.getEClassifier(text[len(ECORE_NS) :].removeprefix("datatype."))
        if found is None:
            raise self.fail(
                c,
                f"<{text}> is not a classifier of the document, of Ecore or of a known package",
                at=self.uri(text),
            )
        return found

    def opposite(self, class_iri: str, node: Any, f: Any) -> None:
        target = self.one(node, CFM + "opposite", "cfm:opposite", required=False)
        if target is None:
            return
        if not isinstance(f, EReference):
            raise self.fail(self.uri(class_iri), f"attribute {f.name} has a cfm:opposite")
        found = next((g for g in f.eType.eAllStructuralFeatures() if rdf.feature_iri(g) == str(target)), None)
        if not isinstance(found, EReference):
            raise self.fail(
                self.uri(class_iri),
                f"the opposite <{target}> of {f.name} is not a reference of {f.eType.name}",
            )
        f.eOpposite = found
