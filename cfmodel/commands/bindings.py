"""``cfmodel bindings show|inject|explain``: a project's bindings (ARM-8) for one request.

``show [PROJECT]`` prints the effective bindings (``--format json`` for tools; ``--export
FILE`` writes them as an ``EffectiveBindings`` model, ``--export-model FILE`` the bindings
models that were loaded, both ``.xmi`` or ``.json``). ``inject KEY [PROJECT]`` prints one
value: a string, number or boolean as is, an array or hash as JSON (``--type`` for a typed
lookup; ``--merge`` and the deep merge flags force a Hiera merge for the key, as ``puppet
lookup`` does). ``explain KEY [PROJECT]`` prints where the value comes from: the layers and
categories consulted, every binding of the key with its status and position, merge steps
and provider notes (the counterpart of ``puppet lookup --explain``).

The request: facts from ``--fact k=v`` (repeatable) and ``--facts FILE``; ``--environment
NAME`` is the environment the caller asks for (``$agent_environment``). The request sequence
(`cfmodel.pipeline.bindings_request`, docs/environments.md: classifier,
``environments.cfenv``, selection, categories, injector) decides which environment's bindings
are composed: its ``site.bind``, its ``bindingsdir`` (``confdir:``), its module path
(``module:``) and its ``project.yml``; the ``environment`` category is the selected
environment (a fact ``environment`` only asks for one, as ``--environment`` does). Its
warnings (``environment-not-applied`` ...) are printed to stderr. A folder with neither an
``environments.cfenv`` nor a ``main.cf`` holds bindings only: nothing there could be compiled
(the sequence ends with the main file), so it is composed as its automatic ``production``
environment would be, with the same facts and warning.

Errors are printed as ``file:line:col: error: ...  [code]`` with exit code 1.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfmodel.commands import SubParsers
from cfmodel.commands._options import (
    add_format_option,
    add_project_argument,
    add_request_options,
    facts_from_args,
    print_warning,
)
from cfmodel.errors import CfUsageError, Severity

if TYPE_CHECKING:  # the pipeline (and through it the bindings engine) is imported when a command runs
    from cfmodel.pipeline import BindingsRequest

ORDER = 40
_DEEP_FLAGS = "--knock-out-prefix, --sort-merged-arrays and --merge-hash-arrays"


def _merges(args: argparse.Namespace) -> dict[str, Any]:
    from cfmodel.pipeline import forced_merge

    strategy = getattr(args, "merge", None)
    deep_flags = args.knock_out_prefix is not None or args.sort_merged_arrays or args.merge_hash_arrays
    if strategy is None:
        if deep_flags:
            raise CfUsageError(f"{_DEEP_FLAGS} need --merge deep")
        return {}
    spec: dict[str, Any] = {"strategy": strategy}
    if deep_flags and strategy != "deep":
        raise CfUsageError(f"{_DEEP_FLAGS} need --merge deep")
    if args.knock_out_prefix is not None:
        spec["knockout_prefix"] = args.knock_out_prefix
    if args.sort_merged_arrays:
        spec["sort_merged_arrays"] = True
    if args.merge_hash_arrays:
        spec["merge_hash_arrays"] = True
    return forced_merge(args.key, spec)


def _request(
    args: argparse.Namespace, merges: dict[str, Any] | None = None, lenient: bool = False
) -> BindingsRequest:
    """The bindings step (`pipeline.bindings_request`) for the command's project, facts and
    ``--environment``, its warnings printed.

    ``lenient`` (``inject``, ``explain``): bindings errors do not stop the request; they are
    printed as warnings, and only a lookup of a key they concern fails (with them)."""
    from cfmodel.pipeline import bindings_request

    agent = getattr(args, "environment", None)
    request = bindings_request(
        Path(args.project), facts_from_args(args), agent, merges=merges, lenient=lenient
    )
    for warning in request.warnings:
        print_warning(warning, args)
    return request


def _key_of_lookup(args: argparse.Namespace) -> tuple[str, str | None]:
    return (args.type, args.key) if args.type else (args.key, None)


def _warn_other_problems(injector: Any, args: argparse.Namespace) -> None:
    """A lenient request's errors that do not concern the key looked up, as warnings."""
    own = {id(d) for d in injector.problems_of(*_key_of_lookup(args))}
    for problem in injector.problems:
        if id(problem) not in own:
            print_warning(replace(problem, severity=Severity.WARNING), args)


