"""mgmt's YAML graph format (what mgmt's ``yaml`` frontend runs): written from and read into a
``ResourceGraph``.

The format (mgmt's ``yamlgraph`` package): a mapping with ``graph`` (the graph's name),
``comment``, ``resources`` (kind → list of resources, each a mapping with ``name``, optional
``meta`` (meta parameters) and the kind's fields) and ``edges`` (each ``name``, ``from`` and
``to`` as ``{kind, name}``, ``notify``). An edge runs ``from`` before ``to``.

Writing (``to_text``/``write``): every resource becomes one entry of its mgmt kind. Kinds of
Inmanta that mgmt has are translated, by the last segment of their name (``KIND_MAP``:
``std::File``/``fs::File`` → ``file``, ``…::Directory`` → ``file`` with a ``/`` path,
``std::Package``/``apt::Package``/``yum::Package`` → ``pkg``, ``…::Service`` → ``svc``;
their attributes renamed and their values converted, e.g. ``permissions: 644`` →
``mode: "0644"``, ``purged: true`` → ``state: absent``, ``onboot`` → ``startup``, package
``removed`` or ``purged`` → ``uninstalled``); any other kind is written with its last name
segment in lower case and its attributes as fields. Meta parameters mgmt knows
(``MGMT_META``) go to ``meta``. Edges: ``requires``/``before`` are plain edges, the notifying
kinds ``notify: true``. What cannot be carried is returned as ``losses`` (one line each):
agents (a YAML graph is one host's; several agents need ``--agent``), send/recv fields (the
format has none: the edge is kept, notifying), provenance, attributes a translated kind has
no field for, meta parameters mgmt does not have, kinds mgmt does not have — per kind, with
the number of resources when several.

Reading (``read``/``parse``): the document is checked (a mapping; ``resources`` kinds holding
lists of mappings with a string ``name``; edges naming resources of the document) and
becomes a graph (``language`` ``yamlgraph``, ids ``kind[name]``, fields as attributes, the
position of each resource and edge as its provenance). YAML aliases are refused (no
exponential expansion), and so are documents over ``MAX_BYTES``.

Guarantees: the text is byte-identical for equal graphs (kinds sorted, resources by name,
fields in order, edges sorted, values quoted where YAML would read them as another type).

Errors: ``CfSerializationError`` ``bad-yamlgraph`` (with the position in the file) when
reading; ``yamlgraph-clash`` when two resources would have one mgmt kind and name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cfmodel.errors import CfSerializationError, Span
from cfmodel.inputs import MAX_YAML_DEPTH, check_yaml_nesting
from cfmodel.metamodel.resource_graph import (
    Edge,
    EdgeKind,
    Provenance,
    Resource,
    ResourceGraph,
    Value,
    value_type_error,
)
from cfmodel.serializers import atomic

MAX_BYTES = 64 * 1024 * 1024

#: mgmt's meta parameters (engine/metaparams.go): the only keys its ``meta`` takes.
MGMT_META = frozenset(
    ["noop", "retry", "retryreset", "delay", "timeout", "poll", "limit", "burst", "reset", "sema", "rewatch",
     "realize", "dollar", "hidden", "export"]
)  # fmt: skip

Fields = dict[str, Value]


def _file_fields(attrs: Mapping[str, Value], name: str, directory: bool) -> tuple[Fields, list[str]]:
    fields: Fields = {}
    path = attrs.get("path", name)
    if isinstance(path, str):
        fields["path"] = path if not directory or path.endswith("/") else path + "/"
    if not directory and "content" in attrs:
        fields["content"] = attrs["content"]
    purged = attrs.get("purged")
    fields["state"] = "absent" if purged is True else "exists"
    for key in ("owner", "group"):
        if attrs.get(key) is not None:
            fields[key] = attrs[key]
    permissions, mode = attrs.get("permissions"), attrs.get("mode")
    if isinstance(permissions, int) and not isinstance(permissions, bool):
        fields["mode"] = f"{permissions:04d}"  # Inmanta writes octal digits as a number: 644
    elif isinstance(mode, str):
        fields["mode"] = mode
    used = {"path", "content", "purged", "owner", "group", "permissions", "mode"} - (
        {"content"} if directory else set()
    )
    return fields, [k for k in attrs if k not in used]


def _std_file(attrs: Mapping[str, Value], name: str) -> tuple[Fields, list[str]]:
    return _file_fields(attrs, name, directory=False)


def _std_directory(attrs: Mapping[str, Value], name: str) -> tuple[Fields, list[str]]:
    return _file_fields(attrs, name, directory=True)


def _std_package(attrs: Mapping[str, Value], name: str) -> tuple[Fields, list[str]]:
    states = {"installed": "installed", "removed": "uninstalled", "latest": "newest"}
    fields: Fields = {}
    state = attrs.get("state")
    if attrs.get("purged") is True:
        fields["state"] = "uninstalled"
    elif isinstance(state, str):
        fields["state"] = states.get(state, state)
    return fields, [k for k in attrs if k not in {"name", "state", "purged"}]


def _std_service(attrs: Mapping[str, Value], name: str) -> tuple[Fields, list[str]]:
    fields: Fields = {}
    state = attrs.get("state")
    if isinstance(state, str):
        fields["state"] = state
    onboot = attrs.get("onboot")
    if isinstance(onboot, bool):
        fields["startup"] = "enabled" if onboot else "disabled"
    return fields, [k for k in attrs if k not in {"name", "state", "onboot"}]


Translate = Callable[[Mapping[str, Value], str], tuple[Fields, list[str]]]

#: Inmanta kinds mgmt has, by the last segment of their name (``std::File``, ``fs::File``;
#: ``std::Package``, ``apt::Package``, ``yum::Package``; ...): (mgmt kind, how attributes
#: become fields and which are left over).
KIND_MAP: dict[str, tuple[str, Translate]] = {
    "File": ("file", _std_file),
    "Directory": ("file", _std_directory),
    "Package": ("pkg", _std_package),
    "Service": ("svc", _std_service),
}


def _translation(kind: str) -> tuple[str, Translate] | None:
    """How an Inmanta kind is written in mgmt's graph (None: a kind mgmt does not have)."""
    if "::" not in kind:
        return None  # an mcl graph's kinds are mgmt's own
    return KIND_MAP.get(kind.rsplit("::", 1)[1])


