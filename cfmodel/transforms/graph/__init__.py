"""The resource graph's transforms: building, merging, ordering, reducing, selecting.

One module per step (see ``docs/graph.md``): ``build`` (the typed ``GraphBuilder``),
``merge`` (duplicates, several graphs), ``order`` (topological order, cycles), ``reduce``
(transitive reduction), ``subgraph`` (one agent's), ``files`` (XMI/JSON), ``picture``
(Graphviz). The graph itself is ``cfmodel.metamodel.resource_graph`` (typed objects) and
``cfmodel.metamodel.graph`` (its Ecore metamodel).
"""

from __future__ import annotations

from cfmodel.metamodel.resource_graph import Edge, EdgeKind, Provenance, Resource, ResourceGraph, Value
from cfmodel.transforms.graph.build import GraphBuilder, ResourceRef, resource_id
from cfmodel.transforms.graph.merge import merge_graphs, merge_resources
from cfmodel.transforms.graph.order import find_cycles, topological_order
from cfmodel.transforms.graph.reduce import transitive_reduction
from cfmodel.transforms.graph.subgraph import agent_subgraph

__all__ = [
    "Edge",
    "EdgeKind",
    "GraphBuilder",
    "Provenance",
    "Resource",
    "ResourceGraph",
    "ResourceRef",
    "Value",
    "agent_subgraph",
    "find_cycles",
    "merge_graphs",
    "merge_resources",
    "resource_id",
    "topological_order",
    "transitive_reduction",
]
