"""``cfmodel ecore import``: EMF metamodels (``.ecore``) back to ``.cf`` definitions.

Input: one or more ``.ecore`` files (read safely, all into one resource set, so files
may refer to each other in circles). Output: a project directory: ``project.yml``,
``main.cf`` and one module per root package under ``libs/`` (``module.yaml`` and
``model/…``; a package ``a::b`` is ``model/b.cf``, or ``model/b/_init.cf`` when it has
subpackages), rendered with the Jinja2 templates in ``cfmodel/templates/``.

What is written: entities (supertypes, attributes with types and defaults, docstrings),
relations with their multiplicities (one statement per ``eOpposite`` pair, placed in the
namespace of its first end), enums, typedefs, indexes, constructor typedefs and changed
inherited defaults — everything `lift` records, so ``.cf → .ecore → .cf → .ecore`` gives
the same ``.ecore`` the second time (docs/metamodel.md, "Reverse direction").

Metamodels that did not come from cfmodel are mapped as far as the language goes: Ecore
data types to ``string``/``int``/``float``/``bool`` (EDataTypes of their own become
typedefs only when they carry ExtendedMetaData facets: ``pattern``, ``enumeration``,
``min/maxInclusive``, ``min/maxExclusive``), upper bounds other than 1 to ``T[]``, a
class without supertypes to an entity (``std::Entity`` is its parent in the language),
names that are keywords of the language get a ``_`` appended. A ``# note:`` comment
marks each such change, and nothing is lost: each declaration of such a metamodel gets
its Ecore form in a ``#@ecore`` comment (`ecore_carry`; exact data types, flags,
operations, generics, annotations, order), which lift applies, so ``.ecore → .cf →
.ecore`` gives the same metamodel (checked by EMF on EMF's own metamodels and ESDL).
The built-in ``std`` package is never written (it is cfmodel's
own); its nsURI is resolved against cfmodel's ``std`` when no ``std.ecore`` is given.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from lxml import etree  # type: ignore[import-untyped]  # no stubs
from pyecore.ecore import EAttribute, EClass, EDataType, EEnum, EPackage, EReference
from pyecore.resources import ResourceSet

from cfmodel.errors import CfModelError, CfSerializationError, CfUsageError
from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str
from cfmodel.project import BUILTIN_MODULES, Namespace, Project
from cfmodel.project import parse_file as parse_cf
from cfmodel.serializers import atomic
from cfmodel.serializers import ecore as ecore_format
from cfmodel.serializers.base import ECORE_NS, XMI_NS, local_registry, register_packages
from cfmodel.serializers.xmlsafe import XmlLimits, parse_file
from cfmodel.transforms.cf import ecore_carry as carry
from cfmodel.transforms.cf import lift as lf
from cfmodel.transforms.cf.resolve import iter_expressions, resolve
from cfmodel.transforms.cf.unparse import literal, to_source
from cfmodel.transforms.cf.xsdregex import cf_regex_literal, xsd_to_python

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
STD_URI = lf.namespace_uri("std")
EXTENDED_METADATA = "http:///org/eclipse/emf/ecore/util/ExtendedMetaData"
KEYWORDS = carry.KEYWORDS
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Ecore's own data types and Java classes -> cf primitive
_ECORE_PRIMITIVES = {
    "EString": "string",
    "EChar": "string",
    "ECharacterObject": "string",
    "EDate": "string",
    "EInt": "int",
    "EIntegerObject": "int",
    "ELong": "int",
    "ELongObject": "int",
    "EShort": "int",
    "EShortObject": "int",
    "EByte": "int",
    "EByteObject": "int",
    "EBigInteger": "int",
    "EDouble": "float",
    "EDoubleObject": "float",
    "EFloat": "float",
    "EFloatObject": "float",
    "EBigDecimal": "float",
    "EBoolean": "bool",
    "EBooleanObject": "bool",
}
_JAVA_PRIMITIVES = {
    "java.lang.String": "string",
    "char": "string",
    "java.lang.Character": "string",
    "java.util.Date": "string",
    "int": "int",
    "java.lang.Integer": "int",
    "long": "int",
    "java.lang.Long": "int",
    "short": "int",
    "java.lang.Short": "int",
    "byte": "int",
    "java.lang.Byte": "int",
    "java.math.BigInteger": "int",
    "double": "float",
    "java.lang.Double": "float",
    "float": "float",
    "java.lang.Float": "float",
    "java.math.BigDecimal": "float",
    "boolean": "bool",
    "java.lang.Boolean": "bool",
}


# ---------------------------------------------------------------------- reading


def read_ecore_files(
    paths: Sequence[Path | str],
    resource_set: ResourceSet | None = None,
    limits: XmlLimits | None = None,
    uri_map: Mapping[str, str] | None = None,
) -> list[EPackage]:
    """Read ``.ecore`` files into *resource_set* together; return their root packages.

    References between the files may go in circles. A reference to cfmodel's ``std``
    package, when no file defines it, is resolved against the built-in ``std``. A
    reference to another ``.ecore`` file (a relative path, or a URI such as
    ``platform:/resource/p/m.ecore`` that *uri_map* turns into a path: prefix →
    replacement) reads that file too, as EMF's resource set would.

    Raises:
        CfSerializationError: unsafe or malformed XML, or references to packages no
            given or referenced file defines.
    """
    rset = resource_set if resource_set is not None else ResourceSet()
    opts = limits or XmlLimits()
    trees = [(Path(p), ecore_format.inline_hrefs(parse_file(p, opts))) for p in paths]
    _add_referenced_files(trees, opts, uri_map or {})
    _file_references_to_uris(trees, opts, uri_map or {})
    defined: set[str] = set()
    used: dict[str, str] = {}
    for path, tree in trees:
        for element in tree.getroot().iter():
            if not isinstance(element.tag, str):
                continue
            if element.get("nsURI"):
                defined.add(element.get("nsURI"))
            for key in _REFERENCE_KEYS:
                for ref in (element.get(key) or "").split():
                    uri = ref.partition("#")[0]
                    if uri and not uri.startswith("ecore:") and uri != ECORE_NS:
                        used.setdefault(uri, str(path))
    registry = local_registry(rset)
    missing = sorted(uri for uri in used if uri not in defined and uri not in registry)
    if STD_URI in missing:
        register_packages(rset, builtin_std_packages())
        missing.remove(STD_URI)
    if missing:
        detail = "; ".join(f"{uri} (used in {used[uri]})" for uri in missing)
        raise CfSerializationError(
            f"the metamodel refers to packages no given file defines: {detail}; give their .ecore files too",
            code="missing-package",
        )
    if len(trees) == 1:
        return list(ecore_format.read(trees[0][0], rset, ecore_format.EcoreOptions(opts)).roots)
    combined = etree.Element(f"{{{XMI_NS}}}XMI", nsmap={"xmi": XMI_NS})
    for _, tree in trees:
        root = tree.getroot()
        combined.extend(list(root) if root.tag == f"{{{XMI_NS}}}XMI" else [root])
    name = ", ".join(str(path) for path, _ in trees)
    doc = ecore_format.from_bytes(etree.tostring(combined), name, rset, ecore_format.EcoreOptions(opts))
    return list(doc.roots)


_REFERENCE_KEYS = ecore_format.REFERENCE_FEATURES
MAX_REFERENCED_FILES = 1000


def _mapped(location: str, uri_map: Mapping[str, str]) -> str:
    """*location* with the longest *uri_map* prefix it starts with replaced."""
    for prefix in sorted(uri_map, key=len, reverse=True):
        if location.startswith(prefix):
            return uri_map[prefix] + location[len(prefix) :]
    return location


def _referenced_path(base: Path, location: str, uri_map: Mapping[str, str]) -> Path | None:
    """The ``.ecore`` file a reference's location names, when it names an existing one."""
    mapped = _mapped(location, uri_map)
    if mapped.startswith("file:"):
        mapped = mapped[5:].removeprefix("//")
    elif ":" in mapped.split("/", 1)[0]:
        return None  # a URI (an nsURI, or platform:/ without a mapping)
    target = (base.parent / mapped).resolve()
    return target if target.suffix == ".ecore" and target.is_file() else None


