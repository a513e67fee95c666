"""The composer: group the entries by key, check them, resolve every key's effective binding.

Precedence: a smaller ``Entry.position`` (layer index, minus the category score) is
stronger. For each key with applicable entries: two entries at the strongest position
conflict; ``override`` at the weakest position overrides nothing; ``final`` may not be
overridden by a higher layer. Resolution walks a key's entries strongest first: abstract is
an error, ``rebind`` takes the next weaker producer, ``alias``/``renamed`` take another key's,
a multibind folds its fragments, ``to optional`` that yields undef falls through.

Error codes: ``binding-conflict``, ``abstract-not-bound``, ``override-nothing``,
``final-overridden``, ``unknown-multibind``, ``duplicate-multibind-id``, ``not-a-collection``,
``fragment-without-name``, ``duplicate-fragment-key``, ``rebind-missing``, ``rebind-cycle``,
``type-mismatch``, ``unknown-combinator``, ``unknown-producer``, ``expression-error``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from cfmodel.errors import CfEvaluationError, Diagnostic, Diagnostics, Note, Severity, Span
from cfmodel.metamodel.bindings import kind_of
from cfmodel.transforms.bindings.compose.combinators import ARRAY_STRATEGIES, HASH_STRATEGIES, combine
from cfmodel.transforms.bindings.compose.entries import (
    Entry,
    option_value,
    or_branches,
    produced_undef,
    type_spec,
)
from cfmodel.transforms.bindings.compose.expressions import ExpressionError, evaluate
from cfmodel.transforms.bindings.compose.injector import Injector
from cfmodel.transforms.bindings.compose.values import (
    Key,
    LambdaValue,
    ParameterSource,
    ProducerFactory,
    TypeSpec,
    TypeValue,
    Value,
    conforms,
    describe,
    show,
)

if TYPE_CHECKING:
    from cfmodel.transforms.bindings.compose.prepare import PreparedBindings


@dataclass(frozen=True, slots=True)
class Resolved:
    """The effective binding of a key: the winning entry and its value (or lazy producer)."""

    entry: Entry
    value: Value
    lazy: Callable[[], Value] | None = None
    from_key: Key | None = None
    #: raised at each lookup of the key: the binding gave no value (``produced-undef``)
    failure: CfEvaluationError | None = None


class Composer:
    """Composes one request: category values, applicable entries, checks, resolution."""

    def __init__(self, prepared: PreparedBindings, facts: Mapping[str, Value]) -> None:
        self.prepared = prepared
        self.layer_names = prepared.layer_names
        self.spans, self.options, self.facts = prepared.spans, prepared.options, facts
        self.diags = Diagnostics()
        self.diags.extend(prepared.diagnostics)
        self.categories = prepared.categories.values(facts, self.spans, self.diags)
        values = {name: category.value for name, category in self.categories.items()}
        # holds[i]: whether the conditions i hold for this request; holds[-1] (never) is False.
        self.holds = [all(values.get(n) == v for n, v in tests) for tests in prepared.conditions]
        self.holds.append(False)
        self.groups = prepared.groups
        self.known_ids = prepared.known_ids
        self.applicable: dict[Key, list[Entry]] = {}
        self.resolved: dict[Key, Resolved | None] = {}
        self._resolving: set[Key] = set()
        #: the key being checked or resolved: the errors reported meanwhile concern it
        self._key: Key | None = None
        self.key_problems: dict[Key, list[Diagnostic]] = {}
        self._reported: set[tuple[str, Span | None, str]] = {
            (d.code, d.span, d.message) for d in prepared.diagnostics
        }
        holds = self.holds
        for key, group in prepared.groups.items():
            chosen = [e for e in group if holds[e.condition]]
            if chosen:
                self.applicable[key] = chosen
        self.fragments = {
            ident: chosen
            for ident, found in prepared.fragments.items()
            if (chosen := [e for e in found if holds[e.condition]])
        }
        self.classes = [e for e in prepared.classes if holds[e.condition]]

    def is_applicable(self, entry: Entry) -> bool:
        """Whether the entry's conditions hold for this request."""
        return self.holds[entry.condition]

    def error(self, span: Span | None, message: str, code: str, notes: Iterable[Note] = ()) -> None:
        if (code, span, message) not in self._reported:
            self._reported.add((code, span, message))
            diagnostic = Diagnostic(span, message, code, Severity.ERROR, tuple(notes))
            self.diags.report(diagnostic)
            if self._key is not None:
                self.key_problems.setdefault(self._key, []).append(diagnostic)

    def run(self) -> Injector:
        """Check and resolve every applicable key: the injector, or (strict) every error raised."""
        for key, group in self.applicable.items():
            self._key = key
            self._check_group(key, group)
        for key in self.applicable:
            self._key = key
            self._resolve(key)
        self._key = None
        self._check_multibind_ids()
        erased = self._erased()
        if not self.options.lenient:
            self.diags.raise_if_errors()
        else:
            self._attribute_by_span()
        return Injector(self, erased)

    def _attribute_by_span(self) -> None:
        """Errors found before composing (in preparing, in loading) concern the keys of the
        bindings they point into: keys whose binding's span holds the error's."""
        attributed = {id(d) for found in self.key_problems.values() for d in found}
        for diagnostic in self.diags:
            span = diagnostic.span
            if id(diagnostic) in attributed or span is None:
                continue
            for key, group in self.groups.items():
                if any(_holds(entry.span, span) for entry in group):
                    self.key_problems.setdefault(key, []).append(diagnostic)

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
                f"bindings {first.origin}{_branch(first)} and bindings {other.origin}{_branch(other)} "
                "bind it at the same precedence"
            )
            branch = ", ".join(or_branches(first))
            origin = f"bindings {first.origin}, {branch}" if branch else f"bindings {first.origin}"
            notes = [
                Note(first.span, f"the other binding of {key} ({origin}) is here"),
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
        if entry.producer is not None and kind_of(entry.producer) == "CustomProducer":
            lazy = self._lazy(entry)
            return Resolved(entry, None, lazy) if lazy is not None else None
        value = self._produce(entry)
        if value is None and entry.optional:
            below = _next_weaker(group, index)
            return self._resolve_at(key, group, below) if below is not None else None
        if value is None and not _explicit_undef(entry):
            return Resolved(entry, None, failure=produced_undef(key, entry))
        self._check_type(key, entry, value, group)
        return Resolved(entry, value)

    def _rebind(self, key: Key, group: list[Entry], index: int) -> Resolved | None:
        """``rebind``: what the layers below the rebind's layer produce on their own, at the
        rebind's precedence (so layers compose: a layer's rebind never sees its own weaker
        bindings when a lower layer binds the key); without such a layer, the next weaker
        binding of its own layer (a lower category)."""
        entry = group[index]
        below = next((i for i in range(index + 1, len(group)) if group[i].layer > entry.layer), None)
        if below is None:
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

    def _param_source(self, entry: Entry) -> Resolved | None:
        """``bind parameters X to <source>``: an instance, an expression's value, or a custom
        producer's (run at each lookup, like any custom producer; None: unknown, reported)."""
        producer = entry.producer
        mapping = option_value(entry.element, "map")
        mapped = evaluate(mapping, self.facts) if mapping is not None else None
        target = entry.key.name.split("/")[2]
        if producer is None:
            return Resolved(entry, None)
        if kind_of(producer) == "CustomProducer":
            produce = self._lazy(entry)
            if produce is None:
                return None
            made = ParameterSource(target, None, mapped, entry.optional, entry.span, produce)
            return Resolved(entry, made, lambda: replace(made, source=produce(), produce=None))
        source = self._produce(entry)
        return Resolved(entry, ParameterSource(target, source, mapped, entry.optional, entry.span))

    def _produce(self, entry: Entry) -> Value:
        try:
            if entry.value_expr is not None:
                return evaluate(entry.value_expr, self.facts)
            producer = entry.producer
            if producer is None:
                return None
            producer_kind = kind_of(producer)
            if producer_kind == "TypeProducer":
                return TypeValue(type_spec(producer.type) or TypeSpec("Any"))
            return evaluate(producer.value, self.facts) if producer_kind == "ConstantProducer" else None
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
        args_expr = option_value(entry.element, "producer_args")
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
        prefix = option_value(entry.element, "knockout_prefix")
        knockout = str(evaluate(prefix, {})) if prefix is not None else None
        try:
            return combine(spec.name, fragments, combinator, self.facts, knockout, self._duplicate)
        except ExpressionError as err:
            self._expression_error(err, entry)
            return None

    def _combinator(self, entry: Entry, kind: str) -> str | LambdaValue | None:
        option = option_value(entry.element, "combinator")
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


def _next_weaker(group: list[Entry], index: int) -> int | None:
    position = group[index].position
    for below in range(index + 1, len(group)):
        if group[below].position > position:
            return below
    return None


def _layer_and_category(entry: Entry) -> str:
    return f'layer "{entry.layer_name}", {entry.category()}'


def _explicit_undef(entry: Entry) -> bool:
    """Whether the binding's value is the literal ``undef`` (Hiera's ``~``): a value, not a failure."""
    expression = entry.value_expr
    if expression is None and entry.producer is not None and kind_of(entry.producer) == "ConstantProducer":
        expression = entry.producer.value
    return expression is not None and kind_of(expression) == "UndefLiteral"


def _branch(entry: Entry) -> str:
    """`` (branch 2 of `when a 'x' or b 'y'`)`` for an entry made from an ``or``, else nothing."""
    branches = or_branches(entry)
    return f" ({', '.join(branches)})" if branches else ""


def _holds(outer: Span | None, inner: Span) -> bool:
    """Whether ``inner`` lies within ``outer`` (same file; by line and column)."""
    if outer is None or outer.file != inner.file:
        return False
    return (outer.line, outer.col) <= (inner.line, inner.col) <= (outer.end_line, outer.end_col)
