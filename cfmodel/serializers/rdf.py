"""RDF: metamodels as RDFS/OWL with SHACL shapes, instance models as triples, and back.

Input (write): instance roots and/or EPackages, `RdfOptions`. Output: one file in Turtle,
N-Triples, JSON-LD or RDF/XML (rdflib writes Turtle; the others are written here, N-Triples
streamed by `write_ntriples`), replaced atomically, byte-identical for the same model. Input (read): such a
file; metamodels from the caller's `ResourceSet`. Output: a `Document` equal to the model
that was written (`canonical.dump_objects` of both are the same).

The mapping (docs/rdf.md), generic over any EPackage and EObject:

* A package's namespace is its nsURI followed by ``#`` (nothing is added when the nsURI
  already ends in ``#`` or ``/``); a class is ``ns + name``, a feature ``ns + name`` (ns
  of the class that declares it; features of the same name in one package share their
  property, with ``owl:unionOf`` domains and ranges).
* Metamodel: packages are ``owl:Ontology``; classes ``owl:Class`` with ``rdfs:subClassOf``
  their supertypes and one ``owl:Restriction`` per feature (``owl:allValuesFrom`` its
  type, ``owl:minCardinality``/``owl:maxCardinality`` its bounds); attributes
  ``owl:DatatypeProperty``, references ``owl:ObjectProperty`` (``owl:inverseOf`` the
  opposite); enums ``rdfs:Datatype``\\ s ``owl:oneOf`` their literals; other data types
  ``rdfs:Datatype``\\ s equivalent to their XSD type; GenModel documentation is
  ``rdfs:comment``; what OWL cannot say (order, flags, defaults, opposites, annotations) as
  ``cfm:`` facts, so that `cfmodel.serializers.rdfmeta` reads the packages back. SHACL: one
  ``sh:NodeShape`` per class (``sh:targetClass``) with one
  property shape per own feature: bounds as ``sh:minCount``/``sh:maxCount`` (as
  `validate_instances` counts them: a single-valued attribute with a default is not
  required), ``sh:datatype``/``sh:in``/``sh:class``, opposites as a SHACL-SPARQL
  constraint, and ``sh:node`` a data type's own shape when `RdfOptions.shapes` gives one
  (the typedef constraints), plus the SHACL-SPARQL constraints it gives for a class (the
  indexes): `cfmodel.transforms.cf.shacl` for cfmodel's metamodels.
* Instances: an object's IRI is ``base + id`` (the id function's id, percent-encoded),
  else ``base + its EMF positional fragment``; ``rdf:type`` its class; one triple per set
  value (attributes as typed XSD literals, enum values as their literal text, references
  and containments as the target's IRI). What plain triples cannot say is added only
  where needed: a many-valued feature whose values are not in the reader's order (sorted
  by IRI or lexical form) or repeat gets a ``cfm:sequence`` node listing them
  (``rdf:List``), and when the roots are not in IRI order each root gets its
  ``cfm:position``.

Guarantees: values a metamodel allows are written exactly (floats round-trip, dates to
the millisecond as EMF keeps them); the model is validated before writing unless
`RdfOptions.check` is off (writing an invalid model for a SHACL validator to judge);
reading refuses files over the size limit, JSON-LD that names a remote context (nothing is
fetched), unknown classes and unresolved references, with a `CfSerializationError`.
"""

from __future__ import annotations

import io
import json as std_json
import math
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Protocol, cast
from urllib.parse import quote, unquote
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

from pyecore.ecore import EAttribute, EClass, EDataType, EEnum, EObject, EPackage, EReference
from pyecore.resources import ResourceSet

from cfmodel.errors import CfModelError, CfSerializationError, CfUsageError, Span
from cfmodel.inputs import load_json
from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers import atomic, canonical, datatypes, linking, model, validate
from cfmodel.serializers.base import Document, IdFunction, attach, ids_from, local_registry, ncname_id

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
SH = "http://www.w3.org/ns/shacl#"
CFM = "http://cfmodel.org/rdf/1.0#"
GENMODEL = "http://www.eclipse.org/emf/2002/GenModel"
ECORE_NS = "http://www.eclipse.org/emf/2002/Ecore"
DEFAULT_BASE = "http://cfmodel.org/instances/model#"

RDF_TYPE = RDF + "type"
RDF_FIRST, RDF_REST, RDF_NIL = RDF + "first", RDF + "rest", RDF + "nil"
CFM_POSITION, CFM_SEQUENCE = CFM + "position", CFM + "sequence"
CFM_FEATURE, CFM_ITEMS = CFM + "feature", CFM + "items"

#: format name -> rdflib's name for it
FORMATS: dict[str, str] = {"ttl": "turtle", "nt": "nt", "jsonld": "json-ld", "xml": "xml"}
#: file extension -> format name
EXTENSIONS: dict[str, str] = {".ttl": "ttl", ".nt": "nt", ".jsonld": "jsonld", ".rdf": "xml", ".owl": "xml"}
#: well-known prefixes every graph declares
STANDARD_PREFIXES: dict[str, str] = {
    "rdf": RDF,
    "rdfs": RDFS,
    "owl": OWL,
    "xsd": XSD,
    "sh": SH,
    "cfm": CFM,
}

# Ecore data type (by codec name) -> XSD datatype of its literals
XSD_OF: dict[str, str] = {
    "EString": "string",
    "EBoolean": "boolean",
    "EBooleanObject": "boolean",
    "EInt": "int",
    "EIntegerObject": "int",
    "ELong": "long",
    "ELongObject": "long",
    "EShort": "short",
    "EShortObject": "short",
    "EBigInteger": "integer",
    "EDouble": "double",
    "EDoubleObject": "double",
    "EFloat": "float",
    "EFloatObject": "float",
    "EBigDecimal": "decimal",
    "EDate": "dateTime",
}
_XSD_FLOATS = {"INF": "Infinity", "-INF": "-Infinity", "+INF": "Infinity"}


class Blank(str):
    """A blank node, by its label (labels are made deterministically, never random)."""

    __slots__ = ()


class Literal(NamedTuple):
    """A literal: its lexical form and its datatype IRI."""

    lexical: str
    datatype: str


Term = str | Blank | Literal
Triple = tuple[str, str, Term]


@dataclass(frozen=True, slots=True)
class DatatypeShape:
    """SHACL constraints on the values of one data type (a typedef's regex and condition).

    ``constraints``: (SHACL predicate, value) pairs a node shape holds (``sh:pattern``,
    ``sh:minExclusive``, ``sh:in`` with a tuple, ``sh:or`` with a tuple of nested
    constraint lists, ...); ``message``: the violation's message; ``unexpressed``: the
    parts SHACL cannot say, each with the reason (a deactivated shape carries them).
    """

    constraints: tuple[tuple[str, Any], ...] = ()
    message: str = ""
    unexpressed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SparqlCheck:
    """A SHACL-SPARQL constraint of a class's shape: a ``SELECT $this ...`` and its message."""

    select: str
    message: str


class ShapeSource(Protocol):
    """What a metamodel says beyond Ecore, as SHACL: per data type and per class."""

    def datatype(self, datatype: EDataType) -> DatatypeShape | None: ...

    def eclass(self, eclass: EClass) -> Sequence[SparqlCheck]: ...


@dataclass(frozen=True, slots=True)
class RdfOptions:
    """How to write or read RDF.

    ``format``: ``ttl``, ``nt``, ``jsonld`` or ``xml`` (None: from the file's extension,
    else Turtle). ``id_of`` names objects; ``base`` is the instances' IRI base (ends in
    ``#`` or ``/``). ``metamodel``/``instances`` choose what is written (the metamodel of
    the instances' classes plus ``packages``). ``check`` validates instances first.
    ``shapes`` gives the SHACL a metamodel's annotations say. ``prefixes`` are added to the
    predeclared ones. ``max_bytes`` caps reading.
    """

    format: str | None = None
    id_of: IdFunction | None = None
    base: str = DEFAULT_BASE
    metamodel: bool = True
    instances: bool = True
    packages: tuple[EPackage, ...] = ()
    check: bool = True
    shapes: ShapeSource | None = None
    prefixes: tuple[tuple[str, str], ...] = ()
    max_bytes: int = 512 * 1024 * 1024


def format_of(path: Path | str, name: str | None = None) -> str:
    """The format name for `name` (if given) or the file's extension (Turtle by default).

    Raises:
        CfUsageError: an unknown format name.
    """
    if name is not None:
        if name not in FORMATS:
            known = ", ".join(FORMATS)
            raise CfUsageError(f"unknown RDF format {name!r}; known: {known}", code="unknown-format")
        return name
    return EXTENSIONS.get(Path(str(path)).suffix.lower(), "ttl")


# ---- names ---------------------------------------------------------------------------

_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')


def iri_safe(text: str) -> str:
    """`text` with the characters an IRI cannot hold percent-encoded."""
    return _IRI_UNSAFE.sub(lambda m: f"%{ord(m.group()):02X}", text)


def namespace(pkg: EPackage) -> str:
    """A package's namespace IRI: its nsURI, with ``#`` unless it ends in ``#`` or ``/``."""
    uri = iri_safe(str(pkg.nsURI or f"urn:cfmodel:package:{pkg.name}"))
    return uri if uri.endswith(("#", "/")) else uri + "#"


def class_iri(classifier: Any) -> str:
    """A classifier's IRI: ``ns + name`` for a class, ``ns + "datatype." + name`` for a data
    type or enum (cf names typedefs like attributes: ``port`` is both)."""
    kind = "" if isinstance(classifier, EClass) else "datatype."
    return namespace(classifier.ePackage) + kind + iri_safe(str(classifier.name))


