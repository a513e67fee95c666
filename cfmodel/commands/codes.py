"""``cfmodel explain-code CODE``: what an error code means (from `cfmodel.errorcodes`).

``explain-code CODE`` prints the code, its category and its one-line description;
``--list`` prints every code with its category; ``--markdown`` prints the text of
``docs/error-codes.md``. An unknown code is a usage error (exit 2) that names the
closest registered codes.
"""

from __future__ import annotations

import argparse
import difflib
import sys

from cfmodel import errorcodes
from cfmodel.commands import SubParsers
from cfmodel.errors import CfUsageError

ORDER = 90


def cmd_explain(args: argparse.Namespace) -> int:
    if args.markdown:
        sys.stdout.write(errorcodes.markdown())
        return 0
    if args.list:
        width = max(len(code) for code in errorcodes.CODES)
        for code in sorted(errorcodes.CODES):
            listed = errorcodes.CODES[code]
            print(f"{code.ljust(width)}  {listed.category.value:<16}  {listed.description}")
        return 0
    if args.code is None:
        raise CfUsageError("give a CODE (or --list, --markdown)")
    code = args.code.strip().strip("[]")
    entry = errorcodes.lookup(code)
    if entry is None:
        close = difflib.get_close_matches(code, errorcodes.CODES, n=3)
        hint = f"did you mean {', '.join(close)}?" if close else "`cfmodel explain-code --list` lists them"
        raise CfUsageError(f"unknown error code {code!r}; {hint}")
    sys.stdout.write(entry.explain())
    return 0


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("explain-code", parents=[common], help="what an error code (e.g. not-set) means")
    p.add_argument("code", metavar="CODE", nargs="?")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--list", action="store_true", help="list every error code")
    shown.add_argument("--markdown", action="store_true", help="print docs/error-codes.md")
    p.set_defaults(func=cmd_explain)
