"""Hiera 5's merge behaviours: ``first``, ``unique``, ``hash`` and ``deep``, as Puppet 7 does them.

The values found for a key come highest priority first. ``merge_values`` folds them the way
Puppet's lookup does: the first value found is the start, each lower value is merged in
with ``merge(higher_so_far, lower)``:

* ``first``: the first value found; nothing else is read.
* ``unique``: arrays are flattened, scalars become one-item arrays, then ``higher | lower``
  (a union: highest first, no duplicates). Hashes cannot be merged this way.
* ``hash``: ``{**lower, **higher}``: the lower hash's keys first, then the higher hash's new
  keys; a key in both takes the higher value. Only hashes can be merged this way.
* ``deep``: the higher value is deep-merged *into* a copy of the lower one (Puppet calls the
  deep_merge library with the higher value as the source): hashes merge key by key,
  recursively; arrays are united (the lower array's items first); anything else is replaced
  by the higher value. Options: ``knockout_prefix`` (an array item ``--x`` removes ``x``, an
  item ``--`` empties the lower array, a string ``--...`` empties the value to ``""``),
  ``sort_merged_arrays``, ``merge_hash_arrays`` (arrays of hashes merge item by item).

Values are compared as Puppet compares them: ``1``, ``1.0`` and ``true`` are three different
values (Python's ``==`` would say they are equal).

Error codes (``MergeError.code``): ``hiera-merge`` (a value of the wrong kind for the
strategy, an unknown strategy or option).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cfmodel.transforms.bindings.compose import Value, show

STRATEGIES = ("first", "unique", "hash", "deep")
DEEP_OPTIONS = ("knockout_prefix", "sort_merged_arrays", "merge_hash_arrays", "merge_debug")


class MergeError(Exception):
    """A merge cannot be done (the message says why)."""

    code = "hiera-merge"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Merge:
    """A merge behaviour: the strategy and, for ``deep``, its options."""

    strategy: str = "first"
    knockout_prefix: str | None = None
    sort_merged_arrays: bool = False
    merge_hash_arrays: bool = False

    def __str__(self) -> str:
        extras = []
        if self.knockout_prefix is not None:
            extras.append(f"knockout_prefix {self.knockout_prefix!r}")
        if self.sort_merged_arrays:
            extras.append("sort_merged_arrays")
        if self.merge_hash_arrays:
            extras.append("merge_hash_arrays")
        return self.strategy + (f" ({', '.join(extras)})" if extras else "")


def parse_merge(spec: Value) -> Merge:
    """A merge behaviour as Hiera writes it: ``'deep'`` or ``{strategy => deep, knockout_prefix => '--'}``.

    Raises:
        MergeError: unknown strategy or option, or a value of the wrong type.
    """
    if spec is None:
        return Merge()
    if isinstance(spec, Merge):
        return spec
    if isinstance(spec, str):
        return Merge(_strategy(spec))
    if not isinstance(spec, Mapping):
        raise MergeError(f"a merge behaviour is a strategy name or a hash, not {show(spec)}")
    if "strategy" not in spec:
        raise MergeError("the hash given as 'merge' must name a strategy under the key 'strategy'")
    strategy = _strategy(spec["strategy"])
    unknown = [k for k in spec if k != "strategy" and (strategy != "deep" or k not in DEEP_OPTIONS)]
    if unknown:
        raise MergeError(f"the merge strategy {strategy!r} has no option {unknown[0]!r}")
    prefix = spec.get("knockout_prefix")
    if prefix is not None and (not isinstance(prefix, str) or not prefix):
        raise MergeError(f"knockout_prefix must be a non-empty string, not {show(prefix)}")
    flags = {k: spec.get(k, False) for k in ("sort_merged_arrays", "merge_hash_arrays")}
    for name, flag in flags.items():
        if not isinstance(flag, bool):
            raise MergeError(f"{name} must be true or false, not {show(flag)}")
    return Merge(strategy, prefix, flags["sort_merged_arrays"], flags["merge_hash_arrays"])


def _strategy(name: Value) -> str:
    if name == "default":
        return "first"
    if name not in STRATEGIES:
        raise MergeError(f"unknown merge strategy {show(name)} (use one of: {', '.join(STRATEGIES)})")
    return str(name)


def merge_values(values: Sequence[Value], merge: Merge, single: bool = False) -> Value:
    """Fold the values found (highest priority first) as Puppet's lookup does.

    ``single``: the hierarchy has one level, so the value is taken as found (``unique`` only
    removes duplicates then, without flattening).

    Raises:
        MergeError: a value cannot be merged with this strategy.
    """
    if not values:
        raise ValueError("nothing to merge")
    if merge.strategy == "first":
        return values[0]
    if single:
        only = values[0]
        return _uniq(only) if merge.strategy == "unique" and isinstance(only, list) else only
    memo = _convert(values[0], merge)
    for lower in values[1:]:
        memo = _merge_two(memo, lower, merge)
    return memo


def _convert(value: Value, merge: Merge) -> Value:
    if merge.strategy == "unique":
        return _flatten(value) if isinstance(value, list) else [value]
    return value


def _merge_two(higher: Value, lower: Value, merge: Merge) -> Value:
    if merge.strategy == "unique":
        for value, which in ((higher, "first"), (lower, "second")):
            if isinstance(value, dict):
                raise MergeError(f"a unique merge cannot merge hashes (the {which} value is {show(value)})")
        return _union(_convert(higher, merge), _convert(lower, merge))
    if merge.strategy == "hash":
        for value, which in ((higher, "first"), (lower, "second")):
            if not isinstance(value, dict):
                raise MergeError(f"a hash merge needs hashes (the {which} value is {show(value)})")
        return {**lower, **higher}
    return deep_merge(higher, copy.deepcopy(lower), merge)


def deep_merge(source: Value, dest: Value, merge: Merge) -> Value:
    """Merge ``source`` (higher priority) into ``dest`` (lower; changed in place and returned)."""
    if source is None:
        return dest
    if dest is None or dest is False:
        return source
    if isinstance(source, dict):
        if not isinstance(dest, dict):
            return _overwrite(source, dest, merge) if source else dest
        for key, value in source.items():
            current = dest.get(key)
            if current is not None and current is not False:
                dest[key] = deep_merge(value, current, merge)
            else:
                dest[key] = deep_merge(value, copy.deepcopy(value), merge)
        return dest
    if isinstance(source, list):
        return _merge_arrays(list(source), dest, merge)
    return _overwrite(source, dest, merge)


def _merge_arrays(source: list[Value], dest: Value, merge: Merge) -> Value:
    prefix = merge.knockout_prefix
    if prefix is not None and any(_same(item, prefix) for item in source):
        dest = _cleared(dest)
        source = [item for item in source if not _same(item, prefix)]
    if not isinstance(dest, list):
        return _overwrite(source, dest, merge)
    if prefix is not None:
        kept = []
        for item in source:
            if isinstance(item, str) and item.startswith(prefix):
                removed = item[len(prefix) :]
                dest = [d for d in dest if not (_same(d, removed) or _same(d, item))]
            else:
                kept.append(item)
        source = kept
    if merge.merge_hash_arrays and all(isinstance(i, dict) for i in source + dest):
        result = [deep_merge(source[i] if i < len(source) else {}, d, merge) for i, d in enumerate(dest)]
        result.extend(source[len(dest) :])
    else:
        result = _union(dest, source)
    if merge.sort_merged_arrays:
        try:
            result.sort(key=_sort_key)
        except TypeError as err:
            raise MergeError(f"cannot sort {show(result)}: the items are of different kinds") from err
    return result


def _overwrite(source: Value, dest: Value, merge: Merge) -> Value:
    prefix = merge.knockout_prefix
    if prefix is None:
        return source
    if isinstance(source, str):
        return "" if source.startswith(prefix) else source
    if isinstance(source, list):
        return [item for item in source if not (isinstance(item, str) and item.startswith(prefix))]
    return source


def _cleared(value: Value) -> Value:
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    if isinstance(value, str):
        return ""
    return None


def _flatten(value: list[Value]) -> list[Value]:
    result: list[Value] = []
    for item in value:
        result.extend(_flatten(item) if isinstance(item, list) else [item])
    return result


def _uniq(values: list[Value]) -> list[Value]:
    return _union([], values)


def _union(first: list[Value], second: list[Value]) -> list[Value]:
    """Ruby's ``first | second``: the items of both, in order, each once."""
    seen: set[Any] = set()
    result = []
    for item in [*first, *second]:
        key = identity(item)
        if key not in seen:
            seen.add(key)
            result.append(item)
    return result


def identity(value: Value) -> Any:
    """A hashable identity under which Puppet's equal values are equal (and ``1 != 1.0 != true``)."""
    if isinstance(value, dict):
        return ("hash", frozenset((identity(k), identity(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(identity(v) for v in value))
    return (type(value).__name__, value)


def _same(a: Value, b: Value) -> bool:
    return bool(identity(a) == identity(b))


def _sort_key(value: Value) -> Any:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise TypeError("unsortable")
    return value