def shape_iri(classifier: Any) -> str:
    """The SHACL node shape of a class (``ns + "shape." + name``) or of a data type
    (``ns + "shape.datatype." + name``)."""
    return (
        namespace(classifier.ePackage)
        + "shape."
        + class_iri(classifier)[len(namespace(classifier.ePackage)) :]
    )


def ontology_iri(pkg: EPackage) -> str:
    """A package's ontology: its nsURI (or its namespace without the ``#``)."""
    return iri_safe(str(pkg.nsURI or namespace(pkg).rstrip("#")))


def feature_iri(f: Any) -> str:
    return namespace(f.eContainingClass.ePackage) + iri_safe(str(f.name))


_IRI_SAFE = "-._~!$&'()*+,;=:@/"
_NEEDS_QUOTE = re.compile(r"[^A-Za-z0-9" + re.escape(_IRI_SAFE) + "]")
_ASCII_QUOTED = {c: f"%{c:02X}" for c in range(128) if _NEEDS_QUOTE.match(chr(c))}


def object_iri(base: str, name: str) -> str:
    """The IRI of an object: `base` and its id (or positional fragment), percent-encoded
    (``urllib.parse.quote`` with the IRI's safe characters; ASCII at C speed)."""
    if _NEEDS_QUOTE.search(name) is None:
        return base + name
    if name.isascii():
        return base + name.translate(_ASCII_QUOTED)
    return base + quote(name, safe=_IRI_SAFE)


