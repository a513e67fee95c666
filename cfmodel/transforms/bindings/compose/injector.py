"""The injector: answers lookups of effective bindings (one dict access for a bound key).

Two faces. For people and tools: ``lookup``, ``explain``, ``effective`` (every effective
binding with where it comes from). For the compiler (``std::inject`` and implicit
injection; docs/bindings.md, "Injection API"):

* ``inject(type_or_name, name=None, default=...)``: ``std::inject("x")``,
  ``std::inject(int, "x")``, ``std::inject(string, "x", "fallback")``. Types are binding
  types (``Integer``, ``Array[String]``, ``Type[X]``, ``std::Host``) or ``.cf`` types
  (``int``, ``string[]``, ``dict``; ``T?`` gives ``null`` when nothing is bound);
* ``instance_parameters(entity, attributes, keys=..., instance=...)``: values for the
  attributes a constructor call did not give (``bind parameters ns::Entity to {...}``,
  ``ns::Entity[key]``, and instances, hashes or custom producers bound as parameter sources);
* ``variables()``: the top scope variables (``bind variables``);
* ``classes()``: ``inject('/classes')``.

Errors (``CfEvaluationError``): ``not-bound``, ``type-mismatch``, ``unknown-parameter``,
``parameter-source-missing``, ``map-required``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cfmodel.errors import CfCompileError, CfEvaluationError, Diagnostic, Span
from cfmodel.transforms.bindings.compose.dotted import DottedKeyError, dig, split
from cfmodel.transforms.bindings.compose.entries import Entry, produced_undef
from cfmodel.transforms.bindings.compose.explain import Explanation, explain
from cfmodel.transforms.bindings.compose.values import (
    MISSING,
    Key,
    ParameterSource,
    TypeSpec,
    TypeValue,
    Value,
    conforms,
    decode_target,
    describe,
    key_of,
    parse_type,
    show,
    show_target,
)

if TYPE_CHECKING:
    from cfmodel.transforms.bindings.compose.composer import Composer
    from cfmodel.transforms.bindings.compose.prepare import PreparedBindings

#: Finds an instance bound as a parameter source (``Sql[one]``): its attributes, or None.
#: what a lookup of a name that is not bound gives inside ``_dig`` (None is a value)
_ABSENT: Any = object()
InstanceLookup = Callable[[TypeValue], Mapping[str, Value] | None]
#: A parameter target: an entity or class name and the values of an instance's key
#: (``("std::Host", ("web1",))``; none for the entity itself; ``ntp`` is ``("Class", ("ntp",))``).
Target = tuple[str, tuple[str, ...]]
#: An instance's key as ``instance_parameters`` takes it: the title of a one-attribute index
#: value (``'web1'``, ``'53'``), or the titles of a several-attribute index's values in order.
InstanceKey = str | Sequence[str]

#: ``.cf`` primitive types and the binding types they are.
CF_TYPES = {
    "string": "String",
    "int": "Integer",
    "float": "Float",
    "number": "Number",
    "bool": "Boolean",
    "list": "Array",
    "dict": "Hash",
    "any": "Any",
}


@dataclass(frozen=True, slots=True)
class EffectiveBinding:
    """The binding that gives a key its value, for ``show`` and exports.

    ``value`` is None for a custom producer (it runs at each lookup); ``from_key`` is the key
    a rebind, alias or rename took its producer from.
    """

    key: Key
    value: Value
    kind: str
    origin: str
    layer: str
    category: str
    span: Span | None
    from_key: Key | None = None
    lazy: bool = False


class Injector:
    """Looks up effective bindings. Values are shared: treat them as read-only."""

    def __init__(self, composer: Composer, erased: set[Key]) -> None:
        self._composer = composer
        self._erased = erased
        self._values: dict[Key, Value] = {}
        self._lazy: dict[Key, Callable[[], Value]] = {}
        self._specs: dict[str, tuple[TypeSpec, bool]] = {}
        self._params: dict[Target, dict[str, Key]] = {}
        self._sources: dict[Target, list[ParameterSource]] = {}
        self._entities: dict[str, str] = {}  # an entity as the caller writes it -> its name
        self._failures: dict[Key, CfEvaluationError] = {}  # keys whose binding gave no value
        self._problems: dict[Key, list[Diagnostic]] = composer.key_problems  # (lenient) keys in error
        for key, resolved in composer.resolved.items():
            if resolved is None or key in erased or key in self._problems:
                continue
            if resolved.failure is not None:
                self._failures[key] = resolved.failure
            elif resolved.lazy is not None:
                self._lazy[key] = resolved.lazy
            else:
                self._values[key] = resolved.value
            self._index(key, resolved.value)
        self._values[Key("Data", "/classes")] = _classes(composer.classes)

    def _index(self, key: Key, value: Value) -> None:
        name = key.name
        if name.startswith("/param/"):
            target, _, parameter = name[7:].rpartition("/")
            self._params.setdefault(decode_target(target), {})[parameter] = key
        elif name.startswith("/params/") and isinstance(value, ParameterSource):
            self._sources.setdefault(decode_target(value.target), []).append(value)

    # --- lookups ------------------------------------------------------------------------------
    def lookup(self, type_or_name: str, name: str | None = None, *, default: Value = MISSING) -> Value:
        """``lookup(name)`` (any Data type) or ``lookup(type, name)``; ``default`` if not bound.

        Raises:
            CfEvaluationError: ``not-bound`` (and no default), or ``type-mismatch``.
        """
        if name is None:
            value = self._values.get(("Data", type_or_name), MISSING)  # type: ignore[call-overload]  # Key == tuple
            if value is MISSING or "." in type_or_name:  # a dotted name digs, even where bound as is
                return self._slow_lookup(Key("Data", type_or_name), None, default)
            return value
        spec, nullable = self._spec(type_or_name)
        if nullable and default is MISSING:
            default = None
        return self._slow_lookup(key_of(spec, name), spec, default, nullable)

    def inject(self, type_or_name: str, name: str | None = None, *, default: Value = MISSING) -> Value:
        """``std::inject``: ``inject("x")``, ``inject(type, "x")``, ``inject(type, "x", default=d)``.

        ``type`` may be a binding type or a ``.cf`` type (``int``, ``string[]``, ``T?``).

        Raises:
            CfEvaluationError: ``not-bound`` (and no default), or ``type-mismatch``.
        """
        return self.lookup(type_or_name, name, default=default)

    def _slow_lookup(
        self, key: Key, spec: TypeSpec | None, default: Value, nullable: bool = False, path: bool = True
    ) -> Value:
        if path and key.namespace == "Data" and not key.name.startswith("/"):
            try:
                segments = split(key.name)
            except DottedKeyError as err:
                raise CfEvaluationError(str(err), None, "bad-key") from None
            if segments is not None:
                return self._dig(key, segments, spec, default, nullable)
        value = self._values.get(key, MISSING)
        if value is MISSING and key in self._problems:
            raise CfCompileError(self._problems[key])
        if value is MISSING and key in self._failures:
            raise self._failures[key]
        if value is MISSING and key in self._lazy:
            value = self._lazy[key]()
            if value is None:
                return self._produced_nothing(key, default)
        if value is MISSING:
            if default is not MISSING:
                return default
            raise CfEvaluationError(f"no binding for {key}", None, "not-bound")
        return _typed(key, value, spec, nullable)

    def _dig(
        self, key: Key, segments: list[str | int], spec: TypeSpec | None, default: Value, nullable: bool
    ) -> Value:
        """A dotted name (``a.b.0``): the first segment's value (with its merge), dug into."""
        root = self._slow_lookup(Key("Data", str(segments[0])), None, _ABSENT, path=False)
        value = dig(root, segments[1:]) if root is not _ABSENT else MISSING
        if value is MISSING:
            if default is not MISSING:
                return default
            raise CfEvaluationError(f"no binding for {key}", None, "not-bound")
        return _typed(key, value, spec, nullable)

    def _produced_nothing(self, key: Key, default: Value) -> Value:
        """A custom producer gave undef: the next value if its binding is optional, else an error."""
        entry = self._entry_of(key)
        if entry is not None and not entry.optional:
            raise produced_undef(key, entry)
        if default is not MISSING:
            return default
        raise CfEvaluationError(f"no binding for {key}", None, "not-bound")

    def _spec(self, text: str) -> tuple[TypeSpec, bool]:
        found = self._specs.get(text)
        if found is None:
            found = self._specs[text] = cf_type(text)
        return found

    def __contains__(self, name: str) -> bool:
        key = Key("Data", name)
        return key in self._values or key in self._lazy

    def classes(self) -> list[str]:
        """The included classes (``inject('/classes')``): includes minus weaker excludes."""
        return list(self._values[Key("Data", "/classes")])

    def variable(self, name: str, *, default: Value = MISSING) -> Value:
        """A bound top scope variable (``bind variables to { name => ... }``)."""
        return self.lookup(f"/var/{name}", default=default)

    def variables(self) -> dict[str, Value]:
        """Every bound top scope variable, by name (for the compiler's top scope)."""
        return {
            k.name[5:]: v for k, v in self._values.items() if k.name.startswith("/var/") and v is not None
        }

    # --- parameters ---------------------------------------------------------------------------
    def parameters(self, target: str) -> dict[str, Value]:
        """The literal parameter values bound for a class (``ntp``) or type/instance (``Web[one]``)."""
        keys = self._params.get(_target_of(target), {})
        return {name: self._values[key] for name, key in keys.items() if key in self._values}

    def parameter_sources(self, target: str) -> list[ParameterSource]:
        """Instances bound as parameter producers of ``target``, with the effective map."""
        return [self._with_map(s) for s in self._sources.get(_target_of(target), [])]

    def _with_map(self, source: ParameterSource) -> ParameterSource:
        if source.map is not None or not isinstance(source.source, TypeValue):
            return source
        mapping = self._type_map(decode_target(source.target)[0], source.source)
        return ParameterSource(source.target, source.source, mapping, source.optional, source.span)

    def instance_parameters(
        self,
        entity: str,
        attributes: Iterable[str],
        *,
        given: Iterable[str] = (),
        keys: Sequence[InstanceKey] = (),
        instance: InstanceLookup | None = None,
    ) -> dict[str, Value]:
        """Values for the attributes of a new instance of ``entity`` that its constructor call left out.

        Args:
            entity: the entity's qualified name as bindings write it (``std::Host``).
            attributes: every attribute of the entity a constructor may set (bindings of other
                names are errors).
            given: the attributes the constructor call gave (never injected).
            keys: the instance's keys, most specific first: each the title of a one-attribute
                index's value (``'web1'``; numbers as written, ``'53'``; ``'true'``/``'false'``)
                or a tuple of the titles of a several-attribute index's values in the index's
                attribute order (``('web', 'example.com')``). A key matches ``Entity[...]``
                bindings whose titles are the same strings, one for one (any string: commas,
                brackets, quotes are values like any other).
            instance: finds an instance bound as a parameter source (``Sql[one]``).

        Returns:
            Per attribute not given, the first of: ``bind parameters Entity[key] to {...}``
            (first key with one), a source bound to ``Entity[key]``, ``bind parameters Entity
            to {...}``, a source bound to ``Entity``. Attributes without a binding are left
            out (the entity's defaults apply next).

        Raises:
            CfEvaluationError: ``unknown-parameter`` (a literal binding names an attribute
                the entity does not have), ``parameter-source-missing``, ``map-required``.
        """
        known = list(attributes)
        skip = set(given)
        name = self._entities.get(entity)
        if name is None:
            name = self._entities[entity] = _target_of(entity)[0]
        targets = [(name, (key,) if isinstance(key, str) else tuple(key)) for key in keys] + [(name, ())]
        result: dict[str, Value] = {}
        for target in targets:
            found = dict(self._literal_parameters(target, known))
            for source in self._sources.get(target, ()):
                for attribute, value in self._from_source(source, known, instance).items():
                    found.setdefault(attribute, value)
            for attribute, value in found.items():
                if attribute not in skip:
                    result.setdefault(attribute, value)
        return result

    def _literal_parameters(self, target: Target, wanted: list[str]) -> dict[str, Value]:
        keys = self._params.get(target, {})
        found: dict[str, Value] = {}
        for name, key in keys.items():
            if name not in wanted:
                entry = self._entry_of(key)
                by = entry.where() if entry is not None else "a binding"
                message = f'{show_target(*target)} has no attribute "{name}" to bind (bound by {by})'
                raise CfEvaluationError(message, entry.span if entry else None, "unknown-parameter")
            value = self._values.get(key)
            if value is not None:
                found[name] = value
        return found

    def _from_source(
        self, source: ParameterSource, wanted: list[str], instance: InstanceLookup | None
    ) -> dict[str, Value]:
        """The values a source gives *wanted* attributes: an instance's or a hash's, by the map.

        A hash (an expression's or a custom producer's value) is read like an instance, by
        attribute name through the map, not split into one binding per name as a literal
        ``{...}`` is: only a literal's names are known before the lookup (so only they are
        checked, ``unknown-parameter``, and shadowed one by one)."""
        target_name, titles = decode_target(source.target)
        target = show_target(target_name, titles)
        value = source.produce() if source.produce is not None else source.source
        if isinstance(value, TypeValue):
            found = instance(value) if instance is not None else None
            if found is None:
                if source.optional:
                    return {}
                message = f"{value} is bound as the parameters of {target}, but there is no {value}"
                raise CfEvaluationError(message, source.span, "parameter-source-missing")
            values: Mapping[str, Value] = dict(found)
            mapping = source.map if source.map is not None else self._type_map(target_name, value)
        elif isinstance(value, dict):
            if not value:
                return {}
            values, mapping = value, source.map
        elif value is None:
            if source.optional:
                return {}
            message = f"the parameters of {target} are bound to a producer that gave undef"
            raise CfEvaluationError(message, source.span, "parameter-source-missing")
        else:
            message = (
                f"the parameters of {target} are bound to {describe(value)}: a hash or an instance "
                "reference is needed"
            )
            raise CfEvaluationError(message, source.span, "type-mismatch")
        pairs = dict(mapping) if mapping is not None else {n: n for n in wanted if n in values}
        if not pairs:
            if isinstance(value, TypeValue):
                remedy = (
                    f"no attribute has the same name in both: bind a map (bind map {target_name} to "
                    f"{value.type.name} {{ ... }}) or give one ({{ map => {{ ... }} }})"
                )
            else:
                remedy = "none of its names is an attribute: give a map ({ map => { ... } })"
            message = f"the parameters of {target} are bound to {_shown(value)}, but {remedy}"
            raise CfEvaluationError(message, source.span, "map-required")
        return {mine: values[theirs] for mine, theirs in pairs.items() if mine in wanted and theirs in values}

    def _type_map(self, target_name: str, source: TypeValue) -> Mapping[str, Value] | None:
        """``bind map Target to Source { ... }``, if bound."""
        mapping = self._values.get(Key("ParameterMap", f"/map/{target_name}/{source.type.name}"))
        return mapping if isinstance(mapping, dict) else None

    def _entry_of(self, key: Key) -> Entry | None:
        resolved = self._composer.resolved.get(key)
        return resolved.entry if resolved is not None else None

    # --- problems (a lenient composition) -------------------------------------------------------
    @property
    def problems(self) -> list[Diagnostic]:
        """Every error of a lenient composition (loading, preparing, composing), sorted."""
        return sorted(self._composer.diags, key=Diagnostic.sort_key)

    def problems_of(self, type_or_name: str, name: str | None = None) -> list[Diagnostic]:
        """The errors that concern one key (its lookups fail with them)."""
        return list(self._problems.get(self._key(type_or_name, name), ()))

    def _key(self, type_or_name: str, name: str | None) -> Key:
        if name is None:
            try:
                segments = split(type_or_name)
            except DottedKeyError:
                segments = None
            return Key("Data", type_or_name if segments is None else str(segments[0]))
        return key_of(self._spec(type_or_name)[0], name)

    # --- provenance ---------------------------------------------------------------------------
    def explain(self, type_or_name: str, name: str | None = None) -> Explanation:
        """Provenance of a key: layers and categories consulted, winner, shadowed, merges, and
        (a lenient composition) the errors that concern it."""
        key = self._key(type_or_name, name)
        return explain(self._composer, key, self._values.get(key, MISSING), self._problems.get(key, ()))

    def effective(self) -> list[EffectiveBinding]:
        """Every effective binding (not ``/classes``), sorted by key."""
        result = []
        for key, resolved in self._composer.resolved.items():
            if resolved is None or key in self._erased:
                continue
            entry = resolved.entry
            value = None if resolved.lazy is not None else resolved.value
            result.append(
                EffectiveBinding(
                    key,
                    value,
                    entry.kind,
                    entry.origin,
                    entry.layer_name,
                    entry.category(),
                    entry.span,
                    resolved.from_key,
                    resolved.lazy is not None,
                )
            )
        return sorted(result, key=lambda b: (b.key.namespace != "Data", b.key.namespace, b.key.name))

    @property
    def layer_names(self) -> tuple[str, ...]:
        return self._composer.layer_names

    @property
    def prepared(self) -> PreparedBindings:
        """What this injector was made from: the layers' bindings, the sites, the spans."""
        return self._composer.prepared

    def category_values(self) -> list[tuple[str, int, str | None]]:
        """The request's categories, highest first: name, rank, value (None: does not apply)."""
        return [(c.name, c.rank, c.value) for c in self._composer.categories.values()]

    def class_sources(self) -> list[tuple[str, Span | None, str]]:
        """The included classes with the ``include`` that put each one in."""
        first: dict[str, Entry] = {}
        for entry in self._composer.classes:
            if entry.kind == "include":
                first.setdefault(entry.key.name, entry)
        return [(name, first[name].span, first[name].where()) for name in self.classes()]


