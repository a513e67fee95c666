"""Syntax trees as models: a ``.cf`` file's tree ↔ an instance of ``program.ecore``.

Input (`to_model`): a `nodes.Module` (from the parser). Output: a PyEcore ``Module``
object of `cfmodel.metamodel.program` holding every node, name, value and source range.
Input (`from_model`): such an object (read back from XMI, or made by `to_model`).
Output: the `nodes.Module` again — `cfmodel.dump.dump_module` prints both the same.

Both directions follow `program.FIELDS` field by field and walk with explicit stacks, so a
tree as deep as the parser allows (a long chain of ``+``) converts whatever Python's
recursion limit. Errors (`from_model` on a model that is no program tree: a wrong class,
a literal that is no value of its type) are `CfSerializationError` (``bad-xmi``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError, Span
from cfmodel.grammars import nodes
from cfmodel.metamodel import program
from cfmodel.metamodel.runtime.objects import ObjectBuilder
from cfmodel.serializers import xmi
from cfmodel.serializers.base import register_packages
from cfmodel.serializers.xmlsafe import XmlLimits

_LITERAL_TYPES = {str: "string", bool: "bool", int: "int", float: "float", type(None): "null"}


def to_model(module: nodes.Module) -> Any:
    """The ``Module`` object of *module*'s tree.

    Objects are made children first, each complete before it joins its container:
    PyEcore walks up to the resource on every change of an object in a container (a
    recursion as deep as the tree), and an object in no container has nothing to walk.
    """
    order: list[Any] = []  # pre-order: every node before its children
    stack: list[Any] = [module]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(_child_nodes(node))
    built: dict[int, Any] = {}
    builder = ObjectBuilder()
    for node in reversed(order):
        built[id(node)] = _object(node, built, builder)
    builder.finish()
    return built[id(module)]


def _child_nodes(node: Any) -> list[Any]:
    found: list[Any] = []
    for field, _, kind in program.FIELDS[type(node).__name__]:
        value = getattr(node, field)
        how = kind.partition(":")[0]
        if how in ("one", "one?") and value is not None:
            found.append(value)
        elif how in ("many", "many?"):
            found.extend(value or [])
        elif how == "parts":
            found.extend(part for part in value if not isinstance(part, str))
        elif how == "pairs":
            found.extend(item for _, item in value)
    return found


def _object(node: Any, built: dict[int, Any], b: ObjectBuilder) -> Any:
    """The object of one node, its children (already made) attached (made by the runtime's
    `ObjectBuilder`, its features in the order of `program.FIELDS`)."""
    values: dict[str, Any] = {}
    span = getattr(node, "span", None)
    if isinstance(span, Span):
        values.update(line=span.line, column=span.col, endLine=span.end_line, endColumn=span.end_col)
    for field, feature, kind in program.FIELDS[type(node).__name__]:
        value = getattr(node, field)
        how = kind.partition(":")[0]
        if how == "literal":
            values["value"] = _literal_text(value)
            values["valueType"] = _LITERAL_TYPES[type(value)]
        elif how in ("text", "text?", "flag", "number", "number?"):
            if value is not None:
                values[feature] = value
        elif how in ("one", "one?"):
            if value is not None:
                values[feature] = built[id(value)]
        elif how in ("many", "many?"):
            if how == "many?":
                values[f"{feature}Given"] = value is not None
            values[feature] = [built[id(item)] for item in value or []]
        elif how == "parts":
            values[feature] = [_part(part, built, b) for part in value]
        elif how == "pairs":
            values[feature] = [
                b.make(program.DictPair, key=key, value=built[id(item)]) for key, item in value
            ]
        elif how == "pragmas":
            values[feature] = [
                b.make(program.Pragma, line=line, text=text) for line, text in sorted(value.items())
            ]
    return b.make(program.eclass(type(node).__name__), **values)


def _part(part: Any, built: dict[int, Any], b: ObjectBuilder) -> Any:
    """A text or expression part of an interpolation or f-string (format fields are nodes)."""
    if isinstance(part, str):
        return b.make(program.TextPart, text=part)
    if isinstance(part, nodes.FormatField):
        return built[id(part)]
    return b.make(program.ExpressionPart, value=built[id(part)])


def _literal_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


# ---------------------------------------------------------------------- back


def from_model(root: Any) -> nodes.Module:
    """The syntax tree a ``Module`` object holds.

    Raises:
        CfSerializationError: the object is not a program tree (``bad-xmi``).
    """
    if _kind(root) != "Module":
        raise _bad(f"the root is a {_kind(root)}, not a Module")
    file = root.file or "<model>"
    order: list[Any] = []  # pre-order: every object after its container
    stack = [root]
    while stack:
        obj = stack.pop()
        order.append(obj)
        stack.extend(obj.eContents)
    built: dict[int, Any] = {}
    for obj in reversed(order):  # children first
        kind = _kind(obj)
        if kind == "TextPart":
            built[id(obj)] = obj.text or ""
        elif kind == "ExpressionPart":
            built[id(obj)] = built[id(obj.value)] if obj.value is not None else _missing(kind, "value")
        elif kind == "Pragma":
            built[id(obj)] = (obj.line or 0, obj.text or "")
        elif kind == "DictPair":
            built[id(obj)] = (
                obj.key or "",
                built[id(obj.value)] if obj.value is not None else _missing(kind, "value"),
            )
        elif kind in program.FIELDS:
            built[id(obj)] = _node(obj, kind, file, built)
        else:
            raise _bad(f"{kind} is not a kind of node of a .cf syntax tree")
    module = built[id(root)]
    assert isinstance(module, nodes.Module)
    return module


def _node(obj: Any, kind: str, file: str, built: dict[int, Any]) -> Any:
    values: dict[str, Any] = {}
    for field, feature, how_type in program.FIELDS[kind]:
        how = how_type.partition(":")[0]
        value = getattr(obj, feature)
        if how == "literal":
            values[field] = _literal_value(obj.value, obj.valueType)
        elif how in ("text", "text?", "number", "number?"):
            if value is None and not how.endswith("?"):
                _missing(kind, feature)
            values[field] = value
        elif how == "flag":
            values[field] = bool(value)
        elif how in ("one", "one?"):
            if value is None and how == "one":
                _missing(kind, feature)
            values[field] = built[id(value)] if value is not None else None
        elif how in ("many", "many?"):
            items = [built[id(item)] for item in value]
            given = how == "many" or bool(getattr(obj, f"{feature}Given")) or bool(items)
            values[field] = items if given else None
        elif how == "pragmas":
            values[field] = dict(built[id(item)] for item in value)
        else:  # parts, pairs
            values[field] = [built[id(item)] for item in value]
    cls = getattr(nodes, kind)
    if any(f.name == "span" for f in dataclasses.fields(cls)):
        values["span"] = Span(file, obj.line or 0, obj.column or 0, obj.endLine or 0, obj.endColumn or 0)
    return cls(**values)


def _literal_value(text: Any, kind: Any) -> Any:
    text = text if isinstance(text, str) else ""
    try:
        if kind == "string":
            return text
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "bool" and text in ("true", "false"):
            return text == "true"
        if kind == "null":
            return None
    except ValueError:
        pass
    raise _bad(f"literal {text!r} is not a value of type {kind!r}")


def _kind(obj: Any) -> str:
    eclass = getattr(obj, "eClass", None)
    return str(getattr(eclass, "name", type(obj).__name__))


def _missing(kind: str, feature: str) -> Any:
    raise _bad(f"a {kind} without its {feature}")


def _bad(message: str) -> CfSerializationError:
    return CfSerializationError(f"not a .cf syntax tree: {message}", code="bad-xmi")


# ---------------------------------------------------------------------- files

#: How deep a program's XMI may nest when read back (the default limit of untrusted XMI
#: is 128; a chain of ``+`` nests one level per operand, as deep as the parser allows).
MAX_DEPTH = 100_000


def to_xmi(module: nodes.Module) -> bytes:
    """*module*'s tree as XMI of ``program.ecore`` (EMF loads it with that package)."""
    return xmi.to_bytes([to_model(module)])


def from_xmi(data: bytes, name: str = "<bytes>") -> nodes.Module:
    """The syntax tree of a program XMI document (as `to_xmi` or EMF wrote it).

    Raises:
        CfSerializationError: unsafe or malformed XML, or not a program tree.
    """
    rset = ResourceSet()
    register_packages(rset, [program.PACKAGE])
    # Indentation is not content: the memory estimate of untrusted XMI counts runs of
    # spaces as tokens, and a deep tree's indentation grows with the square of its depth.
    indentation = sum(len(line) - len(line.lstrip(b" ")) for line in data.split(b"\n"))
    limits = XmlLimits(max_depth=MAX_DEPTH, max_memory=XmlLimits().max_memory + 100 * indentation)
    options = xmi.XmiOptions(limits=limits)
    roots = xmi.from_bytes(data, rset, name, options).roots
    if len(roots) != 1:
        raise _bad(f"{len(roots)} root objects, not one Module")
    return from_model(roots[0])