def prefixes_of(packages: Iterable[EPackage], extra: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """Prefix -> namespace: the standard ones, one per package (its nsPrefix), then `extra`."""
    out = dict(STANDARD_PREFIXES)
    for pkg in all_packages(packages):
        prefix = _prefix_name(str(pkg.nsPrefix or pkg.name or "ns"))
        name, n = prefix, 1
        while name in out and out[name] != namespace(pkg):
            name, n = f"{prefix}{n}", n + 1
        out[name] = namespace(pkg)
    out.update(extra)
    return out


def _prefix_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", text).strip(".")
    return name if name[:1].isalpha() else f"ns_{name}"


def all_packages(packages: Iterable[EPackage]) -> list[EPackage]:
    """The packages and their subpackages, each once, in order."""
    out: list[EPackage] = []
    seen: set[int] = set()
    stack = list(packages)[::-1]
    while stack:
        pkg = stack.pop()
        if id(pkg) in seen:
            continue
        seen.add(id(pkg))
        out.append(pkg)
        stack.extend(list(pkg.eSubpackages)[::-1])
    return out


def root_packages_of(objects: Iterable[EObject]) -> list[EPackage]:
    """The root packages of the objects' classes (and of their supertypes), in first-use order."""
    found: dict[int, EPackage] = {}
    for eclass in {id(o.eClass): o.eClass for o in objects}.values():
        for cls in [eclass, *eclass.eAllSuperTypes()]:
            pkg = cls.ePackage
            while pkg is not None and pkg.eSuperPackage is not None:
                pkg = pkg.eSuperPackage
            if pkg is not None:
                found.setdefault(id(pkg), pkg)
    return list(found.values())


def with_referenced_packages(packages: Sequence[EPackage]) -> list[EPackage]:
    """The packages, then (in first-reference order) the root packages their classes'
    supertypes and feature types come from, transitively; Ecore's own package aside. A
    document written with them is a whole metamodel: `rdfmeta` reads it back alone."""
    out = list(packages)
    seen = {id(p) for p in out}
    index = 0
    while index < len(out):
        for pkg in all_packages([out[index]]):
            for c in pkg.eClassifiers:
                if not isinstance(c, EClass):
                    continue
                used = [*c.eSuperTypes, *(f.eType for f in c.eStructuralFeatures)]
                for t in used:
                    root = t.ePackage if t is not None else None
                    while root is not None and root.eSuperPackage is not None:
                        root = root.eSuperPackage
                    if root is not None and id(root) not in seen and root.nsURI != ECORE_NS:
                        seen.add(id(root))
                        out.append(root)
        index += 1
    return out


# ---- values --------------------------------------------------------------------------


def _xsd(dt: Any) -> str:
    if isinstance(dt, EEnum):
        return XSD + "string"
    try:
        return XSD + XSD_OF[datatypes.codec_for(dt).name]
    except CfModelError:
        return RDFS + "Literal"


class _Values:
    """Attribute values -> literals, per feature (codec and datatype looked up once)."""

    def __init__(self) -> None:
        self.kinds: dict[int, tuple[Any, str]] = {}

    def literal(self, f: Any, value: Any) -> Literal:
        kind = self.kinds.get(id(f))
        if kind is None:
            etype = f.eType
            codec = datatypes.codec_for(etype)
            kind = self.kinds[id(f)] = (codec, XSD + "string" if isinstance(etype, EEnum) else _xsd(etype))
        codec, dt = kind
        name = codec.name
        if name == "EString":
            return Literal(value, dt)
        if type(value) is int and name in ("EInt", "ELong", "ELongObject", "EIntegerObject"):
            return Literal(str(value), dt)
        if name in ("EDouble", "EDoubleObject", "EFloat", "EFloatObject"):
            v = float(value)
            if math.isnan(v):
                return Literal("NaN", dt)
            if math.isinf(v):
                return Literal("INF" if v > 0 else "-INF", dt)
            return Literal(repr(v), dt)
        if name == "EDate":
            utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
            text = utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
            return Literal(text, dt)
        return Literal(codec.to_literal(value), dt)


def parse_value(f: Any, lexical: str, where: str) -> Any:
    """A literal's lexical form as a value of the attribute's type.

    Raises:
        CfSerializationError: not a value of that type.
    """
    codec = datatypes.codec_for(f.eType)
    if codec.name in ("EDouble", "EDoubleObject", "EFloat", "EFloatObject"):
        lexical = _XSD_FLOATS.get(lexical.strip(), lexical)
    elif codec.name == "EBigDecimal" and lexical.strip().endswith("."):
        lexical = lexical.strip() + "0"
    elif codec.name in ("EBoolean", "EBooleanObject") and lexical.strip() in ("1", "0"):
        lexical = "true" if lexical.strip() == "1" else "false"
    if codec.name == "EDate":
        return _parse_date(lexical, where)
    value = datatypes.parse_literal(codec, lexical, where)
    if not codec.check(value):
        raise CfSerializationError(f"{where}: {lexical!r} is not a valid {codec.name}", code="bad-value")
    return value


def _parse_date(lexical: str, where: str) -> datetime:
    """An ``xsd:dateTime`` (any spelling rdflib gives it) as EMF's date: UTC, milliseconds."""
    try:
        value = datetime.fromisoformat(lexical.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise CfSerializationError(f"{where}: bad EDate value {lexical!r}", code="bad-value") from exc
    utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return utc.replace(microsecond=utc.microsecond // 1000 * 1000)


# ---- instances -> triples ------------------------------------------------------------


def instance_triples(
    roots: Sequence[EObject], ids: dict[EObject, str], base: str, cache: model.FeatureCache | None = None
) -> list[Triple]:
    """The triples of an instance model (objects in EMF's ``getAllContents`` order)."""
    features = cache or model.FeatureCache()
    objects = canonical.contents(roots, features)
    names = linking.Fragments(list(roots), ids)
    iris: dict[int, str] = {}

    def iri(obj: EObject) -> str:
        found = iris.get(id(obj))
        if found is None:
            found = iris[id(obj)] = object_iri(base, names(obj))
        return found

    out: list[Triple] = []
    add = out.append
    values = _Values()
    plans: dict[int, tuple[str, list[tuple[Any, str, bool, bool]]]] = {}
    sequences = 0
    for obj in objects:
        eclass = obj.eClass
        plan = plans.get(id(eclass))
        if plan is None:
            plan = plans[id(eclass)] = (
                class_iri(eclass),
                [
                    (f, feature_iri(f), bool(f.many), isinstance(f, EAttribute))
                    for f in features.persistent(eclass)
                    if not model.is_container_ref(f)
                ],
            )
        s = iri(obj)
        add((s, RDF_TYPE, plan[0]))
        for f, p, many, attribute in plan[1]:
            if many:
                items = list(obj.eGet(f))
                if not items:
                    continue
                terms: list[Term] = (
                    [values.literal(f, v) for v in items] if attribute else [iri(v) for v in items]
                )
                for term in dict.fromkeys(terms):
                    add((s, p, term))
                if len(terms) > 1:
                    keys = [_order_key(t) for t in terms]
                    # literals other than strings may be respelled by a reader: always listed
                    spelled = attribute and terms[0].datatype != _STRING  # type: ignore[union-attr]
                    if spelled or len(set(keys)) < len(keys) or keys != sorted(keys):
                        sequences += 1
                        _sequence(out, s, p, terms, f"q{sequences}")
            elif obj.eIsSet(f):
                v = obj.eGet(f)
                if v is not None:
                    add((s, p, values.literal(f, v) if attribute else iri(v)))
    root_iris = [iri(r) for r in roots]
    if root_iris != sorted(root_iris):
        for position, s in enumerate(root_iris):
            add((s, CFM_POSITION, Literal(str(position), XSD + "integer")))
    return out


def _order_key(term: Term) -> str:
    return term.lexical if isinstance(term, Literal) else str(term)


def _sequence(out: list[Triple], s: str, p: str, terms: list[Term], label: str) -> None:
    node = Blank(label)
    out.append((s, CFM_SEQUENCE, node))
    out.append((node, CFM_FEATURE, p))
    _list(out, node, CFM_ITEMS, terms, label)


def _list(out: list[Triple], s: str, p: str, terms: Sequence[Term], label: str) -> None:
    """``s p ( terms )`` as an ``rdf:List`` with blank nodes ``label.0``, ``label.1``, ..."""
    if not terms:
        out.append((s, p, RDF_NIL))
        return
    cells = [Blank(f"{label}.{i}") for i in range(len(terms))]
    out.append((s, p, cells[0]))
    for i, (cell, term) in enumerate(zip(cells, terms, strict=True)):
        out.append((cell, RDF_FIRST, term))
        out.append((cell, RDF_REST, cells[i + 1] if i + 1 < len(cells) else RDF_NIL))


# ---- metamodel -> triples ------------------------------------------------------------


class _Schema:
    """Builds the RDFS/OWL and SHACL triples of a set of packages."""

    def __init__(self, shapes: ShapeSource | None) -> None:
        self.out: list[Triple] = []
        self.shapes = shapes
        self.blanks = 0
        self.datatype_shapes: dict[int, str | None] = {}

    def blank(self, hint: str) -> Blank:
        self.blanks += 1
        return Blank(f"{hint}{self.blanks}")

    def add(self, s: str, p: str, o: Term) -> None:
        self.out.append((s, p, o))

    def text(self, s: str, p: str, value: str) -> None:
        self.add(s, p, Literal(value, XSD + "string"))

    def triples(self, packages: Sequence[EPackage]) -> list[Triple]:
        pkgs = all_packages(packages)
        for pkg in pkgs:
            self.package(pkg)
        self.properties(pkgs)
        return self.out

    def package(self, pkg: EPackage) -> None:
        onto = ontology_iri(pkg)
        self.add(onto, RDF_TYPE, OWL + "Ontology")
        self.text(onto, RDFS + "label", str(pkg.name))
        if pkg.nsURI is not None:
            self.text(onto, CFM + "nsURI", str(pkg.nsURI))
        if pkg.nsPrefix is not None:
            self.text(onto, CFM + "nsPrefix", str(pkg.nsPrefix))
        if pkg.eSuperPackage is not None:
            self.add(onto, CFM + "subpackageOf", ontology_iri(pkg.eSuperPackage))
        self.sequence(onto, CFM + "classifiers", [class_iri(c) for c in pkg.eClassifiers])
        self.sequence(onto, CFM + "subpackages", [ontology_iri(sub) for sub in pkg.eSubpackages])
        self.annotations(onto, pkg)
        for classifier in pkg.eClassifiers:
            if isinstance(classifier, EClass):
                self.eclass(classifier, onto)
            elif isinstance(classifier, EEnum):
                self.enum(classifier, onto)
            elif isinstance(classifier, EDataType):
                self.datatype(classifier, onto)

    def sequence(self, s: str, p: str, items: Sequence[Term]) -> None:
        """``s p ( items )`` (the order a reader keeps), when there are items."""
        if items:
            _list(self.out, s, p, list(items), f"{self.blank('o')}.")

    def annotations(self, s: str, element: Any) -> None:
        """Every EAnnotation of `element`, in order: ``s cfm:annotations ( [ cfm:source
        "…" ; cfm:details ( [ cfm:key "…" ; cfm:value "…" ] … ) ] … )``."""
        nodes: list[Term] = []
        for annotation in element.eAnnotations:
            node = self.blank("a")
            if annotation.source is not None:
                self.text(node, CFM + "source", str(annotation.source))
            details: list[Term] = []
            for key, value in annotation.details.items():
                detail = self.blank("k")
                self.text(detail, CFM + "key", str(key))
                self.text(detail, CFM + "value", str(value))
                details.append(detail)
            self.sequence(node, CFM + "details", details)
            nodes.append(node)
        self.sequence(s, CFM + "annotations", nodes)

    def documented(self, element: Any, s: str, onto: str) -> None:
        self.text(s, RDFS + "label", str(element.name))
        self.add(s, RDFS + "isDefinedBy", onto)
        annotation = element.getEAnnotation(GENMODEL)
        doc = annotation.details.get("documentation") if annotation is not None else None
        if doc:
            self.text(s, RDFS + "comment", str(doc))

    def eclass(self, eclass: EClass, onto: str) -> None:
        c = class_iri(eclass)
        self.add(c, RDF_TYPE, OWL + "Class")
        self.documented(eclass, c, onto)
        if eclass.abstract:
            self.add(c, CFM + "abstract", _TRUE)
        if eclass.interface:
            self.add(c, CFM + "interface", _TRUE)
        for sup in eclass.eSuperTypes:
            self.add(c, RDFS + "subClassOf", class_iri(sup))
        if len(eclass.eSuperTypes) > 1:
            self.sequence(c, CFM + "supertypes", [class_iri(sup) for sup in eclass.eSuperTypes])
        self.sequence(c, CFM + "features", [feature_iri(f) for f in eclass.eStructuralFeatures])
        self.annotations(c, eclass)
        shape = shape_iri(eclass)
        self.add(shape, RDF_TYPE, SH + "NodeShape")
        self.add(shape, SH + "targetClass", c)
        for f in eclass.eStructuralFeatures:
            self.restriction(c, f)
            if model.is_persistent(f) and not model.is_container_ref(f):
                self.property_shape(shape, f)
        for check in self.shapes.eclass(eclass) if self.shapes is not None else ():
            node = self.blank("s")
            self.add(shape, SH + "sparql", node)
            self.add(node, RDF_TYPE, SH + "SPARQLConstraint")
            self.text(node, SH + "message", check.message)
            self.text(node, SH + "select", check.select)

    def range_of(self, f: Any) -> str:
        etype = f.eType
        if isinstance(f, EAttribute):
            return class_iri(etype) if not datatypes.is_ecore_builtin(etype) else _xsd(etype)
        return class_iri(etype)

    def restriction(self, c: str, f: Any) -> None:
        p = feature_iri(f)
        r = self.blank("r")
        self.add(c, RDFS + "subClassOf", r)
        self.add(r, RDF_TYPE, OWL + "Restriction")
        self.add(r, OWL + "onProperty", p)
        self.add(r, OWL + "allValuesFrom", self.range_of(f))
        self.feature_facts(r, f)
        lower, upper = int(f.lowerBound), (1 if not f.many else int(f.upperBound))
        n = XSD + "nonNegativeInteger"
        if lower == upper and lower > 0:
            self.add(r, OWL + "cardinality", Literal(str(lower), n))
            return
        if lower > 0:
            r2 = self.blank("r")
            self.add(c, RDFS + "subClassOf", r2)
            self.add(r2, RDF_TYPE, OWL + "Restriction")
            self.add(r2, OWL + "onProperty", p)
            self.add(r2, OWL + "minCardinality", Literal(str(lower), n))
        if upper > 0:
            r3 = self.blank("r")
            self.add(c, RDFS + "subClassOf", r3)
            self.add(r3, RDF_TYPE, OWL + "Restriction")
            self.add(r3, OWL + "onProperty", p)
            self.add(r3, OWL + "maxCardinality", Literal(str(upper), n))

    def feature_facts(self, r: Blank, f: Any) -> None:
        """What Ecore says of a feature beyond OWL, on its ``owl:allValuesFrom``
        restriction: flags that differ from EMF's defaults, the default value literal, the
        Ecore type when its XSD type does not name it, containment, the opposite."""
        for name, default in FEATURE_FLAGS:
            if bool(getattr(f, name)) != default:
                self.add(r, CFM + name, Literal("false" if default else "true", XSD + "boolean"))
        if isinstance(f, EAttribute) and f.iD:
            self.add(r, CFM + "iD", _TRUE)
        if int(f.upperBound) < -1 or int(f.upperBound) == 0:  # EMF's "unspecified" (-2) and the like
            self.add(r, CFM + "upperBound", Literal(str(int(f.upperBound)), XSD + "integer"))
        literal = model.default_literal(f)
        if literal is not None:
            self.text(r, CFM + "default", literal)
        etype = f.eType
        builtin = isinstance(f, EAttribute) and datatypes.is_ecore_builtin(etype)
        if builtin and BUILTIN_OF_XSD.get(_xsd(etype)) != etype.name:
            self.text(r, CFM + "ecoreType", str(etype.name))
        if isinstance(f, EReference):
            if f.containment:
                self.add(r, CFM + "containment", _TRUE)
            if f.eOpposite is not None:
                self.add(r, CFM + "opposite", feature_iri(f.eOpposite))
        self.annotations(r, f)

    def property_shape(self, shape: str, f: Any) -> None:
        p = feature_iri(f)
        ps = self.blank("p")
        self.add(shape, SH + "property", ps)
        self.add(ps, SH + "path", p)
        self.text(ps, SH + "name", str(f.name))
        lower = int(f.lowerBound)
        required = lower if f.many else (1 if lower > 0 and not _has_default(f) else 0)
        if required > 0:
            self.add(ps, SH + "minCount", Literal(str(required), XSD + "integer"))
        upper = 1 if not f.many else int(f.upperBound)
        if upper > 0:
            self.add(ps, SH + "maxCount", Literal(str(upper), XSD + "integer"))
        etype = f.eType
        if isinstance(f, EReference):
            self.add(ps, SH + "class", class_iri(etype))
            if f.eOpposite is not None:
                self.opposite(ps, f)
            return
        if isinstance(etype, EEnum):
            literals: list[Term] = [
                Literal(datatypes.literal_text(lit), XSD + "string") for lit in etype.eLiterals
            ]
            _list(self.out, ps, SH + "in", literals, f"{self.blank('e')}.")
            return
        self.add(ps, SH + "datatype", _xsd(etype))
        node = self.datatype_shape(etype)
        if node is not None:
            self.add(ps, SH + "node", node)

    def opposite(self, ps: Blank, f: Any) -> None:
        sparql = self.blank("s")
        self.add(ps, SH + "sparql", sparql)
        self.add(sparql, RDF_TYPE, SH + "SPARQLConstraint")
        opposite = feature_iri(f.eOpposite)
        message = f"{{?value}} does not list {{$this}} back in {f.eOpposite.name}"
        self.text(sparql, SH + "message", message)
        query = (
            f"SELECT $this ?value WHERE {{ $this <{feature_iri(f)}> ?value . "
            f"FILTER NOT EXISTS {{ ?value <{opposite}> $this }} }}"
        )
        self.text(sparql, SH + "select", query)

    def datatype_shape(self, dt: EDataType) -> str | None:
        if id(dt) in self.datatype_shapes:
            return self.datatype_shapes[id(dt)]
        found = self.shapes.datatype(dt) if self.shapes is not None else None
        iri = None
        if found is not None and (found.constraints or found.unexpressed):
            iri = shape_iri(dt)
            self.add(iri, RDF_TYPE, SH + "NodeShape")
            if found.message:
                self.text(iri, SH + "message", found.message)
            self.constraints(iri, found.constraints)
            for i, reason in enumerate(found.unexpressed):
                note = Blank(f"{iri.rsplit('#', 1)[-1]}.unexpressed{i}")
                self.add(iri, CFM + "unexpressed", note)
                self.add(note, RDF_TYPE, SH + "NodeShape")
                self.add(note, SH + "deactivated", Literal("true", XSD + "boolean"))
                self.text(note, SH + "message", reason)
        self.datatype_shapes[id(dt)] = iri
        return iri

    def constraints(self, node: str, constraints: Iterable[tuple[str, Any]]) -> None:
        for predicate, value in constraints:
            if predicate in (SH + "or", SH + "and", SH + "xone"):
                members = []
                for nested in value:
                    member = self.blank("c")
                    self.constraints(member, nested)
                    members.append(member)
                _list(self.out, node, predicate, members, f"{self.blank('l')}.")
            elif predicate == SH + "not":
                member = self.blank("c")
                self.constraints(member, value)
                self.add(node, predicate, member)
            elif predicate == SH + "in":
                _list(self.out, node, predicate, [_constant(v) for v in value], f"{self.blank('l')}.")
            else:
                self.add(node, predicate, _constant(value))

    def enum(self, enum: EEnum, onto: str) -> None:
        e = class_iri(enum)
        self.add(e, RDF_TYPE, RDFS + "Datatype")
        self.documented(enum, e, onto)
        one_of = self.blank("d")
        self.add(e, OWL + "equivalentClass", one_of)
        self.add(one_of, RDF_TYPE, RDFS + "Datatype")
        literals: list[Term] = [
            Literal(datatypes.literal_text(lit), XSD + "string") for lit in enum.eLiterals
        ]
        _list(self.out, one_of, OWL + "oneOf", literals, f"{self.blank('e')}.")
        nodes: list[Term] = []
        for lit in enum.eLiterals:
            node = self.blank("n")
            self.text(node, RDFS + "label", str(lit.name))
            self.add(node, CFM + "enumValue", Literal(str(int(lit.value or 0)), XSD + "integer"))
            if lit.literal is not None:
                self.text(node, CFM + "literal", str(lit.literal))
            self.annotations(node, lit)
            nodes.append(node)
        self.sequence(e, CFM + "literals", nodes)
        self.annotations(e, enum)

    def datatype(self, dt: EDataType, onto: str) -> None:
        d = class_iri(dt)
        self.add(d, RDF_TYPE, RDFS + "Datatype")
        self.documented(dt, d, onto)
        self.add(d, OWL + "equivalentClass", _xsd(dt))
        if dt.instanceClassName:
            self.text(d, CFM + "instanceClassName", str(dt.instanceClassName))
        self.annotations(d, dt)

    def properties(self, pkgs: list[EPackage]) -> None:
        """One property per IRI: its kind, domain(s), range(s) and inverse."""
        grouped: dict[str, list[Any]] = {}
        for pkg in pkgs:
            for classifier in pkg.eClassifiers:
                if isinstance(classifier, EClass):
                    for f in classifier.eStructuralFeatures:
                        grouped.setdefault(feature_iri(f), []).append(f)
        for p, features in grouped.items():
            first = features[0]
            kinds = {isinstance(f, EAttribute) for f in features}
            kind = "DatatypeProperty" if kinds == {True} else "ObjectProperty" if kinds == {False} else ""
            self.add(
                p, RDF_TYPE, OWL + kind if kind else RDF + "Property"
            )  # both: an attribute and a reference
            self.text(p, RDFS + "label", str(first.name))
            self.union(p, RDFS + "domain", [class_iri(f.eContainingClass) for f in features], OWL + "Class")
            datatype = (
                RDFS + "Datatype" if kind == "DatatypeProperty" else OWL + "Class" if kind else RDFS + "Class"
            )
            self.union(p, RDFS + "range", [self.range_of(f) for f in features], datatype)
            if kind == "ObjectProperty" and first.eOpposite is not None and len(features) == 1:
                self.add(p, OWL + "inverseOf", feature_iri(first.eOpposite))
            if kind == "ObjectProperty" and all(getattr(f, "containment", False) for f in features):
                self.add(p, CFM + "containment", Literal("true", XSD + "boolean"))
            doc = _documentation(first)
            if doc and len(features) == 1:
                self.text(p, RDFS + "comment", doc)

    def union(self, s: str, p: str, members: list[str], kind: str) -> None:
        distinct = list(dict.fromkeys(members))
        if len(distinct) == 1:
            self.add(s, p, distinct[0])
            return
        node = self.blank("u")
        self.add(s, p, node)
        self.add(node, RDF_TYPE, kind)
        _list(self.out, node, OWL + "unionOf", distinct, f"{node}.")


_TRUE = Literal("true", XSD + "boolean")
#: Ecore feature flags written as ``cfm:<name>`` when they differ from EMF's default
FEATURE_FLAGS = (
    ("ordered", True),
    ("unique", True),
    ("changeable", True),
    ("volatile", False),
    ("transient", False),
    ("unsettable", False),
    ("derived", False),
)
#: XSD type -> the Ecore data type it stands for when no ``cfm:ecoreType`` says otherwise
BUILTIN_OF_XSD: dict[str, str] = {
    XSD + "string": "EString",
    XSD + "boolean": "EBoolean",
    XSD + "int": "EInt",
    XSD + "long": "ELong",
    XSD + "short": "EShort",
    XSD + "integer": "EBigInteger",
    XSD + "double": "EDouble",
    XSD + "float": "EFloat",
    XSD + "decimal": "EBigDecimal",
    XSD + "dateTime": "EDate",
}


def _has_default(f: Any) -> bool:
    return isinstance(f, EAttribute) and f.defaultValueLiteral is not None


def _documentation(element: Any) -> str | None:
    annotation = element.getEAnnotation(GENMODEL)
    doc = annotation.details.get("documentation") if annotation is not None else None
    return str(doc) if doc else None


def _constant(value: Any) -> Term:
    """A Python constant of a SHACL constraint as an RDF term."""
    if isinstance(value, Literal):
        return value
    if isinstance(value, bool):
        return Literal("true" if value else "false", XSD + "boolean")
    if isinstance(value, int):
        return Literal(str(value), XSD + "integer")
    if isinstance(value, float):
        return Literal(repr(value), XSD + "double")
    return Literal(str(value), XSD + "string")


def metamodel_triples(packages: Sequence[EPackage], shapes: ShapeSource | None = None) -> list[Triple]:
    """The RDFS/OWL and SHACL triples of the packages (and their subpackages)."""
    return _Schema(shapes).triples(packages)


# ---- triples -> text -----------------------------------------------------------------

_NT_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})
_NT_SPECIAL = re.compile(r'[\\"\n\r]')
_STRING = XSD + "string"


def _nt_term(term: Term) -> str:
    if type(term) is str:
        return f"<{term}>"
    if type(term) is Blank:
        return f"_:{_bnode_label(term)}"
    assert isinstance(term, Literal)
    text = term.lexical.translate(_NT_ESCAPES)
    return f'"{text}"' if term.datatype == _STRING else f'"{text}"^^<{term.datatype}>'


def _bnode_label(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", label) if not label.isalnum() else label


def ntriples(triples: Iterable[Triple]) -> bytes:
    """N-Triples text of the triples, in their order (one line each)."""
    cache: dict[str, str] = {}
    lines: list[str] = []
    append = lines.append
    for s, p, o in triples:
        st = cache.get(s)
        if st is None:
            st = cache[s] = _nt_term(s)
        pt = cache.get(p)
        if pt is None:
            pt = cache[p] = f"<{p}>"
        ot = cache.get(o) if type(o) is str else None
        if ot is None:
            ot = _nt_term(o)
            if type(o) is str:
                cache[o] = ot
        append(f"{st} {pt} {ot} .\n")
    return "".join(lines).encode("utf-8")


def to_graph(triples: Iterable[Triple], prefixes: dict[str, str] | None = None, graph: Any = None) -> Any:
    """The triples in an rdflib `Graph` (a new in-memory one unless `graph` is given)."""
    import rdflib

    g = graph if graph is not None else rdflib.Graph()
    for prefix, uri in (prefixes or {}).items():
        g.bind(prefix, rdflib.Namespace(uri), override=True, replace=True)
    terms: dict[Any, Any] = {}

    def term(t: Term) -> Any:
        found = terms.get(t)
        if found is None:
            if type(t) is str:
                found = rdflib.URIRef(t)
            elif type(t) is Blank:
                found = rdflib.BNode(_bnode_label(t))
            else:
                assert isinstance(t, Literal)
                found = (  # a string is a plain literal (the same in RDF 1.1, shorter in Turtle)
                    rdflib.Literal(t.lexical, datatype=rdflib.URIRef(t.datatype))
                    if t.datatype != _STRING
                    else rdflib.Literal(t.lexical)
                )
            terms[t] = found
        return found

    g.addN((term(s), term(p), term(o), g) for s, p, o in triples)
    return g


def graph_triples(graph: Any) -> list[Triple]:
    """An rdflib graph's triples as terms of this module (sorted: graphs have no order)."""
    import rdflib

    def term(t: Any) -> Term:
        if isinstance(t, rdflib.BNode):
            return Blank(str(t))
        if isinstance(t, rdflib.Literal):
            datatype = t.datatype if t.datatype is not None else _STRING
            return Literal(str(t), str(datatype))
        return str(t)

    triples: list[Triple] = [(cast(str, term(s)), str(p), term(o)) for s, p, o in graph]
    return sorted(triples, key=lambda t: (t[0], t[1], _order_key(t[2])))


def serialize(triples: list[Triple], fmt: str, prefixes: dict[str, str]) -> bytes:
    """The triples as a document in format `fmt` (``ttl``, ``nt``, ``jsonld``, ``xml``).

    All four are written here, subjects in order of first use (rdflib orders them by hash,
    so its output would change from run to run): Turtle with prefixed names, blank nodes
    used once nested and lists as ``( … )`` (`turtle`), N-Triples, JSON-LD (flattened,
    one node object per subject) and RDF/XML (one ``rdf:Description`` per subject).
    """
    if fmt == "nt":
        return ntriples(triples)
    if fmt == "ttl":
        return turtle(triples, prefixes)
    if fmt == "jsonld":
        return jsonld(triples, prefixes)
    if fmt == "xml":
        return rdfxml(triples, prefixes)
    raise CfUsageError(f"unknown RDF format {fmt!r}; known: {', '.join(FORMATS)}", code="unknown-format")


def _by_subject(triples: Iterable[Triple]) -> dict[str, list[tuple[str, Term]]]:
    grouped: dict[str, list[tuple[str, Term]]] = {}
    for s, p, o in triples:
        found = grouped.get(s)
        if found is None:
            found = grouped[s] = []
        found.append((p, o))
    return grouped


class _Compactor:
    """IRIs as prefixed names, with the longest namespace that leaves a plain local name."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        self.prefixes = sorted(((ns, p) for p, ns in prefixes.items()), key=lambda item: -len(item[0]))
        self.cache: dict[str, tuple[str, str] | None] = {}
        self.used: dict[str, str] = {}

    def split(self, iri: str) -> tuple[str, str] | None:
        """(prefix, local name) when `iri` is a namespace's plus an XML name, else None."""
        if iri not in self.cache:
            found = None
            for ns, prefix in self.prefixes:
                local = iri[len(ns) :]
                if iri.startswith(ns) and _XML_NAME.fullmatch(local):
                    found = (prefix, local)
                    self.used[prefix] = ns
                    break
            self.cache[iri] = found
        return self.cache[iri]

    def compact(self, iri: str) -> str:
        found = self.split(iri)
        return f"{found[0]}:{found[1]}" if found else iri


_XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def jsonld(triples: Iterable[Triple], prefixes: dict[str, str]) -> bytes:
    """Flattened JSON-LD: the prefixes as the context, one node object per subject."""
    names = _Compactor(prefixes)
    graph = []
    for s, pairs in _by_subject(triples).items():
        node: dict[str, Any] = {"@id": f"_:{_bnode_label(s)}" if type(s) is Blank else names.compact(s)}
        for p, o in pairs:
            if p == RDF_TYPE and type(o) is str:
                node.setdefault("@type", []).append(names.compact(o))
                continue
            if type(o) is str:
                value: dict[str, str] = {"@id": names.compact(o)}
            elif type(o) is Blank:
                value = {"@id": f"_:{_bnode_label(o)}"}
            else:
                assert isinstance(o, Literal)
                value = {"@value": o.lexical}
                if o.datatype != _STRING:
                    value["@type"] = names.compact(o.datatype)
            node.setdefault(names.compact(p), []).append(value)
        graph.append(node)
    context = dict(sorted((p, ns) for p, ns in names.used.items()))
    text = std_json.dumps({"@context": context, "@graph": graph}, ensure_ascii=False, indent=1)
    return (text + "\n").encode("utf-8")


def rdfxml(triples: Iterable[Triple], prefixes: dict[str, str]) -> bytes:
    """RDF/XML: one ``rdf:Description`` per subject, properties as prefixed elements.

    Raises:
        CfSerializationError: a predicate that ends in no XML name (RDF/XML cannot write it).
    """
    names = _Compactor(prefixes)
    body: list[str] = []
    for s, pairs in _by_subject(triples).items():
        about = f'rdf:nodeID="{_bnode_label(s)}"' if type(s) is Blank else f"rdf:about={quoteattr(s)}"
        body.append(f"  <rdf:Description {about}>\n")
        for p, o in pairs:
            split = names.split(p)
            if split is None:
                raise CfSerializationError(f"RDF/XML cannot write the property <{p}>", code="unsupported")
            tag = f"{split[0]}:{split[1]}"
            if type(o) is str:
                body.append(f"    <{tag} rdf:resource={quoteattr(o)}/>\n")
            elif type(o) is Blank:
                body.append(f'    <{tag} rdf:nodeID="{_bnode_label(o)}"/>\n')
            else:
                assert isinstance(o, Literal)
                typed = "" if o.datatype == _STRING else f" rdf:datatype={quoteattr(o.datatype)}"
                body.append(f"    <{tag}{typed}>{xml_escape(o.lexical, _XML_TEXT)}</{tag}>\n")
        body.append("  </rdf:Description>\n")
    names.used["rdf"] = RDF
    declarations = "".join(f"\n    xmlns:{p}={quoteattr(ns)}" for p, ns in sorted(names.used.items()))
    head = f'<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF{declarations}>\n'
    return (head + "".join(body) + "</rdf:RDF>\n").encode("utf-8")


_XML_TEXT = {"\r": "&#13;"}


# ---- Turtle --------------------------------------------------------------------------

# a local name this writer puts after a prefix: letters, digits, ``_ - .`` and ``%HH``
# escapes, not ending in ``.`` (a subset of Turtle's PN_LOCAL that every parser reads)
_TTL_LOCAL = re.compile(
    r"(?:[A-Za-z_]|%[0-9A-Fa-f]{2})(?:(?:[A-Za-z0-9_.\-]|%[0-9A-Fa-f]{2})*(?:[A-Za-z0-9_\-]|%[0-9A-Fa-f]{2}))?"
)
_TTL_PREFIX = re.compile(r"[A-Za-z](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_\-])?")
_TTL_INDENT = "    "


class _TurtleNames:
    """Terms as Turtle writes them: IRIs as prefixed names where a declared prefix's
    namespace leaves a plain local name (the longest such namespace), else ``<IRI>``."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        self.prefixes = {p: ns for p, ns in sorted(prefixes.items()) if _TTL_PREFIX.fullmatch(p)}
        self.longest_first = sorted(
            ((ns, p) for p, ns in self.prefixes.items()), key=lambda i: (-len(i[0]), i[1])
        )
        self.cache: dict[str, str] = {RDF_TYPE: "a"}

    def header(self) -> str:
        return "".join(f"@prefix {p}: <{ns}> .\n" for p, ns in self.prefixes.items()) + "\n"

    def iri(self, iri: str) -> str:
        """A predicate (``a`` for ``rdf:type``), class or data type: kept once made."""
        found = self.cache.get(iri)
        if found is None:
            found = self.cache[iri] = self.compact(iri)
        return found

    def compact(self, iri: str) -> str:
        for ns, prefix in self.longest_first:
            if iri.startswith(ns) and _TTL_LOCAL.fullmatch(iri, len(ns)):
                return f"{prefix}:{iri[len(ns) :]}"
        return f"<{iri}>"

    def object(self, iri: str) -> str:
        """An IRI in object position (``rdf:type`` too: ``a`` is only a predicate)."""
        return self.iri(iri) if iri != RDF_TYPE else self.compact(iri)

    def literal(self, term: Literal) -> str:
        text = term.lexical.translate(_NT_ESCAPES) if _NT_SPECIAL.search(term.lexical) else term.lexical
        return f'"{text}"' if term.datatype == _STRING else f'"{text}"^^{self.object(term.datatype)}'

    def term(self, term: Term) -> str:
        if type(term) is str:
            return self.object(term)
        if type(term) is Blank:
            return f"_:{_bnode_label(term)}"
        assert isinstance(term, Literal)
        return self.literal(term)


class _TurtleNesting:
    """Turtle of a list of triples: subjects in order of first use, each with its
    predicates in order (repeated ones as ``p o1, o2``); a blank node that is the object of
    exactly one triple is written there, as ``( … )`` when it is a well-formed
    ``rdf:List`` and as ``[ … ]`` otherwise; other blank nodes keep their labels."""

    def __init__(self, triples: Iterable[Triple], names: _TurtleNames) -> None:
        self.names = names
        self.by_subject = _by_subject(triples)
        uses: dict[str, int] = {}
        for pairs in self.by_subject.values():
            for _, o in pairs:
                if type(o) is Blank:
                    uses[o] = uses.get(o, 0) + 1
        self.nested = {b for b, n in uses.items() if n == 1}
        self.written: set[str] = set()

    def document(self) -> str:
        parts = []
        for s in self.by_subject:
            if s not in self.nested:
                parts.append(self.statement(s))
        for s in self.by_subject:  # blank nodes only in cycles of blank nodes
            if s not in self.written:
                parts.append(self.statement(s))
        return "".join(parts)

    def statement(self, s: str) -> str:
        self.written.add(s)
        return self.names.term(s) + self.predicates(self.by_subject.get(s, []), 1, " ") + " .\n\n"

    def predicates(self, pairs: list[tuple[str, Term]], depth: int, first: str) -> str:
        """``p o1,\n        o2 ;\n    q o3``: `first` before the first predicate, each
        other on its own line, a repeated predicate's objects one a line below it."""
        out = []
        pad = "\n" + _TTL_INDENT * depth
        previous = None
        for p, o in pairs:
            if p == previous:
                out.append("," + pad + _TTL_INDENT + self.object(o, depth + 1))
            else:
                lead = first if previous is None else " ;" + pad
                out.append(lead + self.names.iri(p) + " " + self.object(o, depth))
            previous = p
        return "".join(out)

    def object(self, o: Term, depth: int) -> str:
        if type(o) is not Blank or o not in self.nested or o in self.written:
            return self.names.term(o)
        items = self.items(o)
        if items is not None:
            return "(" + "".join(" " + self.object(item, depth + 1) for item in items) + " )"
        self.written.add(o)
        pairs = self.by_subject.get(o)
        if not pairs:
            return "[]"
        return "[" + self.predicates(pairs, depth + 1, " ") + " ]"

    def items(self, head: Blank) -> list[Term] | None:
        """The members of the ``rdf:List`` at `head`, its cells marked written; None when it
        is no well-formed list of cells used once each."""
        cells, items = [], []
        cell: Term = head
        while cell != RDF_NIL:
            pairs = self.by_subject.get(cell) if type(cell) is Blank else None
            if (
                pairs is None
                or cell not in self.nested
                or cell in self.written
                or cell in cells
                or len(pairs) != 2
                or pairs[0][0] != RDF_FIRST
                or pairs[1][0] != RDF_REST
            ):
                return None
            cells.append(cell)
            items.append(pairs[0][1])
            cell = pairs[1][1]
        self.written.update(cells)
        return items


def turtle(triples: Iterable[Triple], prefixes: dict[str, str]) -> bytes:
    """Turtle of the triples (`_TurtleNesting`), every prefix declared first."""
    names = _TurtleNames(prefixes)
    return (names.header() + _TurtleNesting(triples, names).document()).encode("utf-8")


# ---- writing -------------------------------------------------------------------------


@dataclass
class Prepared:
    """What a document holds: its roots, packages, objects and their ids, its prefixes."""

    roots: list[EObject]
    packages: list[EPackage]
    objects: list[EObject]
    ids: dict[EObject, str]
    cache: model.FeatureCache
    prefixes: dict[str, str]


def prepare(roots: Sequence[EObject], opts: RdfOptions) -> Prepared:
    """The document's parts, the instances checked (when `opts.check`): give it to
    `document_triples` and `write_ntriples` to write one model in both ways.

    Raises:
        CfSerializationError: the model breaks its metamodel (when checked).
    """
    if not opts.base.endswith(("#", "/")):
        raise CfUsageError(f"an RDF base IRI ends in '#' or '/': {opts.base!r}")
    roots = list(roots)
    cache = model.FeatureCache()
    packages = list(opts.packages)
    if roots:
        packages.extend(p for p in root_packages_of(canonical.walk(roots, cache)) if p not in packages)
    packages = with_referenced_packages(packages)
    objects: list[EObject] = []
    ids: dict[EObject, str] = {}
    if opts.instances and roots:
        objects = canonical.contents(roots, cache)
        ids = ids_from(opts.id_of, objects)
        if opts.check:
            _check(objects, ids, cache)
    prefixes = prefixes_of(packages, [("inst", opts.base), *opts.prefixes])
    return Prepared(roots, packages, objects, ids, cache, prefixes)


class _ShownIds(Mapping[EObject, str]):
    """Ids as the validator names objects in messages (NCNames), each made when asked."""

    def __init__(self, ids: dict[EObject, str]) -> None:
        self.ids = ids

    def __getitem__(self, obj: EObject) -> str:
        return ncname_id(self.ids[obj])

    def __iter__(self) -> Iterator[EObject]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


def _check(objects: list[EObject], ids: dict[EObject, str], cache: model.FeatureCache) -> None:
    """Validate the instances. Any distinct string ids make distinct IRIs (percent-encoding
    is injective; XMI's NCName rule does not apply): checked here at C speed, the validator
    then names objects by `ncname_id` only in its messages."""
    idents = list(ids.values())
    if all(type(i) is str for i in idents) and len(set(idents)) == len(idents):
        validate.check_objects(objects, _ShownIds(ids), cache, check_ids=False)
    else:
        validate.check_objects(objects, {o: ncname_id(i) for o, i in ids.items()}, cache)


def document_triples(
    roots: Sequence[EObject], options: RdfOptions | None = None, *, prepared: Prepared | None = None
) -> tuple[list[Triple], dict[str, str]]:
    """What `write` writes, as triples, and the prefixes to declare.

    Raises:
        CfSerializationError: the model breaks its metamodel (when checked) or holds a value
            RDF cannot carry.
    """
    opts = options or RdfOptions()
    doc = prepared if prepared is not None else prepare(roots, opts)
    triples: list[Triple] = []
    if opts.metamodel:
        triples.extend(metamodel_triples(doc.packages, opts.shapes))
    if doc.objects:
        triples.extend(instance_triples(doc.roots, doc.ids, opts.base, doc.cache))
    return triples, doc.prefixes


def write_ntriples(
    out: BinaryIO,
    roots: Sequence[EObject],
    options: RdfOptions | None = None,
    *,
    prepared: Prepared | None = None,
) -> int:
    """Stream the N-Triples document `write` writes to `out`: the same bytes as
    ``ntriples(document_triples(roots, options)[0])``, without a triple in memory (each
    line formatted from terms made once per class, feature and object; one write per
    chunk of objects). Returns the number of triples written.

    Raises:
        CfSerializationError: as `document_triples`.
    """
    opts = options or RdfOptions()
    doc = prepared if prepared is not None else prepare(roots, opts)
    count = 0
    if opts.metamodel:
        schema = metamodel_triples(doc.packages, opts.shapes)
        out.write(ntriples(schema))
        count += len(schema)
    if doc.objects:
        count += _NTriplesStream(out, doc, opts.base).write()
    return count


class _NTriplesStream:
    """`instance_triples` followed by `ntriples`, fused: lines go out chunk by chunk.
    `_TurtleStream` spells the same triples as Turtle through the hooks marked below."""

    CHUNK = 4096  # objects per write
    SUBJECT_EACH_LINE = True  # hook: N-Triples repeats the subject on every line
    OBJECT_END = ""  # hook: after an object's lines

    def __init__(self, out: BinaryIO, doc: Prepared, base: str) -> None:
        self.out = out
        self.doc = doc
        self.base = base
        self.names = linking.Fragments(doc.roots, doc.ids)
        self.iris: dict[int, str] = {}  # id(object) -> its IRI
        self.terms: dict[int, str] = {}  # id(object) -> its term as written
        self.values = _Values()

    def iri(self, obj: EObject) -> str:
        found = self.iris.get(id(obj))
        if found is None:
            found = self.iris[id(obj)] = object_iri(self.base, self.names(obj))
        return found

    def term(self, obj: EObject) -> str:
        found = self.terms.get(id(obj))
        if found is None:
            found = self.terms[id(obj)] = self.spell_iri(self.iri(obj))
        return found

    def spell_iri(self, iri: str) -> str:  # hook
        return f"<{iri}>"

    def spell_literal(self, literal: Literal) -> str:  # hook
        return _nt_term(literal)

    def type_line(self, eclass: EClass) -> str:  # hook: what follows the subject first
        return f" <{RDF_TYPE}> <{class_iri(eclass)}> .\n"

    def predicate(self, p: str) -> str:  # hook: what stands between subject and object
        return f" <{p}> "

    def plan(self, eclass: EClass) -> tuple[str, list[_FeaturePlan]]:
        """A class's ``rdf:type`` line end and its features' plans."""
        features = []
        for f in self.doc.cache.persistent(eclass):
            if model.is_container_ref(f):
                continue
            attribute = isinstance(f, EAttribute)
            spelling, typed = 0, ""
            if attribute and not f.many and not isinstance(f.eType, EEnum):
                name = datatypes.codec_for(f.eType).name
                if name == "EString":
                    spelling = 1
                elif name in _INT_CODECS:
                    spelling, typed = 2, '"^^' + self.spell_iri(_xsd(f.eType))
                elif name in ("EBoolean", "EBooleanObject"):
                    spelling, typed = 3, '"^^' + self.spell_iri(_xsd(f.eType))
            p = feature_iri(f)
            features.append(_FeaturePlan(f, p, self.predicate(p), bool(f.many), attribute, spelling, typed))
        return self.type_line(eclass), features

    def write(self) -> int:
        plans: dict[int, tuple[str, list[_FeaturePlan]]] = {}
        lines: list[str] = []
        add = lines.append
        count = sequences = 0
        items, literal, holders = fastpath.items, self.values.literal, fastpath.HOLDERS
        terms, special = self.terms, _NT_SPECIAL.search
        each_line, object_end = self.SUBJECT_EACH_LINE, self.OBJECT_END
        for index, obj in enumerate(self.doc.objects, 1):
            eclass = obj.eClass
            plan = plans.get(id(eclass))
            if plan is None:
                plan = plans[id(eclass)] = self.plan(eclass)
            s = self.term(obj)
            add(s + plan[0])
            head, end = (s, " .\n") if each_line else ("", "")
            isset, slots = obj._isset, obj.__dict__
            for f, p, pt, many, attribute, spelling, typed in plan[1]:
                if many:
                    values = list(items(obj, f))
                    if values:
                        sequences = self.many(s, f, p, values, attribute, sequences, lines)
                    continue
                if f not in isset:  # fastpath.single, inlined
                    continue
                holder = slots.get(f._name)
                v = holder._value if isinstance(holder, holders) else obj.eGet(f)
                if v is None:
                    continue
                if not attribute:
                    o = terms.get(id(v)) or self.term(v)
                elif spelling == 1:
                    o = '"' + (v.translate(_NT_ESCAPES) if special(v) else v) + '"'
                elif spelling == 2 and type(v) is int:
                    o = f'"{v}{typed}'
                elif spelling == 3 and (v is True or v is False):
                    o = ('"true' if v else '"false') + typed
                else:
                    o = self.spell_literal(literal(f, v))
                add(head + pt + o + end)
            if object_end:
                add(object_end)
            if index % self.CHUNK == 0:
                count += len(lines)
                self.out.write("".join(lines).encode("utf-8"))
                lines.clear()
        root_iris = [self.iri(r) for r in self.doc.roots]
        if root_iris != sorted(root_iris):
            for position, root in enumerate(root_iris):
                add(self.position_line(root, position))
        count += len(lines)
        self.out.write("".join(lines).encode("utf-8"))
        return count

    def position_line(self, root: str, position: int) -> str:  # hook
        return f'<{root}> <{CFM_POSITION}> "{position}"^^<{XSD}integer> .\n'

    def many(
        self, s: str, f: Any, p: str, values: list[Any], attribute: bool, sequences: int, lines: list[str]
    ) -> int:
        """The lines of a many-valued feature (and its ``cfm:sequence`` when needed), as
        `instance_triples` makes them. Returns the number of sequences made so far."""
        out, sequences = self.many_triples(s, f, p, values, attribute, sequences)
        for ts, tp, to in out:
            subject = ts if ts is s else _nt_term(ts)
            lines.append(f"{subject} <{tp}> {_nt_term(to)} .\n")
        return sequences

    def many_triples(
        self, s: str, f: Any, p: str, values: list[Any], attribute: bool, sequences: int
    ) -> tuple[list[Triple], int]:
        terms: list[Term] = (
            [self.values.literal(f, v) for v in values] if attribute else [self.iri(v) for v in values]
        )
        out: list[Triple] = [(s, p, term) for term in dict.fromkeys(terms)]
        if len(terms) > 1:
            keys = [_order_key(t) for t in terms]
            spelled = attribute and terms[0].datatype != _STRING  # type: ignore[union-attr]
            if spelled or len(set(keys)) < len(keys) or keys != sorted(keys):
                sequences += 1
                _sequence(out, s, p, terms, f"q{sequences}")
        return out, sequences


class _TurtleStream(_NTriplesStream):
    """The same triples as `_NTriplesStream`, in Turtle: one statement per object (``s a
    Class ;`` then a line per value), prefixed names, a ``cfm:sequence`` nested with its
    list as ``( … )``."""

    SUBJECT_EACH_LINE = False
    OBJECT_END = " .\n\n"

    def __init__(self, out: BinaryIO, doc: Prepared, base: str, names: _TurtleNames) -> None:
        super().__init__(out, doc, base)
        self.turtle = names
        # objects' IRIs: base + id, as `inst:id` when no longer namespace could take them
        by_base = [p for p, ns in names.prefixes.items() if ns == base]
        longer = any(ns.startswith(base) and ns != base for ns in names.prefixes.values())
        self.base_prefix = f"{by_base[0]}:" if by_base and not longer else None
        self.more_triples = 0  # triples of a many-valued feature beyond its one text

    def write(self) -> int:
        """The number of triples written (the texts counted, less the statements' ends)."""
        return super().write() - len(self.doc.objects) + self.more_triples

    def spell_iri(self, iri: str) -> str:
        base = self.base
        if self.base_prefix is not None and iri.startswith(base) and _TTL_LOCAL.fullmatch(iri, len(base)):
            return self.base_prefix + iri[len(base) :]
        return self.turtle.compact(iri)

    def spell_literal(self, literal: Literal) -> str:
        return self.turtle.literal(literal)

    def type_line(self, eclass: EClass) -> str:
        return " a " + self.turtle.object(class_iri(eclass))

    def predicate(self, p: str) -> str:
        return " ;\n" + _TTL_INDENT + self.turtle.iri(p) + " "

    def position_line(self, root: str, position: int) -> str:
        number = self.turtle.literal(Literal(str(position), XSD + "integer"))
        return f"{self.spell_iri(root)} {self.turtle.iri(CFM_POSITION)} {number} .\n"

    def many(
        self, s: str, f: Any, p: str, values: list[Any], attribute: bool, sequences: int, lines: list[str]
    ) -> int:
        out, sequences = self.many_triples(s, f, p, values, attribute, sequences)
        own = [(tp, to) for ts, tp, to in out if ts is s]
        self.more_triples += len(out) - 1
        lines.append(_TurtleNesting(out, self.turtle).predicates(own, 1, " ;\n" + _TTL_INDENT))
        return sequences


_INT_CODECS = frozenset({"EInt", "ELong", "ELongObject", "EIntegerObject"})


class _FeaturePlan(NamedTuple):
    """How `_NTriplesStream` writes one feature: its IRI, `` <IRI> ``, many?, attribute?,
    how a single value is spelled (0: by `_Values`, 1: a plain string, 2: an integer or
    3: a boolean, followed by `typed`, its datatype's end of the literal)."""

    feature: Any
    iri: str
    term: str
    many: bool
    attribute: bool
    spelling: int
    typed: str


def write_turtle(
    out: BinaryIO,
    roots: Sequence[EObject],
    options: RdfOptions | None = None,
    *,
    prepared: Prepared | None = None,
) -> int:
    """Stream the Turtle document `write` writes to `out`: every prefix declared, then the
    metamodel (`turtle`: blank nodes used once nested, lists as ``( … )``), then one
    statement per object written a chunk of objects at a time, never a list of the
    instances' triples (`_TurtleStream`). The same graph as `write_ntriples`' document,
    the same bytes for the same model. Returns the number of triples written.

    Raises:
        CfSerializationError: as `document_triples`.
    """
    opts = options or RdfOptions()
    doc = prepared if prepared is not None else prepare(roots, opts)
    names = _TurtleNames(doc.prefixes)
    out.write(names.header().encode("utf-8"))
    count = 0
    if opts.metamodel:
        schema = metamodel_triples(doc.packages, opts.shapes)
        out.write(_TurtleNesting(schema, names).document().encode("utf-8"))
        count += len(schema)
    if doc.objects:
        count += _TurtleStream(out, doc, opts.base, names).write()
    return count


_STREAMED = {"nt": write_ntriples, "ttl": write_turtle}


def to_bytes(roots: Sequence[EObject], options: RdfOptions | None = None, fmt: str = "ttl") -> bytes:
    """The document `write` writes, in format `fmt`."""
    streamed = _STREAMED.get(fmt)
    if streamed is not None:
        buffer = io.BytesIO()
        streamed(buffer, roots, options)
        return buffer.getvalue()
    triples, prefixes = document_triples(roots, options)
    return serialize(triples, fmt, prefixes)


def write(target: Path | str, roots: Sequence[EObject], options: RdfOptions | None = None) -> None:
    """Write the instance model (and/or its metamodel) to `target` atomically (N-Triples
    and Turtle streamed: see `write_ntriples`, `write_turtle`).

    Raises:
        CfSerializationError: the model breaks its metamodel (every problem as a note), or
            a value RDF cannot carry; nothing is written then.
    """
    opts = options or RdfOptions()
    fmt = format_of(target, opts.format)
    streamed = _STREAMED.get(fmt)
    if streamed is None:
        atomic.write_bytes(target, to_bytes(roots, opts, fmt))
        return
    doc = prepare(roots, opts)  # refused before the target is touched
    with atomic.atomic_writer(target) as out:
        streamed(out, roots, opts, prepared=doc)


# ---- reading -------------------------------------------------------------------------


def read(source: Path | str, resource_set: ResourceSet, options: RdfOptions | None = None) -> Document:
    """Read the instances of an RDF file into new objects; metamodels come from `resource_set`.

    Triples that describe no instance (a metamodel, shapes) are ignored.

    Raises:
        CfSerializationError: too large, not RDF in the format, a remote JSON-LD context, or
            not matching the metamodel (unknown class, bad value, unresolved reference).
    """
    opts = options or RdfOptions()
    name = str(source)
    try:
        size = Path(source).stat().st_size
        if size > opts.max_bytes:
            raise _fail(name, f"file is {size} bytes, over the limit of {opts.max_bytes}")
        data = Path(source).read_bytes()
    except OSError as exc:
        raise _fail(name, f"cannot read: {exc.strerror}") from exc
    return from_bytes(data, resource_set, name, format_of(source, opts.format), opts)


def parse_graph(data: bytes, fmt: str, name: str = "<bytes>") -> Any:
    """An rdflib `Graph` of a document (JSON-LD naming a remote context is refused).

    Raises:
        CfSerializationError: not a document in that format.
    """
    import rdflib

    if fmt == "jsonld":
        _check_jsonld(data, name)
    graph = rdflib.Graph()
    try:
        with warnings.catch_warnings():  # rdflib's JSON-LD parser warns about its own ConjunctiveGraph
            warnings.simplefilter("ignore", DeprecationWarning)
            graph.parse(data=data, format=FORMATS[fmt], publicID=f"urn:cfmodel:file:{quote(name)}")
    except Exception as exc:  # rdflib's parsers raise many kinds; every one means bad input
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise _fail(name, f"not valid {fmt}: {first}") from exc
    return graph


def _check_jsonld(data: bytes, name: str) -> None:
    try:
        doc = load_json(data.decode("utf-8"))  # nesting bounded (200) before parsing
    except (ValueError, RecursionError) as exc:
        raise _fail(name, f"not valid JSON: {exc}") from exc
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in ("@context", "@import") and _names_remote(value):
                    raise _fail(name, "the JSON-LD document names a remote context; cfmodel fetches nothing")
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)


def _names_remote(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return any(isinstance(v, str) for v in value)
    return False


def from_bytes(
    data: bytes,
    resource_set: ResourceSet,
    name: str = "<bytes>",
    fmt: str = "ttl",
    options: RdfOptions | None = None,
) -> Document:
    """`read` of a document in memory; an error about an IRI is located where the document
    first mentions it."""
    opts = options or RdfOptions()
    if len(data) > opts.max_bytes:
        raise _fail(name, f"document is {len(data)} bytes, over the limit of {opts.max_bytes}")
    graph = parse_graph(data, fmt, name)
    try:
        return from_graph(graph, resource_set, name, opts)
    except CfSerializationError as error:
        named = _FIRST_IRI.match(error.message)
        if error.span is None or (error.span.line, error.span.col) != (1, 1) or named is None:
            raise
        line, col = Locator(data, dict(graph.namespaces()))(named.group(1))
        raise CfSerializationError(
            error.message, Span(name, line, col, line, col + 1), code=error.code, notes=error.notes
        ) from None


_FIRST_IRI = re.compile(r"<([^<>\s]+)>")


class Locator:
    """The line and column where a document first mentions an IRI (as ``<IRI>`` or as a
    prefixed name), for error messages; (1, 1) when it does not."""

    def __init__(self, data: bytes, prefixes: dict[str, Any]) -> None:
        self.text = data.decode("utf-8", "replace")
        self.prefixes = sorted(((str(ns), p) for p, ns in prefixes.items()), key=lambda item: -len(item[0]))

    def __call__(self, iri: str) -> tuple[int, int]:
        forms = [f"<{iri}>", f'"{iri}"']
        for ns, prefix in self.prefixes:
            if iri.startswith(ns) and iri != ns:
                forms.append(f"{prefix}:{iri[len(ns) :]}")
        for form in forms:
            pattern = re.escape(form) + (r"(?![\w.-]*[\w-])" if not form.endswith((">", '"')) else "")
            found = re.search(pattern, self.text)
            if found is not None:
                start = found.start()
                line = self.text.count("\n", 0, start) + 1
                return line, start - (self.text.rfind("\n", 0, start) + 1) + 1
        return 1, 1


def from_graph(
    graph: Any, resource_set: ResourceSet, name: str = "<graph>", options: RdfOptions | None = None
) -> Document:
    """The instances an rdflib graph describes, as new objects in `resource_set`."""
    try:
        return _Reader(name, resource_set, options or RdfOptions()).read(graph)
    except CfSerializationError as error:
        if error.span is not None:
            raise
        raise _fail(name, error.message) from error


def _fail(name: str, message: str) -> CfSerializationError:
    return CfSerializationError(message, Span(name, 1, 1, 1, 2), code="bad-rdf")


@dataclass
class _Subject:
    obj: EObject
    values: dict[str, list[Any]] = field(default_factory=dict)
    sequences: dict[str, list[Any]] = field(default_factory=dict)
    position: int | None = None


class _Reader:
    def __init__(self, name: str, rset: ResourceSet, options: RdfOptions) -> None:
        self.name = name
        self.rset = rset
        self.options = options
        self.classes: dict[str, EClass] = {}
        for pkg in all_packages(local_registry(rset).values()):
            for classifier in pkg.eClassifiers:
                if isinstance(classifier, EClass) and not classifier.abstract and not classifier.interface:
                    self.classes[class_iri(classifier)] = classifier
        self.features: dict[int, dict[str, Any]] = {}

    def read(self, graph: Any) -> Document:
        subjects = self.subjects(graph)
        ids: dict[EObject, str] = {}
        for iri, subject in subjects.items():
            ident = self.ident(iri)
            if ident is not None:
                ids[subject.obj] = ident
        lists = _Lists(graph, self.name)
        for s, p, o in graph:
            found = subjects.get(str(s))
            if found is not None:
                self.triple(found, str(p), o, lists)
        contained: set[int] = set()
        links = linking.Linker()
        for iri, subject in subjects.items():
            self.fill(iri, subject, subjects, links, contained)
        links.add_missing_opposites()
        roots = [(iri, sub) for iri, sub in subjects.items() if id(sub.obj) not in contained]
        positioned = all(sub.position is not None for _, sub in roots)
        roots.sort(
            key=(lambda item: (item[1].position, item[0])) if positioned else (lambda item: ("", item[0]))
        )
        objects = [sub.obj for _, sub in roots]
        return Document(objects, ids, attach(self.rset, self.name, objects))

    def subjects(self, graph: Any) -> dict[str, _Subject]:
        import rdflib

        types: dict[str, list[EClass]] = {}
        for s, o in graph.subject_objects(rdflib.RDF.type):
            eclass = self.classes.get(str(o))
            if eclass is not None:
                types.setdefault(str(s), []).append(eclass)
        out: dict[str, _Subject] = {}
        for iri in sorted(types):
            classes = types[iri]
            specific = [c for c in classes if all(c is d or d in c.eAllSuperTypes() for d in classes)]
            if not specific:
                names = ", ".join(sorted(str(c.name) for c in classes))
                raise _fail(self.name, f"<{iri}> has unrelated classes: {names}")
            out[iri] = _Subject(specific[0]())
        return out

    def ident(self, iri: str) -> str | None:
        base = self.options.base
        if iri.startswith(base):
            rest = iri[len(base) :]
        elif "#" in iri:
            rest = iri.rsplit("#", 1)[1]
        else:
            return None
        ident = unquote(rest)
        return None if ident.startswith("/") or not ident else ident

    def feature_map(self, eclass: EClass) -> dict[str, Any]:
        found = self.features.get(id(eclass))
        if found is None:
            found = self.features[id(eclass)] = {
                feature_iri(f): f for f in model.persistent_features(eclass) if not model.is_container_ref(f)
            }
        return found

    def triple(self, subject: _Subject, p: str, o: Any, lists: _Lists) -> None:
        if p == RDF_TYPE:
            return
        if p == CFM_POSITION:
            subject.position = _integer(o, self.name)
            return
        if p == CFM_SEQUENCE:
            feature, items = lists.sequence(o)
            subject.sequences[feature] = items
            return
        if p in self.feature_map(subject.obj.eClass):
            subject.values.setdefault(p, []).append(o)

    def fill(
        self,
        iri: str,
        subject: _Subject,
        subjects: dict[str, _Subject],
        links: linking.Linker,
        contained: set[int],
    ) -> None:
        import rdflib

        obj = subject.obj
        features = self.feature_map(obj.eClass)
        for p in list(subject.sequences):
            if p not in features:
                raise _fail(
                    self.name, f"<{iri}>: a sequence for {p}, which class {obj.eClass.name} does not have"
                )
        for p, f in features.items():
            terms = subject.sequences.get(p)
            plain = subject.values.get(p, [])
            if terms is None:
                terms = sorted(plain, key=lambda t: str(t))
            elif set(map(str, terms)) != set(map(str, plain)):
                raise _fail(self.name, f"<{iri}>: the sequence of {f.name} does not list its values")
            if not terms:
                continue
            if not f.many and len(terms) > 1:
                raise _fail(self.name, f"<{iri}>: {len(terms)} values for single-valued {f.name}")
            where = f"<{iri}> {f.name}"
            if isinstance(f, EAttribute):
                values = []
                for t in terms:
                    if not isinstance(t, rdflib.Literal):
                        raise _fail(self.name, f"{where}: expected a literal, found <{t}>")
                    values.append(parse_value(f, str(t), where))
                if f.many:
                    obj.eGet(f).extend(values)
                else:
                    obj.eSet(f, values[0])
                continue
            targets = []
            for t in terms:
                target = subjects.get(str(t))
                if target is None:
                    raise _fail(self.name, f"{where}: unresolved reference <{t}>")
                targets.append(target.obj)
            if f.containment:
                self.contain(obj, f, targets, contained, where)
                continue
            bad = links.set_references(obj, f, targets)
            if bad is not None:
                raise _fail(self.name, f"{where}: target {bad.eClass.name} is not a {f.eType.name}")

    def contain(self, obj: EObject, f: Any, children: list[EObject], contained: set[int], where: str) -> None:
        for child in children:
            if id(child) in contained:
                raise _fail(self.name, f"{where}: an object contained twice")
            if child.eClass is not f.eType and f.eType not in child.eClass.eAllSuperTypes():
                raise _fail(self.name, f"{where}: {child.eClass.name} is not a {f.eType.name}")
            contained.add(id(child))
            linking.contain(obj, f, child)


class _Lists:
    """Reads ``cfm:sequence`` nodes and the ``rdf:List``\\ s they hold."""

    def __init__(self, graph: Any, name: str) -> None:
        self.graph = graph
        self.name = name

    def sequence(self, node: Any) -> tuple[str, list[Any]]:
        import rdflib

        feature = self.graph.value(node, rdflib.URIRef(CFM_FEATURE))
        head = self.graph.value(node, rdflib.URIRef(CFM_ITEMS))
        if feature is None or head is None:
            raise _fail(self.name, "a cfm:sequence without cfm:feature or cfm:items")
        items = []
        seen: set[Any] = set()
        while head != rdflib.RDF.nil:
            if head in seen or head is None:
                raise _fail(self.name, "a cfm:sequence whose rdf:List does not end in rdf:nil")
            seen.add(head)
            first = self.graph.value(head, rdflib.RDF.first)
            if first is None:
                raise _fail(self.name, "an rdf:List cell without rdf:first")
            items.append(first)
            head = self.graph.value(head, rdflib.RDF.rest)
        return str(feature), items


def _integer(term: Any, name: str) -> int:
    try:
        return int(str(term))
    except ValueError:
        raise _fail(name, f"cfm:position {str(term)!r} is not an integer") from None
