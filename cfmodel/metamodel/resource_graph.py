"""The resource graph as typed Python objects, and its conversion to and from the Ecore model.

The graph operations, pictures and writers work on these slotted objects (cheap to make and
to read: a 10,000-resource graph is built, ordered and drawn in milliseconds); the Ecore form
of ``cfmodel.metamodel.graph`` is made from them at the edge, for XMI/JSON/EMF, and read back.
Build graphs with ``cfmodel.transforms.graph.GraphBuilder`` (it checks and merges); this module
only holds them.

Input: values made by a builder or read from an Ecore ``Graph``.
Output: ``ResourceGraph`` (``resources`` by id, in the order they were made; ``edges``), and
``to_ecore``/``from_ecore`` between it and the Ecore model. Features map one to one (see
``cfmodel.metamodel.graph``): ``Resource.id`` is ``resourceId``, ``send_field`` is
``sendField``, a ``Span`` is the ``Provenance``'s file/line/column/endLine/endColumn.

Guarantees: ``from_ecore(to_ecore(g))`` equals ``g`` (``graph_equal``); attribute values are
JSON-like (``str``, ``int`` of 64 bits, ``float``, ``bool``, ``None``, lists, dicts with string
keys) and keep their type through Ecore (``1``, ``1.0`` and ``True`` stay apart).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from cfmodel.display import html_table
from cfmodel.errors import Span
from cfmodel.metamodel import graph as gm
from cfmodel.metamodel.runtime.objects import ObjectBuilder

#: An attribute or meta parameter value.
Value: TypeAlias = "str | int | float | bool | list[Value] | dict[str, Value] | None"

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class EdgeKind(enum.Enum):
    """What made an edge (``EdgeKind`` in the metamodel); ``source`` always runs first."""

    REQUIRES = "requires"  # target requires source
    BEFORE = "before"  # source before target
    NOTIFY = "notifies"  # source notifies target
    LISTEN = "listens"  # target listens to source
    SENDRECV = "sendrecv"  # source.send_field -> target.recv_field

    # members are singletons compared by identity: hash them so too (Enum's own hashes the
    # name in Python code, and edges are keyed by kind by the ten thousand)
    __hash__ = object.__hash__

    @property
    def notifies(self) -> bool:
        """Whether a change of ``source`` is signalled to ``target`` (a refresh in mgmt)."""
        return self is not EdgeKind.REQUIRES and self is not EdgeKind.BEFORE


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where an element came from: the source span, what produced it, the statement's text."""

    span: Span | None = None
    producer: str = ""
    statement: str = ""

    def describe(self) -> str:
        """``statement`` (or ``producer``) with its position: what a report names."""
        what = self.statement or self.producer or "?"
        return f"{what} at {self.span.start()}" if self.span is not None else what


@dataclass(slots=True, eq=False)
class Resource:
    """One resource: its id (unique in its graph), kind, name, agent, values and origins."""

    id: str
    kind: str
    name: str
    agent: str | None = None
    key: str | None = None
    attributes: dict[str, Value] = field(default_factory=dict)
    meta: dict[str, Value] = field(default_factory=dict)
    provenance: list[Provenance] = field(default_factory=list)

    @property
    def span(self) -> Span | None:
        """The first known span of the statements that declared it."""
        return next((p.span for p in self.provenance if p.span is not None), None)

    def same_content(self, other: Resource) -> bool:
        """Everything but provenance equal, values compared with their types."""
        return (
            (self.id, self.kind, self.name, self.agent, self.key)
            == (other.id, other.kind, other.name, other.agent, other.key)
            and values_equal(self.attributes, other.attributes)
            and values_equal(self.meta, other.meta)
        )


@dataclass(slots=True, eq=False)
class Edge:
    """An edge between two resource ids; ``source`` runs first (see ``EdgeKind``)."""

    kind: EdgeKind
    source: str
    target: str
    send_field: str | None = None
    recv_field: str | None = None
    provenance: list[Provenance] = field(default_factory=list)

    @property
    def span(self) -> Span | None:
        return next((p.span for p in self.provenance if p.span is not None), None)

    def identity(self) -> tuple[str, str, str, str | None, str | None]:
        """Edges with one identity are one edge (their provenance is merged)."""
        return (self.kind.value, self.source, self.target, self.send_field, self.recv_field)


