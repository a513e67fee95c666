"""Compose layered bindings into an injector (ARM-8 "Composition of Bindings").

Input: the layers (highest precedence first), each a list of ``NamedBindings`` model objects
(``cfmodel.metamodel.bindings``), the ``Site`` declarations (categories), the ``SpanTable`` of
the parsed files, the caller's facts (a plain ``dict``) and ``ComposeOptions``.
Output: an ``Injector``: ``lookup(name)``, ``lookup(type, name)``, lookups with a default,
``classes()``, ``parameters()``, ``parameter_sources()``, ``variable()`` and ``explain()``
(provenance: layers and categories consulted, the winner, what it shadowed, merge steps).

Semantics: a key is ``(type, name)``; every subtype of ``Data`` shares the name space
``Data``. Precedence is the layer first, then the category. Categories come from the site
declaration (first = highest); ``common`` is implicit and lowest, ``environment`` just above
it, ``node`` highest unless declared. A nested or ``and``-ed binding is ranked by its
precedence vector (the seed's "numbered paragraphs": the ranks of its categories, highest
first, compared like section numbers: 3.2 < 4), so it beats its outer category but never
the next higher one; ``NestingRule.HIGHEST`` selects the seed's literal rule (the precedence
of its highest category only). ``or`` expands into one binding per branch. Multibind
fragments are collected in (layer, precedence, declaration order) order, strongest first.

Guarantees: every composition error is collected and reported together, sorted by position,
in one ``CfCompileError`` raised by ``compose``; each names the key, the bindings, the layer,
the category and the source span. Afterwards a lookup of a bound key is one dict access.
The values, types, expressions and combinators of the language are in the second half of
this module (``evaluate``, ``conforms``, ``combine``).

Error codes: ``categories-twice``, ``category-twice``, ``common-declared``,
``environment-not-true``, ``node-below-environment``, ``unknown-category``,
``binding-conflict``, ``abstract-not-bound``, ``override-nothing``, ``final-overridden``,
``unknown-multibind``, ``duplicate-multibind-id``, ``not-a-collection``,
``fragment-without-name``, ``duplicate-fragment-key``, ``rebind-missing``, ``rebind-cycle``,
``type-mismatch``, ``invalid-binding``, ``reserved-name``, ``unknown-combinator``,
``unknown-producer``, ``expression-error``; at lookup: ``not-bound``, ``type-mismatch``.
"""

from __future__ import annotations

import enum
import re
from collections import ChainMap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias

from cfmodel.errors import CfEvaluationError, Diagnostics, Note, Span
from cfmodel.metamodel.bindings import ModelObject, SpanTable

#: A bound value: JSON-like data (str, int, float, bool, None, list, dict) or a ``TypeValue``.
#: Data is dynamic by nature, so this is deliberately ``Any``.
Value: TypeAlias = Any
#: Makes a custom producer's value from its ``producer_args``.
ProducerFactory: TypeAlias = Callable[[Mapping[str, Value]], Value]

DATA_TYPES = frozenset(
    [
        "Any",
        "Data",
        "Literal",
        "Scalar",
        "Boolean",
        "Integer",
        "Float",
        "Number",
        "String",
        "Pattern",
        "Array",
        "Hash",
        "Undef",
    ]
)
ARRAY_STRATEGIES = ("append", "flatten", "unique")
HASH_STRATEGIES = ("error", "first", "merge", "deep_merge")
_MISSING: Any = object()


# ============================================================================================
# Options, keys, results
# ============================================================================================


class NestingRule(enum.Enum):
    """How a nested (``and``-ed) binding is ranked."""

    VECTOR = "vector"  # numbered paragraphs: more specific, never above the next category
    HIGHEST = "highest"  # the seed's literal rule: the precedence of its highest category


@dataclass(frozen=True, slots=True)
class ComposeOptions:
    """Settings of a composition; ``producers`` maps producer type names (or names) to factories."""

    nesting: NestingRule = NestingRule.VECTOR
    producers: Mapping[str, ProducerFactory] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LayerInput:
    """One layer: a label, its bindings (``NamedBindings``), and where it was declared."""

    name: str
    bindings: Sequence[ModelObject]
    span: Span | None = None


class Key(NamedTuple):
    """A binding key. Equal (and hash-equal) to the plain tuple ``(namespace, name)``."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f'{self.namespace} "{self.name}"' if self.name else self.namespace


@dataclass(frozen=True, slots=True)
class TypeSpec:
    """A type reference: ``Integer``, ``Array[String]``, ``Type[Logger]``, ``Web[one]``."""

    name: str
    args: tuple[TypeSpec, ...] = ()
    title: str | None = None

    def __str__(self) -> str:
        inner = [str(a) for a in self.args] + ([self.title] if self.title is not None else [])
        return f"{self.name}[{', '.join(inner)}]" if inner else self.name

    @property
    def is_data(self) -> bool:
        return self.name in DATA_TYPES


@dataclass(frozen=True, slots=True)
class TypeValue:
    """A type or instance reference bound as a value (``Type[X]``, ``class ntp``, ``Sql[one]``)."""

    type: TypeSpec

    def __str__(self) -> str:
        return str(self.type)


@dataclass(frozen=True, slots=True)
class LambdaValue:
    """A ``|$a, $b| { ... }`` lambda (only meaningful as a combinator)."""

    parameters: tuple[str, ...]
    body: ModelObject


@dataclass(frozen=True, slots=True)
class ParameterSource:
    """``bind parameters <target> to <instance>``: where a target's parameters come from."""

    target: str
    source: Value
    map: Mapping[str, Value] | None
    optional: bool


def key_of(spec: TypeSpec | None, name: str) -> Key:
    """The key of a binding: every ``Data`` subtype shares the ``Data`` name space."""
    if spec is None or spec.is_data:
        return Key("Data", name)
    return Key(str(spec), name)


# ============================================================================================
# Entry point
# ============================================================================================


def compose(
    layers: Sequence[LayerInput],
    facts: Mapping[str, Value],
    spans: SpanTable,
    sites: Sequence[ModelObject] = (),
    options: ComposeOptions | None = None,
) -> Injector:
    """Compose the layers' bindings for these facts into an injector.

    Args:
        layers: highest precedence first.
        facts: the request's facts (``fqdn``, ``environment``, ...), read by category values.
        spans: the span table of every parsed file the bindings came from.
        sites: ``Site`` model objects (at most one may declare categories).
        options: nesting rule and custom producers.

    Returns:
        The injector.

    Raises:
        CfCompileError: all composition errors, sorted by position.
    """
    composer = _Composer(layers, facts, spans, sites, options or ComposeOptions())
    return composer.run()


# ============================================================================================
# Categories
# ============================================================================================


