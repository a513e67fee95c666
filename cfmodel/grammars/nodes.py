"""The syntax tree of the configuration language.

Every node is a slotted dataclass with a `span` (1-based, end exclusive). Names that
users write keep their own span (`Name.span`) so errors can point at the exact word.
The tree is a means, not the product: the resolve/lift/evaluate passes read it and
produce Ecore models. `cfmodel.dump` prints it canonically. `sub_expressions`, `walk` and
`ExpressionVisitor` are the one way to go through an expression's children (`conjuncts`:
the operands of an ``and`` chain).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeAlias, TypeVar

from cfmodel.errors import Span

T = TypeVar("T")


@dataclass(slots=True)
class Name:
    """An identifier or qualified name (``a::b::C``) as written, with its own span."""

    text: str
    span: Span


# ---------------------------------------------------------------- expressions


@dataclass(slots=True)
class Literal:
    """``42``, ``-1.5``, ``true``, ``false``, ``null``, or a string without interpolation."""

    value: int | float | bool | str | None
    span: Span


@dataclass(slots=True)
class Interpolation:
    """A string with ``{{ a.b }}`` parts: literal text and references, in order."""

    parts: list[str | Expression]
    span: Span


@dataclass(slots=True)
class FormatField:
    """One ``{expr!conv:spec}`` field of an f-string."""

    value: Expression
    conversion: str | None
    format_spec: str


@dataclass(slots=True)
class FString:
    """``f"..."``: literal text and format fields, in order."""

    parts: list[str | FormatField]
    span: Span


@dataclass(slots=True)
class Regex:
    """``/pattern/`` after ``matching``."""

    pattern: str
    span: Span


@dataclass(slots=True)
class Reference:
    """A variable or type name, possibly qualified (``ns::x``)."""

    name: Name
    span: Span


@dataclass(slots=True)
class AttributeAccess:
    """``target.name``."""

    target: Expression
    name: Name
    span: Span


@dataclass(slots=True)
class MapLookup:
    """``target[key]`` on a dict."""

    target: Expression
    key: Expression
    span: Span


@dataclass(slots=True)
class KeywordArgument:
    """``name=value`` in a call, constructor or query."""

    name: Name
    value: Expression
    span: Span


@dataclass(slots=True)
class IndexQuery:
    """``Entity[k=v, ...]``: an index lookup."""

    entity: Name
    arguments: list[KeywordArgument]
    span: Span


@dataclass(slots=True)
class SelectorQuery:
    """``x.relation[k=v, ...]``: an index lookup through a relation (selector style)."""

    target: Expression
    relation: Name
    arguments: list[KeywordArgument]
    span: Span


@dataclass(slots=True)
class Constructor:
    """``Entity(k=v, **d)``."""

    entity: Name
    arguments: list[KeywordArgument]
    wrapped_kwargs: list[Expression]
    span: Span


@dataclass(slots=True)
class FunctionCall:
    """``ns::f(a, k=v, **d)``: a plugin call."""

    name: Name
    positional: list[Expression]
    arguments: list[KeywordArgument]
    wrapped_kwargs: list[Expression]
    span: Span


@dataclass(slots=True)
class ListLiteral:
    """``[a, b, c]``."""

    items: list[Expression]
    span: Span


@dataclass(slots=True)
class DictLiteral:
    """``{"k": v, ...}`` (string keys only)."""

    pairs: list[tuple[str, Expression]]
    span: Span


@dataclass(slots=True)
class ComprehensionFor:
    variable: Name
    iterable: Expression


@dataclass(slots=True)
class ListComprehension:
    """``[value for x in l if c]`` (several ``for`` and ``if`` allowed)."""

    value: Expression
    loops: list[ComprehensionFor]
    guards: list[Expression]
    span: Span


@dataclass(slots=True)
class BinaryOperation:
    """``left op right``: comparison, arithmetic, ``and``/``or``, ``in``/``not in``, ``is``."""

    operator: str
    left: Expression
    right: Expression
    span: Span


@dataclass(slots=True)
class Not:
    operand: Expression
    span: Span


@dataclass(slots=True)
class IsDefined:
    """``x.attr is defined`` / ``d["k"] is defined``."""

    target: Expression
    span: Span


@dataclass(slots=True)
class Conditional:
    """``condition ? then : otherwise``."""

    condition: Expression
    then: Expression
    otherwise: Expression
    span: Span


Expression: TypeAlias = (
    Literal
    | Interpolation
    | FString
    | Regex
    | Reference
    | AttributeAccess
    | MapLookup
    | IndexQuery
    | SelectorQuery
    | Constructor
    | FunctionCall
    | ListLiteral
    | DictLiteral
    | ListComprehension
    | BinaryOperation
    | Not
    | IsDefined
    | Conditional
)

# ---------------------------------------------------------------- walking expressions

# Per expression class, its direct sub-expressions in source order: the one list of an
# expression's children (the compiler, resolve and the .ecore import walk with it).
_CHILDREN: dict[type, Callable[[Any], Iterable[Expression]]] = {
    Literal: lambda e: (),
    Regex: lambda e: (),
    Reference: lambda e: (),
    BinaryOperation: lambda e: (e.left, e.right),
    Not: lambda e: (e.operand,),
    IsDefined: lambda e: (e.target,),
    Conditional: lambda e: (e.condition, e.then, e.otherwise),
    AttributeAccess: lambda e: (e.target,),
    MapLookup: lambda e: (e.target, e.key),
    IndexQuery: lambda e: [a.value for a in e.arguments],
    SelectorQuery: lambda e: [e.target, *(a.value for a in e.arguments)],
    Constructor: lambda e: [*(a.value for a in e.arguments), *e.wrapped_kwargs],
    FunctionCall: lambda e: [*e.positional, *(a.value for a in e.arguments), *e.wrapped_kwargs],
    ListLiteral: lambda e: e.items,
    DictLiteral: lambda e: [v for _, v in e.pairs],
    ListComprehension: lambda e: [e.value, *(loop.iterable for loop in e.loops), *e.guards],
    Interpolation: lambda e: [part for part in e.parts if not isinstance(part, str)],
    FString: lambda e: [part.value for part in e.parts if not isinstance(part, str)],
}


def sub_expressions(expression: Expression) -> Iterable[Expression]:
    """The direct sub-expressions of *expression*, in source order (none for a leaf)."""
    children = _CHILDREN.get(type(expression))
    return children(expression) if children is not None else ()


def walk(expression: Expression) -> Iterator[Expression]:
    """*expression* and every expression inside it, depth first, in source order."""
    stack: list[Expression] = [expression]
    while stack:
        current = stack.pop()
        yield current
        children = list(sub_expressions(current))
        children.reverse()
        stack.extend(children)


def conjuncts(expression: Expression) -> list[Expression]:
    """The operands of a chain of ``and`` (*expression* itself when it is none), in source
    order; a chain of any length (no recursion)."""
    out: list[Expression] = []
    stack = [expression]
    while stack:
        current = stack.pop()
        if isinstance(current, BinaryOperation) and current.operator == "and":
            stack.append(current.right)
            stack.append(current.left)
        else:
            out.append(current)
    return out


class ExpressionVisitor(Generic[T]):
    """Dispatch on an expression's class: ``visit_<ClassName>(node)``, else `generic_visit`.

    `generic_visit` visits the sub-expressions and returns None; a subclass overrides the
    ``visit_`` methods of the nodes it cares about (as Jinja's ``NodeVisitor``). Each
    subclass finds its method for a node class once (`_methods`)."""

    _methods: dict[type, Callable[[Any, Any], T | None]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}

    def visit(self, node: Expression) -> T | None:
        kind = type(node)
        method = self._methods.get(kind)
        if method is None:
            found = getattr(type(self), "visit_" + kind.__name__, None)
            method = self._methods[kind] = found if found is not None else type(self).generic_visit
        return method(self, node)

    def generic_visit(self, node: Expression) -> T | None:
        for child in sub_expressions(node):
            self.visit(child)
        return None


# ---------------------------------------------------------------- statements


@dataclass(slots=True)
class Assignment:
    """``target = value`` / ``target += value``; an anonymous implementation may follow."""

    target: Expression  # Reference or AttributeAccess
    value: Expression
    append: bool
    anonymous: list[Statement] | None
    span: Span


@dataclass(slots=True)
class ExpressionStatement:
    """A bare expression (a constructor, a plugin call, a docstring)."""

    value: Expression
    anonymous: list[Statement] | None
    span: Span


@dataclass(slots=True)
class For:
    variable: Name
    iterable: Expression
    statements: list[Statement]
    span: Span


@dataclass(slots=True)
class IfBranch:
    condition: Expression
    statements: list[Statement]
    span: Span


@dataclass(slots=True)
class If:
    """``if c: ... elif c: ... else: ... end``."""

    branches: list[IfBranch]
    else_statements: list[Statement] | None
    span: Span


@dataclass(slots=True)
class Include:
    """``include implName`` inside an anonymous implementation block."""

    implementation: Name
    span: Span


Statement: TypeAlias = Assignment | ExpressionStatement | For | If | Include

# ---------------------------------------------------------------- definitions


@dataclass(slots=True)
class Import:
    name: Name
    alias: Name | None
    span: Span


@dataclass(slots=True)
class TypeRef:
    """An attribute type: ``string``, ``ns::t``, ``T[]``, ``T?``, ``T[]?``."""

    name: Name
    multi: bool
    nullable: bool
    span: Span


@dataclass(slots=True)
class Undef:
    """``undef`` as an attribute default: removes an inherited default."""

    span: Span


@dataclass(slots=True)
class Attribute:
    type: TypeRef
    name: Name
    default: Expression | Undef | None
    span: Span


@dataclass(slots=True)
class Entity:
    name: Name
    parents: list[Name]
    doc: str | None
    attributes: list[Attribute]
    span: Span


@dataclass(slots=True)
class Multiplicity:
    """``[n]``, ``[n:]``, ``[n:m]``, ``[:m]``; ``upper`` None means unbounded."""

    lower: int
    upper: int | None
    span: Span


@dataclass(slots=True)
class RelationEnd:
    """One side of a relation: the entity, the property name on it and its multiplicity.

    ``entity.name`` is the property through which *entity* reaches the other end.
    """

    entity: Name
    name: Name | None
    multiplicity: Multiplicity | None


@dataclass(slots=True)
class Relation:
    """``A.b [1] -- B.a [0:]`` (new), ``A.b [1] -- B`` (unidirectional) or old syntax.

    Normalised so that both syntaxes give the same ends: ``left.entity`` has the
    property ``left.name`` pointing at ``right.entity`` with ``left.multiplicity``.
    """

    left: RelationEnd
    right: RelationEnd
    arrow: str
    annotations: list[Expression]
    old_syntax: bool
    doc: str | None
    span: Span


@dataclass(slots=True)
class Implementation:
    name: Name
    entity: Name | None
    doc: str | None
    statements: list[Statement]
    span: Span


@dataclass(slots=True)
class Implement:
    """``implement E using a, b when c`` / ``implement E using parents``."""

    entity: Name
    implementations: list[Name]
    using_parents: bool
    condition: Expression | None
    doc: str | None
    span: Span


@dataclass(slots=True)
class Typedef:
    """``typedef t as base matching /re/ | condition`` or ``typedef T as E(k=v)``."""

    name: Name
    base: Name | None
    regex: Regex | None
    condition: Expression | None
    constructor: Constructor | None
    doc: str | None
    span: Span


@dataclass(slots=True)
class Index:
    entity: Name
    attributes: list[Name]
    span: Span


@dataclass(slots=True)
class Enum:
    """Legacy ``enum os with parent root|"v" as "a", "b"``."""

    name: Name
    parent: Literal | None  # None: the root of the value tree
    values: list[Literal]
    span: Span


Definition: TypeAlias = Import | Entity | Relation | Implementation | Implement | Typedef | Index | Enum
TopStatement: TypeAlias = Definition | Statement


@dataclass(slots=True)
class Module:
    """One ``.cf`` file: its namespace's statements, in source order."""

    file: str
    doc: str | None
    statements: list[TopStatement] = field(default_factory=list)
    # ``#@ecore`` comments (Ecore's form of a declaration, written by ``ecore import``):
    # the line of the declaration they precede -> their text; 0 -> ``#@ecore-package``
    pragmas: dict[int, str] = field(default_factory=dict)
