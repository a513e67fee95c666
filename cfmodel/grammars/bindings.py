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
dynamic attributes are read only through ``_get``/``_get_list`` here. Double-quoted strings
are split into ``InterpolatedString`` parts (``$::fact``, ``${name}``); single-quoted ones
are literal. The model is read-only once parsed.

Errors: ``CfSyntaxError`` (code ``syntax``) with the position of the offending token and the
message ``unexpected <token> (expected <alternatives>)``. Semantic checks happen later, in
``cfmodel.transforms.bindings.compose``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textx import TextXSyntaxError, metamodel_from_file

from cfmodel.collector import gc_paused
from cfmodel.errors import CfLoadError, CfSyntaxError, Span
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

    @property
    def root(self) -> ModelObject:
        return bm.to_ecore(self.model, self.spans)

    @property
    def named_bindings(self) -> list[ModelObject]:
        return list(self.model.elements)

    @property
    def sites(self) -> list[ModelObject]:
        return list(self.model.sites)


@functools.cache
def _metamodel() -> Any:
    """The textX metamodel of ``bindings.tx`` (built once; read-only afterwards)."""
    return metamodel_from_file(str(GRAMMAR), autokwd=True, skipws=True)


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
        except TextXSyntaxError as err:
            raise _syntax_error(err, text, file) from err
        except RecursionError:
            span = Span(file, 1, 1, 1, 1)
            raise CfSyntaxError("the file nests too deeply to parse", span, "syntax") from None
        builder = _Builder(text, file, bm.plain)
        root = builder.build_file(tree)
        return ParsedBindings(root, builder.spans, file)


