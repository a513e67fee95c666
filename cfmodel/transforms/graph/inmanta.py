"""Inmanta's export as a resource graph: what ``inmanta export -j`` (and ``cfmodel export``) writes.

Input: the export document — a JSON list of resources, each an object with ``id``
(``fs::File[host1,path=/etc/motd],v=3``), its fields, and ``requires`` (the ids of the
resources it requires) — or that file.
Output: ``graph_from_export`` — a ``ResourceGraph`` (``language`` ``cf``): one resource per
entry, its id without the version (``fs::File[host1,path=/etc/motd]``), kind the entity type,
agent the id's agent, key and name the id attribute and its value; every field but ``id``,
``requires`` and ``version`` an attribute, except ``send_event``, ``receive_events``,
``purge_on_delete``, ``report_only``, ``references`` and ``mutators``, which are meta
parameters (they say how the resource is handled, not what it is); one edge per required
id: ``listens`` when the required resource sends events (``send_event``) and this one takes
them (``receive_events`` not false) — Inmanta then notifies it of changes, as mgmt's
``notify`` does — else ``requires``. Provenance, when the caller has it (``provenance_of``), is the instance
that was exported.

Errors (``CfSerializationError`` ``bad-export``, or ``CfCompileError`` from the builder:
``unknown-resource`` for a required id the export does not hold, ``incompatible-duplicate``):
an entry that is no object, an id Inmanta would not parse, ``requires`` that is no list of ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cfmodel.errors import CfSerializationError, Span
from cfmodel.inputs import load_json
from cfmodel.metamodel.resource_graph import Provenance, ResourceGraph
from cfmodel.transforms.graph.build import GraphBuilder

#: Inmanta's resource id (``inmanta.resources.Id``): entity type, agent, id attribute, value, version.
RESOURCE_ID = re.compile(
    r"^(?P<type>[\w-]+(?:::[\w-]+)*::[\w-]+)\[(?P<agent>[^,]+),(?P<attr>[^=]+)=(?P<value>[^\]]+)\]"
    r"(?:,v=(?P<version>\d+))?$"
)
META_FIELDS = frozenset(
    ["send_event", "receive_events", "purge_on_delete", "report_only", "references", "mutators"]
)
NOT_ATTRIBUTES = frozenset(["id", "requires", "version"])
MAX_BYTES = 256 * 1024 * 1024


def parse_id(text: str) -> tuple[str, str, str, str, str]:
    """(id without version, entity type, agent, attribute, value) of an Inmanta resource id.

    Raises:
        ValueError: not an Inmanta resource id.
    """
    match = RESOURCE_ID.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a resource id (entity[agent,attribute=value])")
    kind, agent, attr, value = match.group("type", "agent", "attr", "value")
    return f"{kind}[{agent},{attr}={value}]", kind, agent, attr, value


def graph_from_export(
    document: Sequence[Any],
    name: str = "",
    file_name: str = "<export>",
    provenance_of: Callable[[str], Provenance | None] | None = None,
) -> ResourceGraph:
    """The resource graph of an export document (module docstring).

    Raises:
        CfSerializationError: ``bad-export``.
        CfCompileError: ``unknown-resource``, ``incompatible-duplicate``.
    """
    where = Span(file_name, 1, 1, 1, 1)
    builder = GraphBuilder(name, language="cf")
    requires: list[tuple[str, list[str]]] = []
    for position, entry in enumerate(document):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str):
            raise CfSerializationError(
                f"resource {position + 1}: not an object with an 'id'", where, code="bad-export"
            )
        try:
            rid, kind, agent, attr, value = parse_id(entry["id"])
            needed = [parse_id(r)[0] for r in _id_list(entry.get("requires", []))]
        except ValueError as exc:
            raise CfSerializationError(f"resource {position + 1}: {exc}", where, code="bad-export") from exc
        fields = {k: v for k, v in entry.items() if k not in NOT_ATTRIBUTES and k not in META_FIELDS}
        meta = {k: v for k, v in entry.items() if k in META_FIELDS}
        origin = provenance_of(rid) if provenance_of is not None else None
        builder.resource(
            kind, value, agent=agent, key=attr, id=rid, attributes=fields, meta=meta, provenance=origin
        )
        requires.append((rid, needed))
    events = {rid: entry for rid, entry in zip((r for r, _ in requires), document, strict=True)}
    for rid, needed in requires:
        origin = provenance_of(rid) if provenance_of is not None else None
        for other in needed:
            sender = events.get(other, {})
            if sender.get("send_event") is True and events[rid].get("receive_events") is not False:
                builder.listen(rid, other, origin)  # the required resource's changes reach this one
            else:
                builder.requires(rid, other, origin)
    return builder.build()


def _id_list(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("'requires' is not a list of resource ids")
    return value


def is_export_document(data: Any) -> bool:
    """Whether parsed JSON looks like an export document (a list of objects with ids)."""
    return isinstance(data, list) and all(isinstance(e, Mapping) and "id" in e for e in data)


def read_export(path: Path | str, name: str = "") -> ResourceGraph:
    """The resource graph of an export file (``inmanta export -j FILE``'s FILE).

    Raises:
        CfSerializationError: ``bad-export`` (with the JSON error's position), and as
            ``graph_from_export``.
    """
    source = Path(path)
    try:
        if source.stat().st_size > MAX_BYTES:
            raise CfSerializationError(
                f"larger than {MAX_BYTES} bytes", Span(str(source), 1, 1, 1, 1), code="bad-export"
            )
        data = load_json(source.read_text(encoding="utf-8"))  # nesting bounded before parsing
    except json.JSONDecodeError as exc:
        span = Span(str(source), exc.lineno, exc.colno, exc.lineno, exc.colno + 1)
        raise CfSerializationError(f"not JSON: {exc.msg}", span, code="bad-export") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise CfSerializationError(
            f"cannot read: {exc}", Span(str(source), 1, 1, 1, 1), code="bad-export"
        ) from exc
    if not is_export_document(data):
        raise CfSerializationError(
            "not an export document (a list of resources with ids)",
            Span(str(source), 1, 1, 1, 1),
            code="bad-export",
        )
    return graph_from_export(data, name or source.stem, str(source))
