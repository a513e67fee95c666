"""The injector: answers lookups of effective bindings (one dict access for a bound key)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cfmodel.errors import CfEvaluationError
from cfmodel.transforms.compose.entries import Entry, encode
from cfmodel.transforms.compose.explain import Explanation, explain
from cfmodel.transforms.compose.values import (
    MISSING,
    Key,
    ParameterSource,
    TypeSpec,
    TypeValue,
    Value,
    conforms,
    describe,
    key_of,
    parse_type,
)

if TYPE_CHECKING:
    from cfmodel.transforms.compose.composer import Composer


class Injector:
    """Looks up effective bindings. Values are shared: treat them as read-only."""

    def __init__(self, composer: Composer, erased: set[Key]) -> None:
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

    def lookup(self, type_or_name: str, name: str | None = None, *, default: Value = MISSING) -> Value:
        """``lookup(name)`` (any Data type) or ``lookup(type, name)``; ``default`` if not bound.

        Raises:
            CfEvaluationError: ``not-bound`` (and no default), or ``type-mismatch``.
        """
        if name is None:
            value = self._values.get(("Data", type_or_name), MISSING)  # type: ignore[call-overload]  # Key == tuple
            if value is MISSING:
                return self._slow_lookup(Key("Data", type_or_name), None, default)
            return value
        spec = self._spec(type_or_name)
        return self._slow_lookup(key_of(spec, name), spec, default)

    def _slow_lookup(self, key: Key, spec: TypeSpec | None, default: Value) -> Value:
        value = self._values.get(key, MISSING)
        if value is MISSING and key in self._lazy:
            value = self._lazy[key]()
        if value is MISSING or value is None:
            if default is not MISSING:
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
        prefix = f"/param/{encode(str(spec))}/"
        return {k.name[len(prefix) :]: v for k, v in self._values.items() if k.name.startswith(prefix)}

    def parameter_sources(self, target: str) -> list[ParameterSource]:
        """Instances bound as parameter producers of ``target``, with the effective map."""
        prefix = f"/params/{encode(target)}/"
        sources = [v for k, v in self._values.items() if k.name.startswith(prefix) and v is not None]
        return [self._with_map(s) for s in sources]

    def _with_map(self, source: ParameterSource) -> ParameterSource:
        if source.map is not None or not isinstance(source.source, TypeValue):
            return source
        target_type = parse_type(source.target.replace("%5B", "[").replace("%5D", "]")).name
        mapping = self._values.get(Key("ParameterMap", f"/map/{target_type}/{source.source.type.name}"))
        return ParameterSource(source.target, source.source, mapping, source.optional)

    def variable(self, name: str, *, default: Value = MISSING) -> Value:
        """A bound top scope variable (``bind variables to { name => ... }``)."""
        return self.lookup(f"/var/{name}", default=default)

    def explain(self, type_or_name: str, name: str | None = None) -> Explanation:
        """Provenance of a key: layers and categories consulted, winner, shadowed, merges."""
        key = Key("Data", type_or_name) if name is None else key_of(self._spec(type_or_name), name)
        return explain(self._composer, key, self._values.get(key, MISSING))


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
