"""``cfmodel diff A [B]``: what differs between two models, with ``diff``'s exit codes.

A side is a project directory (compiled for its request: ``--fact``/``--facts``/
``--environment`` for both sides, ``--left-fact``/``--right-fact``/``--left-environment``/
``--right-environment`` for one), an instance model file (``.xmi``/``.json``; the ``.ecore``
files beside it, or given with ``--ecore``, are its metamodel), a resource graph file
(``.xmi``/``.json`` of the graph metamodel, mgmt's ``.yaml``). Without B, A is compared with
itself under the other side's request (``cfmodel diff shop --left-fact env=prod
--right-fact env=staging``). Output: ``--format text`` (default; colour only on a terminal,
``--color`` overrides), ``json``, ``html`` (a self-contained page), ``xmi`` (the differences model,
``cfmodel.metamodel.diff``), on stdout or ``-o FILE``.

Exit codes, as ``diff``'s: 0 equal, 1 different, 2 trouble (an input that cannot be read or
compiled: its errors are printed as usual, ``file:line:col: error: …``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cfmodel.commands import SubParsers
from cfmodel.commands._options import facts_from_args, parse_cache, progress_of
from cfmodel.errors import CfModelError, CfUsageError

ORDER = 47

EXIT_EQUAL, EXIT_DIFFERENT, EXIT_TROUBLE = 0, 1, 2


def cmd_diff(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except CfUsageError as error:
        print(f"cfmodel: {error.message}", file=sys.stderr)
        return EXIT_TROUBLE
    except CfModelError as error:
        print(error.render(), file=sys.stderr)
        return EXIT_TROUBLE


def _run(args: argparse.Namespace) -> int:
    from cfmodel.commands._sides import load_side
    from cfmodel.pipeline import comparison_text, diff
    from cfmodel.serializers import atomic

    right_source = args.right if args.right is not None else args.left
    if args.right is None and not _request_differs(args):
        raise CfUsageError(
            "one model compared with itself: give B, or --left-…/--right-… options that differ"
        )
    progress = progress_of(args)
    shown = progress if progress.enabled else None
    progress(f"reading {args.left}")
    left = load_side(args.left, _request(args, "left"), args.ecore, parse_cache(args), shown)
    progress(f"reading {right_source}")
    right = load_side(right_source, _request(args, "right"), args.ecore, parse_cache(args), shown)
    progress("comparing")
    comparison = diff(left, right, _label(args.left, args, "left"), _label(right_source, args, "right"))
    progress("writing the differences")
    if args.format == "xmi":
        from cfmodel.serializers import xmi

        data = xmi.to_bytes([comparison.to_ecore()])
    else:
        color = args.color == "always" or (args.color == "auto" and not args.output and sys.stdout.isatty())
        data = comparison_text(comparison, args.format, color=color).encode("utf-8")
    if args.output:
        atomic.write_bytes(args.output, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return EXIT_EQUAL if comparison.equal else EXIT_DIFFERENT


def _request_differs(args: argparse.Namespace) -> bool:
    return bool(args.left_fact or args.right_fact or args.left_environment or args.right_environment)


def _request(args: argparse.Namespace, side: str) -> dict[str, Any]:
    """The facts and environment of one side: the shared options, then the side's own."""
    facts = facts_from_args(args)
    own = argparse.Namespace(facts=None, fact=getattr(args, f"{side}_fact"))
    facts.update(facts_from_args(own))
    environment = getattr(args, f"{side}_environment") or args.environment
    return {"facts": facts, "environment": environment}


def _label(source: str, args: argparse.Namespace, side: str) -> str:
    details = [f"{f}" for f in getattr(args, f"{side}_fact")]
    if getattr(args, f"{side}_environment"):
        details.append(f"environment={getattr(args, f'{side}_environment')}")
    return f"{source} ({', '.join(details)})" if details else source


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "diff",
        parents=[common],
        help="what differs between two models (exit 0 equal, 1 different, 2 trouble)",
    )
    p.add_argument(
        "left", metavar="A", help="a project, an instance model (.xmi/.json) or a resource graph file"
    )
    p.add_argument(
        "right", metavar="B", nargs="?", help="the same kinds (default: A again, for another request)"
    )
    p.add_argument(
        "--format", choices=("text", "json", "html", "xmi"), default="text", help="output format (text)"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour text (auto: on a terminal)",
    )
    p.add_argument(
        "--ecore", metavar="FILE", action="append", default=[], help="a metamodel of the .xmi/.json sides"
    )
    group = p.add_argument_group("requests (project sides)")
    group.add_argument("--fact", metavar="K=V", action="append", default=[], help="a fact for both sides")
    group.add_argument("--facts", metavar="FILE", help="facts for both sides (JSON or YAML)")
    group.add_argument("--environment", metavar="NAME", help="the environment both sides ask for")
    for side in ("left", "right"):
        group.add_argument(
            f"--{side}-fact", metavar="K=V", action="append", default=[], help=f"a fact for {side} only"
        )
        group.add_argument(f"--{side}-environment", metavar="NAME", help=f"the environment {side} asks for")
    p.set_defaults(func=cmd_diff)