def _add_referenced_files(
    trees: list[tuple[Path, Any]], limits: XmlLimits, uri_map: Mapping[str, str]
) -> None:
    """Read the ``.ecore`` files the given ones refer to (transitively, at most
    `MAX_REFERENCED_FILES`), as EMF loads them into one resource set."""
    known = {path.resolve() for path, _ in trees}
    defined = {tree.getroot().get("nsURI") for _, tree in trees}  # a package is read once
    index = 0
    while index < len(trees):
        path, tree = trees[index]
        index += 1
        for element in tree.getroot().iter():
            if not isinstance(element.tag, str):
                continue
            for key in _REFERENCE_KEYS:
                for ref in (element.get(key) or "").split():
                    location = ref.partition("#")[0]
                    found = _referenced_path(path, location, uri_map) if location else None
                    if found is None or found in known:
                        continue
                    if len(trees) >= MAX_REFERENCED_FILES:
                        raise CfSerializationError(
                            f"{path}: more than {MAX_REFERENCED_FILES} .ecore files refer to each other",
                            code="bad-ecore",
                        )
                    known.add(found)
                    referenced = ecore_format.inline_hrefs(parse_file(found, limits))
                    uri = referenced.getroot().get("nsURI")
                    if uri not in defined:  # else: another copy of a package already read
                        defined.add(uri)
                        trees.append((found, referenced))


def _file_references_to_uris(
    trees: list[tuple[Path, Any]], limits: XmlLimits, uri_map: Mapping[str, str] | None = None
) -> None:
    """Rewrite references to files (``../x.ecore#//A``, as EMF writes them) to nsURIs.

    A reference names the given file it resolves to, else an existing file (whose root
    nsURI is read), else the given file with the same name; others stay as they are.
    """
    by_path: dict[Path, str | None] = {path.resolve(): tree.getroot().get("nsURI") for path, tree in trees}
    by_name: dict[str, str | None] = {path.name: tree.getroot().get("nsURI") for path, tree in trees}
    defined = {e.get("nsURI") for _, tree in trees for e in tree.getroot().iter() if isinstance(e.tag, str)}
    cache: dict[Path, str | None] = {}

    def uri_of(base: Path, location: str) -> str | None:
        if not location or location in defined or location.startswith(("http:", "https:", "urn:")):
            return None
        mapped = _referenced_path(base, location, uri_map or {})
        if mapped is not None and mapped in by_path:
            return by_path[mapped]
        name = location.rsplit("/", 1)[-1]
        if "://" in location or location.startswith("platform:"):
            return by_name.get(name)
        target = (base.parent / location).resolve()
        if target in by_path:
            return by_path[target]
        if target.is_file():
            if target not in cache:
                try:
                    cache[target] = parse_file(target, limits).getroot().get("nsURI")
                except CfSerializationError:
                    cache[target] = None
            if cache[target]:
                return cache[target]
        return by_name.get(name)

    for path, tree in trees:
        for element in tree.getroot().iter():
            if not isinstance(element.tag, str):
                continue
            for key in _REFERENCE_KEYS:
                value = element.get(key)
                if not value or "#" not in value:
                    continue
                parts = []
                for ref in value.split(" "):
                    location, sep, fragment = ref.partition("#")
                    uri = uri_of(path, location) if sep else None
                    parts.append(f"{uri}#{fragment}" if uri else ref)
                element.set(key, " ".join(parts))


