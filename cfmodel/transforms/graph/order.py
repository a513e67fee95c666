"""Ordering a resource graph: a topological order, and the cycles that prevent one.

Input: a ``ResourceGraph`` (every edge's ``source`` runs before its ``target``, whatever its kind).
Output: ``topological_order`` — every resource once, each after all the resources it depends
on; among resources free at the same time, the one made first comes first (so the order is
deterministic and follows the source where the edges allow). ``find_cycles`` — one cycle per
strongly connected component that has one (a self-loop included), each as its edges in order,
the cycle starting at the component's first-made resource. ``kahn_heap`` — the order itself,
over declaration indexes (what ``topological_order`` runs unless every edge points forward).

Errors: ``topological_order`` raises ``CfCompileError`` with one ``dependency-cycle`` per cycle:
the message names the resources of the cycle (``a -> b -> a``); one note per edge names the
statement that made it, at its position.
"""

from __future__ import annotations

import heapq
from collections import deque
from operator import attrgetter, lt

from cfmodel.collector import gc_paused
from cfmodel.errors import CfCompileError, Diagnostic, Note
from cfmodel.metamodel.resource_graph import Edge, Resource, ResourceGraph


def topological_order(graph: ResourceGraph) -> list[Resource]:
    """Every resource after its dependencies (module docstring).

    Raises:
        CfCompileError: ``dependency-cycle``, one per cycle.
    """
    with gc_paused():  # tens of thousands of small lists and ints, none of them garbage
        order = _kahn(graph)
    if len(order) < len(graph.resources):
        raise CfCompileError([cycle_diagnostic(c) for c in find_cycles(graph)])
    return order


def _kahn(graph: ResourceGraph) -> list[Resource]:
    """Kahn's algorithm with a heap of declaration indexes; stops short on a cycle.

    When every edge runs from a resource to one made after it, that algorithm takes them in
    declaration order (the first not taken is always free, and the least): this is checked
    first, at C speed, and the order returned without the heap."""
    resources = list(graph.resources.values())
    index = dict(zip(graph.resources, range(len(resources)), strict=True))
    sources = list(map(index.__getitem__, map(_SOURCE, graph.edges)))
    targets = list(map(index.__getitem__, map(_TARGET, graph.edges)))
    if all(map(lt, sources, targets)):
        return resources
    return kahn_heap(resources, sources, targets)


def kahn_heap(resources: list[Resource], sources: list[int], targets: list[int]) -> list[Resource]:
    """Kahn's algorithm proper: ``resources`` in declaration order, edge ``k`` from
    ``resources[sources[k]]`` to ``resources[targets[k]]``; the least free index first."""
    after: list[list[int]] = [[] for _ in resources]
    waiting = [0] * len(resources)
    for source, target in zip(sources, targets, strict=True):
        after[source].append(target)
        waiting[target] += 1
    ready = [i for i, n in enumerate(waiting) if n == 0]  # ascending: already a heap
    order: list[Resource] = []
    push, pop = heapq.heappush, heapq.heappop
    while ready:
        i = pop(ready)
        order.append(resources[i])
        for j in after[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                push(ready, j)
    return order


_SOURCE, _TARGET = attrgetter("source"), attrgetter("target")


def find_cycles(graph: ResourceGraph) -> list[list[Edge]]:
    """One cycle per strongly connected component that has one (module docstring)."""
    ids = list(graph.resources)
    index = {rid: i for i, rid in enumerate(ids)}
    out: list[list[Edge]] = [[] for _ in ids]
    for edge in graph.edges:
        out[index[edge.source]].append(edge)
    cycles: list[list[Edge]] = []
    for component in _components(ids, out, index):
        members = set(component)
        start = min(component)
        cycle = _cycle_through(start, members, out, index)
        if cycle:
            cycles.append(cycle)
    cycles.sort(key=lambda c: index[c[0].source])
    return cycles


def _components(ids: list[str], out: list[list[Edge]], index: dict[str, int]) -> list[list[int]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    number = [-1] * len(ids)
    low = [0] * len(ids)
    on_stack = [False] * len(ids)
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in range(len(ids)):
        if number[root] != -1:
            continue
        work = [(root, 0)]
        number[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, position = work[-1]
            edges = out[node]
            if position < len(edges):
                work[-1] = (node, position + 1)
                nxt = index[edges[position].target]
                if number[nxt] == -1:
                    number[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack[nxt] = True
                    work.append((nxt, 0))
                elif on_stack[nxt]:
                    low[node] = min(low[node], number[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == number[node]:
                component: list[int] = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                found.append(component)
    return found


def _cycle_through(start: int, members: set[int], out: list[list[Edge]], index: dict[str, int]) -> list[Edge]:
    """The shortest cycle from ``start`` back to it inside its component (breadth first), or []."""
    came_by: dict[int, Edge] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for edge in out[node]:
            nxt = index[edge.target]
            if nxt == start:
                path = [edge]
                while node != start:
                    step = came_by[node]
                    path.append(step)
                    node = index[step.source]
                return path[::-1]
            if nxt in members and nxt not in came_by:
                came_by[nxt] = edge
                queue.append(nxt)
    return []


def cycle_diagnostic(cycle: list[Edge]) -> Diagnostic:
    """``dependency-cycle``: the resources in order, a note per edge with its statement."""
    names = " -> ".join([*(e.source for e in cycle), cycle[0].source])
    notes = tuple(Note(e.span, f"{e.source} -> {e.target} ({e.kind.value}): {_statement(e)}") for e in cycle)
    span = next((e.span for e in cycle if e.span is not None), None)
    return Diagnostic(span, f"dependency cycle: {names}", "dependency-cycle", notes=notes)


def _statement(edge: Edge) -> str:
    if not edge.provenance:
        return "no statement recorded"
    return "; ".join(p.statement or p.producer or "no statement recorded" for p in edge.provenance)
