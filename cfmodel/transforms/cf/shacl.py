"""cfmodel's annotations as SHACL: typedef constraints and indexes, for a SHACL validator.

Input: a `DomainMetamodel` (lifted or read from ``.ecore``: the typedef and index
annotations of docs/metamodel.md). Output: `CfShapes`, the ``shapes`` source of
`cfmodel.serializers.rdf.RdfOptions`: per data type, a `DatatypeShape` whose constraints
hold exactly for the values `cfmodel.validate_instances` accepts; per class with an index,
a SHACL-SPARQL constraint that reports an object whose key an earlier object of the class
(or a subclass) has (earlier: by ``cfm:position``, else by IRI: the order a reader gives),
as `validate_instances` reports the second of two objects in the order it is given them.

What maps: a regex is ``sh:pattern "^(?:regex)"`` (Python's ``re.match`` anchors at the
start only; pySHACL evaluates patterns with Python's ``re``, other validators with XPath's
regular expressions, which lack some of Python's syntax); in a condition on ``self`` (or
the typedef's name): ``and`` (each conjunct alone), ``or`` (``sh:or``), ``not``
(``sh:not``), ``< <= > >=`` against a number on a numeric typedef (``sh:min/maxExclusive``,
``sh:min/maxInclusive``), ``==``/``!=``/``in [...]`` against literals (``sh:in``, typed as
the attribute's literals are), ``std::length(self)`` (or ``length``) compared with an
integer (``sh:minLength``/``sh:maxLength``), ``true``. A parent typedef's shape is
included with ``sh:node``. Everything else (plugin calls, attribute access, arithmetic,
comparisons of strings) is not dropped: the conjunct is named, with the reason, in a
deactivated shape's ``sh:message`` (`DatatypeShape.unexpressed`), and what could be said is
still checked.
"""

from __future__ import annotations

from typing import Any

from pyecore.ecore import EClass, EDataType

from cfmodel.errors import CfModelError, CfUsageError
from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str
from cfmodel.serializers.rdf import (
    CFM,
    RDF,
    RDFS,
    SH,
    XSD,
    DatatypeShape,
    Literal,
    SparqlCheck,
    class_iri,
    feature_iri,
    shape_iri,
)
from cfmodel.transforms.cf import lift as lf
from cfmodel.transforms.cf.unparse import to_source

_NUMERIC = frozenset({"int", "float", "number"})
_XSD_OF_PRIMITIVE = {
    "int": "long",
    "float": "double",
    "number": "double",
    "bool": "boolean",
    "string": "string",
}
_BOUNDS = {"<": "maxExclusive", "<=": "maxInclusive", ">": "minExclusive", ">=": "minInclusive"}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_LENGTHS = {"<": ("maxLength", -1), "<=": ("maxLength", 0), ">": ("minLength", 1), ">=": ("minLength", 0)}

Constraints = list[tuple[str, Any]]


class UnexpressibleError(Exception):
    """A part of a condition SHACL Core cannot state."""


