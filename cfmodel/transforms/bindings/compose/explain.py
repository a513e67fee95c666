"""Explanations: where a key's value comes from (the counterpart of ``puppet lookup --explain``).

Lists the layers and categories consulted (with the request's category values), every
binding of the key with its status (winner, shadowed, not applicable) and position, and for
a multibind each merge step (contribution and partial result).
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cfmodel.display import clip
from cfmodel.errors import Diagnostic, Span
from cfmodel.transforms.bindings.compose.combinators import combine
from cfmodel.transforms.bindings.compose.entries import Entry, option_value, sort_key
from cfmodel.transforms.bindings.compose.expressions import evaluate
from cfmodel.transforms.bindings.compose.values import MISSING, Key, TypeSpec, Value, show

if TYPE_CHECKING:
    from cfmodel.transforms.bindings.compose.composer import Composer, Resolved


@dataclass(frozen=True, slots=True)
class Candidate:
    """A binding consulted for a key, and what became of it."""

    status: str  # winner, shadowed, not applicable
    where: str
    span: Span | None
    kind: str
    value: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MergeStep:
    """One fragment folded into a multibind's result."""

    where: str
    span: Span | None
    contribution: str
    result: str


@dataclass(frozen=True, slots=True)
class Explanation:
    """Where a key's value comes from (see ``render``)."""

    key: str
    value: str | None
    layers: tuple[str, ...]
    categories: tuple[tuple[str, str | None], ...]
    candidates: tuple[Candidate, ...]
    merge_steps: tuple[MergeStep, ...]
    problems: tuple[Diagnostic, ...] = ()  # errors that concern the key (a lenient composition)
    #: providers' accounts of their lookups (``hiera:``): a title and its lines
    traces: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def _repr_html_(self) -> str:  # Jupyter: the explanation as text, escaped (it is bounded by the model)
        return f'<pre class="cfmodel">{html.escape(self.render())}</pre>'

    def __repr__(self) -> str:  # one line; ``render()`` is the whole account
        candidates = f"{len(self.candidates)} candidate{'' if len(self.candidates) == 1 else 's'}"
        return clip(f"<Explanation {self.key} = {self.value}: {candidates}>")

    @property
    def winner(self) -> Candidate | None:
        return next((c for c in self.candidates if c.status == "winner"), None)

    def render(self) -> str:
        if self.value is not None:
            lines = [f"{self.key} = {self.value}"]
        elif self.problems:
            count = len(self.problems)
            lines = [f"{self.key} cannot be looked up: {count} error{'s' if count > 1 else ''} (below)"]
        else:
            lines = [f"{self.key} is not bound"]
        lines.append("  layers consulted: " + ", ".join(self.layers))
        cats = ", ".join(f"{n}={v}" if v is not None else f"{n} (n/a)" for n, v in self.categories)
        lines.append("  categories consulted: " + cats)
        for c in self.candidates:
            where = f"{c.span.start()} " if c.span is not None else ""
            lines.append(f"  {c.status}: {where}{c.kind} {c.value} ({c.where})")
            lines.extend(f"    from {note}" for note in c.notes)
        for step in self.merge_steps:
            where = f"{step.span.start()} " if step.span is not None else ""
            lines.append(f"  merged: {where}{step.contribution} -> {step.result} ({step.where})")
        for title, trace in self.traces:
            lines.append(f"  {title}:")
            lines.extend("    " + line for line in trace)
        lines.extend("  " + line for problem in self.problems for line in problem.render().splitlines())
        return "\n".join(lines)


def explain(composer: Composer, key: Key, value: Value, problems: Iterable[Diagnostic] = ()) -> Explanation:
    resolved = composer.resolved.get(key)
    entries = sorted(composer.groups.get(key, []), key=sort_key)
    candidates = tuple(_candidate(composer, e, resolved) for e in entries)
    steps: list[MergeStep] = []
    if resolved is not None and resolved.entry.kind == "multibind":
        steps = _merge_steps(composer, key, resolved.entry)
    return Explanation(
        str(key),
        show(value) if value is not MISSING else None,
        composer.layer_names,
        tuple((c.name, c.value) for c in composer.categories.values()),
        candidates,
        tuple(steps),
        tuple(problems),
        _traces(composer, key),
    )


def _traces(composer: Composer, key: Key) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What the providers of the layers consulted say of their lookup of the key (for data
    keys: ``hiera:`` looked a key up as ``puppet lookup --explain`` shows, found or not)."""
    if key.namespace != "Data" or key.name.startswith("/"):
        return ()
    return tuple(
        (f'{name} (layer "{layer.name}")', tuple(tracer(key.name)))
        for layer in composer.prepared.layers
        for name, tracer in layer.tracers.items()
    )


def _candidate(composer: Composer, entry: Entry, resolved: Resolved | None) -> Candidate:
    if not composer.is_applicable(entry):
        status = "not applicable"
    elif resolved is not None and resolved.entry is entry:
        status = "winner"
    else:
        status = "shadowed"
    if entry.kind in ("rebind", "alias", "renamed"):
        text = f"from {entry.source}"
    elif entry.kind == "multibind":
        text = f'id "{entry.multibind_id}"'
    elif entry.abstract:
        text = "(abstract)"
    else:
        text = show(composer._produce(entry))  # a binding that does not apply: what it would give
    return Candidate(status, entry.where(), entry.span, entry.kind, text, _provenance(entry))


def _provenance(entry: Entry) -> tuple[str, ...]:
    """The notes a provider left on a binding (option ``provenance``: texts)."""
    option = option_value(entry.element, "provenance")
    if option is None:
        return ()
    notes = evaluate(option, {})
    return tuple(str(n) for n in notes) if isinstance(notes, list) else (str(notes),)


def _merge_steps(composer: Composer, key: Key, entry: Entry) -> list[MergeStep]:
    spec = entry.declared or TypeSpec("Array")
    combinator = composer._combinator(entry, spec.name) or "append"
    fragments = composer._fragment_values(key, entry, spec)
    steps: list[MergeStep] = []
    for count in range(1, len(fragments) + 1):
        fragment, contribution = fragments[count - 1]
        partial = combine(spec.name, fragments[:count], combinator, composer.facts, None, lambda a, b: None)
        steps.append(MergeStep(fragment.where(), fragment.span, show(contribution), show(partial)))
    return steps
