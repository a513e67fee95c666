"""Parse mcl source (mgmt's language, seeds/003) into the syntax tree of `mcl_nodes`.

Input: source text and a display file name (``parse_str``) or a path (``parse_file``).
Output: a ``Program`` whose every node carries its `Span`; string literals have their known
escapes decoded (``\\n``, ``\\t``, ``\\"``, ``\\\\``, ``\\$``...); one with ``${`` or a
backslash keeps its raw text too (the interpolate pass of ``transforms/mcl`` splits it and
refuses unknown escapes, as mgmt's interpolation does); ``# ...`` comments are kept aside with
their spans (for ``mcl fmt``).

Speed: the text is parsed by the Python functions `peg` compiles from textX's parser model
of ``mcl.tx`` (built once per process; textX itself parses again only to explain a syntax
error); comments are blanked before parsing (same length, newlines kept) instead of a
comment rule tried before every token; the garbage collector is paused while the tree is
built.

Errors (all ``CfSyntaxError`` with code ``mcl-parse``): text that does not follow the
grammar (``unexpected <token> (expected ...)``), an integer literal outside int64, an
a struct type with a field given twice, a file that nests too deeply.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from textx import TextXSyntaxError, metamodel_from_file

from cfmodel.collector import gc_paused
from cfmodel.errors import CfSyntaxError, Span
from cfmodel.grammars import frontend, peg
from cfmodel.grammars import mcl_nodes as n
from cfmodel.grammars.frontend import attr, attrs, built_once, rule_of
from cfmodel.grammars.positions import LineIndex

GRAMMAR = Path(__file__).with_name("mcl.tx")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_RULE_NAMES = {
    "Name": "a name",
    "FieldName": "a name",
    "DottedName": "a name",
    "ColonName": "a name",
    "CapitalName": "a capitalized name",
    "CapitalColonName": "a resource kind",
    "StringToken": "a string",
    "IntToken": "an integer",
    "FloatToken": "a float",
    "BoolWord": "true or false",
    "TypeWord": "a type",
    "LogicOp": "an operator",
    "CompareOp": "an operator",
    "SumOp": "an operator",
    "ProductOp": "an operator",
}
_EXPRESSION_STARTS = frozenset(
    ("a string", "an integer", "a float", "true or false", "'['", "'{'", "'('", "'$'", "'if'", "'func'")
) | {"'struct'", "'not'", "'true'", "'false'"}
#: How textX's syntax errors read (the front-end kit's `TextxErrors`): four or more of the
#: expression starts expected are "an expression".
_ERRORS = frontend.TextxErrors(
    _RULE_NAMES,
    re.compile(r"\"[^\"\r\n]*\"?|[$\w]+|->|=>|\?:|\|\||==|!=|<=|>=|\S"),
    _EXPRESSION_STARTS,
    lambda names: sum(1 for name in names if name in _EXPRESSION_STARTS) >= 4,
    "mcl-parse",
    {"'-(?!>)'": "'-'"},
)


@built_once
def _metamodel() -> Any:
    """The textX metamodel of ``mcl.tx``, built once."""
    return metamodel_from_file(str(GRAMMAR), autokwd=True, skipws=True, use_regexp_group=False)


@built_once
def _fast_parser() -> peg.Parse:
    """The same grammar compiled from textX's parser model into Python functions (`peg`)."""
    return peg.compile_parser(_metamodel())


#: ``# ...`` comments blanked (same length), strings kept whole (the front-end kit's blanker).
_COMMENTS = frontend.CommentBlanker(re.compile(r'("(?:\\.|[^"\\])*")|(#[^\n]*)'), "#")


