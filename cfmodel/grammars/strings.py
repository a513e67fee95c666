"""String literals: escapes, ``{{ x.y }}`` interpolation and f-string fields.

Input: the raw token text of a string literal, as the grammar matched it (quotes and
prefix included) and its start offset in the file. Output: the node for it
(`Literal`, `Interpolation` or `FString`). Offsets of interpolated names are taken
from the raw text, so their spans point at the source even when escapes precede them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from cfmodel.errors import CfSyntaxError, Span
from cfmodel.grammars import nodes

SpanOf = Callable[[int, int], Span]

_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\n": "",  # a backslash before a newline continues the line
}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|.|\n)")
_INTERPOLATION = re.compile(r"{{\s*([A-Za-z_][\w-]*(?:::[A-Za-z_][\w-]*)*(?:\.[A-Za-z_][\w-]*)*)\s*}}")
_NAME_PATH = re.compile(r"[A-Za-z_][\w-]*(?:::[A-Za-z_][\w-]*)*(?:\.[A-Za-z_][\w-]*)*$")


def decode_escapes(text: str) -> str:
    """Backslash escapes as in the reference compiler; unknown ones are kept as written."""
    if "\\" not in text:
        return text
    return _ESCAPE.sub(_replace_escape, text)


def _replace_escape(match: re.Match[str]) -> str:
    body = match.group(1)
    if body in _ESCAPES:
        return _ESCAPES[body]
    if len(body) > 1 and body[0] in "uUx":
        return chr(int(body[1:], 16))
    return match.group(0)


def split_literal(token: str) -> tuple[str, str, int]:
    """Return (prefix, body, offset of body in token) of a string token."""
    prefix = ""
    if token[0] in "fr":
        prefix, token = token[0], token[1:]
    quote = token[:3] if token[:3] in ('"""', "'''") else token[0]
    return prefix, token[len(quote) : len(token) - len(quote)], len(prefix) + len(quote)


def build_string(token: str, start: int, span_of: SpanOf) -> nodes.Expression:
    """The node for a string token that starts at file offset *start*."""
    span = span_of(start, start + len(token))
    prefix, body, body_offset = split_literal(token)
    if prefix == "r":
        return nodes.Literal(body, span)
    if prefix == "f":
        if body_offset == 4:  # f""" or f'''
            raise CfSyntaxError(
                'an f-string cannot be triple-quoted (as in inmanta-core); use f"..." or a """...""" '
                "string with {{name}}",
                span,
                "fstring",
            )
        return _build_fstring(body, start + body_offset, span, span_of)
    if "{{" not in body:
        return nodes.Literal(decode_escapes(body), span)
    return _build_interpolation(body, start + body_offset, span, span_of)


def _build_interpolation(body: str, offset: int, span: Span, span_of: SpanOf) -> nodes.Expression:
    parts: list[str | nodes.Expression] = []
    last = 0
    for match in _INTERPOLATION.finditer(body):
        if match.start() > last:
            parts.append(decode_escapes(body[last : match.start()]))
        parts.append(name_path(match.group(1), offset + match.start(1), span_of))
        last = match.end()
    if not any(not isinstance(p, str) for p in parts):
        return nodes.Literal(decode_escapes(body), span)
    if last < len(body):
        parts.append(decode_escapes(body[last:]))
    return nodes.Interpolation(parts, span)


def name_path(text: str, start: int, span_of: SpanOf) -> nodes.Expression:
    """``a::b.c.d`` at file offset *start* as Reference + AttributeAccess nodes."""
    first, *members = text.split(".")
    end = start + len(first)
    expr: nodes.Expression = nodes.Reference(nodes.Name(first, span_of(start, end)), span_of(start, end))
    for member in members:
        name_start = end + 1
        end = name_start + len(member)
        expr = nodes.AttributeAccess(expr, nodes.Name(member, span_of(name_start, end)), span_of(start, end))
    return expr


def _build_fstring(body: str, offset: int, span: Span, span_of: SpanOf) -> nodes.Expression:
    decoded = decode_escapes(body)
    parts: list[str | nodes.FormatField] = []
    try:
        fields = list(string.Formatter().parse(decoded))
    except ValueError as error:
        raise CfSyntaxError(f"invalid f-string: {error}", span, "fstring") from None
    for literal_text, field_name, format_spec, conversion in fields:
        if literal_text:
            parts.append(literal_text)
        if field_name is None:
            continue
        field_text = field_name.strip()
        if not _NAME_PATH.match(field_text):
            raise CfSyntaxError(
                f"invalid f-string field {{{field_name}}}: only names and attribute paths "
                "(like {x} or {host.name}) can be used",
                span,
                "fstring",
            )
        field_offset = body.find(field_text)
        # a field whose text changed by escape decoding falls back to the string's start
        where = offset + max(field_offset, 0)
        value = name_path(field_text, where, span_of)
        parts.append(nodes.FormatField(value, conversion, format_spec or ""))
    return nodes.FString(parts, span)
