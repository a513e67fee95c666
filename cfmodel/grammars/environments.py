"""Parse the environments file (``environments.cfenv``, ARM-8 syntax) into its metamodel.

Input: source text and a display file name (``parse_str``) or a path (``parse_file``).
Output: ``ParsedEnvironments``: an ``EnvironmentsFile`` model object
(``cfmodel.metamodel.environments``) and the ``SpanTable`` giving the source span of every
element created (statements, declarations, parameters, conditions and every expression).

Reuse: the expressions are the bindings language's, grammar and builder both: the grammar
imports ``bindings.tx`` (textX ``import``) and the tree builder extends the bindings
parser's, so an expression means the same in both files and evaluates with
``cfmodel.transforms.bindings.compose.evaluate``. textX objects never leak into the model.

Speed (the file is read on every request): the textX metamodel is built once per process;
comments are blanked before parsing instead of a comment rule tried before every token; the
garbage collector is paused while the tree is built; there are no textX cross-references;
spans come from character offsets through ``LineIndex``.

Errors: ``CfSyntaxError`` with code ``syntax`` (``unexpected <token> (expected ...)``),
``bad-regex`` (a ``/regex/`` that Python's ``re`` rejects) or ``assign-top-scope``
(``$::x = ...``: facts are read-only). Everything else is checked when the file is evaluated
(``cfmodel.transforms.environments.environments``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textx import TextXSyntaxError, metamodel_from_file

from cfmodel.collector import gc_paused
from cfmodel.errors import CfSyntaxError
from cfmodel.grammars.bindings import _Builder as _BindingsBuilder
from cfmodel.grammars.frontend import (
    CommentBlanker,
    TextxErrors,
    attr,
    attrs,
    built_once,
    file_span,
    read_source,
    rule_of,
)
from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel import environments as em
from cfmodel.metamodel.bindings import ModelObject, SpanTable
from cfmodel.metamodel.runtime.objects import Maker, ObjectBuilder

GRAMMAR = Path(__file__).with_name("environments.tx")

#: Friendly names for grammar rules in "expected ..." lists.
_RULE_NAMES = {
    "Str": "a string",
    "LowerName": "a name",
    "TypeName": "a type name",
    "VarName": "a variable",
    "CondKw": "'if' or 'unless'",
    "BoolKw": "a boolean",
    "Number": "a number",
    "UndefKw": "'undef'",
    "CompareOp": "'==' or '!='",
    "AddOp": "'+' or '-'",
    "AtomTok": "a value",
    "ScalarTok": "a string, number or boolean",
    "BinOp": "an operator",
    "MatchOp": "'=~' or '!~'",
    "Regex": "a /regex/",
}
#: Tokens that together mean "an expression could start here".
_EXPRESSION_STARTS = frozenset(
    (
        "'if' or 'unless'",
        "'!'",
        "'|'",
        "a name",
        "a variable",
        "a boolean",
        "a number",
        "a string",
        "'undef'",
        "'['",
        "'{'",
        "'('",
        "a value",
    )
)
#: How textX's syntax errors read (the front-end kit's `TextxErrors`).
_ERRORS = TextxErrors(
    _RULE_NAMES,
    re.compile(r"\"[^\"\r\n]*\"?|'[^'\r\n]*'?|[$:\w]+|\S"),
    _EXPRESSION_STARTS,
    lambda names: ("a variable" in names or "a value" in names) and "'|'" in names,
)


@dataclass(frozen=True, slots=True)
class ParsedEnvironments:
    """One parsed environments file: the ``EnvironmentsFile`` object and its span table."""

    root: ModelObject
    spans: SpanTable
    file: str
    text: str


@built_once
def _metamodel() -> Any:
    """The textX metamodel of ``environments.tx`` (+ ``bindings.tx``), built once."""
    return metamodel_from_file(str(GRAMMAR), autokwd=True, skipws=True, memoization=True)


# Comments are blanked (same length, newlines kept) so every position stays exact and the
# grammar needs no comment rule. Strings and /regexes/ are skipped over whole: `/` means
# nothing else in this language (there is no division), and `/*` starts a comment.
_COMMENT_OR_PROTECTED = re.compile(
    r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|/(?!\*)(?:\\.|[^/\\\n])*/)|(\#[^\n]*|/\*[\s\S]*?\*/)"""
)