def _typed(key: Key, value: Value, spec: TypeSpec | None, nullable: bool) -> Value:
    """A found value checked against the lookup's type (undef is a value where the type admits it)."""
    if value is None and (nullable or spec is None or conforms(None, spec)):
        return None  # bound to undef (``undef``, Hiera's ``~``): a value, as Puppet's lookup finds it
    if spec is not None and spec.is_data and not conforms(value, spec):
        raise CfEvaluationError(f"{key} is {describe(value)}, not {spec}", None, "type-mismatch")
    return value


def cf_type(text: str) -> tuple[TypeSpec, bool]:
    """A binding type, or a ``.cf`` type (``int``, ``string[]``, ``T?``): the type, and nullable."""
    text = text.strip()
    nullable = text.endswith("?")
    text = text.removesuffix("?")
    if text.endswith("[]"):
        inner, _ = cf_type(text[:-2])
        return TypeSpec("Array", (inner,)), nullable
    if text in CF_TYPES:
        return TypeSpec(CF_TYPES[text]), nullable
    return parse_type(text), nullable


def _target_of(text: str) -> Target:
    """A parameter target written as in the bindings: ``ntp`` (a class), ``Web``, ``Web[one]``,
    ``Host['web', 'example.com']``."""
    if not _is_type(text) and not text.startswith("class "):
        return ("Class", (text.strip(),))
    spec = parse_type(text)
    return (spec.name, spec.titles)


def _is_type(target: str) -> bool:
    last = target.partition("[")[0].rsplit("::", 1)[-1].strip()
    return last[:1].isupper()


def _shown(value: Value) -> str:
    return str(value) if isinstance(value, TypeValue) else show(value)


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
