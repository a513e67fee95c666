"""Refine: run a configuration model and produce its instance model.

Entry point: `compile_project(project_or_path, *, facts=None, injector=None,
progress=None) -> CompileResult`. The project is loaded (`cfmodel.project`), linked
(`cfmodel.transforms.resolve`), evaluated here (statements ordered by what they read,
relations completed when nothing can add to them, implementations selected by their
conditions until nothing is left to refine) and checked at the end. Errors: one
`CfCompileError` (every end-of-compile problem) or a `CfEvaluationError` (the first
problem that stops evaluation), each rendering as ``file:line:col: error: …  [code]``.

Package layout: `values` (instances and slots), `scheduler` (tasks and the freeze
policy), `frames` (scopes), `evaluator` (expressions, constructors, indexes),
`statements` (statements, tasks, promises), `typecheck`, `pluginrt` (plugins),
`finish` (end-of-compile checks), `result` (`CompileResult`, PyEcore conversion),
`eobjects` (light PyEcore objects for the converted model).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cfmodel.errors import CfCompileError
from cfmodel.project import Project, load_project
from cfmodel.transforms.refine.evaluator import Evaluator
from cfmodel.transforms.refine.finish import finish
from cfmodel.transforms.refine.frames import clear_cache
from cfmodel.transforms.refine.result import CompileResult
from cfmodel.transforms.refine.statements import clear_caches

__all__ = ["CompileResult", "Progress", "compile_project", "evaluate"]

Progress = Callable[[str, int, int], None]


def compile_project(
    project_or_path: Project | Path | str = ".",
    *,
    facts: dict[str, Any] | None = None,
    injector: Any = None,
    progress: Progress | None = None,
    cache: Any = None,
    keep_sources: bool | None = None,
) -> CompileResult:
    """Compile a project (a loaded `Project` or its directory).

    *facts* are available to plugins (``Context.facts``); *injector* answers
    ``std::inject`` (any object with ``lookup(type_or_name, name=None, *, default=…)``,
    like `cfmodel.transforms.compose.Injector`); *progress* is called now and then
    with (stage, tasks done, instances). *keep_sources* (default: only when a loaded
    `Project` is given): keep the syntax trees reachable from the result
    (``result.project``, the top-level statements of ``result.program``'s
    namespaces); without them a large model takes less memory.

    Raises:
        CfLoadError, CfCompileError: the project cannot be loaded, linked or compiled.
        CfEvaluationError: evaluation stopped at an error.
    """
    from cfmodel.transforms.resolve import resolve

    started = time.perf_counter()
    if isinstance(project_or_path, Project):
        project = project_or_path
        keep = True if keep_sources is None else keep_sources
    else:
        if progress is not None:
            progress("loading", 0, 0)
        project = load_project(project_or_path, cache)
        keep = bool(keep_sources)
    if progress is not None:
        progress("linking", 0, 0)
    program = resolve(project)
    ev = evaluate(program, project, facts=facts, injector=injector, progress=progress)
    instances = ev.instances
    ev.release()
    if not keep:
        for namespace in program.namespaces.values():
            namespace.statements = []
    return CompileResult(
        program, project if keep else None, instances, time.perf_counter() - started, project.name
    )


def evaluate(
    program: Any,
    project: Project | None = None,
    *,
    facts: dict[str, Any] | None = None,
    injector: Any = None,
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
        clear_cache()
        clear_caches()
        if was_enabled:
            gc.enable()
