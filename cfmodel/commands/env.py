"""``cfmodel env list`` and ``cfmodel env which``: the environments of a project, and why one.

``env list [PROJECT]`` shows every environment known now (static, dynamic, the automatic
``production``) with its resolved paths; a path that does not exist is marked ``(missing)``.
``env which [PROJECT] --fact K=V ... [--environment NAME]`` runs the request sequence
(`cfmodel.pipeline.request_sequence`) and prints its chain step by step, then the selected
environment. Both take ``--export FILE`` (``.xmi`` or ``.json``): the catalog or the whole
request as a model of the ``environments`` package. Paths inside the current directory are
shown relative to it.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfmodel.commands import SubParsers
from cfmodel.commands._options import (
    add_format_option,
    add_project_argument,
    add_request_options,
    facts_from_args,
    print_warning,
    project_dir,
)

if TYPE_CHECKING:
    from cfmodel.pipeline import ModelExport

ORDER = 45

# The pipeline (and through it the transforms) is imported when a command runs, not when
# the CLI starts: every command module is imported for `cfmodel --help`, and `cfmodel
# parse` needs none of this.


def cmd_list(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import environments, environments_model

    evaluation = environments(project_dir(args), facts_from_args(args), args.environment)
    catalog = evaluation.catalog
    for diagnostic in evaluation.diagnostics:
        print_warning(diagnostic, args)
    if args.format == "json":
        print(json.dumps(_catalog_data(catalog), indent=2, ensure_ascii=False))
        if args.export:
            _export(Path(args.export), environments_model(evaluation))
        return 0
    source = _shown(catalog.file) if catalog.has_file else f"no {catalog.file.name}: production only"
    print(f"environments of {_shown(catalog.confdir)} ({source}):")
    width = max(len(name) for name in catalog.environments)
    for env in catalog.environments.values():
        print(f"  {env.name.ljust(width)}  {env.kind.value:<9}  {_relative(env.origin)}")
        for label, paths in _paths(env):
            for i, path in enumerate(paths):
                mark = "" if path.exists() else "  (missing)"
                print(f"      {label if i == 0 else '':<12} {_shown(path)}{mark}")
    if catalog.shadowed:
        hidden, where = ", ".join(catalog.shadowed), _shown(catalog.dynamic_dir)
        print(f"note: declared environments hide these sub-directories of {where}: {hidden}")
    if args.export:
        _export(Path(args.export), environments_model(evaluation))
    return 0


def cmd_which(args: argparse.Namespace) -> int:
    from cfmodel.pipeline import environments_model, request_sequence

    classifier = shlex.split(args.classifier) if args.classifier else None
    result = request_sequence(
        project_dir(args), facts_from_args(args), args.environment, classifier=classifier
    )
    for diagnostic in result.warnings:
        if args.format == "json":
            print_warning(diagnostic, args)
        else:
            print(_relative(diagnostic.render()), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(_request_data(result), indent=2, ensure_ascii=False))
    else:
        print(_relative(result.explain()))
        print(f"environment: {result.environment.name}")
    if args.export:
        _export(Path(args.export), environments_model(result))
    return 0


def _catalog_data(catalog: Any) -> dict[str, Any]:
    """``env list --format json``: every environment with its paths (and whether each exists)."""
    return {
        "confdir": _shown(catalog.confdir),
        "file": _shown(catalog.file) if catalog.has_file else None,
        "environments": [
            {
                "name": env.name,
                "kind": env.kind.value,
                "origin": _relative(str(env.origin)),
                **{
                    label: [_path_data(p) for p in paths] if label == "modulepath" else _path_data(paths[0])
                    for label, paths in _paths(env)
                },
            }
            for env in catalog.environments.values()
        ],
        "shadowed": list(catalog.shadowed),
    }


def _path_data(path: Path | None) -> dict[str, Any]:
    return {"path": _shown(path), "exists": path is not None and path.exists()}


def _request_data(result: Any) -> dict[str, Any]:
    """``env which --format json``: the chain, the selected environment and its compile target."""
    target = result.target
    return {
        "environment": result.environment.name,
        "steps": [
            {
                "step": step.name,
                "message": _relative(step.message),
                "location": _relative(step.span.start()) if step.span is not None else None,
            }
            for step in result.steps
        ],
        "target": {
            "project_dir": _shown(target.project_dir),
            "main": _shown(target.main),
            "module_path": [_shown(p) for p in target.module_path],
        },
    }


def _paths(env: Any) -> list[tuple[str, list[Path]]]:
    return [
        ("envdir", [env.envdir]),
        ("main", [env.main]),
        ("modulepath", list(env.module_path)),
        ("bindingsdir", [env.bindings_dir]),
        ("templatedir", [env.template_dir]),
    ]


def _shown(path: Path | None) -> str:
    """A path relative to the current directory when inside it, else absolute."""
    if path is None:
        return ""
    here = os.path.abspath(".")
    full = os.path.abspath(path)
    if full == here:
        return "."
    if full.startswith(here + os.sep):
        return os.path.relpath(full, here)
    return full


def _relative(text: str) -> str:
    """Paths inside the current directory, shown relative to it."""
    return text.replace(os.path.abspath(".") + os.sep, "")


def _export(target: Path, model: ModelExport) -> None:
    model.write(target, lambda name: f"--export writes a model (.xmi or .json), not {name}")


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    env = sub.add_parser("env", help="environments: list them, explain which one a request selects")
    actions = env.add_subparsers(dest="env_command", metavar="ACTION")
    actions.required = True

    p = actions.add_parser(
        "list", parents=[common], help="every environment (static, dynamic, automatic) with resolved paths"
    )
    add_project_argument(p)
    add_request_options(p)
    p.add_argument("--export", metavar="FILE", help="write the catalog as a model (.xmi or .json)")
    add_format_option(p)
    p.set_defaults(func=cmd_list)

    p = actions.add_parser(
        "which", parents=[common], help="which environment a request's facts select, and why (step by step)"
    )
    add_project_argument(p)
    add_request_options(p)
    p.add_argument(
        "--classifier",
        metavar="COMMAND",
        help="an external node classifier: COMMAND <node> prints YAML (environment, classes, parameters); "
        "default: the one project.yml configures (bindings: {enc: ...})",
    )
    p.add_argument("--export", metavar="FILE", help="write the request as a model (.xmi or .json)")
    add_format_option(p)
    p.set_defaults(func=cmd_which)
