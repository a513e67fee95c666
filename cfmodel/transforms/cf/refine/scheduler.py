"""The scheduler: run what can run, and decide when a relation is complete.

A `Task` is one unit of work (a statement, one attribute of a constructor call, the
condition of an ``implement … when``). Running it evaluates its expressions; a read of
a value that is not known yet raises `Blocked`, and the task waits on that slot and
runs again, from the start, when the slot is ready. Side effects (constructor calls,
plugin calls) are recorded per task in order, so running a task again replays them
instead of repeating them.

When nothing can run, the scheduler completes ("freezes") one relation that tasks
wait for, chosen deterministically:

1. the first (in the order tasks started waiting on them) that has at least its lower
   bound of values and that no statement has promised to add to;
2. else a relation read gradually by a ``for`` loop that still holds promises on other
   relations (completing it releases them);
3. else, if tasks wait on relations that are all promised (a wait cycle), the first of
   those.

Then it runs again. When nothing can be frozen any more the model is complete; what
is still waiting is reported by the evaluator (`deadlock` and friends). A parameter
source that does not exist yet (`SourceWait`, ``bind parameters Web[one] to Sql[one]``)
is completed as an optional relation is (rule 1): then it does not exist.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from cfmodel.errors import Span
from cfmodel.transforms.cf.refine.errors import Blocked
from cfmodel.transforms.cf.refine.values import Instance, Listener, ListVar, OptVar, Slot, SourceWait, Value

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator


class Task:
    """A unit of work; `run` raises `Blocked` to wait."""

    __slots__ = ("memo", "pos")

    def __init__(self) -> None:
        self.memo: list[Value] | None = None
        self.pos = 0

    def run(self, ev: Evaluator) -> None:
        raise NotImplementedError

    def where(self) -> Span | None:
        """Where the task's statement is (for reports)."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    @property
    def reportable(self) -> bool:
        """Whether a task still waiting at the end is worth reporting (promise tasks are not)."""
        return True


RelationSlot = ListVar | OptVar | SourceWait  # what the scheduler may complete
Progress = Callable[[str, int, int], None]


class Scheduler:
    """The run queue and the freeze policy."""

    __slots__ = (
        "blocked_slots",
        "candidates",
        "deliveries",
        "done",
        "listened",
        "progress",
        "queue",
        "stalled",
    )

    def __init__(self) -> None:
        self.queue: deque[Task] = deque()
        # relations tasks wait on, in the order they started waiting
        self.candidates: deque[RelationSlot] = deque()
        # candidates that could not be frozen when last looked at (promised, under the lower bound)
        self.stalled: list[RelationSlot] = []
        # relations read gradually by `for` loops
        self.listened: list[ListVar] = []
        # every slot that ever had a waiter (for the final report)
        self.blocked_slots: list[Slot] = []
        self.done = 0
        self.progress: Progress | None = None
        # relation values waiting to reach their listeners (`values.deliver`), while one is
        # being delivered: (listeners still to call, value)
        self.deliveries: list[tuple[Iterator[Listener], Instance]] | None = None

    def add(self, task: Task) -> None:
        self.queue.append(task)

    def run(self, ev: Evaluator) -> None:
        queue = self.queue
        popleft = queue.popleft
        while True:
            done = 0
            while queue:
                task = popleft()
                task.pos = 0
                try:
                    task.run(ev)
                except Blocked as blocked:
                    blocked.slot.add_waiter(self, task)
                done += 1
                if not done & 0x3FF and self.progress is not None:
                    self.done += done
                    done = 0
                    self.progress("evaluating", self.done, ev.instance_count)
            self.done += done
            if not self.freeze_one():
                return

    def freeze_one(self) -> bool:
        candidates = self.candidates
        while candidates:
            var = candidates.popleft()
            var.queued = False
            if var.frozen or not var.waiters:
                continue
            if var.promises > 0 or var.count() < var.field.lower:
                self.stalled.append(var)
                continue
            var.freeze(self)
            return True
        # a relation iterated by `for` loops that hold promises: complete it to release them
        listened = [v for v in self.listened if not v.frozen and v.listeners]
        self.listened = listened
        for var in listened:
            if var.promises == 0 and len(var.items) >= var.field.lower and _holds_promises(var):
                var.freeze(self)
                return True
        # a wait cycle: tasks wait on relations that are all promised
        stalled = [v for v in self.stalled if not v.frozen and v.waiters]
        self.stalled = stalled
        for var in stalled:
            if var.count() >= var.field.lower:
                stalled.remove(var)
                var.freeze(self)
                return True
        return False


def _holds_promises(var: ListVar) -> bool:
    listeners = var.listeners or []
    return any(getattr(listener, "holds_promises", False) for listener in listeners)
