"""Expressions of the syntax tree back to `.cf` source text, canonically.

Input: a `cfmodel.grammars.nodes` expression. Output: text that parses back to the same
tree (spans aside): operators spaced, parentheses only where precedence needs them
(the binding powers of `cfmodel.grammars.cf`), strings double-quoted with escapes.
Used for the constraint and default annotations of the derived metamodel and by
``cfmodel ecore import``, so the same expression always gives the same text.
"""

from __future__ import annotations

from cfmodel.grammars import nodes
from cfmodel.grammars.common import BINDING_POWER, NOT_BINDING_POWER

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def to_source(e: nodes.Expression) -> str:
    """The canonical `.cf` text of *e*."""
    if isinstance(e, nodes.Literal):
        return literal(e.value)
    if isinstance(e, nodes.Reference):
        return e.name.text
    if isinstance(e, nodes.BinaryOperation):
        # a chain a + b + c (left-deep) is walked down, not recursed into: its length is
        # not limited by Python's recursion limit
        chain = [e]
        left = e.left
        while (
            isinstance(left, nodes.BinaryOperation)
            and BINDING_POWER[left.operator] >= BINDING_POWER[chain[-1].operator]
        ):
            chain.append(left)
            left = left.left
        text = _operand(left, BINDING_POWER[chain[-1].operator], right_side=False)
        for current in reversed(chain):
            right = _operand(current.right, BINDING_POWER[current.operator], right_side=True)
            text = f"{text} {current.operator} {right}"
        return text
    if isinstance(e, nodes.Not):
        count = 1
        operand = e.operand
        while isinstance(operand, nodes.Not):  # not not … x, without recursion
            count += 1
            operand = operand.operand
        inner = to_source(operand)
        if (
            isinstance(operand, nodes.BinaryOperation)
            and BINDING_POWER[operand.operator] <= NOT_BINDING_POWER
        ) or isinstance(operand, nodes.Conditional):
            inner = f"({inner})"
        return "not " * count + inner
    if isinstance(e, nodes.Conditional):
        condition = _wrap_conditional(e.condition)
        return f"{condition} ? {_wrap_conditional(e.then)} : {_wrap_conditional(e.otherwise)}"
    if isinstance(e, nodes.AttributeAccess):
        names = [e.name.text]
        target = e.target
        while isinstance(target, nodes.AttributeAccess):  # a.b.c.…, without recursion
            names.append(target.name.text)
            target = target.target
        return _postfix_target(target) + "".join(f".{name}" for name in reversed(names))
    if isinstance(e, nodes.MapLookup):
        return f"{_postfix_target(e.target)}[{to_source(e.key)}]"
    if isinstance(e, nodes.IsDefined):
        return f"{_postfix_target(e.target)} is defined"
    if isinstance(e, nodes.IndexQuery):
        return f"{e.entity.text}[{_keywords(e.arguments)}]"
    if isinstance(e, nodes.SelectorQuery):
        return f"{_postfix_target(e.target)}.{e.relation.text}[{_keywords(e.arguments)}]"
    if isinstance(e, nodes.Constructor):
        parts = [_keywords(e.arguments)] if e.arguments else []
        parts += [f"**{to_source(w)}" for w in e.wrapped_kwargs]
        return f"{e.entity.text}({', '.join(parts)})"
    if isinstance(e, nodes.FunctionCall):
        parts = [to_source(a) for a in e.positional]
        parts += [f"{a.name.text}={to_source(a.value)}" for a in e.arguments]
        parts += [f"**{to_source(w)}" for w in e.wrapped_kwargs]
        return f"{e.name.text}({', '.join(parts)})"
    if isinstance(e, nodes.ListLiteral):
        return "[" + ", ".join(to_source(i) for i in e.items) + "]"
    if isinstance(e, nodes.DictLiteral):
        return "{" + ", ".join(f"{literal(k)}: {to_source(v)}" for k, v in e.pairs) + "}"
    if isinstance(e, nodes.ListComprehension):
        loops = " ".join(f"for {loop.variable.text} in {to_source(loop.iterable)}" for loop in e.loops)
        guards = "".join(f" if {to_source(g)}" for g in e.guards)
        return f"[{to_source(e.value)} {loops}{guards}]"
    if isinstance(e, nodes.Interpolation):
        body = "".join(
            _escape(part) if isinstance(part, str) else "{{" + to_source(part) + "}}" for part in e.parts
        )
        return f'"{body}"'
    if isinstance(e, nodes.FString):
        return _fstring(e)
    if isinstance(e, nodes.Regex):
        return f"/{e.pattern}/"
    raise TypeError(f"not an expression: {e!r}")  # pragma: no cover


def literal(value: object) -> str:
    """A Python scalar (or list/dict of them) as `.cf` literal text."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        if "{{" in value and '"' not in value and "\n" not in value and not value.endswith("\\"):
            return f'r"{value}"'  # no interpolation in a raw string
        return f'"{_escape(value)}"'
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(str(k))}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no .cf literal for {value!r}")


def _escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def _operand(e: nodes.Expression, power: int, right_side: bool) -> str:
    text = to_source(e)
    if isinstance(e, nodes.Conditional):
        return f"({text})"
    if isinstance(e, nodes.BinaryOperation):
        inner = BINDING_POWER[e.operator]
        if inner < power or (right_side and inner == power):
            return f"({text})"
    if isinstance(e, nodes.Not) and (power > NOT_BINDING_POWER or not right_side):
        # `not a == b` is `(not a) == b` only on the left; keep it explicit either way
        return f"({text})"
    return text


def _wrap_conditional(e: nodes.Expression) -> str:
    text = to_source(e)
    return f"({text})" if isinstance(e, nodes.Conditional) else text


def _postfix_target(e: nodes.Expression) -> str:
    text = to_source(e)
    if isinstance(e, nodes.BinaryOperation | nodes.Not | nodes.Conditional | nodes.IsDefined):
        return f"({text})"
    if isinstance(e, nodes.Literal) and isinstance(e.value, int | float) and not isinstance(e.value, bool):
        return f"({text})"
    return text


def _keywords(arguments: list[nodes.KeywordArgument]) -> str:
    return ", ".join(f"{a.name.text}={to_source(a.value)}" for a in arguments)


def _fstring(e: nodes.FString) -> str:
    fields = [to_source(part.value) for part in e.parts if not isinstance(part, str)]
    quote = "'" if any('"' in f for f in fields) else '"'
    body = []
    for part in e.parts:
        if isinstance(part, str):
            text = _escape(part).replace("{", "{{").replace("}", "}}")
            body.append(text.replace("'", "\\'") if quote == "'" else text)
        else:
            conversion = f"!{part.conversion}" if part.conversion else ""
            spec = f":{part.format_spec}" if part.format_spec else ""
            body.append("{" + to_source(part.value) + conversion + spec + "}")
    return f"f{quote}{''.join(body)}{quote}"
