"""Options several commands share: the parse cache, facts and the environment.

Facts come from ``--fact k=v`` (repeatable; a value is YAML-typed, so ``--fact
cores=4`` is the integer 4 and ``--fact name=web1`` a string) and ``--facts FILE``
(a JSON or YAML mapping). Later sources win: the file first, then each ``--fact``
in order. ``--node NAME`` is the node's certname (``puppet lookup --node``) and
``--trusted-facts FILE`` its certificate's data (``certname``, ``extensions``): together
with the fact ``clientcert`` they make the ``trusted`` hash (``%{trusted.certname}``), which
a fact cannot set (``cfmodel.transforms.bindings.trusted``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from cfmodel.cache import CacheSizeError, ParseCache
from cfmodel.console import Progress
from cfmodel.errors import CfLoadError, CfUsageError, Diagnostic, Span
from cfmodel.inputs import load_json, load_yaml, read_text, yaml_problem


def parse_cache(args: argparse.Namespace) -> ParseCache | None:
    if getattr(args, "no_cache", False):
        return None
    cache_dir = getattr(args, "cache_dir", None)
    try:
        return ParseCache(Path(cache_dir) if cache_dir else None)
    except CacheSizeError as exc:
        raise CfUsageError(f"CFMODEL_CACHE_SIZE: {exc}") from exc


def progress_of(args: argparse.Namespace) -> Progress:
    """The command's progress line (`cfmodel.console.Progress`; one that shows nothing when
    the command was not started by `cfmodel.cli.main`)."""
    found = getattr(args, "progress", None)
    return found if isinstance(found, Progress) else Progress(None)


def project_dir(args: argparse.Namespace) -> Path:
    """The command's PROJECT, which must be a directory (as every command reports it)."""
    root = Path(args.project)
    if not root.is_dir():
        raise CfLoadError(f"no such project directory: {root}", None, "load")
    return root


def output_directory(value: str) -> Path:
    """``-o DIR``: a directory to write into (made if missing), never an existing file."""
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise CfUsageError(f"-o {value}: this is a file; give the directory to write into")
    return path


def output_file(value: str) -> Path:
    """``-o FILE``: a file to write, never an existing directory."""
    path = Path(value)
    if path.is_dir():
        raise CfUsageError(f"-o {value}: this is a directory; give the file to write")
    return path


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """``--format text|json``: json prints one JSON document on stdout, and the diagnostics
    (warnings, errors) as one JSON object per line on stderr."""
    parser.add_argument(
        "--format", choices=["text", "json"], default="text", help="output format (default: text)"
    )


def print_warning(diagnostic: Diagnostic, args: argparse.Namespace) -> None:
    """A warning on stderr: as text, or (``--format json``) as one JSON object."""
    if getattr(args, "format", None) == "json":
        print(json.dumps(diagnostic.to_json(), ensure_ascii=False), file=sys.stderr)
    else:
        print(diagnostic.render(), file=sys.stderr)


def add_project_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "project", metavar="PROJECT", nargs="?", default=".", help="project directory (default: .)"
    )


def add_request_options(parser: argparse.ArgumentParser) -> None:
    """``--fact``, ``--facts`` and ``--environment``: what a compile request is for."""
    group = parser.add_argument_group("request")
    group.add_argument(
        "--fact", metavar="K=V", action="append", default=[], help="a fact (repeatable; value read as YAML)"
    )
    group.add_argument("--facts", metavar="FILE", help="facts from a JSON or YAML mapping")
    group.add_argument(
        "--environment", metavar="NAME", help="the environment the caller asks for ($agent_environment)"
    )
    group.add_argument(
        "--node", metavar="NAME", help="the node's certname (trusted.certname), as puppet lookup"
    )
    group.add_argument(
        "--trusted-facts", metavar="FILE", help="the node's trusted data: certname, extensions (JSON or YAML)"
    )


def facts_from_args(args: argparse.Namespace) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    if getattr(args, "facts", None):
        facts.update(read_facts_file(Path(args.facts)))
    for item in getattr(args, "fact", []) or []:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CfUsageError(f"--fact expects KEY=VALUE, got {item!r}")
        facts[key] = _yaml_scalar(raw)
    trusted_file = getattr(args, "trusted_facts", None)
    node = getattr(args, "node", None)
    if node is None and trusted_file is None and "trusted" not in facts:
        return facts  # the trusted hash is derived from clientcert where it is read
    from cfmodel.pipeline import trusted_facts  # the pipeline: when a command runs, not at startup

    trusted_data = read_facts_file(Path(trusted_file)) if trusted_file else None
    facts, notes = trusted_facts(facts, node, trusted_data)
    for note in notes:
        print(f"cfmodel: warning: {note}", file=sys.stderr)
    return facts


def _yaml_scalar(raw: str) -> Any:
    try:
        value = load_yaml(raw) if raw.strip() else ""
    except yaml.YAMLError:
        return raw
    # Only plain scalars are typed; anything structured stays the text the user wrote.
    return value if isinstance(value, (str, int, float, bool)) or value is None else raw


def read_facts_file(path: Path) -> dict[str, Any]:
    """The facts of a JSON (``.json``) or YAML file: a mapping.

    Raises:
        CfUsageError: the file cannot be read (a path on the command line that is wrong).
        CfLoadError: ``bad-facts`` at the line and column of the problem: not JSON/YAML,
            over a limit (`cfmodel.inputs`), or not a mapping; ``not-utf8``, ``too-large``.
    """
    try:
        text = read_text(path)
    except OSError as error:
        raise CfUsageError(f"cannot read facts file {path}: {error.strerror or error}") from None
    try:
        data = load_json(text) if path.suffix == ".json" else load_yaml(text)
    except json.JSONDecodeError as error:
        raise _bad_facts(path, f"not valid JSON: {error.msg}", error.lineno, error.colno) from None
    except yaml.YAMLError as error:
        problem, line, col = yaml_problem(error)
        raise _bad_facts(path, f"not valid YAML: {problem}", line or 1, col or 1) from None
    except ValueError as error:  # a JSON number Python will not read (over 4,300 digits)
        raise _bad_facts(path, f"not valid JSON: {error}", 1, 1) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _bad_facts(path, f"facts must be a mapping, got {type(data).__name__}", 1, 1)
    return {str(key): value for key, value in data.items()}


def _bad_facts(path: Path, message: str, line: int, col: int) -> CfLoadError:
    return CfLoadError(message, Span(str(path), line, col, line, col + 1), "bad-facts")