_BLANKER = CommentBlanker(_COMMENT_OR_PROTECTED, ("#", "/*"))


def blank_comments(text: str) -> str:
    """Replace ``# ...`` and ``/* ... */`` comments by spaces (newlines stay)."""
    return _BLANKER(text)


def parse_str(text: str, file: str = "<string>") -> ParsedEnvironments:
    """Parse environments source text.

    Raises:
        CfSyntaxError: the text does not follow the grammar (codes above).
    """
    with gc_paused():
        try:
            tree = _metamodel().model_from_str(blank_comments(text))
            builder = _Builder(text, file)
            root = builder.build_file(tree)
            builder.finish()
        except TextXSyntaxError as err:
            raise _ERRORS.error(err, text, file) from err
        except RecursionError:
            raise CfSyntaxError("the file nests too deeply to parse", file_span(file), "syntax") from None
    return ParsedEnvironments(root, builder.spans, file, text)


def parse_file(path: str | Path, display: str | None = None) -> ParsedEnvironments:
    """Read and parse an environments file; ``display`` (default: the path) names it in spans.

    Raises:
        CfLoadError: the file cannot be read or is not UTF-8 (`frontend.read_source`).
        CfSyntaxError: see ``parse_str``.
    """
    name = display if display is not None else str(path)
    return parse_str(read_source(Path(path), name, "environments file"), name)


# --- syntax errors ------------------------------------------------------------------------------


