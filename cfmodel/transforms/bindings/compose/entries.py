"""Entries: every bind operation of the layers' ``NamedBindings``, flattened per condition.

Two steps. ``flatten(named, spans)`` turns one ``NamedBindings`` into its ``FlatBindings``,
which depends on nothing but the model: a ``when`` predicate is turned into its disjunctive
normal form (each ``and``-ed conjunction is a context: the ``(category, value)`` tests around
an operation; ``or`` gives one context per branch), and every bind operation into the
``Template`` of each entry it makes (``bind parameters X to {...}`` and ``bind variables to
{...}`` one per name: ``/param/<target>/<name>``, ``/var/<name>``; ``include``/``exclude`` one
per class) or the problem that makes it invalid. Parsing flattens nothing: ``flat_of``
flattens a ``NamedBindings`` the first time it is collected (a parsed one keeps it, ``_flat``).

``Collector.collect(layers)`` then makes the ``Entry`` objects for a site and its layers:
each context ranked by the site's categories (conditions sorted highest category first,
precedence score, validity), memoized per context; one entry per template and context.

Error codes: ``unknown-category``, ``invalid-binding``, ``reserved-name``, ``expression-error``
(a parameter or variable name that cannot be evaluated).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from cfmodel.errors import CfEvaluationError, Diagnostics, Span
from cfmodel.metamodel.bindings import ModelObject, SpanTable, kind_of
from cfmodel.metamodel.runtime.plain import PlainObject
from cfmodel.transforms.bindings.compose.categories import CategoryOrder, category_text
from cfmodel.transforms.bindings.compose.expressions import ExpressionError, evaluate
from cfmodel.transforms.bindings.compose.options import LayerInput, NestingRule
from cfmodel.transforms.bindings.compose.values import Key, TypeSpec, encode_target, key_of


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


# --- the flat form of one NamedBindings: independent of facts, of the site and of the layer --------

#: A ``when`` context: the ``(category, value text)`` of every category test around a bind
#: operation, outermost first (value None: the test can never hold, e.g. ``""``).
Tests = tuple[tuple[str, str | None], ...]


class Template(NamedTuple):
    """One entry of a bind operation, before its layer and its categories' ranks are known."""

    key: Key
    kind: str
    element: ModelObject
    span: Span | None
    abstract: bool = False
    override: bool = False
    final: bool = False
    optional: bool = False
    declared: TypeSpec | None = None
    value_expr: ModelObject | None = None
    producer: ModelObject | None = None
    multibind_id: str | None = None
    source: Key | None = None


class Operation(NamedTuple):
    """A bind operation: its entries (one set per context of its group), or the problem that
    makes it invalid (span, message, code; the message is completed with where it is)."""

    group: int
    templates: tuple[Template, ...]
    problem: tuple[Span | None, str, str] | None = None


@dataclass(frozen=True, slots=True)
class FlatBindings:
    """A ``NamedBindings`` flattened: what ``Collector`` needs, without walking the model.

    ``tests``: every category test (the test, its span, its category), to check against the
    site's categories; ``groups``: the distinct lists of contexts bind operations live in
    (``when a or b`` gives two contexts; group 0 is the top level); ``operations``: the bind
    operations in declaration order.
    """

    name: str
    tests: tuple[tuple[ModelObject, Span | None, str], ...]
    groups: tuple[tuple[Tests, ...], ...]
    operations: tuple[Operation, ...]


def flatten(named: ModelObject, spans: SpanTable) -> FlatBindings:
    """The flat form of a ``NamedBindings`` (plain or PyEcore objects)."""
    return _Flattener(spans).run(named)


def flat_of(named: ModelObject, spans: SpanTable) -> FlatBindings:
    """The flat form of ``named``, made on first use; a parsed model keeps it (``_flat``).

    Parsing evaluates nothing: a ``NamedBindings`` the parser made (a plain object) is
    flattened the first time a composition collects it and keeps the result, so that the
    next composition over the same parsed file does not walk it again. A model built in
    code (PyEcore objects) is flattened each time it is collected.
    """
    found = getattr(named, "_flat", None)
    if isinstance(found, FlatBindings):
        return found
    flat = flatten(named, spans)
    if isinstance(named, PlainObject):
        setattr(named, "_flat", flat)  # noqa: B010 - a slot of the NamedBindings plain class only
    return flat