# Comments are blanked (same length, newlines kept) so that every position stays exact and
# the grammar needs no comment rule; strings are skipped over whole.
_COMMENT_OR_STRING = re.compile(r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')|(\#[^\n]*|/\*[\s\S]*?\*/)""")


def blank_comments(text: str) -> str:
    """Replace ``# ...`` and ``/* ... */`` comments by spaces (newlines stay)."""
    if "#" not in text and "/*" not in text:
        return text
    return _COMMENT_OR_STRING.sub(_blank, text)


def _blank(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return match.group(0)
    return re.sub(r"[^\n]", " ", match.group(0))


def parse_file(path: str | Path, display: str | None = None) -> ParsedBindings:
    """Parse a bindings file; ``display`` (default: the path as given) names it in spans."""
    name = display if display is not None else str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        span = Span(name, 1, 1, 1, 1)
        raise CfLoadError(f"cannot read bindings file: {err.strerror}", span, "load") from err
    return parse_str(text, name)


# --- syntax errors ------------------------------------------------------------------------------


def _syntax_error(err: TextXSyntaxError, text: str, file: str) -> CfSyntaxError:
    line, col = int(err.line or 1), int(err.col or 1)
    found = _token_at(text, line, col)
    span = Span(file, line, col, line, col + max(len(found), 1))
    what = f"unexpected {found!r}" if found else "unexpected end of file"
    return CfSyntaxError(f"{what} (expected {_expected(err)})", span, "syntax")


def _token_at(text: str, line: int, col: int) -> str:
    lines = text.splitlines()
    if line > len(lines):
        return ""
    rest = lines[line - 1][col - 1 :]
    match = re.match(r"\"[^\"]*\"?|'[^']*'?|[$:\w]+|\S", rest)
    return match.group(0) if match else ""


def _expected(err: TextXSyntaxError) -> str:
    names: list[str] = []
    for rule in err.expected_rules or ():
        names.extend(n for n in _rule_text(rule) if n not in names)
    if "a value" in names and "'|'" in names:
        names = [n for n in names if n not in _EXPRESSION_STARTS] + ["an expression"]
    if not names:
        return "nothing more"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " or " + names[-1]


def _rule_text(rule: Any) -> tuple[str, ...]:
    rule_name = str(getattr(rule, "rule_name", "") or "")
    if rule_name in _RULE_NAMES:
        return _RULE_NAMES[rule_name]
    text = str(getattr(rule, "to_match", "") or rule_name).removesuffix(r"\b")
    return (f"'{text}'",)


# --- textX boundary ---------------------------------------------------------------------------


def _get(node: Any, name: str) -> Any:
    """A textX attribute (textX objects are dynamic; this is the typed boundary)."""
    return getattr(node, name, None)


def _get_list(node: Any, name: str) -> list[Any]:
    value = getattr(node, name, None)
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _kind(node: Any) -> str:
    return type(node).__name__


# --- tree to model ---------------------------------------------------------------------------------


class _Builder:
    """Turns a textX tree into metamodel objects, recording each element's span.

    ``model`` holds the classes to build: ``bm.plain`` (the parser's plain objects) or the
    PyEcore module ``bm`` (the default, for subclasses such as the environments parser, whose
    model contains bindings expressions). Every object gets all its features as constructor
    arguments, the same ones in both cases (a feature given is a feature set).
    """

    def __init__(self, text: str, file: str, model: Any = bm) -> None:
        self.text = text
        self.file = file
        self.spans = SpanTable()
        self.lines = LineIndex(text, file)
        self.m = model

    # positions
    def span_of(self, node: Any) -> Span:
        start = int(_get(node, "_tx_position") or 0)
        end = int(_get(node, "_tx_position_end") or start)
        return self.lines.span(start, end)

    def _made(self, obj: ModelObject, node: Any) -> ModelObject:
        self.spans.set(obj, self.span_of(node))
        return obj

    # file, site
    def build_file(self, tree: Any) -> ModelObject:
        sites = [self.site(s) for s in _get_list(tree, "sites")]
        elements = [self.named_bindings(b) for b in _get_list(tree, "bindings")]
        return self._made(self.m.BindingsFile(sites=sites, elements=elements), tree)

    def site(self, node: Any) -> ModelObject:
        categories = [self.categories(decl) for decl in _get_list(node, "categories")]
        layers = [
            self.layer(layer)
            for layer_list in _get_list(node, "layerlists")
            for layer in _get_list(layer_list, "layers")
        ]
        return self._made(self.m.Site(categories=categories, layers=layers), node)

    def categories(self, node: Any) -> ModelObject:
        entries = []
        for entry in _get_list(node, "entries"):
            value = self.expression(_get(entry, "value"))
            entries.append(
                self._made(self.m.CategoryDeclaration(name=_get(entry, "name"), value=value), entry)
            )
        return self._made(self.m.CategoriesDeclaration(entries=entries), node)

    def layer(self, node: Any) -> ModelObject:
        uris: dict[str, list[str]] = {"include": [], "exclude": []}
        for attr in _get_list(node, "attrs"):
            target = uris["include" if _get(attr, "kind") == "include" else "exclude"]
            target.extend(_unquote(uri) for uri in _get_list(attr, "uris"))
        return self._made(self.m.Layer(name=_unquote(_get(node, "name")), **uris), node)

    # bindings
    def named_bindings(self, node: Any) -> ModelObject:
        elements = [self.element(e) for e in _get_list(node, "elements")]
        return self._made(self.m.NamedBindings(name=_get(node, "name"), elements=elements), node)

    def element(self, node: Any) -> ModelObject:
        build: Callable[[Any], ModelObject] = getattr(self, f"element_{_kind(node)}")
        return self._made(build(node), node)

    def element_Categorized(self, node: Any) -> ModelObject:  # noqa: N802 - dispatch on rule name
        terms = [self.conjunction(t) for t in _get_list(node, "terms")]
        predicate = terms[0] if len(terms) == 1 else self._made(self.m.AnyOf(operands=terms), node)
        elements = [self.element(e) for e in _get_list(node, "elements")]
        return self.m.CategorizedBindings(predicate=predicate, elements=elements)

    def conjunction(self, node: Any) -> ModelObject:
        tests = [self.category_test(t) for t in _get_list(node, "tests")]
        if len(tests) == 1:
            return tests[0]
        return self._made(self.m.AllOf(operands=tests), node)

    def category_test(self, node: Any) -> ModelObject:
        value = self._made(self.scalar(str(_get(node, "value")), node), node)
        return self._made(self.m.CategoryTest(category=_get(node, "category"), value=value), node)

    def _modifiers(self, node: Any, *names: str) -> dict[str, Any]:
        """The modifiers (``abstract: True`` ...) and ``options`` of a bind operation."""
        found: dict[str, Any] = {}
        for name in ("modifiers", *names):
            for modifier in _get_list(node, name):
                found[modifier] = True
        found["options"] = [self.option(o) for o in _get_list(_get(node, "options"), "options")]
        return found

    def option(self, node: Any) -> ModelObject:
        value = self.expression(_get(node, "value"))
        return self._made(self.m.Option(name=_get(node, "name"), value=value), node)

    def element_Bind(self, node: Any) -> ModelObject:  # noqa: N802
        m = self.m
        if _get(node, "alias"):
            source, target = self.key(_get(node, "source")), self.key(_get(node, "target"))
            kind = bm.RebindKind.getEEnumLiteral(_get(node, "alias"))
            return m.Rebinding(
                kind=kind, source=source, target=target, **self._modifiers(node, "targetModifiers")
            )
        if _get(node, "parameters"):
            return self._parameters(node)
        if _get(node, "map"):
            return m.ParameterMapBinding(
                source=self.type_ref(_get(node, "mapSource")),
                target=self.type_ref(_get(node, "mapTarget")),
                map=self.expression(_get(node, "mapping")),
                **self._modifiers(node),
            )
        if _get(node, "variables"):
            producer = self.producer(node)
            var_type = _get(node, "varType")
            typed = {"type": self.type_ref(var_type)} if var_type is not None else {}
            return m.VariablesBinding(producer=producer, **typed, **self._modifiers(node))
        optional = bool(_get(node, "optional"))
        key_node = _get(node, "key")
        key = self.key(key_node) if key_node is not None else None
        producer = self.producer(node)
        ident = _get(node, "multibind")
        fragment = {"multibindId": _unquote(ident)} if ident else {}
        return m.Binding(optional=optional, key=key, producer=producer, **fragment, **self._modifiers(node))

    def _parameters(self, node: Any) -> ModelObject:
        target_node = _get(node, "paramTarget")
        if _get(target_node, "type"):
            target = self.type_ref(_get(target_node, "type"))
        else:
            target = self._made(self.m.TypeRef(name="Class", title=_get(target_node, "cls")), target_node)
        optional = bool(_get(node, "optional"))
        producer = self.producer(node)
        return self.m.ParametersBinding(
            target=target, producer=producer, optional=optional, **self._modifiers(node)
        )

    def element_Multibind(self, node: Any) -> ModelObject:  # noqa: N802
        key = self.key(_get(node, "key"))
        ident = _get(node, "id")
        multibind_id = _unquote(ident) if ident else key.name
        return self.m.Multibinding(key=key, multibindId=multibind_id, **self._modifiers(node))

    def element_Rebind(self, node: Any) -> ModelObject:  # noqa: N802
        kind = bm.RebindKind.getEEnumLiteral("rebind")
        return self.m.Rebinding(kind=kind, source=self.key(_get(node, "source")), **self._modifiers(node))

    def element_Classes(self, node: Any) -> ModelObject:  # noqa: N802
        exclude = _get(node, "kind") == "exclude"
        return self.m.ClassesBinding(exclude=exclude, classes=_get_list(node, "names"))

    # keys, types, producers
    def key(self, node: Any) -> ModelObject:
        name = _unquote(_get(node, "name")) if _get(node, "name") else ""
        type_node = _get(node, "type")
        typed = {"type": self.type_ref(type_node)} if type_node is not None else {}
        return self._made(self.m.Key(name=name, **typed), node)

    def type_ref(self, node: Any) -> ModelObject:
        if _get(node, "cls"):
            return self._made(self.m.TypeRef(name="Class", title=_get(node, "cls")), node)
        features: dict[str, Any] = {"name": _get(node, "name")}
        args = []
        titles = []
        for arg in _get_list(node, "args"):
            if _kind(arg) == "TypeTitle":
                titles.append(_title(_get(arg, "title")))
            else:
                args.append(self.type_ref(arg))
        if len(titles) == 1:
            features["title"] = titles[0]
        elif titles:  # a key of several values (``Host['web', 'example.com']``)
            features["titles"] = titles
        return self._made(self.m.TypeRef(**features, args=args), node)

    def producer(self, node: Any) -> ModelObject | None:
        """The producer of a ``bind ... to <producer>`` (None when there is no ``to``)."""
        custom = _get(node, "custom")
        if custom is not None:
            if _get(custom, "name"):
                obj = self.m.CustomProducer(name=_unquote(_get(custom, "name")))
            else:
                obj = self.m.CustomProducer(type=self.type_ref(_get(custom, "type")))
            return self._made(obj, custom)
        type_value = _get(node, "typeValue")
        if type_value is not None:
            return self._made(self.m.TypeProducer(type=self.type_ref(type_value)), type_value)
        value = _get(node, "value")
        if value is None:
            return None
        expression = self.expression(value)
        producer = self.m.ConstantProducer(value=expression)
        self.spans.copy(expression, producer)
        return producer

    # expressions
    def expression(self, node: Any) -> ModelObject:
        build: Callable[[Any], ModelObject] = getattr(self, f"expr_{_kind(node)}")
        obj = build(node)
        if self.spans.get(obj) is None:
            self._made(obj, node)
        return obj

    def expr_Conditional(self, node: Any) -> ModelObject:  # noqa: N802
        unless = _get(node, "kind") == "unless"
        condition = self.expression(_get(node, "condition"))
        then = self.expression(_get(node, "then"))
        otherwise = _get(node, "otherwise")
        other = {"otherwise": self.expression(otherwise)} if otherwise is not None else {}
        return self.m.Conditional(unless=unless, condition=condition, then=then, **other)

    def expr_Operation(self, node: Any) -> ModelObject:  # noqa: N802
        operands = [self.expression(o) for o in _get_list(node, "operands")]
        ops = _get_list(node, "ops")
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
        return self.m.NotOp(operand=self.expression(_get(node, "operand")))

    def expr_Lambda(self, node: Any) -> ModelObject:  # noqa: N802
        body = self.expression(_get(node, "body"))
        parameters = [_variable_name(p) for p in _get_list(node, "params")]
        return self.m.Lambda(body=body, parameters=parameters)

    def expr_Atom(self, node: Any) -> ModelObject:  # noqa: N802
        m = self.m
        token = str(_get(node, "token"))
        first = token[0]
        if _get(node, "call"):
            if first in "\"'$-0123456789":
                span = self.span_of(node)
                raise CfSyntaxError(f"{token} cannot be called (only a function name can)", span, "syntax")
            return m.Call(function=token, args=[self.expression(a) for a in _get_list(node, "args")])
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
        return self.m.ArrayLiteral(items=[self.expression(i) for i in _get_list(node, "items")])

    def expr_HashLit(self, node: Any) -> ModelObject:  # noqa: N802
        entries = []
        for entry in _get_list(node, "entries"):
            key, value = self.expression(_get(entry, "key")), self.expression(_get(entry, "value"))
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
