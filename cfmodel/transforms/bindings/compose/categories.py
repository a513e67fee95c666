"""Categories: the site's declaration checked against the seed's rules, and their values.

Order (first = highest): the declared categories, with ``node`` added first (value
``$::fqdn``) and ``environment`` added last (value ``$environment``, default
``production``) when not declared, then the implicit ``common``. Rules: one categories
declaration; no category twice; ``common`` never declared; ``environment`` declared as
``true``; ``node`` above ``environment``. A category whose value is undef or ``""`` does not
apply to the request.

Error codes: ``categories-twice``, ``category-twice``, ``common-declared``,
``environment-not-true``, ``node-below-environment``, ``expression-error``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cfmodel.errors import Diagnostics, Note, Span
from cfmodel.metamodel.bindings import ModelObject, SpanTable, kind_of
from cfmodel.transforms.bindings.compose.expressions import ExpressionError, evaluate
from cfmodel.transforms.bindings.compose.values import Value, show


@dataclass(frozen=True, slots=True)
class Category:
    """A category in precedence order: ``rank`` 0 is ``common``; ``value`` None: does not apply."""

    name: str
    rank: int
    value: str | None
    span: Span | None


@dataclass(frozen=True, slots=True)
class CategoryOrder:
    """The categories of a site, highest first, independent of any request.

    ``ranks`` maps each name to its rank (``common`` 0, one more per category above it);
    ``declarations`` holds the ``CategoryDeclaration`` of each declared category (``node``
    and ``environment`` may be implicit).
    """

    names: tuple[str, ...]
    ranks: Mapping[str, int]
    declarations: Mapping[str, ModelObject]

    def values(self, facts: Mapping[str, Value], spans: SpanTable, diags: Diagnostics) -> dict[str, Category]:
        """Each category with its value for these facts (highest first)."""
        result: dict[str, Category] = {}
        for name in self.names:
            decl = self.declarations.get(name)
            value = _category_value(name, decl, facts, spans, diags)
            span = spans.get(decl) if decl is not None else None
            result[name] = Category(name, self.ranks[name], value, span)
        return result


def category_order(sites: Sequence[ModelObject], spans: SpanTable, diags: Diagnostics) -> CategoryOrder:
    """The categories declared by the sites, checked against the seed's rules, in order."""
    declared = _declared_categories(sites, spans, diags)
    names = [str(d.name) for d in declared]
    order: list[tuple[str, ModelObject | None]] = [(str(d.name), d) for d in declared]
    if "node" not in names:
        order.insert(0, ("node", None))
    if "environment" not in names:
        order.append(("environment", None))
    order.append(("common", None))
    ranks = {name: len(order) - 1 - index for index, (name, _) in enumerate(order)}
    declarations = {name: decl for name, decl in order if decl is not None}
    return CategoryOrder(tuple(name for name, _ in order), ranks, declarations)


def resolve_categories(
    sites: Sequence[ModelObject], facts: Mapping[str, Value], spans: SpanTable, diags: Diagnostics
) -> dict[str, Category]:
    """The categories (highest first) after the seed's rules, with their values for these facts."""
    return category_order(sites, spans, diags).values(facts, spans, diags)


def _declared_categories(sites: Sequence[ModelObject], spans: SpanTable, diags: Diagnostics) -> list[Any]:
    decls = [d for site in sites for d in site.categories]
    for extra in decls[1:]:
        note = Note(spans.get(decls[0]), "the first categories declaration is here")
        diags.error(spans.get(extra), "categories may only be declared once", "categories-twice", [note])
    if not decls:
        return []
    entries: list[Any] = []
    for entry in decls[0].entries:
        if _check_category(entry, entries, spans, diags):
            entries.append(entry)
    names = [str(e.name) for e in entries]
    if "node" in names and "environment" in names and names.index("node") > names.index("environment"):
        node = entries[names.index("node")]
        message = 'the category "node" must have a higher precedence than "environment"'
        diags.error(spans.get(node), message, "node-below-environment")
    return entries


def _check_category(entry: ModelObject, seen: list[Any], spans: SpanTable, diags: Diagnostics) -> bool:
    name, span = str(entry.name), spans.get(entry)
    if any(str(s.name) == name for s in seen):
        diags.error(span, f'the category "{name}" is declared twice', "category-twice")
        return False
    if name == "common":
        message = 'the category "common" is implicit and always lowest; it must not be declared'
        diags.error(span, message, "common-declared")
        return False
    value = entry.value
    if name == "environment" and not (kind_of(value) == "BooleanLiteral" and value.value):
        message = 'the category "environment" must be declared as true (its value is always $environment)'
        diags.error(span, message, "environment-not-true")
    return True


def _category_value(
    name: str, decl: ModelObject | None, facts: Mapping[str, Value], spans: SpanTable, diags: Diagnostics
) -> str | None:
    if name == "common":
        return "true"
    if name == "environment":
        return category_text(facts.get("environment", "production"))
    if decl is None:
        return category_text(facts.get("fqdn"))
    try:
        return category_text(evaluate(decl.value, facts))
    except ExpressionError as err:
        diags.error(spans.get(err.element) or spans.get(decl), err.message, "expression-error")
        return None


def category_text(value: Value) -> str | None:
    """A category value as text; None (undef or empty) means the category does not apply."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return show(value)
