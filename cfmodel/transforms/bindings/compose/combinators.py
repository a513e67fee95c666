"""Combinators: fold the fragments of a multibind (strongest first) into an Array or a Hash.

Named strategies: arrays ``append`` (default; a non-array value is appended, arrays are
concatenated), ``flatten``, ``unique``; hashes ``error`` (default: a duplicate key is reported
through ``on_duplicate``), ``first`` (strongest wins), ``merge`` (shallow, strongest wins),
``deep_merge`` (Hiera's deep merge with an optional knockout prefix). Or a lambda: arrays
``|$memo, $x|`` (memo starts as ``[]``), hashes ``|$key, $current, $value|``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from cfmodel.transforms.bindings.compose.entries import Entry
from cfmodel.transforms.bindings.compose.expressions import call_lambda
from cfmodel.transforms.bindings.compose.functions import deep_merge, flatten, unique
from cfmodel.transforms.bindings.compose.values import LambdaValue, Value

ARRAY_STRATEGIES = ("append", "flatten", "unique")
HASH_STRATEGIES = ("error", "first", "merge", "deep_merge")


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
        return flatten(result)
    if combinator == "unique":
        return unique(result)
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