def builtin_std_packages() -> list[EPackage]:
    """cfmodel's built-in ``std`` module, lifted (the package every entity extends)."""

    path = BUILTIN_MODULES / "std" / "model" / "_init.cf"
    tree = parse_cf(path)
    project = Project(BUILTIN_MODULES, "std", path, [])
    project.namespaces["std"] = Namespace("std", path, str(path), tree, 0)
    return lf.lift(resolve(project)).packages


def is_builtin_std(package: EPackage) -> bool:
    """Whether a ``std`` package is cfmodel's built-in ``std`` (then it is not written).

    References that leave ``std`` (relation ends other modules add to std's entities)
    do not count: the other module's side writes those relations.
    """
    return _signature(package) == _signature(builtin_std_packages()[0])


def _signature(package: EPackage) -> list[str]:
    out = [f"package {package.name} {package.nsURI}"]
    for c in package.eClassifiers:
        out.append(f"{type(c).__name__} {c.name} {[(a.source, dict(a.details)) for a in c.eAnnotations]}")
        if isinstance(c, EEnum):
            out.extend(f"  literal {lit.name} {lit.literal}" for lit in c.eLiterals)
        if not isinstance(c, EClass):
            continue
        out.append(f"  supertypes {[s.name for s in c.eSuperTypes]}")
        for f in c.eStructuralFeatures:
            if isinstance(f, EReference) and f.eType.ePackage is not package:
                continue
            out.append(
                f"  {f.name} {f.eType.name} {f.lowerBound} {f.upperBound} {f.defaultValueLiteral} "
                f"{[(a.source, dict(a.details)) for a in f.eAnnotations]}"
            )
    out.extend(line for sub in package.eSubpackages for line in _signature(sub))
    return out


# ---------------------------------------------------------------------- the view model


@dataclass
class Attribute:
    type: str
    name: str
    default: str | None
    note: str | None = None
    pragma: list[str] = field(default_factory=list)


@dataclass
class Entity:
    name: str
    parents: list[str]
    doc: str | None
    attributes: list[Attribute]
    indexes: list[str]
    note: str | None = None
    pragma: list[str] = field(default_factory=list)


@dataclass
class Typedef:
    name: str
    base: str
    constraint: str
    doc: str | None
    pragma: list[str] = field(default_factory=list)


@dataclass
class EnumStatement:
    name: str
    parent: str | None
    values: list[str]
    pragma: list[str] = field(default_factory=list)


@dataclass
class Relation:
    text: str
    doc: str | None
    note: str | None = None
    pragma: list[str] = field(default_factory=list)


@dataclass
class NamespaceFile:
    """What one ``.cf`` file holds (the template's input)."""

    namespace: str
    path: str
    doc: str | None = None
    imports: list[str] = field(default_factory=list)
    typedefs: list[Typedef] = field(default_factory=list)
    enums: list[EnumStatement] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    constructors: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pragma: list[str] = field(default_factory=list)  # the package's #@ecore-package lines


def docstring(text: str | None, indent: str = "") -> str | None:
    """A docstring literal for *text*, escaped, that lift cleans back to *text*.

    One line stays on one line; longer texts start on the line after the quotes, every
    line indented by *indent* (lift removes exactly that common indentation).
    """
    if not text:
        return None
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if "\n" not in body:
        return f'"""{body[:-1]}\\x22"""' if body.endswith('"') else f'"""{body}"""'
    lines = [f"{indent}{line}" if line else "" for line in body.split("\n")]
    return '"""\n' + "\n".join(lines) + f'\n{indent}"""'


