"""The syntax tree of an mcl program: slotted dataclasses, every node with its `Span`.

Built by `cfmodel.grammars.mcl` (textX objects never leak out). Nodes compare by identity
(``eq=False``) so the passes of `cfmodel.transforms.mcl` can key side tables (scopes, types)
by node. Written types (annotations) are `TypeNode`s here; `transforms/mcl/types.py` turns
them into the solver's types.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypeAlias, TypeVar

from cfmodel.errors import Span

# --- written types -----------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class TypeNode:
    """A type as written: ``str``, ``[]int``, ``map{str: int}``, ``struct{a int; b str}``,
    ``func(a str) int``. ``kind`` is one of bool/str/int/float/variant/list/map/struct/func."""

    span: Span
    kind: str
    items: list[TypeNode] = field(default_factory=list)  # list: [item]; map: [key, value]
    fields: list[tuple[str, TypeNode]] = field(default_factory=list)  # struct fields, func args
    result: TypeNode | None = None  # func result


# --- expressions --------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class BoolLit:
    span: Span
    value: bool


@dataclass(eq=False, slots=True)
class IntLit:
    span: Span
    value: int


@dataclass(eq=False, slots=True)
class FloatLit:
    span: Span
    value: float


@dataclass(eq=False, slots=True)
class StrLit:
    """A string literal, escapes decoded. ``raw`` (the text between the quotes) is kept
    when it holds ``${``: the interpolate pass splits it into an `Interpolated`."""

    span: Span
    value: str
    raw: str | None = None


@dataclass(eq=False, slots=True)
class Interpolated:
    """A string with ``${var}`` parts (made by the interpolate pass): literal text and variables."""

    span: Span
    parts: list[StrLit | Var]


@dataclass(eq=False, slots=True)
class ListLit:
    span: Span
    items: list[Expr]


@dataclass(eq=False, slots=True)
class MapPair:
    span: Span
    key: Expr
    value: Expr


@dataclass(eq=False, slots=True)
class MapLit:
    span: Span
    pairs: list[MapPair]


@dataclass(eq=False, slots=True)
class StructLit:
    span: Span
    fields: list[tuple[str, Expr]]


@dataclass(eq=False, slots=True)
class Var:
    """``$name`` or ``$a.b.c`` (a variable of an imported or included scope)."""

    span: Span
    name: str


@dataclass(eq=False, slots=True)
class Call:
    """A call: ``name(...)`` (function ``name``), ``$name(...)`` (``variable`` true: a lambda
    bound to a variable) or ``<expr>(...)`` (``callee`` set: an anonymous function)."""

    span: Span
    name: str
    args: list[Expr]
    variable: bool = False
    callee: Expr | None = None


@dataclass(eq=False, slots=True)
class Param:
    span: Span
    name: str
    type: TypeNode | None = None


@dataclass(eq=False, slots=True)
class FuncLit:
    """``func($a, $b str) int { body }``: a lambda (a closure over its defining scope)."""

    span: Span
    params: list[Param]
    result: TypeNode | None
    body: Expr


@dataclass(eq=False, slots=True)
class IfExpr:
    span: Span
    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(eq=False, slots=True)
class Binary:
    """``left op right`` for ``+ - * / == != < > <= >= and or in``."""

    span: Span
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False, slots=True)
class Not:
    span: Span
    operand: Expr


@dataclass(eq=False, slots=True)
class Index:
    """``target[index]``, with ``|| default`` when the index may be missing."""

    span: Span
    target: Expr
    index: Expr
    default: Expr | None = None


@dataclass(eq=False, slots=True)
class FieldLookup:
    """``target->field`` on a struct, with ``|| default``."""

    span: Span
    target: Expr
    field: str
    default: Expr | None = None


Expr: TypeAlias = (
    BoolLit
    | IntLit
    | FloatLit
    | StrLit
    | Interpolated
    | ListLit
    | MapLit
    | StructLit
    | Var
    | Call
    | FuncLit
    | IfExpr
    | Binary
    | Not
    | Index
    | FieldLookup
)

# --- statements ---------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Bind:
    span: Span
    name: str
    value: Expr
    type: TypeNode | None = None


@dataclass(eq=False, slots=True)
class If:
    """``if condition { then } else { otherwise }``; ``else_span`` is the ``else`` keyword's."""

    span: Span
    condition: Expr
    then: list[Stmt]
    otherwise: list[Stmt] | None = None
    else_span: Span | None = None


@dataclass(eq=False, slots=True)
class For:
    """``for $index, $value in list { body }``."""

    span: Span
    index: str
    value: str
    collection: Expr
    body: list[Stmt]


@dataclass(eq=False, slots=True)
class ForKV:
    """``forkv $key, $value in map { body }``."""

    span: Span
    key: str
    value: str
    collection: Expr
    body: list[Stmt]


@dataclass(eq=False, slots=True)
class FuncDef:
    """``func name(params) result { body }``: a named function (polymorphic per call)."""

    span: Span
    name: str
    func: FuncLit


@dataclass(eq=False, slots=True)
class ClassDef:
    """``class name`` or ``class name(params)``; ``a:b`` names nest until interpolation."""

    span: Span
    name: str
    params: list[Param] | None
    body: list[Stmt]


@dataclass(eq=False, slots=True)
class Include:
    span: Span
    name: str
    args: list[Expr] | None = None
    alias: str | None = None


@dataclass(eq=False, slots=True)
class Import:
    """``import "path"`` with ``as name`` or ``as *`` (alias ``"*"``)."""

    span: Span
    path: str
    alias: str | None = None


@dataclass(eq=False, slots=True)
class Panic:
    span: Span
    args: list[Expr]


@dataclass(eq=False, slots=True)
class EdgeHalf:
    """``Kind["title"]`` (the title may be a list: one half per name), ``.field`` for send/recv."""

    span: Span
    kind: str
    title: Expr
    field: str | None = None


@dataclass(eq=False, slots=True)
class EdgeChain:
    """``A["a"] -> B["b"] -> ...``; with fields a send/recv pair."""

    span: Span
    halves: list[EdgeHalf]


@dataclass(eq=False, slots=True)
class ResField:
    """``name => value`` or ``name => condition ?: value``."""

    span: Span
    name: str
    value: Expr
    condition: Expr | None = None


@dataclass(eq=False, slots=True)
class ResEdge:
    """``Before|Depend|Notify|Listen => Kind["name"]`` (with an elvis condition)."""

    span: Span
    property: str
    half: EdgeHalf
    condition: Expr | None = None


@dataclass(eq=False, slots=True)
class ResMeta:
    """``Meta:name => value`` (``name`` set) or ``Meta => struct{...}`` (``name`` None)."""

    span: Span
    name: str | None
    value: Expr
    condition: Expr | None = None


ResEntry: TypeAlias = ResField | ResEdge | ResMeta


@dataclass(eq=False, slots=True)
class Resource:
    span: Span
    kind: str
    title: Expr
    entries: list[ResEntry]


Stmt: TypeAlias = (
    Bind | If | For | ForKV | FuncDef | ClassDef | Include | Import | Panic | EdgeChain | Resource
)


@dataclass(eq=False, slots=True)
class Program:
    """One ``.mcl`` file: its statements and the text they came from (kept for ``fmt``)."""

    span: Span
    file: str
    statements: list[Stmt]
    comments: list[tuple[Span, str]] = field(default_factory=list)


N = TypeVar("N")


def clone(node: N) -> N:
    """A deep copy of a subtree (spans shared): every include and every call of a named
    function gets its own nodes, so each copy is typed and evaluated on its own."""
    return _clone(node)  # type: ignore[no-any-return]


def _clone(value: Any) -> Any:
    if isinstance(value, list):
        return [_clone(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_clone(v) for v in value)
    names = _FIELDS.get(type(value))
    if names is None:
        if not dataclasses.is_dataclass(value) or isinstance(value, (type, Span)):
            return value  # str, int, float, bool, None, Span: shared
        names = _FIELDS[type(value)] = tuple(f.name for f in dataclasses.fields(value))
    return type(value)(*[_clone(getattr(value, name)) for name in names])


_FIELDS: dict[type, tuple[str, ...]] = {}