@dataclass(frozen=True, slots=True)
class Category:
    """A category in precedence order: ``rank`` 0 is ``common``; ``value`` None: does not apply."""

    name: str
    rank: int
    value: str | None
    span: Span | None


def resolve_categories(
    sites: Sequence[ModelObject], facts: Mapping[str, Value], spans: SpanTable, diags: Diagnostics
) -> dict[str, Category]:
    """The categories (highest first) after the seed's rules, with their values for these facts."""
    declared = _declared_categories(sites, spans, diags)
    names = [str(d.name) for d in declared]
    order: list[tuple[str, ModelObject | None]] = [(str(d.name), d) for d in declared]
    if "node" not in names:
        order.insert(0, ("node", None))
    if "environment" not in names:
        order.append(("environment", None))
    order.append(("common", None))
    result: dict[str, Category] = {}
    for index, (name, decl) in enumerate(order):
        value = _category_value(name, decl, facts, spans, diags)
        span = spans.get(decl) if decl is not None else None
        result[name] = Category(name, len(order) - 1 - index, value, span)
    return result


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
    if name == "environment" and not (_kind(value) == "BooleanLiteral" and value.value):
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


# ============================================================================================
# Entries: bindings flattened per condition
# ============================================================================================


@dataclass(slots=True, eq=False)
class Entry:
    """One binding under one conjunction of categories, in one layer."""

    key: Key
    kind: str  # bind, fragment, multibind, rebind, alias, renamed, param-source, include, exclude
    element: ModelObject
    origin: str
    layer: int
    layer_name: str
    conditions: tuple[tuple[str, str], ...]
    score: int
    order: int
    span: Span | None
    applicable: bool
    abstract: bool = False
    override: bool = False
    final: bool = False
    optional: bool = False
    declared: TypeSpec | None = None
    value_expr: ModelObject | None = None
    producer: ModelObject | None = None
    multibind_id: str | None = None
    source: Key | None = None

    @property
    def position(self) -> tuple[int, int]:
        """Smaller is stronger: the layer first, then the category score."""
        return (self.layer, -self.score)

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (self.layer, -self.score, self.order)

    def category(self) -> str:
        return _category_words(self.conditions)

    def where(self) -> str:
        return f'bindings {self.origin}, layer "{self.layer_name}", {self.category()}'


def _category_words(conditions: tuple[tuple[str, str], ...]) -> str:
    if not conditions:
        return "category common"
    words = " and ".join(f'{name} "{value}"' for name, value in conditions)
    return ("category " if len(conditions) == 1 else "categories ") + words


@dataclass(frozen=True, slots=True)
class _Context:
    conditions: tuple[tuple[str, str], ...]
    score: int
    applicable: bool


class _Collector:
    """Walks ``NamedBindings`` and turns every bind operation into entries."""

    def __init__(self, composer: _Composer) -> None:
        self.c = composer
        self.entries: list[Entry] = []
        self.layer = 0
        self.layer_name = ""
        self.origin = ""
        self._reported: set[int] = set()
        self._tests: dict[int, tuple[str, str | None]] = {}

    def collect(self, layers: Sequence[LayerInput]) -> list[Entry]:
        for index, layer in enumerate(layers):
            self.layer, self.layer_name = index, layer.name
            for named in layer.bindings:
                self.origin = str(named.name)
                self.walk(named.elements, [_Context((), 0, True)])
        return self.entries

    def walk(self, elements: Iterable[ModelObject], contexts: list[_Context]) -> None:
        unique = _unique_contexts(contexts) if len(contexts) > 1 else contexts
        for element in elements:
            if _kind(element) == "CategorizedBindings":
                inner = [self.refine(ctx, conj) for ctx in contexts for conj in _dnf(element.predicate)]
                self.walk(element.elements, inner)
            else:
                add = getattr(self, f"add_{_kind(element)}")
                for ctx in unique:
                    add(element, ctx)

    def refine(self, ctx: _Context, tests: list[ModelObject]) -> _Context:
        conditions = dict(ctx.conditions)
        applicable = ctx.applicable
        for test in tests:
            name, value = self._test(test)
            category = self.c.categories.get(name)
            if category is None or name == "common":
                self._unknown_category(test, name)
                applicable = False
                continue
            conditions[name] = value or ""
            applicable = applicable and value is not None and category.value == value
        ranked = sorted(conditions.items(), key=lambda item: -self.c.categories[item[0]].rank)
        return _Context(tuple(ranked), self.c.score([n for n, _ in ranked]), applicable)

    def _test(self, test: ModelObject) -> tuple[str, str | None]:
        """A category test's category and value text (read once per test element)."""
        found = self._tests.get(id(test))
        if found is None:
            found = self._tests[id(test)] = (str(test.category), category_text(evaluate(test.value, {})))
        return found

    def _unknown_category(self, test: ModelObject, name: str) -> None:
        if id(test) in self._reported:
            return
        self._reported.add(id(test))
        known = ", ".join(n for n in self.c.categories if n != "common")
        where = f'bindings {self.origin}, layer "{self.layer_name}"'
        message = f'unknown category "{name}" ({where}; the categories are: {known})'
        self.c.diags.error(self.c.spans.get(test), message, "unknown-category")

    def entry(self, element: ModelObject, ctx: _Context, key: Key, kind: str, **extra: Any) -> Entry:
        made = Entry(
            key,
            kind,
            element,
            self.origin,
            self.layer,
            self.layer_name,
            ctx.conditions,
            ctx.score,
            len(self.entries),
            self.c.spans.get(element),
            ctx.applicable,
            **extra,
        )
        self.entries.append(made)
        return made

    def _flags(self, element: ModelObject) -> dict[str, Any]:
        return {"abstract": element.abstract, "override": element.override, "final": element.final}

    def add_Binding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802 - EClass name
        key_obj, producer, abstract, ident = (
            element.key,
            element.producer,
            element.abstract,
            element.multibindId,
        )
        declared = type_spec(key_obj.type) if key_obj is not None else None
        name = str(key_obj.name) if key_obj is not None else ""
        problem = _binding_problem(abstract, producer is not None, key_obj is not None, bool(ident), name)
        if problem is not None:
            code = "reserved-name" if name.startswith("/") else "invalid-binding"
            self.c.diags.error(self.c.spans.get(element), f"{problem} ({self.where(ctx)})", code)
            return
        self.entry(element, ctx, key_of(declared, name), "fragment" if ident else "bind", declared=declared,
                   producer=producer, multibind_id=ident, optional=element.optional, abstract=abstract,
                   override=element.override, final=element.final)  # fmt: skip

    def where(self, ctx: _Context) -> str:
        return f'bindings {self.origin}, layer "{self.layer_name}", {_category_words(ctx.conditions)}'

    def add_Multibinding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802
        declared = type_spec(element.key.type)
        key = key_of(declared, str(element.key.name))
        self.entry(element, ctx, key, "multibind", declared=declared, multibind_id=str(element.multibindId),
                   **self._flags(element))  # fmt: skip

    def add_Rebinding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802
        source = _key_from(element.source)
        kind = str(element.kind)
        target = _key_from(element.target) if kind != "rebind" else source
        declared = type_spec(element.target.type) if kind != "rebind" else None
        self.entry(element, ctx, target, kind, source=source, declared=declared, **self._flags(element))

    def add_ClassesBinding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802
        kind = "exclude" if element.exclude else "include"
        for name in element.classes:
            self.entry(element, ctx, Key("Class", str(name)), kind)

    def add_ParametersBinding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802
        target = type_spec(element.target)
        assert target is not None  # the grammar always gives a target
        producer = element.producer
        value = producer.value if _kind(producer) == "ConstantProducer" else None
        if value is not None and _kind(value) == "HashLiteral":
            for entry in value.entries:
                name = self._param_name(entry)
                key = Key("Data", f"/param/{_encode(str(target))}/{name}")
                self._entry_at(entry, element, ctx, key, value_expr=entry.value, **self._flags(element))
            return
        source = type_spec(producer.type) if _kind(producer) != "ConstantProducer" else None
        source_name = source.name if source is not None else "value"
        key = Key("ParameterSource", f"/params/{_encode(str(target))}/{source_name}")
        self.entry(element, ctx, key, "param-source", producer=producer, optional=element.optional,
                   **self._flags(element))  # fmt: skip

    def _param_name(self, entry: ModelObject) -> str:
        return str(category_text(evaluate(entry.key, {})))

    def _entry_at(self, at: ModelObject, element: ModelObject, ctx: _Context, key: Key, **extra: Any) -> None:
        made = self.entry(element, ctx, key, "bind", **extra)
        made.span = self.c.spans.get(at) or made.span

    def add_ParameterMapBinding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802
        source, target = type_spec(element.source), type_spec(element.target)
        key = Key("ParameterMap", f"/map/{source}/{target}")
        self.entry(element, ctx, key, "bind", value_expr=element.map, **self._flags(element))

    def add_VariablesBinding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802
        declared = type_spec(element.type) or (TypeSpec("Any") if element.abstract else None)
        value: Any = element.producer.value if _kind(element.producer) == "ConstantProducer" else None
        kind = _kind(value) if value is not None else ""
        flags = self._flags(element)
        if element.abstract and kind in ("ArrayLiteral", "StringLiteral"):
            items = value.items if kind == "ArrayLiteral" else [value]
            for item in items:
                key = Key("Data", f"/var/{category_text(evaluate(item, {}))}")
                self._entry_at(item, element, ctx, key, declared=declared, **flags)
        elif not element.abstract and kind == "HashLiteral":
            for entry in value.entries:
                key = Key("Data", f"/var/{self._param_name(entry)}")
                self._entry_at(entry, element, ctx, key, declared=declared, value_expr=entry.value, **flags)
        else:
            wanted = "an array of names" if element.abstract else "a hash of names to values"
            message = f"variables must be bound to {wanted} ({self.where(ctx)})"
            self.c.diags.error(self.c.spans.get(element), message, "invalid-binding")


