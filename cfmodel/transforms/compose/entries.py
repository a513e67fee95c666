"""Entries: every bind operation of the layers' ``NamedBindings``, flattened per condition.

``Collector.collect(layers)`` walks the models once. A ``when`` predicate is turned into its
disjunctive normal form: each ``and``-ed conjunction becomes one ``Entry`` with the
conjunction's conditions (sorted highest category first) and its precedence score; ``or``
gives one entry per branch. ``bind parameters X to {...}`` and ``bind variables to {...}``
give one entry per name (``/param/<target>/<name>``, ``/var/<name>``); ``include``/``exclude``
one per class.

Error codes: ``unknown-category``, ``invalid-binding``, ``reserved-name``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cfmodel.errors import Diagnostics, Span
from cfmodel.metamodel.bindings import ModelObject, SpanTable, kind_of
from cfmodel.transforms.compose.categories import CategoryOrder, category_text
from cfmodel.transforms.compose.expressions import evaluate
from cfmodel.transforms.compose.options import LayerInput, NestingRule
from cfmodel.transforms.compose.values import Key, TypeSpec, key_of


@dataclass(slots=True, eq=False)
class Entry:
    """One binding under one conjunction of categories, in one layer (independent of facts).

    ``conditions`` are the ``(category, value)`` tests that must all hold (highest category
    first); ``valid`` is False when a test names an unknown category or an empty value (the
    entry never applies). ``position`` orders entries: smaller is stronger.
    """

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
    valid: bool
    abstract: bool = False
    override: bool = False
    final: bool = False
    optional: bool = False
    declared: TypeSpec | None = None
    value_expr: ModelObject | None = None
    producer: ModelObject | None = None
    multibind_id: str | None = None
    source: Key | None = None
    condition: int = -1  # the interned ``conditions`` (set by ``prepare``; -1: never applies)

    @property
    def position(self) -> tuple[int, int]:
        """Smaller is stronger: the layer first, then the category score."""
        return (self.layer, -self.score)

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (self.layer, -self.score, self.order)

    def category(self) -> str:
        return category_words(self.conditions)

    def where(self) -> str:
        return f'bindings {self.origin}, layer "{self.layer_name}", {self.category()}'


def sort_key(entry: Entry) -> tuple[int, int, int]:
    """Strongest first: layer, then category score, then declaration order."""
    return entry.sort_key


def category_words(conditions: tuple[tuple[str, str], ...]) -> str:
    if not conditions:
        return "category common"
    words = " and ".join(f'{name} "{value}"' for name, value in conditions)
    return ("category " if len(conditions) == 1 else "categories ") + words


@dataclass(frozen=True, slots=True)
class _Context:
    conditions: tuple[tuple[str, str], ...]
    score: int
    valid: bool


class Collector:
    """Walks ``NamedBindings`` and turns every bind operation into entries."""

    def __init__(
        self, categories: CategoryOrder, spans: SpanTable, diags: Diagnostics, nesting: NestingRule
    ) -> None:
        self.categories, self.spans, self.diags, self.nesting = categories, spans, diags, nesting
        self.entries: list[Entry] = []
        self.layer = 0
        self.layer_name = ""
        self.origin = ""
        self._reported: set[int] = set()
        self._tests: dict[int, tuple[str, str | None]] = {}
        self._refined: dict[tuple[int, tuple[tuple[str, str | None], ...]], _Context] = {}
        self._keep: list[_Context] = []

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
            if kind_of(element) == "CategorizedBindings":
                inner = [self.refine(ctx, conj) for ctx in contexts for conj in _dnf(element.predicate)]
                self.walk(element.elements, inner)
            else:
                add = getattr(self, f"add_{kind_of(element)}")
                for ctx in unique:
                    add(element, ctx)

    def refine(self, ctx: _Context, tests: list[ModelObject]) -> _Context:
        """The context of ``when <tests>`` inside ``ctx`` (memoized: blocks repeat conditions)."""
        ranks = self.categories.ranks
        texts = tuple(self._test(test) for test in tests)
        for test, (name, _) in zip(tests, texts, strict=True):
            if name not in ranks or name == "common":
                self._unknown_category(test, name)
        memo_key = (id(ctx), texts)
        found = self._refined.get(memo_key)
        if found is not None:
            return found
        conditions = set(ctx.conditions)
        valid = ctx.valid
        for name, value in texts:
            if name not in ranks or name == "common":
                valid = False
                continue
            conditions.add((name, value or ""))
            valid = valid and value is not None
        ranked = sorted(conditions, key=lambda item: (-ranks[item[0]], item[1]))
        made = _Context(tuple(ranked), self.score({ranks[n] for n, _ in ranked}), valid)
        self._refined[memo_key] = made
        self._keep.append(ctx)  # the memo is keyed by id(ctx): keep ctx alive
        return made

    def score(self, ranks: set[int]) -> int:
        """The precedence score of a conjunction: a bit per category rank.

        Comparing these integers compares the precedence vectors (the ranks, highest first)
        like section numbers, so "virtual and environment" (3.2) beats "virtual" (3) but
        not "node" (4). ``NestingRule.HIGHEST`` keeps the highest category's bit only.
        """
        if not ranks:
            return 0
        if self.nesting is NestingRule.HIGHEST:
            return 1 << max(ranks)
        return sum(1 << r for r in ranks)

    def _test(self, test: ModelObject) -> tuple[str, str | None]:
        """A category test's category and value text (read once per test element)."""
        found = self._tests.get(id(test))
        if found is None:
            value = test.value
            kind = kind_of(value)
            if kind == "StringLiteral":
                text = str(value.value) or None
            elif kind == "BooleanLiteral":
                text = "true" if value.value else "false"
            else:
                text = category_text(evaluate(value, {}))
            found = self._tests[id(test)] = (str(test.category), text)
        return found

    def _unknown_category(self, test: ModelObject, name: str) -> None:
        if id(test) in self._reported:
            return
        self._reported.add(id(test))
        known = ", ".join(n for n in self.categories.names if n != "common")
        where = f'bindings {self.origin}, layer "{self.layer_name}"'
        message = f'unknown category "{name}" ({where}; the categories are: {known})'
        self.diags.error(self.spans.get(test), message, "unknown-category")

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
            self.spans.get(element),
            ctx.valid,
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
            self.diags.error(self.spans.get(element), f"{problem} ({self.where(ctx)})", code)
            return
        self.entry(element, ctx, key_of(declared, name), "fragment" if ident else "bind", declared=declared,
                   producer=producer, multibind_id=ident, optional=element.optional, abstract=abstract,
                   override=element.override, final=element.final)  # fmt: skip

    def where(self, ctx: _Context) -> str:
        return f'bindings {self.origin}, layer "{self.layer_name}", {category_words(ctx.conditions)}'

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
        value = producer.value if kind_of(producer) == "ConstantProducer" else None
        if value is not None and kind_of(value) == "HashLiteral":
            for entry in value.entries:
                name = self._param_name(entry)
                key = Key("Data", f"/param/{encode(str(target))}/{name}")
                self._entry_at(entry, element, ctx, key, value_expr=entry.value, **self._flags(element))
            return
        source = type_spec(producer.type) if kind_of(producer) != "ConstantProducer" else None
        source_name = source.name if source is not None else "value"
        key = Key("ParameterSource", f"/params/{encode(str(target))}/{source_name}")
        self.entry(element, ctx, key, "param-source", producer=producer, optional=element.optional,
                   **self._flags(element))  # fmt: skip

    def _param_name(self, entry: ModelObject) -> str:
        return str(category_text(evaluate(entry.key, {})))

    def _entry_at(self, at: ModelObject, element: ModelObject, ctx: _Context, key: Key, **extra: Any) -> None:
        made = self.entry(element, ctx, key, "bind", **extra)
        made.span = self.spans.get(at) or made.span

    def add_ParameterMapBinding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802
        source, target = type_spec(element.source), type_spec(element.target)
        key = Key("ParameterMap", f"/map/{source}/{target}")
        self.entry(element, ctx, key, "bind", value_expr=element.map, **self._flags(element))

    def add_VariablesBinding(self, element: ModelObject, ctx: _Context) -> None:  # noqa: N802
        declared = type_spec(element.type) or (TypeSpec("Any") if element.abstract else None)
        value: Any = element.producer.value if kind_of(element.producer) == "ConstantProducer" else None
        kind = kind_of(value) if value is not None else ""
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
            self.diags.error(self.spans.get(element), message, "invalid-binding")


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


