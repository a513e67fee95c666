"""Where a value is in a JSON document's text, for located errors and reports.

Input: the document's text and JSON paths (member keys and array indexes). Output: the
line and column where the value at a path starts (`locate`; or its key), or the lines of
many paths at once (`lines_of`, one pass). Only the text is read: the parsed document is
not needed, and values off the paths are skipped by the C decoder.
"""

from __future__ import annotations

import contextlib
import json
import re
from decimal import Decimal
from typing import Any

Path_ = tuple[str | int, ...]  # a JSON path: member keys and array indexes

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def locate(text: str, path: Path_, at_key: bool = False) -> tuple[int, int]:
    """The 1-based line and column where the value at `path` starts in `text` (with
    `at_key`, where the key of its last step is written), as far along the path as the
    text allows (the document's start at worst). Used only when reporting an error, so
    it may take a pass over the text."""
    pos = _offset(text, path, at_key)
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _offset(text: str, path: Path_, at_key: bool = False) -> int:
    def ws(at: int) -> int:  # past the white space at `at`
        found = _WS.match(text, at)
        return found.end() if found is not None else at

    i = ws(0)
    try:
        for n, step in enumerate(path):
            if isinstance(step, str) and text[i] == "{":
                i = ws(i + 1)
                while text[i] == '"':
                    start = i
                    key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
                    i = ws(ws(i) + 1)  # past the colon
                    if key == step:
                        if at_key and n == len(path) - 1:
                            return start
                        break
                    i = ws(_DECODER.raw_decode(text, i)[1])
                    if text[i] == ",":
                        i = ws(i + 1)
                else:
                    return i
            elif isinstance(step, int) and text[i] == "[":
                i = ws(i + 1)
                for _ in range(step):
                    i = ws(_DECODER.raw_decode(text, i)[1])
                    i = ws(i + 1)  # past the comma
            else:
                return i
    except (IndexError, ValueError):
        return min(i, len(text))
    return i


def lines_of(text: str, paths: list[Path_]) -> list[int]:
    """The 1-based line where the value at each of `paths` starts, in one pass over the
    text (values off the paths are skipped by the C decoder); 1 where a path leads nowhere."""
    trie: dict[Any, Any] = {}
    for path in paths:
        node = trie
        for step in path:
            node = node.setdefault(step, {})
        node[_END] = True
    found: dict[Path_, int] = {}
    ws = _WS.match

    def walk(i: int, node: dict[Any, Any], prefix: Path_) -> None:
        if _END in node:
            found[prefix] = i
        if text[i] == "{":
            i = _skip(ws, text, i + 1)
            while text[i] == '"':
                key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
                i = _skip(ws, text, _skip(ws, text, i) + 1)  # past the colon
                if key in node:
                    walk(i, node[key], (*prefix, key))
                i = _skip(ws, text, _DECODER.raw_decode(text, i)[1])
                if text[i] == ",":
                    i = _skip(ws, text, i + 1)
        elif text[i] == "[":
            i = _skip(ws, text, i + 1)
            k = 0
            while text[i] != "]":
                if k in node:
                    walk(i, node[k], (*prefix, k))
                i = _skip(ws, text, _DECODER.raw_decode(text, i)[1])
                if text[i] == ",":
                    i = _skip(ws, text, i + 1)
                k += 1

    with contextlib.suppress(IndexError, ValueError):
        walk(_skip(ws, text, 0), trie, ())
    line_at: dict[int, int] = {}
    line, last = 1, 0
    for offset in sorted(set(found.values())):  # lines counted once along the text
        line += text.count("\n", last, offset)
        line_at[offset] = line
        last = offset
    return [line_at[found[p]] if p in found else 1 for p in paths]


_END = object()


def _skip(ws: Any, text: str, at: int) -> int:
    found = ws(text, at)
    return int(found.end()) if found is not None else at


def kind_of(value: Any) -> str:
    """How a message names a parsed JSON value's kind ("a number", "an array", …); a
    number may be a `Decimal` (read so where a metamodel has ``EBigDecimal`` values)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | Decimal):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"