def _binding_problem(
    abstract: bool, has_producer: bool, has_key: bool, fragment: bool, name: str
) -> str | None:
    if abstract and has_producer:
        return "an abstract binding cannot have a producer (remove `to ...`)"
    if not abstract and not has_producer:
        return "a binding needs a producer (`to <value>`) unless it is abstract"
    if not has_key and not fragment:
        return "a binding without a key must contribute to a multibind (`in '<id>'`)"
    if name.startswith("/"):
        return f'the name "{name}" is reserved: names starting with "/" belong to the injector'
    return None


def _kind(obj: ModelObject) -> str:
    """The EClass name of a model object (PyEcore names the Python class after it; faster)."""
    return type(obj).__name__


def _unique_contexts(contexts: list[_Context]) -> list[_Context]:
    """``when node 'a' or node 'a'`` must not bind twice at the same precedence."""
    seen: dict[tuple[tuple[tuple[str, str], ...], int], _Context] = {}
    for ctx in contexts:
        seen.setdefault((ctx.conditions, ctx.score), ctx)
    return list(seen.values())


def _dnf(predicate: ModelObject) -> list[list[ModelObject]]:
    """A predicate as a list of conjunctions of category tests (``or`` of ``and``)."""
    kind = _kind(predicate)
    if kind == "CategoryTest":
        return [[predicate]]
    parts = [_dnf(p) for p in predicate.operands]
    if kind == "AnyOf":
        return [conj for part in parts for conj in part]
    result: list[list[ModelObject]] = [[]]
    for part in parts:
        result = [left + right for left in result for right in part]
    return result


def _key_from(key: ModelObject) -> Key:
    return key_of(type_spec(key.type), str(key.name))


def _encode(name: str) -> str:
    """Instance names inside injector names are URL-encoded (``/``, ``[``, ``]``, ``%``)."""
    return name.replace("%", "%25").replace("/", "%2F").replace("[", "%5B").replace("]", "%5D")


def type_spec(ref: ModelObject | None) -> TypeSpec | None:
    """The ``TypeSpec`` of a ``TypeRef`` model object (None stays None)."""
    if ref is None:
        return None
    args = tuple(t for t in (type_spec(a) for a in ref.args) if t is not None)
    return TypeSpec(str(ref.name), args, ref.title)


# ============================================================================================
# The composer
# ============================================================================================


@dataclass(frozen=True, slots=True)
class Resolved:
    """The effective binding of a key: the winning entry and its value (or lazy producer)."""

    entry: Entry
    value: Value
    lazy: Callable[[], Value] | None = None
    from_key: Key | None = None