@dataclass(slots=True)
class YamlGraph:
    """The text written and what could not be carried into it (one line each)."""

    text: str
    losses: list[str] = field(default_factory=list)


def mgmt_kind(kind: str) -> str:
    """The mgmt kind a resource kind is written as (``KIND_MAP``, else the last segment, lower case)."""
    translation = _translation(kind)
    if translation is not None:
        return translation[0]
    return kind.rsplit("::", 1)[-1].lower()


def to_text(graph: ResourceGraph) -> YamlGraph:
    """mgmt's YAML graph of ``graph`` (module docstring).

    Raises:
        CfSerializationError: ``yamlgraph-clash``.
    """
    losses: list[str] = []
    agents = graph.agents()
    if len(agents) > 1:
        losses.append(
            f"agents: the graph has {len(agents)} ({', '.join(agents)}); a YAML graph is one host's"
        )
    elif agents:
        losses.append(f"agent: {agents[0]} (a YAML graph does not name its host)")
    entries: dict[tuple[str, str], Resource] = {}
    by_kind: dict[str, list[dict[str, Value]]] = {}
    unknown_kinds: set[str] = set()
    for res in graph.resources.values():
        kind = mgmt_kind(res.kind)
        clash = entries.get((kind, res.name))
        if clash is not None:
            raise CfSerializationError(
                f"{clash.id} and {res.id} would both be {kind} {res.name!r} in mgmt's graph"
                + (" (choose one agent)" if clash.agent != res.agent else ""),
                res.span,
                code="yamlgraph-clash",
            )
        entries[(kind, res.name)] = res
        by_kind.setdefault(kind, []).append(_entry(res, kind, losses, unknown_kinds))
    for kind in sorted(unknown_kinds):
        losses.append(
            f"kind {kind}: mgmt has no such kind; written as {mgmt_kind(kind)!r} with its attributes"
        )
    doc: dict[str, Any] = {
        "graph": graph.name or "cfmodel",
        "comment": f"written by cfmodel from a resource graph ({graph.language or 'no language'})",
        "resources": {k: sorted(v, key=lambda e: str(e["name"])) for k, v in sorted(by_kind.items())},
        "edges": _edges(graph, losses),
    }
    if any(r.provenance for r in graph.resources.values()):
        losses.append("provenance: source positions and statements are not part of the format")
    return YamlGraph("---\n" + _dump(doc), _counted(losses))