class _Importer:
    def __init__(self, roots: list[EPackage], rset: ResourceSet) -> None:
        self.roots = [r for r in roots if r.nsURI != STD_URI or not is_builtin_std(r)]
        self.all_roots = list(roots)
        for pkg in local_registry(rset).values():
            if isinstance(pkg, EPackage) and pkg.eSuperPackage is None and pkg not in self.all_roots:
                self.all_roots.append(pkg)
        self.metamodel = lf.DomainMetamodel(self.all_roots)
        self.imported: set[int] = set()
        for root in self.roots:
            self._mark(root)
        self.files: dict[str, NamespaceFile] = {}
        self.names: dict[int, str] = {}  # classifier or feature -> its cf name
        self.emitted: set[int] = set()
        # metamodels not made by cfmodel carry their Ecore form in #@ecore comments
        self.carried = {id(p) for root in self.roots if not _made_by_cfmodel(root) for p in _packages(root)}
        self.hidden: dict[int, list[Any]] = {}  # package -> classifiers .cf does not declare

    def is_carried(self, element: Any) -> bool:
        """Whether *element*'s package carries its Ecore form in #@ecore comments."""
        package = _package_of(element)
        return package is not None and id(package) in self.carried

    def pragma(self, element: Any, data: dict[str, Any] | None = None) -> list[str]:
        """The #@ecore lines of an element of a carried package (none for cfmodel's own)."""
        package = element if isinstance(element, EPackage) else _package_of(element)
        if package is None or id(package) not in self.carried:
            return []
        return carry.pragma_lines(data if data is not None else carry.encode(element, own_only=True))

    def _mark(self, package: EPackage) -> None:
        self.imported.add(id(package))
        for sub in package.eSubpackages:
            self._mark(sub)

    # -- names

    def namespace(self, package: EPackage) -> str:
        parts = [_safe_name(part) for part in self.metamodel.name_of(package).split("::")]
        return "::".join(parts)

    def local_name(self, classifier: Any) -> str:
        found = self.names.get(id(classifier))
        if found is not None:
            return found
        name = lf.classifier_name(classifier)
        if isinstance(classifier, EClass) and not name[:1].isupper():
            name = name[:1].upper() + name[1:]
        name = _safe_name(name)
        self.names[id(classifier)] = name
        return name

    def ref(self, classifier: Any, here: NamespaceFile) -> str:
        """How *here* writes a classifier: plainly in its own namespace, else qualified.

        Ecore's own classes (``EObject``, …) stand for any entity: ``std::Entity``.
        """
        if classifier is None:  # typed by a type parameter: any entity (#@ecore says which)
            return "std::Entity"
        package = classifier.ePackage
        if package is None or (package.nsURI == ECORE_NS and id(package) not in self.imported):
            return "std::Entity"
        namespace = self.namespace(classifier.ePackage)
        name = self.local_name(classifier)
        if namespace == here.namespace:
            return name
        self.need(here, namespace)
        return f"{namespace}::{name}"

    def exact_target(self, reference: EReference) -> bool:
        """Whether lift gives *reference* its own type and upper bound back (not for a
        class of Ecore's own, written ``std::Entity``, nor for EMF's "unspecified" -2)."""
        target = reference.eType
        package = getattr(target, "ePackage", None)
        if not isinstance(target, EClass) or package is None or reference.upperBound == -2:
            return False
        return package.nsURI != ECORE_NS or id(package) in self.imported

    def need(self, here: NamespaceFile, namespace: str) -> None:
        if namespace not in (here.namespace, "std") and namespace not in here.imports:
            here.imports.append(namespace)

    def need_names_in(self, here: NamespaceFile, text: str) -> None:
        """Imports for the namespaces a cf expression names (``ip::is_valid(self)``)."""
        try:
            module = parse_str(f"x = {text}\n", "<annotation>")
        except CfModelError:  # a foreign annotation may hold anything
            return
        for statement in module.statements:
            if not isinstance(statement, nodes.Assignment):
                continue
            for e in iter_expressions(statement.value):
                name = None
                if isinstance(e, nodes.Reference | nodes.FunctionCall):
                    name = e.name.text
                elif isinstance(e, nodes.Constructor | nodes.IndexQuery):
                    name = e.entity.text
                if name and "::" in name:
                    self.need(here, name.rpartition("::")[0])

    # -- files

    def run(self) -> dict[str, NamespaceFile]:
        for root in self.roots:
            self.package(root)
        for root in self.all_roots:  # relations that dependency classes hold towards imported ones
            self.dependency_relations(root)
        for file in self.files.values():
            file.imports.sort()
        return self.files

    def package(self, package: EPackage) -> None:
        namespace = self.namespace(package)
        parts = namespace.split("::")
        if namespace == "__config__":
            path = "main.cf"
        elif len(parts) == 1:
            path = f"libs/{parts[0]}/model/_init.cf"
        else:
            inner = "/".join(parts[1:])
            path = (
                f"libs/{parts[0]}/model/{inner}/_init.cf"
                if package.eSubpackages
                else f"libs/{parts[0]}/model/{inner}.cf"
            )
        here = NamespaceFile(namespace, path)
        self.files[namespace] = here
        here.doc = docstring(_documentation(package))
        if not _IDENTIFIER.match(package.name or "") or package.name in KEYWORDS:
            here.notes.append(f"EPackage {package.name!r} is namespace {namespace}")
        constructors = package.getEAnnotation(lf.CONSTRUCTORS)
        for classifier in package.eClassifiers:
            if isinstance(classifier, EEnum):
                self.enum(classifier, here)
            elif isinstance(classifier, EClass):
                self.entity(classifier, here)
            elif isinstance(classifier, EDataType):
                self.datatype(classifier, here)
        if constructors is not None:
            for key, value in constructors.details.items():
                text = cf_expression(str(value), constructor=True)
                if text is None:
                    here.notes.append(
                        f"constructor typedef {str(key)!r}: {str(value)!r} is not a constructor; left out"
                    )
                    continue
                here.constructors.append((_safe_name(str(key)), text))
                self.need_names_in(here, text)
        for classifier in package.eClassifiers:
            if isinstance(classifier, EClass):
                for feature in classifier.eStructuralFeatures:
                    if isinstance(feature, EReference):
                        self.relation(feature, here)
        for sub in package.eSubpackages:
            self.package(sub)
        if id(package) in self.carried:
            data = carry.encode_package(package, self.hidden.get(id(package), []))
            here.pragma = carry.pragma_lines(data, carry.PACKAGE_PRAGMA)

    def dependency_relations(self, package: EPackage) -> None:
        if id(package) not in self.imported:
            for classifier in package.eClassifiers:
                if not isinstance(classifier, EClass):
                    continue
                for feature in classifier.eStructuralFeatures:
                    if not isinstance(feature, EReference) or id(feature) in self.emitted:
                        continue
                    target = feature.eType
                    if isinstance(target, EClass) and id(target.ePackage) in self.imported:
                        self.relation(feature, self.files[self.namespace(target.ePackage)])
        for sub in package.eSubpackages:
            self.dependency_relations(sub)

    # -- classifiers

    def datatype(self, datatype: EDataType, here: NamespaceFile) -> None:
        annotation = datatype.getEAnnotation(lf.TYPEDEF)
        name = self.local_name(datatype)
        if annotation is not None:
            details = {str(k): str(v) for k, v in annotation.details.items()}
            base = details.get("base", "string")
            if not _TYPE_NAME.match(base):
                here.notes.append(f"typedef {name}: base {base!r} is not a type name; string used")
                base = "string"
            if "::" in base:
                base = self.typedef_ref(base, here)
            constraint: str | None
            if "regex" in details:
                constraint = _python_regex(details["regex"])
                if constraint is None:
                    here.notes.append(
                        f"typedef {name}: regex {details['regex']!r} is not a valid regex; left out"
                    )
            else:
                constraint = cf_expression(details.get("condition", "self == self"), condition=True)
                if constraint is None:
                    here.notes.append(
                        f"typedef {name}: {details.get('condition')!r} is not one .cf condition; left out"
                    )
                else:
                    self.need_names_in(here, constraint)
            here.typedefs.append(
                Typedef(
                    name,
                    base,
                    constraint or "self == self",
                    docstring(_documentation(datatype)),
                    self.pragma(datatype),
                )
            )
            return
        facets = _facets(datatype)
        if isinstance(facets, str):
            here.notes.append(
                f"data type {datatype.name!r}: {facets}; mapped to {_foreign_primitive(datatype)}"
            )
        elif facets is not None:
            base, constraint = facets
            here.typedefs.append(
                Typedef(name, base, constraint, docstring(_documentation(datatype)), self.pragma(datatype))
            )
            return
        self.names[id(datatype)] = _foreign_primitive(datatype)  # used as its primitive
        self.hidden.setdefault(id(_package_of(datatype)), []).append(datatype)

    def typedef_ref(self, qualified: str, here: NamespaceFile) -> str:
        namespace, _, name = qualified.rpartition("::")
        if namespace == here.namespace:
            return name
        self.need(here, namespace)
        return qualified

    def enum(self, enum: EEnum, here: NamespaceFile) -> None:
        name = self.local_name(enum)
        statements: list[EnumStatement] = []
        annotation = enum.getEAnnotation(lf.ENUM)
        parents = {str(k): str(v) for k, v in annotation.details.items()} if annotation is not None else {}
        for lit in enum.eLiterals:
            value = lit.literal if lit.literal is not None else lit.name
            parent = parents.get(str(value))
            if statements and statements[-1].parent == parent:
                statements[-1].values.append(literal(str(value)))
            else:
                parent_text = literal(parent) if parent else None
                statements.append(EnumStatement(name, parent_text, [literal(str(value))]))
        if not statements:  # no literals: .cf has no such enum
            self.hidden.setdefault(id(_package_of(enum)), []).append(enum)
            return
        statements[0].pragma = self.pragma(enum)
        here.enums.extend(statements)

    def entity(self, eclass: EClass, here: NamespaceFile) -> None:
        name = self.local_name(eclass)
        notes = [f"EClass {eclass.name!r} is entity {name}"] if name != eclass.name else []
        if eclass.abstract or eclass.interface:
            notes.append(
                f"{eclass.name} is {'an interface' if eclass.interface else 'abstract'} in Ecore; "
                "entities can always be instantiated"
            )
        note = "; ".join(notes) or None
        parents = list(dict.fromkeys(self.ref(s, here) for s in eclass.eSuperTypes))
        if parents == ["std::Entity"]:
            parents = []
        own = [f for f in eclass.eStructuralFeatures if isinstance(f, EAttribute)]
        attributes = [self.attribute(f, here) for f in own]
        defaults = eclass.getEAnnotation(lf.DEFAULTS)
        if defaults is not None:
            for key, value in defaults.details.items():
                inherited = eclass.findEStructuralFeature(str(key))
                if inherited is None:
                    continue
                type_text, _ = self.attribute_type(inherited, here)
                text: str | None = str(value)
                note = None
                if text and text != "undef":
                    text = cf_expression(text)
                    if text is None:
                        note = f"the default {str(value)!r} is not one .cf expression; left out"
                    else:
                        self.need_names_in(here, text)
                attributes.append(Attribute(type_text, _safe_name(str(key)), text or None, note))
        index = eclass.getEAnnotation(lf.INDEX)
        indexes = [
            ", ".join(_safe_name(n.strip()) for n in str(v).split(","))
            for v in (index.details.values() if index is not None else [])
        ]
        doc = docstring(_documentation(eclass), "    ")
        here.entities.append(Entity(name, parents, doc, attributes, indexes, note, self.pragma(eclass)))

    def attribute_type(self, feature: EAttribute, here: NamespaceFile) -> tuple[str, str | None]:
        """The cf type of an attribute, and a note when the mapping lost something."""
        declared = lf.cf_type_of(feature)
        if declared is not None and _TYPE_TEXT.match(declared):
            return declared, None
        etype = feature.eType
        note = None
        if etype is None:  # typed by a type parameter (#@ecore keeps it)
            base = "string"
            note = f"{feature.name}: typed by a type parameter; string here"
        elif isinstance(etype, EEnum):
            base = self.ref(etype, here)
        elif isinstance(etype, EDataType) and etype.ePackage is not None and etype.ePackage.nsURI == ECORE_NS:
            base = _ECORE_PRIMITIVES.get(etype.name, "string")
            if etype.name not in _ECORE_PRIMITIVES or etype.name == "EDate":
                note = f"{feature.name}: Ecore type {etype.name} mapped to string"
        elif id(etype) in self.names and self.names[id(etype)] in _PRIMITIVE_SET:
            base = self.names[id(etype)]
            note = f"{feature.name}: data type {etype.name} ({etype.instanceClassName}) mapped to {base}"
        else:
            if etype.getEAnnotation(lf.TYPEDEF) is None and not isinstance(_facets(etype), tuple):
                base = _foreign_primitive(etype)
                note = f"{feature.name}: data type {etype.name} ({etype.instanceClassName}) mapped to {base}"
            else:
                base = self.ref(etype, here)
        upper = feature.upperBound
        if upper != 1:
            if upper > 1:
                kept = "kept in #@ecore only" if self.is_carried(feature) else "not kept"
                note = f"{feature.name}: upper bound {upper} is {kept} (a list has no bound)"
            return f"{base}[]", note
        return (f"{base}?" if feature.lowerBound == 0 else base), note

    def attribute(self, feature: EAttribute, here: NamespaceFile) -> Attribute:
        type_text, note = self.attribute_type(feature, here)
        hiding = carry.hiding_name(feature)  # lift's `<name>_`: back to the .cf name
        name = hiding or _safe_name(feature.name)
        if name != feature.name and hiding is None:
            note = f"attribute {feature.name!r} is {name}"
        annotation = feature.getEAnnotation(lf.DEFAULT)
        default: str | None = None
        if annotation is not None and annotation.details.get("value") is not None:
            default = cf_expression(str(annotation.details["value"]))
            if default is None:
                note = f"the default {str(annotation.details['value'])!r} is not one .cf expression; left out"
            else:
                self.need_names_in(here, default)
        elif feature.defaultValueLiteral is not None and type_text.endswith("[]"):
            note = f"{feature.name}: the default {feature.defaultValueLiteral!r} of a list is no value in .cf"
        elif feature.defaultValueLiteral is not None:
            default = self.default_literal(feature, type_text)
        if carry.as_lifted(feature, type_text, name):
            return Attribute(type_text, name, default, note)
        data = {**carry.encode(feature, own_only=True), "cf": self.qualified(type_text, here)}
        return Attribute(type_text, name, default, note, self.pragma(feature, data))

    def qualified(self, text: str, here: NamespaceFile) -> str:
        """A type or entity as ``.cf`` names it fully (how lift's program prints it)."""
        base = text.rstrip("?").removesuffix("[]")
        if "::" in base or base in _PRIMITIVE_SET or base in ("number", "any"):
            return text
        return f"{here.namespace}::{text}"

    def end_signature(self, end: EReference, here: NamespaceFile) -> str:
        """A relation end as ``.cf`` says it: target and multiplicity (`carry.end_signature`)."""
        upper = None if end.upperBound in (-1, -2) else end.upperBound
        return carry.end_signature(self.qualified(self.ref(end.eType, here), here), end.lowerBound, upper)

    def default_literal(self, feature: EAttribute, type_text: str) -> str | None:
        text = str(feature.defaultValueLiteral)
        if isinstance(feature.eType, EEnum):
            return literal(text)
        kind = lf.json_kind(feature)
        if kind is not None:
            try:
                return literal(json.loads(text))
            except (ValueError, TypeError):
                return literal(text)
        primitive = self.primitive_of(feature, type_text)
        try:
            if primitive == "int":
                return literal(int(text.strip()))
            if primitive == "float":
                number = float(text) if "number" in type_text else float(Decimal(text.strip()))
                return literal(number) if math.isfinite(number) else literal(text)
            if primitive == "bool":
                return literal(text.strip().lower() == "true")
        except (ValueError, InvalidOperation):
            return literal(text)
        return literal(text)

    def primitive_of(self, feature: EAttribute, type_text: str) -> str:
        base = type_text.rstrip("?").removesuffix("[]")
        if base in _PRIMITIVE_SET or base == "number":
            return "float" if base == "number" else base
        etype = feature.eType
        annotation = etype.getEAnnotation(lf.TYPEDEF) if isinstance(etype, EDataType) else None
        if annotation is not None:
            found = str(annotation.details.get("primitive") or annotation.details.get("base", "string"))
            return "float" if found == "number" else found
        if isinstance(etype, EDataType):
            return _foreign_primitive(etype)
        return "string"

    # -- relations

    def relation(self, feature: EReference, here: NamespaceFile) -> None:
        if id(feature) in self.emitted:
            return
        opposite = feature.eOpposite
        self.emitted.add(id(feature))
        if opposite is not None:
            self.emitted.add(id(opposite))
        owner = feature.eContainingClass
        annotation = feature.getEAnnotation(lf.RELATION)
        details = {str(k): str(v) for k, v in annotation.details.items()} if annotation is not None else {}
        left = f"{self.ref(owner, here)}.{_safe_name(feature.name)} {_multiplicity(feature)}"
        if details.get("symmetric") == "true":
            right = left
        elif opposite is not None:
            other = self.ref(opposite.eContainingClass, here)
            right = f"{other}.{_safe_name(opposite.name)} {_multiplicity(opposite)}"
        else:
            right = self.ref(feature.eType, here)
        arrow = "--"
        note = None
        if details.get("annotations"):
            found = cf_expression(f"[{details['annotations']}]")
            if found is None:
                note = f"the annotations {details['annotations']!r} are not .cf expressions; left out"
            else:
                arrow = found[1:-1]
                self.need_names_in(here, arrow)
        if feature.containment or (opposite is not None and opposite.containment):
            kept = "kept in #@ecore only" if self.is_carried(feature) else "not kept"
            note = (note + "; " if note else "") + (
                f"{owner.name}.{feature.name}: containment is {kept} (relations do not contain)"
            )
        both = (feature, opposite) if opposite is not None else (feature,)
        ends = {f"{self.local_name(e.eContainingClass)}.{_safe_name(e.name)}": e for e in both}
        # a docstring goes to both ends: then both are carried, or neither
        if all(self.exact_target(e) and carry.as_lifted(e, "", _safe_name(e.name)) for e in both):
            ends = {}
        ends = {
            key: {**carry.encode(e, own_only=True), "cf": self.end_signature(e, here)}
            for key, e in ends.items()
        }
        pragma = self.pragma(feature, {"ends": ends}) if ends else []
        if opposite is not None and ends and not pragma:
            pragma = self.pragma(opposite, {"ends": ends})
        here.relations.append(
            Relation(f"{left} {arrow} {right}", docstring(_documentation(feature)), note, pragma)
        )