class _Builder(_BindingsBuilder):
    """The bindings builder (expressions, spans) plus the environments file's statements.

    Every object, bindings expressions too, is made by one `ObjectBuilder` (the runtime's
    light objects, as the compiler and the readers make theirs); `finish` registers them."""

    def __init__(self, text: str, file: str) -> None:
        self.objects = ObjectBuilder()
        super().__init__(text, file, Maker(self.objects, bm.PACKAGE))
        self.e = Maker(self.objects, em.PACKAGE)

    def finish(self) -> None:
        """Register the objects made as PyEcore instances."""
        self.objects.finish()

    def build_file(self, tree: Any) -> ModelObject:
        root = self._made(self.e.EnvironmentsFile(), tree)
        root.statements.extend(self.statement(s) for s in attrs(tree, "statements"))
        return root

    def statement(self, node: Any) -> ModelObject:
        kind = rule_of(node)
        if kind == "EnvSite":
            site = self.e.SiteDeclaration()
            site.declarations.extend(self.declaration(d) for d in attrs(node, "declarations"))
            return self._made(site, node)
        if kind == "Assignment":
            return self._made(self.assignment(node), node)
        if kind == "IfStatement":
            return self.if_statement(node)
        if kind == "CaseStatement":
            return self._made(self.case_statement(node), node)
        call = self.e.CallStatement(function=attr(node, "function"))
        call.args.extend(self.expression(a) for a in attrs(node, "args"))
        return self._made(call, node)

    def statements(self, nodes: list[Any]) -> list[ModelObject]:
        return [self.statement(n) for n in nodes]

    def declaration(self, node: Any) -> ModelObject:
        kind = rule_of(node)
        if kind == "EnvDefaults":
            decl = self.e.EnvironmentDefaults()
        elif kind == "StaticEnv":
            decl = self.e.EnvironmentDeclaration(title=self.expression(attr(node, "title")))
        else:
            decl = self.e.DynamicEnvironments(title=self.expression(attr(node, "title")))
        for param in attrs(node, "params"):
            value = self.expression(attr(param, "value"))
            decl.parameters.append(self._made(self.e.Parameter(name=attr(param, "name"), value=value), param))
        return self._made(decl, node)

    def assignment(self, node: Any) -> ModelObject:
        raw = str(attr(node, "variable"))
        if raw.startswith("$::"):
            span = self.span_of(node)
            message = f"cannot assign {raw}: top-scope variables (facts) are read-only here"
            raise CfSyntaxError(message, span, "assign-top-scope")
        return self.e.Assignment(variable=raw[1:], value=self.expression(attr(node, "value")))

    def if_statement(self, node: Any) -> ModelObject:
        stmt = self._made(
            self.e.IfStatement(
                unless=attr(node, "kind") == "unless", condition=self.condition(attr(node, "condition"))
            ),
            node,
        )
        stmt.then.extend(self.statements(attrs(node, "then")))
        tail = stmt
        for clause in attrs(node, "elsifs"):
            nested = self._made(
                self.e.IfStatement(condition=self.condition(attr(clause, "condition"))), clause
            )
            nested.then.extend(self.statements(attrs(clause, "body")))
            tail.otherwise.append(nested)
            tail = nested
        tail.otherwise.extend(self.statements(attrs(node, "otherwise")))
        return stmt

    def case_statement(self, node: Any) -> ModelObject:
        stmt = self.e.CaseStatement(subject=self.expression(attr(node, "subject")))
        for option_node in attrs(node, "options"):
            option = self._made(self.e.CaseOption(), option_node)
            for value_node in attrs(option_node, "values"):
                if attr(value_node, "pattern"):
                    value = self.e.RegexValue(pattern=self.regex(value_node))
                elif attr(value_node, "default"):
                    value = self.e.DefaultValue()
                else:
                    value = self.e.ExpressionValue(expression=self.expression(attr(value_node, "value")))
                option.values.append(self._made(value, value_node))
            option.body.extend(self.statements(attrs(option_node, "body")))
            stmt.options.append(option)
        return stmt

    # conditions
    def condition(self, node: Any) -> ModelObject:
        terms = [self.conjunction(t) for t in attrs(node, "terms")]
        if len(terms) == 1:
            return terms[0]
        return self._made(self.e.AnyCondition(operands=terms), node)

    def conjunction(self, node: Any) -> ModelObject:
        factors = [self.factor(f) for f in attrs(node, "factors")]
        if len(factors) == 1:
            return factors[0]
        return self._made(self.e.AllConditions(operands=factors), node)

    def factor(self, node: Any) -> ModelObject:
        kind = rule_of(node)
        if kind == "GroupTest":
            return self.condition(attr(node, "condition"))
        if kind == "MatchTest":
            obj = self.e.MatchCondition(
                subject=self.expression(attr(node, "subject")),
                pattern=self.regex(node),
                negated=attr(node, "op") == "!~",
            )
        elif kind == "InTest":
            obj = self.e.InCondition(
                item=self.expression(attr(node, "item")), collection=self.expression(attr(node, "collection"))
            )
        else:
            obj = self.e.ExpressionCondition(expression=self.expression(attr(node, "expression")))
        return self._made(obj, node)

    def regex(self, node: Any) -> str:
        """The pattern of a ``/regex/`` token (``\\/`` stands for ``/``), checked by ``re``."""
        raw = str(attr(node, "pattern"))
        pattern = raw[1:-1].replace("\\/", "/")
        try:
            re.compile(pattern)
        except (re.error, OverflowError, ValueError, RecursionError) as err:  # as in cf.py
            start = self.text.find(raw, int(attr(node, "_tx_position") or 0))
            span = self.lines.span(start, start + len(raw)) if start >= 0 else self.span_of(node)
            shown = raw if len(raw) <= 80 else raw[:77] + "..."
            problem = str(err) if not isinstance(err, RecursionError) else "it nests too deeply"
            message = f"invalid regular expression {shown}: {problem[:200]}"
            raise CfSyntaxError(message, span, "bad-regex") from None
        return pattern
