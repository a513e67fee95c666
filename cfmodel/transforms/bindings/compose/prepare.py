"""Prepare bindings for many requests: everything about a composition that facts cannot change.

``prepare(layers, spans, sites, options)`` checks the site's categories, makes the ``Entry``
objects of every bind operation (per condition, with its precedence score) from the flat
forms the parser made (``entries.flatten``; a model built in code is flattened here), groups
them by key in precedence order (strongest first), and records the errors found so far
(they are reported with the request's, all together). A
``PreparedBindings`` then makes an ``Injector`` per request: ``prepared.injector(facts)``.
A server keeps the prepared bindings while the files do not change; ``compose()`` does both
steps at once.

Guarantees: the prepared bindings are not changed by making injectors (one may serve many
requests, one after the other or at once). Conditions are interned: ``conditions[i]`` is the
tuple of ``(category, value)`` tests of every entry whose ``condition`` is ``i``; an entry
that can never apply has ``condition == -1``.

Error codes: those of ``categories`` (the declaration rules) and ``entries``
(``unknown-category``, ``invalid-binding``, ``reserved-name``, ``expression-error``),
``unknown-multibind`` and ``unknown-option`` (an option name the binding does not take: a
misspelled ``combinater`` is an error, never silently ignored).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cfmodel.errors import Diagnostic, Diagnostics
from cfmodel.metamodel.bindings import ModelObject, SpanTable, kind_of
from cfmodel.transforms.bindings.compose.categories import CategoryOrder, category_order
from cfmodel.transforms.bindings.compose.composer import Composer
from cfmodel.transforms.bindings.compose.entries import Collector, Entry, sort_key
from cfmodel.transforms.bindings.compose.injector import Injector
from cfmodel.transforms.bindings.compose.options import ComposeOptions, LayerInput
from cfmodel.transforms.bindings.compose.values import Key, Value
from cfmodel.transforms.bindings.trusted import request_facts

_CLASS_KINDS = frozenset(("include", "exclude"))


@dataclass(frozen=True, slots=True, eq=False)
class PreparedBindings:
    """The facts-independent part of a composition (see the module docstring)."""

    layer_names: tuple[str, ...]
    spans: SpanTable
    options: ComposeOptions
    categories: CategoryOrder
    conditions: tuple[tuple[tuple[str, str], ...], ...]
    groups: Mapping[Key, Sequence[Entry]]
    fragments: Mapping[str, Sequence[Entry]]
    classes: Sequence[Entry]
    known_ids: frozenset[str]
    diagnostics: tuple[Diagnostic, ...]
    layers: tuple[LayerInput, ...] = ()  # what was prepared (for exports of the models)
    sites: tuple[ModelObject, ...] = ()

    def injector(self, facts: Mapping[str, Value]) -> Injector:
        """The injector of one request.

        Raises:
            CfCompileError: the errors found while preparing and those of this request, sorted.
        """
        return Composer(self, request_facts(facts)).run()

    @property
    def size(self) -> int:
        """How many entries (bindings per condition) there are."""
        return (
            sum(len(g) for g in self.groups.values())
            + len(self.classes)
            + sum(len(f) for f in self.fragments.values())
        )


def prepare(
    layers: Sequence[LayerInput],
    spans: SpanTable,
    sites: Sequence[ModelObject] = (),
    options: ComposeOptions | None = None,
    problems: Sequence[Diagnostic] = (),
) -> PreparedBindings:
    """Check and index the layers' bindings once, for any number of requests.

    Args:
        layers: highest precedence first.
        spans: the span table of every parsed file the bindings came from.
        sites: ``Site`` model objects (at most one may declare categories).
        options: nesting rule, custom producers, leniency.
        problems: errors found while loading the layers (a lenient load), kept with these.

    Returns:
        The prepared bindings; errors found are kept and raised by ``injector()``.
    """
    options = options or ComposeOptions()
    diags = Diagnostics()
    diags.extend(problems)
    order = category_order(sites, spans, diags)
    collector = Collector(order, spans, diags, options.nesting)
    entries = collector.collect(layers)
    groups: dict[Key, list[Entry]] = {}
    fragments: dict[str, list[Entry]] = {}
    classes: list[Entry] = []
    known_ids: set[str] = set()
    for entry in entries:
        if entry.kind == "multibind":
            known_ids.add(str(entry.multibind_id))
        if entry.kind == "fragment":
            fragments.setdefault(str(entry.multibind_id), []).append(entry)
        elif entry.kind in _CLASS_KINDS:
            classes.append(entry)
        else:
            groups.setdefault(entry.key, []).append(entry)
    for group in groups.values():
        group.sort(key=sort_key)
    for found in fragments.values():
        found.sort(key=sort_key)
    classes.sort(key=sort_key)
    _check_fragment_ids(fragments, known_ids, diags)
    _check_options(entries, spans, diags)
    return PreparedBindings(
        tuple(layer.name for layer in layers),
        spans,
        options,
        order,
        tuple(collector.conditions),
        groups,
        fragments,
        classes,
        frozenset(known_ids),
        tuple(diags.items),
        tuple(layers),
        tuple(sites),
    )


def _check_fragment_ids(fragments: Mapping[str, list[Entry]], known: set[str], diags: Diagnostics) -> None:
    for ident, found in fragments.items():
        if ident in known:
            continue
        for fragment in found:
            message = f'no multibind has the id "{ident}" ({fragment.where()})'
            diags.error(fragment.span, message, "unknown-multibind")


#: Options any binding may carry: ``provenance`` (providers' notes for ``explain``).
_ANY_OPTIONS = frozenset(("provenance",))


def _known_options(entry: Entry) -> tuple[str, ...]:
    """The option names a binding of this kind takes (``{ name => value }`` after it)."""
    known: tuple[str, ...] = ()
    if entry.kind == "multibind":
        known = ("combinator", "knockout_prefix")
    elif entry.kind == "param-source":
        known = ("map",)
    if entry.producer is not None and kind_of(entry.producer) == "CustomProducer":
        known += ("producer_args",)
    return known


def _check_options(entries: Sequence[Entry], spans: SpanTable, diags: Diagnostics) -> None:
    seen: set[int] = set()
    for entry in entries:
        element = entry.element
        if id(element) in seen or not hasattr(element, "options"):
            continue
        seen.add(id(element))  # the entries of one binding (one per ``or`` branch) share it
        known = _known_options(entry)
        for option in element.options:
            name = str(option.name)
            if name in known or name in _ANY_OPTIONS:
                continue
            takes = f"takes {', '.join(known)}" if known else "takes no options"
            message = f'unknown option "{name}" ({entry.where()}): this {_kind_words(entry)} {takes}'
            diags.error(spans.get(option) or entry.span, message, "unknown-option")


def _kind_words(entry: Entry) -> str:
    if entry.kind == "multibind":
        return "multibind"
    if entry.kind == "param-source":
        return "parameters binding"
    if entry.producer is not None and kind_of(entry.producer) == "CustomProducer":
        return "binding to a custom producer"
    return "binding"