def _counted(losses: list[str]) -> list[str]:
    """Each loss once, in first-seen order, with how many resources it concerns when several."""
    counts: dict[str, int] = {}
    for loss in losses:
        counts[loss] = counts.get(loss, 0) + 1
    return [loss if n == 1 else f"{loss} ({n} resources)" for loss, n in counts.items()]


def write(target: Path | str, graph: ResourceGraph) -> list[str]:
    """Write the YAML graph atomically; returns what could not be carried."""
    made = to_text(graph)
    atomic.write_bytes(target, made.text.encode("utf-8"))
    return made.losses


def _entry(res: Resource, kind: str, losses: list[str], unknown_kinds: set[str]) -> dict[str, Value]:
    entry: dict[str, Value] = {"name": res.name}
    translation = _translation(res.kind)
    if translation is not None:
        fields, left = translation[1](res.attributes, res.name)
        if left:
            losses.append(f"{res.kind}: attributes {', '.join(left)} have no field in mgmt's {kind}")
    else:
        fields = {k: v for k, v in res.attributes.items() if k != "name"}
        if res.kind != kind:
            unknown_kinds.add(res.kind)
    meta = {k: v for k, v in res.meta.items() if k in MGMT_META}
    dropped = [k for k in res.meta if k not in MGMT_META]
    if dropped:
        losses.append(f"{res.kind}: meta parameters {', '.join(dropped)} are not mgmt's")
    if meta:
        entry["meta"] = meta
    entry.update(fields)
    return entry


def _edges(graph: ResourceGraph, losses: list[str]) -> list[dict[str, Value]]:
    edges: list[dict[str, Value]] = []
    seen: set[tuple[str, str, bool]] = set()
    for edge in sorted(graph.edges, key=Edge.identity):
        source, target = graph.resources[edge.source], graph.resources[edge.target]
        notify = edge.kind.notifies
        if edge.kind is EdgeKind.SENDRECV:
            losses.append(
                f"send/recv {edge.source}.{edge.send_field} -> {edge.target}.{edge.recv_field}: "
                "the format has no send/recv; written as a notifying edge"
            )
        key = (edge.source, edge.target, notify)
        if key in seen:
            continue
        seen.add(key)
        item: dict[str, Value] = {
            "name": f"e{len(edges) + 1}",
            "from": {"kind": mgmt_kind(source.kind), "name": source.name},
            "to": {"kind": mgmt_kind(target.kind), "name": target.name},
        }
        if notify:
            item["notify"] = True
        edges.append(item)
    return edges


# ---- YAML text, deterministic -------------------------------------------------------------

_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./-]*\Z")
#: plain words YAML 1.1 reads as booleans or null: such strings are quoted
_YAML_WORDS = frozenset(
    w
    for word in ("y", "yes", "n", "no", "true", "false", "on", "off", "null")
    for w in (word, word.title(), word.upper())
) | {"~"}


