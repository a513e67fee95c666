"""Diagrams of models: a metamodel as a class diagram, a small instance model as objects.

Input: root ``EPackage``s (a project's derived metamodel, or any read from ``.ecore``), or
instance objects (PyEcore) with an id function.
Output: ``class_document``/``class_diagram`` — a ``DotGraph``/``Picture``: one cluster per
namespace (``web::services``; the ``std`` namespace left out unless ``include_std``), one
node per class (a table: its name, italic when abstract, the hidden supertypes it extends,
then each attribute as ``name : type [lower..upper] = default``), per enum (its literals)
and per typedef (its base and constraint); one edge per relation (a pair of opposite
references is one undirected edge with both ends' names and multiplicities; a reference
without opposite an arrow; containment a diamond at the container), one per inheritance
(an empty triangle at the parent). ``instance_document``/``instance_diagram`` — one node per
object (its id and class, then its attribute values), one edge per reference (labelled
with the reference's name; a pair of opposites drawn once), one cluster per class.

Guarantees: deterministic (classes in package order, features in class order, objects in
the order given); every name and value escaped; values shortened to ``MAX_VALUE``
characters; an instance diagram refuses more than ``max_objects`` objects (``too-large``,
a ``CfUsageError`` — a picture of thousands of boxes helps nobody and takes Graphviz long).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pyecore.ecore import EAttribute, EClass, EDataType, EEnum, EPackage, EReference

from cfmodel.errors import CfUsageError
from cfmodel.serializers.base import key_of_ncname
from cfmodel.serializers.dot import DotCluster, DotEdge, DotGraph, DotNode, HtmlLabel, Picture, html_text
from cfmodel.transforms.cf.lift import NAMESPACE, cf_type_of, classifier_name, package_namespace

FONT = "Helvetica"
MAX_VALUE = 40
MAX_OBJECTS = 300
HIDDEN_BY_DEFAULT = ("std",)


# ---- class diagrams -------------------------------------------------------------------------


def class_diagram(
    packages: Iterable[EPackage],
    include_std: bool = False,
    title: str = "metamodel",
    entity: str | None = None,
) -> Picture:
    """The class diagram of ``packages`` as a ``Picture`` (module docstring); with *entity*
    (a qualified name, ``web::Server``), that class and its neighbours only: its parents, the
    classes its relations reach and the classes whose relations reach it."""
    return Picture.of(class_document(packages, include_std, title, entity))


def class_document(
    packages: Iterable[EPackage],
    include_std: bool = False,
    title: str = "metamodel",
    entity: str | None = None,
) -> DotGraph:
    """The class diagram of ``packages`` as a DOT document (see `class_diagram`).

    Raises:
        CfUsageError: *entity* names no class of the packages.
    """
    every = _all_packages(packages)
    shown = [p for p in every if entity or include_std or package_namespace(p) not in HIDDEN_BY_DEFAULT]
    names = {id(c): f"{package_namespace(p)}::{classifier_name(c)}" for p in shown for c in p.eClassifiers}
    if entity is not None:
        names = _neighbourhood(entity, shown, names)
    doc = DotGraph(
        name=title,
        graph_attrs={"rankdir": "BT", "fontname": FONT, "fontsize": "11", "nodesep": "0.4"},
        node_attrs={"shape": "plaintext", "fontname": FONT, "fontsize": "10"},
        edge_attrs={"fontname": FONT, "fontsize": "9", "color": "#555555"},
    )
    for package in shown:
        if not package.eClassifiers:
            continue  # a namespace without definitions (a main file's, often) draws nothing
        cluster = DotCluster(
            package_namespace(package),
            {"label": package_namespace(package), "style": "rounded", "color": "#999999", "fontname": FONT},
        )
        for classifier in package.eClassifiers:
            if id(classifier) in names:
                cluster.nodes.append(
                    DotNode(names[id(classifier)], {"label": HtmlLabel(_classifier_table(classifier, names))})
                )
        if cluster.nodes:
            doc.clusters.append(cluster)
    drawn: set[int] = set()
    for package in shown:
        for classifier in package.eClassifiers:
            if isinstance(classifier, EClass) and id(classifier) in names:
                doc.edges.extend(_class_edges(classifier, names, drawn))
    return doc


def _neighbourhood(entity: str, packages: list[EPackage], names: dict[int, str]) -> dict[int, str]:
    """*names* narrowed to the class named *entity* and its neighbours (see `class_diagram`)."""
    classes = [c for p in packages for c in p.eClassifiers if isinstance(c, EClass)]
    target = next((c for c in classes if names[id(c)] == entity), None)
    if target is None:
        raise CfUsageError(f"no class named {entity!r} in the metamodel (give a qualified name: web::Server)")
    kept = {id(target), *(id(parent) for parent in target.eAllSuperTypes())}
    kept |= {id(ref.eType) for ref in target.eAllReferences()}
    kept |= {id(c) for c in classes if any(ref.eType is target for ref in c.eReferences)}
    return {key: name for key, name in names.items() if key in kept}


def _all_packages(roots: Iterable[EPackage]) -> list[EPackage]:
    found: list[EPackage] = []
    todo = list(roots)
    while todo:
        package = todo.pop(0)
        found.append(package)
        todo[:0] = list(package.eSubpackages)
    return found


def _classifier_table(classifier: Any, names: dict[int, str]) -> str:
    if isinstance(classifier, EEnum):
        rows = [html_text(str(lit.literal or lit.name)) for lit in classifier.eLiterals]
        return _table("«enum»", classifier_name(classifier), rows, "#fff8e1")
    if isinstance(classifier, EClass):
        return _class_table(classifier, names)
    assert isinstance(classifier, EDataType)
    details = _typedef_details(classifier)
    return _table("«typedef»", classifier_name(classifier), [html_text(d) for d in details], "#eef7ee")


def _typedef_details(datatype: Any) -> list[str]:
    annotation = datatype.getEAnnotation("http://cfmodel.org/typedef")
    if annotation is None:
        return [str(datatype.instanceClassName or "")] if datatype.instanceClassName else []
    found = [
        f"{key}: {_short(str(annotation.details[key]))}"
        for key in ("base", "regex", "condition")
        if annotation.details.get(key)
    ]
    return found


def _class_table(cls: Any, names: dict[int, str]) -> str:
    title = html_text(classifier_name(cls))
    if cls.abstract:
        title = f"<i>{title}</i>"
    extends = [
        _qualified(s) for s in cls.eSuperTypes if id(s) not in names and _qualified(s) != "std::Entity"
    ]
    stereo = f"extends {', '.join(extends)}" if extends else ""
    rows = [_attribute_row(f) for f in cls.eStructuralFeatures if isinstance(f, EAttribute)]
    return _table(stereo, title, rows, "#eef3fb", escaped_title=True)


#: Ecore's types as the cf types lift maps to them (shown so in a cf project's diagram)
CF_TYPES = {"EString": "string", "ELongObject": "int", "EDoubleObject": "float", "EBooleanObject": "bool"}


def _attribute_row(feature: Any) -> str:
    etype = feature.eType
    type_name = cf_type_of(feature) or (classifier_name(etype) if etype is not None else "?")
    package = feature.eContainingClass.ePackage if feature.eContainingClass is not None else None
    if package is not None and package.getEAnnotation(NAMESPACE) is not None:
        type_name = CF_TYPES.get(type_name, type_name)
    text = f"{feature.name} : {type_name}{_multiplicity(feature, attribute=True)}"
    default = feature.defaultValueLiteral
    if default is not None:
        text += f" = {_short(str(default))}"
    return html_text(text)


def _table(stereotype: str, title: str, rows: Sequence[str], fill: str, escaped_title: bool = False) -> str:
    head = title if escaped_title else html_text(title)
    top = f"{html_text(stereotype)}<br/><b>{head}</b>" if stereotype else f"<b>{head}</b>"
    body = "<br/>".join(rows) if rows else " "
    return (
        f'<table border="1" cellborder="0" cellspacing="0" cellpadding="4" bgcolor="{fill}" color="#555555">'
        f"<tr><td>{top}</td></tr>"
        f'<tr><td sides="t" border="1" align="left" balign="left">{body}</td></tr></table>'
    )


def _multiplicity(feature: Any, attribute: bool = False) -> str:
    lower, upper = int(feature.lowerBound), int(feature.upperBound)
    if attribute and (lower, upper) == (1, 1):
        return ""
    high = "*" if upper < 0 else str(upper)
    return f" [{lower}]" if str(lower) == high else f" [{lower}..{high}]"


def _class_edges(cls: Any, names: dict[int, str], drawn: set[int]) -> Iterable[DotEdge]:
    me = names[id(cls)]
    for parent in cls.eSuperTypes:
        if id(parent) in names:
            yield DotEdge(
                me,
                names[id(parent)],
                {"arrowhead": "onormal", "arrowsize": "1.2", "tooltip": f"{me} extends {names[id(parent)]}"},
            )
    for ref in cls.eStructuralFeatures:
        if not isinstance(ref, EReference) or id(ref) in drawn or id(ref.eType) not in names:
            continue
        drawn.add(id(ref))
        target = names[id(ref.eType)]
        end = f"{ref.name}{_multiplicity(ref)}"
        opposite = ref.eOpposite
        if opposite is not None and id(opposite.eContainingClass) in names:
            drawn.add(id(opposite))
            attrs = {
                "dir": "none",
                "headlabel": end,
                "taillabel": f"{opposite.name}{_multiplicity(opposite)}",
            }
        else:
            attrs = {"arrowhead": "vee", "headlabel": end}
        if ref.containment:
            attrs.update({"dir": "both", "arrowtail": "diamond"})
        attrs.update({"labeldistance": "1.8", "labelangle": "30", "tooltip": f"{me}.{ref.name} → {target}"})
        yield DotEdge(me, target, dict(attrs))


def _qualified(classifier: Any) -> str:
    package = classifier.ePackage
    return (
        f"{package_namespace(package)}::{classifier_name(classifier)}"
        if package is not None
        else str(classifier.name)
    )


def _short(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


# ---- instance diagrams ------------------------------------------------------------------------


def instance_diagram(
    objects: Sequence[Any],
    id_of: Callable[[Any], str | None],
    max_objects: int = MAX_OBJECTS,
    title: str = "instances",
) -> Picture:
    """The instance diagram of ``objects`` as a ``Picture`` (module docstring).

    Raises:
        CfUsageError: ``too-large``.
    """
    return Picture.of(instance_document(objects, id_of, max_objects, title))


def instance_document(
    objects: Sequence[Any],
    id_of: Callable[[Any], str | None],
    max_objects: int = MAX_OBJECTS,
    title: str = "instances",
) -> DotGraph:
    """The instance diagram of ``objects`` as a DOT document (module docstring)."""
    if len(objects) > max_objects:
        raise CfUsageError(
            f"{len(objects)} objects are too many for an instance diagram (at most {max_objects}; "
            "raise it with --max-objects, or draw the class diagram)",
            code="too-large",
        )
    names = {
        id(obj): readable_id(id_of(obj)) or f"{obj.eClass.name}#{i + 1}" for i, obj in enumerate(objects)
    }
    doc = DotGraph(
        name=title,
        graph_attrs={"rankdir": "LR", "fontname": FONT, "fontsize": "11"},
        node_attrs={"shape": "plaintext", "fontname": FONT, "fontsize": "10"},
        edge_attrs={"fontname": FONT, "fontsize": "9", "color": "#555555"},
    )
    clusters: dict[str, DotCluster] = {}
    for obj in objects:
        kind = _qualified(obj.eClass)
        cluster = clusters.get(kind)
        if cluster is None:
            cluster = clusters[kind] = DotCluster(
                kind, {"label": kind, "style": "rounded,dashed", "color": "#bbbbbb"}
            )
            doc.clusters.append(cluster)
        cluster.nodes.append(
            DotNode(names[id(obj)], {"label": HtmlLabel(_object_table(obj, names[id(obj)]))})
        )
    drawn: set[tuple[int, int, int]] = set()
    for obj in objects:
        doc.edges.extend(_object_edges(obj, names, drawn))
    return doc


def readable_id(ncname: str | None) -> str | None:
    """An id made an XML NCName (``ncname_id``) as the key it was made of, for people to read."""
    return key_of_ncname(ncname) if ncname is not None else None


def _object_table(obj: Any, name: str) -> str:
    rows = []
    for feature in obj.eClass.eAllStructuralFeatures():
        if not isinstance(feature, EAttribute) or not obj.eIsSet(feature):
            continue
        value = obj.eGet(feature)
        shown = ", ".join(_show(v) for v in value) if feature.many else _show(value)
        rows.append(html_text(f"{feature.name} = {_short(shown)}"))
    title = f"{html_text(name)} : {html_text(classifier_name(obj.eClass))}"
    return _table("", f"<u>{title}</u>", rows, "#fdfdfd", escaped_title=True)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    literal = getattr(value, "name", None)
    return str(literal) if literal is not None and not isinstance(value, int | float) else str(value)


def _object_edges(obj: Any, names: dict[int, str], drawn: set[tuple[int, int, int]]) -> Iterable[DotEdge]:
    for feature in obj.eClass.eAllStructuralFeatures():
        if not isinstance(feature, EReference) or not obj.eIsSet(feature):
            continue
        value = obj.eGet(feature)
        targets = list(value) if feature.many else [value]
        for target in targets:
            if target is None or id(target) not in names:
                continue
            opposite = feature.eOpposite
            key = (id(obj), id(target), id(feature))
            if key in drawn:
                continue
            drawn.add(key)
            attrs: dict[str, Any] = {"label": feature.name, "arrowhead": "vee"}
            if opposite is not None:
                drawn.add((id(target), id(obj), id(opposite)))
                attrs = {
                    "dir": "none",
                    "headlabel": feature.name,
                    "taillabel": opposite.name,
                    "labeldistance": "1.6",
                }
            yield DotEdge(names[id(obj)], names[id(target)], attrs)
