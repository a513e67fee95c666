"""``inmanta.util.dict_path``: paths into nested dicts and lists, ``a.b[name=x].c``.

`to_path(text)` parses a path: keys separated by dots; ``key[attr=value]`` selects, in the
list under ``key``, the dict whose ``attr`` is ``value``; a backslash escapes ``.``, ``[``,
``]``, ``=`` and itself. `DictPath.get_element(container)` follows it (`LookupError` when an
element is missing); `set_element` creates what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["DictPath", "to_path"]


@dataclass(frozen=True)
class _Step:
    key: str
    select: tuple[str, str] | None = None


class DictPath:
    def __init__(self, steps: list[_Step], text: str) -> None:
        self.steps = steps
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"DictPath({self.text!r})"

    def get_element(self, container: Any) -> Any:
        current = container
        for step in self.steps:
            current = _child(current, step, create=False)
        return current

    def set_element(self, container: Any, value: Any) -> None:
        if not self.steps:
            raise LookupError("the empty path has no element to set")
        current = container
        for step in self.steps[:-1]:
            current = _child(current, step, create=True)
        last = self.steps[-1]
        if last.select is None:
            current[last.key] = value
            return
        items = current.setdefault(last.key, [])
        for n, item in enumerate(items):
            if isinstance(item, dict) and str(item.get(last.select[0])) == last.select[1]:
                items[n] = value
                return
        items.append(value)


def _child(current: Any, step: _Step, create: bool) -> Any:
    if not isinstance(current, dict):
        raise LookupError(f"{step.key}: not a dict")
    if step.key not in current:
        if not create:
            raise LookupError(f"no key {step.key!r}")
        current[step.key] = [] if step.select is not None else {}
    value = current[step.key]
    if step.select is None:
        return value
    attribute, wanted = step.select
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict) and str(item.get(attribute)) == wanted:
            return item
    if not create:
        raise LookupError(f"no element of {step.key!r} with {attribute}={wanted}")
    made = {attribute: wanted}
    value.append(made)
    return made


def _split(text: str, separator: str) -> list[str]:
    parts, current, escaped, depth = [], [], False, 0
    for char in text:
        if escaped:
            current.append("\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            depth += 1
            current.append(char)
        elif char == "]":
            depth -= 1
            current.append(char)
        elif char == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _unescape(text: str) -> str:
    out, escaped = [], False
    for char in text:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            out.append(char)
    return "".join(out)


def to_path(text: str) -> DictPath:
    steps: list[_Step] = []
    body = text[1:] if text.startswith(".") else text
    for part in _split(body, ".") if body else []:
        select = None
        if part.endswith("]") and "[" in part:
            key, _, inner = part[:-1].partition("[")
            attribute, _, value = inner.partition("=")
            select = (_unescape(attribute), _unescape(value))
            part = key
        steps.append(_Step(_unescape(part), select))
    return DictPath(steps, text)