class _Composer:
    def __init__(
        self,
        layers: Sequence[LayerInput],
        facts: Mapping[str, Value],
        spans: SpanTable,
        sites: Sequence[ModelObject],
        options: ComposeOptions,
    ) -> None:
        self.layers, self.facts, self.spans, self.options = layers, facts, spans, options
        self.diags = Diagnostics()
        self.categories = resolve_categories(sites, facts, spans, self.diags)
        self.groups: dict[Key, list[Entry]] = {}
        self.applicable: dict[Key, list[Entry]] = {}
        self.fragments: dict[str, list[Entry]] = {}
        self.resolved: dict[Key, Resolved | None] = {}
        self._resolving: set[Key] = set()
        self._reported: set[tuple[str, Span | None, str]] = set()
        self.known_ids: set[str] = set()
        self.classes: list[Entry] = []

    def score(self, names: list[str]) -> int:
        """The precedence score of a conjunction: a bit per category rank (see module doc)."""
        ranks = [self.categories[n].rank for n in names]
        if not ranks:
            return 0
        if self.options.nesting is NestingRule.HIGHEST:
            return 1 << max(ranks)
        return sum(1 << r for r in set(ranks))

    def error(self, span: Span | None, message: str, code: str, notes: Iterable[Note] = ()) -> None:
        if (code, span, message) not in self._reported:
            self._reported.add((code, span, message))
            self.diags.error(span, message, code, notes)

    def run(self) -> Injector:
        entries = _Collector(self).collect(self.layers)
        self._group(entries)
        for key, group in self.applicable.items():
            self._check_group(key, group)
        for key in self.applicable:
            self._resolve(key)
        self._check_fragments()
        self._check_multibind_ids()
        erased = self._erased()
        self.diags.raise_if_errors()
        return Injector(self, erased)

    def _group(self, entries: list[Entry]) -> None:
        for entry in entries:
            if entry.kind == "multibind":
                self.known_ids.add(str(entry.multibind_id))
            if entry.kind == "fragment":
                if entry.applicable:
                    self.fragments.setdefault(str(entry.multibind_id), []).append(entry)
                continue
            if entry.kind in ("include", "exclude"):
                if entry.applicable:
                    self.classes.append(entry)
                continue
            self.groups.setdefault(entry.key, []).append(entry)
            if entry.applicable:
                self.applicable.setdefault(entry.key, []).append(entry)
        for group in self.applicable.values():
            group.sort(key=_sort_key)
        for fragments in self.fragments.values():
            fragments.sort(key=_sort_key)
        self.classes.sort(key=_sort_key)

    # --- checks on a key's bindings -----------------------------------------------------------
    def _check_group(self, key: Key, group: list[Entry]) -> None:
        top = [e for e in group if e.position == group[0].position]
        if len(top) > 1:
            self._conflict(key, top)
        weakest = group[-1].position
        for entry in group:
            if entry.override and entry.position == weakest:
                message = f"{key} is declared override but overrides nothing ({entry.where()})"
                self.error(entry.span, message, "override-nothing")
            if entry.final:
                self._check_final(key, entry, group)

    def _conflict(self, key: Key, top: list[Entry]) -> None:
        first, *others = top
        for other in others:
            message = (
                f"conflicting bindings of {key} in {_layer_and_category(first)}: "
                f"bindings {first.origin} and bindings {other.origin} bind it at the same precedence"
            )
            notes = [
                Note(first.span, f"the other binding of {key} (bindings {first.origin}) is here"),
                Note(None, f"to resolve, bind {key} in a higher layer or a more specific category"),
            ]
            self.error(other.span, message, "binding-conflict", notes)

    def _check_final(self, key: Key, final: Entry, group: list[Entry]) -> None:
        for entry in group:
            if entry.layer < final.layer:
                message = f'{key} is final in layer "{final.layer_name}" but overridden ({entry.where()})'
                note = Note(final.span, f"the final binding ({final.where()}) is here")
                self.error(entry.span, message, "final-overridden", [note])

    # --- resolution ---------------------------------------------------------------------------------
    def _resolve(self, key: Key) -> Resolved | None:
        if key in self.resolved:
            return self.resolved[key]
        if key in self._resolving:
            entry = self.applicable[key][0]
            self.error(entry.span, f"rebinding cycle through {key} ({entry.where()})", "rebind-cycle")
            return None
        self._resolving.add(key)
        group = self.applicable.get(key)
        result = self._resolve_at(key, group, 0) if group else None
        self._resolving.discard(key)
        self.resolved[key] = result
        return result

    def _resolve_at(self, key: Key, group: list[Entry], index: int) -> Resolved | None:
        entry = group[index]
        if entry.abstract:
            message = f"a concrete binding must be provided for {key}: it is abstract ({entry.where()})"
            self.error(entry.span, message, "abstract-not-bound")
            return None
        if entry.kind == "rebind":
            return self._rebind(key, group, index)
        if entry.kind in ("alias", "renamed"):
            return self._alias(key, entry)
        if entry.kind == "multibind":
            return Resolved(entry, self._multibind(key, entry))
        if entry.kind == "param-source":
            return self._param_source(entry)
        return self._bind(key, group, index)

    def _bind(self, key: Key, group: list[Entry], index: int) -> Resolved | None:
        entry = group[index]
        if entry.producer is not None and _kind(entry.producer) == "CustomProducer":
            lazy = self._lazy(entry)
            return Resolved(entry, None, lazy) if lazy is not None else None
        value = self._produce(entry)
        if value is None and entry.optional:
            below = _next_weaker(group, index)
            return self._resolve_at(key, group, below) if below is not None else None
        self._check_type(key, entry, value, group)
        return Resolved(entry, value)

    def _rebind(self, key: Key, group: list[Entry], index: int) -> Resolved | None:
        entry = group[index]
        below = _next_weaker(group, index)
        if below is None:
            message = f"rebind of {key}: nothing of lower precedence binds {key} ({entry.where()})"
            self.error(entry.span, message, "rebind-missing")
            return None
        found = self._resolve_at(key, group, below)
        if found is None:
            return None
        return Resolved(entry, found.value, found.lazy, key)

    def _alias(self, key: Key, entry: Entry) -> Resolved | None:
        source = entry.source
        assert source is not None  # set for every alias entry
        if source not in self.applicable:
            verb = "alias" if entry.kind == "alias" else "rename"
            message = f"{verb} of {source} as {key}: {source} is not bound ({entry.where()})"
            self.error(entry.span, message, "rebind-missing")
            return None
        found = self._resolve(source)
        if found is None:
            return None
        if found.lazy is None:
            self._check_type(key, entry, found.value, self.applicable.get(key, []))
        return Resolved(entry, found.value, found.lazy, source)

    def _param_source(self, entry: Entry) -> Resolved:
        producer = entry.producer
        source = self._produce(entry)
        mapping = _option(entry.element, "map")
        mapped = evaluate(mapping, self.facts) if mapping is not None else None
        target = entry.key.name.split("/")[2]
        return Resolved(entry, ParameterSource(target, source, mapped, entry.optional) if producer else None)

    def _produce(self, entry: Entry) -> Value:
        try:
            if entry.value_expr is not None:
                return evaluate(entry.value_expr, self.facts)
            producer = entry.producer
            if producer is None:
                return None
            kind = _kind(producer)
            if kind == "TypeProducer":
                return TypeValue(type_spec(producer.type) or TypeSpec("Any"))
            return evaluate(producer.value, self.facts) if kind == "ConstantProducer" else None
        except ExpressionError as err:
            self._expression_error(err, entry)
            return None

    def _expression_error(self, err: ExpressionError, entry: Entry) -> None:
        message = f"{err.message} (in the binding of {entry.key}, {entry.where()})"
        self.error(self.spans.get(err.element) or entry.span, message, "expression-error")

    def _lazy(self, entry: Entry) -> Callable[[], Value] | None:
        """A custom producer, called at each lookup (None: unknown producer, reported)."""
        producer: Any = entry.producer
        spec = type_spec(producer.type) or TypeSpec("Any")
        runtime = spec.args[0].name if spec.name == "Type" and spec.args else spec.name
        name = str(producer.name) if producer.name else runtime
        factory = self._factory(name, entry)
        args_expr = _option(entry.element, "producer_args")
        args = evaluate(args_expr, self.facts) if args_expr is not None else {}
        if factory is None:
            return None
        return lambda: factory(args)

    def _factory(self, name: str, entry: Entry) -> ProducerFactory | None:
        factories = self.options.producers
        if name in factories:
            return factories[name]
        registered = (
            self._resolve(Key("Data", "producers")) if Key("Data", "producers") in self.applicable else None
        )
        if registered is not None and isinstance(registered.value, dict):
            bound = registered.value.get(name)
            if isinstance(bound, TypeValue) and bound.type.name in factories:
                return factories[bound.type.name]
            if isinstance(bound, TypeValue) and bound.type.args and bound.type.args[0].name in factories:
                return factories[bound.type.args[0].name]
        message = f'unknown producer "{name}" for {entry.key} ({entry.where()})'
        self.error(entry.span, message, "unknown-producer")
        return None

    def _check_type(self, key: Key, entry: Entry, value: Value, group: list[Entry]) -> None:
        declaring = [entry] + [e for e in group if e is not entry]
        for other in declaring:
            spec = other.declared
            if spec is None or conforms(value, spec):
                continue
            message = f"type mismatch for {key}: expected {spec}, got {describe(value)} ({entry.where()})"
            notes = [] if other is entry else [Note(other.span, f"{key} is declared {spec} here")]
            self.error(entry.span, message, "type-mismatch", notes)
            return

    # --- multibinds -------------------------------------------------------------------------------------
    def _multibind(self, key: Key, entry: Entry) -> Value:
        spec = entry.declared
        if spec is None or spec.name not in ("Array", "Hash"):
            message = f"a multibind must bind an Array or a Hash, not {spec or 'Data'} ({entry.where()})"
            self.error(entry.span, message, "not-a-collection")
            return None
        combinator = self._combinator(entry, spec.name)
        if combinator is None:
            return None
        fragments = self._fragment_values(key, entry, spec)
        prefix = _option(entry.element, "knockout_prefix")
        knockout = str(evaluate(prefix, {})) if prefix is not None else None
        try:
            return combine(spec.name, fragments, combinator, self.facts, knockout, self._duplicate)
        except ExpressionError as err:
            self._expression_error(err, entry)
            return None

    def _combinator(self, entry: Entry, kind: str) -> str | LambdaValue | None:
        option = _option(entry.element, "combinator")
        if option is None:
            return "append" if kind == "Array" else "error"
        value = evaluate(option, self.facts)
        allowed = ARRAY_STRATEGIES if kind == "Array" else HASH_STRATEGIES
        if isinstance(value, LambdaValue) or value in allowed:
            return value  # type: ignore[no-any-return]  # a strategy name or a lambda
        message = f"unknown combinator {show(value)} for the {kind} multibind {entry.key} ({entry.where()}; "
        message += "use a lambda or one of: " + ", ".join(allowed) + ")"
        self.error(self.spans.get(option), message, "unknown-combinator")
        return None

    def _fragment_values(self, key: Key, entry: Entry, spec: TypeSpec) -> list[tuple[Entry, Value]]:
        element_type = spec.args[-1] if spec.args else TypeSpec("Data")
        result = []
        for fragment in self.fragments.get(str(entry.multibind_id), []):
            if spec.name == "Hash" and not fragment.key.name:
                message = f"a fragment of the Hash multibind {key} needs a name ({fragment.where()})"
                self.error(fragment.span, message, "fragment-without-name")
                continue
            value = self._produce(fragment)
            allowed = conforms(value, element_type)
            if spec.name == "Array" and isinstance(value, list):
                allowed = allowed or all(conforms(v, element_type) for v in value)
            if not allowed:
                message = (
                    f"type mismatch for a fragment of {key}: expected {element_type}, got {describe(value)}"
                )
                self.error(fragment.span, f"{message} ({fragment.where()})", "type-mismatch")
                continue
            result.append((fragment, value))
        return result

    def _duplicate(self, first: Entry, again: Entry) -> None:
        message = f'duplicate key "{again.key.name}" in multibind "{again.multibind_id}" ({again.where()})'
        notes = [
            Note(first.span, f"the first fragment with this key ({first.where()}) is here"),
            Note(None, "to merge the values, give the multibind a combinator"),
        ]
        self.error(again.span, message, "duplicate-fragment-key", notes)

    def _check_fragments(self) -> None:
        for ident, fragments in self.fragments.items():
            if ident in self.known_ids:
                continue
            for fragment in fragments:
                message = f'no multibind has the id "{ident}" ({fragment.where()})'
                self.error(fragment.span, message, "unknown-multibind")

    def _check_multibind_ids(self) -> None:
        owners: dict[str, Resolved] = {}
        for resolved in self.resolved.values():
            if resolved is None or resolved.entry.kind != "multibind":
                continue
            ident = str(resolved.entry.multibind_id)
            first = owners.setdefault(ident, resolved)
            if first is not resolved:
                entry = resolved.entry
                message = f'the multibind id "{ident}" is used by {first.entry.key} and {entry.key}'
                message += f" ({entry.where()})"
                note = Note(first.entry.span, f"the multibind {first.entry.key} is here")
                self.error(entry.span, message, "duplicate-multibind-id", [note])

    def _erased(self) -> set[Key]:
        erased = set()
        for resolved in self.resolved.values():
            if resolved is None or resolved.entry.kind != "renamed":
                continue
            source = resolved.entry.source
            group = self.applicable.get(source) if source is not None else None
            if source is not None and group and resolved.entry.position <= group[0].position:
                erased.add(source)
        return erased