@dataclass(slots=True, eq=False)
class ResourceGraph:
    """Resources by id (in the order they were made) and the edges between them."""

    name: str = ""
    language: str = ""
    resources: dict[str, Resource] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def __iter__(self) -> Iterator[Resource]:
        return iter(self.resources.values())

    def __len__(self) -> int:
        return len(self.resources)

    def agents(self) -> list[str]:
        """The agents that own resources, sorted."""
        return sorted({r.agent for r in self.resources.values() if r.agent is not None})

    def successors(self) -> dict[str, list[str]]:
        """For every resource id, the ids that run after it (one entry per edge, in edge order)."""
        after: dict[str, list[str]] = {rid: [] for rid in self.resources}
        for edge in self.edges:
            after[edge.source].append(edge.target)
        return after

    def __repr__(self) -> str:  # bounded: a graph may hold a hundred thousand resources
        return f"<ResourceGraph {self.name or '(unnamed)'} ({self.language or '?'}): {self._size()}>"

    def _repr_html_(self) -> str:
        """Jupyter: the resources and what runs after each, a bounded table (the picture is
        ``cfmodel.graph_picture(graph)``)."""
        after = self.successors()
        rows = [
            (r.id, r.agent or "", ", ".join(after[r.id][:10]) + (" …" if len(after[r.id]) > 10 else ""))
            for r in self.resources.values()
        ]
        title = f"{self.name or 'resource graph'}: {self._size()}"
        return html_table(title, ("resource", "agent", "then"), rows)

    def _size(self) -> str:
        return f"{len(self.resources):,} resources, {len(self.edges):,} edges"


# ---- values ---------------------------------------------------------------------------------


def value_type_error(value: object) -> str | None:
    """Why ``value`` is no ``Value`` (a message), or None when it is one."""
    if value is None or isinstance(value, str | bool | float):
        return None
    if isinstance(value, int):
        return None if INT64_MIN <= value <= INT64_MAX else f"integer {value} does not fit in 64 bits"
    if isinstance(value, list | tuple):
        return next((e for e in map(value_type_error, value) if e is not None), None)
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"map key {key!r} is not a string"
            problem = value_type_error(item)
            if problem is not None:
                return problem
        return None
    return f"{type(value).__name__!r} is not a graph value (strings, numbers, booleans, null, lists, maps)"