class CfShapes:
    """The SHACL shapes of a cfmodel metamodel's typedefs and indexes."""

    def __init__(self, metamodel: lf.DomainMetamodel) -> None:
        self.metamodel = metamodel

    def eclass(self, eclass: EClass) -> list[SparqlCheck]:
        """One constraint per index of the class (own indexes; subclasses inherit the shape)."""
        annotation = eclass.getEAnnotation(lf.INDEX)
        if annotation is None:
            return []
        checks = []
        for value in annotation.details.values():
            names = [n.strip() for n in str(value).split(",")]
            features = [eclass.findEStructuralFeature(n) for n in names]
            if any(f is None or f.many for f in features):
                continue
            keys = " ; ".join(f"<{feature_iri(f)}> ?k{i}" for i, f in enumerate(features))
            select = (
                f"SELECT $this WHERE {{ $this {keys} . ?other {keys} . "
                f"?other <{RDF}type>/<{RDFS}subClassOf>* <{class_iri(eclass)}> . FILTER (?other != $this) "
                f"OPTIONAL {{ $this <{CFM}position> ?this_position }} "
                f"OPTIONAL {{ ?other <{CFM}position> ?other_position }} "
                f"FILTER (IF(BOUND(?this_position) && BOUND(?other_position), "
                f"?other_position < ?this_position, STR(?other) < STR($this))) }}"
            )
            message = f"index {self.qualified(eclass)}({', '.join(names)}): same key as an earlier object"
            checks.append(SparqlCheck(select, message))
        return checks

    def datatype(self, datatype: EDataType) -> DatatypeShape | None:
        annotation = datatype.getEAnnotation(lf.TYPEDEF)
        if annotation is None:
            return None
        details = {str(k): str(v) for k, v in annotation.details.items()}
        constraints: Constraints = []
        unexpressed: list[str] = []
        parent = self.parent(details.get("base", ""))
        if parent is not None and self.datatype(parent) is not None:
            constraints.append((SH + "node", shape_iri(parent)))
        qualified = self.qualified(datatype)
        primitive = details.get("primitive") or details.get("base", "")
        message = ""
        if "regex" in details:
            constraints.append((SH + "pattern", f"^(?:{details['regex']})"))
            message = f"does not match /{details['regex']}/ of {qualified}"
        elif "condition" in details:
            name = lf.classifier_name(datatype)
            condition = _parse(details["condition"])
            if condition is None:
                unexpressed.append(
                    f"the condition of {qualified} could not be parsed: {details['condition']}"
                )
            else:
                message = f"does not satisfy the condition of {qualified} ({to_source(condition)})"
                translator = _Translator({"self", name}, primitive)
                for conjunct in nodes.conjuncts(condition):
                    try:
                        constraints.extend(translator.translate(conjunct))
                    except UnexpressibleError as reason:
                        unexpressed.append(
                            f"not expressible in SHACL, checked by cfmodel.validate_instances only: "
                            f"{to_source(conjunct)} (condition of {qualified}): {reason}"
                        )
        if not constraints and not unexpressed:
            return None
        return DatatypeShape(tuple(constraints), message, tuple(unexpressed))

    def parent(self, base: str) -> EDataType | None:
        if "::" not in base:
            return None
        try:
            found = self.metamodel.classifier(base)
        except CfUsageError:
            return None
        return found if isinstance(found, EDataType) else None

    def qualified(self, datatype: Any) -> str:
        try:
            return self.metamodel.name_of(datatype)
        except CfUsageError:
            return str(datatype.name)


def _parse(text: str) -> nodes.Expression | None:
    try:
        module = parse_str(f"typedef t as string matching {text}\n", "<condition>")
    except CfModelError:
        return None
    statement = module.statements[0] if module.statements else None
    return statement.condition if isinstance(statement, nodes.Typedef) else None


#: How deep ``not``/``and``/``or`` may nest in one conjunct of a condition to become SHACL.
MAX_NESTING = 100


