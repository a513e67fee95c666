"""Type unification: every expression that can run gets its one type.

Input: the `Program` and its `Resolution` (scope), the function `Library`, the resource
kinds, and the source texts (to name expressions in messages).
Output: a `Typing`: ``types[node]`` is the solved type of every expression that runs
(binds nobody uses are not typed, as in mgmt), ``signatures[call]`` the solved signature of
every call of a built-in function.

How: each node states its invariants as it is visited (a literal ``42`` is ``int``, both
branches of an ``if`` have the type of the ``if``, a call's arguments have its signature's
argument types, a resource field has its kind's field type ...) and the solver unifies them
at once (union of unification variables, structural on lists, maps, structs, functions).
Invariants that need a type to be known first (``x[i]`` on a list or a map, ``s->f``, an
operator's allowed types, a resource name that is ``str`` or ``[]str``) wait until it is;
a resource or edge name still unknown then is ``[]str``, as mgmt assumes. Built-in
functions with unification variables get fresh ones per call; an InferableFunc
(``fmt.printf``) makes its signature from the call, a BuildableFunc checks the solution.

Errors: ``mcl-unify-conflict`` (two invariants want different types: the message names
the expressions and their types), ``mcl-unify-ambiguous`` (no single solution: the
expression whose type is unknown; add a type annotation), ``mcl-unify-unknown-kind``,
``mcl-unify-unknown-field``, ``mcl-unify-arity`` (wrong number of arguments),
``mcl-unify-build`` (a function refuses the solution), ``mcl-unify-infer`` (an
InferableFunc refuses the call), ``mcl-unify-sendrecv`` (a send/recv pair that does not fit).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from cfmodel.errors import Diagnostics, Note, Span
from cfmodel.grammars import mcl_nodes as n
from cfmodel.metamodel.mcl_kinds import EDGE_PROPERTIES, GUIDE_META_STRUCT, META_FIELDS, META_STRUCT, Kind
from cfmodel.transforms.mcl.funcs import Function, InferError
from cfmodel.transforms.mcl.scope import Binding, Constant, LoopVar, Resolution
from cfmodel.transforms.mcl.types import (
    BOOL,
    FLOAT,
    INT,
    STR,
    Basic,
    FuncOf,
    ListOf,
    MapOf,
    SignatureError,
    StructOf,
    Type,
    TypeVar,
    contains_vars,
    display,
    from_node,
    parse_type,
)  # fmt: skip


@dataclass
class Typing:
    """The solution: the type of every expression that runs, and of every built-in call."""

    types: dict[object, Type] = field(default_factory=dict)
    signatures: dict[n.Call, FuncOf] = field(default_factory=dict)

    def type_of(self, node: object) -> Type:
        return self.types[node]


class _Conflict(Exception):  # noqa: N818 - internal signal, never leaves the module
    def __init__(self, left: Type, right: Type) -> None:
        super().__init__(f"{left} vs {right}")
        self.left = left
        self.right = right


class Solver:
    """Unification variables and what they are bound to (a union-find over types)."""

    def __init__(self) -> None:
        self.bound: dict[TypeVar, Type] = {}

    def find(self, t: Type) -> Type:
        while isinstance(t, TypeVar) and t in self.bound:
            t = self.bound[t]
        return t

    def resolve(self, t: Type) -> Type:
        t = self.find(t)
        if isinstance(t, ListOf):
            return ListOf(self.resolve(t.item))
        if isinstance(t, MapOf):
            return MapOf(self.resolve(t.key), self.resolve(t.value))
        if isinstance(t, StructOf):
            return StructOf(tuple((name, self.resolve(f)) for name, f in t.fields))
        if isinstance(t, FuncOf):
            return FuncOf(tuple((name, self.resolve(a)) for name, a in t.args), self.resolve(t.result))
        return t

    def unify(self, a: Type, b: Type) -> None:
        """Make *a* and *b* one type. Raises `_Conflict` with the two resolved types."""
        try:
            self._unify(a, b)
        except _Conflict:
            raise _Conflict(self.resolve(a), self.resolve(b)) from None

    def _unify(self, a: Type, b: Type) -> None:
        a, b = self.find(a), self.find(b)
        if a is b:
            return
        if isinstance(a, TypeVar):
            self._bind(a, b)
            return
        if isinstance(b, TypeVar):
            self._bind(b, a)
            return
        if isinstance(a, Basic) and isinstance(b, Basic):
            if a.name != b.name:
                raise _Conflict(a, b)
            return
        if isinstance(a, ListOf) and isinstance(b, ListOf):
            self._unify(a.item, b.item)
            return
        if isinstance(a, MapOf) and isinstance(b, MapOf):
            self._unify(a.key, b.key)
            self._unify(a.value, b.value)
            return
        if isinstance(a, StructOf) and isinstance(b, StructOf):
            if [name for name, _ in a.fields] != [name for name, _ in b.fields]:
                raise _Conflict(a, b)
            for (_, fa), (_, fb) in zip(a.fields, b.fields, strict=True):
                self._unify(fa, fb)
            return
        if isinstance(a, FuncOf) and isinstance(b, FuncOf):
            if len(a.args) != len(b.args):
                raise _Conflict(a, b)
            for (_, xa), (_, xb) in zip(a.args, b.args, strict=True):
                self._unify(xa, xb)
            self._unify(a.result, b.result)
            return
        raise _Conflict(a, b)

    def _bind(self, var: TypeVar, t: Type) -> None:
        if self._occurs(var, t):
            raise _Conflict(var, t)
        self.bound[var] = t

    def _occurs(self, var: TypeVar, t: Type) -> bool:
        t = self.find(t)
        if t is var:
            return True
        if isinstance(t, ListOf):
            return self._occurs(var, t.item)
        if isinstance(t, MapOf):
            return self._occurs(var, t.key) or self._occurs(var, t.value)
        if isinstance(t, StructOf):
            return any(self._occurs(var, f) for _, f in t.fields)
        if isinstance(t, FuncOf):
            return any(self._occurs(var, a) for _, a in t.args) or self._occurs(var, t.result)
        return False


Deferred = Callable[..., bool]  # True once applied (its type became known)

_NUMERIC = ("int", "float")
_OPERATOR_TYPES = {"+": ("int", "float", "str"), "-": _NUMERIC, "*": _NUMERIC, "/": _NUMERIC}
_ORDERING = ("int", "float", "str")


def unify(
    program: n.Program,
    resolution: Resolution,
    kinds: Mapping[str, Kind],
    sources: Mapping[str, str],
) -> Typing:
    """Run the stage (see the module docstring).

    Raises:
        CfCompileError: every conflict or ambiguity found (codes ``mcl-unify-*``).
    """
    checker = _Checker(resolution, kinds, sources)
    checker.statements(program.statements)
    return checker.finish()


class _Checker:
    def __init__(self, resolution: Resolution, kinds: Mapping[str, Kind], sources: Mapping[str, str]) -> None:
        self.res = resolution
        self.kinds = kinds
        self.sources = sources
        self.solver = Solver()
        self.diagnostics = Diagnostics()
        self.types: dict[object, Type] = {}
        self.binding_types: dict[object, Type] = {}
        self.deferred: list[Deferred] = []
        self.titles: list[tuple[n.Expr, Type]] = []
        self.conflict_spans: set[Span | None] = set()
        self.meta_values: list[Deferred] = []
        self.builds: list[tuple[Function, FuncOf, n.Call]] = []
        self.signatures: dict[n.Call, FuncOf] = {}

    # --- reporting ------------------------------------------------------------------------

    def text(self, node: object) -> str:
        span: Span | None = getattr(node, "span", None)
        source = self.sources.get(span.file) if span else None
        if span is None or source is None:
            return type(node).__name__
        lines = source.split("\n")
        if span.line == span.end_line:
            snippet = lines[span.line - 1][span.col - 1 : span.end_col - 1]
        else:
            snippet = lines[span.line - 1][span.col - 1 :] + " ..."
        snippet = " ".join(snippet.split())
        return snippet if len(snippet) <= 48 else snippet[:45] + "..."

    def conflict(self, node: object, why: str, err: _Conflict, involved: tuple[object, ...] = ()) -> None:
        span = getattr(node, "span", None)
        if span in self.conflict_spans:  # one conflict per expression: the first is the cause
            return
        self.conflict_spans.add(span)
        notes = []
        for other in involved:
            if other is not node and other in self.types:
                resolved = self.solver.resolve(self.types[other])
                notes.append(
                    Note(getattr(other, "span", None), f"`{self.text(other)}` is {display(resolved)}")
                )
        shown: set[n.Bind] = set()
        for other in (node, *involved):
            binding = self.res.targets.get(other) if isinstance(other, n.Var) else None
            if isinstance(binding, n.Bind) and binding.value in self.types and binding not in shown:
                shown.add(binding)
                resolved = self.solver.resolve(self.types[binding.value])
                text = self.text(binding.value)
                notes.append(Note(binding.span, f"${binding.name} is `{text}`, which is {display(resolved)}"))
        message = (
            f"type conflict: {why}: {display(err.left)} vs {display(err.right)} (in `{self.text(node)}`)"
        )
        self.diagnostics.error(getattr(node, "span", None), message, "mcl-unify-conflict", notes)

    def equal(self, node: object, a: Type, b: Type, why: str, *involved: object) -> None:
        try:
            self.solver.unify(a, b)
        except _Conflict as err:
            self.conflict(node, why, err, involved)

    def error(self, node: object, message: str, code: str) -> None:
        self.diagnostics.error(getattr(node, "span", None), message, code)

    # --- statements -----------------------------------------------------------------------

    def statements(self, statements: list[n.Stmt]) -> None:
        for stmt in statements:
            self.statement(stmt)

    def statement(self, stmt: n.Stmt) -> None:
        if isinstance(stmt, (n.Bind, n.FuncDef, n.ClassDef, n.Import)):
            return
        if isinstance(stmt, n.If):
            self.expect(stmt.condition, BOOL, "an if condition is bool")
            self.statements(stmt.then)
            self.statements(stmt.otherwise or [])
        elif isinstance(stmt, n.For):
            index, value = self.res.loops[stmt]
            item = TypeVar()
            self.binding_types[index] = INT
            self.binding_types[value] = item
            self.expect(stmt.collection, ListOf(item), "for loops over a list")
            self.statements(stmt.body)
        elif isinstance(stmt, n.ForKV):
            key_var, value_var = self.res.loops[stmt]
            key_type, value_type = TypeVar(), TypeVar()
            self.binding_types[key_var] = key_type
            self.binding_types[value_var] = value_type
            self.expect(stmt.collection, MapOf(key_type, value_type), "forkv loops over a map")
            self.statements(stmt.body)
        elif isinstance(stmt, n.Include):
            self.include(stmt)
        elif isinstance(stmt, n.Panic):
            self.panic(stmt)
        elif isinstance(stmt, n.EdgeChain):
            self.edge_chain(stmt)
        else:
            self.resource(stmt)

    def include(self, stmt: n.Include) -> None:
        instance = self.res.includes.get(stmt)
        if instance is None:
            return
        for param in instance.params:
            arg = self.res.class_args[param]
            self.equal(
                arg,
                self.binding_type(param),
                self.infer(arg),
                f"argument ${param.name} of class {stmt.name}",
                arg,
            )
        self.statements(instance.body)

    def panic(self, stmt: n.Panic) -> None:
        if len(stmt.args) != 1:
            self.error(
                stmt, f"panic takes one argument (a bool or a str), {len(stmt.args)} given", "mcl-unify-arity"
            )
            return
        arg = stmt.args[0]
        t = self.infer(arg)
        self.check_among(arg, t, ("bool", "str"), "panic takes a bool or a str")

    def resource(self, stmt: n.Resource) -> None:
        kind = self.kinds.get(stmt.kind)
        self.title(stmt.title)
        if kind is None:
            self.error(stmt, f"unknown resource kind {stmt.kind!r}", "mcl-unify-unknown-kind")
        for entry in stmt.entries:
            if entry.condition is not None:
                self.expect(entry.condition, BOOL, "an elvis condition is bool")
            if isinstance(entry, n.ResEdge):
                self.edge_half(entry.half)
            elif isinstance(entry, n.ResMeta):
                self.meta(entry)
            elif kind is not None:
                self.field(kind, entry)

    def field(self, kind: Kind, entry: n.ResField) -> None:
        if entry.name[:1].isupper():
            allowed = ", ".join(EDGE_PROPERTIES)
            self.error(
                entry,
                f"{entry.name} is not a resource property (edges are {allowed}; meta parameters Meta:name)",
                "mcl-unify-unknown-field",
            )
            self.infer(entry.value)
            return
        field_type = kind.fields.get(entry.name)
        if field_type is None:
            self.error(
                entry, f"resource kind {kind.name} has no field {entry.name!r}", "mcl-unify-unknown-field"
            )
            self.infer(entry.value)
            return
        self.expect(entry.value, parse_type(field_type), f"field {entry.name} of {kind.name} is {field_type}")

    def meta(self, entry: n.ResMeta) -> None:
        if entry.name is None:
            self.meta_struct(entry.value)
            return
        meta_type = META_FIELDS.get(entry.name)
        if meta_type is None:
            self.error(
                entry,
                f"unknown meta parameter Meta:{entry.name} (known: {', '.join(META_FIELDS)})",
                "mcl-unify-unknown-field",
            )
            self.infer(entry.value)
            return
        self.expect(entry.value, parse_type(meta_type), f"Meta:{entry.name} is {meta_type}")

    def meta_struct(self, value: n.Expr) -> None:
        """``Meta => struct{...}``: mgmt's whole struct of meta parameters, or the guide's nine
        fields (whichever the value's fields are; the full one when they are not known)."""
        t = self.infer(value)
        full, guide = parse_type(META_STRUCT), parse_type(GUIDE_META_STRUCT)
        assert isinstance(full, StructOf) and isinstance(guide, StructOf)

        def apply(final: bool = False) -> bool:
            found = self.solver.find(t)
            if isinstance(found, TypeVar) and not final:
                return False
            names = [name for name, _ in found.fields] if isinstance(found, StructOf) else []
            layout = guide if names == [name for name, _ in guide.fields] else full
            self.equal(value, t, layout, "Meta is the whole meta parameter struct", value)
            return True

        self.deferred.append(apply)
        self.meta_values.append(apply)

    def edge_half(self, half: n.EdgeHalf) -> Kind | None:
        self.title(half.title)
        kind = self.kind_of_class(half.kind)
        if kind is None:
            self.error(half, f"unknown resource kind {half.kind!r}", "mcl-unify-unknown-kind")
        return kind

    def kind_of_class(self, class_name: str) -> Kind | None:
        return self.kinds.get(":".join(part.lower() for part in class_name.split(":")))

    def edge_chain(self, stmt: n.EdgeChain) -> None:
        kinds = [self.edge_half(half) for half in stmt.halves]
        with_fields = [half for half in stmt.halves if half.field is not None]
        if not with_fields:
            return
        if len(stmt.halves) != 2 or len(with_fields) != 2:
            self.error(
                stmt, "a send/recv edge joins exactly two halves, each with a .field", "mcl-unify-sendrecv"
            )
            return
        (src, dst), (src_kind, dst_kind) = stmt.halves, kinds
        if src_kind is None or dst_kind is None:
            return
        assert src.field is not None and dst.field is not None
        sent = src_kind.sends.get(src.field)
        if sent is None:
            self.error(
                src, f"resource kind {src_kind.name} does not send {src.field!r}", "mcl-unify-sendrecv"
            )
            return
        received = dst_kind.fields.get(dst.field)
        if received is None:
            self.error(dst, f"resource kind {dst_kind.name} has no field {dst.field!r}", "mcl-unify-sendrecv")
            return
        if sent != received:
            message = f"{src.kind}.{src.field} sends {sent} but {dst.kind}.{dst.field} is {received}"
            self.error(stmt, message, "mcl-unify-sendrecv")

    def title(self, title: n.Expr) -> None:
        t = self.infer(title)
        self.titles.append((title, t))

    # --- expressions ----------------------------------------------------------------------

    def expect(self, node: n.Expr, t: Type, why: str) -> None:
        self.equal(node, self.infer(node), t, why, node)

    def infer(self, node: n.Expr) -> Type:
        known = self.types.get(node)
        if known is not None:
            return known
        t = self._infer(node)
        self.types[node] = t
        return t

    def _infer(self, node: n.Expr) -> Type:
        if isinstance(node, n.BoolLit):
            return BOOL
        if isinstance(node, n.IntLit):
            return INT
        if isinstance(node, n.FloatLit):
            return FLOAT
        if isinstance(node, n.StrLit):
            return STR
        if isinstance(node, n.Interpolated):
            for part in node.parts:
                if isinstance(part, n.Var):
                    self.expect(part, STR, "an interpolated variable is str")
            return STR
        if isinstance(node, n.ListLit):
            item = TypeVar()
            for element in node.items:
                self.equal(
                    element,
                    self.infer(element),
                    item,
                    "the items of a list have one type",
                    element,
                    node.items[0],
                )
            return ListOf(item)
        if isinstance(node, n.MapLit):
            key, value = TypeVar(), TypeVar()
            for pair in node.pairs:
                self.equal(
                    pair.key,
                    self.infer(pair.key),
                    key,
                    "the keys of a map have one type",
                    pair.key,
                    node.pairs[0].key,
                )
                self.equal(
                    pair.value,
                    self.infer(pair.value),
                    value,
                    "the values of a map have one type",
                    pair.value,
                    node.pairs[0].value,
                )
            return MapOf(key, value)
        if isinstance(node, n.StructLit):
            return StructOf(tuple((name, self.infer(value)) for name, value in node.fields))
        if isinstance(node, n.Var):
            binding = self.res.targets.get(node)
            return self.binding_type(binding) if binding is not None else TypeVar()
        if isinstance(node, n.Call):
            return self.call(node)
        if isinstance(node, n.FuncLit):
            return self.func_literal(node)
        if isinstance(node, n.IfExpr):
            self.expect(node.condition, BOOL, "an if condition is bool")
            result = self.infer(node.then)
            self.equal(
                node,
                result,
                self.infer(node.otherwise),
                "both branches of an if have one type",
                node.then,
                node.otherwise,
            )
            return result
        if isinstance(node, n.Not):
            self.expect(node.operand, BOOL, "not takes a bool")
            return BOOL
        if isinstance(node, n.Binary):
            return self.binary(node)
        if isinstance(node, n.Index):
            return self.index(node)
        return self.lookup(node)

    def binding_type(self, binding: Binding) -> Type:
        known = self.binding_types.get(binding)
        if known is not None:
            return known
        if isinstance(binding, Constant):
            t: Type = parse_type(binding.type)
            self.binding_types[binding] = t
            return t
        if isinstance(binding, LoopVar):
            t = TypeVar()  # a loop seen before its statement was typed (cannot happen)
            self.binding_types[binding] = t
            return t
        if isinstance(binding, n.Param):
            t = from_node(binding.type) if binding.type is not None else TypeVar()
            self.binding_types[binding] = t
            return t
        # a bind: typed at its first use
        placeholder = TypeVar()
        self.binding_types[binding] = placeholder
        value_type = self.infer(binding.value)
        self.equal(binding.value, placeholder, value_type, f"${binding.name} has one type", binding.value)
        if binding.type is not None:
            self.equal(
                binding.value,
                value_type,
                from_node(binding.type),
                f"${binding.name} is declared {self.text(binding.type)}",
                binding.value,
            )
        return placeholder

    def func_literal(self, node: n.FuncLit) -> Type:
        args = tuple((param.name, self.binding_type(param)) for param in node.params)
        result = self.infer(node.body)
        if node.result is not None:
            self.equal(node.body, result, from_node(node.result), "the function's declared result", node.body)
        return FuncOf(args, result)

    def call(self, node: n.Call) -> Type:
        target = self.res.calls.get(node)
        arg_types = [self.infer(arg) for arg in node.args]
        if isinstance(target, Function):
            signature = self.builtin_signature(target, node)
            if signature is None:
                return TypeVar()
        elif isinstance(target, n.FuncLit):
            signature_type = self.infer(target)
            assert isinstance(signature_type, FuncOf)
            signature = signature_type
        else:
            if node.callee is not None:
                callee = self.infer(node.callee)
            else:
                binding = self.res.call_targets.get(node)
                if binding is None:
                    return TypeVar()
                callee = self.binding_type(binding)
            result = TypeVar()
            wanted = FuncOf(tuple(("", t) for t in arg_types), result)
            self.equal(
                node, callee, wanted, f"${node.name or 'function'} is called with these arguments", *node.args
            )
            return result
        if len(signature.args) != len(node.args):
            self.error(
                node,
                f"{node.name} takes {len(signature.args)} arguments, {len(node.args)} given",
                "mcl-unify-arity",
            )
            return signature.result
        for arg, arg_type, (arg_name, wanted_type) in zip(node.args, arg_types, signature.args, strict=True):
            self.equal(arg, arg_type, wanted_type, f"argument {arg_name or '#'} of {node.name}", arg)
        return signature.result

    def builtin_signature(self, function: Function, node: n.Call) -> FuncOf | None:
        text = function.signature
        if function.infer is not None:
            values = [
                arg.value if isinstance(arg, (n.StrLit, n.IntLit, n.FloatLit, n.BoolLit)) else None
                for arg in node.args
            ]
            try:
                text = function.infer(values)
            except InferError as err:
                self.error(node, str(err), "mcl-unify-infer")
                return None
        if text is None:
            self.error(node, f"function {function.name} has no signature", "mcl-unify-infer")
            return None
        try:
            signature = parse_type(text, {})
        except SignatureError as err:
            self.error(node, f"function {function.name} declares a bad signature: {err}", "mcl-unify-infer")
            return None
        if not isinstance(signature, FuncOf):
            self.error(
                node, f"function {function.name} declares a signature that is not a func", "mcl-unify-infer"
            )
            return None
        self.signatures[node] = signature
        if function.build is not None:
            self.builds.append((function, signature, node))
        return signature

    def binary(self, node: n.Binary) -> Type:
        left, right = self.infer(node.left), self.infer(node.right)
        op = node.op
        if op in ("and", "or"):
            self.expect(node.left, BOOL, f"{op} takes bools")
            self.expect(node.right, BOOL, f"{op} takes bools")
            return BOOL
        if op == "in":
            self.equal(
                node,
                ListOf(left),
                right,
                "`in` looks for a value in a list of that type",
                node.left,
                node.right,
            )
            return BOOL
        self.equal(node, left, right, f"the operands of {op} have one type", node.left, node.right)
        if op in ("==", "!="):
            return BOOL
        if op in ("<", ">", "<=", ">="):
            self.check_among(node, left, _ORDERING, f"{op} compares ints, floats or strs")
            return BOOL
        self.check_among(node, left, _OPERATOR_TYPES[op], f"{op} takes " + " or ".join(_OPERATOR_TYPES[op]))
        return left

    def check_among(self, node: object, t: Type, names: tuple[str, ...], why: str) -> None:
        def check() -> bool:
            found = self.solver.resolve(t)
            if isinstance(found, TypeVar):
                return False
            if not (isinstance(found, Basic) and found.name in names):
                self.error(
                    node, f"type conflict: {why}, not {found} (in `{self.text(node)}`)", "mcl-unify-conflict"
                )
            return True

        self.deferred.append(check)

    def index(self, node: n.Index) -> Type:
        target = self.infer(node.target)
        index = self.infer(node.index)
        result = TypeVar()
        if node.default is not None:
            self.equal(
                node.default,
                self.infer(node.default),
                result,
                "the default of an index has the item's type",
                node.default,
            )

        def apply() -> bool:
            found = self.solver.find(target)
            if isinstance(found, TypeVar):
                return False
            if isinstance(found, ListOf):
                self.equal(node.index, index, INT, "a list index is int", node.index)
                self.equal(node, found.item, result, "the item's type", node.target)
            elif isinstance(found, MapOf):
                self.equal(node.index, index, found.key, "a map index has the key's type", node.index)
                self.equal(node, found.value, result, "the value's type", node.target)
            else:
                found_type = self.solver.resolve(found)
                self.error(
                    node,
                    f"type conflict: only lists and maps can be indexed, "
                    f"not {found_type} (`{self.text(node.target)}`)",
                    "mcl-unify-conflict",
                )
            return True

        self.deferred.append(apply)
        return result

    def lookup(self, node: n.FieldLookup) -> Type:
        target = self.infer(node.target)
        result = TypeVar()
        if node.default is not None:
            self.equal(
                node.default,
                self.infer(node.default),
                result,
                "the default of a field lookup has the field's type",
                node.default,
            )

        def apply() -> bool:
            found = self.solver.find(target)
            if isinstance(found, TypeVar):
                return False
            field_type = found.field(node.field) if isinstance(found, StructOf) else None
            if isinstance(found, StructOf) and field_type is None and node.default is not None:
                return True  # a missing field with a default: the default's type (set above)
            if not isinstance(found, StructOf):
                self.error(
                    node,
                    f"type conflict: -> looks up a field of a struct, not of {self.solver.resolve(found)}",
                    "mcl-unify-conflict",
                )
            elif field_type is None:
                self.error(
                    node,
                    f"the struct {self.solver.resolve(found)} has no field {node.field!r}",
                    "mcl-unify-conflict",
                )
            else:
                self.equal(node, field_type, result, f"field {node.field}", node.target)
            return True

        self.deferred.append(apply)
        return result

    # --- the end: deferred invariants, ambiguity, builds ---------------------------------

    def run_deferred(self) -> None:
        progress = True
        while progress and self.deferred:
            progress = False
            waiting: list[Deferred] = []
            for item in self.deferred:
                if item():
                    progress = True
                else:
                    waiting.append(item)
            self.deferred = waiting

    def finish(self) -> Typing:
        self.run_deferred()
        for title, t in self.titles:
            found = self.solver.find(t)
            if isinstance(found, TypeVar):
                self.solver.unify(found, ListOf(STR))
            elif found != STR:
                self.equal(title, t, ListOf(STR), "a resource name is str or []str", title)
        self.run_deferred()
        for apply in self.meta_values:  # a Meta value still unknown: mgmt's whole struct
            if apply in self.deferred:
                self.deferred.remove(apply)
                apply(True)
        self.run_deferred()
        self.report_ambiguity()
        typing = Typing()
        if not self.diagnostics.has_errors:
            typing.types = {node: self.solver.resolve(t) for node, t in self.types.items()}
            typing.signatures = {call: self.resolved_func(sig) for call, sig in self.signatures.items()}
            for function, _signature, call in self.builds:
                assert function.build is not None
                problem = function.build(typing.signatures[call])
                if problem:
                    self.error(call, problem, "mcl-unify-build")
        self.diagnostics.raise_if_errors()
        return typing

    def resolved_func(self, signature: FuncOf) -> FuncOf:
        resolved = self.solver.resolve(signature)
        assert isinstance(resolved, FuncOf)
        return resolved

    def report_ambiguity(self) -> None:
        if self.diagnostics.has_errors:
            return
        unsolved = [node for node, t in self.types.items() if contains_vars(self.solver.resolve(t))]
        if not unsolved:
            return
        unsolved.sort(key=lambda node: getattr(node, "span", None) or Span("", 0, 0, 0, 0))
        seen: set[Span] = set()
        for node in unsolved:
            span = getattr(node, "span", None)
            if span in seen or len(seen) >= 3:
                continue
            if span is not None:
                seen.add(span)
            found = self.solver.resolve(self.types[node])
            message = f"ambiguous type: cannot infer the type of `{self.text(node)}` ({display(found)})"
            message += "; add a type annotation"
            self.diagnostics.error(span, message, "mcl-unify-ambiguous")
