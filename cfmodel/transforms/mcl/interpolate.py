"""Interpolation: string expansion and class nesting (the guide's first stage after parsing).

Input: a parsed `Program`. Output: the same program, changed in place, where

* every string literal holding ``${name}`` is an `Interpolated` of literal parts and `Var`s
  (each variable with its own span); ``\\$`` before ``{`` keeps a literal ``${``; the escapes
  of every string are decoded (an unknown one is an error, as in mgmt);
* every ``class base:inner`` definition has moved into the body of the class ``base``
  defined in the same statement list (as ``class inner``), at any depth (``a:b:c``).

Errors (``mcl-interpolate``): ``${...}`` holding anything but a variable name (only
variables may be interpolated), an unclosed ``${``, an unknown escape sequence,
``class a:b`` without a class ``a`` beside it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from cfmodel.errors import CfCompileError, Diagnostics, Span
from cfmodel.grammars import mcl_nodes as n

_NAME = re.compile(r"[a-z]([a-z0-9_]*[a-z0-9])?(\.[a-z]([a-z0-9_]*[a-z0-9])?)*\Z")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "$": "$", "0": "\0", "a": "\a"}


def interpolate(program: n.Program) -> n.Program:
    """Run the stage on *program* (changed in place and returned).

    Raises:
        CfCompileError: every problem found (code ``mcl-interpolate``).
    """
    diagnostics = Diagnostics()
    program.statements = _nest_classes(program.statements, diagnostics)
    _Expander(diagnostics).visit(program)
    diagnostics.raise_if_errors()
    return program


# --- class nesting --------------------------------------------------------------------------


def _nest_classes(statements: list[n.Stmt], diagnostics: Diagnostics) -> list[n.Stmt]:
    kept: list[n.Stmt] = []
    classes: dict[str, n.ClassDef] = {}
    for stmt in statements:
        if isinstance(stmt, n.ClassDef) and ":" in stmt.name:
            base, _, rest = stmt.name.partition(":")
            parent = classes.get(base)
            if parent is None:
                diagnostics.error(
                    stmt.span, f"class {stmt.name}: there is no class {base} in this scope", "mcl-interpolate"
                )
                continue
            stmt.name = rest
            parent.body.append(stmt)
            continue
        if isinstance(stmt, n.ClassDef):
            classes.setdefault(stmt.name, stmt)
        kept.append(stmt)
    for stmt in kept:
        for block in _blocks(stmt):
            block[:] = _nest_classes(block, diagnostics)
    return kept


def _blocks(stmt: n.Stmt) -> list[list[n.Stmt]]:
    if isinstance(stmt, n.ClassDef):
        return [stmt.body]
    if isinstance(stmt, n.If):
        return [stmt.then] + ([stmt.otherwise] if stmt.otherwise is not None else [])
    if isinstance(stmt, (n.For, n.ForKV)):
        return [stmt.body]
    return []


# --- string expansion -----------------------------------------------------------------------


class _Expander:
    def __init__(self, diagnostics: Diagnostics) -> None:
        self.diagnostics = diagnostics

    def visit(self, node: Any) -> Any:
        if isinstance(node, n.StrLit):
            return self.expand(node) if node.raw is not None else node
        if isinstance(node, list):
            return [self.visit(item) for item in node]
        if isinstance(node, tuple):
            return tuple(self.visit(item) for item in node)
        if dataclasses.is_dataclass(node) and not isinstance(node, (Span, n.TypeNode)):
            for f in dataclasses.fields(node):
                value = getattr(node, f.name)
                if isinstance(value, (list, tuple)) or (
                    dataclasses.is_dataclass(value) and not isinstance(value, Span)
                ):
                    setattr(node, f.name, self.visit(value))
        return node

    def expand(self, lit: n.StrLit) -> n.Expr:
        raw = lit.raw or ""
        parts: list[n.StrLit | n.Var] = []
        text: list[str] = []
        i = 0
        while i < len(raw):
            char = raw[i]
            if char == "\\" and i + 1 < len(raw):
                if raw[i + 1] not in _ESCAPES:
                    message = f"unknown escape sequence \\{raw[i + 1]} in a string"
                    self.diagnostics.error(self.span_at(lit, i, i + 2), message, "mcl-interpolate")
                    return lit
                text.append(_ESCAPES[raw[i + 1]])
                i += 2
                continue
            if raw.startswith("${", i):
                end = raw.find("}", i + 2)
                if end < 0:
                    self.diagnostics.error(
                        self.span_at(lit, i, len(raw)), "unclosed ${ in a string", "mcl-interpolate"
                    )
                    return lit
                name = raw[i + 2 : end].strip()
                if name.startswith("$"):
                    name = name[1:]
                if not _NAME.match(name):
                    message = f"only variables may be interpolated, not ${{{raw[i + 2 : end]}}}"
                    self.diagnostics.error(self.span_at(lit, i, end + 1), message, "mcl-interpolate")
                    return lit
                if text:
                    parts.append(n.StrLit(lit.span, "".join(text)))
                    text = []
                parts.append(n.Var(self.span_at(lit, i, end + 1), name))
                i = end + 1
                continue
            text.append(char)
            i += 1
        if text:
            parts.append(n.StrLit(lit.span, "".join(text)))
        if not any(isinstance(p, n.Var) for p in parts):
            return n.StrLit(lit.span, "".join(p.value for p in parts if isinstance(p, n.StrLit)))
        return n.Interpolated(lit.span, parts)

    @staticmethod
    def span_at(lit: n.StrLit, start: int, end: int) -> Span:
        """The span of raw[start:end] (the raw text starts one past the opening quote)."""
        raw = lit.raw or ""
        line, col = lit.span.line, lit.span.col + 1
        for char in raw[:start]:
            line, col = (line + 1, 1) if char == "\n" else (line, col + 1)
        end_line, end_col = line, col
        for char in raw[start:end]:
            end_line, end_col = (end_line + 1, 1) if char == "\n" else (end_line, end_col + 1)
        return Span(lit.span.file, line, col, end_line, end_col)


__all__ = ["CfCompileError", "interpolate"]