_PRIMITIVE_SET = frozenset({"string", "int", "float", "bool", "dict", "list"})


def _packages(root: EPackage) -> list[EPackage]:
    return [root, *(p for sub in root.eSubpackages for p in _packages(sub))]


def _package_of(element: Any) -> EPackage | None:
    current = element
    while current is not None and not isinstance(current, EPackage):
        current = current.eContainer()
    return current


def _made_by_cfmodel(root: EPackage) -> bool:
    """Whether a metamodel is as cfmodel lifts it (its namespace annotation, and nothing
    lift never makes: operations, generics, containment, flags, foreign annotations, …):
    then ``.cf`` says all of it and nothing is carried. A cfmodel metamodel edited in EMF
    (an operation added, a reference made a containment) is carried whole."""
    if root.getEAnnotation(lf.NAMESPACE) is None:
        return False
    return all(_as_lifted_package(p) for p in _packages(root))


_LIFT_SOURCES = frozenset(
    {
        lf.GENMODEL,
        lf.NAMESPACE,
        lf.TYPE,
        lf.DEFAULT,
        lf.DEFAULTS,
        lf.TYPEDEF,
        lf.INDEX,
        lf.RELATION,
        lf.CONSTRUCTORS,
        lf.ENUM,
        lf.SHARED,
        lf.SOURCE,
        EXTENDED_METADATA,
    }
)
_LIFT_TYPES = frozenset({"EString", "ELongObject", "EDoubleObject", "EBooleanObject"})
_LIFT_JAVA = frozenset(java for _, java in lf.PRIMITIVE_TYPES.values())