class _Translator:
    """One condition's expressions → SHACL Core constraints on the value itself."""

    def __init__(self, names: set[str], primitive: str) -> None:
        self.names = names
        self.primitive = primitive

    def translate(self, e: nodes.Expression, depth: int = 0) -> Constraints:
        """The constraints of *e*; nested ``not``/``and``/``or`` as nested shapes, at most
        `MAX_NESTING` deep (deeper: not expressed, checked by validate_instances)."""
        if depth > MAX_NESTING:
            raise UnexpressibleError(f"'not', 'and' and 'or' nested more than {MAX_NESTING} deep")
        if isinstance(e, nodes.Literal) and e.value is True:
            return []
        if isinstance(e, nodes.Not):
            return [(SH + "not", self.translate(e.operand, depth + 1))]
        if isinstance(e, nodes.BinaryOperation):
            if e.operator == "and":
                return [*self.translate(e.left, depth + 1), *self.translate(e.right, depth + 1)]
            if e.operator == "or":
                return [(SH + "or", (self.translate(e.left, depth + 1), self.translate(e.right, depth + 1)))]
            return self.comparison(e)
        raise UnexpressibleError(f"a {type(e).__name__} is no comparison of the value")

    def comparison(self, e: nodes.BinaryOperation) -> Constraints:
        op, left, right = e.operator, e.left, e.right
        if op == "in" and self.is_self(left) and isinstance(right, nodes.ListLiteral):
            return [(SH + "in", tuple(self.constant(item) for item in right.items))]
        if op == "not in" and self.is_self(left) and isinstance(right, nodes.ListLiteral):
            return [(SH + "not", [(SH + "in", tuple(self.constant(item) for item in right.items))])]
        if op not in _FLIPPED:
            raise UnexpressibleError(f"operator {op!r}")
        if not self.is_self(left) and not self.is_length(left):
            left, right, op = right, left, _FLIPPED[op]
        if self.is_length(left):
            return self.length(op, right)
        if not self.is_self(left):
            raise UnexpressibleError("neither side is the value itself")
        if op == "==":
            return [(SH + "in", (self.constant(right),))]
        if op == "!=":
            return [(SH + "not", [(SH + "in", (self.constant(right),))])]
        if self.primitive not in _NUMERIC:
            raise UnexpressibleError(f"{op} compares numbers only, and this typedef is a {self.primitive}")
        bound = self.number(right)
        return [(SH + _BOUNDS[op], bound)]

    def is_self(self, e: nodes.Expression) -> bool:
        return isinstance(e, nodes.Reference) and e.name.text in self.names

    def is_length(self, e: nodes.Expression) -> bool:
        return (
            isinstance(e, nodes.FunctionCall)
            and e.name.text in ("std::length", "length")
            and len(e.positional) == 1
            and not e.arguments
            and not e.wrapped_kwargs
            and self.is_self(e.positional[0])
            and self.primitive == "string"
        )

    def length(self, op: str, right: nodes.Expression) -> Constraints:
        n = self.number(right)
        if not isinstance(n, int):
            raise UnexpressibleError("a length compared with a number that is not an integer")
        if op == "==":
            return [(SH + "minLength", n), (SH + "maxLength", n)]
        if op not in _LENGTHS:
            raise UnexpressibleError(f"a length compared with {op}")
        kind, shift = _LENGTHS[op]
        return [(SH + kind, max(n + shift, 0))]

    def number(self, e: nodes.Expression) -> int | float:
        value = e.value if isinstance(e, nodes.Literal) else None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise UnexpressibleError("compared with something other than a number literal")
        return value

    def constant(self, e: nodes.Expression) -> Literal:
        """A literal typed as the attribute's values are (SHACL compares terms, not values)."""
        if not isinstance(e, nodes.Literal) or e.value is None:
            raise UnexpressibleError("compared with something other than a literal")
        value = e.value
        xsd = _XSD_OF_PRIMITIVE.get(self.primitive)
        if xsd is None:
            raise UnexpressibleError(f"values of a {self.primitive} typedef are JSON text")
        if isinstance(value, bool):
            if xsd != "boolean":
                raise UnexpressibleError("a boolean is never equal to a value of this typedef")
            return Literal("true" if value else "false", XSD + xsd)
        if isinstance(value, str):
            if xsd != "string":
                raise UnexpressibleError("a string is never equal to a value of this typedef")
            return Literal(value, XSD + xsd)
        if xsd == "long" and isinstance(value, int):
            return Literal(str(value), XSD + xsd)
        if xsd == "double":
            return Literal(repr(float(value)), XSD + xsd)
        raise UnexpressibleError(f"{value!r} is never equal to a value of this typedef")


def cf_shapes(metamodel: lf.DomainMetamodel) -> CfShapes:
    """The ``shapes`` source for `metamodel`."""
    return CfShapes(metamodel)