class _Flattener:
    def __init__(self, spans: SpanTable) -> None:
        self.spans = spans
        self.tests: dict[int, tuple[ModelObject, Span | None, str]] = {}
        self.texts: dict[int, tuple[str, str | None]] = {}
        self.groups: dict[tuple[Tests, ...], int] = {((),): 0}
        self.operations: list[Operation] = []

    def run(self, named: ModelObject) -> FlatBindings:
        self.walk(named.elements, ((),), 0)
        return FlatBindings(
            str(named.name), tuple(self.tests.values()), tuple(self.groups), tuple(self.operations)
        )

    def walk(self, elements: Iterable[ModelObject], contexts: tuple[Tests, ...], group: int) -> None:
        append = self.operations.append
        for element in elements:
            kind = kind_of(element)
            if kind != "CategorizedBindings":
                append(_ADD[kind](self, element, group))
                continue
            predicate = element.predicate
            if kind_of(predicate) == "CategoryTest":  # the common case: `when <category> <value>`
                conjunctions: list[Tests] = [(self.test(predicate),)]
            else:
                conjunctions = [tuple(self.test(t) for t in conj) for conj in _dnf(predicate)]
            inner = tuple(ctx + conj for ctx in contexts for conj in conjunctions)
            self.walk(element.elements, inner, self.groups.setdefault(inner, len(self.groups)))

    def test(self, test: ModelObject) -> tuple[str, str | None]:
        """A category test's category and value text (read once per test element)."""
        found = self.texts.get(id(test))
        if found is None:
            found = self.texts[id(test)] = (str(test.category), _test_value(test))
            self.tests[id(test)] = (test, self.spans.get(test), found[0])
        return found

    def template(
        self, element: ModelObject, key: Key, kind: str, at: ModelObject | None = None, **extra: Any
    ) -> Template:
        span = self.spans.get(element)
        if at is not None:
            span = self.spans.get(at) or span
        return Template(key, kind, element, span, **extra)

    def problem(
        self, element: ModelObject, group: int, message: str, code: str, at: ModelObject | None = None
    ) -> Operation:
        span = self.spans.get(at) if at is not None else None
        return Operation(group, (), (span or self.spans.get(element), message, code))

    def _flags(self, element: ModelObject) -> dict[str, Any]:
        return {"abstract": element.abstract, "override": element.override, "final": element.final}

    def add_Binding(self, element: ModelObject, group: int) -> Operation:  # noqa: N802 - EClass name
        key_obj, producer, abstract, ident = (
            element.key,
            element.producer,
            element.abstract,
            element.multibindId,
        )
        if key_obj is not None:
            type_ref = key_obj.type
            declared = type_spec(type_ref) if type_ref is not None else None
            name = str(key_obj.name)
        else:
            declared, name = None, ""
        problem = _binding_problem(abstract, producer is not None, key_obj is not None, bool(ident), name)
        if problem is not None:
            code = "reserved-name" if name.startswith("/") else "invalid-binding"
            return self.problem(element, group, problem, code)
        key = Key("Data", name) if declared is None else key_of(declared, name)
        made = Template(
            key, "fragment" if ident else "bind", element, self.spans.get(element), abstract,
            element.override, element.final, element.optional, declared, None, producer, ident,
        )  # fmt: skip
        return Operation(group, (made,))

    def add_Multibinding(self, element: ModelObject, group: int) -> Operation:  # noqa: N802
        declared = type_spec(element.key.type)
        key = key_of(declared, str(element.key.name))
        ident = str(element.multibindId)
        made = self.template(
            element, key, "multibind", declared=declared, multibind_id=ident, **self._flags(element)
        )
        return Operation(group, (made,))

    def add_Rebinding(self, element: ModelObject, group: int) -> Operation:  # noqa: N802
        source = _key_from(element.source)
        kind = str(element.kind)
        target = _key_from(element.target) if kind != "rebind" else source
        declared = type_spec(element.target.type) if kind != "rebind" else None
        made = self.template(element, target, kind, source=source, declared=declared, **self._flags(element))
        return Operation(group, (made,))

    def add_ClassesBinding(self, element: ModelObject, group: int) -> Operation:  # noqa: N802
        kind = "exclude" if element.exclude else "include"
        return Operation(
            group, tuple(self.template(element, Key("Class", str(n)), kind) for n in element.classes)
        )

    def add_ParametersBinding(self, element: ModelObject, group: int) -> Operation:  # noqa: N802
        target = type_spec(element.target)
        assert target is not None  # the grammar always gives a target
        producer = element.producer
        value = producer.value if kind_of(producer) == "ConstantProducer" else None
        flags = self._flags(element)
        if value is not None and kind_of(value) == "HashLiteral":
            made = []
            for entry in value.entries:
                try:
                    name = _name_text(entry.key)
                except ExpressionError as err:
                    return self.problem(element, group, err.message, "expression-error", err.element)
                key = Key("Data", f"/param/{encode_target(target)}/{name}")
                made.append(self.template(element, key, "bind", entry, value_expr=entry.value, **flags))
            return Operation(group, tuple(made))
        source = type_spec(producer.type) if kind_of(producer) != "ConstantProducer" else None
        source_name = source.name if source is not None else "value"
        key = Key("ParameterSource", f"/params/{encode_target(target)}/{source_name}")
        optional = element.optional
        made_one = self.template(element, key, "param-source", producer=producer, optional=optional, **flags)
        return Operation(group, (made_one,))

    def add_ParameterMapBinding(self, element: ModelObject, group: int) -> Operation:  # noqa: N802
        source, target = type_spec(element.source), type_spec(element.target)
        key = Key("ParameterMap", f"/map/{source}/{target}")
        return Operation(
            group, (self.template(element, key, "bind", value_expr=element.map, **self._flags(element)),)
        )

    def add_VariablesBinding(self, element: ModelObject, group: int) -> Operation:  # noqa: N802
        declared = type_spec(element.type) or (TypeSpec("Any") if element.abstract else None)
        value: Any = element.producer.value if kind_of(element.producer) == "ConstantProducer" else None
        kind = kind_of(value) if value is not None else ""
        flags = self._flags(element)
        made = []
        try:
            if element.abstract and kind in ("ArrayLiteral", "StringLiteral"):
                for item in value.items if kind == "ArrayLiteral" else [value]:
                    key = Key("Data", f"/var/{_name_text(item)}")
                    made.append(self.template(element, key, "bind", item, declared=declared, **flags))
                return Operation(group, tuple(made))
            if not element.abstract and kind == "HashLiteral":
                for entry in value.entries:
                    key = Key("Data", f"/var/{_name_text(entry.key)}")
                    extra = {"declared": declared, "value_expr": entry.value, **flags}
                    made.append(self.template(element, key, "bind", entry, **extra))
                return Operation(group, tuple(made))
        except ExpressionError as err:
            return self.problem(element, group, err.message, "expression-error", err.element)
        wanted = "an array of names" if element.abstract else "a hash of names to values"
        return self.problem(element, group, f"variables must be bound to {wanted}", "invalid-binding")