def values_equal(a: object, b: object) -> bool:
    """Equality that keeps types apart (``1``, ``1.0`` and ``True`` differ; order of map keys does not)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        assert isinstance(b, list)
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) or (isinstance(a, float) and a != a and b != b)  # nan equals nan here


def normalize_value(value: Any) -> Value:
    """A checked ``Value`` with tuples made lists and mappings made dicts (checked by the caller)."""
    if isinstance(value, list | tuple):
        return [normalize_value(v) for v in value]
    if isinstance(value, Mapping):
        return {k: normalize_value(v) for k, v in value.items()}
    scalar: Value = value  # a scalar already checked by value_type_error
    return scalar


def graph_equal(a: ResourceGraph, b: ResourceGraph) -> bool:
    """Same name, language, resources (with provenance) and edges, in the same order."""
    if (a.name, a.language, list(a.resources)) != (b.name, b.language, list(b.resources)):
        return False
    for ra, rb in zip(a.resources.values(), b.resources.values(), strict=True):
        if not ra.same_content(rb) or ra.provenance != rb.provenance:
            return False
    return [(e.identity(), e.provenance) for e in a.edges] == [(e.identity(), e.provenance) for e in b.edges]


# ---- to and from Ecore ---------------------------------------------------------------------


def to_ecore(graph: ResourceGraph) -> Any:
    """The Ecore ``Graph`` of a typed graph (PyEcore objects of ``cfmodel.metamodel.graph``,
    made by the runtime's `ObjectBuilder`: the light objects the compiler and the readers make)."""
    b = ObjectBuilder()
    made: dict[str, Any] = {}
    for res in graph.resources.values():
        optional = {"key": res.key, "agent": res.agent}
        made[res.id] = b.make(
            gm.Resource,
            resourceId=res.id,
            kind=res.kind,
            name=res.name,
            **{k: v for k, v in optional.items() if v is not None},
            attributes=_attributes_to_ecore(res.attributes, b),
            meta=_attributes_to_ecore(res.meta, b),
            provenance=_provenance_to_ecore(res.provenance, b),
        )
    edges = []
    for edge in graph.edges:
        fields = {"sendField": edge.send_field, "recvField": edge.recv_field}
        edges.append(
            b.make(
                gm.Edge,
                kind=gm.EdgeKind.getEEnumLiteral(edge.kind.value),
                source=made[edge.source],
                target=made[edge.target],
                **{k: v for k, v in fields.items() if v is not None},
                provenance=_provenance_to_ecore(edge.provenance, b),
            )
        )
    root = b.make(
        gm.Graph, name=graph.name, language=graph.language, resources=list(made.values()), edges=edges
    )
    b.finish()
    return root


def from_ecore(root: Any) -> ResourceGraph:
    """The typed graph of an Ecore ``Graph`` (as read from XMI/JSON).

    Raises:
        ValueError: an edge without both ends, or two resources with one id (the caller turns
            it into a serialization error naming the file).
    """
    graph = ResourceGraph(name=root.name or "", language=root.language or "")
    for obj in root.resources:
        rid = obj.resourceId or ""
        if rid in graph.resources:
            raise ValueError(f"two resources have the id {rid!r}")
        graph.resources[rid] = Resource(
            id=rid,
            kind=obj.kind or "",
            name=obj.name or "",
            agent=obj.agent,
            key=obj.key,
            attributes=_attributes_from_ecore(obj.attributes),
            meta=_attributes_from_ecore(obj.meta),
            provenance=[_provenance_from_ecore(p) for p in obj.provenance],
        )
    for eobj in root.edges:
        if eobj.source is None or eobj.target is None or eobj.kind is None:
            raise ValueError("an edge lacks its source, target or kind")
        graph.edges.append(
            Edge(
                kind=EdgeKind(eobj.kind.name),
                source=eobj.source.resourceId or "",
                target=eobj.target.resourceId or "",
                send_field=eobj.sendField,
                recv_field=eobj.recvField,
                provenance=[_provenance_from_ecore(p) for p in eobj.provenance],
            )
        )
    return graph


def _attributes_to_ecore(values: Mapping[str, Value], b: ObjectBuilder) -> list[Any]:
    return [b.make(gm.Attribute, name=name, value=value_to_ecore(value, b)) for name, value in values.items()]


def _attributes_from_ecore(attributes: Iterable[Any]) -> dict[str, Value]:
    return {a.name or "": value_from_ecore(a.value) for a in attributes}


def value_to_ecore(value: Value, builder: ObjectBuilder | None = None) -> Any:
    """The typed Ecore ``Value`` of a Python value (made by *builder*, which the caller
    finishes; else registered at once)."""
    if builder is None:
        builder = ObjectBuilder()
        made = value_to_ecore(value, builder)
        builder.finish()
        return made
    make = builder.make
    if value is None:
        return make(gm.NullValue)
    if isinstance(value, bool):
        return make(gm.BooleanValue, value=value)
    if isinstance(value, int):
        return make(gm.IntegerValue, value=value)
    if isinstance(value, float):
        return make(gm.FloatValue, value=value)
    if isinstance(value, str):
        return make(gm.StringValue, value=value)
    if isinstance(value, list):
        return make(gm.ListValue, items=[value_to_ecore(v, builder) for v in value])
    entries = [make(gm.MapEntry, key=k, value=value_to_ecore(v, builder)) for k, v in value.items()]
    return make(gm.MapValue, entries=entries)


_SCALAR_DEFAULTS: dict[str, Value] = {
    "StringValue": "",
    "IntegerValue": 0,
    "FloatValue": 0.0,
    "BooleanValue": False,
}


def value_from_ecore(obj: Any) -> Value:
    """The Python value of an Ecore ``Value`` (a missing value reads as None)."""
    if obj is None:
        return None
    kind = obj.eClass.name
    if kind == "NullValue":
        return None
    if kind == "ListValue":
        return [value_from_ecore(v) for v in obj.items]
    if kind == "MapValue":
        return {e.key or "": value_from_ecore(e.value) for e in obj.entries}
    found = obj.value
    return _SCALAR_DEFAULTS[kind] if found is None else found  # PyEcore is untyped: Any


def _provenance_to_ecore(items: Iterable[Provenance], b: ObjectBuilder) -> list[Any]:
    made = []
    for item in items:
        values: dict[str, Any] = {}
        if item.span is not None:
            span = item.span
            values.update(file=span.file, line=span.line, column=span.col)
            values.update(endLine=span.end_line, endColumn=span.end_col)
        if item.producer:
            values["producer"] = item.producer
        if item.statement:
            values["statement"] = item.statement
        made.append(b.make(gm.Provenance, **values))
    return made


def _provenance_from_ecore(obj: Any) -> Provenance:
    span = None
    if obj.file is not None and obj.line is not None:
        line, col = int(obj.line), int(obj.column or 0)
        span = Span(obj.file, line, col, int(obj.endLine or line), int(obj.endColumn or col))
    return Provenance(span, obj.producer or "", obj.statement or "")
