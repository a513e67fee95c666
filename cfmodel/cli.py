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
import traceback
from collections.abc import Sequence

from cfmodel import __version__
from cfmodel.commands import Command, command_modules
from cfmodel.errors import CfModelError, CfUsageError

EXIT_OK, EXIT_USER_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


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
    for module in command_modules():
        module.register(sub, common)
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
