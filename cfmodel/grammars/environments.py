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

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textx import TextXSyntaxError, metamodel_from_file

from cfmodel.collector import gc_paused
from cfmodel.errors import CfLoadError, CfSyntaxError, Span
from cfmodel.grammars.bindings import _Builder as _BindingsBuilder
from cfmodel.grammars.positions import LineIndex
from cfmodel.metamodel import environments as em
from cfmodel.metamodel.bindings import ModelObject, SpanTable

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


@dataclass(frozen=True, slots=True)
class ParsedEnvironments:
    """One parsed environments file: the ``EnvironmentsFile`` object and its span table."""

    root: ModelObject
    spans: SpanTable
    file: str
    text: str


@functools.cache
def _metamodel() -> Any:
    """The textX metamodel of ``environments.tx`` (+ ``bindings.tx``), built once."""
    return metamodel_from_file(str(GRAMMAR), autokwd=True, skipws=True)


# Comments are blanked (same length, newlines kept) so every position stays exact and the
# grammar needs no comment rule. Strings and /regexes/ are skipped over whole: `/` means
# nothing else in this language (there is no division), and `/*` starts a comment.
_COMMENT_OR_PROTECTED = re.compile(
    r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|/(?!\*)(?:\\.|[^/\\\n])*/)|(\#[^\n]*|/\*[\s\S]*?\*/)"""
)


def blank_comments(text: str) -> str:
    """Replace ``# ...`` and ``/* ... */`` comments by spaces (newlines stay)."""
    if "#" not in text and "/*" not in text:
        return text
    return _COMMENT_OR_PROTECTED.sub(_blank, text)


