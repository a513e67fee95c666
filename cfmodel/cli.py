"""The ``cfmodel`` command line.

Exit codes: 0 ok, 1 a problem with the user's input (reported as
``file:line:col: error: ...``), 2 wrong usage of the command, 3 an internal error
(a bug in cfmodel: reported as such, with the traceback only when
``CFMODEL_DEBUG`` is set).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from cfmodel import __version__
from cfmodel.cache import ParseCache
from cfmodel.dump import dump_module
from cfmodel.errors import CfModelError, CfUsageError, Diagnostic, Severity, Span
from cfmodel.project import load_project, parse_file, read_source

EXIT_OK, EXIT_USER_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

Command = Callable[[argparse.Namespace], int]


def _cache(args: argparse.Namespace) -> ParseCache | None:
    if args.no_cache:
        return None
    return ParseCache(Path(args.cache_dir) if args.cache_dir else None)


def cmd_parse(args: argparse.Namespace) -> int:
    path = Path(args.file)
    text = read_source(path, args.file)
    if not text.strip():
        warning = Diagnostic(Span(args.file, 1, 1, 1, 1), "file is empty", "empty-file", Severity.WARNING)
        print(warning.render(), file=sys.stderr)
    tree = parse_file(path, args.file, _cache(args))
    sys.stdout.write(dump_module(tree))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    project = load_project(args.project, _cache(args))
    elapsed = time.perf_counter() - started
    modules = sorted({name.split("::")[0] for name in project.namespaces} - {"__config__"})
    print(
        f"{project.name}: ok — {len(project.namespaces)} files, {project.total_lines} lines, "
        f"modules: {', '.join(modules)} ({elapsed:.2f} s)"
    )
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cfmodel", description="Declarative infrastructure configuration models, the model-driven way."
    )
    parser.add_argument("--version", action="version", version=f"cfmodel {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache")
    common.add_argument("--cache-dir", metavar="DIR", help="where the parse cache lives")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("parse", parents=[common], help="print the syntax tree of one .cf file")
    p.add_argument("file", metavar="FILE")
    p.set_defaults(func=cmd_parse)

    p = sub.add_parser("check", parents=[common], help="parse a project and every module it imports")
    p.add_argument(
        "project", metavar="PROJECT", nargs="?", default=".", help="project directory (default: .)"
    )
    p.set_defaults(func=cmd_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Command = args.func
    try:
        return func(args)
    except CfUsageError as error:
        print(f"cfmodel: {error.message}", file=sys.stderr)
        return EXIT_USAGE
    except CfModelError as error:
        print(error.render(), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("cfmodel: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:  # a bug in cfmodel, not in the user's input
        print(f"cfmodel: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        if os.environ.get("CFMODEL_DEBUG"):
            traceback.print_exc()
        else:
            print(
                "cfmodel: this is a bug; set CFMODEL_DEBUG=1 for details and please report it",
                file=sys.stderr,
            )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