def _sort_key(entry: Entry) -> tuple[int, int, int]:
    return entry.sort_key


def _next_weaker(group: list[Entry], index: int) -> int | None:
    position = group[index].position
    for below in range(index + 1, len(group)):
        if group[below].position > position:
            return below
    return None


def _option(element: ModelObject, name: str) -> ModelObject | None:
    for option in element.options:
        if option.name == name:
            return option.value
    return None


def _layer_and_category(entry: Entry) -> str:
    return f'layer "{entry.layer_name}", {entry.category()}'


# ============================================================================================
# The injector
# ============================================================================================


class Injector:
    """Looks up effective bindings. Values are shared: treat them as read-only."""

    def __init__(self, composer: _Composer, erased: set[Key]) -> None:
        self._composer = composer
        self._values: dict[Key, Value] = {}
        self._lazy: dict[Key, Callable[[], Value]] = {}
        self._specs: dict[str, TypeSpec] = {}
        for key, resolved in composer.resolved.items():
            if resolved is None or key in erased:
                continue
            if resolved.lazy is not None:
                self._lazy[key] = resolved.lazy
            else:
                self._values[key] = resolved.value
        self._values[Key("Data", "/classes")] = _classes(composer.classes)

    def lookup(self, type_or_name: str, name: str | None = None, *, default: Value = _MISSING) -> Value:
        """``lookup(name)`` (any Data type) or ``lookup(type, name)``; ``default`` if not bound.

        Raises:
            CfEvaluationError: ``not-bound`` (and no default), or ``type-mismatch``.
        """
        if name is None:
            value = self._values.get(("Data", type_or_name), _MISSING)  # type: ignore[call-overload]  # Key == tuple
            if value is _MISSING:
                return self._slow_lookup(Key("Data", type_or_name), None, default)
            return value
        spec = self._spec(type_or_name)
        return self._slow_lookup(key_of(spec, name), spec, default)

    def _slow_lookup(self, key: Key, spec: TypeSpec | None, default: Value) -> Value:
        value = self._values.get(key, _MISSING)
        if value is _MISSING and key in self._lazy:
            value = self._lazy[key]()
        if value is _MISSING or value is None:
            if default is not _MISSING:
                return default
            raise CfEvaluationError(f"no binding for {key}", None, "not-bound")
        if spec is not None and spec.is_data and not conforms(value, spec):
            raise CfEvaluationError(f"{key} is {describe(value)}, not {spec}", None, "type-mismatch")
        return value

    def _spec(self, text: str) -> TypeSpec:
        spec = self._specs.get(text)
        if spec is None:
            spec = self._specs[text] = parse_type(text)
        return spec

    def __contains__(self, name: str) -> bool:
        key = Key("Data", name)
        return key in self._values or key in self._lazy

    def classes(self) -> list[str]:
        """The included classes (``inject('/classes')``): includes minus weaker excludes."""
        return list(self._values[Key("Data", "/classes")])

    def parameters(self, target: str) -> dict[str, Value]:
        """The literal parameter values bound for a class (``ntp``) or type/instance (``Web[one]``)."""
        spec = parse_type(target) if target[:1].isupper() else TypeSpec("Class", (), target)
        prefix = f"/param/{_encode(str(spec))}/"
        return {k.name[len(prefix) :]: v for k, v in self._values.items() if k.name.startswith(prefix)}

    def parameter_sources(self, target: str) -> list[ParameterSource]:
        """Instances bound as parameter producers of ``target``, with the effective map."""
        prefix = f"/params/{_encode(target)}/"
        sources = [v for k, v in self._values.items() if k.name.startswith(prefix) and v is not None]
        return [self._with_map(s) for s in sources]

    def _with_map(self, source: ParameterSource) -> ParameterSource:
        if source.map is not None or not isinstance(source.source, TypeValue):
            return source
        target_type = parse_type(source.target.replace("%5B", "[").replace("%5D", "]")).name
        mapping = self._values.get(Key("ParameterMap", f"/map/{target_type}/{source.source.type.name}"))
        return ParameterSource(source.target, source.source, mapping, source.optional)

    def variable(self, name: str, *, default: Value = _MISSING) -> Value:
        """A bound top scope variable (``bind variables to { name => ... }``)."""
        return self.lookup(f"/var/{name}", default=default)

    def explain(self, type_or_name: str, name: str | None = None) -> Explanation:
        """Provenance of a key: layers and categories consulted, winner, shadowed, merges."""
        key = Key("Data", type_or_name) if name is None else key_of(self._spec(type_or_name), name)
        return _explain(self._composer, key, self._values.get(key, _MISSING))


