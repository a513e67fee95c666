"""``cfmodel mcl check|graph|fmt|parse``: mgmt's language, from a program to its resource graph.

PATH is a ``.mcl`` file or a directory with ``main.mcl`` or ``metadata.yaml``.
``graph --format text`` prints ``Vertex: kind[name]`` and ``Edge: kind[a] -> kind[b]``
lines, sorted (mgmt's own text form); ``json`` the resources with their fields and meta
parameters (mcl's values) and the edges; ``dot``/``svg``/``png``, ``xmi``/``model-json`` (the
resource graph model) and ``yamlgraph`` (mgmt's YAML graph) are the resource graph's own
writers (``cfmodel graph``). Exit 0, or 1 with the diagnostics.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfmodel.commands import Command, SubParsers
from cfmodel.commands._options import facts_from_args, progress_of
from cfmodel.commands.graph import render_graph
from cfmodel.dump import dump_node
from cfmodel.errors import CfModelError, CfUsageError
from cfmodel.grammars import mcl as mcl_grammar
from cfmodel.serializers.atomic import write_bytes

ORDER = 40
GRAPH_FORMATS = ("text", "json", "dot", "svg", "png", "xmi", "model-json", "yamlgraph")


def with_carets(command: Command) -> Command:
    """Report a refused program as ``file:line:col: error: ...  [code]`` lines, each
    followed by its source line and a caret under the column; exit 1."""

    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except CfUsageError:
            raise
        except CfModelError as error:
            lines: dict[str, list[str]] = {}
            for diagnostic in error.diagnostics():
                print(diagnostic.render(), file=sys.stderr)
                span = diagnostic.span
                if span is None:
                    continue
                if span.file not in lines:
                    try:
                        lines[span.file] = Path(span.file).read_text(encoding="utf-8").split("\n")
                    except (OSError, UnicodeDecodeError):
                        lines[span.file] = []
                source = lines[span.file]
                if 0 < span.line <= len(source):
                    text = source[span.line - 1].replace("\t", " ")
                    width = (
                        span.end_col - span.col if span.end_line == span.line else len(text) - span.col + 1
                    )
                    print(f"    {text}", file=sys.stderr)
                    print("    " + " " * (span.col - 1) + "^" * max(1, width), file=sys.stderr)
            return 1

    return run


def cmd_check(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import mcl_check  # the pipeline: when a command runs, not at startup

    checked = mcl_check(args.path)
    print(f"{args.path}: ok — {len(checked.typing.types)} expressions typed")
    return 0


def cmd_graph(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import mcl_compile, mcl_graph_text, mcl_output_json

    if args.format == "png" and not args.output:
        raise CfUsageError("a PNG needs an output file (-o FILE.png)")
    progress = progress_of(args)
    progress(f"compiling {args.path}")
    compiled = mcl_compile(args.path, facts_from_args(args))
    progress(f"writing {args.output or 'the graph'}")
    if args.format == "text":
        data = mcl_graph_text(compiled.graph).encode("utf-8")
    elif args.format == "json":
        data = mcl_output_json(compiled).encode("utf-8")
    else:  # the resource graph's own writers (cfmodel graph)
        fmt = "json" if args.format == "model-json" else args.format
        data = render_graph(compiled.graph, fmt, argparse.Namespace(no_legend=args.no_legend))
    if args.output:
        write_bytes(Path(args.output), data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import mcl_main_file, mcl_parse

    sys.stdout.write(dump_node(mcl_parse(mcl_main_file(args.path))))
    return 0


def cmd_fmt(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import mcl_format, mcl_main_file

    path = mcl_main_file(args.path)
    text = mcl_grammar.read_source(path, str(path))
    formatted = mcl_format(text, str(path))
    if args.check:
        if formatted != text:
            print(f"{path}: would reformat", file=sys.stderr)
            return 1
        return 0
    if args.write:
        if formatted != text:
            write_bytes(path, formatted.encode("utf-8"))
        return 0
    sys.stdout.write(formatted)
    return 0


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser("mcl", help="mgmt's language: check, graph, fmt, parse")
    mcl_sub = parser.add_subparsers(dest="mcl_command", metavar="COMMAND")
    mcl_sub.required = True
    help_path = "a .mcl file, or a directory with main.mcl or metadata.yaml"

    p = mcl_sub.add_parser("check", help="parse, resolve and type-check a program")
    p.add_argument("path", metavar="PATH", help=help_path)
    p.set_defaults(func=with_carets(cmd_check))

    p = mcl_sub.add_parser("graph", help="the resource graph a program produces")
    p.add_argument("path", metavar="PATH", help=help_path)
    p.add_argument(
        "--format",
        choices=GRAPH_FORMATS,
        default="text",
        help="text (mgmt's Vertex/Edge lines), json (resources with their mcl values), a picture "
        "(dot, svg, png), the graph model (xmi, model-json) or mgmt's yamlgraph",
    )
    p.add_argument("--no-legend", action="store_true", help="pictures: leave out the legend of edge kinds")
    p.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of stdout")
    p.add_argument(
        "--fact", metavar="K=V", action="append", default=[], help="a fact (repeatable; value read as YAML)"
    )
    p.add_argument("--facts", metavar="FILE", help="facts from a JSON or YAML mapping")
    p.set_defaults(func=with_carets(cmd_graph))

    p = mcl_sub.add_parser("fmt", help="the canonical formatting of a program (comments kept)")
    p.add_argument("path", metavar="PATH", help=help_path)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when the file is not formatted")
    mode.add_argument("--write", action="store_true", help="rewrite the file in place (atomically)")
    p.set_defaults(func=with_carets(cmd_fmt))

    p = mcl_sub.add_parser("parse", help="the syntax tree of one .mcl file")
    p.add_argument("path", metavar="PATH", help=help_path)
    p.set_defaults(func=with_carets(cmd_parse))
