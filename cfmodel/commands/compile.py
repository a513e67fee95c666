"""``cfmodel compile``, ``cfmodel xmi export`` and ``cfmodel json export``: run a model.

``compile`` prints the errors (exit 1) or a summary: instances per entity and time;
``compile --dump STAGE`` prints the product of one step of the pipeline (`cfmodel.pipeline`:
``request``, ``load``, ``bindings``, ``resolve``, ``evaluate``, ``lift``, ``model``) and runs
nothing after it.
``xmi export -o DIR`` writes the derived metamodel (one ``.ecore`` per root package)
and the instances (``<project>.xmi``) into DIR; ``json export -o FILE`` writes the
instances as JSON: emfjson-jackson's format (what EMF's JSON users and PyEcore read), or
with ``--dialect cfmodel-instances`` cfmodel's older format; ``--id-key uuid`` writes the
ids where PyEcore's ``JsonResource`` reads them. Exports are made in memory first and each file is
replaced atomically, so a failing compile or export leaves nothing half-written.

The request (``--fact``, ``--facts``, ``--environment``) is compiled as
`cfmodel.pipeline.compile_project` does it: with an ``environments.cfenv`` (or
``--environment``) the request sequence (`cfmodel.transforms.environments.request`) picks the
environment, its main file and module path; the bindings give the injector that
``std::inject``, ``bind variables`` and ``bind parameters`` use. The request's warnings
are printed to stderr as they happen. On a terminal a progress line says each step:
loading (files, lines), linking, evaluating (steps, instances), lifting the metamodel,
making the model, writing (`cfmodel.console.Progress`).
"""

from __future__ import annotations

import argparse
import atexit
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

from cfmodel.commands import SubParsers
from cfmodel.commands._options import (
    add_format_option,
    add_project_argument,
    add_request_options,
    facts_from_args,
    output_directory,
    output_file,
    parse_cache,
    print_warning,
    progress_of,
)
from cfmodel.commands._xmimodels import register_json, register_xmi

ORDER = 20

#: The JSON dialects of ``json export --dialect`` (`cfmodel.serializers.json.DIALECTS`, not
#: imported at startup), the default first.
JSON_DIALECTS = ("emfjson", "cfmodel-instances")

#: The stages of ``--dump`` (the same as `cfmodel.pipeline.STAGES`, which is not imported at startup).
STAGES = ("request", "load", "bindings", "resolve", "evaluate", "lift", "model")


def compile_from_args(args: argparse.Namespace) -> Any:
    """Compile the project the arguments name, for the request they describe (facts, environment)."""
    from cfmodel.pipeline import compile_project

    progress = progress_of(args)
    return compile_project(
        Path(args.project),
        facts=facts_from_args(args),
        environment=getattr(args, "environment", None),
        progress=progress if progress.enabled else None,
        cache=parse_cache(args),
        keep_sources=False,
        on_warning=lambda warning: print_warning(warning, args),
    )


def write_stages(result: Any, args: argparse.Namespace, target: Path) -> None:
    """Make the metamodel and the model of *result* with the progress line saying so; the
    writing step that follows is said as writing *target*."""
    progress = progress_of(args)
    progress("lifting the metamodel")
    result.domain  # noqa: B018 - made now, under its own stage
    progress("making the model")
    result.instance_model  # noqa: B018
    progress(f"writing {target}")