def _plain_annotations(element: Any) -> bool:
    return all(
        a.source in _LIFT_SOURCES and not a.contents and not a.references and not a.eAnnotations
        for a in element.eAnnotations
    )


def _as_lifted_package(package: EPackage) -> bool:
    if not _plain_annotations(package):
        return False
    for classifier in package.eClassifiers:
        if not _plain_annotations(classifier) or classifier.eTypeParameters:
            return False
        if isinstance(classifier, EClass):
            if not _as_lifted_class(classifier):
                return False
        elif isinstance(classifier, EEnum):
            literals = list(classifier.eLiterals)
            if any(
                lit.value != i or lit.literal is None or lit.eAnnotations for i, lit in enumerate(literals)
            ):
                return False
        elif classifier.instanceClassName not in _LIFT_JAVA or not carry.emf_serializable(classifier):
            return False
    return True


def _as_lifted_class(eclass: EClass) -> bool:
    if eclass.eOperations or eclass.eGenericSuperTypes or eclass.interface or eclass.instanceClassName:
        return False
    if eclass.abstract and eclass.getEAnnotation(lf.SHARED) is None:
        return False
    for f in eclass.eStructuralFeatures:
        flags = (f.volatile, f.transient, f.unsettable, f.derived, not f.changeable, not f.ordered)
        if any(flags) or f.eGenericType is not None or not _plain_annotations(f):
            return False
        etype = f.eType
        if isinstance(f, EReference):
            if f.containment or not carry.emf_resolves_proxies(f) or not f.unique:
                return False
        elif (
            f.iD
            or etype is None
            or (
                etype.ePackage is not None
                and etype.ePackage.nsURI == ECORE_NS
                and etype.name not in _LIFT_TYPES
            )
        ):
            return False
    return True


