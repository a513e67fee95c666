"""The end of a compile: what must hold once nothing can run any more.

Reported, all at once (sorted by position):

* ``not-set``: an attribute or a ``[1]`` relation of an instance that never got a
  value (notes: its declaration, and the statements that waited to read it);
* ``lower-bound``: a relation with fewer values than its lower bound;
* ``no-implementation``: an instance that no ``implement`` (nor anonymous block)
  refines;
* ``index-not-found``: an index lookup ``E[k=v]`` that still found nothing;
* ``deadlock``: every other statement still waiting, and what it waits for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cfmodel.errors import Diagnostic, Note, Severity
from cfmodel.transforms.cf.refine.scheduler import Task
from cfmodel.transforms.cf.refine.values import ATTR, MANY, ONE, IndexWait, ListVar, OptVar, Slot, Var

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator

MAX_DIAGNOSTICS = 200
MAX_READER_NOTES = 3


def finish(ev: Evaluator) -> list[Diagnostic]:
    """Complete what is left and return the problems (empty: the model is complete)."""
    waiting: dict[int, tuple[Slot, list[Task]]] = {}
    for blocked in ev.sched.blocked_slots:
        if blocked.waiters and not blocked.is_ready():
            tasks = [t for t in blocked.waiters if t.reportable]
            if tasks:
                waiting[id(blocked)] = (blocked, tasks)
    explained: set[int] = set()
    out: list[Diagnostic] = []

    for instance in ev.instances:
        info = instance.info
        for field in info.required:
            slot: Slot | None = instance.slots.get(field.name)
            kind = field.kind
            if kind in (ATTR, ONE):
                if slot is not None and isinstance(slot, Var) and slot.ready:
                    continue
                what = "attribute" if kind == ATTR else "relation"
                notes = [Note(field.span, f"{what} '{field.name}' is declared here")]
                notes.extend(_readers(slot, waiting, explained))
                default = " and has no default" if kind == ATTR else ""
                out.append(
                    Diagnostic(
                        instance.span,
                        f"{what} '{field.name}' of {instance} is never set{default}",
                        "not-set",
                        Severity.ERROR,
                        tuple(notes),
                    )
                )
            elif kind == MANY:
                count = len(slot.items) if isinstance(slot, ListVar) else 0
                if count >= field.lower:
                    continue
                notes = [Note(field.span, f"relation '{field.name}' {field.multiplicity} is declared here")]
                notes.extend(_readers(slot, waiting, explained))
                out.append(
                    Diagnostic(
                        instance.span,
                        f"relation '{field.name}' {field.multiplicity} of {instance} needs at least "
                        f"{field.lower} value(s), it has {count}",
                        "lower-bound",
                        Severity.ERROR,
                        tuple(notes),
                    )
                )
        if not instance.impls:
            if info.rules:
                message = (
                    f"no implementation refines {instance}: the conditions of every "
                    f"'implement {info.qname}' are false"
                )
            elif any(rule.using_parents for rule in info.entity.implements):
                parents = ", ".join(parent.qualified_name for parent in info.entity.parents)
                message = (
                    f"no implementation refines {instance}: 'implement {info.entity.name} using parents' "
                    f"inherits nothing, because no parent ({parents}) has an 'implement … using …'"
                )
            else:
                message = (
                    f"no implementation refines {instance}: there is no "
                    f"'implement {info.entity.name} using …' (write 'implement {info.entity.name} "
                    "using std::none' if it needs no refinement)"
                )
            pending = [
                t for _, tasks in waiting.values() for t in tasks if getattr(t, "instance", None) is instance
            ]
            if pending and info.rules:
                message = (
                    f"no implementation refines {instance}: "
                    "the condition of an 'implement' never became known"
                )
            out.append(Diagnostic(instance.span, message, "no-implementation"))

    for slot, tasks in waiting.values():
        if isinstance(slot, IndexWait):
            explained.add(id(slot))
            for task in tasks:
                out.append(
                    Diagnostic(
                        task.where(),
                        f"no {slot.describe()[len('an instance ') :]} exists: this lookup waited until "
                        "the model was complete",
                        "index-not-found",
                    )
                )
    for slot, tasks in waiting.values():
        if id(slot) in explained:
            continue
        for task in tasks:
            out.append(
                Diagnostic(
                    task.where(),
                    f"deadlock: {task.describe()} waits for {slot.describe()}, {_why(slot)}",
                    "deadlock",
                )
            )
    out.sort(key=Diagnostic.sort_key)
    if len(out) > MAX_DIAGNOSTICS:
        more = len(out) - MAX_DIAGNOSTICS
        out = out[:MAX_DIAGNOSTICS]
        out.append(Diagnostic(None, f"... and {more} more problems", "too-many-errors"))
    return out


def _why(slot: Slot) -> str:
    if isinstance(slot, Var):
        return "which is never set (what would set it waits too, or nothing does)"
    if isinstance(slot, ListVar | OptVar):
        return "which never became complete"
    return "which never became known"


def _readers(
    slot: Slot | None, waiting: dict[int, tuple[Slot, list[Task]]], explained: set[int]
) -> list[Note]:
    if slot is None or id(slot) not in waiting:
        return []
    explained.add(id(slot))
    tasks = waiting[id(slot)][1]
    notes = [Note(t.where(), f"{t.describe()} waits for it") for t in tasks[:MAX_READER_NOTES]]
    if len(tasks) > MAX_READER_NOTES:
        notes.append(Note(None, f"... and {len(tasks) - MAX_READER_NOTES} more statements wait for it"))
    return notes
