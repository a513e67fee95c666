"""Instance models without the compiler: load a metamodel, make objects, validate them.

`load_metamodel(path)` gives a `DomainMetamodel` from a project directory (resolved and
lifted; nothing is evaluated) or from ``.ecore`` files (read together). Its `create`,
`set` and `get` make and fill instances with cf values (dicts and lists for JSON
attributes, strings for enum values).

`validate(objects)` checks instances (EObjects, a PyEcore resource, or a serializer
`Document`) against their metamodel and returns a `ValidationReport` with, per object,
every problem found:

* ``bounds``: a many-valued feature with fewer or more values than its bounds allow; a
  required single-valued feature that is not set and has no Ecore default;
* ``type``: a value of the wrong type (``int`` takes no booleans, JSON attributes take
  JSON text of the right kind, enums their own literals), or out of the Java range of
  its Ecore type;
* ``constraint``: a typedef's regex (``re.match``) or condition (evaluated by
  `cfmodel.transforms.cf.conditions` over the condition's syntax tree, parsed from the
  typedef annotation) fails, along the typedef chain;
* ``not-checked`` (not an error): a condition that calls a plugin, when no plugin
  function is given in ``plugins``;
* ``opposite``: a bidirectional reference whose target does not list the object back;
* ``index``: two objects with the same key for an index of their class.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyecore.ecore import EAttribute, EClass, EDataType, EEnum, EEnumLiteral, EObject, EPackage

from cfmodel.display import html_table
from cfmodel.errors import CfEvaluationError, CfModelError, CfUsageError, Note
from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str
from cfmodel.project import load_project
from cfmodel.serializers import datatypes, model
from cfmodel.serializers.base import Document, local_registry
from cfmodel.transforms.cf import lift as lf
from cfmodel.transforms.cf.conditions import Plugin, check_constraint, primitive_fits
from cfmodel.transforms.cf.conditions import Problem as ConditionProblem
from cfmodel.transforms.cf.ecore_import import _foreign_primitive, read_ecore_files
from cfmodel.transforms.cf.resolve import resolve
from cfmodel.transforms.cf.unparse import literal

SEVERITY = {"not-checked": "note"}


def load_metamodel(
    path: str | Path | Sequence[str | Path], options: lf.LiftOptions | None = None
) -> lf.DomainMetamodel:
    """The metamodel of a project directory, or of one or more ``.ecore`` files.

    Raises:
        CfCompileError: the project does not load or resolve.
        CfSerializationError: an ``.ecore`` file cannot be read.
        CfUsageError: *path* is neither a project directory nor ``.ecore`` files.
    """
    paths = [Path(p) for p in ([path] if isinstance(path, str | Path) else path)]
    if len(paths) == 1 and paths[0].is_dir():
        return lf.lift(resolve(load_project(paths[0])), options)
    if not paths or any(p.suffix != ".ecore" for p in paths):
        raise CfUsageError(f"expected a project directory or .ecore files, got {', '.join(map(str, paths))}")
    from pyecore.resources import ResourceSet

    rset = ResourceSet()
    roots = read_ecore_files(paths, rset)
    for pkg in local_registry(rset).values():  # the built-in std, when it was added
        if isinstance(pkg, EPackage) and pkg.eSuperPackage is None and pkg not in roots:
            roots.append(pkg)
    return lf.DomainMetamodel.from_packages(roots)


# ---------------------------------------------------------------------- the report


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding about one object: which feature, what, and its kind."""

    feature: str | None
    message: str
    kind: str

    @property
    def severity(self) -> str:
        return SEVERITY.get(self.kind, "error")

    def __str__(self) -> str:
        where = f"{self.feature}: " if self.feature else ""
        return f"{where}{self.message}  [{self.kind}]"


@dataclass(slots=True)
class ObjectReport:
    """Every problem of one object; ``label`` names it (its index key when it has one)."""

    obj: EObject
    label: str
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(p.severity != "error" for p in self.problems)