def _classes(entries: list[Entry]) -> list[str]:
    """Includes (strongest first) minus excludes of the same or a higher precedence."""
    excluded: dict[str, tuple[int, int]] = {}
    for entry in entries:
        if entry.kind == "exclude":
            excluded.setdefault(entry.key.name, entry.position)
    result: list[str] = []
    for entry in entries:
        name = entry.key.name
        if (
            entry.kind == "include"
            and name not in result
            and entry.position < excluded.get(name, (1 << 62, 0))
        ):
            result.append(name)
    return result


# ============================================================================================
# Explanations
# ============================================================================================


@dataclass(frozen=True, slots=True)
class Candidate:
    """A binding consulted for a key, and what became of it."""

    status: str  # winner, shadowed, not applicable
    where: str
    span: Span | None
    kind: str
    value: str


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

    @property
    def winner(self) -> Candidate | None:
        return next((c for c in self.candidates if c.status == "winner"), None)

    def render(self) -> str:
        lines = [f"{self.key} = {self.value}" if self.value is not None else f"{self.key} is not bound"]
        lines.append("  layers consulted: " + ", ".join(self.layers))
        cats = ", ".join(f"{n}={v}" if v is not None else f"{n} (n/a)" for n, v in self.categories)
        lines.append("  categories consulted: " + cats)
        for c in self.candidates:
            where = f"{c.span.start()} " if c.span is not None else ""
            lines.append(f"  {c.status}: {where}{c.kind} {c.value} ({c.where})")
        for step in self.merge_steps:
            where = f"{step.span.start()} " if step.span is not None else ""
            lines.append(f"  merged: {where}{step.contribution} -> {step.result} ({step.where})")
        return "\n".join(lines)


def _explain(composer: _Composer, key: Key, value: Value) -> Explanation:
    resolved = composer.resolved.get(key)
    entries = sorted(composer.groups.get(key, []), key=_sort_key)
    candidates = tuple(_candidate(composer, e, resolved) for e in entries)
    steps: list[MergeStep] = []
    if resolved is not None and resolved.entry.kind == "multibind":
        steps = _merge_steps(composer, key, resolved.entry)
    return Explanation(
        str(key),
        show(value) if value is not _MISSING else None,
        tuple(layer.name for layer in composer.layers),
        tuple((c.name, c.value) for c in composer.categories.values()),
        candidates,
        tuple(steps),
    )


def _candidate(composer: _Composer, entry: Entry, resolved: Resolved | None) -> Candidate:
    if not entry.applicable:
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
        text = show(composer._produce(entry)) if entry.applicable else "-"
    return Candidate(status, entry.where(), entry.span, entry.kind, text)


