"""Parse bindings files (``*.bind``, ARM-8 syntax) into the bindings metamodel.

Input: source text and a display file name (``parse_str``) or a path (``parse_file``).
Output: ``ParsedBindings``: a ``BindingsFile`` model (``cfmodel.metamodel.bindings``)
holding ``NamedBindings`` and ``Site`` blocks, plus the ``SpanTable`` giving the source span
of every element created (binding, key, type, expression, layer, category ...).

The model is built from the metamodel's plain objects (slotted Python objects with the
EClasses' names and features: fast to build and to read); ``ParsedBindings.root`` gives the
PyEcore objects, built on first use, for exports and EMF APIs. Parsing evaluates nothing:
the flattened, facts- and site-independent form of each ``NamedBindings`` is made by
``compose.entries.flat_of`` the first time a composition collects it, and kept there.

Guarantees: the model contains only metamodel objects (no textX objects leak out); textX's
dynamic attributes are read only through ``frontend.attr``/``attrs`` here. Double-quoted strings
are split into ``InterpolatedString`` parts (``$::fact``, ``${name}``); single-quoted ones
are literal. The model is read-only once parsed.

Errors: ``CfSyntaxError`` (code ``syntax``) with the position of the offending token and the
message ``unexpected <token> (expected <alternatives>)``. Semantic checks happen later, in
``cfmodel.transforms.bindings.compose``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textx import TextXSyntaxError, metamodel_from_file

from cfmodel.collector import gc_paused
from cfmodel.errors import CfSyntaxError, Span
from cfmodel.grammars.common import MAX_INTEGER_DIGITS
from cfmodel.grammars.frontend import (
    CommentBlanker,
    TextxErrors,
    attr,
    attrs,
    built_once,
    read_source,
    rule_of,
)
from cfmodel.grammars.positions import LineIndex
from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel.bindings import ModelObject, SpanTable

GRAMMAR = Path(__file__).with_name("bindings.tx")

#: Friendly names for grammar rules that show up in "expected ..." lists.
_RULE_NAMES = {
    "Str": ("a string",),
    "LowerName": ("a name",),
    "TypeName": ("a type name",),
    "Modifier": ("'abstract'", "'override'", "'final'"),
    "AliasKw": ("'alias'", "'renamed'"),
    "IncludeKw": ("'include'", "'exclude'"),
    "VariablesKw": ("'variables'",),
    "AsKw": ("'as'",),
    "InKw": ("'in'",),
    "CondKw": ("'if'", "'unless'"),
    "ElementKw": ("'bind'", "'when'", "'multibind'", "'rebind'", "'include'", "'exclude'"),
    "SpecialKw": ("'alias'", "'renamed'", "'parameters'", "'map'", "'variables'"),
    "ParametersKw": ("'parameters'",),
    "MapKw": ("'map'",),
    "VarName": ("a variable",),
    "AtomTok": ("a value",),
    "ScalarTok": ("a boolean", "a number", "a string"),
    "BinOp": ("an operator",),
    "INT": ("an integer",),
}
#: Alternatives that together mean "an expression could start here".
_EXPRESSION_STARTS = frozenset(("'if'", "'unless'", "'!'", "'|'", "a value", "'['", "'{'", "'('"))
#: How textX's syntax errors read (the front-end kit's `TextxErrors`).
_ERRORS = TextxErrors(
    _RULE_NAMES,
    re.compile(r"\"[^\"\r\n]*\"?|'[^'\r\n]*'?|[$:\w]+|\S"),
    _EXPRESSION_STARTS,
    lambda names: "a value" in names and "'|'" in names,
)

_NAME = r"[a-z_][A-Za-z0-9_]*(?:::[a-z_][A-Za-z0-9_]*)*"
_INTERPOLATION = re.compile(rf"\$\{{(::)?({_NAME})\}}|\$(::)?({_NAME})")
_INTEGER = re.compile(r"-?\d+")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "$": "$"}


@dataclass(frozen=True, slots=True)
class ParsedBindings:
    """One bindings file: its ``BindingsFile`` (``model``) and its span table.

    ``model`` is what the parser built (plain objects, see ``cfmodel.metamodel.bindings``) or
    what a provider built (PyEcore objects). ``named_bindings`` and ``sites`` are its objects;
    ``root`` is the PyEcore ``BindingsFile`` (built from plain objects on first use, with the
    spans of the new objects added to ``spans``), for exports and EMF APIs.
    """

    model: ModelObject
    spans: SpanTable
    file: str
    #: a provider's account of how it looked a key up (``hiera:``: every level and path, as
    #: ``puppet lookup --explain``); ``explain`` shows it, for keys found and not found
    tracer: Callable[[str], list[str]] | None = None

    @property
    def root(self) -> ModelObject:
        return bm.to_ecore(self.model, self.spans)

    @property
    def named_bindings(self) -> list[ModelObject]:
        return list(self.model.elements)

    @property
    def sites(self) -> list[ModelObject]:
        return list(self.model.sites)


@built_once
def _metamodel() -> Any:
    """The textX metamodel of ``bindings.tx`` (built once; read-only afterwards)."""
    return metamodel_from_file(str(GRAMMAR), autokwd=True, skipws=True, memoization=True)


def parse_str(text: str, file: str = "<string>") -> ParsedBindings:
    """Parse bindings source text.

    Args:
        text: the source.
        file: the name used in spans and messages.

    Returns:
        The model and its span table.

    Raises:
        CfSyntaxError: the text does not follow the grammar.
    """
    with gc_paused():
        try:
            tree = _metamodel().model_from_str(blank_comments(text))
            builder = _Builder(text, file, bm.plain)
            root = builder.build_file(tree)
        except TextXSyntaxError as err:
            raise _ERRORS.error(err, text, file) from err
        except RecursionError:
            span = Span(file, 1, 1, 1, 1)
            raise CfSyntaxError("the file nests too deeply to parse", span, "syntax") from None
        return ParsedBindings(root, builder.spans, file)


# Comments are blanked (same length, newlines kept) so that every position stays exact and
# the grammar needs no comment rule; strings are skipped over whole.
_COMMENT_OR_STRING = re.compile(r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')|(\#[^\n]*|/\*[\s\S]*?\*/)""")
_BLANKER = CommentBlanker(_COMMENT_OR_STRING, ("#", "/*"))