def cmd_show(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import bindings_models, effective_bindings_model

    request = _request(args)
    injector = request.injector
    if args.format == "json":
        print(json.dumps(_show_data(request), indent=2, ensure_ascii=False, default=str))
    else:
        print(request)
    if args.export:
        path = Path(args.export)
        effective_bindings_model(injector).write(path, _refused(path))
    if args.export_model:
        path = Path(args.export_model)
        bindings_models(injector).write(path, _refused(path))
    return 0


def _refused(path: Path) -> Any:
    return lambda name: f"{path}: export as .xmi or .json (not {name})"


def _show_data(request: BindingsRequest) -> dict[str, Any]:
    from cfmodel.pipeline import bindings_value_json

    injector = request.injector
    return {
        "environment": request.environment,
        "layers": list(injector.layer_names),
        "categories": {name: value for name, _, value in injector.category_values()},
        "classes": injector.classes(),
        "bindings": [
            {
                "type": b.key.namespace,
                "name": b.key.name,
                "value": None if b.lazy else bindings_value_json(b.value),
                "kind": b.kind,
                "origin": b.origin,
                "layer": b.layer,
                "category": b.category,
                "location": b.span.start() if b.span is not None else None,
            }
            for b in injector.effective()
        ],
    }


def cmd_inject(args: argparse.Namespace) -> int:
    injector = _request(args, _merges(args), lenient=True).injector
    _warn_other_problems(injector, args)
    value = injector.inject(*_key_of_lookup(args))
    if args.format == "json":
        from cfmodel.pipeline import bindings_value_json

        document = {"key": args.key, "type": args.type or "Data", "value": bindings_value_json(value)}
        print(json.dumps(document, indent=2, ensure_ascii=False, default=str))
    else:
        print(render_value(value))
    return 0


def render_value(value: Any) -> str:
    """A value for the terminal: a string, number or boolean as is, undef as ``null``, an array or
    hash as JSON."""
    from cfmodel.pipeline import bindings_value_text

    return bindings_value_text(value)


def cmd_explain(args: argparse.Namespace) -> int:
    injector = _request(args, _merges(args), lenient=True).injector
    _warn_other_problems(injector, args)
    explanation = injector.explain(*_key_of_lookup(args))
    if args.format == "json":
        print(json.dumps(_explanation_data(explanation), indent=2, ensure_ascii=False))
    else:
        print(explanation.render())
    return 1 if explanation.problems else 0


def _explanation_data(explanation: Any) -> dict[str, Any]:
    """``explain --format json``: what ``render()`` says, as data."""

    def location(span: Any) -> str | None:
        return span.start() if span is not None else None

    return {
        "key": explanation.key,
        "value": explanation.value,
        "layers": list(explanation.layers),
        "categories": dict(explanation.categories),
        "candidates": [
            {
                "status": c.status,
                "where": c.where,
                "location": location(c.span),
                "kind": c.kind,
                "value": c.value,
                "notes": list(c.notes),
            }
            for c in explanation.candidates
        ],
        "merge_steps": [
            {
                "where": step.where,
                "location": location(step.span),
                "contribution": step.contribution,
                "result": step.result,
            }
            for step in explanation.merge_steps
        ],
        "problems": [problem.to_json() for problem in explanation.problems],
        "traces": [{"title": title, "lines": list(lines)} for title, lines in explanation.traces],
    }


def _lookup_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", metavar="KEY", help="the name to look up")
    add_project_argument(parser)
    add_request_options(parser)
    parser.add_argument(
        "--type", metavar="TYPE", help="a typed lookup: Integer, Array[String], int, string[] ..."
    )
    add_format_option(parser)
    group = parser.add_argument_group("hiera merges (for KEY, as puppet lookup)")
    group.add_argument("--merge", choices=["first", "unique", "hash", "deep"], help="force a merge behaviour")
    group.add_argument(
        "--knock-out-prefix", metavar="PREFIX", help="deep merge: the knockout prefix (--knock-out-prefix=--)"
    )
    group.add_argument("--sort-merged-arrays", action="store_true", help="deep merge: sort merged arrays")
    group.add_argument("--merge-hash-arrays", action="store_true", help="deep merge: merge arrays of hashes")


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "bindings", parents=[common], help="a project's bindings for one request: show, inject, explain"
    )
    commands = parser.add_subparsers(dest="bindings_command", metavar="COMMAND")
    commands.required = True

    p = commands.add_parser("show", parents=[common], help="print the effective bindings")
    add_project_argument(p)
    add_request_options(p)
    p.add_argument("--format", choices=["text", "json"], default="text", help="output format (default: text)")
    p.add_argument("--export", metavar="FILE", help="write the effective bindings as a model (.xmi or .json)")
    p.add_argument("--export-model", metavar="FILE", help="write the loaded bindings models (.xmi or .json)")
    p.set_defaults(func=cmd_show)

    p = commands.add_parser("inject", parents=[common], help="print the value bound to KEY")
    _lookup_options(p)
    p.set_defaults(func=cmd_inject)

    p = commands.add_parser("explain", parents=[common], help="explain where the value of KEY comes from")
    _lookup_options(p)
    p.set_defaults(func=cmd_explain)
