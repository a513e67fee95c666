"""Refine: run a configuration model and produce its instance model.

Entry point: `compile_project(project_or_path, *, facts=None, injector=None,
environment=None, ...) -> CompileResult`. The request decides what is compiled and
with which bindings (`cfmodel.transforms.environments.request`), the project is
loaded (`cfmodel.project`), linked
(`cfmodel.transforms.cf.resolve`), evaluated here (statements ordered by what they read,
relations completed when nothing can add to them, implementations selected by their
conditions until nothing is left to refine) and checked at the end. Errors: one
`CfCompileError` (every end-of-compile problem) or a `CfEvaluationError` (the first
problem that stops evaluation), each rendering as ``file:line:col: error: …  [code]``.

Package layout: `values` (the language's values, instances and slots), `scheduler`
(tasks and the freeze policy), `frames` (scopes), `evaluator` (one compile's state and the
doors into `entities`, `expressions`, `constructors`, `indexes`, `assignment`),
`statements` (statements, tasks, promises), `typecheck`, `pluginrt` (plugins),
`finish` (end-of-compile checks), `result` (`CompileResult`, PyEcore conversion into
the serializers' light objects, `cfmodel.serializers.fastpath`), `injection` (implicit
injection from the bindings: variables, constructor parameters).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cfmodel.errors import CfCompileError, Diagnostic
from cfmodel.project import Project, load_project
from cfmodel.transforms.cf.refine.evaluator import Evaluator
from cfmodel.transforms.cf.refine.finish import finish
from cfmodel.transforms.cf.refine.injection import EmptyBindings, InjectorLike, has_bindings
from cfmodel.transforms.cf.refine.result import CompileResult
from cfmodel.transforms.cf.resolve import resolve
from cfmodel.transforms.environments.request import load_target, run_request

__all__ = ["CompileResult", "Progress", "compile_project", "evaluate"]

Progress = Callable[[str, int, int], None]

#: A project directory with this file is compiled through the request sequence.
ENVIRONMENTS_FILE = "environments.cfenv"


def compile_project(
    project_or_path: Project | Path | str = ".",
    *,
    facts: dict[str, Any] | None = None,
    injector: InjectorLike | None = None,
    environment: str | None = None,
    progress: Progress | None = None,
    cache: Any = None,
    keep_sources: bool | None = None,
    on_warning: Callable[[Diagnostic], None] | None = None,
) -> CompileResult:
    """Compile a project (its directory, or a loaded `Project`) for a request.

    The request (docs/environments.md, docs/bindings.md): a directory with an
    ``environments.cfenv``, or any directory when *environment* is given, goes through the
    request sequence (`cfmodel.transforms.environments.request.run_request`): its *facts* and
    *environment* select the environment, whose main file and module path are compiled
    with the injector of its bindings. Another directory, or a loaded `Project`, is
    compiled as it is; when it has bindings (`injection.has_bindings`: ``site.bind``,
    ``bindings/``, a ``bindings:`` section in ``project.yml``, modules with ``bindings/``)
    the request sequence on its directory gives the injector. The injector answers
    ``std::inject`` and injects implicitly (``bind variables``, ``bind parameters``;
    `injection`); *injector* replaces it (any object with ``lookup(type_or_name,
    name=None, *, default=…)``; `cfmodel.transforms.bindings.compose.Injector` for implicit
    injection). Without bindings ``std::inject`` finds nothing bound.

    *facts* reach the injector's categories and the plugins (``Context.facts``; through
    the request sequence with ``environment`` set to the selected environment).
    *progress* is called now and then with (stage, tasks done, instances). The request
    sequence's warnings go to *on_warning* as they happen and are in
    ``result.warnings``. *keep_sources* (default: only when a loaded `Project` is given):
    keep the syntax trees reachable from the result (``result.project``, the top-level
    statements of ``result.program``'s namespaces); without them a large model takes
    less memory.

    Raises:
        CfLoadError, CfCompileError: the request, the project or its bindings cannot be
            loaded, linked or compiled.
        CfEvaluationError: evaluation stopped at an error.
    """

    started = time.perf_counter()
    warnings: list[Diagnostic] = []

    def warn(found: Sequence[Diagnostic]) -> None:
        warnings.extend(found)
        if on_warning is not None:
            for warning in found:
                on_warning(warning)

    request_facts = dict(facts or {})
    if isinstance(project_or_path, Project):
        project = project_or_path
        keep = True if keep_sources is None else keep_sources
        if injector is None:
            injector, request_facts = _bindings(project, request_facts, environment, warn)
    else:
        path = Path(project_or_path)
        keep = bool(keep_sources)
        if progress is not None:
            progress("loading", 0, 0)
        if environment is not None or (path / ENVIRONMENTS_FILE).is_file():
            request = run_request(path, request_facts, environment)
            warn(request.warnings)
            project = load_target(request.target, cache)
            request_facts = dict(request.target.facts)
            if injector is None:
                injector = request.injector
        else:
            project = load_project(path, cache)
            if injector is None:
                injector, request_facts = _bindings(project, request_facts, None, warn)
    if progress is not None:
        progress("linking", 0, 0)
    program = resolve(project)
    ev = evaluate(program, project, facts=request_facts, injector=injector, progress=progress)
    instances = ev.instances
    ev.release()
    if not keep:
        for namespace in program.namespaces.values():
            namespace.statements = []
    return CompileResult(
        program,
        project if keep else None,
        instances,
        time.perf_counter() - started,
        project.name,
        warnings,
    )


def _bindings(
    project: Project,
    facts: dict[str, Any],
    environment: str | None,
    warn: Callable[[Sequence[Diagnostic]], None],
) -> tuple[Any, dict[str, Any]]:
    """The injector of a project compiled as it is (and the facts the plugins see)."""
    if environment is None and not has_bindings(project.root, project.module_path):
        return EmptyBindings(facts), facts

    request = run_request(project.root, facts, environment)
    warn(request.warnings)
    return request.injector, dict(request.target.facts)


def evaluate(
    program: Any,
    project: Project | None = None,
    *,
    facts: dict[str, Any] | None = None,
    injector: InjectorLike | None = None,
    progress: Progress | None = None,
) -> Evaluator:
    """Evaluate a linked program; the `Evaluator` holds the instances."""
    was_enabled = gc.isenabled()
    gc.disable()  # millions of small objects, none of them garbage yet
    try:
        ev = Evaluator(program, project, facts, injector)
        ev.sched.progress = progress
        ev.start()
        ev.sched.run(ev)
        problems = finish(ev)
        if problems:
            raise CfCompileError(problems)
        return ev
    finally:
        if was_enabled:
            gc.enable()