def blank_comments(text: str) -> str:
    """Replace ``# ...`` and ``/* ... */`` comments by spaces (newlines stay)."""
    return _BLANKER(text)


def parse_file(path: str | Path, display: str | None = None) -> ParsedBindings:
    """Parse a bindings file; ``display`` (default: the path as given) names it in spans.

    Raises:
        CfLoadError: the file cannot be read or is not UTF-8 (`frontend.read_source`).
        CfSyntaxError: see ``parse_str``.
    """
    name = display if display is not None else str(path)
    return parse_str(read_source(Path(path), name, "bindings file"), name)


# --- syntax errors ------------------------------------------------------------------------------


def _valueless_test(category: str, span: Span) -> CfSyntaxError:
    """The error for ``when common { … }`` and ``when node { … }``: a test without a value."""
    if category == "common":
        message = (
            "'common' cannot be used in 'when': it is the implicit category of every binding outside "
            "a 'when' (the lowest precedence); write those bindings directly in the bindings block"
        )
        return CfSyntaxError(message, span, "common-in-when")
    message = f"the category test '{category}' needs a value, as in: when {category} 'value' {{ … }}"
    return CfSyntaxError(message, span, "syntax")


# --- tree to model ---------------------------------------------------------------------------------


class _Builder:
    """Turns a textX tree into metamodel objects, recording each element's span.

    ``model`` holds the classes to build: ``bm.plain`` (the parser's plain objects) or the
    PyEcore classes of ``bm`` (for subclasses such as the environments parser, whose model
    contains bindings expressions: a `Maker` of them, the runtime's objects). Every object
    gets all its features as constructor arguments, the same ones in every case (a feature
    given is a feature set).
    """

    def __init__(self, text: str, file: str, model: Any = bm) -> None:
        self.text = text
        self.file = file
        self.spans = SpanTable()
        self.lines = LineIndex(text, file)
        self.m = model

    # positions
    def span_of(self, node: Any) -> Span:
        start = int(attr(node, "_tx_position") or 0)
        end = int(attr(node, "_tx_position_end") or start)
        return self.lines.span(start, end)

    def _made(self, obj: ModelObject, node: Any) -> ModelObject:
        self.spans.set(obj, self.span_of(node))
        return obj

    # file, site
    def build_file(self, tree: Any) -> ModelObject:
        sites = [self.site(s) for s in attrs(tree, "sites")]
        elements = [self.named_bindings(b) for b in attrs(tree, "bindings")]
        return self._made(self.m.BindingsFile(sites=sites, elements=elements), tree)

    def site(self, node: Any) -> ModelObject:
        categories = [self.categories(decl) for decl in attrs(node, "categories")]
        layers = [
            self.layer(layer)
            for layer_list in attrs(node, "layerlists")
            for layer in attrs(layer_list, "layers")
        ]
        return self._made(self.m.Site(categories=categories, layers=layers), node)

    def categories(self, node: Any) -> ModelObject:
        entries = []
        for entry in attrs(node, "entries"):
            value = self.expression(attr(entry, "value"))
            entries.append(
                self._made(self.m.CategoryDeclaration(name=attr(entry, "name"), value=value), entry)
            )
        return self._made(self.m.CategoriesDeclaration(entries=entries), node)

    def layer(self, node: Any) -> ModelObject:
        uris: dict[str, list[str]] = {"include": [], "exclude": []}
        for part in attrs(node, "attrs"):
            target = uris["include" if attr(part, "kind") == "include" else "exclude"]
            target.extend(_unquote(uri) for uri in attrs(part, "uris"))
        return self._made(self.m.Layer(name=_unquote(attr(node, "name")), **uris), node)

    # bindings
    def named_bindings(self, node: Any) -> ModelObject:
        elements = [self.element(e) for e in attrs(node, "elements")]
        return self._made(self.m.NamedBindings(name=attr(node, "name"), elements=elements), node)

    def element(self, node: Any) -> ModelObject:
        build: Callable[[Any], ModelObject] = getattr(self, f"element_{rule_of(node)}")
        return self._made(build(node), node)

    def element_Categorized(self, node: Any) -> ModelObject:  # noqa: N802 - dispatch on rule name
        terms = [self.conjunction(t) for t in attrs(node, "terms")]
        predicate = terms[0] if len(terms) == 1 else self._made(self.m.AnyOf(operands=terms), node)
        elements = [self.element(e) for e in attrs(node, "elements")]
        return self.m.CategorizedBindings(predicate=predicate, elements=elements)

    def conjunction(self, node: Any) -> ModelObject:
        tests = [self.category_test(t) for t in attrs(node, "tests")]
        if len(tests) == 1:
            return tests[0]
        return self._made(self.m.AllOf(operands=tests), node)

    def category_test(self, node: Any) -> ModelObject:
        category = str(attr(node, "category"))
        if attr(node, "value") is None:
            raise _valueless_test(category, self.span_of(node))
        value = self._made(self.scalar(str(attr(node, "value")), node), node)
        return self._made(self.m.CategoryTest(category=category, value=value), node)

    def _modifiers(self, node: Any, *names: str) -> dict[str, Any]:
        """The modifiers (``abstract: True`` ...) and ``options`` of a bind operation."""
        found: dict[str, Any] = {}
        for name in ("modifiers", *names):
            for modifier in attrs(node, name):
                found[modifier] = True
        found["options"] = [self.option(o) for o in attrs(attr(node, "options"), "options")]
        return found

    def option(self, node: Any) -> ModelObject:
        value = self.expression(attr(node, "value"))
        return self._made(self.m.Option(name=attr(node, "name"), value=value), node)

    def element_Bind(self, node: Any) -> ModelObject:  # noqa: N802
        m = self.m
        if attr(node, "alias"):
            source, target = self.key(attr(node, "source")), self.key(attr(node, "target"))
            kind = bm.RebindKind.getEEnumLiteral(attr(node, "alias"))
            return m.Rebinding(
                kind=kind, source=source, target=target, **self._modifiers(node, "targetModifiers")
            )
        if attr(node, "parameters"):
            return self._parameters(node)
        if attr(node, "map"):
            return m.ParameterMapBinding(
                source=self.type_ref(attr(node, "mapSource")),
                target=self.type_ref(attr(node, "mapTarget")),
                map=self.expression(attr(node, "mapping")),
                **self._modifiers(node),
            )
        if attr(node, "variables"):
            producer = self.producer(node)
            var_type = attr(node, "varType")
            typed = {"type": self.type_ref(var_type)} if var_type is not None else {}
            return m.VariablesBinding(producer=producer, **typed, **self._modifiers(node))
        optional = bool(attr(node, "optional"))
        key_node = attr(node, "key")
        key = self.key(key_node) if key_node is not None else None
        producer = self.producer(node)
        ident = attr(node, "multibind")
        fragment = {"multibindId": _unquote(ident)} if ident else {}
        return m.Binding(optional=optional, key=key, producer=producer, **fragment, **self._modifiers(node))

    def _parameters(self, node: Any) -> ModelObject:
        target_node = attr(node, "paramTarget")
        if attr(target_node, "type"):
            target = self.type_ref(attr(target_node, "type"))
        else:
            target = self._made(self.m.TypeRef(name="Class", title=attr(target_node, "cls")), target_node)
        optional = bool(attr(node, "optional"))
        producer = self.producer(node)
        return self.m.ParametersBinding(
            target=target, producer=producer, optional=optional, **self._modifiers(node)
        )

    def element_Multibind(self, node: Any) -> ModelObject:  # noqa: N802
        key = self.key(attr(node, "key"))
        ident = attr(node, "id")
        multibind_id = _unquote(ident) if ident else key.name
        return self.m.Multibinding(key=key, multibindId=multibind_id, **self._modifiers(node))

    def element_Rebind(self, node: Any) -> ModelObject:  # noqa: N802
        kind = bm.RebindKind.getEEnumLiteral("rebind")
        return self.m.Rebinding(kind=kind, source=self.key(attr(node, "source")), **self._modifiers(node))

    def element_Classes(self, node: Any) -> ModelObject:  # noqa: N802
        exclude = attr(node, "kind") == "exclude"
        return self.m.ClassesBinding(exclude=exclude, classes=attrs(node, "names"))

    # keys, types, producers
    def key(self, node: Any) -> ModelObject:
        name = _unquote(attr(node, "name")) if attr(node, "name") else ""
        type_node = attr(node, "type")
        typed = {"type": self.type_ref(type_node)} if type_node is not None else {}
        return self._made(self.m.Key(name=name, **typed), node)

    def type_ref(self, node: Any) -> ModelObject:
        if attr(node, "cls"):
            return self._made(self.m.TypeRef(name="Class", title=attr(node, "cls")), node)
        features: dict[str, Any] = {"name": attr(node, "name")}
        args = []
        titles = []
        for arg in attrs(node, "args"):
            if rule_of(arg) == "TypeTitle":
                titles.append(_title(attr(arg, "title")))
            else:
                args.append(self.type_ref(arg))
        if len(titles) == 1:
            features["title"] = titles[0]
        elif titles:  # a key of several values (``Host['web', 'example.com']``)
            features["titles"] = titles
        return self._made(self.m.TypeRef(**features, args=args), node)

    def producer(self, node: Any) -> ModelObject | None:
        """The producer of a ``bind ... to <producer>`` (None when there is no ``to``)."""
        custom = attr(node, "custom")
        if custom is not None:
            if attr(custom, "name"):
                obj = self.m.CustomProducer(name=_unquote(attr(custom, "name")))
            else:
                obj = self.m.CustomProducer(type=self.type_ref(attr(custom, "type")))
            return self._made(obj, custom)
        type_value = attr(node, "typeValue")
        if type_value is not None:
            return self._made(self.m.TypeProducer(type=self.type_ref(type_value)), type_value)
        value = attr(node, "value")
        if value is None:
            return None
        expression = self.expression(value)
        producer = self.m.ConstantProducer(value=expression)
        self.spans.copy(expression, producer)
        return producer

    # expressions
    def expression(self, node: Any) -> ModelObject:
        build: Callable[[Any], ModelObject] = getattr(self, f"expr_{rule_of(node)}")
        obj = build(node)
        if self.spans.get(obj) is None:
            self._made(obj, node)
        return obj

    def expr_Conditional(self, node: Any) -> ModelObject:  # noqa: N802
        unless = attr(node, "kind") == "unless"
        condition = self.expression(attr(node, "condition"))
        then = self.expression(attr(node, "then"))
        otherwise = attr(node, "otherwise")
        other = {"otherwise": self.expression(otherwise)} if otherwise is not None else {}
        return self.m.Conditional(unless=unless, condition=condition, then=then, **other)

    def expr_Operation(self, node: Any) -> ModelObject:  # noqa: N802
        operands = [self.expression(o) for o in attrs(node, "operands")]
        ops = attrs(node, "ops")
        if not ops:
            return operands[0]
        # Two levels, both left-associative: `+ -` bind tighter than `== !=`.
        result: ModelObject | None = None
        comparison = ""
        sum_ = operands[0]
        for op, right in zip(ops, operands[1:], strict=True):
            if op in ("+", "-"):
                sum_ = self._binary(op, sum_, right)
                continue
            result = sum_ if result is None else self._binary(comparison, result, sum_)
            comparison, sum_ = op, right
        return sum_ if result is None else self._binary(comparison, result, sum_)

    def _binary(self, op: str, left: ModelObject, right: ModelObject) -> ModelObject:
        obj = self.m.BinaryOp(op=op, left=left, right=right)
        first, last = self.spans.get(left), self.spans.get(right)
        if first is not None and last is not None:
            self.spans.set(obj, first.merge(last))
        return obj

    def expr_Not(self, node: Any) -> ModelObject:  # noqa: N802
        return self.m.NotOp(operand=self.expression(attr(node, "operand")))

    def expr_Lambda(self, node: Any) -> ModelObject:  # noqa: N802
        body = self.expression(attr(node, "body"))
        parameters = [_variable_name(p) for p in attrs(node, "params")]
        return self.m.Lambda(body=body, parameters=parameters)

    def expr_Atom(self, node: Any) -> ModelObject:  # noqa: N802
        m = self.m
        token = str(attr(node, "token"))
        first = token[0]
        if attr(node, "call"):
            if first in "\"'$-0123456789":
                span = self.span_of(node)
                raise CfSyntaxError(f"{token} cannot be called (only a function name can)", span, "syntax")
            return m.Call(function=token, args=[self.expression(a) for a in attrs(node, "args")])
        if first == "$":
            return m.VariableRef(name=_variable_name(token))
        if token in ("true", "false", "undef"):
            return m.UndefLiteral() if token == "undef" else m.BooleanLiteral(value=token == "true")
        if first in "\"'-0123456789":
            return self.scalar(token, node)
        return m.StringLiteral(value=token, bare=True)

    def scalar(self, token: str, node: Any) -> ModelObject:
        """A string, number or boolean token as a literal."""
        first = token[0]
        if first == "'":
            return self.m.StringLiteral(value=_unquote(token))
        if first == '"':
            return self._interpolated(token[1:-1], node)
        if token in ("true", "false"):
            return self.m.BooleanLiteral(value=token == "true")
        if _INTEGER.fullmatch(token):
            if len(token.lstrip("-")) > MAX_INTEGER_DIGITS:
                message = f"an integer of more than {MAX_INTEGER_DIGITS:,} digits"
                raise CfSyntaxError(message, self.span_of(node), "syntax")
            return self.m.IntegerLiteral(value=int(token))
        return self.m.FloatLiteral(value=float(token))

    def _interpolated(self, body: str, node: Any) -> ModelObject:
        m = self.m
        if "$" not in body:
            return m.StringLiteral(value=_unescape(body))
        parts: list[ModelObject] = []
        pos = 0
        for match in _INTERPOLATION.finditer(body):
            if _escaped(body, match.start()):
                continue
            if match.start() > pos:
                parts.append(m.StringLiteral(value=_unescape(body[pos : match.start()])))
            parts.append(m.VariableRef(name=match.group(2) or match.group(4)))
            pos = match.end()
        if not parts:
            return m.StringLiteral(value=_unescape(body))
        if pos < len(body):
            parts.append(m.StringLiteral(value=_unescape(body[pos:])))
        for part in parts:
            self._made(part, node)
        return m.InterpolatedString(parts=parts)

    def expr_ArrayLit(self, node: Any) -> ModelObject:  # noqa: N802
        return self.m.ArrayLiteral(items=[self.expression(i) for i in attrs(node, "items")])

    def expr_HashLit(self, node: Any) -> ModelObject:  # noqa: N802
        entries = []
        for entry in attrs(node, "entries"):
            key, value = self.expression(attr(entry, "key")), self.expression(attr(entry, "value"))
            entries.append(self._made(self.m.HashEntry(key=key, value=value), entry))
        return self.m.HashLiteral(entries=entries)


def _variable_name(text: str) -> str:
    """``$::fqdn`` and ``$fqdn`` both name the variable (or fact) ``fqdn``."""
    return text.lstrip("$").removeprefix("::")


def _title(value: Any) -> str:
    text = str(value)
    return _unquote(text) if text[:1] in "'\"" else text


def _escaped(body: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and body[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body)


def _unquote(raw: str) -> str:
    """The text of a quoted string token (no interpolation: used for names and URIs)."""
    body = raw[1:-1]
    if raw.startswith("'"):
        return body.replace("\\\\", "\\").replace("\\'", "'")
    return _unescape(body)
