"""The model of the differences between two models: what ``cfmodel.diff`` returns.

Input: nothing (the types; ``compare`` and ``graphs`` fill them).
Output: ``Comparison`` — the two sides' names, ``objects`` (instances added, removed and
changed), ``resources`` (resources of the resource graphs, likewise) and ``edges`` (edges
added or removed), each ``ObjectDiff`` naming the element by its identity (an instance's
id, a resource's id) and its class or kind, with the attribute changes (``ValueChange``:
feature, left value, right value) and relation changes (``ReferenceChange``: the targets
added and removed, by identity) of a changed element, or the values of an added/removed one.

Guarantees: lists are sorted by identity (the comparison of equal inputs is empty and its
text, JSON and HTML are byte-identical for the same inputs); values are JSON-like (enum
literals by name).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from cfmodel.display import MAX_ROWS, clip
from cfmodel.metamodel import diff as dm
from cfmodel.metamodel.runtime.objects import ObjectBuilder
from cfmodel.transforms.diff import render

Change = Literal["added", "removed", "changed"]


@dataclass(frozen=True, slots=True)
class ValueChange:
    """One attribute whose value differs (``left`` or ``right`` None: unset on that side)."""

    feature: str
    left: Any
    right: Any


@dataclass(frozen=True, slots=True)
class ReferenceChange:
    """One relation whose targets differ, by identity."""

    feature: str
    added: tuple[str, ...]
    removed: tuple[str, ...]


@dataclass(slots=True)
class ObjectDiff:
    """An element added, removed or changed."""

    change: Change
    identity: str
    class_name: str
    attributes: list[ValueChange] = field(default_factory=list)
    references: list[ReferenceChange] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)  # an added or removed element's values


@dataclass(frozen=True, slots=True)
class EdgeDiff:
    """A resource graph edge only one side has."""

    change: Literal["added", "removed"]
    kind: str
    source: str
    target: str


@dataclass(slots=True)
class Comparison:
    """What differs between ``left`` and ``right`` (module docstring)."""

    left: str
    right: str
    objects: list[ObjectDiff] = field(default_factory=list)
    resources: list[ObjectDiff] = field(default_factory=list)
    edges: list[EdgeDiff] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not (self.objects or self.resources or self.edges)

    def counts(self) -> dict[str, int]:
        """How many of each change, for the summary line."""
        out = {"added": 0, "removed": 0, "changed": 0}
        for item in [*self.objects, *self.resources]:
            out[item.change] += 1
        for edge in self.edges:
            out[edge.change] += 1
        return out

    def to_ecore(self) -> Any:
        """The comparison as objects of the differences metamodel (``cfmodel.metamodel.diff``),
        made by the runtime's `ObjectBuilder`."""
        b = ObjectBuilder()
        edges = [
            b.make(
                dm.EdgeDifference,
                change=dm.ChangeKind.getEEnumLiteral(edge.change),
                kind=edge.kind,
                source=edge.source,
                target=edge.target,
            )
            for edge in self.edges
        ]
        root = b.make(
            dm.Comparison,
            left=self.left,
            right=self.right,
            instances=[_difference_to_ecore(d, b) for d in self.objects],
            resources=[_difference_to_ecore(d, b) for d in self.resources],
            edges=edges,
        )
        b.finish()
        return root

    def _repr_html_(self) -> str:
        """Jupyter: `render.to_html`'s table, at most `MAX_ROWS` differences of each kind
        (``print(comparison)`` and ``cfmodel diff --format html`` show them all)."""
        shown = replace(
            self,
            objects=self.objects[:MAX_ROWS],
            resources=self.resources[:MAX_ROWS],
            edges=self.edges[:MAX_ROWS],
        )
        page = render.to_html(shown, fragment=True)
        hidden = (len(self.objects) + len(self.resources) + len(self.edges)) - (
            len(shown.objects) + len(shown.resources) + len(shown.edges)
        )
        if hidden:
            counts = ", ".join(f"{n:,} {change}" for change, n in self.counts().items())
            page += (
                f"<p>The first {MAX_ROWS} differences of each kind are shown, {hidden:,} are not "
                f"(in all: {counts}); <code>print(comparison)</code> shows them all.</p>"
            )
        return page

    def __repr__(self) -> str:  # bounded: ``str()`` is the whole text
        counts = ", ".join(f"{n:,} {change}" for change, n in self.counts().items())
        return clip(f"<Comparison {self.left} → {self.right}: {'equal' if self.equal else counts}>")

    def __str__(self) -> str:
        return render.to_text(self)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _difference_to_ecore(item: ObjectDiff, b: ObjectBuilder) -> Any:
    make = b.make
    return make(
        dm.Difference,
        change=dm.ChangeKind.getEEnumLiteral(item.change),
        element=item.identity,
        className=item.class_name,
        attributes=[
            make(dm.AttributeChange, feature=c.feature, left=_json(c.left), right=_json(c.right))
            for c in item.attributes
        ],
        relations=[
            make(dm.RelationChange, feature=ref.feature, added=ref.added, removed=ref.removed)
            for ref in item.references
        ],
        values=[make(dm.ValueEntry, name=name, value=_json(value)) for name, value in item.values.items()],
    )
