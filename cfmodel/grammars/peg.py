"""Compile the parser textX builds from a grammar into Python source, for speed.

Input: a textX metamodel (the grammar, here `cf.tx`, loaded by textX). textX turns the
grammar into an Arpeggio parser model, a graph of `Sequence`, `OrderedChoice`,
`Optional`, `ZeroOrMore`, `OneOrMore`, `StrMatch` and `RegExMatch` nodes, and interprets
it: every node is a method call that raises `NoMatch` to backtrack, and a second pass
turns the parse tree into model objects. This module translates the same graph into one
Python function per rule (sequences become nested ``if``s, choices and repetitions
restore a saved position, each token is one precompiled regex that also skips the
leading whitespace) that builds the model objects directly.

Output: `compile_parser(metamodel)` returns ``parse(text) -> model | None``;
`compile_explainer(metamodel)` returns ``explain(text) -> Failure | None``, the farthest
failure and what was expected there, as Arpeggio would report it. The model
objects are shaped like textX's: one slotted class per common rule, named after the rule,
with the rule's attributes (lists for ``*=``/``+=``; until assigned, textX's initial
values: ``''`` for a plain string match, ``False`` for ``?=``, else ``None``) and
``_tx_position``/``_tx_position_end`` (offsets of the first token and just past the last
one); abstract rules give the object of the alternative that matched, match rules the
matched text.

Guarantees: the language is exactly the one the Arpeggio parser accepts (same ordered
choice, same greedy repetition, same whitespace, the same rules for "matched nothing"),
and the objects carry the same values and positions. ``None`` means "not valid": the
caller asks the explainer where and why. Every rule is memoized per position (packrat
parsing), so both cost time and memory linear in the text, whatever the input (an
Arpeggio re-parse is exponential on some small malformed files).
Constructs it does not translate (comment rules, per-rule whitespace, case-insensitive
matching, match rules other than one token, ...) raise `UnsupportedGrammarError` when the
parser is compiled, never silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from re import _parser as _sre_parse  # type: ignore[attr-defined]  # shortest match of a regex
from typing import Any

from arpeggio import (
    And,
    EndOfFile,
    Match,
    Not,
    OneOrMore,
    Optional,
    OrderedChoice,
    Parser,
    ParsingExpression,
    RegExMatch,
    Sequence,
    StrMatch,
    ZeroOrMore,
)
from textx.const import MULT_ONEORMORE, MULT_ZEROORMORE, RULE_ABSTRACT, RULE_COMMON, RULE_MATCH
from textx.lang import BASE_TYPE_NAMES, python_type

Parse = Callable[[str], Any]


class UnsupportedGrammarError(Exception):
    """The grammar uses a construct this compiler does not translate."""


@dataclass(frozen=True, slots=True)
class Failure:
    """Where a parse that failed got farthest, and what it expected there.

    Exactly what Arpeggio's `NoMatch` reports: *position* is the farthest offset (after
    whitespace) where a token failed to match; *expected* the parsing expressions (the
    grammar's own `Match` nodes, or Arpeggio's ``Parser.FIRST_NOT`` for a lookahead that
    matched) that failed there, in the order they were tried.
    """

    position: int
    expected: tuple[ParsingExpression, ...]


Explain = Callable[[str], Failure | None]


def compile_parser(metamodel: Any) -> Parse:
    """Compile the parser of *metamodel* (a textX metamodel) into Python functions."""
    parse: Parse = _build(_Compiler(metamodel))["parse"]
    return parse


def compile_explainer(metamodel: Any) -> Explain:
    """Compile the same parser, recording failures: ``explain(text)`` gives `None` for a
    valid text, else the `Failure` Arpeggio would report (its cost stays linear in the
    text, as the parser's)."""
    explain: Explain = _build(_Compiler(metamodel, track=True))["explain"]
    return explain


def _build(compiler: _Compiler) -> dict[str, Any]:
    source = compiler.source()
    namespace: dict[str, Any] = {"re": re, "_NODES": compiler.nodes, "_FIRST_NOT": Parser.FIRST_NOT}
    exec(compile(source, "<cfmodel.grammars.peg>", "exec"), namespace)
    namespace["Failure"] = Failure
    namespace["parse"].source = source  # for debugging
    return namespace


# Inside `_functions`: a lookahead `!x` whose `x` matched fails where it started (Arpeggio
# records Parser.FIRST_NOT there, and only if that is farther than any failure so far).
_FAILURE_RECORDER = [
    "def _record_not(far, at):",
    "    if at > far[0]:",
    "        far[0] = at",
    "        far[1] = [_FIRST_NOT]",
]


def _assignment_op(node: ParsingExpression) -> str | None:
    name: str = node.rule_name
    if node.root and name.startswith("__asgn_"):
        return name[len("__asgn_") :]
    return None


def _is_rule(node: ParsingExpression) -> bool:
    return bool(node.root and node.rule_name and not node.rule_name.startswith("__asgn"))


def _is_token(node: ParsingExpression) -> bool:
    return isinstance(node, StrMatch | RegExMatch)


class _Compiler:
    def __init__(self, metamodel: Any, track: bool = False) -> None:
        # track: record every token that fails at the farthest position (the error path);
        # then every alternative is tried, as Arpeggio does, so that none goes unrecorded
        self.track = track
        self.nodes: list[ParsingExpression] = []  # the token nodes failures refer to
        parser = metamodel._parser_blueprint
        self.auto_init = bool(metamodel.auto_init_attributes)
        # values textX would convert or objects it would make differently
        self.processed = set(metamodel._obj_processors)
        if metamodel.user_classes:
            raise UnsupportedGrammarError("user classes")
        if metamodel.use_regexp_group:
            raise UnsupportedGrammarError("use_regexp_group")
        if parser.comments_model is not None:
            raise UnsupportedGrammarError("comment rules")
        if parser.ignore_case:
            raise UnsupportedGrammarError("case-insensitive matching")
        if not parser.skipws:
            raise UnsupportedGrammarError("skipws=False")
        self.ws = parser.ws
        self.model = parser.parser_model
        self.tokens: dict[tuple[str, int], str] = {}
        self.charsets: dict[str, str] = {}  # the characters -> constant name
        self.firsts: dict[int, frozenset[str] | None] = {}
        self.functions: dict[int, str] = {}  # id(rule node) -> function name
        self.todo: list[ParsingExpression] = []
        self.classes: dict[str, list[tuple[str, str]]] = {}  # rule -> [(attribute, default)]
        self.counter = 0
        # per rule function being generated
        self.attrs: dict[str, str] = {}  # attribute -> "list" | "one"
        self.kind = RULE_COMMON

    # ------------------------------------------------------------- the whole module

    def source(self) -> str:
        model = self.model
        shape_ok = isinstance(model, Sequence) and len(model.nodes) == 2
        if not (shape_ok and isinstance(model.nodes[1], EndOfFile)):
            raise UnsupportedGrammarError("the parser model is not 'root rule, EOF'")
        top = model.nodes[0]
        if not _is_rule(top) or self._rule_type(top) != RULE_COMMON:
            raise UnsupportedGrammarError("the first rule must be a common rule")
        self.validate()
        entry = self.function_for(top)
        bodies: list[str] = []
        while self.todo:
            node = self.todo.pop()
            bodies.extend(self.rule_function(node))
        ws_class = "[" + "".join(re.escape(c) for c in self.ws) + "]*"
        head = [f"_ws = re.compile({ws_class!r}).match"]
        for (pattern, flags), name in sorted(self.tokens.items(), key=lambda item: item[1]):
            head.append(f"{name} = re.compile({ws_class + '(' + pattern + ')'!r}, {flags}).match")
        for chars, name in self.charsets.items():
            head.append(f"{name} = frozenset({chars!r})")
        for rule, attributes in self.classes.items():
            slots = [name for name, _ in attributes] + ["_tx_position", "_tx_position_end"]
            params = ", ".join(f"a{i}" for i in range(len(slots)))
            head.append(f"class {rule}:")
            head.append(f"    __slots__ = {tuple(slots)!r}")
            head.append(f"    def __init__(self, {params}):")
            head.extend(f"        self.{slot} = a{i}" for i, slot in enumerate(slots))
        out = [*head, "", "def _functions(text, far):"]
        out.extend("    " + line for line in _FAILURE_RECORDER)
        out.extend("    " + line for line in bodies)
        out.append(f"    return {entry}")
        out += [
            "",
            "def parse(text):",
            "    result = _functions(text, None)(0)",
            "    if result is None:",
            "        return None",
            "    if _ws(text, result._tx_position_end).end() != len(text):",
            "        return None",
            "    return result",
            "",
            "def explain(text):",
            "    far = [-1, [], 0]  # farthest failure, what failed there, depth inside a Not",
            "    result = _functions(text, far)(0)",
            "    if result is not None:",
            "        end = _ws(text, result._tx_position_end).end()",
            "        if end == len(text):",
            "            return None",
            f"        _record(far, end, {self.node_index(self.model.nodes[1])})",
            "    return Failure(far[0], tuple(far[1]))",
            "",
            "def _record(far, at, node):",
            "    if at > far[0]:",
            "        far[0] = at",
            "        far[1] = [_FIRST_NOT if far[2] else _NODES[node]]",
            "    elif at == far[0] and not far[2]:",
            "        far[1].append(_NODES[node])",
        ]
        return "\n".join(out) + "\n"

    def node_index(self, node: ParsingExpression) -> int:
        """The index of *node* in the table failures refer to."""
        for index, known in enumerate(self.nodes):
            if known is node:
                return index
        self.nodes.append(node)
        return len(self.nodes) - 1

    def _rule_type(self, node: ParsingExpression) -> str:
        cls = getattr(node, "_tx_class", None)
        if cls is None:
            raise UnsupportedGrammarError(f"rule {node.rule_name} has no textX class")
        kind: str = cls._tx_type
        return kind

    def token(self, node: ParsingExpression) -> str:
        if node.rule_name in self.processed:
            raise UnsupportedGrammarError(f"a token converted by textX: {node.rule_name}")
        if isinstance(node, StrMatch):
            if node.ignore_case:
                raise UnsupportedGrammarError("case-insensitive string match")
            pattern, flags = re.escape(node.to_match), 0
        else:
            assert isinstance(node, RegExMatch)
            pattern, flags = node.regex.pattern, int(node.regex.flags)
            if flags & re.IGNORECASE:
                raise UnsupportedGrammarError("case-insensitive regex match")
            parsed = _sre_parse.parse(pattern, flags)
            if _has_group_reference(parsed):
                # the token is wrapped in a group, which renumbers the pattern's groups
                raise UnsupportedGrammarError(f"regex with a back-reference: {pattern}")
            if parsed.getwidth()[0] == 0:
                raise UnsupportedGrammarError(f"regex that can match nothing: {pattern}")
        key = (pattern, flags)
        if key not in self.tokens:
            self.tokens[key] = f"_t{len(self.tokens)}"
        return self.tokens[key]

    def charset(self, chars: frozenset[str]) -> str:
        """The name of a module-level constant holding *chars*."""
        key = "".join(sorted(chars))
        if key not in self.charsets:
            self.charsets[key] = f"_c{len(self.charsets)}"
        return self.charsets[key]

    def default(self, attr: Any) -> str:
        """textX's initial value of a single-valued attribute, as Python source."""
        type_name = attr.cls.__name__
        if type_name in BASE_TYPE_NAMES:
            if self.auto_init:
                return repr(python_type(type_name)())
            return "False" if attr.bool_assignment else "None"
        return "None"

    def function_for(self, node: ParsingExpression) -> str:
        if id(node) not in self.functions:
            kind = self._rule_type(node)
            if kind == RULE_MATCH:
                raise UnsupportedGrammarError(f"match rule {node.rule_name} is not a single token")
            self.functions[id(node)] = f"r_{node.rule_name}"
            self.todo.append(node)
        return self.functions[id(node)]

    def var(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ------------------------------------------------------------- one rule

    def rule_function(self, node: ParsingExpression) -> list[str]:
        kind = self._rule_type(node)
        name = self.functions[id(node)]
        if node.rule_name in self.processed:
            raise UnsupportedGrammarError(f"an object processor for {node.rule_name}")
        self.kind = kind
        self.counter = 0
        # Packrat memoization: each rule is tried at most once per position, so that no
        # input (however its blocks fail) costs more than linear time.
        memo = f"{name}_memo"
        lines = [
            f"{memo} = {{}}",
            f"def {name}(pos):",
            f"    if pos in {memo}:",
            f"        return {memo}[pos]",
            "    at = pos",
        ]
        if kind == RULE_COMMON:
            attributes = []
            self.attrs = {}
            for attr in node._tx_class._tx_attrs.values():
                if attr.mult in (MULT_ZEROORMORE, MULT_ONEORMORE):
                    attributes.append((attr.name, "[]"))
                    self.attrs[attr.name] = "list"
                else:
                    attributes.append((attr.name, self.default(attr)))
                    self.attrs[attr.name] = "one"
                if not attr.name.isidentifier() or attr.name.startswith("_"):
                    raise UnsupportedGrammarError(f"attribute name {attr.name}")
            self.classes[node.rule_name] = attributes
            lines.append("    pos = _ws(text, pos).end()")
            lines.append("    start = pos")
            lines.extend(f"    a_{attr} = {default}" for attr, default in attributes)
            lines.extend(self.expression(node, 1, None, as_rule_body=True))
            args = ", ".join(f"a_{attr}" for attr, _ in attributes)
            lines.append("    if pos < 0:")
            lines.append(f"        {memo}[at] = None")
            lines.append("        return None")
            lines.append(f"    r = {memo}[at] = {node.rule_name}({args}{', ' if args else ''}start, pos)")
            lines.append("    return r")
        elif kind == RULE_ABSTRACT:
            if not isinstance(node, OrderedChoice) or not all(
                _is_rule(alt) and self._rule_type(alt) != RULE_MATCH for alt in node.nodes
            ):
                raise UnsupportedGrammarError(f"abstract rule {node.rule_name} is not a choice of rules")
            # Every alternative is a rule call that returns an object (or None). One look
            # at the next character skips those that cannot start there (each would
            # otherwise be a call, a whitespace skip and a failed match).
            lines.append("    pos = _ws(text, pos).end()")
            lines.append("    c = text[pos : pos + 1]")
            for alt in node.nodes:
                ind = "    "
                first = None if self.track else self.first(alt)
                if first is not None and not self.can_match_empty(alt):
                    lines.append(f"    if c in {self.charset(first)}:")
                    ind += "    "
                lines.append(f"{ind}r = {self.function_for(alt)}(pos)")
                lines.append(f"{ind}if r is not None:")
                lines.append(f"{ind}    {memo}[at] = r")
                lines.append(f"{ind}    return r")
            lines.append(f"    {memo}[at] = None")
            lines.append("    return None")
        else:
            raise UnsupportedGrammarError(f"rule {node.rule_name} of type {kind}")
        return lines

    # ------------------------------------------------------------- expressions

    def expression(
        self, node: ParsingExpression, depth: int, value: str | None, as_rule_body: bool = False
    ) -> list[str]:
        """Code that matches *node* at ``pos``: leaves the new ``pos``, or -1 on failure.

        *value*, if given, is a variable to set to the node's value on success.
        """
        ind = "    " * depth
        op = _assignment_op(node)
        if op is not None:
            return self.assignment(node, op, depth)
        if _is_rule(node) and not as_rule_body:
            if _is_token(node):  # a match rule that is one token
                return self.token_code(node, depth, value)
            function = self.function_for(node)
            result = value or "r"
            return [
                f"{ind}{result} = {function}(pos)",
                f"{ind}pos = -1 if {result} is None else {result}._tx_position_end",
            ]
        if _is_token(node):
            return self.token_code(node, depth, value)
        if value is not None:
            raise UnsupportedGrammarError(f"a value from {type(node).__name__}")
        if isinstance(node, OrderedChoice):
            return self.choice(node, depth)
        if isinstance(node, Sequence):
            if node.ws is not None or node.skipws is not None:
                raise UnsupportedGrammarError("per-rule whitespace settings")
            return self.sequence(node.nodes, depth)
        if isinstance(node, Optional):
            return self.optional(node, depth)
        if isinstance(node, ZeroOrMore | OneOrMore):
            return self.repetition(node, depth, None)
        if isinstance(node, Not | And):
            return self.predicate(node, depth)
        raise UnsupportedGrammarError(f"parsing expression {type(node).__name__}")

    def token_code(self, node: ParsingExpression, depth: int, value: str | None) -> list[str]:
        ind = "    " * depth
        match = self.token(node)
        lines = [f"{ind}m = {match}(text, pos)"]
        if self.track:
            lines += [
                f"{ind}if m is None:",
                f"{ind}    _record(far, _ws(text, pos).end(), {self.node_index(node)})",
            ]
        if value is None:
            lines.append(f"{ind}pos = -1 if m is None else m.end()")
        else:
            lines += [
                f"{ind}if m is None:",
                f"{ind}    pos = -1",
                f"{ind}else:",
                f"{ind}    pos = m.end()",
                f"{ind}    {value} = m.group(1)",
            ]
        return lines

    def sequence(self, nodes: list[ParsingExpression], depth: int) -> list[str]:
        lines: list[str] = []
        for index, child in enumerate(nodes):
            lines.extend(self.expression(child, depth, None))
            if index < len(nodes) - 1 and self.can_fail(child):
                lines.append("    " * depth + "if pos >= 0:")
                depth += 1
        return lines

    def choice(self, node: ParsingExpression, depth: int) -> list[str]:
        if node.ws is not None or node.skipws is not None:
            raise UnsupportedGrammarError("per-rule whitespace settings")
        saved = self.var("p")
        save, restore = self.snapshot(node.nodes)
        ind = "    " * depth
        lines = [f"{ind}{saved} = pos", *(ind + line for line in save)]
        for index, alt in enumerate(node.nodes):
            ind = "    " * depth
            lines.extend(self.expression(alt, depth, None))
            empty = self.can_match_empty(alt)
            if index == len(node.nodes) - 1:
                if empty:  # matched nothing: the choice fails
                    lines.append(f"{ind}if pos == {saved}:")
                    lines.append(f"{ind}    pos = -1")
                break
            condition = f"pos < 0 or pos == {saved}" if empty else "pos < 0"
            lines.append(f"{ind}if {condition}:")
            lines.append(f"{ind}    pos = {saved}")
            lines.extend(f"{ind}    {line}" for line in restore)
            depth += 1
        return lines

    def optional(self, node: ParsingExpression, depth: int) -> list[str]:
        ind = "    " * depth
        saved = self.var("p")
        save, restore = self.snapshot(node.nodes[:1])
        lines = [f"{ind}{saved} = pos", *(ind + line for line in save)]
        lines.extend(self.expression(node.nodes[0], depth, None))
        lines.append(f"{ind}if pos < 0:")
        lines.append(f"{ind}    pos = {saved}")
        lines.extend(f"{ind}    {line}" for line in restore)
        return lines

    def repetition(self, node: ParsingExpression, depth: int, attribute: str | None) -> list[str]:
        """``*`` and ``+`` (with an optional separator); appends each value to *attribute*."""
        if node.eolterm:
            raise UnsupportedGrammarError("eolterm")
        ind = "    " * depth
        element = node.nodes[0]
        saved = self.var("p")
        count = self.var("n")
        item = self.var("v") if attribute else None
        save, restore = self.snapshot([element])
        lines = [f"{ind}{count} = 0", f"{ind}while True:", f"{ind}    {saved} = pos"]
        lines.extend(f"{ind}    {line}" for line in save)
        body = depth + 1
        if node.sep is not None:
            if self.can_match_empty(node.sep):
                raise UnsupportedGrammarError("a separator that can match nothing")
            lines.append(f"{ind}    if {count}:")
            lines.extend(self.expression(node.sep, depth + 2, None))
            lines.append(f"{ind}        if pos < 0:")
            lines.append(f"{ind}            pos = {saved}")
            lines.append(f"{ind}            break")
        before = saved
        if node.sep is not None and self.can_match_empty(element):
            before = self.var("q")
            lines.append(f"{ind}    {before} = pos")
        lines.extend(self.expression(element, body, item))
        lines.append(f"{ind}    if pos < 0:")
        lines.append(f"{ind}        pos = {saved}")
        lines.extend(f"{ind}        {line}" for line in restore)
        lines.append(f"{ind}        break")
        if self.can_match_empty(element):
            # Arpeggio stops at an element that matched nothing, keeping the position
            lines.append(f"{ind}    if pos == {before}:")
            lines.append(f"{ind}        break")
        if attribute:
            lines.append(f"{ind}    a_{attribute}.append({item})")
        lines.append(f"{ind}    {count} += 1")
        if isinstance(node, OneOrMore):
            lines.append(f"{ind}if not {count}:")
            lines.append(f"{ind}    pos = -1")
        return lines

    def predicate(self, node: ParsingExpression, depth: int) -> list[str]:
        ind = "    " * depth
        if self.assigned(node):
            raise UnsupportedGrammarError("assignments inside a syntactic predicate")
        saved = self.var("p")
        lines = [f"{ind}{saved} = pos"]
        if self.track and isinstance(node, Not):
            lines.append(f"{ind}far[2] += 1")
        lines.extend(self.sequence(node.nodes, depth))
        if self.track and isinstance(node, Not):
            lines.append(f"{ind}far[2] -= 1")
            lines.append(f"{ind}if pos >= 0:")
            lines.append(f"{ind}    _record_not(far, {saved})")
        if isinstance(node, Not):
            lines.append(f"{ind}pos = {saved} if pos < 0 else -1")
        else:
            lines.append(f"{ind}pos = -1 if pos < 0 else {saved}")
        return lines

    def assignment(self, node: ParsingExpression, op: str, depth: int) -> list[str]:
        ind = "    " * depth
        if self.kind != RULE_COMMON:
            raise UnsupportedGrammarError("an assignment outside a common rule")
        attribute = node._attr_name
        shape = self.attrs[attribute]
        if len(node.nodes) != 1:
            raise UnsupportedGrammarError("an assignment of several expressions")
        rhs = node.nodes[0]
        if not (_is_rule(rhs) or _is_token(rhs)):
            raise UnsupportedGrammarError(f"assignment of a {type(rhs).__name__} to {attribute}")
        if op == "plain":
            item = self.var("v")
            lines = self.expression(rhs, depth, item)
            lines.append(f"{ind}if pos >= 0:")
            if shape == "list":
                lines.append(f"{ind}    a_{attribute}.append({item})")
            else:
                lines.append(f"{ind}    a_{attribute} = {item}")
            return lines
        if op == "optional":
            saved = self.var("p")
            lines = [f"{ind}{saved} = pos"]
            lines.extend(self.expression(rhs, depth, None))
            lines.append(f"{ind}if pos < 0:")
            lines.append(f"{ind}    pos = {saved}")
            lines.append(f"{ind}elif pos != {saved}:")
            lines.append(f"{ind}    a_{attribute} = True")
            return lines
        if op in ("zeroormore", "oneormore"):
            if shape != "list":
                raise UnsupportedGrammarError(f"repeated assignment to single attribute {attribute}")
            return self.repetition(node, depth, attribute)
        raise UnsupportedGrammarError(f"assignment operator {op}")

    # ------------------------------------------------------------- analysis

    def snapshot(self, nodes: list[ParsingExpression]) -> tuple[list[str], list[str]]:
        """Statements that save and restore what a failed attempt at one of *nodes* may have assigned."""
        names: set[str] = set()
        for node in nodes:
            if _assignment_op(node) not in ("plain", "optional"):  # those only assign once matched
                names |= self.assigned(node)
        save: list[str] = []
        restore: list[str] = []
        for name in sorted(names):
            saved = self.var("s")
            if self.attrs[name] == "list":
                save.append(f"{saved} = len(a_{name})")
                restore.append(f"del a_{name}[{saved}:]")
            else:
                save.append(f"{saved} = a_{name}")
                restore.append(f"a_{name} = {saved}")
        return save, restore

    def assigned(self, node: ParsingExpression) -> set[str]:
        """Attributes assigned inside *node* (nothing if it is a rule: those are its own)."""
        found: set[str] = set()
        if _is_rule(node):
            return found
        for sub in _walk(node):
            if _assignment_op(sub) is not None:
                found.add(sub._attr_name)
        return found

    def can_fail(self, node: ParsingExpression) -> bool:
        return not isinstance(node, Optional | ZeroOrMore)

    def can_match_empty(self, node: ParsingExpression) -> bool:
        """Can *node* succeed without consuming input?"""
        if isinstance(node, Match):
            return isinstance(node, EndOfFile)
        if isinstance(node, Optional | ZeroOrMore | Not | And):
            return True
        if isinstance(node, OneOrMore):
            return self.can_match_empty(node.nodes[0])
        if isinstance(node, OrderedChoice):
            return False  # an alternative that matched nothing does not count
        if isinstance(node, Sequence):
            return all(self.can_match_empty(child) for child in node.nodes)
        raise UnsupportedGrammarError(f"parsing expression {type(node).__name__}")

    def first(self, node: ParsingExpression) -> frozenset[str] | None:
        """Characters a match of *node* can start with (after whitespace); None if unknown.

        A superset is fine (it only decides what is worth trying); lookaheads are
        ignored, and anything the analysis does not know gives None.
        """
        key = id(node)
        if key in self.firsts:
            return self.firsts[key]
        self.firsts[key] = None  # a rule met again while computing itself: unknown
        result: frozenset[str] | None
        if isinstance(node, StrMatch):
            result = frozenset(node.to_match[:1]) or None
        elif isinstance(node, RegExMatch):
            chars, _ = _regex_first(_sre_parse.parse(node.regex.pattern, node.regex.flags))
            result = frozenset(chars) if chars else None
        elif isinstance(node, EndOfFile | Not | And):
            result = frozenset()
        elif isinstance(node, OrderedChoice):
            result = frozenset()
            for alt in node.nodes:
                sub = self.first(alt)
                result = None if sub is None or result is None else result | sub
        elif isinstance(node, Sequence):
            result = frozenset()
            for child in node.nodes:
                sub = self.first(child)
                result = None if sub is None or result is None else result | sub
                if result is None or not self.can_match_empty(child):
                    break
        elif isinstance(node, Optional | ZeroOrMore | OneOrMore):
            result = self.first(node.nodes[0])
        else:
            result = None
        self.firsts[key] = result
        return result

    def validate(self) -> None:
        """Refuse grammars where "matched" and "consumed input" differ in Arpeggio.

        Arpeggio's OrderedChoice takes a repetition that matched zero times (result
        ``[]``) as a match, and ``(x*)?`` gives a true result for nothing; this compiler
        models "matched" as "consumed input", so it refuses those shapes (and common
        rules that can match nothing, whose objects Arpeggio would not create).
        """
        seen: set[int] = set()
        stack = [self.model]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend(node.nodes)
            if getattr(node, "sep", None) is not None:
                stack.append(node.sep)
            if isinstance(node, OrderedChoice) and any(self._nonnull_empty(alt) for alt in node.nodes):
                raise UnsupportedGrammarError("a choice alternative that matches nothing yet counts")
            if self._truthy_empty(node):
                raise UnsupportedGrammarError("an expression that matches nothing yet counts")
            if isinstance(node, OneOrMore) and self.can_match_empty(node.nodes[0]):
                # Arpeggio's `(x?)+` succeeds with nothing; this compiler counts matches
                raise UnsupportedGrammarError("a one-or-more repetition of something that can match nothing")
            top = node is self.model or node is self.model.nodes[0]
            if not top and _is_rule(node) and self.can_match_empty(node):
                raise UnsupportedGrammarError(f"rule {node.rule_name} can match nothing")

    def _nonnull_empty(self, node: ParsingExpression) -> bool:
        if isinstance(node, ZeroOrMore):
            return True
        if isinstance(node, OneOrMore):
            return self.can_match_empty(node.nodes[0])
        return self._truthy_empty(node)

    def _truthy_empty(self, node: ParsingExpression) -> bool:
        if isinstance(node, Optional):
            return self._nonnull_empty(node.nodes[0])
        if isinstance(node, OrderedChoice):
            return any(self._nonnull_empty(alt) for alt in node.nodes)
        if isinstance(node, Sequence):
            return all(self.can_match_empty(c) for c in node.nodes) and any(
                self._truthy_empty(c) for c in node.nodes
            )
        return False


def _has_group_reference(parsed: Any) -> bool:
    for op, argument in parsed:
        if str(op) in ("GROUPREF", "GROUPREF_EXISTS", "GROUPREF_IGNORE", "GROUPREF_LOC_IGNORE"):
            return True
        for part in argument if isinstance(argument, tuple | list) else ():
            if isinstance(part, _sre_parse.SubPattern) and _has_group_reference(part):
                return True
            if isinstance(part, list) and any(
                isinstance(branch, _sre_parse.SubPattern) and _has_group_reference(branch) for branch in part
            ):
                return True
    return False


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _regex_first(parsed: Any) -> tuple[set[str] | None, bool]:
    """(characters a match of a parsed regex can start with or None if unknown, can it be empty)."""
    chars: set[str] = set()
    for op, argument in parsed:
        name = str(op)
        nullable = False
        sub: set[str] | None
        if name == "LITERAL":
            sub = {chr(argument)}
        elif name == "IN":
            sub = _class_chars(argument)
        elif name == "BRANCH":
            sub, nullable = set(), False
            for branch in argument[1]:
                branch_chars, branch_nullable = _regex_first(branch)
                sub = None if branch_chars is None or sub is None else sub | branch_chars
                nullable = nullable or branch_nullable
        elif name == "SUBPATTERN":
            if argument[1]:  # flags switched on inside the group
                return None, False
            sub, nullable = _regex_first(argument[3])
        elif name == "ATOMIC_GROUP":
            sub, nullable = _regex_first(argument)
        elif name in _REPEATS:
            sub, nullable = _regex_first(argument[2])
            nullable = nullable or argument[0] == 0
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):  # zero width; a lookahead only narrows
            sub, nullable = set(), True
        else:
            return None, False
        if sub is None:
            return None, False
        chars |= sub
        if not nullable:
            return chars, False
    return chars, True


def _class_chars(items: Any) -> set[str] | None:
    chars: set[str] = set()
    for op, argument in items:
        name = str(op)
        if name == "LITERAL":
            chars.add(chr(argument))
        elif name == "RANGE" and argument[1] - argument[0] < 256:
            chars.update(chr(code) for code in range(argument[0], argument[1] + 1))
        else:  # negated classes, categories such as \w, wide ranges
            return None
    return chars


def _walk(node: ParsingExpression) -> Iterator[ParsingExpression]:
    """*node* and its sub-expressions, not entering other rules."""
    yield node
    for child in node.nodes:
        if _is_rule(child):
            continue
        yield from _walk(child)