def _scalar(value: Value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    assert isinstance(value, str)
    if _PLAIN.match(value) and value not in _YAML_WORDS:
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _float(value: float) -> str:
    """A float YAML 1.1 reads back as one (PyYAML wants a dot and a signed exponent)."""
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    if exponent and exponent[0] not in "+-":
        exponent = "+" + exponent
    return f"{mantissa}e{exponent}" if exponent else mantissa


def _key(key: str) -> str:
    return key if _PLAIN.match(key) and key not in _YAML_WORDS else json.dumps(key, ensure_ascii=False)


def _dump(value: Any, indent: str = "") -> str:
    """Block-style YAML of a mapping at the top level (``value`` is a dict)."""
    lines: list[str] = []
    _emit_mapping(value, indent, lines)
    return "\n".join(lines) + "\n"


def _emit_mapping(mapping: Mapping[str, Any], indent: str, lines: list[str]) -> None:
    for key, item in mapping.items():
        head = f"{indent}{_key(key)}:"
        if isinstance(item, dict) and item:
            lines.append(head)
            _emit_mapping(item, indent + "  ", lines)
        elif isinstance(item, list) and item:
            lines.append(head)
            _emit_list(item, indent, lines)
        else:
            lines.append(f"{head} {_inline(item)}")


def _emit_list(items: list[Any], indent: str, lines: list[str]) -> None:
    for item in items:
        if isinstance(item, dict) and item:
            start = len(lines)
            _emit_mapping(item, indent + "  ", lines)
            lines[start] = f"{indent}- " + lines[start][len(indent) + 2 :]
        elif isinstance(item, list) and item:
            lines.append(f"{indent}-")
            _emit_list(item, indent + "  ", lines)
        else:
            lines.append(f"{indent}- {_inline(item)}")


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return _scalar(value)


# ---- reading --------------------------------------------------------------------------------


class _NoAliasLoader(yaml.SafeLoader):
    """Safe loading without aliases: ``*x`` is refused, so nothing expands exponentially."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]  # PyYAML's stubs leave it untyped
            raise yaml.MarkedYAMLError(None, None, "aliases are not allowed here", event.start_mark)
        return super().compose_node(parent, index)


def read(source: Path | str) -> ResourceGraph:
    """Read a YAML graph file (module docstring).

    Raises:
        CfSerializationError: ``bad-yamlgraph``.
    """
    path = Path(source)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise CfSerializationError(
                f"file is larger than {MAX_BYTES} bytes", Span(str(path), 1, 1, 1, 1), code="bad-yamlgraph"
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CfSerializationError(
            f"cannot read: {exc}", Span(str(path), 1, 1, 1, 1), code="bad-yamlgraph"
        ) from exc
    return parse(text, str(path))


def parse(text: str, file_name: str = "<yamlgraph>") -> ResourceGraph:
    """The graph of a YAML graph text (module docstring).

    Raises:
        CfSerializationError: ``bad-yamlgraph``.
    """
    loader = _NoAliasLoader(text)
    try:
        check_yaml_nesting(text)  # PyYAML recurses (and rescans) once per level
        node = loader.get_single_node()
    except RecursionError:  # nesting hidden from the check (brackets inside quotes)
        message = f"the document nests deeper than {MAX_YAML_DEPTH} levels"
        raise _error(file_name, loader.get_mark(), message) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise _error(file_name, mark, str(exc.problem or exc.context or "invalid YAML")) from exc
    except yaml.YAMLError as exc:
        raise _error(file_name, None, f"invalid YAML: {exc}") from exc
    finally:
        loader.dispose()
    return _Reader(file_name).graph(node)


def _error(file_name: str, mark: Any, message: str) -> CfSerializationError:
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return CfSerializationError(message, Span(file_name, line, col, line, col + 1), code="bad-yamlgraph")


class _Reader:
    """Checks a composed YAML node tree and builds the graph, with positions."""

    def __init__(self, file_name: str) -> None:
        self.file_name = file_name

    def fail(self, node: Any, message: str) -> CfSerializationError:
        return _error(self.file_name, getattr(node, "start_mark", None), message)

    def span(self, node: Any) -> Span:
        start, end = node.start_mark, node.end_mark
        return Span(self.file_name, start.line + 1, start.column + 1, end.line + 1, end.column + 1)

    def mapping(self, node: Any, what: str) -> dict[str, Any]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping")
        found: dict[str, Any] = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                raise self.fail(key, f"a key of {what} must be a string")
            if key.value in found:
                raise self.fail(key, f"{what} has the key {key.value!r} twice")
            found[key.value] = value
        return found

    def plain(self, node: Any, what: str) -> Value:
        data = yaml.load(yaml.serialize(node), Loader=yaml.SafeLoader)
        problem = value_type_error(data)
        if problem is not None:
            raise self.fail(node, f"{what}: {problem}")
        return _normalize(data)

    def string(self, node: Any, what: str) -> str:
        value = self.plain(node, what) if node is not None else None
        if not isinstance(value, str) or not value:
            raise self.fail(node, f"{what} must be a non-empty string")
        return value

    def graph(self, root: Any) -> ResourceGraph:
        if root is None:
            raise _error(self.file_name, None, "the document is empty")
        top = self.mapping(root, "the document")
        name = self.string(top["graph"], "graph") if "graph" in top else ""
        graph = ResourceGraph(name=name, language="yamlgraph")
        names: dict[tuple[str, str], str] = {}
        if "resources" in top and not _is_null(top["resources"]):
            for kind, entries in self.mapping(top["resources"], "resources").items():
                if _is_null(entries):
                    continue
                if not isinstance(entries, yaml.SequenceNode):
                    raise self.fail(entries, f"resources of kind {kind!r} must be a list")
                for entry in entries.value:
                    res = self.resource(kind, entry)
                    if res.id in graph.resources:
                        raise self.fail(entry, f"{kind} {res.name!r} is declared twice")
                    graph.resources[res.id] = res
                    names[(kind.lower(), res.name)] = res.id
        if "edges" in top and not _is_null(top["edges"]):
            if not isinstance(top["edges"], yaml.SequenceNode):
                raise self.fail(top["edges"], "edges must be a list")
            graph.edges.extend(self.edge(e, names) for e in top["edges"].value)
        return graph

    def resource(self, kind: str, node: Any) -> Resource:
        fields = self.mapping(node, f"a {kind} resource")
        if "name" not in fields:
            raise self.fail(node, f"a {kind} resource has no name")
        name = self.string(fields.pop("name"), "name")
        meta_node = fields.pop("meta", None)
        meta = self.plain(meta_node, "meta") if meta_node is not None else {}
        if not isinstance(meta, dict):
            raise self.fail(meta_node, "meta must be a mapping")
        attributes = {k: self.plain(v, k) for k, v in fields.items()}
        where = Provenance(self.span(node), statement=f"{kind} {name}")
        return Resource(f"{kind}[{name}]", kind, name, attributes=attributes, meta=meta, provenance=[where])

    def edge(self, node: Any, names: dict[tuple[str, str], str]) -> Edge:
        fields = self.mapping(node, "an edge")
        ends: list[str] = []
        for side in ("from", "to"):
            if side not in fields:
                raise self.fail(node, f"an edge has no {side!r}")
            end = self.mapping(fields[side], f"an edge's {side!r}")
            kind = self.string(end.get("kind"), f"{side}.kind") if "kind" in end else ""
            name = self.string(end.get("name"), f"{side}.name") if "name" in end else ""
            rid = names.get((kind.lower(), name))
            if rid is None:
                raise self.fail(
                    fields[side], f"an edge's {side!r} names no resource of the graph: {kind} {name!r}"
                )
            ends.append(rid)
        notify = self.plain(fields["notify"], "notify") if "notify" in fields else False
        if not isinstance(notify, bool):
            raise self.fail(fields["notify"], "notify must be true or false")
        label = self.plain(fields["name"], "name") if "name" in fields else ""
        where = Provenance(self.span(node), statement=f"edge {label}" if label else "edge")
        return Edge(EdgeKind.NOTIFY if notify else EdgeKind.BEFORE, ends[0], ends[1], provenance=[where])


def _is_null(node: Any) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _normalize(value: Any) -> Value:
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items()}
    scalar: Value = value
    return scalar
