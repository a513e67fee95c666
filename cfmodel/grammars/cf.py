"""Parse `.cf` text into the syntax tree of `cfmodel.grammars.nodes`.

Input: source text and the file name to report. Output: a `nodes.Module` whose every
node carries a 1-based span. Guarantees: the textX model is not kept; names are not
resolved (that is the resolve pass); binary operators have their precedence applied.
Errors: `CfSyntaxError` with code ``syntax`` (grammar), ``fstring``, ``call``,
``constructor``, ``query`` or ``is-defined`` (constructs the grammar admits but the
language does not). Syntax errors stop at the first one in a file.

How: comments are blanked; the text is parsed by the Python code `peg` compiles from the
parser textX builds for `cf.tx`, which yields objects shaped like textX's model; only when
that parse fails does a second compiled parser run, recording what was expected where
(as textX would report it). Both are packrat parsers: linear time on any input.
`_Builder` turns the model into `nodes`.
"""

from __future__ import annotations

import difflib
import re
import warnings
from pathlib import Path
from typing import Any

from textx import TextXSyntaxError, metamodel_from_file

from cfmodel.collector import gc_paused
from cfmodel.errors import CfSyntaxError, Note, Span
from cfmodel.grammars import nodes, peg
from cfmodel.grammars.common import (
    BINDING_POWER,
    MAX_INTEGER_DIGITS,
    MAX_MULTIPLICITY_DIGITS,
    NOT_BINDING_POWER,
)
from cfmodel.grammars.frontend import CommentBlanker, built_once, expected_text, rule_of
from cfmodel.grammars.positions import LineIndex
from cfmodel.grammars.strings import build_string, decode_escapes, split_literal

GRAMMAR = Path(__file__).with_name("cf.tx")