def _unique_contexts(contexts: list[_Context]) -> list[_Context]:
    """``when node 'a' or node 'a'`` must not bind twice at the same precedence."""
    seen: dict[tuple[tuple[tuple[str, str], ...], int], _Context] = {}
    for ctx in contexts:
        seen.setdefault((ctx.conditions, ctx.score), ctx)
    return list(seen.values())


def _dnf(predicate: ModelObject) -> list[list[ModelObject]]:
    """A predicate as a list of conjunctions of category tests (``or`` of ``and``)."""
    kind = kind_of(predicate)
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


def encode(name: str) -> str:
    """Instance names inside injector names are URL-encoded (``/``, ``[``, ``]``, ``%``)."""
    return name.replace("%", "%25").replace("/", "%2F").replace("[", "%5B").replace("]", "%5D")


def type_spec(ref: ModelObject | None) -> TypeSpec | None:
    """The ``TypeSpec`` of a ``TypeRef`` model object (None stays None)."""
    if ref is None:
        return None
    args = tuple(t for t in (type_spec(a) for a in ref.args) if t is not None)
    return TypeSpec(str(ref.name), args, ref.title)


def option_value(element: ModelObject, name: str) -> ModelObject | None:
    """The value expression of a binding's option (``{ name => value }``), if given."""
    for option in element.options:
        if option.name == name:
            return option.value
    return None
