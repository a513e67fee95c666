"""``cfmodel export PROJECT -o FILE``: the resources a model deploys, as ``inmanta export -j`` writes them.

Compiles the project (as ``cfmodel compile`` does: same request options), makes the
resources its modules register (the façade's `export` step, `cfmodel.transforms.cf.export`) and writes the
desired-state document: a JSON list, one object per resource with its fields, ``id`` and
``requires``, sorted by id (docs/compiler.md, "Resources and export"). The file is
replaced atomically; ``-o -`` writes to standard output. The summary (resources, and the
ones with unknown values) goes to stderr.
"""

from __future__ import annotations

import argparse
import sys

from cfmodel.commands import SubParsers
from cfmodel.commands._options import add_project_argument, add_request_options, progress_of
from cfmodel.commands.compile import _done, _warnings, compile_from_args

ORDER = 25


def cmd_export(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import export
    from cfmodel.serializers.atomic import write_bytes

    result = compile_from_args(args)
    _warnings(result, args)
    progress_of(args)("exporting the resources")
    exported = export(result)
    for problem in exported.problems:
        print(f"warning: {problem}", file=sys.stderr)
    data = exported.json_bytes()
    if args.output == "-":
        sys.stdout.buffer.write(data)
    else:
        write_bytes(args.output, data)
    undefined = f", {len(exported.undefined)} with unknown values" if exported.undefined else ""
    print(f"{result.name}: {len(exported.resources)} resources{undefined}", file=sys.stderr)
    return _done()


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "export", parents=[common], help="compile, then write the resources (inmanta export -j's format)"
    )
    add_project_argument(p)
    add_request_options(p)
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the JSON file ('-': stdout)")
    p.set_defaults(func=cmd_export)