def _merge_steps(composer: _Composer, key: Key, entry: Entry) -> list[MergeStep]:
    spec = entry.declared or TypeSpec("Array")
    combinator = composer._combinator(entry, spec.name) or "append"
    fragments = composer._fragment_values(key, entry, spec)
    steps: list[MergeStep] = []
    for count in range(1, len(fragments) + 1):
        fragment, contribution = fragments[count - 1]
        partial = combine(spec.name, fragments[:count], combinator, composer.facts, None, lambda a, b: None)
        steps.append(MergeStep(fragment.where(), fragment.span, show(contribution), show(partial)))
    return steps


# ============================================================================================
# Values and types
# ============================================================================================


def parse_type(text: str) -> TypeSpec:
    """Parse a type written as in the language: ``Array[String]``, ``Type[X]``, ``class ntp``."""
    spec, rest = _parse_type(text.strip())
    if rest.strip():
        raise CfEvaluationError(f"cannot read the type {text!r}", None, "type-syntax")
    return spec


def _parse_type(text: str) -> tuple[TypeSpec, str]:
    if text.startswith("class "):
        return TypeSpec("Class", (), text[6:].strip()), ""
    match = re.match(r"\s*([A-Za-z_:][\w:]*)\s*", text)
    if match is None:
        raise CfEvaluationError(f"cannot read the type {text!r}", None, "type-syntax")
    name, rest = match.group(1), text[match.end() :]
    if not rest.startswith("["):
        return TypeSpec(name), rest
    args: list[TypeSpec] = []
    title = None
    rest = rest[1:]
    while True:
        if rest.lstrip()[:1].isupper():
            arg, rest = _parse_type(rest.lstrip())
            args.append(arg)
        else:
            word = re.match(r"\s*([^,\]]+)", rest)
            title = word.group(1).strip().strip("'\"") if word else ""
            rest = rest[word.end() :] if word else rest
        rest = rest.lstrip()
        if rest.startswith(","):
            rest = rest[1:]
            continue
        return TypeSpec(name, tuple(args), title), rest[1:]


def conforms(value: Value, spec: TypeSpec) -> bool:
    """Whether ``value`` is an instance of the type ``spec``."""
    check = _CHECKS.get(spec.name)
    if check is None:
        return isinstance(value, TypeValue | ParameterSource)
    return check(value, spec)


def _is_scalar(value: Value) -> bool:
    return isinstance(value, str | int | float)


def _is_data(value: Value) -> bool:
    if value is None or _is_scalar(value):
        return True
    if isinstance(value, list):
        return all(_is_data(v) for v in value)
    if isinstance(value, dict):
        return all(_is_scalar(k) and _is_data(v) for k, v in value.items())
    return False


def _check_array(value: Value, spec: TypeSpec) -> bool:
    element = spec.args[0] if spec.args else TypeSpec("Data")
    return isinstance(value, list) and all(conforms(v, element) for v in value)


def _check_hash(value: Value, spec: TypeSpec) -> bool:
    if not isinstance(value, dict):
        return False
    key_type = spec.args[0] if len(spec.args) == 2 else TypeSpec("Literal")
    value_type = spec.args[-1] if spec.args else TypeSpec("Data")
    return all(conforms(k, key_type) and conforms(v, value_type) for k, v in value.items())


_CHECKS: dict[str, Callable[[Value, TypeSpec], bool]] = {
    "Any": lambda v, s: True,
    "Undef": lambda v, s: v is None,
    "Data": lambda v, s: _is_data(v),
    "Literal": lambda v, s: _is_scalar(v),
    "Scalar": lambda v, s: _is_scalar(v),
    "Boolean": lambda v, s: isinstance(v, bool),
    "Integer": lambda v, s: isinstance(v, int) and not isinstance(v, bool),
    "Float": lambda v, s: isinstance(v, float),
    "Number": lambda v, s: isinstance(v, int | float) and not isinstance(v, bool),
    "String": lambda v, s: isinstance(v, str),
    "Pattern": lambda v, s: isinstance(v, str),
    "Array": _check_array,
    "Hash": _check_hash,
    "Type": lambda v, s: isinstance(v, TypeValue),
    "Class": lambda v, s: isinstance(v, TypeValue) and v.type.name == "Class",
}


def type_name(value: Value) -> str:
    """The most specific type name of a value (for messages)."""
    if value is None:
        return "Undef"
    if isinstance(value, bool):
        return "Boolean"
    names = {int: "Integer", float: "Float", str: "String", list: "Array", dict: "Hash"}
    return names.get(type(value), "Type" if isinstance(value, TypeValue) else type(value).__name__)


def describe(value: Value) -> str:
    return f"{type_name(value)} {show(value)}"


def show(value: Value) -> str:
    """A value in the language's notation: ``'a'``, ``[1, 2]``, ``{'k' => true}``."""
    if value is None:
        return "undef"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show(k)} => {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, LambdaValue):
        return "|" + ", ".join("$" + p for p in value.parameters) + "| { ... }"
    return str(value)


# ============================================================================================
# Expressions
# ============================================================================================


class ExpressionError(Exception):
    """An expression cannot be evaluated; ``element`` is the expression at fault."""

    def __init__(self, message: str, element: ModelObject) -> None:
        super().__init__(message)
        self.message = message
        self.element = element


