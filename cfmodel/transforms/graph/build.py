"""Filling a resource graph: the typed builder every producer uses (the `.cf` export, mcl).

Input: calls — ``resource(...)`` per declared resource, one call per edge statement
(``requires``, ``before``, ``notify``, ``listen``, ``send_recv``), each with an optional
``Provenance`` (span, producer, statement text).
Output: ``build()`` returns a ``ResourceGraph`` (``cfmodel.metamodel.resource_graph``) in
which every resource id is unique, every edge joins two resources of the graph, and edges
with one identity (kind, ends, fields) are one edge with the provenance of each statement.

The graph is made of the builder's own ``Resource`` and ``Edge`` objects (the first of each
identity, with the provenance of the others merged in): nothing is copied, and calling
``build()`` again gives an equal graph.

Guarantees: a resource declared twice with the same content (kind, name, agent, key,
attributes and meta parameters, compared with their types) is one resource with both
provenances (``merge.merge_resources``); values are copied when given and checked by
``build()`` (lists and maps normalised there), so a graph never holds a value its Ecore form
cannot carry.

Errors (``CfCompileError``, every problem at once, sorted by position):
``incompatible-duplicate`` (one id, different content: both places and the first difference),
``unknown-resource`` (an edge to an id no resource has), ``bad-value`` (a value that is no
graph value: an object, an integer past 64 bits, a map with a non-string key).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from itertools import chain
from operator import attrgetter
from typing import Any

from cfmodel.collector import gc_paused
from cfmodel.errors import CfCompileError, Diagnostic, Diagnostics, Span
from cfmodel.metamodel.resource_graph import (
    INT64_MAX,
    INT64_MIN,
    Edge,
    EdgeKind,
    Provenance,
    Resource,
    ResourceGraph,
    Value,
    normalize_value,
    value_type_error,
)
from cfmodel.transforms.graph.merge import merge_resources

#: An edge's end: a resource made by ``GraphBuilder.resource`` or a resource id.
ResourceRef = Resource | str


def resource_id(kind: str, name: str, agent: str | None = None, key: str | None = None) -> str:
    """The id a resource gets unless one is given: Inmanta's ``kind[agent,key=name]`` when it
    has an agent and an id attribute, ``kind[agent,name]`` with an agent only, else mgmt's
    ``kind[name]``."""
    if agent is None:
        return f"{kind}[{name}]"
    return f"{kind}[{agent},{key}={name}]" if key is not None else f"{kind}[{agent},{name}]"


class GraphBuilder:
    """Collects resources and edges, then ``build()`` checks and merges them (module docstring).

    Example::

        b = GraphBuilder("site", language="cf")
        pkg = b.resource("std::Package", "nginx", agent="web1", key="name", attributes={"state": "installed"})
        conf = b.resource("std::File", "/etc/nginx.conf", agent="web1", key="path")
        b.requires(conf, pkg)  # the file requires the package: the package runs first
        graph = b.build()
    """

    def __init__(self, name: str = "", language: str = "") -> None:
        self.name = name
        self.language = language
        self._resources: list[Resource] = []
        self._edges: list[Edge] = []
        self._diagnostics = Diagnostics()
        self._values_checked = 0  # resources[:this] have had their values checked
        self._paused: contextlib.ExitStack | None = None

    def __enter__(self) -> GraphBuilder:
        """``with GraphBuilder(...) as b:`` pauses the cyclic garbage collector while the
        graph is filled (nothing made then is garbage; a large graph fills several times
        faster), and moves what was made to its oldest generation at the end."""
        self._paused = contextlib.ExitStack()
        self._paused.enter_context(gc_paused(promote=True))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._paused is not None:
            self._paused.close()
            self._paused = None

    # ---- resources -------------------------------------------------------------------------

    def resource(
        self,
        kind: str,
        name: str,
        *,
        agent: str | None = None,
        key: str | None = None,
        id: str | None = None,  # the resource id, as the metamodel calls it
        attributes: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        provenance: Provenance | None = None,
    ) -> Resource:
        """Declare a resource (see ``resource_id`` for the id it gets when ``id`` is None).

        The values are copied now and checked by ``build()`` (all of them at once: a
        problem is reported there, at this call's provenance, as if it were found here)."""
        if id is None:  # resource_id(kind, name, agent, key), inlined: one call less per resource
            if agent is None:
                id = f"{kind}[{name}]"
            elif key is None:
                id = f"{kind}[{agent},{name}]"
            else:
                id = f"{kind}[{agent},{key}={name}]"
        made = Resource(
            id,
            kind,
            name,
            agent,
            key,
            dict(attributes) if attributes else {},
            dict(meta) if meta else {},
            [provenance] if provenance is not None else [],
        )
        self._resources.append(made)
        return made

    def _check_values(self) -> None:
        """Check the values of the resources declared since the last check (``resource``).

        One pass over all of them at C speed decides the usual case (string names; strings,
        booleans, floats, None and 64-bit integers); otherwise each resource's values are
        checked one by one, problems reported and the bad values left out, lists and maps
        normalised (``_checked``)."""
        fresh = self._resources[self._values_checked :]
        self._values_checked = len(self._resources)
        if not fresh:
            return
        maps = [*map(_ATTRIBUTES, fresh), *map(_META, fresh)]
        values = list(chain.from_iterable(map(dict.values, maps)))
        try:
            "".join(chain.from_iterable(maps))  # every name a string (a TypeError otherwise)
        except TypeError:
            pass
        else:
            if set(map(type, values)) <= _SCALAR_TYPES:
                numbers = list(filter(int.__instancecheck__, values))  # booleans too: they fit
                if not numbers or (min(numbers) >= INT64_MIN and max(numbers) <= INT64_MAX):
                    return
        for res in fresh:
            where = res.provenance[0] if res.provenance else None
            res.attributes = self._checked(res.attributes, "attribute", where)
            res.meta = self._checked(res.meta, "meta parameter", where)

    def _checked(self, values: dict[str, Any], what: str, where: Provenance | None) -> dict[str, Value]:
        checked: dict[str, Value] = {}
        for name, value in values.items():
            problem = (
                value_type_error(value) if isinstance(name, str) else f"{what} name {name!r} is not a string"
            )
            if problem is not None:
                self._diagnostics.error(
                    where.span if where else None, f"{what} {name!r}: {problem}", "bad-value"
                )
                continue
            checked[name] = normalize_value(value)
        return checked

    # ---- edges, one method per statement kind ------------------------------------------------

    # Each method makes its Edge itself (no shared helper: a call less per edge, measured in
    # benchmarks/graph.py); an end is a Resource or an id, ``source`` always runs first.

    def requires(
        self, dependent: ResourceRef, dependency: ResourceRef, provenance: Provenance | None = None
    ) -> Edge:
        """``dependent`` requires ``dependency`` (Inmanta's ``requires``, mgmt's ``Depend``)."""
        made = Edge(
            _REQUIRES,
            dependency if isinstance(dependency, str) else dependency.id,
            dependent if isinstance(dependent, str) else dependent.id,
            None,
            None,
            [provenance] if provenance is not None else [],
        )
        self._edges.append(made)
        return made

    def before(self, first: ResourceRef, then: ResourceRef, provenance: Provenance | None = None) -> Edge:
        """``first`` runs before ``then`` (mgmt's ``Before``, an mcl edge ``a -> b``)."""
        made = Edge(
            _BEFORE,
            first if isinstance(first, str) else first.id,
            then if isinstance(then, str) else then.id,
            None,
            None,
            [provenance] if provenance is not None else [],
        )
        self._edges.append(made)
        return made

    def notify(
        self, notifier: ResourceRef, listener: ResourceRef, provenance: Provenance | None = None
    ) -> Edge:
        """``notifier`` runs first and notifies ``listener`` of a change (mcl's ``Notify``)."""
        made = Edge(
            EdgeKind.NOTIFY,
            notifier if isinstance(notifier, str) else notifier.id,
            listener if isinstance(listener, str) else listener.id,
            None,
            None,
            [provenance] if provenance is not None else [],
        )
        self._edges.append(made)
        return made

    def listen(
        self, listener: ResourceRef, notifier: ResourceRef, provenance: Provenance | None = None
    ) -> Edge:
        """``listener`` listens to ``notifier`` (runs after it, refreshed by its changes)."""
        made = Edge(
            EdgeKind.LISTEN,
            notifier if isinstance(notifier, str) else notifier.id,
            listener if isinstance(listener, str) else listener.id,
            None,
            None,
            [provenance] if provenance is not None else [],
        )
        self._edges.append(made)
        return made

    def send_recv(
        self,
        sender: ResourceRef,
        send_field: str,
        receiver: ResourceRef,
        recv_field: str,
        provenance: Provenance | None = None,
    ) -> Edge:
        """mgmt's send/recv: ``sender.send_field`` is received into ``receiver.recv_field``."""
        made = Edge(
            EdgeKind.SENDRECV,
            sender if isinstance(sender, str) else sender.id,
            receiver if isinstance(receiver, str) else receiver.id,
            send_field,
            recv_field,
            [provenance] if provenance is not None else [],
        )
        self._edges.append(made)
        return made

    # ---- the result ----------------------------------------------------------------------------

    def build(self) -> ResourceGraph:
        """The checked graph (module docstring).

        Raises:
            CfCompileError: ``incompatible-duplicate``, ``unknown-resource``, ``bad-value``.
        """
        with gc_paused(promote=True):  # the graph lives on: its objects go to the oldest generation
            return self._build()

    def _build(self) -> ResourceGraph:
        self._check_values()
        diagnostics = Diagnostics(list(self._diagnostics.items))
        resources = dict(zip(map(_ID, self._resources), self._resources, strict=True))
        if len(resources) < len(self._resources):  # some id declared twice: merge or report
            resources = merge_resources(self._resources, diagnostics, copy=False)
        edges: dict[tuple[object, ...], Edge] = {}
        for edge in self._edges:
            if edge.source not in resources or edge.target not in resources:
                for end in (edge.source, edge.target):
                    if end not in resources:
                        diagnostics.report(_unknown(edge, end))
                continue
            key = (edge.kind, edge.source, edge.target, edge.send_field, edge.recv_field)
            found = edges.get(key)
            if found is None:
                edges[key] = edge
            elif found is not edge:
                found.provenance.extend(p for p in edge.provenance if p not in found.provenance)
        if diagnostics.has_errors:
            raise CfCompileError(diagnostics.sorted())
        return ResourceGraph(self.name, self.language, resources, list(edges.values()))


_REQUIRES, _BEFORE = EdgeKind.REQUIRES, EdgeKind.BEFORE
_ID, _ATTRIBUTES, _META = attrgetter("id"), attrgetter("attributes"), attrgetter("meta")
_SCALAR_TYPES: frozenset[type] = frozenset({str, bool, float, int, type(None)})


def _unknown(edge: Edge, end: str) -> Diagnostic:
    span: Span | None = edge.span
    what = f"{edge.kind.value} edge {edge.source} -> {edge.target}"
    return Diagnostic(span, f"{what}: no resource has the id {end!r}", "unknown-resource")