def split_comments(text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """The text with ``# ...`` comments blanked (same length), and the comments found
    (start offset, end offset, text)."""
    return _COMMENTS.split(text)


def parse_str(text: str, file: str = "<string>") -> n.Program:
    """Parse mcl source text.

    Raises:
        CfSyntaxError: the text does not follow the grammar (code ``mcl-parse``).
    """
    blanked, comments = split_comments(text)
    with gc_paused():
        try:
            tree = _fast_parser()(blanked)
            if tree is None:  # not valid: textX parses again to explain why
                tree = _metamodel().model_from_str(blanked)
        except TextXSyntaxError as err:
            raise _ERRORS.error(err, text, file) from err
        except RecursionError:
            raise CfSyntaxError(
                "the file nests too deeply to parse", Span(file, 1, 1, 1, 1), "mcl-parse"
            ) from None
        builder = _Builder(text, file, blanked)
        program = builder.program(tree)
    program.comments = [(builder.lines.span(start, end), body) for start, end, body in comments]
    return program


def read_source(path: str | Path, display: str | None = None) -> str:
    """The text of an mcl file (the front-end kit's reading: ``load``/``not-utf8`` errors)."""
    return frontend.read_source(Path(path), display, "mcl file")


def parse_file(path: str | Path, display: str | None = None) -> n.Program:
    """Read and parse an mcl file; ``display`` (default: the path) names it in spans."""
    name = display if display is not None else str(path)
    return parse_str(read_source(path, name), name)


# --- syntax errors ------------------------------------------------------------------------


@functools.cache
def _snake(name: str) -> str:
    """``PostfixExpression`` → ``postfix_expression`` (the builder's method names)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "$": "$", "0": "\0", "a": "\a"}
_ESCAPE = re.compile(r"\\(.)", re.S)


# --- tree to syntax nodes -----------------------------------------------------------------


_ELSE = re.compile(r"\belse\b")


class _Builder:
    def __init__(self, text: str, file: str, blanked: str | None = None) -> None:
        self.text = text
        self.blanked = blanked if blanked is not None else text
        self.file = file
        self.lines = LineIndex(text, file)

    def span(self, node: Any) -> Span:
        return self.lines.span(int(node._tx_position), int(node._tx_position_end))

    def program(self, tree: Any) -> n.Program:
        statements = [self.statement(s) for s in attrs(tree, "statements")]
        return n.Program(self.lines.span(0, len(self.text)), self.file, statements)

    def statements(self, nodes: list[Any]) -> list[n.Stmt]:
        return [self.statement(s) for s in nodes]

    def statement(self, node: Any) -> n.Stmt:
        kind = rule_of(node)
        span = self.span(node)
        if kind == "Bind":
            return n.Bind(span, attr(node, "name"), self.expression(attr(node, "value")), self.type_of(node))
        if kind == "IfStatement":
            otherwise = self.statements(attrs(node, "otherwise")) if attr(node, "has_else") else None
            then = self.statements(attrs(node, "then"))
            condition = self.expression(attr(node, "condition"))
            else_span = self.else_span(node, then, condition) if otherwise is not None else None
            return n.If(span, condition, then, otherwise, else_span)
        if kind == "ForStatement":
            return n.For(
                span, attr(node, "index"), attr(node, "value"), self.expression(attr(node, "collection")),
                self.statements(attrs(node, "body")),
            )  # fmt: skip
        if kind == "ForKVStatement":
            return n.ForKV(
                span, attr(node, "key"), attr(node, "value"), self.expression(attr(node, "collection")),
                self.statements(attrs(node, "body")),
            )  # fmt: skip
        if kind == "FuncStatement":
            return n.FuncDef(span, attr(node, "name"), self.func_literal(node))
        if kind == "ClassStatement":
            params = [self.param(p) for p in attrs(node, "args")] if attr(node, "params") else None
            return n.ClassDef(span, attr(node, "name"), params, self.statements(attrs(node, "body")))
        if kind == "IncludeStatement":
            args_node = attr(node, "args")
            has_args = "(" in self.text[int(node._tx_position) : int(node._tx_position_end)]
            args = [self.expression(a) for a in attrs(node, "args")] if has_args or args_node else None
            return n.Include(span, attr(node, "name"), args, attr(node, "alias"))
        if kind == "ImportStatement":
            alias = "*" if attr(node, "star") else attr(node, "alias")
            return n.Import(span, self.string_value(node, str(attr(node, "path"))), alias)
        if kind == "PanicStatement":
            return n.Panic(span, [self.expression(a) for a in attrs(node, "args")])
        if kind == "EdgeStatement":
            return n.EdgeChain(span, [self.edge_half(h) for h in attrs(node, "halves")])
        return self.resource(node, span)

    def else_span(self, node: Any, then: list[n.Stmt], condition: n.Expr) -> Span | None:
        """The ``else`` keyword of an if statement (after the then block, comments skipped)."""
        after = then[-1].span if then else condition.span
        start = self.lines.end_offset(after)
        match = _ELSE.search(self.blanked, start, int(node._tx_position_end))
        return self.lines.span(match.start(), match.end()) if match else None

    def resource(self, node: Any, span: Span) -> n.Resource:
        entries: list[n.ResEntry] = []
        for entry in attrs(node, "entries"):
            entries.append(self.resource_entry(entry))
        return n.Resource(span, attr(node, "kind"), self.expression(attr(node, "title")), entries)

    def resource_entry(self, entry: Any) -> n.ResEntry:
        span = self.span(entry)
        kind = rule_of(entry)
        first = attr(entry, "first")
        second = attr(entry, "second")
        half = attr(entry, "half")
        condition = (
            self.expression(first) if first is not None and (second is not None or half is not None) else None
        )
        if kind == "FieldEntry":
            value = self.expression(second if second is not None else first)
            return n.ResField(span, attr(entry, "name"), value, condition)
        if kind == "MetaEntry":
            value = self.expression(second if second is not None else first)
            return n.ResMeta(span, attr(entry, "name"), value, condition)
        name = str(attr(entry, "name"))
        if half is not None:
            return n.ResEdge(span, name, self.edge_half(half), condition)
        # a capitalized property with an expression: only edges take one; interpret reports it
        value = self.expression(second if second is not None else first)
        return n.ResField(span, name, value, condition)

    def edge_half(self, node: Any) -> n.EdgeHalf:
        return n.EdgeHalf(
            self.span(node), attr(node, "kind"), self.expression(attr(node, "title")), attr(node, "field")
        )

    def param(self, node: Any) -> n.Param:
        return n.Param(self.span(node), attr(node, "name"), self.type_of(node))

    def func_literal(self, node: Any) -> n.FuncLit:
        params = [self.param(p) for p in attrs(node, "args")]
        result = attr(node, "result")
        return n.FuncLit(
            self.span(node), params, self.type_node(result) if result is not None else None,
            self.expression(attr(node, "body")),
        )  # fmt: skip

    def type_of(self, node: Any) -> n.TypeNode | None:
        written = attr(node, "type")
        return self.type_node(written) if written is not None else None

    def type_node(self, node: Any) -> n.TypeNode:
        kind = rule_of(node)
        span = self.span(node)
        if kind == "ListType":
            return n.TypeNode(span, "list", [self.type_node(attr(node, "item"))])
        if kind == "MapType":
            return n.TypeNode(
                span, "map", [self.type_node(attr(node, "key")), self.type_node(attr(node, "value"))]
            )
        if kind == "StructType":
            self.unique_fields(attrs(node, "fields"))
            fields = [(str(attr(f, "name")), self.type_node(attr(f, "type"))) for f in attrs(node, "fields")]
            return n.TypeNode(span, "struct", fields=fields)
        if kind == "FuncType":
            args = [
                (str(attr(a, "name") or ""), self.type_node(attr(a, "type"))) for a in attrs(node, "args")
            ]
            return n.TypeNode(span, "func", fields=args, result=self.type_node(attr(node, "result")))
        return n.TypeNode(span, str(attr(node, "name")))

    # expressions
    def expression(self, node: Any) -> n.Expr:
        method = getattr(self, "expr_" + _snake(rule_of(node)))
        result: n.Expr = method(node)
        return result

    def _chain(self, node: Any) -> n.Expr:
        left = self.expression(attr(node, "first"))
        for tail in attrs(node, "rest"):
            right = self.expression(attr(tail, "operand"))
            left = n.Binary(left.span.merge(right.span), str(attr(tail, "op")), left, right)
        return left

    expr_logic_expression = _chain
    expr_sum_expression = _chain
    expr_product_expression = _chain

    def expr_compare_expression(self, node: Any) -> n.Expr:
        left = self.expression(attr(node, "left"))
        right_node = attr(node, "right")
        if right_node is None:
            return left
        right = self.expression(right_node)
        return n.Binary(left.span.merge(right.span), str(attr(node, "op")), left, right)

    def expr_not_expression(self, node: Any) -> n.Expr:
        return n.Not(self.span(node), self.expression(attr(node, "operand")))

    def expr_in_expression(self, node: Any) -> n.Expr:
        left = self.expression(attr(node, "left"))
        right_node = attr(node, "right")
        if right_node is None:
            return left
        right = self.expression(right_node)
        return n.Binary(left.span.merge(right.span), "in", left, right)

    def expr_postfix_expression(self, node: Any) -> n.Expr:
        base_node = attr(node, "base")
        ops = attrs(node, "ops")
        if rule_of(base_node) == "NamedCall":  # the grammar makes its arguments the first op
            first, ops = ops[0], ops[1:]
            args = [self.expression(a) for a in attrs(first, "args")]
            span = self.span(base_node).merge(self.span(first))
            result: n.Expr = n.Call(span, str(attr(base_node, "name")), args)
        else:
            result = self.expression(base_node)
        for op in ops:
            span = result.span.merge(self.span(op))
            kind = rule_of(op)
            default_node = attr(op, "default")
            default = self.expression(default_node) if default_node is not None else None
            if kind == "IndexOp":
                result = n.Index(span, result, self.expression(attr(op, "index")), default)
            elif kind == "LookupOp":
                result = n.FieldLookup(span, result, str(attr(op, "field")), default)
            elif isinstance(result, n.Var):
                result = n.Call(
                    span, result.name, [self.expression(a) for a in attrs(op, "args")], variable=True
                )
            else:
                result = n.Call(span, "", [self.expression(a) for a in attrs(op, "args")], callee=result)
        return result

    def expr_variable(self, node: Any) -> n.Expr:
        return n.Var(self.span(node), str(attr(node, "name")))

    def expr_parenthesized(self, node: Any) -> n.Expr:
        return self.expression(attr(node, "inner"))

    def expr_bool_literal(self, node: Any) -> n.Expr:
        return n.BoolLit(self.span(node), attr(node, "value") == "true")

    def expr_int_literal(self, node: Any) -> n.Expr:
        value = int(str(attr(node, "value")))
        span = self.span(node)
        if not INT64_MIN <= value <= INT64_MAX:
            raise CfSyntaxError(
                f"integer literal {value} does not fit in an int (64 bits)", span, "mcl-parse"
            )
        return n.IntLit(span, value)

    def expr_float_literal(self, node: Any) -> n.Expr:
        return n.FloatLit(self.span(node), float(str(attr(node, "value"))))

    def expr_string_literal(self, node: Any) -> n.Expr:
        raw = str(attr(node, "value"))
        kept = raw[1:-1] if "${" in raw or "\\" in raw else None  # escapes and ${} are interpolation's
        return n.StrLit(self.span(node), self.string_value(node, raw), kept)

    def string_value(self, node: Any, raw: str) -> str:
        body = raw[1:-1]

        def unescape(match: re.Match[str]) -> str:
            return _ESCAPES.get(match.group(1), match.group(0))  # unknown ones: interpolation reports them

        return _ESCAPE.sub(unescape, body) if "\\" in body else body

    def expr_list_literal(self, node: Any) -> n.Expr:
        return n.ListLit(self.span(node), [self.expression(i) for i in attrs(node, "items")])

    def expr_map_literal(self, node: Any) -> n.Expr:
        pairs = [
            n.MapPair(self.span(p), self.expression(attr(p, "key")), self.expression(attr(p, "value")))
            for p in attrs(node, "pairs")
        ]
        return n.MapLit(self.span(node), pairs)

    def expr_struct_literal(self, node: Any) -> n.Expr:
        fields = [(str(attr(f, "name")), self.expression(attr(f, "value"))) for f in attrs(node, "fields")]
        return n.StructLit(self.span(node), fields)

    def unique_fields(self, fields: list[Any]) -> None:
        seen: set[str] = set()
        for field_node in fields:
            name = str(attr(field_node, "name"))
            if name in seen:
                raise CfSyntaxError(f"duplicate struct field {name}", self.span(field_node), "mcl-parse")
            seen.add(name)

    def expr_if_expression(self, node: Any) -> n.Expr:
        return n.IfExpr(
            self.span(node), self.expression(attr(node, "condition")), self.expression(attr(node, "then")),
            self.expression(attr(node, "otherwise")),
        )  # fmt: skip

    def expr_func_literal(self, node: Any) -> n.Expr:
        return self.func_literal(node)
