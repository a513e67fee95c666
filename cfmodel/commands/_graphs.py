"""Reading the resource graph a command was pointed at (``cfmodel graph``, ``cfmodel diff``).

``load_graph(source, args)``: a graph file — ``.xmi``/``.xml``/``.json`` of the graph
metamodel, mgmt's YAML graph (``.yaml``/``.yml``), Inmanta's export document (a ``.json``
list of resources, as ``inmanta export -j`` writes it) — read as it is; a project directory
(with ``main.cf``): compiled, its resources exported (``cfmodel export``) and made a graph;
an mcl program (a ``.mcl`` file, or a directory with ``metadata.yaml`` or ``main.mcl``)
compiled with the facts (``--fact``/``--facts``) into its resource graph
(``cfmodel.mcl.compile``). Every step is one of `cfmodel.pipeline`.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from cfmodel.cache import ParseCache
from cfmodel.errors import CfUsageError
from cfmodel.metamodel.resource_graph import ResourceGraph

GRAPH_FILES = (".xmi", ".xml", ".json")
YAML_FILES = (".yaml", ".yml")


def load_graph(source: str, args: argparse.Namespace, cache: ParseCache | None) -> ResourceGraph:
    """The resource graph of ``source`` (module docstring).

    Raises:
        CfUsageError: ``source`` is missing or of a kind that has no resource graph.
        CfModelError: the file or project has errors (reported with positions).
    """
    path = Path(source)
    suffix = path.suffix.lower()
    if path.is_file() and suffix == ".json" and json_list(path):
        from cfmodel.pipeline import read_export_graph

        return read_export_graph(path)
    if path.is_file() and suffix in GRAPH_FILES:
        from cfmodel.pipeline import read_graph

        return read_graph(path)
    if path.is_file() and suffix in YAML_FILES:
        from cfmodel.serializers import yamlgraph

        return yamlgraph.read(path)
    if path.is_dir() and (path / "main.cf").is_file():
        from cfmodel.commands._options import facts_from_args
        from cfmodel.pipeline import compile_project, export

        facts = facts_from_args(args)
        environment = getattr(args, "environment", None)
        progress = getattr(args, "progress", None)
        shown = progress if progress is not None and progress.enabled else None
        result = compile_project(path, facts=facts, environment=environment, cache=cache, progress=shown)
        return export(result).graph(result.name)
    if suffix == ".mcl" or (
        path.is_dir() and ((path / "metadata.yaml").is_file() or (path / "main.mcl").is_file())
    ):
        from cfmodel.commands._options import facts_from_args
        from cfmodel.pipeline import mcl_compile

        return mcl_compile(path, facts_from_args(args)).graph
    if not path.exists():
        raise CfUsageError(f"{source}: no such file or directory")
    raise CfUsageError(
        f"{source}: no resource graph can be read from it (graph files: .xmi, .json, mgmt's .yaml, "
        "an export document; an mcl program)"
    )


def json_list(path: Path) -> bool:
    """Whether a JSON file holds a list (an export document), by its first non-blank byte;
    not a list of model objects (emfjson-jackson's JSON of several roots), whose first
    object starts with its ``"eClass"``."""
    with path.open("rb") as stream:
        head = stream.read(4096).lstrip()
    return head.startswith(b"[") and _MODEL_ARRAY.match(head) is None


_MODEL_ARRAY = re.compile(rb'\[\s*\{\s*"eClass"\s*:')
