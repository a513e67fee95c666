"""Canonical, deterministic text dump of syntax trees (and any slotted dataclass tree).

One node per line, indented by depth: ``Kind @line:col-end_line:end_col`` followed by
its scalar fields as ``key=value`` (values in Python repr, so strings are quoted and
escaped), then its child nodes and lists under their field names. The file name is
left out of spans (it is printed once at the top) so golden files do not depend on
where the test tree lives. Used by ``cfmodel parse`` and by the golden tests.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from cfmodel.errors import Span
from cfmodel.grammars import nodes


def dump_module(module: nodes.Module) -> str:
    lines = [f"Module {module.file}"]
    if module.doc is not None:
        lines.append(f"  doc={module.doc!r}")
    for statement in module.statements:
        _dump(statement, 1, lines, None)
    return "\n".join(lines) + "\n"


def dump_node(node: Any) -> str:
    """The canonical text of any syntax node (the mcl tree's too)."""
    lines: list[str] = []
    _dump(node, 0, lines, None)
    return "\n".join(lines) + "\n"


def _span_text(span: Span) -> str:
    return f"@{span.line}:{span.col}-{span.end_line}:{span.end_col}"


def _is_node(value: Any) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, Span | type)


def _scalar(value: Any) -> str:
    if isinstance(value, nodes.Name):
        return f"{value.text} {_span_text(value.span)}"
    return repr(value)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, nodes.Name) or not (_is_node(value) or isinstance(value, list | tuple))


def _dump(root: Any, root_depth: int, lines: list[str], root_label: str | None) -> None:
    # An explicit stack, not recursion: a tree as deep as the parser allows (a long chain
    # of `+`) is printed whatever Python's recursion limit.
    stack: list[tuple[Any, int, str | None, bool]] = [(root, root_depth, root_label, False)]
    while stack:
        node, depth, label, is_sequence = stack.pop()
        if is_sequence:
            _dump_sequence(label or "", node, depth, lines, stack)
            continue
        indent = "  " * depth
        prefix = f"{label}: " if label else ""
        if not _is_node(node):
            lines.append(f"{indent}{prefix}{_scalar(node)}")
            continue
        fields = [f for f in dataclasses.fields(node) if f.name != "span"]
        head = [type(node).__name__]
        span = getattr(node, "span", None)
        if isinstance(span, Span):
            head.append(_span_text(span))
        children: list[tuple[str, Any]] = []
        for f in fields:
            value = getattr(node, f.name)
            if _is_scalar(value):
                head.append(f"{f.name}={_scalar(value)}")
            else:
                children.append((f.name, value))
        lines.append(indent + prefix + " ".join(head))
        for name, value in reversed(children):
            sequence = isinstance(value, list | tuple) and not _is_node(value)
            stack.append((value, depth + 1, name, sequence))


def _dump_sequence(
    name: str,
    items: list[Any] | tuple[Any, ...],
    depth: int,
    lines: list[str],
    stack: list[tuple[Any, int, str | None, bool]],
) -> None:
    indent = "  " * depth
    if not items:
        lines.append(f"{indent}{name}: []")
        return
    lines.append(f"{indent}{name}:")
    for item in reversed(items):
        if isinstance(item, tuple) and not _is_node(item):
            # (key, expression) pairs of a dict literal
            stack.append((item[1], depth + 1, repr(item[0]), False))
        else:
            stack.append((item, depth + 1, None, False))