#: The flattening of each kind of bind operation, by EClass name.
_ADD = {
    name.removeprefix("add_"): method for name, method in vars(_Flattener).items() if name.startswith("add_")
}


def _name_text(expr: ModelObject) -> str:
    """A parameter or variable name given as an expression (evaluated without facts)."""
    return str(category_text(evaluate(expr, {})))


# --- entries for a site and layers ----------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Context:
    """A ``when`` context ranked by the site's categories; ``condition`` is interned on first use."""

    conditions: tuple[tuple[str, str], ...]
    score: int
    valid: bool
    condition: int | None = None


class Collector:
    """Turns the layers' bindings into entries (through their flat forms)."""

    def __init__(
        self, categories: CategoryOrder, spans: SpanTable, diags: Diagnostics, nesting: NestingRule
    ) -> None:
        self.categories, self.spans, self.diags, self.nesting = categories, spans, diags, nesting
        self.entries: list[Entry] = []
        #: ``conditions[i]``: the tests of the entries whose ``condition`` is ``i``
        self.conditions: dict[tuple[tuple[str, str], ...], int] = {}
        self._reported: set[int] = set()
        self._ranked: dict[Tests, _Context] = {}
        self._groups: dict[tuple[Tests, ...], list[_Context]] = {}

    def collect(self, layers: Sequence[LayerInput]) -> list[Entry]:
        for index, layer in enumerate(layers):
            for named in layer.bindings:
                self.add(flat_of(named, self.spans), index, layer.name)
        return self.entries

    def add(self, flat: FlatBindings, layer: int, layer_name: str) -> None:
        origin = flat.name
        ranks = self.categories.ranks
        for test, span, name in flat.tests:
            if (name not in ranks or name == "common") and id(test) not in self._reported:
                self._reported.add(id(test))
                known = ", ".join(n for n in self.categories.names if n != "common")
                where = f'bindings {origin}, layer "{layer_name}"'
                message = f'unknown category "{name}" ({where}; the categories are: {known})'
                self.diags.error(span, message, "unknown-category")
        contexts = [self.group(g) for g in flat.groups]
        entries = self.entries
        append = entries.append
        interned = self.conditions
        for operation in flat.operations:
            ctxs = contexts[operation.group]
            if operation.problem is not None:
                span, message, code = operation.problem
                for ctx in ctxs:
                    where = f'bindings {origin}, layer "{layer_name}", {category_words(ctx.conditions)}'
                    self.diags.error(span, f"{message} ({where})", code)
                continue
            if not operation.templates:
                continue
            for ctx in ctxs:
                conditions, score, valid, condition = ctx.conditions, ctx.score, ctx.valid, ctx.condition
                if condition is None:
                    condition = ctx.condition = (
                        interned.setdefault(conditions, len(interned)) if valid else -1
                    )
                for t in operation.templates:
                    made = Entry(
                        t.key, t.kind, t.element, origin, layer, layer_name, conditions, score, len(entries),
                        t.span, valid, t.abstract, t.override, t.final, t.optional, t.declared, t.value_expr,
                        t.producer, t.multibind_id, t.source, condition,
                    )  # fmt: skip
                    append(made)

    def group(self, group: tuple[Tests, ...]) -> list[_Context]:
        """The ranked contexts of a group; two with the same conditions and score count once
        (``when node 'a' or node 'a'`` must not bind twice at the same precedence)."""
        found = self._groups.get(group)
        if found is None:
            ranked = [self.rank(tests) for tests in group]
            found = self._groups[group] = _unique_contexts(ranked) if len(ranked) > 1 else ranked
        return found

    def rank(self, tests: Tests) -> _Context:
        """A context's conditions (highest category first), precedence score and validity."""
        found = self._ranked.get(tests)
        if found is not None:
            return found
        ranks = self.categories.ranks
        conditions: set[tuple[str, str]] = set()
        valid = True
        for name, value in tests:
            if name not in ranks or name == "common":
                valid = False
                continue
            conditions.add((name, value or ""))
            valid = valid and value is not None
        ranked = sorted(conditions, key=lambda item: (-ranks[item[0]], item[1]))
        made = self._ranked[tests] = _Context(tuple(ranked), self.score({ranks[n] for n, _ in ranked}), valid)
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
    seen: dict[tuple[tuple[tuple[str, str], ...], int], _Context] = {}
    for ctx in contexts:
        seen.setdefault((ctx.conditions, ctx.score), ctx)
    return list(seen.values())


