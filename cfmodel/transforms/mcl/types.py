"""mcl's types, unification variables and the signature strings of the function API.

A type is ``bool``, ``str``, ``int``, ``float``, ``[]T``, ``map{K: V}``,
``struct{a T; b U}`` or ``func(a T, b U) R``; ``?1``, ``?2`` ... in a signature string are
unification variables (`TypeVar`), fresh for every use of the signature. ``variant``
stands for "any type" (a fresh variable). `Solution.resolve` replaces solved variables.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from cfmodel.grammars import mcl_nodes as n


class Type:
    """Base of every mcl type."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Basic(Type):
    name: str  # bool, str, int, float

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ListOf(Type):
    item: Type

    def __str__(self) -> str:
        return f"[]{self.item}"


@dataclass(frozen=True, slots=True)
class MapOf(Type):
    key: Type
    value: Type

    def __str__(self) -> str:
        return f"map{{{self.key}: {self.value}}}"


@dataclass(frozen=True, slots=True)
class StructOf(Type):
    fields: tuple[tuple[str, Type], ...]

    def __str__(self) -> str:
        return "struct{" + "; ".join(f"{name} {t}" for name, t in self.fields) + "}"

    def field(self, name: str) -> Type | None:
        for field_name, field_type in self.fields:
            if field_name == name:
                return field_type
        return None


@dataclass(frozen=True, slots=True)
class FuncOf(Type):
    args: tuple[tuple[str, Type], ...]
    result: Type

    def __str__(self) -> str:
        args = ", ".join(f"{name} {t}" if name else str(t) for name, t in self.args)
        return f"func({args}) {self.result}"


class TypeVar(Type):
    """A unification variable (compares by identity); ``label`` is for messages only."""

    __slots__ = ("number",)
    _counter = itertools.count(1)

    def __init__(self) -> None:
        self.number = next(TypeVar._counter)

    def __str__(self) -> str:
        return f"?{self.number}"

    def __repr__(self) -> str:
        return f"TypeVar({self.number})"


BOOL, STR, INT, FLOAT = Basic("bool"), Basic("str"), Basic("int"), Basic("float")
BASICS = {"bool": BOOL, "str": STR, "int": INT, "float": FLOAT}


def from_node(node: n.TypeNode) -> Type:
    """The type a written annotation stands for (``variant``: a fresh variable)."""
    if node.kind in BASICS:
        return BASICS[node.kind]
    if node.kind == "variant":
        return TypeVar()
    if node.kind == "list":
        return ListOf(from_node(node.items[0]))
    if node.kind == "map":
        return MapOf(from_node(node.items[0]), from_node(node.items[1]))
    if node.kind == "struct":
        return StructOf(tuple((name, from_node(t)) for name, t in node.fields))
    assert node.result is not None
    return FuncOf(tuple((name, from_node(t)) for name, t in node.fields), from_node(node.result))


class SignatureError(ValueError):
    """A signature string that does not parse (a bug in a function's declaration)."""


_TOKEN = re.compile(r"\s*(\?\d+|[a-z][a-z0-9_]*|\[\]|[{}();:,]|\$)")


def parse_type(text: str, variables: dict[str, TypeVar] | None = None) -> Type:
    """Parse a type or signature string such as ``func(a ?1, b []?2) ?1``.

    ``variables`` maps ``?N`` names to the variables already made for this use (the same
    ``?1`` twice is one variable); pass a fresh dict per use.
    """
    tokens = _tokenize(text)
    parser = _TypeParser(tokens, variables if variables is not None else {})
    result = parser.type()
    if parser.pos != len(tokens):
        raise SignatureError(f"unexpected {tokens[parser.pos]!r} in type {text!r}")
    return result


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise SignatureError(f"cannot read type {text!r} at {pos}")
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


class _TypeParser:
    def __init__(self, tokens: list[str], variables: dict[str, TypeVar]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.variables = variables

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if not token or (expected is not None and token != expected):
            raise SignatureError(f"expected {expected or 'a type'}, got {token or 'the end'!r}")
        self.pos += 1
        return token

    def type(self) -> Type:
        token = self.take()
        if token in BASICS:
            return BASICS[token]
        if token == "variant":
            return TypeVar()
        if token.startswith("?"):
            return self.variables.setdefault(token, TypeVar())
        if token == "[]":
            return ListOf(self.type())
        if token == "map":
            self.take("{")
            key = self.type()
            self.take(":")
            value = self.type()
            self.take("}")
            return MapOf(key, value)
        if token == "struct":
            return StructOf(self.struct_fields())
        if token == "func":
            return self.func()
        raise SignatureError(f"unknown type {token!r}")

    def struct_fields(self) -> tuple[tuple[str, Type], ...]:
        self.take("{")
        fields: list[tuple[str, Type]] = []
        while self.peek() != "}":
            name = self.take()
            fields.append((name, self.type()))
            if self.peek() == ";":
                self.take()
        self.take("}")
        return tuple(fields)

    def func(self) -> FuncOf:
        self.take("(")
        args: list[tuple[str, Type]] = []
        while self.peek() != ")":
            if self.peek() == "$":
                self.take()
            name = ""
            following = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else ""
            if (
                self.peek() not in BASICS
                and self.peek() not in ("map", "struct", "func", "variant", "[]")
                and not self.peek().startswith("?")
            ):
                name = self.take()
            elif self.peek() in BASICS and following not in (",", ")"):
                name = self.take()  # an argument named like a type
            args.append((name, self.type()))
            if self.peek() == ",":
                self.take()
        self.take(")")
        return FuncOf(tuple(args), self.type())


def contains_vars(t: Type) -> bool:
    if isinstance(t, TypeVar):
        return True
    if isinstance(t, ListOf):
        return contains_vars(t.item)
    if isinstance(t, MapOf):
        return contains_vars(t.key) or contains_vars(t.value)
    if isinstance(t, StructOf):
        return any(contains_vars(f) for _, f in t.fields)
    if isinstance(t, FuncOf):
        return any(contains_vars(a) for _, a in t.args) or contains_vars(t.result)
    return False


def display(t: Type) -> str:
    """The type as text with its unification variables numbered ``?1``, ``?2`` ... in order
    of appearance (messages do not depend on how many variables were made before)."""
    names: dict[TypeVar, str] = {}

    def show(u: Type) -> str:
        if isinstance(u, TypeVar):
            return names.setdefault(u, f"?{len(names) + 1}")
        if isinstance(u, ListOf):
            return f"[]{show(u.item)}"
        if isinstance(u, MapOf):
            return f"map{{{show(u.key)}: {show(u.value)}}}"
        if isinstance(u, StructOf):
            return "struct{" + "; ".join(f"{name} {show(f)}" for name, f in u.fields) + "}"
        if isinstance(u, FuncOf):
            args = ", ".join(f"{name} {show(a)}" if name else show(a) for name, a in u.args)
            return f"func({args}) {show(u.result)}"
        return str(u)

    return show(t)