# Comments are blanked (same length, newlines kept) so that positions stay exact and the
# grammar needs no comment rule. Strings and `matching /regex/` are skipped over whole (a
# string's f/r prefix needs no skipping). The lookahead lets the regex engine jump to the
# few characters where a match can start.
_COMMENT_OR_PROTECTED = re.compile(
    r"""(?=[m"'\#/])"""
    r"""(?:(matching\s+/(?:[^/\\\n]|\\.)+/"""
    r"""|\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
    r"""|(\#[^\n]*|//[^\n]*))"""
)

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_KEYWORD_LITERALS: dict[str, bool | None] = {"true": True, "false": False, "null": None}


@built_once
def _metamodel() -> Any:
    return metamodel_from_file(str(GRAMMAR), autokwd=True, skipws=True)


@built_once
def _fast_parser() -> peg.Parse:
    # the same grammar, compiled from textX's parser model into Python functions
    return peg.compile_parser(_metamodel())


@built_once
def _explainer() -> peg.Explain:
    # the same again, recording where a parse that fails got farthest (the error path)
    return peg.compile_explainer(_metamodel())


_BLANKER = CommentBlanker(_COMMENT_OR_PROTECTED, ("#", "//"))


def blank_comments(text: str) -> str:
    """Replace comments by spaces, keeping every other character where it was."""
    return _BLANKER(text)


PRAGMA_MARK = "#@ecore"
_PRAGMA_LINE = re.compile(r"[ \t]*#@ecore(-package)?(?: (.*))?\Z")


def pragmas(text: str, blanked: str) -> dict[int, str]:
    """The ``#@ecore`` comments of a file: the line of the code they precede -> their text.

    Consecutive ``#@ecore`` lines are one text (joined without separator); other comment
    lines and blank lines between them and the code are skipped. ``#@ecore-package``
    lines are the package's, under line 0. A ``#@ecore`` inside a string is no comment.
    """
    found: dict[int, str] = {}
    pending: list[str] = []
    package: list[str] = []
    for number, (line, code) in enumerate(zip(text.split("\n"), blanked.split("\n"), strict=True), 1):
        match = _PRAGMA_LINE.match(line) if not code.strip() else None
        if match is not None:
            (package if match.group(1) else pending).append(match.group(2) or "")
        elif code.strip() and pending:
            found[number] = "".join(pending)
            pending = []
    if package:
        found[0] = "".join(package)
    return found


def parse_str(text: str, file: str = "<string>") -> nodes.Module:
    """Parse *text* as the contents of *file*.

    Raises:
        CfSyntaxError: the text is not valid `.cf` (the first problem found).
    """
    with gc_paused():
        try:
            blanked = blank_comments(text)
            model = _fast_parser()(blanked)
            if model is None:
                # not valid: parse again, recording what was expected where
                failure = _explainer()(blanked)
                if failure is not None:
                    raise _syntax_error(failure, text, file)
                model = _metamodel().model_from_str(blanked)  # pragma: no cover - parsers disagree
            module = _Builder(text, file).module(model)
            if PRAGMA_MARK in text:
                module.pragmas = pragmas(text, blanked)
        except TextXSyntaxError as error:  # pragma: no cover - parsers disagree
            failure = peg.Failure(
                LineIndex(text, file).offset(error.line, error.col), tuple(error.expected_rules)
            )
            raise _syntax_error(failure, text, file) from None
        except RecursionError:
            raise CfSyntaxError("the file nests too deeply to parse", Span(file, 1, 1, 1, 1)) from None
        # Free the intermediate objects while the collector is paused: it would scan
        # them once more when it resumes.
        del model
    return module


# ---------------------------------------------------------------- syntax errors

_FRIENDLY = {
    "Identifier": "a name",
    "NsName": "a name",
    "ClassName": "an entity name",
    "Atom": "a value",
    "String": "a string",
    "DocString": "a docstring",
    "INTNUM": "an integer",
    "Regex": "a /regex/",
    "BinaryOperator": "an operator",
    "AssignOp": "'=' or '+='",
    "AssignEq": "'='",
    "RelationArrow": "'--'",
    "NotKw": "'not'",
    "UndefKw": "'undef'",
    "ParentsKw": "'parents'",
    "RootKw": "'root'",
    "MatchingKw": "'matching'",
    "IsDefined": "'is defined'",
}


_STATEMENT_STARTS = {
    "'import'",
    "'entity'",
    "'implementation'",
    "'implement'",
    "'typedef'",
    "'index'",
    "'enum'",
    "'for'",
    "'if'",
    "'include'",
    "a name",
    "an entity name",
    "a value",
    "'not'",
    "'{'",
    "'['",
    "'('",
}
_TRAILERS = {"'.'", "'['", "'('", "'is defined'", "'?'"}
_STRING_START = re.compile(r"""[fr]?("|')""")
_STRING = re.compile(r"""[fr]?("([^"\\\n]|\\.)*"|'([^'\\\n]|\\.)*')""")


def _describe_expected(rule: Any) -> str:
    name = getattr(rule, "rule_name", "") or ""
    if name in _FRIENDLY:
        return _FRIENDLY[name]
    if name == "EOF":
        return "end of file"
    to_match = getattr(rule, "to_match", None)
    if isinstance(to_match, str) and (not hasattr(rule, "regex") or to_match.isalpha()):
        return f"'{to_match}'"
    return name or "something else"


def _summarize_expected(rules: list[Any]) -> list[str]:
    """Collapse the parser's alternatives into what a person would call them."""
    items = {_describe_expected(r) for r in rules}
    if "an operator" in items:
        items -= _TRAILERS
    if "'import'" in items or ("'for'" in items and "'include'" in items):
        items -= _STATEMENT_STARTS | {"':'"}
        items.add("a statement")
    return sorted(items, key=lambda item: (item.startswith("'"), item))


def _syntax_error(failure: peg.Failure, text: str, file: str) -> CfSyntaxError:
    offset = failure.position
    start = LineIndex(text, file).span(offset, offset)
    line, col = start.line, start.col
    if (
        _STRING_START.match(text, offset)
        and not _STRING.match(text, offset)
        and '"""' not in text[offset : offset + 4]
    ):
        return CfSyntaxError(
            'unterminated string (a string ends on the line it starts; use """ for several lines)',
            Span(file, line, col, line, col + 1),
            "syntax",
        )
    found = _token_at(text, offset)
    expected = _summarize_expected(list(failure.expected))
    if found == "end of file" and "'end'" in expected:
        block = _innermost_open_block(blank_comments(text), file)
        if block is not None:
            return CfSyntaxError(
                f"unexpected end of file (expected 'end' to close {block})",
                Span(file, line, col, line, col),
                "syntax",
            )
    message = f"unexpected {found}"
    notes: list[Note] = []
    if found == "'end'" and "a statement" in expected and "'end'" not in expected:
        message += " (no block is open here; 'end' is a keyword and cannot be a name)"
    elif expected:
        message += f" (expected {expected_text(expected)})"
        if "'end'" in expected:
            # a block left open: `entity A:` … then the next statement
            open_block = _open_block(blank_comments(text)[:offset])
            if open_block is not None:
                header, block_line, block_col = open_block
                message += f": '{header}' is not closed"
                notes.append(
                    Note(
                        Span(file, block_line, block_col, block_line, block_col + len(header)),
                        f"'{header}' opens here; add its 'end' before line {line}",
                    )
                )
    end_col = col + (len(found) - 2 if found.startswith("'") else 1)
    return CfSyntaxError(message, Span(file, line, col, line, end_col), "syntax", notes)


_BLOCK_KEYWORD = re.compile(r"(?:entity|implementation|for|if)\b")
_STRIP_STRINGS = re.compile(
    r'"""[\s\S]*?"""' r"|'''[\s\S]*?'''" r'|"(?:[^"\\\n]|\\.)*"' r"|'(?:[^'\\\n]|\\.)*'"
)


def _innermost_open_block(text: str, file: str) -> str | None:
    """Describe the last block that an `end` never closed (for end-of-file errors)."""
    found = _open_block(text)
    if found is None:
        return None
    header, line, col = found
    return f"'{header}' opened at {file}:{line}:{col}"


def _open_block(text: str) -> tuple[str, int, int] | None:
    """(header, line, column) of the last block in *text* that an `end` never closed."""
    text = _STRIP_STRINGS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    # One pass over the lines with string operations (a regex over each line backtracked
    # quadratically on a long one): a block opens on a line that starts with a block
    # keyword, or ends with `)`, and ends with `:`; a line that is `end` closes one.
    stack: list[tuple[str, int, int]] = []
    for number, raw in enumerate(text.split("\n"), 1):
        content = raw.lstrip(" \t")
        stripped = content.rstrip(" \t")
        if stripped == "end":
            if stack:
                stack.pop()
            continue
        if not stripped.endswith(":"):
            continue
        head = stripped[:-1].rstrip(" \t")
        if _BLOCK_KEYWORD.match(stripped) or head.endswith(")"):
            stack.append((stripped, number, len(raw) - len(content) + 1))
    if not stack:
        return None
    header, line, col = stack[-1]
    header = header.rstrip(":").strip()
    if len(header) > 40:
        header = header[:37] + "..."
    return header, line, col


_MAX_SHOWN_TOKEN = 40
_TOKEN = re.compile(r"[A-Za-z_][\w-]*(?:::[A-Za-z_][\w-]*)*|[0-9]+|\S")


def _token_at(text: str, offset: int) -> str:
    if offset >= len(text.rstrip()):
        return "end of file"
    match = _TOKEN.match(text, offset)
    if match is None:
        return "end of line" if text[offset] == "\n" else "whitespace"
    token = match.group(0)
    return f"'{token}'" if len(token) <= _MAX_SHOWN_TOKEN else f"'{token[:_MAX_SHOWN_TOKEN]}...'"


# ---------------------------------------------------------------- tree building


class _Builder:
    """Turns one textX model into `nodes`, computing spans from character offsets."""

    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self.lines = LineIndex(text, file)
        self.span_of = self.lines.span

    # -- positions

    def span(self, obj: Any) -> Span:
        return self.span_of(obj._tx_position, obj._tx_position_end)

    def name_after(self, text: str, offset: int) -> nodes.Name:
        """The name *text* as written at or after *offset* (textX keeps no position for tokens)."""
        start = self._find_word(text, offset)
        return nodes.Name(text, self.span_of(start, start + len(text)))

    def _find_word(self, word: str, offset: int) -> int:
        # str.find plus a boundary check: a regex per distinct name costs more to compile
        text = self.text
        position = text.find(word, offset)
        while position >= 0:
            before = text[position - 1] if position else " "
            after_index = position + len(word)
            after = text[after_index] if after_index < len(text) else " "
            if not (before in _NAME_CHARS or before == ":") and after not in _NAME_CHARS:
                return position
            position = text.find(word, position + 1)
        return offset

    def doc(self, raw: str | None) -> str | None:
        if raw is None:
            return None
        return decode_escapes(split_literal(raw)[1])

    # -- module and definitions

    def module(self, model: Any) -> nodes.Module:
        # textX returns '' instead of an object for a file without statements
        statements = [self.top_statement(s) for s in getattr(model, "statements", [])]
        doc = None
        first = statements[0] if statements else None
        if (
            isinstance(first, nodes.ExpressionStatement)
            and isinstance(first.value, nodes.Literal)
            and isinstance(first.value.value, str)
            and self.text.lstrip().startswith(('"""', "'''"))
        ):
            doc = first.value.value
        return nodes.Module(self.file, doc, statements)

    def top_statement(self, obj: Any) -> nodes.TopStatement:
        method = getattr(self, "build_" + rule_of(obj))
        result: nodes.TopStatement = method(obj)
        return result

    def statements(self, objs: list[Any]) -> list[nodes.Statement]:
        result: list[nodes.Statement] = [getattr(self, "build_" + rule_of(o))(o) for o in objs]
        return result

    def build_Import(self, obj: Any) -> nodes.Import:  # noqa: N802
        start = obj._tx_position
        name = self.name_after(obj.name, start + len("import"))
        alias = self.name_after(obj.alias, self._end_offset(name)) if obj.alias else None
        return nodes.Import(name, alias, self.span(obj))

    def _end_offset(self, name: nodes.Name) -> int:
        return self.lines.end_offset(name.span)

    def names_after(self, texts: list[str], offset: int) -> list[nodes.Name]:
        """Consecutive names (``a, b, c``) as written from *offset* on."""
        names = []
        for text in texts:
            names.append(self.name_after(text, offset))
            offset = self._end_offset(names[-1])
        return names

    def build_Entity(self, obj: Any) -> nodes.Entity:  # noqa: N802
        name = self.name_after(obj.name, obj._tx_position + len("entity"))
        parents = self.names_after(obj.parents, self._end_offset(name))
        attributes = [self.attribute(a) for a in obj.attributes]
        return nodes.Entity(name, parents, self.doc(obj.doc), attributes, self.span(obj))

    def attribute(self, obj: Any) -> nodes.Attribute:
        type_obj = obj.type
        type_name = self.name_after(type_obj.base, type_obj._tx_position)
        type_ref = nodes.TypeRef(
            type_name, bool(type_obj.multi), bool(type_obj.nullable), self.span(type_obj)
        )
        name = self.name_after(obj.name, type_obj._tx_position_end)
        default: nodes.Expression | nodes.Undef | None = None
        if obj.default is not None:
            if rule_of(obj.default) == "Undef":
                default = nodes.Undef(self.span(obj.default))
            else:
                default = self.expression(obj.default)
        return nodes.Attribute(type_ref, name, default, self.span(obj))

    def multiplicity(self, obj: Any) -> nodes.Multiplicity:
        span = self.span(obj)
        for bound in (obj.lower, obj.upper):
            if bound and len(bound) > MAX_MULTIPLICITY_DIGITS:
                raise CfSyntaxError(
                    f"a multiplicity bound of more than {MAX_MULTIPLICITY_DIGITS} digits", span, "syntax"
                )
        lower = int(obj.lower) if obj.lower else 0
        upper: int | None = lower  # `[n]` is exactly n
        if obj.range:
            upper = int(obj.upper) if obj.upper else None
        return nodes.Multiplicity(lower, upper, span)

    def build_Relation(self, obj: Any) -> nodes.Relation:  # noqa: N802
        left_entity = self.name_after(obj.left, obj._tx_position)
        left_name = self.name_after(obj.left_name, self._end_offset(left_entity))
        left = nodes.RelationEnd(left_entity, left_name, self.multiplicity(obj.left_multi))
        annotations = [self.expression(a) for a in obj.annotations]
        after = obj.left_multi._tx_position_end
        if obj.annotations:
            after = obj.annotations[-1]._tx_position_end
        right_entity = self.name_after(obj.right, after)
        right_name = None
        right_multi = None
        if obj.right_name:
            right_name = self.name_after(obj.right_name, self._end_offset(right_entity))
            right_multi = self.multiplicity(obj.right_multi)
        right = nodes.RelationEnd(right_entity, right_name, right_multi)
        arrow = obj.arrow or "--"
        return nodes.Relation(left, right, arrow, annotations, False, self.doc(obj.doc), self.span(obj))

    def build_OldRelation(self, obj: Any) -> nodes.Relation:  # noqa: N802
        # `File file [1:] -- [1] Service service`: the name and multiplicity written next to
        # an entity belong to the *other* end (the property on the opposite entity).
        left_entity = self.name_after(obj.left, obj._tx_position)
        left_role = self.name_after(obj.left_name, self._end_offset(left_entity))
        right_entity = self.name_after(obj.right, obj.right_multi._tx_position_end)
        right_role = self.name_after(obj.right_name, self._end_offset(right_entity))
        left = nodes.RelationEnd(left_entity, right_role, self.multiplicity(obj.right_multi))
        right = nodes.RelationEnd(right_entity, left_role, self.multiplicity(obj.left_multi))
        return nodes.Relation(left, right, obj.arrow, [], True, self.doc(obj.doc), self.span(obj))

    def build_Implementation(self, obj: Any) -> nodes.Implementation:  # noqa: N802
        name = self.name_after(obj.name, obj._tx_position + len("implementation"))
        entity = self.name_after(obj.entity, self._end_offset(name)) if obj.entity else None
        statements = self.statements(obj.statements)
        return nodes.Implementation(name, entity, self.doc(obj.doc), statements, self.span(obj))

    def build_Implement(self, obj: Any) -> nodes.Implement:  # noqa: N802
        entity = self.name_after(obj.entity, obj._tx_position + len("implement"))
        using_parents = any(target.parents for target in obj.implementations)
        targets = [target.name for target in obj.implementations if not target.parents]
        names = self.names_after(targets, self._end_offset(entity))
        condition = self.expression(obj.condition) if obj.condition is not None else None
        return nodes.Implement(entity, names, using_parents, condition, self.doc(obj.doc), self.span(obj))

    def build_Typedef(self, obj: Any) -> nodes.Typedef:  # noqa: N802
        name = self.name_after(obj.name, obj._tx_position + len("typedef"))
        doc = self.doc(obj.doc)
        if obj.constructor is not None:
            constructor = self.constructor_node(obj.constructor)
            return nodes.Typedef(name, None, None, None, constructor, doc, self.span(obj))
        base = self.name_after(obj.base, self._end_offset(name) + 1)
        regex = None
        condition = None
        if obj.regex:
            start = self.text.index(obj.regex, self._end_offset(base))
            regex = nodes.Regex(obj.regex[1:-1], self.span_of(start, start + len(obj.regex)))
            self._check_regex(regex)
        else:
            condition = self.expression(obj.condition)
        return nodes.Typedef(name, base, regex, condition, None, doc, self.span(obj))

    def _check_regex(self, regex: nodes.Regex) -> None:
        try:
            with warnings.catch_warnings():  # "possible nested set" and the like: not ours to say
                warnings.simplefilter("ignore", FutureWarning)
                re.compile(regex.pattern)
        # a repetition count past Python's limits raises OverflowError, or ValueError when it
        # has more than 4,300 digits; groups nested too deep, RecursionError
        except (re.error, OverflowError, ValueError, RecursionError) as error:
            shown = regex.pattern if len(regex.pattern) <= 80 else regex.pattern[:77] + "..."
            problem = str(error) if not isinstance(error, RecursionError) else "it nests too deeply"
            raise CfSyntaxError(f"invalid regex /{shown}/: {problem[:200]}", regex.span, "regex") from None

    def constructor_node(self, obj: Any) -> nodes.Constructor:
        entity = self.name_after(obj.name, obj._tx_position)
        span = self.span(obj)
        positional, keywords, wrapped = self.arguments(obj.arguments)
        if positional:
            raise CfSyntaxError(
                f"constructor {entity.text}(...) takes keyword arguments only (like name=value)",
                positional[0].span,
                "constructor",
            )
        return nodes.Constructor(entity, keywords, wrapped, span)

    def build_Index(self, obj: Any) -> nodes.Index:  # noqa: N802
        entity = self.name_after(obj.entity, obj._tx_position + len("index"))
        attributes = self.names_after(obj.attributes, self._end_offset(entity))
        return nodes.Index(entity, attributes, self.span(obj))

    def build_Enum(self, obj: Any) -> nodes.Enum:  # noqa: N802
        name = self.name_after(obj.name, obj._tx_position + len("enum"))
        offset = self._end_offset(name)
        parent = None
        if obj.parent_value:
            parent = self._string_literal(obj.parent_value, offset)
            offset = self.lines.end_offset(parent.span)
        values = []
        for value in obj.values:
            literal = self._string_literal(value, offset)
            values.append(literal)
            offset = self.lines.end_offset(literal.span)
        return nodes.Enum(name, parent, values, self.span(obj))

    def _string_literal(self, token: str, offset: int) -> nodes.Literal:
        start = self.text.index(token, offset)
        node = build_string(token, start, self.span_of)
        if not isinstance(node, nodes.Literal):
            raise CfSyntaxError("a plain string is expected here", node.span, "syntax")
        return node

    # -- statements

    def build_For(self, obj: Any) -> nodes.For:  # noqa: N802
        variable = self.name_after(obj.variable, obj._tx_position + len("for"))
        iterable = self.expression(obj.iterable)
        return nodes.For(variable, iterable, self.statements(obj.statements), self.span(obj))

    def build_If(self, obj: Any) -> nodes.If:  # noqa: N802
        first_end = obj.statements[-1]._tx_position_end if obj.statements else obj.condition._tx_position_end
        branches = [
            nodes.IfBranch(
                self.expression(obj.condition),
                self.statements(obj.statements),
                self.span_of(obj._tx_position, first_end),
            )
        ]
        for elif_ in obj.elifs:
            branches.append(
                nodes.IfBranch(
                    self.expression(elif_.condition), self.statements(elif_.statements), self.span(elif_)
                )
            )
        # the grammar's flag tells "no else" from an empty else; both give an empty list
        else_statements = self.statements(obj.else_statements) if obj.has_else else None
        return nodes.If(branches, else_statements, self.span(obj))

    def build_Include(self, obj: Any) -> nodes.Include:  # noqa: N802
        name = self.name_after(obj.implementation, obj._tx_position + len("include"))
        return nodes.Include(name, self.span(obj))

    def build_Assignment(self, obj: Any) -> nodes.Assignment:  # noqa: N802
        target = self.target(obj.target)
        value = self.expression(obj.value)
        anonymous = self.statements(obj.anonymous.statements) if obj.anonymous is not None else None
        self._check_anonymous(anonymous, value)
        return nodes.Assignment(target, value, obj.operator == "+=", anonymous, self.span(obj))

    def build_ExpressionStatement(self, obj: Any) -> nodes.ExpressionStatement:  # noqa: N802
        value = self.expression(obj.value)
        anonymous = self.statements(obj.anonymous.statements) if obj.anonymous is not None else None
        self._check_anonymous(anonymous, value)
        return nodes.ExpressionStatement(value, anonymous, self.span(obj))

    def _check_anonymous(self, anonymous: list[nodes.Statement] | None, value: nodes.Expression) -> None:
        if anonymous is not None and not isinstance(value, nodes.Constructor):
            self._check_misspelled_keyword(value)
            raise CfSyntaxError(
                "an anonymous implementation block (':' ... 'end') can only follow a constructor",
                value.span,
                "syntax",
            )

    def _check_misspelled_keyword(self, value: nodes.Expression) -> None:
        """``entty Host:`` parses as a name followed by a block: when the word before the
        block's subject looks like a misspelled keyword, say that instead."""
        start = self.lines.offset(value.span.line, value.span.col)
        line_start = self.text.rfind("\n", 0, start) + 1
        words = self.text[line_start:start].split()
        if len(words) != 1 or not words[0].isidentifier():
            return
        word = words[0]
        close = difflib.get_close_matches(word, _BLOCK_KEYWORDS, n=1, cutoff=0.7)
        if close:
            word_start = self.text.index(word, line_start)
            raise CfSyntaxError(
                f"unknown keyword '{word}' (did you mean '{close[0]}'?)",
                self.span_of(word_start, word_start + len(word)),
                "syntax",
            )

    def target(self, obj: Any) -> nodes.Expression:
        start = obj._tx_position
        name = self.name_after(obj.name, start)
        expr: nodes.Expression = nodes.Reference(name, name.span)
        offset = self._end_offset(name)
        for attribute in obj.attributes:
            member = self.name_after(attribute, offset)
            offset = self._end_offset(member)
            expr = nodes.AttributeAccess(expr, member, self.span_of(start, offset))
        return expr

    # -- expressions

    def expression(self, obj: Any) -> nodes.Expression:
        if not obj.rest and not obj.question and not obj.first.negations:
            return self.postfix(obj.first)  # the common case: one operand
        operands = [self.operand(obj.first)]
        operators = []
        for tail in obj.rest:
            operators.append(" ".join(tail.operator.split()))  # `not   in` -> `not in`
            operands.append(self.operand(tail.operand))
        if operators:
            climber = _PrecedenceClimber(operands, operators)
            result = climber.parse(0)
        else:
            result = _apply_negations(operands[0])
        if obj.question:
            then = self.expression(obj.then)
            otherwise = self.expression(obj.otherwise)
            result = nodes.Conditional(result, then, otherwise, self.span(obj))
        return result

    def operand(self, obj: Any) -> _Operand:
        """(number of `not`, the postfix expression, the span where the operand starts if negated)."""
        start = self.span_of(obj._tx_position, obj._tx_position) if obj.negations else None
        return (len(obj.negations), self.postfix(obj), start)

    def postfix(self, obj: Any) -> nodes.Expression:
        """An operand without its `not` prefixes."""
        expr = self.primary(obj.primary)
        start = obj.primary._tx_position
        for trailer in obj.trailers:
            expr = self.trailer(expr, trailer, start)
        if obj.defined:
            if not isinstance(expr, nodes.Reference | nodes.AttributeAccess | nodes.MapLookup):
                raise CfSyntaxError(
                    "'is defined' applies to a variable, an attribute or a dict lookup",
                    expr.span,
                    "is-defined",
                )
            expr = nodes.IsDefined(expr, self.span_of(start, obj._tx_position_end))
        return expr

    def primary(self, obj: Any) -> nodes.Expression:
        if obj.atom:
            return self.atom(obj.atom, obj._tx_position)
        nested = obj.nested
        method = getattr(self, "build_" + rule_of(nested))
        result: nodes.Expression = method(nested)
        return result

    def atom(self, token: str, start: int) -> nodes.Expression:
        first = token[0]
        if first in "\"'" or (first in "fr" and len(token) > 1 and token[1] in "\"'"):
            return build_string(token, start, self.span_of)
        span = self.span_of(start, start + len(token))
        if first.isdigit() or first in "-.":
            if "e" in token or "E" in token:
                raise CfSyntaxError(
                    f"{token}: a number cannot have an exponent (as in inmanta-core); "
                    "write it out (1e3 is 1000.0)",
                    span,
                    "syntax",
                )
            return nodes.Literal(_number(token, span), span)
        if token in _KEYWORD_LITERALS:
            return nodes.Literal(_KEYWORD_LITERALS[token], span)
        name = nodes.Name(token, span)
        return nodes.Reference(name, span)

    def build_Parenthesized(self, obj: Any) -> nodes.Expression:  # noqa: N802
        return self.expression(obj.value)

    def build_ListExpression(self, obj: Any) -> nodes.Expression:  # noqa: N802
        items = [self.expression(i) for i in obj.items]
        span = self.span(obj)
        if obj.comprehension is None:
            return nodes.ListLiteral(items, span)
        if len(items) != 1 or obj.comma:
            raise CfSyntaxError("a list comprehension has exactly one value before 'for'", span, "syntax")
        loops = [
            nodes.ComprehensionFor(
                self.name_after(loop.variable, loop._tx_position + len("for")), self.expression(loop.iterable)
            )
            for loop in obj.comprehension.loops
        ]
        guards = [self.expression(g.condition) for g in obj.comprehension.guards]
        return nodes.ListComprehension(items[0], loops, guards, span)

    def build_Dict(self, obj: Any) -> nodes.Expression:  # noqa: N802
        pairs: list[tuple[str, nodes.Expression]] = []
        for pair in obj.pairs:
            key = build_string(pair.key, pair._tx_position, self.span_of)
            if not isinstance(key, nodes.Literal) or not isinstance(key.value, str):
                raise CfSyntaxError("dict keys are plain strings", key.span, "syntax")
            pairs.append((key.value, self.expression(pair.value)))
        return nodes.DictLiteral(pairs, self.span(obj))

    def trailer(self, expr: nodes.Expression, obj: Any, start: int) -> nodes.Expression:
        span = self.span_of(start, obj._tx_position_end)
        kind = rule_of(obj)
        if kind == "Member":
            name = self.name_after(obj.name, obj._tx_position + 1)
            return nodes.AttributeAccess(expr, name, span)
        if kind == "CallArguments":
            return self.call(expr, obj, span)
        # Subscript: `[k=v]` is a query, `[expr]` a dict lookup
        if obj.key is not None:
            return nodes.MapLookup(expr, self.expression(obj.key), span)
        arguments = [self.keyword_argument(a) for a in obj.arguments]
        if isinstance(expr, nodes.Reference) and _is_entity_name(expr.name.text):
            return nodes.IndexQuery(expr.name, arguments, span)
        if isinstance(expr, nodes.AttributeAccess):
            return nodes.SelectorQuery(expr.target, expr.name, arguments, span)
        raise CfSyntaxError(
            "a query [name=value] applies to an entity (Entity[k=v]) or a relation (x.rel[k=v])",
            span,
            "query",
        )

    def call(self, expr: nodes.Expression, obj: Any, span: Span) -> nodes.Expression:
        if not isinstance(expr, nodes.Reference):
            raise CfSyntaxError(
                "only a plugin (ns::name(...)) or an entity (Entity(...)) can be called", expr.span, "call"
            )
        positional, keywords, wrapped = self.arguments(obj.arguments)
        name = expr.name
        if _is_entity_name(name.text):
            if positional:
                raise CfSyntaxError(
                    f"constructor {name.text}(...) takes keyword arguments only (like name=value)",
                    positional[0].span,
                    "constructor",
                )
            return nodes.Constructor(name, keywords, wrapped, span)
        return nodes.FunctionCall(name, positional, keywords, wrapped, span)

    def arguments(
        self, objs: list[Any]
    ) -> tuple[list[nodes.Expression], list[nodes.KeywordArgument], list[nodes.Expression]]:
        positional: list[nodes.Expression] = []
        keywords: list[nodes.KeywordArgument] = []
        wrapped: list[nodes.Expression] = []
        for argument in objs:
            kind = rule_of(argument)
            if kind == "KeywordArgument":
                keywords.append(self.keyword_argument(argument))
            elif kind == "KwargsArgument":
                wrapped.append(self.expression(argument.value))
            else:
                if keywords or wrapped:
                    raise CfSyntaxError(
                        "a positional argument cannot follow keyword arguments",
                        self.span(argument),
                        "call",
                    )
                positional.append(self.expression(argument.value))
        return positional, keywords, wrapped

    def keyword_argument(self, obj: Any) -> nodes.KeywordArgument:
        name = self.name_after(obj.name, obj._tx_position)
        return nodes.KeywordArgument(name, self.expression(obj.value), self.span(obj))


# keywords that open a block with a name after them (`entity Host:`)
_BLOCK_KEYWORDS = ("entity", "implementation", "typedef", "enum")


def _is_entity_name(name: str) -> bool:
    return name.rpartition("::")[2][:1].isupper()


def _number(token: str, span: Span) -> int | float:
    if "." in token:  # an exponent is refused before (as in inmanta-core)
        return float(token)
    if len(token.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise CfSyntaxError(f"an integer of more than {MAX_INTEGER_DIGITS:,} digits", span, "syntax")
    return int(token)


_Operand = tuple[int, nodes.Expression, Span | None]


def _apply_negations(operand: _Operand) -> nodes.Expression:
    count, expr, start = operand
    if start is None:
        return expr
    for _ in range(count):
        expr = nodes.Not(expr, start.merge(expr.span))
    return expr


class _PrecedenceClimber:
    """Applies binding powers to a flat ``operand (operator operand)*`` list."""

    def __init__(self, operands: list[_Operand], operators: list[str]) -> None:
        self.operands = operands
        self.operators = operators
        self.position = 0  # index of the next operand

    def parse(self, min_power: int) -> nodes.Expression:
        negations, left, start = self.operands[self.position]
        self.position += 1
        if negations:
            # `not` takes the operand together with everything that binds tighter than it
            left = _apply_negations((negations, self._continue(left, NOT_BINDING_POWER + 1), start))
        return self._continue(left, min_power)

    def _continue(self, left: nodes.Expression, min_power: int) -> nodes.Expression:
        while self.position - 1 < len(self.operators):
            operator = self.operators[self.position - 1]
            power = BINDING_POWER[operator]
            if power < min_power:
                break
            right = self.parse(power + 1)  # all binary operators are left-associative
            left = nodes.BinaryOperation(operator, left, right, left.span.merge(right.span))
        return left
