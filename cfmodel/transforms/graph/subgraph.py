"""The subgraph of one agent (host): what that agent deploys, and what it waits for.

Input: a ``ResourceGraph`` and an agent name.
Output: a new graph with the agent's resources and the edges between them; with
``neighbours=True`` also the resources of other agents joined to them by an edge (what the
agent waits for, or what waits for it) and those edges. Resource and edge order is the input's.

Errors: ``unknown-agent`` (``CfUsageError``) when no resource has that agent; the message
lists the agents there are.
"""

from __future__ import annotations

from cfmodel.errors import CfUsageError
from cfmodel.metamodel.resource_graph import ResourceGraph


def agent_subgraph(graph: ResourceGraph, agent: str, neighbours: bool = False) -> ResourceGraph:
    """The resources of ``agent`` and the edges among them (module docstring).

    Raises:
        CfUsageError: ``unknown-agent``.
    """
    own = {rid for rid, r in graph.resources.items() if r.agent == agent}
    if not own:
        known = ", ".join(graph.agents()) or "none"
        raise CfUsageError(f"no resource has the agent {agent!r}; agents: {known}", code="unknown-agent")
    keep = set(own)
    if neighbours:
        for edge in graph.edges:
            if edge.source in own or edge.target in own:
                keep.update((edge.source, edge.target))
    resources = {rid: r for rid, r in graph.resources.items() if rid in keep}
    edges = [
        e
        for e in graph.edges
        if e.source in keep and e.target in keep and (e.source in own or e.target in own)
    ]
    name = f"{graph.name}:{agent}" if graph.name else agent
    return ResourceGraph(name, graph.language, resources, edges)