def _test_value(test: ModelObject) -> str | None:
    """The value text a category test compares with (None: a value no category can have)."""
    value = test.value
    kind = kind_of(value)
    if kind == "StringLiteral":
        return str(value.value) or None
    if kind == "BooleanLiteral":
        return "true" if value.value else "false"
    return category_text(evaluate(value, {}))


def _predicate_text(predicate: ModelObject) -> str:
    """A ``when`` predicate as written: ``virtual true or node 'kermit' and rack 'r1'``."""
    kind = kind_of(predicate)
    if kind == "CategoryTest":
        value = predicate.value
        shown = f"'{value.value}'" if kind_of(value) == "StringLiteral" else _test_value(predicate)
        return f"{predicate.category} {shown}"
    joiner = " or " if kind == "AnyOf" else " and "
    return joiner.join(_predicate_text(p) for p in predicate.operands)


def or_branches(entry: Entry) -> list[str]:
    """Which branch of which ``when … or …`` an entry comes from, innermost first
    (``branch 2 of `when virtual true or node 'kermit'```); empty when it is in no ``or``."""
    said: list[str] = []
    held = set(entry.conditions)
    container = entry.element.eContainer()
    while container is not None and kind_of(container) == "CategorizedBindings":
        predicate = container.predicate
        if kind_of(predicate) == "AnyOf":
            branches = _dnf(predicate)
            for number, branch in enumerate(branches, 1):
                if all((str(t.category), _test_value(t)) in held for t in branch):
                    said.append(f"branch {number} of `when {_predicate_text(predicate)}`")
                    break
        container = container.eContainer()
    return said


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


def type_spec(ref: ModelObject | None) -> TypeSpec | None:
    """The ``TypeSpec`` of a ``TypeRef`` model object (None stays None)."""
    if ref is None:
        return None
    args = tuple(t for t in (type_spec(a) for a in ref.args) if t is not None)
    titles = (str(ref.title),) if ref.title is not None else tuple(str(t) for t in ref.titles)
    return TypeSpec(str(ref.name), args, titles)


def option_value(element: ModelObject, name: str) -> ModelObject | None:
    """The value expression of a binding's option (``{ name => value }``), if given."""
    for option in element.options:
        if option.name == name:
            return option.value
    return None


def produced_undef(key: Key, entry: Entry) -> CfEvaluationError:
    """ARM-8: a producer must produce a value unless its binding is ``optional``."""
    message = (
        f"{key} has no value: its binding produced undef ({entry.where()}); a binding must "
        "produce a value unless it is optional (bind ... to optional ...)"
    )
    return CfEvaluationError(message, entry.span, "produced-undef")
