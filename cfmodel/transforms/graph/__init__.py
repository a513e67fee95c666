"""The resource graph's transforms: building, merging, ordering, reducing, selecting.

One module per step (see ``docs/graph.md``): ``build`` (the typed ``GraphBuilder``),
``merge``. The graph itself is ``cfmodel.metamodel.resource_graph`` (typed objects) and
``cfmodel.metamodel.graph`` (its Ecore metamodel).
"""

from __future__ import annotations

from cfmodel.metamodel.resource_graph import Edge, EdgeKind, Provenance, Resource, ResourceGraph, Value
from cfmodel.transforms.graph.build import GraphBuilder, ResourceRef, resource_id
from cfmodel.transforms.graph.merge import merge_graphs, merge_resources

__all__ = [
    "Edge",
    "EdgeKind",
    "GraphBuilder",
    "Provenance",
    "Resource",
    "ResourceGraph",
    "ResourceRef",
    "Value",
    "merge_graphs",
    "merge_resources",
    "resource_id",
]
