"""Refine: evaluate a linked program into its instances.

Entry point: `evaluate(program, project, *, facts=None, injector=None, progress=None)
-> Evaluator`. Statements are ordered by what they read, relations completed when nothing
can add to them, implementations selected by their conditions until nothing is left to
refine, and everything is checked at the end. After it, ``ev.instances`` holds every
instance in creation order. Errors: one `CfCompileError` (every end-of-compile problem)
or a `CfEvaluationError` (the first problem that stops evaluation), each rendering as
``file:line:col: error: …  [code]``. The request, loading, lifting and the PyEcore model
are the pipeline's other steps (`cfmodel.pipeline`).

Package layout: `values` (the language's values, instances and slots), `scheduler`
(tasks and the freeze policy), `frames` (scopes), `evaluator` (one compile's state and the
doors into `entities`, `expressions`, `constructors`, `indexes`, `assignment`),
`statements` (statements, tasks, promises), `typecheck`, `pluginrt` (plugins),
`finish` (end-of-compile checks), `report` (the instances as text), `injection` (implicit
injection from the bindings: variables, constructor parameters).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from cfmodel.errors import CfCompileError
from cfmodel.project import Project
from cfmodel.transforms.cf.refine.evaluator import Evaluator
from cfmodel.transforms.cf.refine.finish import finish
from cfmodel.transforms.cf.refine.injection import InjectorLike

__all__ = ["Evaluator", "Progress", "evaluate"]

Progress = Callable[[str, int, int], None]


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