def _multiplicity(feature: Any) -> str:
    lower, upper = feature.lowerBound, feature.upperBound
    if upper in (-1, -2):
        return f"[{lower}:]"
    if upper == lower:
        return f"[{lower}]"
    return f"[{lower}:{upper}]"


def _documentation(element: Any) -> str | None:
    annotation = element.getEAnnotation(lf.GENMODEL)
    if annotation is None:
        return None
    found = annotation.details.get("documentation")
    return str(found) if found else None


_safe_name = carry.safe_name


def _foreign_primitive(datatype: Any) -> str:
    if datatype.ePackage is not None and datatype.ePackage.nsURI == ECORE_NS:
        return _ECORE_PRIMITIVES.get(datatype.name, "string")
    return _JAVA_PRIMITIVES.get(datatype.instanceClassName or "", "string")


def _facets(datatype: Any) -> tuple[str, str] | str | None:
    """(base, constraint) from ExtendedMetaData facets of a foreign data type, if any.

    A string instead: why the facets could not be translated exactly (the data type is
    then used as its primitive, and the reason becomes a ``# note:``).
    """
    annotation = datatype.getEAnnotation(EXTENDED_METADATA)
    if annotation is None:
        return None
    details = {str(k): str(v) for k, v in annotation.details.items()}
    base = _foreign_primitive(datatype)
    if "pattern" in details:
        # EMF keeps the patterns of one derivation step space-separated (either may match)
        patterns = [p.replace("\\u0020", " ") for p in details["pattern"].split()]
        translated = [xsd_to_python(p) for p in patterns]
        if not patterns or any(t is None for t in translated):
            return f"the XML Schema pattern {details['pattern']!r} has no exact Python regex"
        body = "|".join(f"(?:{t})" for t in translated) if len(translated) > 1 else str(translated[0])
        return "string", cf_regex_literal(body)
    conditions: list[str] = []
    if "enumeration" in details:
        values = details["enumeration"].split()
        typed = [_typed(v, base) for v in values]
        if any(v is None for v in typed):
            return f"the enumeration {details['enumeration']!r} does not fit {base}"
        conditions.append(f"self in [{', '.join(literal(v) for v in typed)}]")
    bounds = (("minInclusive", ">="), ("maxInclusive", "<="), ("minExclusive", ">"), ("maxExclusive", "<"))
    for key, op in bounds:
        if key in details:
            value = _typed(details[key], base)
            if value is None or isinstance(value, str):
                return f"the bound {key}={details[key]!r} does not fit {base}"
            conditions.append(f"self {op} {literal(value)}")
    if not conditions:
        return None
    return base, " and ".join(conditions)


