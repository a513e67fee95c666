"""Resource graphs as files: XMI and JSON of the graph metamodel, written and read back.

Input: a ``ResourceGraph`` and a path (``.xmi``/``.xml`` or ``.json``), or such a file.
Output: ``write_graph`` replaces the file atomically with the Ecore form of the graph
(``to_ecore``), each resource's XMI/JSON id made from its resource id (``ncname_id``, so
edges point at stable names, not positions); ``read_graph`` returns the typed graph.

Errors: ``CfSerializationError`` — the file is not a graph of ``http://cfmodel.org/graph/1.0``
(its root is something else, two resources share an id, an edge lacks an end); the
serializers' own errors for unreadable files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError, Span
from cfmodel.metamodel import graph as gm
from cfmodel.metamodel.resource_graph import ResourceGraph, from_ecore, to_ecore
from cfmodel.serializers import JsonOptions, XmiOptions, get_format, ncname_id, read, write
from cfmodel.serializers.base import register_packages


def graph_ids(obj: Any) -> str | None:
    """XMI/JSON ids: resources by their resource id (made an NCName), nothing else."""
    if obj.eClass is gm.Resource and obj.resourceId:
        return ncname_id(str(obj.resourceId))
    return None


def write_graph(path: Path | str, graph: ResourceGraph, indent: int | None = None) -> None:
    """Write ``graph`` as XMI or JSON, by the file's extension (module docstring)."""
    fmt = get_format(path)
    options: Any = (
        XmiOptions(id_of=graph_ids) if fmt.name == "xmi" else JsonOptions(id_of=graph_ids, indent=indent)
    )
    write(path, [to_ecore(graph)], options)


def read_graph(path: Path | str) -> ResourceGraph:
    """Read a graph written by ``write_graph`` (or by EMF with the same metamodel).

    Raises:
        CfSerializationError: the file holds no resource graph, or a broken one.
    """
    rset = ResourceSet()
    register_packages(rset, [gm.PACKAGE])
    document = read(path, rset)
    where = Span(str(path), 1, 1, 1, 1)
    roots = [r for r in document.roots if r.eClass is gm.Graph]
    if len(roots) != 1 or len(document.roots) != 1:
        raise CfSerializationError(
            f"expected one Graph of {gm.NS_URI} as the only root", where, code="not-a-graph"
        )
    try:
        return from_ecore(roots[0])
    except ValueError as exc:
        raise CfSerializationError(str(exc), where, code="not-a-graph") from exc
