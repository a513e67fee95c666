"""``cfmodel diagram``: a project's derived metamodel as a class diagram, or its instances.

``diagram [PROJECT] [-o FILE]`` resolves and lifts the project (nothing is evaluated) and
draws its metamodel: a cluster per namespace, each entity with its attributes and types,
relations with both ends' names and multiplicities, inheritance; ``std`` is left out unless
``--std``. PROJECT may also be an ``.ecore`` file (any EMF metamodel). ``--instances``
compiles the project for the request (``--fact``, ``--facts``, ``--environment``) and draws
its objects and their relations (at most ``--max-objects``, default 300). The format is the
extension of ``-o`` (``.dot``, ``.svg``, ``.png``) or ``--format``; without ``-o`` the DOT
text goes to stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cfmodel.commands import SubParsers
from cfmodel.commands._options import add_project_argument, add_request_options, parse_cache
from cfmodel.errors import CfUsageError

ORDER = 46

FORMATS = ("dot", "svg", "png")


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    if not args.output:
        return "dot"
    suffix = Path(args.output).suffix.lower().lstrip(".")
    if suffix == "gv":
        return "dot"
    if suffix not in FORMATS:
        raise CfUsageError(f"cannot tell the format of {args.output!r} (.dot, .svg, .png); use --format")
    return suffix


def cmd_diagram(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import class_diagram, instance_diagram
    from cfmodel.serializers import atomic, dot

    fmt = _format(args)
    if fmt == "png" and not args.output:
        raise CfUsageError("a PNG needs an output file (-o FILE.png)")
    source = Path(args.project)
    if args.instances:
        if source.suffix.lower() == ".ecore":
            raise CfUsageError("--instances needs a project, not an .ecore file")
        from cfmodel.commands.compile import compile_from_args

        result = compile_from_args(args)
        picture = instance_diagram(result.model, result.id_of, args.max_objects, title=result.name)
    elif source.suffix.lower() == ".ecore" and source.is_file():
        from cfmodel.serializers import ecore

        packages = ecore.read(source).roots
        picture = class_diagram(packages, include_std=True, title=source.stem)
    else:
        from cfmodel.pipeline import check, lift

        program = check(source, parse_cache(args)).program
        for warning in program.warnings:
            print(warning.render(), file=sys.stderr)
        picture = class_diagram(lift(program).packages, include_std=args.std, title=program.name)
    data = picture.dot.encode("utf-8") if fmt == "dot" else dot.render(picture.dot, fmt)
    if args.output:
        atomic.write_bytes(args.output, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "diagram", parents=[common], help="draw the derived metamodel (class diagram) or the instances"
    )
    add_project_argument(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write here (.dot .svg .png)")
    p.add_argument("--format", choices=FORMATS, help="output format (default: by -o's extension, else dot)")
    p.add_argument("--instances", action="store_true", help="compile the project and draw its objects")
    p.add_argument("--std", action="store_true", help="also draw the std namespace")
    p.add_argument(
        "--max-objects", type=int, default=300, metavar="N", help="instances: at most N objects (300)"
    )
    add_request_options(p)
    p.set_defaults(func=cmd_diagram)