@dataclass(slots=True)
class ValidationReport:
    """The result of `validate`: one `ObjectReport` per object, in the order given."""

    objects: list[ObjectReport]

    @property
    def ok(self) -> bool:
        """No errors (notes about unchecked conditions allowed)."""
        return all(o.ok for o in self.objects)

    @property
    def problems(self) -> list[tuple[str, Problem]]:
        return [(o.label, p) for o in self.objects for p in o.problems]

    def errors(self) -> list[tuple[str, Problem]]:
        return [(label, p) for label, p in self.problems if p.severity == "error"]

    def of(self, obj: EObject) -> ObjectReport:
        for report in self.objects:
            if report.obj is obj:
                return report
        raise CfUsageError("the object was not validated")

    def __str__(self) -> str:
        lines = [f"{label}: {p.severity}: {p}" for label, p in self.problems]
        errors = len(self.errors())
        lines.append(
            f"{len(self.objects)} objects, {errors} error{'s' if errors != 1 else ''}, "
            f"{len(self.problems) - errors} note{'s' if len(self.problems) - errors != 1 else ''}"
        )
        return "\n".join(lines)

    def __repr__(self) -> str:  # bounded: ``str()`` lists every problem
        return f"<ValidationReport: {str(self).rsplit(chr(10), 1)[-1]}>"

    def _repr_html_(self) -> str:  # Jupyter: a table of the problems (bounded), then the totals
        title = str(self).rsplit("\n", 1)[-1]  # "N objects, N errors, N notes"
        rows = [(label, p.severity, p.feature or "", p.message, p.kind) for label, p in self.problems]
        return html_table(title, ("object", "severity", "feature", "problem", "code"), rows)


class InvalidModelError(CfEvaluationError):
    """A model that does not validate was not saved: ``report`` says why."""

    def __init__(self, report: ValidationReport, action: str) -> None:
        errors = report.errors()
        count = len(errors)
        message = (
            f"the model is invalid ({count} error{'s' if count != 1 else ''}): {action} refused "
            "(nothing written; validate=False writes it anyway)"
        )
        super().__init__(message, None, "invalid-model", [Note(None, f"{label}: {p}") for label, p in errors])
        self.report = report


# ---------------------------------------------------------------------- validation


def validate(
    objects: EObject | Iterable[EObject] | Document | Any,
    metamodel: lf.DomainMetamodel | None = None,
    plugins: Mapping[str, Plugin] | None = None,
) -> ValidationReport:
    """Validate instances against their metamodel (see the module docstring).

    *objects*: one EObject, several, a PyEcore `Resource` (all its contents) or a
    `Document`. *plugins* maps qualified plugin names (``std::is_base64_encoded``) to
    Python functions, for conditions that call them.
    """
    items = _objects(objects)
    checker = _Checker(metamodel or _metamodel_of(items), plugins)
    reports = [ObjectReport(obj, checker.label(obj, i)) for i, obj in enumerate(items)]
    labels: dict[str, int] = {}
    for i, report in enumerate(reports):
        labels[report.label] = labels.get(report.label, 0) + 1
        if labels[report.label] > 1 and not report.label.endswith(f"#{i}"):
            report.label += f" #{i}"
    for report in reports:
        checker.check(report)
    checker.check_indexes(reports)
    return ValidationReport(reports)


def _objects(objects: Any) -> list[EObject]:
    if isinstance(objects, Document):
        roots: Iterable[EObject] = objects.roots
    elif isinstance(objects, EObject):
        roots = [objects]
    elif hasattr(objects, "contents") and not isinstance(objects, list | tuple):
        roots = list(objects.contents)
    else:
        roots = list(objects)
    out: list[EObject] = []
    seen: set[int] = set()
    for root in roots:
        for obj in [root, *root.eAllContents()]:
            if id(obj) not in seen:
                seen.add(id(obj))
                out.append(obj)
    return out


def _metamodel_of(objects: list[EObject]) -> lf.DomainMetamodel:
    roots: list[EPackage] = []

    def add(pkg: Any) -> None:
        while pkg is not None and pkg.eSuperPackage is not None:
            pkg = pkg.eSuperPackage
        if pkg is not None and pkg not in roots and pkg.nsURI != datatypes.ECORE_NS:
            roots.append(pkg)

    for eclass in {id(o.eClass): o.eClass for o in objects}.values():
        for cls in [eclass, *eclass.eAllSuperTypes()]:
            add(cls.ePackage)
            for f in cls.eStructuralFeatures:
                add(getattr(f.eType, "ePackage", None))
    return lf.DomainMetamodel.from_packages(roots)