def _blank(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return match.group(0)
    return re.sub(r"[^\n]", " ", match.group(0))


def parse_str(text: str, file: str = "<string>") -> ParsedEnvironments:
    """Parse environments source text.

    Raises:
        CfSyntaxError: the text does not follow the grammar (codes above).
    """
    with gc_paused():
        try:
            tree = _metamodel().model_from_str(blank_comments(text))
        except TextXSyntaxError as err:
            raise _syntax_error(err, text, file) from err
        builder = _Builder(text, file)
        root = builder.build_file(tree)
    return ParsedEnvironments(root, builder.spans, file, text)


def parse_file(path: str | Path, display: str | None = None) -> ParsedEnvironments:
    """Read and parse an environments file; ``display`` (default: the path) names it in spans.

    Raises:
        CfLoadError: the file cannot be read or is not UTF-8 (code ``load``).
        CfSyntaxError: see ``parse_str``.
    """
    name = display if display is not None else str(path)
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as err:
        raise CfLoadError(
            f"cannot read environments file: {err.strerror}", Span(name, 1, 1, 1, 1), "load"
        ) from err
    except UnicodeDecodeError as err:
        raise CfLoadError("environments file is not valid UTF-8", Span(name, 1, 1, 1, 1), "load") from err
    return parse_str(text, name)


# --- syntax errors ------------------------------------------------------------------------------


def _syntax_error(err: TextXSyntaxError, text: str, file: str) -> CfSyntaxError:
    line, col = int(err.line or 1), int(err.col or 1)
    index = LineIndex(text, file)
    offset = min(index.offset(line, col), len(text)) if line <= len(index.line_starts) else len(text)
    match = re.match(r"\"[^\"\n]*\"?|'[^'\n]*'?|[$:\w]+|\S", text[offset:])
    found = match.group(0) if match else ""
    span = Span(file, line, col, line, col + max(len(found), 1))
    what = f"unexpected {found!r}" if found else "unexpected end of file"
    return CfSyntaxError(f"{what} (expected {_expected(err)})", span, "syntax")


def _expected(err: TextXSyntaxError) -> str:
    names: list[str] = []
    for rule in err.expected_rules or ():
        rule_name = str(getattr(rule, "rule_name", "") or "")
        text = _RULE_NAMES.get(rule_name) or "'{}'".format(
            str(getattr(rule, "to_match", "") or rule_name).removesuffix(r"\b")
        )
        if text not in names:
            names.append(text)
    if ("a variable" in names or "a value" in names) and "'|'" in names:
        names = [n for n in names if n not in _EXPRESSION_STARTS] + ["an expression"]
    if not names:
        return "nothing more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# --- textX boundary ------------------------------------------------------------------------------


def _get(node: Any, name: str) -> Any:
    return getattr(node, name, None)


def _get_list(node: Any, name: str) -> list[Any]:
    value = getattr(node, name, None)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _kind(node: Any) -> str:
    return type(node).__name__


# --- tree to model ----------------------------------------------------------------------------------


class _Builder(_BindingsBuilder):
    """The bindings builder (expressions, spans) plus the environments file's statements."""

    def build_file(self, tree: Any) -> ModelObject:
        root = self._made(em.EnvironmentsFile(), tree)
        root.statements.extend(self.statement(s) for s in _get_list(tree, "statements"))
        return root

    def statement(self, node: Any) -> ModelObject:
        kind = _kind(node)
        if kind == "EnvSite":
            site = em.SiteDeclaration()
            site.declarations.extend(self.declaration(d) for d in _get_list(node, "declarations"))
            return self._made(site, node)
        if kind == "Assignment":
            return self._made(self.assignment(node), node)
        if kind == "IfStatement":
            return self.if_statement(node)
        if kind == "CaseStatement":
            return self._made(self.case_statement(node), node)
        call = em.CallStatement(function=_get(node, "function"))
        call.args.extend(self.expression(a) for a in _get_list(node, "args"))
        return self._made(call, node)

    def statements(self, nodes: list[Any]) -> list[ModelObject]:
        return [self.statement(n) for n in nodes]

    def declaration(self, node: Any) -> ModelObject:
        kind = _kind(node)
        if kind == "EnvDefaults":
            decl = em.EnvironmentDefaults()
        elif kind == "StaticEnv":
            decl = em.EnvironmentDeclaration(title=self.expression(_get(node, "title")))
        else:
            decl = em.DynamicEnvironments(title=self.expression(_get(node, "title")))
        for param in _get_list(node, "params"):
            value = self.expression(_get(param, "value"))
            decl.parameters.append(self._made(em.Parameter(name=_get(param, "name"), value=value), param))
        return self._made(decl, node)

    def assignment(self, node: Any) -> ModelObject:
        raw = str(_get(node, "variable"))
        if raw.startswith("$::"):
            span = self.span_of(node)
            message = f"cannot assign {raw}: top-scope variables (facts) are read-only here"
            raise CfSyntaxError(message, span, "assign-top-scope")
        return em.Assignment(variable=raw[1:], value=self.expression(_get(node, "value")))

    def if_statement(self, node: Any) -> ModelObject:
        stmt = self._made(
            em.IfStatement(
                unless=_get(node, "kind") == "unless", condition=self.condition(_get(node, "condition"))
            ),
            node,
        )
        stmt.then.extend(self.statements(_get_list(node, "then")))
        tail = stmt
        for clause in _get_list(node, "elsifs"):
            nested = self._made(em.IfStatement(condition=self.condition(_get(clause, "condition"))), clause)
            nested.then.extend(self.statements(_get_list(clause, "body")))
            tail.otherwise.append(nested)
            tail = nested
        tail.otherwise.extend(self.statements(_get_list(node, "otherwise")))
        return stmt

    def case_statement(self, node: Any) -> ModelObject:
        stmt = em.CaseStatement(subject=self.expression(_get(node, "subject")))
        for option_node in _get_list(node, "options"):
            option = self._made(em.CaseOption(), option_node)
            for value_node in _get_list(option_node, "values"):
                if _get(value_node, "pattern"):
                    value = em.RegexValue(pattern=self.regex(value_node))
                elif _get(value_node, "default"):
                    value = em.DefaultValue()
                else:
                    value = em.ExpressionValue(expression=self.expression(_get(value_node, "value")))
                option.values.append(self._made(value, value_node))
            option.body.extend(self.statements(_get_list(option_node, "body")))
            stmt.options.append(option)
        return stmt

    # conditions
    def condition(self, node: Any) -> ModelObject:
        terms = [self.conjunction(t) for t in _get_list(node, "terms")]
        if len(terms) == 1:
            return terms[0]
        return self._made(em.AnyCondition(operands=terms), node)

    def conjunction(self, node: Any) -> ModelObject:
        factors = [self.factor(f) for f in _get_list(node, "factors")]
        if len(factors) == 1:
            return factors[0]
        return self._made(em.AllConditions(operands=factors), node)

    def factor(self, node: Any) -> ModelObject:
        kind = _kind(node)
        if kind == "GroupTest":
            return self.condition(_get(node, "condition"))
        if kind == "MatchTest":
            obj = em.MatchCondition(
                subject=self.expression(_get(node, "subject")),
                pattern=self.regex(node),
                negated=_get(node, "op") == "!~",
            )
        elif kind == "InTest":
            obj = em.InCondition(
                item=self.expression(_get(node, "item")), collection=self.expression(_get(node, "collection"))
            )
        else:
            obj = em.ExpressionCondition(expression=self.expression(_get(node, "expression")))
        return self._made(obj, node)

    def regex(self, node: Any) -> str:
        """The pattern of a ``/regex/`` token (``\\/`` stands for ``/``), checked by ``re``."""
        raw = str(_get(node, "pattern"))
        pattern = raw[1:-1].replace("\\/", "/")
        try:
            re.compile(pattern)
        except re.error as err:
            start = self.text.find(raw, int(_get(node, "_tx_position") or 0))
            span = self.lines.span(start, start + len(raw)) if start >= 0 else self.span_of(node)
            raise CfSyntaxError(f"invalid regular expression {raw}: {err}", span, "bad-regex") from err
        return pattern
