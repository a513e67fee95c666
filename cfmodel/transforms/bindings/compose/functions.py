"""The functions an expression may call (``flatten($x)``, ``deep_merge($a, $b, '--')``, ...).

Each takes and returns plain values (see ``values``); a ``TypeError``/``ValueError`` raised
here becomes an ``expression-error`` naming the call and its arguments.
"""

from __future__ import annotations

from collections.abc import Callable

from cfmodel.transforms.bindings.compose.values import Value, show


def _text(value: Value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else show(value)


def flatten(value: Value) -> list[Value]:
    if not isinstance(value, list):
        return [value]
    return [item for v in value for item in flatten(v)]


def unique(value: list[Value]) -> list[Value]:
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
        return unique(kept + [v for v in lower if v not in knocked])
    return higher


FUNCTIONS: dict[str, Callable[..., Value]] = {
    "flatten": flatten,
    "unique": unique,
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
