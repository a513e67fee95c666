"""Interpret: the program's output, the resources and edges its statements produce.

Input: the `Program`, its `Resolution`, and an `Evaluator`. Output: an `Output`:
one `Resource` per ``(kind, name)`` with the fields whose elvis condition holds (a list of
names makes one resource per name, sharing the fields), its meta parameters (mgmt's
defaults, then the whole ``Meta`` struct, then each ``Meta:name`` in order, the last one
winning) and the edges of the chains and of ``Before``/``Depend``/``Notify``/``Listen``
(``Notify``/``Listen`` edges notify; list-named halves make the cross product;
``Kind["a"].x -> Kind["b"].y`` is an edge carrying a send/recv pair). Only the chosen
branch of an ``if`` produces output; a ``for`` produces its body once per item (a
``forkv`` per key, in key order); an ``include`` produces its class body; imported files
produce nothing (they give definitions).

Duplicates: a resource produced twice with the same fields and meta parameters is one
resource; with different ones it is an error. Edges are deduplicated.

Errors: ``mcl-interpret`` (incompatible duplicate resources, a field set twice, an edge to
a resource the program does not produce, a field received twice by send/recv, an empty
resource name), ``mcl-runtime``
(``panic``, and everything the evaluator reports).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from cfmodel.errors import CfEvaluationError, Diagnostics, Note, Span
from cfmodel.grammars import mcl_nodes as n
from cfmodel.metamodel.mcl_kinds import META_DEFAULTS, Kind
from cfmodel.transforms.mcl.core import go_format
from cfmodel.transforms.mcl.evaluate import Evaluator, Frame, RuntimeFailure
from cfmodel.transforms.mcl.funcs import Value


@dataclass
class Resource:
    kind: str
    name: str
    fields: dict[str, Value]
    meta: dict[str, Value]
    span: Span

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name)

    def __str__(self) -> str:
        return f"{self.kind}[{self.name}]"


@dataclass(frozen=True)
class Edge:
    """``source`` runs before ``target``; ``kind`` is the statement that made it: ``before``
    (chains, ``Before``), ``requires`` (``Depend``, autoedges), ``notify``, ``listen``,
    ``sendrecv`` (with ``send``/``recv``)."""

    source: tuple[str, str]
    target: tuple[str, str]
    kind: str = "before"
    send: str | None = None
    recv: str | None = None
    auto: bool = False

    @property
    def notify(self) -> bool:
        return self.kind in ("notify", "listen")


@dataclass
class Output:
    """The output of a program: resources by ``(kind, name)`` and the edges between them."""

    resources: dict[tuple[str, str], Resource] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    edge_spans: dict[Edge, Span] = field(default_factory=dict)

    def add_edge(self, edge: Edge, span: Span) -> None:
        if edge not in self.edge_spans:
            self.edges.append(edge)
            self.edge_spans[edge] = span


def interpret(program: n.Program, evaluator: Evaluator, kinds: dict[str, Kind]) -> Output:
    """Run the stage (see the module docstring).

    Raises:
        CfCompileError: incompatible duplicates and dangling edges (``mcl-interpret``).
        CfEvaluationError: the first runtime failure (``mcl-runtime``) or bad output.
    """
    interpreter = _Interpreter(evaluator, kinds)
    interpreter.statements(program.statements, Frame(None, None))
    interpreter.check_edges()
    interpreter.diagnostics.raise_if_errors()
    return interpreter.graph


def class_name_to_kind(name: str) -> str:
    return ":".join(part.lower() for part in name.split(":"))


class _Interpreter:
    def __init__(self, evaluator: Evaluator, kinds: dict[str, Kind]) -> None:
        self.ev = evaluator
        self.kinds = kinds
        self.graph = Output()
        self.diagnostics = Diagnostics()

    def statements(self, statements: list[n.Stmt], frame: Frame) -> None:
        for stmt in statements:
            self.statement(stmt, frame)

    def statement(self, stmt: n.Stmt, frame: Frame) -> None:
        if isinstance(stmt, (n.Bind, n.FuncDef, n.ClassDef, n.Import)):
            return
        if isinstance(stmt, n.If):
            if self.ev.value(stmt.condition, frame):
                self.statements(stmt.then, frame)
            elif stmt.otherwise is not None:
                self.statements(stmt.otherwise, frame)
        elif isinstance(stmt, n.For):
            index_var, value_var = self.ev.res.loops[stmt]
            for i, item in enumerate(self.ev.value(stmt.collection, frame)):
                self.statements(stmt.body, Frame(stmt, frame, {index_var: i, value_var: item}))
        elif isinstance(stmt, n.ForKV):
            key_var, value_var = self.ev.res.loops[stmt]
            mapping = self.ev.value(stmt.collection, frame)
            for key in sorted(mapping, key=go_format):
                self.statements(stmt.body, Frame(stmt, frame, {key_var: key, value_var: mapping[key]}))
        elif isinstance(stmt, n.Include):
            self.statements(self.ev.res.includes[stmt].body, frame)
        elif isinstance(stmt, n.Panic):
            value = self.ev.value(stmt.args[0], frame)
            if value is True or (isinstance(value, str) and value):
                detail = f": {value}" if isinstance(value, str) else ""
                raise RuntimeFailure(f"panic{detail}", stmt.span, "mcl-runtime")
        elif isinstance(stmt, n.EdgeChain):
            self.edge_chain(stmt, frame)
        else:
            self.resource(stmt, frame)

    def names(self, title: n.Expr, frame: Frame) -> list[str]:
        value = self.ev.value(title, frame)
        names = [value] if isinstance(value, str) else list(value)
        for name in names:
            if name == "":
                raise CfEvaluationError("a resource name is empty", title.span, "mcl-interpret")
        return names

    def resource(self, stmt: n.Resource, frame: Frame) -> None:
        names = self.names(stmt.title, frame)
        fields: dict[str, Value] = {}
        meta: dict[str, Value] = dict(META_DEFAULTS)
        edges: list[tuple[str, n.EdgeHalf]] = []
        set_at: dict[str, Span] = {}
        for entry in stmt.entries:
            if entry.condition is not None and not self.ev.value(entry.condition, frame):
                continue
            if isinstance(entry, n.ResEdge):
                edges.append((entry.property, entry.half))
            elif isinstance(entry, n.ResMeta):
                value = self.ev.value(entry.value, frame)
                if entry.name is None:
                    meta.update(value)
                else:
                    meta[entry.name] = value
            else:
                if entry.name in set_at:
                    notes = [Note(set_at[entry.name], "first set here")]
                    self.diagnostics.error(
                        entry.span, f"field {entry.name} of {stmt.kind} is set twice", "mcl-interpret", notes
                    )
                    continue
                set_at[entry.name] = entry.span
                fields[entry.name] = self.ev.value(entry.value, frame)
        for name in names:
            self.add_resource(Resource(stmt.kind, name, dict(fields), dict(meta), stmt.span))
            for prop, half in edges:
                for other in self.names(half.title, frame):
                    this, that = (stmt.kind, name), (class_name_to_kind(half.kind), other)
                    source, target = (this, that) if prop in ("Before", "Notify") else (that, this)
                    self.graph.add_edge(Edge(source, target, _EDGE_KINDS[prop]), half.span)

    def add_resource(self, resource: Resource) -> None:
        existing = self.graph.resources.get(resource.key)
        if existing is None:
            self.graph.resources[resource.key] = resource
            return
        difference = _difference(existing, resource)
        if difference:
            notes = [Note(existing.span, f"{existing} was first produced here")]
            message = f"incompatible duplicate resource {resource}: {difference}"
            self.diagnostics.error(resource.span, message, "mcl-interpret", notes)

    def edge_chain(self, stmt: n.EdgeChain, frame: Frame) -> None:
        halves = [
            [(class_name_to_kind(half.kind), name) for name in self.names(half.title, frame)]
            for half in stmt.halves
        ]
        send, recv = stmt.halves[0].field, stmt.halves[-1].field
        for left, right in itertools.pairwise(halves):
            for source in left:
                for target in right:
                    kind = "sendrecv" if send is not None else "before"
                    self.graph.add_edge(Edge(source, target, kind, send=send, recv=recv), stmt.span)

    def check_edges(self) -> None:
        received: dict[tuple[tuple[str, str], str], Edge] = {}
        for edge in self.graph.edges:
            if edge.recv is None:
                continue
            first = received.setdefault((edge.target, edge.recv), edge)
            if first is not edge:
                kind, name = edge.target
                notes = [Note(self.graph.edge_spans[first], "first received here")]
                message = f"resource {kind}[{name}] receives {edge.recv} twice (send/recv)"
                self.diagnostics.error(self.graph.edge_spans[edge], message, "mcl-interpret", notes)
        for edge in self.graph.edges:
            for end in (edge.source, edge.target):
                if end not in self.graph.resources:
                    span = self.graph.edge_spans[edge]
                    shown = f"{edge.source[0]}[{edge.source[1]}] -> {edge.target[0]}[{edge.target[1]}]"
                    message = f"edge {shown}: {end[0]}[{end[1]}] is not a resource of this program"
                    self.diagnostics.error(span, message, "mcl-interpret")


def _difference(a: Resource, b: Resource) -> str:
    for name in sorted(set(a.fields) | set(b.fields)):
        if a.fields.get(name, _UNSET) != b.fields.get(name, _UNSET):
            return (
                f"field {name} is {_show(a.fields.get(name, _UNSET))} and {_show(b.fields.get(name, _UNSET))}"
            )
    for name in sorted(a.meta):
        if a.meta[name] != b.meta.get(name):
            return f"Meta:{name} is {_show(a.meta[name])} and {_show(b.meta.get(name))}"
    return ""


_UNSET = object()
_EDGE_KINDS = {"Before": "before", "Depend": "requires", "Notify": "notify", "Listen": "listen"}


def _show(value: Value) -> str:
    if value is _UNSET:
        return "unset"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return go_format(value)
