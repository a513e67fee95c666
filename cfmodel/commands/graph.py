"""``cfmodel graph``: a resource graph drawn, ordered or written in another format.

``graph SOURCE [-o FILE] [--format F]`` reads the resource graph of SOURCE — a graph file
(``.xmi``/``.json`` of the graph metamodel, mgmt's ``.yaml`` graph) or a project whose
resources are exported (see ``load_graph``) — optionally narrows it (``--agent NAME``, with
``--neighbours``; ``--reduce`` for its transitive reduction) and writes it: a picture (``dot``,
``svg``, ``png``: clusters per agent, a style per edge kind), mgmt's YAML graph
(``yamlgraph``; what cannot be carried is printed on stderr as warnings), the graph model
(``xmi``, ``json``), or its topological ``order`` (one resource id a line; a cycle is reported
as an error, exit 1). The format is ``--format``, else the extension of ``-o``; without
``-o`` text goes to stdout (DOT by default) and a PNG is refused. Files are replaced
atomically; pictures other than DOT need Graphviz's ``dot`` (the error says how to get it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfmodel.commands import SubParsers
from cfmodel.commands._options import add_request_options, parse_cache, progress_of
from cfmodel.errors import CfUsageError

ORDER = 45

FORMATS = ("dot", "svg", "png", "yamlgraph", "xmi", "json", "order")
EXTENSIONS = {
    ".dot": "dot",
    ".gv": "dot",
    ".svg": "svg",
    ".png": "png",
    ".yaml": "yamlgraph",
    ".yml": "yamlgraph",
    ".xmi": "xmi",
    ".json": "json",
    ".txt": "order",
}


def output_format(args: argparse.Namespace) -> str:
    """``--format``, else the output file's extension, else ``dot``."""
    if args.format:
        return str(args.format)
    if args.output:
        suffix = Path(args.output).suffix.lower()
        if suffix not in EXTENSIONS:
            known = ", ".join(sorted(EXTENSIONS))
            raise CfUsageError(
                f"cannot tell the format of {args.output!r} (extensions: {known}); use --format"
            )
        return EXTENSIONS[suffix]
    return "dot"


def cmd_graph(args: argparse.Namespace) -> int:
    from cfmodel.commands._graphs import load_graph
    from cfmodel.pipeline import agent_subgraph, transitive_reduction

    fmt = output_format(args)
    if fmt == "png" and not args.output:
        raise CfUsageError("a PNG needs an output file (-o FILE.png)")
    progress = progress_of(args)
    progress(f"reading {args.source}")
    graph = load_graph(args.source, args, parse_cache(args))
    progress("drawing the graph")
    if args.agent:
        graph = agent_subgraph(graph, args.agent, neighbours=args.neighbours)
    if args.reduce:
        graph = transitive_reduction(graph)
    data = render_graph(graph, fmt, args)
    if args.output:
        from cfmodel.serializers import atomic

        atomic.write_bytes(args.output, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0


def render_graph(graph: object, fmt: str, args: argparse.Namespace) -> bytes:
    from cfmodel import pipeline
    from cfmodel.metamodel.resource_graph import ResourceGraph
    from cfmodel.serializers import dot, yamlgraph

    assert isinstance(graph, ResourceGraph)
    if fmt == "order":
        return str(pipeline.graph_order(graph)).encode("utf-8")
    if fmt == "yamlgraph":
        made = yamlgraph.to_text(graph)
        for loss in made.losses:
            print(f"warning: not carried into the YAML graph: {loss}", file=sys.stderr)
        return made.text.encode("utf-8")
    if fmt == "xmi":
        return pipeline.graph_model(graph).xmi_bytes()
    if fmt == "json":
        return pipeline.graph_model(graph).json_bytes(indent=2)
    picture = pipeline.graph_picture(graph, legend=not args.no_legend)
    if fmt == "dot":
        return picture.dot.encode("utf-8")
    return dot.render(picture.dot, fmt)


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "graph",
        parents=[common],
        help="draw a resource graph, order it, or write it as mgmt's YAML graph",
    )
    p.add_argument(
        "source",
        metavar="SOURCE",
        nargs="?",
        default=".",
        help="a graph file (.xmi, .json, .yaml) or a project",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write here (.dot .svg .png .yaml .xmi .json .txt)")
    p.add_argument("--format", choices=FORMATS, help="output format (default: by -o's extension, else dot)")
    p.add_argument("--agent", metavar="NAME", help="only this agent's (host's) resources")
    p.add_argument(
        "--neighbours", action="store_true", help="with --agent: also the resources joined to them"
    )
    p.add_argument("--reduce", action="store_true", help="drop ordering edges that other paths imply")
    p.add_argument("--no-legend", action="store_true", help="pictures: leave out the legend of edge kinds")
    add_request_options(p)
    p.set_defaults(func=cmd_graph)
