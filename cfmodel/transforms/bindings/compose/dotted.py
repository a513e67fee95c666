"""Dotted keys, as Puppet's ``lookup`` reads them: ``a.b.0``, ``a."b.c"``, ``'x.y'``.

A name with a dot or a quote is a path: its first segment is the key that is looked up
(with that key's own merge), the others dig into the value found, after the merge, as
Puppet digs "after first-found": a segment of digits indexes an array (and reads an integer
key of a hash, else the same text as a string key), any other segment reads a hash key. A
segment in single or double quotes is taken literally, dots included, so a key with a dot in
its name is reached by quoting it (``'"literal.dotted"'``). A path that leads nowhere (a
missing key, an index out of range, a scalar dug into) finds nothing, as Puppet's does.

``split(name)`` returns the segments (None for a plain name); ``dig(value, segments)`` walks
them; ``root(name)`` is the key a name looks up first.
"""

from __future__ import annotations

from typing import Any

from cfmodel.transforms.bindings.compose.values import MISSING, Value


class DottedKeyError(Exception):
    """The name is not a well-formed path (an unterminated quote, an empty segment)."""


def split(name: str) -> list[str | int] | None:
    """The segments of a dotted name, or None when the name is one plain key.

    Raises:
        DottedKeyError: an unterminated quote or an empty segment.
    """
    if "." not in name and '"' not in name and "'" not in name:
        return None
    segments: list[str | int] = []
    index, length = 0, len(name)
    while True:
        if index < length and name[index] in "\"'":
            quote = name[index]
            end = name.find(quote, index + 1)
            if end < 0:
                raise DottedKeyError(f"the key {name!r} has an unterminated quote")
            segments.append(name[index + 1 : end])
            index = end + 1
            if index < length and name[index] != ".":
                raise DottedKeyError(f"the key {name!r} has text after a quoted segment")
        else:
            end = name.find(".", index)
            end = length if end < 0 else end
            text = name[index:end]
            if not text or '"' in text or "'" in text:
                raise DottedKeyError(f"the key {name!r} has an empty or badly quoted segment")
            segments.append(int(text) if text.isdigit() else text)
            index = end
        if index >= length:
            return segments
        index += 1  # the dot
        if index >= length:
            raise DottedKeyError(f"the key {name!r} ends with a dot")


def dig(value: Value, segments: list[str | int]) -> Any:
    """The value at the path below ``value`` (``MISSING`` when there is none)."""
    current: Any = value
    for segment in segments:
        if isinstance(current, list) and isinstance(segment, int):
            if segment >= len(current):
                return MISSING
            current = current[segment]
        elif isinstance(current, dict):
            if segment in current:
                current = current[segment]
            elif str(segment) in current:
                current = current[str(segment)]
            else:
                return MISSING
        else:
            return MISSING
    return current


def root(name: str) -> str:
    """The key a name looks up first (the name itself when it is not a path, or not a good one)."""
    try:
        segments = split(name)
    except DottedKeyError:
        return name
    return name if segments is None else str(segments[0])
