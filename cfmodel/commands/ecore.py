"""``cfmodel ecore export`` and ``cfmodel ecore import``: the derived metamodel as ``.ecore``.

``export PROJECT -o DIR`` resolves and lifts a project (nothing is evaluated) and writes
one ``<package>.ecore`` per root package (a module, its namespaces nested) into DIR,
each file replaced atomically after all of them were made. ``import X.ecore... -o DIR``
turns EMF metamodels into a project of ``.cf`` definitions in DIR (``project.yml``,
``main.cf``, ``libs/<module>/…``); it refuses to overwrite a file with other content
unless ``--force`` is given. Mapping and annotations: docs/metamodel.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cfmodel.commands import SubParsers
from cfmodel.commands._options import add_project_argument, output_directory, parse_cache, progress_of

ORDER = 60


def cmd_export(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import check, lift

    output = output_directory(args.output)
    progress = progress_of(args)
    checked = check(args.project, parse_cache(args), progress if progress.enabled else None)
    for warning in checked.program.warnings:
        print(warning.render(), file=sys.stderr)
    progress("lifting the metamodel")
    metamodel = lift(checked.program, uri_base=args.uri_base, spans=args.spans)
    progress(f"writing {output}")
    for path in metamodel.write(output):
        print(path)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import import_ecore

    uri_map = dict(args.uri_map or [])
    for path in import_ecore(
        [Path(f) for f in args.files], output_directory(args.output), args.name, args.force, uri_map
    ):
        print(path)
    return 0


def _uri_mapping(text: str) -> tuple[str, str]:
    """``PREFIX=TARGET``; a TARGET that is a path is taken from the current directory."""
    prefix, sep, target = text.partition("=")
    if not sep or not prefix or not target:
        raise argparse.ArgumentTypeError(f"expected PREFIX=TARGET, got {text!r}")
    if ":" not in target.split("/", 1)[0]:
        target = os.path.abspath(target) + ("/" if target.endswith("/") else "")
    return prefix, target


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    ecore = sub.add_parser("ecore", help="Ecore: export a project's derived metamodel, import EMF metamodels")
    ecore_sub = ecore.add_subparsers(dest="ecore_command", metavar="COMMAND")
    ecore_sub.required = True

    p = ecore_sub.add_parser("export", parents=[common], help="write the project's metamodel as .ecore files")
    add_project_argument(p)
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="directory to write into")
    p.add_argument("--spans", action="store_true", help="record source positions as annotations")
    p.add_argument("--uri-base", metavar="URI", help="nsURI base (default http://cfmodel.org/model/)")
    p.set_defaults(func=cmd_export)

    p = ecore_sub.add_parser("import", parents=[common], help="turn .ecore metamodels into .cf definitions")
    p.add_argument("files", metavar="FILE", nargs="+", help=".ecore files (read together)")
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="project directory to write")
    p.add_argument("--name", help="project name for project.yml (default: the file's or directory's name)")
    p.add_argument("--force", action="store_true", help="overwrite files that differ")
    p.add_argument(
        "--uri-map",
        metavar="PREFIX=TARGET",
        action="append",
        type=_uri_mapping,
        help="read metamodels referred to by URI from TARGET (platform:/resource/=../ws/); repeatable",
    )
    p.set_defaults(func=cmd_import)
