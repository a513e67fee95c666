"""``cfmodel parse`` and ``cfmodel check``: the frontend on its own (parse, load, resolve)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cfmodel.commands import SubParsers
from cfmodel.commands._options import (
    add_format_option,
    add_project_argument,
    parse_cache,
    print_warning,
    progress_of,
)
from cfmodel.dump import dump_module
from cfmodel.errors import Diagnostic, Severity, Span
from cfmodel.grammars.frontend import read_source
from cfmodel.project import parse_file

ORDER = 10


def cmd_parse(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if path.suffix in (".bind", ".cfenv"):
        return _parse_model(path, args)
    text = read_source(path, args.file, ".cf file")
    if not text.strip():
        warning = Diagnostic(Span(args.file, 1, 1, 1, 1), "file is empty", "empty-file", Severity.WARNING)
        print(warning.render(), file=sys.stderr)
    tree = parse_file(path, args.file, parse_cache(args))
    if args.format == "xmi":
        from cfmodel.pipeline import syntax_xmi  # not at startup (see commands/compile.py)

        sys.stdout.flush()
        sys.stdout.buffer.write(syntax_xmi(tree))
        return 0
    sys.stdout.write(dump_module(tree))
    return 0


def _parse_model(path: Path, args: argparse.Namespace) -> int:
    """A bindings (``.bind``) or environments (``.cfenv``) file: its tree is already a
    model of a fixed metamodel (``bindings``, ``environments``); xmi writes it, text
    prints its canonical dump."""
    from cfmodel.pipeline import syntax_model, syntax_model_dump, syntax_model_xmi  # not at startup

    root = syntax_model(path, args.file)
    if args.format == "xmi":
        sys.stdout.flush()
        sys.stdout.buffer.write(syntax_model_xmi(root))
    else:
        sys.stdout.write(syntax_model_dump(root))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Load, parse and resolve (names, types, relations) a project; nothing is evaluated."""
    from cfmodel.pipeline import check

    progress = progress_of(args)
    checked = check(args.project, parse_cache(args), progress if progress.enabled else None)
    project, elapsed, modules = checked.project, checked.seconds, checked.modules
    for warning in checked.program.warnings:
        print_warning(warning, args)
    if args.format == "json":
        document = {
            "project": project.name,
            "ok": True,
            "files": len(project.namespaces),
            "lines": project.total_lines,
            "namespaces": sorted(project.namespaces),
            "modules": {
                name: project.modules[name].describe() for name in modules if name in project.modules
            },
            "notes": list(project.notes),
            "seconds": round(elapsed, 3),
        }
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return 0
    print(
        f"{project.name}: ok — {len(project.namespaces)} files, {project.total_lines} lines, "
        f"modules: {', '.join(modules)} ({elapsed:.2f} s)"
    )
    for name in modules:
        if name in project.modules:
            print(f"  module {project.modules[name].describe()}")
    for note in project.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "parse", parents=[common], help="print the syntax tree of one .cf (.bind, .cfenv) file"
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--format",
        choices=["text", "xmi"],
        default="text",
        help="text: the canonical dump (default); xmi: the tree as a model (program.ecore; "
        "bindings and environments files: their own metamodels)",
    )
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser(
        "check", parents=[common], help="parse and resolve a project and every module it imports"
    )
    add_project_argument(p)
    add_format_option(p)
    p.set_defaults(func=cmd_check)