class _Checker:
    def __init__(self, metamodel: lf.DomainMetamodel, plugins: Mapping[str, Plugin] | None) -> None:
        self.metamodel = metamodel
        self.plugins = plugins
        self.features = model.FeatureCache()
        self.conditions: dict[str, nodes.Expression | None] = {}

    def name(self, eclass: EClass) -> str:
        try:
            return self.metamodel.name_of(eclass)
        except CfUsageError:
            return str(eclass.name)

    def label(self, obj: EObject, position: int) -> str:
        for cls in [obj.eClass, *obj.eClass.eAllSuperTypes()]:
            annotation = cls.getEAnnotation(lf.INDEX)
            if annotation is None:
                continue
            for value in annotation.details.values():
                parts = []
                for name in (n.strip() for n in str(value).split(",")):
                    feature = obj.eClass.findEStructuralFeature(name)
                    if feature is None or not isinstance(feature, EAttribute) or not obj.eIsSet(feature):
                        break
                    parts.append(f"{name}={literal_of(lf.from_ecore_value(feature, obj.eGet(feature)))}")
                else:
                    return f"{self.name(obj.eClass)}[{', '.join(parts)}]"
        return f"{self.name(obj.eClass)} #{position}"

    # -- one object

    def check(self, report: ObjectReport) -> None:
        obj = report.obj
        for feature in self.features.persistent(obj.eClass):
            if feature.many:
                values = list(obj.eGet(feature))
                upper = feature.upperBound
                if len(values) < feature.lowerBound or (upper > 0 and len(values) > upper):
                    bound = "*" if upper < 0 else str(upper)
                    report.problems.append(
                        Problem(
                            feature.name,
                            f"{len(values)} values, expected [{feature.lowerBound}..{bound}]",
                            "bounds",
                        )
                    )
            else:
                value = obj.eGet(feature) if obj.eIsSet(feature) else None
                values = [] if value is None else [value]
                if not values and feature.lowerBound > 0 and not self.has_default(feature):
                    what = "attribute" if isinstance(feature, EAttribute) else "relation"
                    message = f"required {what} is not set{self.why(feature)}"
                    report.problems.append(Problem(feature.name, message, "bounds"))
            if isinstance(feature, EAttribute):
                for value in values:
                    self.check_value(report, feature, value)
            elif feature.eOpposite is not None:
                for target in values:
                    back = target.eGet(feature.eOpposite)
                    listed = obj in back if feature.eOpposite.many else back is obj
                    if not listed:
                        back_name = feature.eOpposite.name
                        message = f"{self.name(target.eClass)} does not list it back in {back_name}"
                        report.problems.append(Problem(feature.name, message, "opposite"))

    def has_default(self, feature: Any) -> bool:
        return isinstance(feature, EAttribute) and feature.defaultValueLiteral is not None

    def why(self, feature: Any) -> str:
        annotation = feature.getEAnnotation(lf.DEFAULT) if isinstance(feature, EAttribute) else None
        if annotation is not None and annotation.details.get("value") not in (None, "null"):
            return f" (its default {annotation.details['value']} is applied by the compiler only)"
        return ""

    def check_value(self, report: ObjectReport, feature: EAttribute, value: Any) -> None:
        etype = feature.eType
        problem = self.type_problem(feature, value)
        if problem is not None:
            report.problems.append(Problem(feature.name, problem, "type"))
            return
        if isinstance(etype, EEnum) or not isinstance(etype, EDataType):
            return
        if etype.getEAnnotation(lf.TYPEDEF) is not None:
            for found in self.typedef_problems(etype, lf.from_ecore_value(feature, value)):
                report.problems.append(
                    Problem(feature.name, found.message, "constraint" if found.failed else "not-checked")
                )

    def type_problem(self, feature: EAttribute, value: Any) -> str | None:
        etype = feature.eType
        if isinstance(etype, EEnum):
            if not isinstance(value, EEnumLiteral) or value not in etype.eLiterals:
                return f"{_show(value)} is not a literal of enum {etype.name}"
            return None
        kind = lf.json_kind(feature)
        if kind is not None:
            if not isinstance(value, str):
                return f"{_show(value)} is not JSON text (a {kind} attribute holds JSON)"
            try:
                decoded = json.loads(value)
            except ValueError:
                return f"{_show(value)} is not valid JSON"
            if kind in ("dict", "list") and not primitive_fits(decoded, kind):
                return f"JSON {_show(value)} is not a {kind}"
            return None
        primitive = self.primitive(feature)
        if (
            primitive is not None
            and not primitive_fits(value, primitive)
            and not (primitive in ("float", "number") and primitive_fits(value, "number"))
        ):
            return f"{_show(value)} is not a valid {primitive}"
        try:
            codec = datatypes.codec_for(etype)
        except CfModelError:
            return None
        if not codec.check(value):
            return f"{_show(value)} is not a valid {codec.name} (the Ecore type of {etype.name})"
        return None

    def primitive(self, feature: EAttribute) -> str | None:
        declared = lf.cf_type_of(feature)
        if declared is not None:
            return declared.rstrip("?").removesuffix("[]")
        etype = feature.eType
        annotation = etype.getEAnnotation(lf.TYPEDEF)
        if annotation is not None:
            return str(annotation.details.get("primitive") or annotation.details.get("base"))

        return _foreign_primitive(etype)

    def typedef_problems(self, datatype: EDataType, value: Any) -> list[Any]:
        """Constraint problems along a typedef chain (the base's first)."""
        annotation = datatype.getEAnnotation(lf.TYPEDEF)
        if annotation is None:
            return []
        details = {str(k): str(v) for k, v in annotation.details.items()}
        found: list[Any] = []
        base = details.get("base", "")
        if "::" in base:
            try:
                parent = self.metamodel.classifier(base)
            except CfUsageError:
                parent = None
            if isinstance(parent, EDataType):
                found.extend(self.typedef_problems(parent, value))
                if any(p.failed for p in found):
                    return found
        try:
            qualified = self.metamodel.name_of(datatype)
        except CfUsageError:
            qualified = str(datatype.name)
        name = lf.classifier_name(datatype)
        condition = self.condition(details["condition"]) if "condition" in details else None
        problem = check_constraint(value, name, qualified, details.get("regex"), condition, self.plugins)
        if "condition" in details and condition is None:
            problem = problem or _unparsed(qualified)
        if problem is not None:
            found.append(problem)
        return found

    def condition(self, text: str) -> nodes.Expression | None:
        if text not in self.conditions:
            try:
                module = parse_str(f"typedef t as string matching {text}\n", "<condition>")
                statement = module.statements[0]
                self.conditions[text] = statement.condition if isinstance(statement, nodes.Typedef) else None
            except CfModelError:
                self.conditions[text] = None
        return self.conditions[text]

    # -- across objects

    def check_indexes(self, reports: list[ObjectReport]) -> None:
        seen: dict[tuple[int, str, tuple[Any, ...]], str] = {}
        for report in reports:
            obj = report.obj
            for cls in [obj.eClass, *obj.eClass.eAllSuperTypes()]:
                annotation = cls.getEAnnotation(lf.INDEX)
                if annotation is None:
                    continue
                for value in annotation.details.values():
                    names = [n.strip() for n in str(value).split(",")]
                    key = self.key(obj, names)
                    if key is None:
                        continue
                    slot = (id(cls), str(value), key)
                    if slot in seen:
                        message = f"index {self.name(cls)}({', '.join(names)}): same key as {seen[slot]}"
                        report.problems.append(Problem(None, message, "index"))
                    else:
                        seen[slot] = report.label

    def key(self, obj: EObject, names: list[str]) -> tuple[Any, ...] | None:
        key: list[Any] = []
        for name in names:
            feature = obj.eClass.findEStructuralFeature(name)
            if feature is None or feature.many or not obj.eIsSet(feature):
                return None
            value = obj.eGet(feature)
            key.append(id(value) if isinstance(value, EObject) else _hashable(value))
        return tuple(key)


def _unparsed(qualified: str) -> Any:

    return ConditionProblem(f"the condition of {qualified} could not be parsed", failed=False)


def _hashable(value: Any) -> Any:
    if isinstance(value, EEnumLiteral):
        return value.name
    return value


def literal_of(value: Any) -> str:
    try:
        return literal(value)
    except TypeError:
        return repr(value)


def _show(value: Any) -> str:
    text = literal_of(value) if not isinstance(value, EObject) else f"<{value.eClass.name}>"
    return text if len(text) <= 60 else text[:57] + "..."
