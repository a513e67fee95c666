"""Differences between two models: instances and resources, matched by identity then content.

``diff(left, right)`` takes two sides — compiled projects (``CompileResult``: its instances,
and the graph of its exported resources when its model was not made yet), models read back
(``cfmodel.load_xmi``/``load_json``), resource graphs, or object lists with their id functions
(``Objects``) — and returns a ``Comparison``
(``model``): what was added, removed and changed. ``render`` writes it as text, JSON and HTML.
Steps: ``compare`` (instances), ``graphs`` (resource graphs). See docs/diff.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pyecore.ecore import EObject

from cfmodel.collector import gc_paused
from cfmodel.errors import CfUsageError
from cfmodel.metamodel.resource_graph import ResourceGraph
from cfmodel.transforms.cf.export import export_resources
from cfmodel.transforms.diff.compare import compare_objects
from cfmodel.transforms.diff.graphs import compare_graphs
from cfmodel.transforms.diff.model import Comparison, EdgeDiff, ObjectDiff, ReferenceChange, ValueChange


@dataclass(frozen=True, slots=True)
class Objects:
    """One side given as objects (every object, contained ones too) and their ids."""

    objects: Sequence[EObject]
    id_of: Callable[[EObject], str | None]
    name: str = ""
    graph: ResourceGraph | None = None

    def __repr__(self) -> str:  # bounded: a side may hold a million objects
        graph = f", {len(self.graph.resources)} resources" if self.graph is not None else ""
        return f"<Objects {self.name}: {len(self.objects)} objects{graph}>"


def as_side(value: Any, name: str = "") -> Objects:
    """A side of a comparison from what ``diff`` accepts.

    Raises:
        CfUsageError: something that is no model.
    """
    if isinstance(value, Objects):
        return value
    if isinstance(value, ResourceGraph):
        return Objects((), lambda _: None, name or value.name or "graph", value)
    if hasattr(type(value), "instance_model") and hasattr(value, "raw_instances"):  # a compile result (the
        # class is asked: reading the property would make the model)
        graph = None
        if getattr(value, "_model", None) is None:  # the values are still in the instances: export them
            graph = export_resources(value).graph(str(getattr(value, "name", "")))
        return Objects(list(value.model), value.id_of, name or str(getattr(value, "name", "")), graph)
    objects, ids = getattr(value, "objects", None), getattr(value, "ids", None)
    if isinstance(objects, list) and isinstance(ids, dict):  # a model read back (cfmodel.load_xmi)
        return Objects(objects, ids.get, name or str(getattr(value, "path", "")))
    raise CfUsageError(
        f"cannot compare a {type(value).__name__}: give compiled projects, resource graphs or Objects"
    )


def diff(left: Any, right: Any, left_name: str = "", right_name: str = "") -> Comparison:
    """What differs between two models (module docstring).

    Raises:
        CfUsageError: a side is no model.
    """
    a, b = as_side(left, left_name or "left"), as_side(right, right_name or "right")
    comparison = Comparison(left_name or a.name, right_name or b.name)
    with gc_paused():  # reading values makes many small objects, none garbage: no collections meanwhile
        if a.objects or b.objects:
            compare_objects(comparison, a.objects, a.id_of, b.objects, b.id_of)
        if a.graph is not None or b.graph is not None:
            compare_graphs(comparison, a.graph or ResourceGraph(), b.graph or ResourceGraph())
    return comparison


__all__ = [
    "Comparison",
    "EdgeDiff",
    "ObjectDiff",
    "Objects",
    "ReferenceChange",
    "ValueChange",
    "as_side",
    "diff",
]