def evaluate(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    """The value of an expression; variables (and facts: ``$::fqdn``) come from ``variables``."""
    return _EVALUATORS[_kind(expr)](expr, variables)


def _text(value: Value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else show(value)


def _eval_call(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    name = str(expr.function)
    function = FUNCTIONS.get(name)
    if function is None:
        raise ExpressionError(f'unknown function "{name}" (known: {", ".join(sorted(FUNCTIONS))})', expr)
    args = [evaluate(a, variables) for a in expr.args]
    try:
        return function(*args)
    except (TypeError, ValueError, AttributeError) as err:
        raise ExpressionError(f"{name}() cannot take {', '.join(describe(a) for a in args)}", expr) from err


def _eval_binary(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    left, right, op = evaluate(expr.left, variables), evaluate(expr.right, variables), str(expr.op)
    if op == "==":
        return bool(left == right)
    if op == "!=":
        return bool(left != right)
    try:
        return _add(left, right) if op == "+" else _subtract(left, right)
    except TypeError as err:
        message = f"cannot compute {describe(left)} {op} {describe(right)}"
        raise ExpressionError(message, expr) from err


def _add(left: Value, right: Value) -> Value:
    if isinstance(left, list):
        return left + right if isinstance(right, list) else [*left, right]
    if isinstance(left, dict) and isinstance(right, dict):
        return {**left, **right}
    if isinstance(left, bool) or isinstance(right, bool) or left is None or right is None:
        raise TypeError("not addable")
    return left + right


def _subtract(left: Value, right: Value) -> Value:
    removed: Any = right if isinstance(right, list | dict) else [right]
    if isinstance(left, list):
        return [v for v in left if v not in removed]
    if isinstance(left, dict):
        return {k: v for k, v in left.items() if k not in removed}
    if isinstance(left, bool) or isinstance(right, bool) or isinstance(left, str):
        raise TypeError("not subtractable")
    return left - right


def _truthy(value: Value) -> bool:
    """Puppet truth: only ``undef`` and ``false`` are false."""
    return value is not None and value is not False


def _eval_conditional(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    holds = _truthy(evaluate(expr.condition, variables)) != bool(expr.unless)
    if holds:
        return evaluate(expr.then, variables)
    return evaluate(expr.otherwise, variables) if expr.otherwise is not None else None


def _eval_hash(expr: ModelObject, variables: Mapping[str, Value]) -> Value:
    result: dict[Value, Value] = {}
    for entry in expr.entries:
        key = evaluate(entry.key, variables)
        if not _is_scalar(key):
            raise ExpressionError(
                f"a hash key must be a String, Number or Boolean, not {describe(key)}", entry.key
            )
        result[key] = evaluate(entry.value, variables)
    return result


_EVALUATORS: dict[str, Callable[[ModelObject, Mapping[str, Value]], Value]] = {
    "StringLiteral": lambda e, v: str(e.value),
    "IntegerLiteral": lambda e, v: int(e.value),
    "FloatLiteral": lambda e, v: float(e.value),
    "BooleanLiteral": lambda e, v: bool(e.value),
    "UndefLiteral": lambda e, v: None,
    "InterpolatedString": lambda e, v: "".join(_text(evaluate(p, v)) for p in e.parts),
    "ArrayLiteral": lambda e, v: [evaluate(i, v) for i in e.items],
    "HashLiteral": _eval_hash,
    "VariableRef": lambda e, v: v.get(str(e.name)),
    "Call": _eval_call,
    "BinaryOp": _eval_binary,
    "NotOp": lambda e, v: not _truthy(evaluate(e.operand, v)),
    "Conditional": _eval_conditional,
    "Lambda": lambda e, v: LambdaValue(tuple(str(p) for p in e.parameters), e.body),
}


def call_lambda(function: LambdaValue, args: Sequence[Value], facts: Mapping[str, Value]) -> Value:
    """Call a lambda: its parameters shadow the facts."""
    if len(args) != len(function.parameters):
        wanted = len(function.parameters)
        message = f"the combinator takes {wanted} parameter{'s' if wanted != 1 else ''}, {len(args)} given"
        raise ExpressionError(message, function.body)
    scope = ChainMap(dict(zip(function.parameters, args, strict=True)), dict(facts))
    return evaluate(function.body, scope)


def _flatten(value: Value) -> list[Value]:
    if not isinstance(value, list):
        return [value]
    return [item for v in value for item in _flatten(v)]


def _unique(value: list[Value]) -> list[Value]:
    result: list[Value] = []
    for item in value:
        if item not in result:
            result.append(item)
    return result


def deep_merge(lower: Value, higher: Value, knockout: str | None = None) -> Value:
    """Hiera's deep merge: hashes merge recursively, arrays union (higher first), else higher wins.

    With a knockout prefix, a higher key ``'--k'`` removes ``k`` and an array item ``'--x'``
    removes ``x`` from the lower value.
    """
    if isinstance(lower, dict) and isinstance(higher, dict):
        merged = dict(lower)
        for key, value in higher.items():
            if knockout and isinstance(key, str) and key.startswith(knockout):
                merged.pop(key[len(knockout) :], None)
            else:
                merged[key] = deep_merge(merged[key], value, knockout) if key in merged else value
        return merged
    if isinstance(lower, list) and isinstance(higher, list):
        knocked = {
            v[len(knockout) :] for v in higher if knockout and isinstance(v, str) and v.startswith(knockout)
        }
        kept = [v for v in higher if not (knockout and isinstance(v, str) and v.startswith(knockout))]
        return _unique(kept + [v for v in lower if v not in knocked])
    return higher


FUNCTIONS: dict[str, Callable[..., Value]] = {
    "flatten": _flatten,
    "unique": _unique,
    "merge": lambda *hashes: {k: v for h in hashes for k, v in h.items()},
    "deep_merge": lambda a, b, prefix=None: deep_merge(a, b, prefix),
    "keys": lambda h: list(h.keys()),
    "values": lambda h: list(h.values()),
    "length": len,
    "size": len,
    "sort": sorted,
    "join": lambda a, sep="": sep.join(_text(v) for v in a),
    "upcase": lambda s: s.upper(),
    "downcase": lambda s: s.lower(),
    "has_key": lambda h, k: k in h,
}


# ============================================================================================
# Combinators
# ============================================================================================


def combine(
    kind: str,
    fragments: Sequence[tuple[Entry, Value]],
    combinator: str | LambdaValue,
    facts: Mapping[str, Value],
    knockout: str | None,
    on_duplicate: Callable[[Entry, Entry], None],
) -> Value:
    """Fold the fragments (strongest first) into an Array or a Hash."""
    if kind == "Array":
        return _combine_array([v for _, v in fragments], combinator, facts)
    return _combine_hash(fragments, combinator, facts, knockout, on_duplicate)


def _combine_array(values: list[Value], combinator: str | LambdaValue, facts: Mapping[str, Value]) -> Value:
    if isinstance(combinator, LambdaValue):
        memo: Value = []
        for value in values:
            memo = call_lambda(combinator, [memo, value], facts)
        return memo
    result: list[Value] = []
    for value in values:
        result.extend(value if isinstance(value, list) else [value])
    if combinator == "flatten":
        return _flatten(result)
    if combinator == "unique":
        return _unique(result)
    return result


def _combine_hash(
    fragments: Sequence[tuple[Entry, Value]],
    combinator: str | LambdaValue,
    facts: Mapping[str, Value],
    knockout: str | None,
    on_duplicate: Callable[[Entry, Entry], None],
) -> Value:
    result: dict[str, Value] = {}
    owners: dict[str, Entry] = {}
    for entry, value in fragments:
        name = entry.key.name
        if isinstance(combinator, LambdaValue):
            result[name] = call_lambda(combinator, [name, result.get(name), value], facts)
        elif name not in result:
            result[name] = value
        elif combinator == "error":
            on_duplicate(owners[name], entry)
        elif combinator == "merge" and isinstance(value, dict) and isinstance(result[name], dict):
            result[name] = {**value, **result[name]}
        elif combinator == "deep_merge":
            result[name] = deep_merge(value, result[name], knockout)
        owners.setdefault(name, entry)
    return result