def _typed(text: str, base: str) -> Any:
    """*text* as a value of *base* (None: it is not one, or not a finite number)."""
    try:
        if base == "int":
            return int(text.strip())
        if base == "float":
            value = float(text.strip())
            return value if math.isfinite(value) else None
    except ValueError:
        return None
    return text


_TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*\Z")
_TYPE_TEXT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*(\[\])?\??\Z")


def _python_regex(pattern: str) -> str | None:
    """A typedef regex from an annotation as a safe ``/…/`` token (None: not a regex)."""
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    return cf_regex_literal(pattern)


def cf_expression(text: str, constructor: bool = False, condition: bool = False) -> str | None:
    """*text* as exactly one ``.cf`` expression, re-written from its syntax tree.

    A metamodel's annotations are untrusted text: only what parses as one expression
    (a constructor call when *constructor*; one that names ``self`` when *condition*)
    comes back, printed by the unparser, so no comment, line break or second statement
    can ever reach the generated file.
    """
    if "\n" in text or "\r" in text or len(text) > 100_000:
        return None
    try:
        module = parse_str(f"x = {text}\n", "<annotation>")
    except (CfModelError, RecursionError):
        return None
    if len(module.statements) != 1 or not isinstance(module.statements[0], nodes.Assignment):
        return None
    value = module.statements[0].value
    if constructor and not isinstance(value, nodes.Constructor):
        return None
    if condition and not any(
        isinstance(e, nodes.Reference) and e.name.text == "self" for e in iter_expressions(value)
    ):
        return None
    try:
        return to_source(value)
    except (TypeError, ValueError, RecursionError):
        return None


# ---------------------------------------------------------------------- rendering


def comment_text(text: str) -> str:
    """*text* fit for the rest of a ``# …`` line: every line break or control character
    written as an escape, so a comment never ends early."""
    return "".join(
        ch if ch.isprintable() and ch not in "\u2028\u2029" else ascii(ch)[1:-1] for ch in str(text)
    )


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
        autoescape=False,
    )
    env.filters["comment"] = comment_text
    return env


def render_project(roots: list[EPackage], rset: ResourceSet, name: str = "imported") -> dict[str, str]:
    """The files of a project holding *roots* as modules: relative path → text."""
    files = _Importer(roots, rset).run()
    env = _environment()
    out: dict[str, str] = {}
    namespace_template = env.get_template("namespace.cf.j2")
    for namespace, file in sorted(files.items()):
        out[file.path] = namespace_template.render(file=file)
        module = namespace.split("::")[0]
        if module != "__config__":
            out[f"libs/{module}/module.yaml"] = env.get_template("module.yaml.j2").render(module=module)
    modules = sorted({ns.split("::")[0] for ns in files} - {"__config__"})
    for module in modules:  # every module needs model/_init.cf
        out.setdefault(
            f"libs/{module}/model/_init.cf",
            namespace_template.render(file=NamespaceFile(module, f"libs/{module}/model/_init.cf")),
        )
    if "main.cf" not in out:
        everything = sorted(ns for ns in files if ns != "__config__")
        main = NamespaceFile("__config__", "main.cf", imports=everything)
        out["main.cf"] = namespace_template.render(file=main)
    else:
        main_file = files["__config__"]
        main_file.imports = sorted(set(main_file.imports) | {ns for ns in files if ns != "__config__"})
        out["main.cf"] = namespace_template.render(file=main_file)
    out["project.yml"] = env.get_template("project.yml.j2").render(name=name)
    return dict(sorted(out.items()))


def import_ecore(
    paths: Sequence[Path | str],
    output: Path | str,
    name: str | None = None,
    force: bool = False,
    uri_map: Mapping[str, str] | None = None,
) -> list[Path]:
    """Turn ``.ecore`` files into a project under *output*; return the files written.

    *uri_map* (prefix → replacement, ``platform:/resource/`` → a workspace directory)
    locates metamodels the files refer to by URI; see `read_ecore_files`.

    Raises:
        CfUsageError: a file to write exists with other content and *force* is False.
        CfSerializationError: the ``.ecore`` files cannot be read.
    """
    rset = ResourceSet()
    roots = read_ecore_files(paths, rset, uri_map=uri_map)
    target = Path(output)
    project_name = name or (Path(paths[0]).stem if len(paths) == 1 else target.resolve().name)
    files = render_project(roots, rset, project_name)
    if not force:
        clashes = [
            rel
            for rel, text in files.items()
            if (target / rel).is_file() and (target / rel).read_text(encoding="utf-8") != text
        ]
        if clashes:
            raise CfUsageError(f"{target}: would overwrite {', '.join(clashes)} (use --force)")
    written = []
    for rel, text in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(path, text.encode("utf-8"))
        written.append(path)
    return written