def _done() -> int:
    """The command is over: when the process ends, skip the collector's last pass over the model.

    The freeze runs at exit (``atexit`` runs before the interpreter's final collection), so
    a caller that runs the CLI in its own process (``cfmodel.cli.main``) keeps a working
    collector until then."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    return 0


def _warnings(result: Any, args: argparse.Namespace) -> None:
    """The program's warnings (the request's were printed as they happened)."""
    for warning in getattr(result.program, "warnings", []):
        print_warning(warning, args)


def cmd_compile(args: argparse.Namespace) -> int:
    if args.dump is not None:
        return _dump(args)
    started = time.perf_counter()
    result = compile_from_args(args)
    seconds = time.perf_counter() - started
    _warnings(result, args)
    counts = result.counts()
    total = sum(counts.values())
    if getattr(args, "format", "text") == "json":
        document = {"project": result.name, "ok": True, "instances": counts, "total": total}
        print(json.dumps({**document, "seconds": round(seconds, 3)}, indent=2, ensure_ascii=False))
        return _done()
    instances = f"{total:,} instance{'' if total == 1 else 's'}"
    entities = f"{len(counts)} entit{'y' if len(counts) == 1 else 'ies'}"
    print(f"{result.name}: ok — {instances} of {entities} ({seconds:.2f} s)")
    width = max((len(name) for name in counts), default=0)
    for name, count in counts.items():
        print(f"  {name:<{width}}  {count:>8,}")
    return _done()


def _dump(args: argparse.Namespace) -> int:
    """``compile --dump STAGE``: the product of one step of the pipeline, and nothing after it."""
    from cfmodel.pipeline import dump

    text = dump(
        args.dump,
        Path(args.project),
        facts=facts_from_args(args),
        environment=getattr(args, "environment", None),
        cache=parse_cache(args),
    )
    sys.stdout.write(text)
    return _done()


def cmd_xmi_export(args: argparse.Namespace) -> int:
    output = output_directory(args.output)  # a usage mistake is said before compiling
    result = compile_from_args(args)
    _warnings(result, args)
    write_stages(result, args, output)
    written = result.save_xmi(output, validate=False)  # a fresh compile is valid
    for path in written:
        print(path)
    return _done()


def cmd_json_export(args: argparse.Namespace) -> int:
    output = output_file(args.output)
    result = compile_from_args(args)
    _warnings(result, args)
    write_stages(result, args, output)
    result.save_json(output, validate=False, dialect=args.dialect, id_key=args.id_key)
    print(args.output)
    return _done()


def _compile_options(parser: argparse.ArgumentParser) -> None:
    add_project_argument(parser)
    add_request_options(parser)


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "compile", parents=[common], help="run a project's model: errors, or instances per entity"
    )
    _compile_options(p)
    p.add_argument(
        "--dump",
        metavar="STAGE",
        choices=STAGES,
        help=f"print the product of one step and stop: {', '.join(STAGES)}",
    )
    add_format_option(p)
    p.set_defaults(func=cmd_compile)

    xmi = sub.add_parser("xmi", help="XMI: the derived metamodel (.ecore) and the instance model")
    xmi_sub = xmi.add_subparsers(dest="xmi_command", metavar="COMMAND")
    xmi_sub.required = True
    p = xmi_sub.add_parser(
        "export", parents=[common], help="compile, then write the .ecore file(s) and the instances' XMI"
    )
    _compile_options(p)
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="directory to write into")
    p.set_defaults(func=cmd_xmi_export)
    register_xmi(xmi_sub, common)  # check, dump, copy: XMI files of any metamodel

    js = sub.add_parser("json", help="JSON: the instance model as emfjson-jackson's JSON")
    js_sub = js.add_subparsers(dest="json_command", metavar="COMMAND")
    js_sub.required = True
    p = js_sub.add_parser("export", parents=[common], help="compile, then write the instances as JSON")
    _compile_options(p)
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the JSON file to write")
    p.add_argument(
        "--dialect",
        choices=JSON_DIALECTS,
        default=JSON_DIALECTS[0],
        help="emfjson: emfjson-jackson's JSON, which EMF and PyEcore read (default);"
        " cfmodel-instances: cfmodel's older format",
    )
    p.add_argument(
        "--id-key",
        metavar="KEY",
        default="@id",
        help="the key of the objects' ids (default @id, as emfjson-jackson; uuid: what PyEcore reads; _id)",
    )
    p.set_defaults(func=cmd_json_export)
    register_json(js_sub, common)  # check, dump: JSON models of any metamodel
