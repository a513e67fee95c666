"""The sides ``cfmodel diff`` compares, read from what the command line names.

``load_side(source, request, ecores, cache)``: a project directory is compiled for the
request (``facts``, ``environment``): its instances and the graph of its exported resources;
an ``.xmi``/``.json`` file is read with the graph metamodel, the ``.ecore`` files beside it
and those given — its ``Graph`` root as a ``ResourceGraph``, any other model as ``Objects``
(every object, ids from the file); mgmt's ``.yaml`` graph and an Inmanta export document (a
``.json`` list) as a ``ResourceGraph``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pyecore.resources import ResourceSet

from cfmodel.cache import ParseCache
from cfmodel.commands._graphs import json_list
from cfmodel.console import Progress
from cfmodel.errors import CfModelError, CfUsageError, Note


def load_side(
    source: str,
    request: dict[str, Any],
    ecores: list[str],
    cache: ParseCache | None,
    progress: Progress | None = None,
) -> Any:
    """One side of a comparison (module docstring); a project's compile says its steps to *progress*.

    Raises:
        CfUsageError: the source does not exist or is of no known kind.
        CfModelError: it cannot be read or compiled.
    """
    path = Path(source)
    if path.is_dir():
        from cfmodel.pipeline import compile_project, diff_side, export

        result = compile_project(
            path,
            facts=request["facts"],
            environment=request["environment"],
            cache=cache,
            keep_sources=False,
            progress=progress,
        )
        exported = export(result)  # before the model: the export reads the instances' values
        for problem in exported.problems:
            print(f"warning: {problem}", file=sys.stderr)
        return diff_side(result.model, result.id_of, str(result.name), exported.graph(str(result.name)))
    if not path.is_file():
        raise CfUsageError(f"{source}: no such file or directory")
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        from cfmodel.serializers import yamlgraph

        return yamlgraph.read(path)
    if suffix == ".json" and json_list(path):
        from cfmodel.pipeline import read_export_graph

        return read_export_graph(path)
    if suffix in (".xmi", ".xml", ".json"):
        return _model_file(path, [Path(e) for e in ecores])
    raise CfUsageError(f"{source}: not a project, a model file (.xmi, .json) or a graph file (.yaml)")


def _model_file(path: Path, ecores: list[Path]) -> Any:
    from cfmodel.metamodel import graph as gm
    from cfmodel.metamodel.resource_graph import from_ecore
    from cfmodel.pipeline import diff_side, read_metamodels
    from cfmodel.serializers import canonical, read
    from cfmodel.serializers.base import register_packages

    rset = ResourceSet()
    register_packages(rset, [gm.PACKAGE])
    metamodels = [*sorted(path.parent.glob("*.ecore")), *ecores]
    if metamodels:
        register_packages(rset, read_metamodels(metamodels, rset))  # together: they refer to each other
    try:
        document = read(path, rset)
    except CfModelError as exc:
        if not metamodels:  # most likely why: say so beside the reader's own words
            exc.notes = (*exc.notes, Note(None, f"no .ecore file beside {path} and none given with --ecore"))
        raise
    if len(document.roots) == 1 and document.roots[0].eClass is gm.Graph:
        try:
            return from_ecore(document.roots[0])
        except ValueError as exc:
            raise CfUsageError(f"{path}: {exc}") from exc
    ids = document.ids
    return diff_side(list(canonical.walk(document.roots)), ids.get, str(path))
