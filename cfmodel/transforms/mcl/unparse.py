"""The canonical formatting of an mcl program (``cfmodel mcl fmt``; mgmt has none).

Input: source text (parsed here, before interpolation). Output: the same program written the
one canonical way, with every ``#`` comment kept:

* one statement per line, blocks indented by one tab, a space around binary operators and
  after commas, ``=>`` and ``?:`` spaced, resource fields one per line each ending in ``,``
  and an empty body as ``{}``;
* at most one blank line where the source had one or more between two statements;
* lists, maps, structs, lambdas and ``if`` expressions stay on one line when they were
  written on one line (items separated by ``, ``, lists/maps/structs with a trailing ``,``),
  and get one item per line (each with a trailing ``,``) when they spanned lines;
* parentheses only where precedence needs them; strings with mgmt's escapes;
* a comment on the line of a statement, field or item stays at the end of that line; a
  comment on its own line stays on its own line before what followed it.

Guarantees: the output parses to the same tree (spans aside) and formatting it again gives
the same text (idempotent).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cfmodel.errors import Span
from cfmodel.grammars import mcl_nodes as n
from cfmodel.grammars.mcl import parse_str

INDENT = "\t"

# binding levels (higher binds tighter)
_LOGIC, _COMPARE, _SUM, _PRODUCT, _NOT, _IN, _POSTFIX, _ATOM = range(1, 9)
_LEVEL = {"and": _LOGIC, "or": _LOGIC, "+": _SUM, "-": _SUM, "*": _PRODUCT, "/": _PRODUCT, "in": _IN}


def format_source(text: str, file: str = "<string>") -> str:
    """The canonical text of *text* (raises `CfSyntaxError` when it does not parse)."""
    program = parse_str(text, file)
    return format_program(program)


def format_program(program: n.Program) -> str:
    writer = _Writer(sorted(program.comments, key=lambda c: (c[0].line, c[0].col)))
    writer.block(program.statements, 0, end_line=None)
    writer.flush_comments(None, 0)
    text = "\n".join(writer.lines).rstrip("\n")
    return text + "\n" if text else ""


@dataclass
class _Line:
    """One output line of an expression: its text and the source line it came from."""

    text: str
    source_line: int


@dataclass
class _Writer:
    comments: list[tuple[Span, str]]
    lines: list[str] = field(default_factory=list)
    last_source_line: int = 0

    # --- comments and blank lines ---------------------------------------------------------

    def flush_comments(self, before_line: int | None, depth: int, blank: bool = True) -> None:
        """Own-line comments that come before *before_line* (all of them when None)."""
        while self.comments and (before_line is None or self.comments[0][0].line < before_line):
            span, text = self.comments.pop(0)
            if blank:
                self.gap(span.line)
            self.lines.append(INDENT * depth + text)
            self.last_source_line = span.line

    def trailing(self, line: int) -> str:
        """The comment written on source *line*, if any (taken)."""
        if self.comments and self.comments[0][0].line == line:
            return " " + self.comments.pop(0)[1]
        return ""

    def gap(self, line: int) -> None:
        if self.lines and self.lines[-1].strip() and line > self.last_source_line + 1:
            opening = self.lines[-1].rstrip().endswith("{")
            if not opening:
                self.lines.append("")

    def emit(self, depth: int, parts: list[_Line]) -> None:
        for i, part in enumerate(parts):
            if i:  # own-line comments between the lines of a multi-line expression stay there
                inner = len(part.text) - len(part.text.lstrip(INDENT))
                self.flush_comments(part.source_line, depth + inner, blank=False)
            self.lines.append(INDENT * depth + part.text + self.trailing(part.source_line))
            self.last_source_line = max(self.last_source_line, part.source_line)

    # --- statements -----------------------------------------------------------------------

    def block(self, statements: list[n.Stmt], depth: int, end_line: int | None) -> None:
        for stmt in statements:
            self.flush_comments(stmt.span.line, depth)
            self.gap(stmt.span.line)
            self.statement(stmt, depth)
        if end_line is not None:
            self.flush_comments(end_line, depth)

    def open_close(self, depth: int, header: list[_Line], body: list[n.Stmt], span: Span) -> None:
        header[-1] = _Line(header[-1].text + " {", header[-1].source_line)
        self.emit(depth, header)
        self.block(body, depth + 1, span.end_line)
        self.emit(depth, [_Line("}", span.end_line)])

    def statement(self, stmt: n.Stmt, depth: int) -> None:
        line = stmt.span.line
        if isinstance(stmt, n.Bind):
            typed = f" {type_text(stmt.type)}" if stmt.type is not None else ""
            self.emit(depth, prefix(f"${stmt.name}{typed} = ", expr_lines(stmt.value, 0, line)))
        elif isinstance(stmt, n.If):
            header = prefix("if ", expr_lines(stmt.condition, 0, line))
            header[-1] = _Line(header[-1].text + " {", header[-1].source_line)
            self.emit(depth, header)
            else_line = stmt.else_span.line if stmt.else_span is not None else stmt.span.end_line
            self.block(stmt.then, depth + 1, else_line if stmt.otherwise is not None else stmt.span.end_line)
            if stmt.otherwise is None:
                self.emit(depth, [_Line("}", stmt.span.end_line)])
            else:
                self.emit(depth, [_Line("} else {", else_line)])
                self.block(stmt.otherwise, depth + 1, stmt.span.end_line)
                self.emit(depth, [_Line("}", stmt.span.end_line)])
        elif isinstance(stmt, n.For | n.ForKV):
            keyword, first = ("for", stmt.index) if isinstance(stmt, n.For) else ("forkv", stmt.key)
            header = prefix(f"{keyword} ${first}, ${stmt.value} in ", expr_lines(stmt.collection, 0, line))
            self.open_close(depth, header, stmt.body, stmt.span)
        elif isinstance(stmt, n.FuncDef):
            func = stmt.func
            result = f" {type_text(func.result)}" if func.result is not None else ""
            self.emit(depth, [_Line(f"func {stmt.name}({params_text(func.params)}){result} {{", line)])
            self.emit(depth + 1, expr_lines(func.body, 0, func.body.span.line))
            self.flush_comments(stmt.span.end_line, depth + 1)
            self.emit(depth, [_Line("}", stmt.span.end_line)])
        elif isinstance(stmt, n.ClassDef):
            params = f"({params_text(stmt.params)})" if stmt.params is not None else ""
            self.open_close(depth, [_Line(f"class {stmt.name}{params}", line)], stmt.body, stmt.span)
        elif isinstance(stmt, n.Include):
            args = f"({', '.join(inline(a) for a in stmt.args)})" if stmt.args is not None else ""
            alias = f" as {stmt.alias}" if stmt.alias else ""
            self.emit(depth, [_Line(f"include {stmt.name}{args}{alias}", line)])
        elif isinstance(stmt, n.Import):
            alias = f" as {stmt.alias}" if stmt.alias else ""
            self.emit(depth, [_Line(f"import {quote(stmt.path)}{alias}", line)])
        elif isinstance(stmt, n.Panic):
            self.emit(depth, [_Line(f"panic({', '.join(inline(a) for a in stmt.args)})", line)])
        elif isinstance(stmt, n.EdgeChain):
            self.emit(depth, [_Line(" -> ".join(half_text(h) for h in stmt.halves), line)])
        else:
            self.resource(stmt, depth)

    def resource(self, stmt: n.Resource, depth: int) -> None:
        header = prefix(f"{stmt.kind} ", expr_lines(stmt.title, 0, stmt.span.line))
        if not stmt.entries and not self._comments_within(stmt.span):
            header[-1] = _Line(header[-1].text + " {}", header[-1].source_line)
            self.emit(depth, header)
            return
        header[-1] = _Line(header[-1].text + " {", header[-1].source_line)
        self.emit(depth, header)
        for entry in stmt.entries:
            self.flush_comments(entry.span.line, depth + 1)
            self.gap(entry.span.line)
            self.emit(depth + 1, entry_lines(entry))
        self.flush_comments(stmt.span.end_line, depth + 1)
        self.emit(depth, [_Line("}", stmt.span.end_line)])

    def _comments_within(self, span: Span) -> bool:
        return any(span.line < c.line <= span.end_line for c, _ in self.comments)


# --- expressions --------------------------------------------------------------------------


def prefix(text: str, lines: list[_Line]) -> list[_Line]:
    return [_Line(text + lines[0].text, lines[0].source_line), *lines[1:]]


def suffix(lines: list[_Line], text: str) -> list[_Line]:
    return [*lines[:-1], _Line(lines[-1].text + text, lines[-1].source_line)]


def inline(node: n.Expr) -> str:
    return " ".join(line.text for line in expr_lines(node, 0, node.span.line))


def entry_lines(entry: n.ResEntry) -> list[_Line]:
    line = entry.span.line
    if isinstance(entry, n.ResEdge):
        value = [_Line(half_text(entry.half), entry.half.span.line)]
        name = entry.property
    else:
        value = expr_lines(entry.value, 0, entry.value.span.line)
        name = (
            entry.name if isinstance(entry, n.ResField) else ("Meta:" + entry.name if entry.name else "Meta")
        )
    if entry.condition is not None:
        value = prefix(inline(entry.condition) + " ?: ", value)
    return suffix(prefix(f"{name} => ", value), ",") if value else [_Line(f"{name} => ,", line)]


def half_text(half: n.EdgeHalf) -> str:
    field_text = f".{half.field}" if half.field else ""
    return f"{half.kind}[{inline(half.title)}]{field_text}"


def params_text(params: list[n.Param] | None) -> str:
    return ", ".join(
        f"${p.name}" + (f" {type_text(p.type)}" if p.type is not None else "") for p in params or []
    )


def type_text(t: n.TypeNode) -> str:
    if t.kind == "list":
        return "[]" + type_text(t.items[0])
    if t.kind == "map":
        return f"map{{{type_text(t.items[0])}: {type_text(t.items[1])}}}"
    if t.kind == "struct":
        return "struct{" + "; ".join(f"{name} {type_text(f)}" for name, f in t.fields) + "}"
    if t.kind == "func":
        args = ", ".join(f"${name} {type_text(a)}" if name else type_text(a) for name, a in t.fields)
        assert t.result is not None
        return f"func({args}) {type_text(t.result)}"
    return t.kind


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0", "\a": "\\a"}


def quote(value: str, interpolating: bool = False) -> str:
    """A string literal for *value*; ``${`` is escaped unless it is an interpolation."""
    out = "".join(_ESCAPES.get(c, c) for c in value)
    if not interpolating:
        out = out.replace("${", "\\${")
    return '"' + out + '"'


def _string(node: n.StrLit | n.Interpolated) -> str:
    if isinstance(node, n.StrLit):
        if node.raw is not None:  # not interpolated yet (fmt runs on the parsed tree)
            return '"' + node.raw + '"'
        return quote(node.value)
    body = ""
    for part in node.parts:
        body += f"${{{part.name}}}" if isinstance(part, n.Var) else quote(part.value)[1:-1]
    return '"' + body + '"'


def _float(value: float) -> str:
    text = repr(value)
    if "e" in text or "n" in text:
        text = format(value, "f")
    return text if "." in text else text + ".0"


def _level(node: n.Expr) -> int:
    if isinstance(node, n.Binary):
        return _LEVEL.get(node.op, _COMPARE)
    if isinstance(node, n.Not):
        return _NOT
    if isinstance(node, n.Index | n.FieldLookup | n.Call):
        return _POSTFIX
    if isinstance(node, n.IntLit | n.FloatLit) and node.value < 0:
        return _NOT  # `-1` after a postfix would read as a binary minus
    return _ATOM


def _wrap(node: n.Expr, minimum: int, line: int) -> list[_Line]:
    lines = expr_lines(node, 0, line)
    if _level(node) < minimum:
        return suffix(prefix("(", lines), ")")
    return lines


def expr_lines(node: n.Expr, depth: int, line: int) -> list[_Line]:
    """The lines of an expression (one unless a literal, lambda or if spanned lines)."""
    line = node.span.line
    multi = node.span.end_line > node.span.line
    if isinstance(node, n.BoolLit):
        return [_Line("true" if node.value else "false", line)]
    if isinstance(node, n.IntLit):
        return [_Line(str(node.value), line)]
    if isinstance(node, n.FloatLit):
        return [_Line(_float(node.value), line)]
    if isinstance(node, n.StrLit | n.Interpolated):
        return [_Line(_string(node), line)]
    if isinstance(node, n.Var):
        return [_Line(f"${node.name}", line)]
    if isinstance(node, n.ListLit):
        return _items("[", [expr_lines(i, 0, line) for i in node.items], "]", multi, line, node.span.end_line)
    if isinstance(node, n.MapLit):
        pairs = [_join(expr_lines(p.key, 0, line), " => ", expr_lines(p.value, 0, line)) for p in node.pairs]
        return _items("{", pairs, "}", multi, line, node.span.end_line)
    if isinstance(node, n.StructLit):
        fields = [prefix(f"{name} => ", expr_lines(value, 0, line)) for name, value in node.fields]
        return _items("struct{", fields, "}", multi, line, node.span.end_line)
    if isinstance(node, n.Call):
        if node.callee is not None:
            head = _wrap(node.callee, _POSTFIX, line)
        else:
            head = [_Line(("$" if node.variable else "") + node.name, line)]
        args = ", ".join(inline(a) for a in node.args)
        return suffix(head, f"({args})")
    if isinstance(node, n.FuncLit):
        result = f" {type_text(node.result)}" if node.result is not None else ""
        opening = f"func({params_text(node.params)}){result} {{"
        body = expr_lines(node.body, 0, line)
        if multi:
            return [
                _Line(opening, line),
                *(_Line(INDENT + b.text, b.source_line) for b in body),
                _Line("}", node.span.end_line),
            ]
        return [_Line(f"{opening} {' '.join(b.text for b in body)} }}", line)]
    if isinstance(node, n.IfExpr):
        cond = inline(node.condition)
        then, other = expr_lines(node.then, 0, line), expr_lines(node.otherwise, 0, line)
        if multi:
            return [
                _Line(f"if {cond} {{", line),
                *(_Line(INDENT + b.text, b.source_line) for b in then),
                _Line("} else {", node.otherwise.span.line),
                *(_Line(INDENT + b.text, b.source_line) for b in other),
                _Line("}", node.span.end_line),
            ]
        return [_Line(f"if {cond} {{ {inline(node.then)} }} else {{ {inline(node.otherwise)} }}", line)]
    if isinstance(node, n.Not):
        return prefix("not ", _wrap(node.operand, _NOT, line))
    if isinstance(node, n.Index):
        lines = suffix(_wrap(node.target, _POSTFIX, line), f"[{inline(node.index)}]")
        if node.default is not None:
            lines = suffix(lines, f" || {' '.join(x.text for x in _wrap(node.default, _POSTFIX, line))}")
        return lines
    if isinstance(node, n.FieldLookup):
        lines = suffix(_wrap(node.target, _POSTFIX, line), f"->{node.field}")
        if node.default is not None:
            lines = suffix(lines, f" || {' '.join(x.text for x in _wrap(node.default, _POSTFIX, line))}")
        return lines
    return _binary(node, line)


def _binary(node: n.Binary, line: int) -> list[_Line]:
    level = _LEVEL.get(node.op, _COMPARE)
    if level == _IN:
        left_min, right_min = _POSTFIX, _POSTFIX
    elif level == _COMPARE:
        left_min, right_min = _COMPARE + 1, _COMPARE + 1
    else:
        left_min, right_min = level, level + 1
    left = _wrap(node.left, left_min, line)
    right = _wrap(node.right, right_min, line)
    return _join(left, f" {node.op} ", right)


def _join(left: list[_Line], middle: str, right: list[_Line]) -> list[_Line]:
    joined = _Line(left[-1].text + middle + right[0].text, left[-1].source_line)
    return [*left[:-1], joined, *right[1:]]


def _items(
    open_: str, items: list[list[_Line]], close: str, multi: bool, line: int, end_line: int
) -> list[_Line]:
    if not items:
        return [_Line(open_ + close, line)]
    if not multi:
        return [
            _Line(open_ + ", ".join(" ".join(p.text for p in item) for item in items) + "," + close, line)
        ]
    lines = [_Line(open_, line)]
    for item in items:
        item = suffix(item, ",")
        lines.extend(_Line(INDENT + p.text, p.source_line) for p in item)
    lines.append(_Line(close, end_line))
    return lines
