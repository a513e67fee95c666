"""Transitive reduction of a resource graph: ordering edges that other paths already imply go.

Input: an acyclic ``ResourceGraph``.
Output: a new graph with the same resources and every edge except the pure ordering edges
(``requires``/``before``) from ``a`` to ``b`` when ``b`` is reached from ``a`` without them:
through a longer path, or through another edge from ``a`` to ``b`` that notifies or came
first. Edges that notify (``notifies``, ``listens``, ``sendrecv``) are always kept: removing
one would lose a notification, not only an order.

Guarantees: the reduced graph orders the resources exactly as the input does (same
reachability); the input is not changed; edge order is kept.

Errors: ``dependency-cycle`` (``CfCompileError``) on a cyclic graph, as ``topological_order``.
"""

from __future__ import annotations

from cfmodel.metamodel.resource_graph import Edge, ResourceGraph
from cfmodel.transforms.graph.order import topological_order


def transitive_reduction(graph: ResourceGraph) -> ResourceGraph:
    """The graph without redundant ordering edges (module docstring)."""
    order = topological_order(graph)
    position = {r.id: i for i, r in enumerate(order)}
    out: list[list[Edge]] = [[] for _ in order]
    for edge in graph.edges:
        out[position[edge.source]].append(edge)
    reach = [0] * len(order)  # bitset of everything reachable from a resource (itself excluded)
    redundant: set[int] = set()
    for u in range(len(order) - 1, -1, -1):
        seen = 0
        # nearest successors first (a later one reached through an earlier one is implied);
        # for one target, notifying edges before ordering ones (those are then implied)
        for edge in sorted(out[u], key=lambda e: (position[e.target], not e.kind.notifies)):
            v = position[edge.target]
            if (seen >> v) & 1 and not edge.kind.notifies:
                redundant.add(id(edge))
                continue
            seen |= (1 << v) | reach[v]
        reach[u] = seen
    edges = [e for e in graph.edges if id(e) not in redundant]
    return ResourceGraph(graph.name, graph.language, dict(graph.resources), edges)
