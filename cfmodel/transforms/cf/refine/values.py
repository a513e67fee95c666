"""The evaluator's runtime values: instances and the slots that hold values.

Everything here is a slotted Python object (creating one costs about a microsecond;
a PyEcore `EObject` costs about 45): the compiled model becomes PyEcore only at the
end (`cfmodel.transforms.cf.model`).

Slots are single-assignment cells with a list of waiting tasks:

* `Var`: a variable, or a primitive attribute of an instance; ready once set.
* `RefVar`: a relation end ``[1]``; ready once set.
* `OptVar`: a relation end ``[0:1]``; ready when set, or when the scheduler decides
  nothing can set it any more (then it holds null).
* `ListVar`: a many-valued relation end; values arrive one by one (duplicates are
  ignored, the upper bound is checked on every add); ready ("frozen") at its upper
  bound or when the scheduler decides nothing can add to it any more.
* `IndexWait`: an index lookup ``E[k=v]`` that found nothing yet.

`Value` is the type of the language's values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from cfmodel.errors import Note, Span
from cfmodel.plugins import Unknown
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.refine.errors import Blocked, fail, show

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.scheduler import Scheduler, Task

# field kinds
ATTR, ONE, OPT, MANY = 0, 1, 2, 3

#: A value of the language as the compiler holds it: null, a bool, an int, a float, a string,
#: a list, a dict (string keys), an entity instance, or unknown (from a plugin or the
#: bindings, not known at compile time).
Value: TypeAlias = "bool | int | float | str | list[Value] | dict[str, Value] | Instance | Unknown | None"


class FieldInfo:
    """An attribute or relation end as the evaluator uses it (one per entity and name)."""

    __slots__ = (
        "attribute",
        "fast",
        "kind",
        "lower",
        "name",
        "opposite",
        "owner",
        "relation",
        "target",
        "type",
        "upper",
    )

    def __init__(
        self,
        name: str,
        kind: int,
        owner: EntityInfo,
        attribute: p.Attribute | None = None,
        relation: p.RelationEnd | None = None,
    ) -> None:
        self.name = name
        self.kind = kind
        self.owner = owner
        self.attribute = attribute
        self.relation = relation
        self.type: p.TypeSpec | None = attribute.type if attribute is not None else None
        self.target: p.EntityType | None = relation.target if relation is not None else None
        self.lower = relation.lower if relation is not None else 1
        self.upper = relation.upper if relation is not None else 1
        # the opposite end's name on the target entity (None: unidirectional)
        self.opposite: str | None = (
            relation.opposite.name if relation is not None and relation.opposite is not None else None
        )
        # a quick acceptance test for values of a plain primitive attribute (None: always check fully)
        self.fast: Callable[[Any], bool] | None = None

    @property
    def span(self) -> Span:
        if self.attribute is not None:
            return self.attribute.span
        assert self.relation is not None
        return self.relation.span

    @property
    def multiplicity(self) -> str:
        if self.upper is None:
            return f"[{self.lower}:]"
        if self.lower == self.upper:
            return f"[{self.lower}]"
        return f"[{self.lower}:{self.upper}]"

    def make(self, owner: Instance) -> Slot:
        kind = self.kind
        if kind == ATTR:
            return Var(self.name, owner, self)
        if kind == MANY:
            return ListVar(owner, self)
        if kind == ONE:
            return RefVar(self.name, owner, self)
        return OptVar(owner, self)


class EntityInfo:
    """What the evaluator needs of an entity, computed once per compile."""

    __slots__ = (
        "ancestors",
        "count",
        "defaults",
        "entity",
        "fields",
        "index_attrs",
        "indexes",
        "instances",
        "qname",
        "required",
        "rules",
    )

    def __init__(self, entity: p.EntityType) -> None:
        self.entity = entity
        self.qname = entity.qualified_name
        self.fields: dict[str, FieldInfo] = {}
        self.ancestors: frozenset[p.EntityType] = frozenset(entity.mro)
        # (index, attribute names) for every index that applies (own and inherited)
        self.indexes: list[tuple[p.Index, tuple[str, ...]]] = []
        self.index_attrs: frozenset[str] = frozenset()
        # attribute name -> default expression (own beats parents, left parent beats right)
        self.defaults: dict[str, Any] = {}
        self.rules: list[p.ImplementRule] = []
        # fields that must hold a value at the end
        self.required: list[FieldInfo] = []
        self.instances: list[Instance] = []
        self.count = 0


class Instance:
    """An entity instance during evaluation."""

    __slots__ = ("impls", "info", "number", "slots", "span")

    def __init__(self, info: EntityInfo, span: Span, number: int) -> None:
        self.info = info
        self.slots: dict[str, Slot] = {}
        self.span = span
        self.number = number
        self.impls: list[object] | None = None  # the implementations applied (usually one)

    def slot(self, name: str) -> Slot | None:
        """The slot of attribute or relation *name*, created on first use; None if no such field."""
        slot = self.slots.get(name)
        if slot is None:
            field = self.info.fields.get(name)
            if field is None:
                return None
            slot = field.make(self)
            self.slots[name] = slot
        return slot

    def __str__(self) -> str:
        return f"{self.info.qname} instance (created at {self.span.start()})"

    def __repr__(self) -> str:
        return f"<{self.info.qname} #{self.number}>"


class Slot:
    """A cell that tasks can wait on."""

    __slots__ = ("waiters",)

    def __init__(self) -> None:
        self.waiters: list[Task] | None = None

    def get(self) -> Value:
        raise NotImplementedError

    def is_ready(self) -> bool:
        raise NotImplementedError

    def add_waiter(self, sched: Scheduler, task: Task) -> None:
        waiters = self.waiters
        if waiters is None:
            self.waiters = [task]
            sched.blocked_slots.append(self)
        else:
            waiters.append(task)

    def wake(self, sched: Scheduler) -> None:
        waiters = self.waiters
        if waiters:
            sched.queue.extend(waiters)
            self.waiters = None

    def describe(self) -> str:
        raise NotImplementedError


class Var(Slot):
    """A single-assignment variable or primitive attribute."""

    __slots__ = ("field", "name", "owner", "ready", "value", "where")

    def __init__(self, name: str, owner: Instance | None = None, field: FieldInfo | None = None) -> None:
        self.waiters = None
        self.value: Value = None
        self.ready = False
        self.where: Span | None = None
        self.name = name
        self.owner = owner
        self.field = field

    def get(self) -> Value:
        if self.ready:
            return self.value
        raise Blocked(self)

    def is_ready(self) -> bool:
        return self.ready

    def set(self, sched: Scheduler, value: Any, span: Span) -> None:
        if self.ready:
            if not same_value(self.value, value):
                raise self.double(value, span)
            return
        self.value = value
        self.ready = True
        self.where = span
        waiters = self.waiters
        if waiters:
            sched.queue.extend(waiters)
            self.waiters = None

    def double(self, value: Any, span: Span) -> Exception:
        notes = [Note(self.where, f"the first value, {show(self.value)}, was set here")]
        what = f"variable '{self.name}'" if self.owner is None else f"attribute '{self.name}' of {self.owner}"
        return fail(
            f"{what} is already {show(self.value)}; it cannot be set to {show(value)} "
            "(a value is assigned once)",
            span,
            "double-assignment",
            notes,
        )

    def describe(self) -> str:
        if self.owner is None:
            return f"variable '{self.name}'"
        return f"attribute '{self.name}' of {self.owner}"


class RefVar(Var):
    """A relation end with multiplicity [1]."""

    __slots__ = ()

    def double(self, value: Any, span: Span) -> Exception:
        assert self.owner is not None
        notes = [Note(self.where, f"the first value, {show(self.value)}, was set here")]
        return fail(
            f"relation '{self.name}' [1] of {self.owner} already holds {show(self.value)}; "
            f"it cannot also hold {show(value)}",
            span,
            "upper-bound",
            notes,
        )


class OptVar(Slot):
    """A relation end with multiplicity [0:1]."""

    __slots__ = ("field", "frozen", "owner", "promises", "queued", "value", "where")

    def __init__(self, owner: Instance, field: FieldInfo) -> None:
        self.waiters = None
        self.value: Instance | None = None
        self.frozen = False
        self.where: Span | None = None
        self.owner = owner
        self.field = field
        self.promises = 0
        self.queued = False

    @property
    def name(self) -> str:
        return self.field.name

    def get(self) -> Value:
        if self.frozen:
            if self.value is None:
                raise fail(
                    f"relation '{self.field.name}' {self.field.multiplicity} of {self.owner} has no value "
                    "(use 'is defined' to test an optional relation before reading it)",
                    None,
                    "no-value",
                )
            return self.value
        raise Blocked(self)

    def is_ready(self) -> bool:
        return self.frozen

    def count(self) -> int:
        return 0 if self.value is None else 1

    def add_waiter(self, sched: Scheduler, task: Task) -> None:
        Slot.add_waiter(self, sched, task)
        if not self.queued:
            self.queued = True
            sched.candidates.append(self)

    def set(self, sched: Scheduler, value: Instance | None, span: Span) -> bool:
        """Set the value (None: explicit null); True if it is new."""
        if self.value is not None:
            if value is self.value:
                return False
            notes = [Note(self.where, f"the first value, {show(self.value)}, was set here")]
            if value is None:
                raise fail(
                    f"relation '{self.name}' of {self.owner} already holds {show(self.value)}; "
                    "it cannot be set to null",
                    span,
                    "double-assignment",
                    notes,
                )
            raise fail(
                f"relation '{self.name}' [0:1] of {self.owner} already holds {show(self.value)}; "
                f"it cannot also hold {show(value)}",
                span,
                "upper-bound",
                notes,
            )
        if self.frozen:
            if value is None:
                return False
            raise fail(
                f"relation '{self.name}' of {self.owner} was considered complete (null) "
                f"before {show(value)} was assigned to it",
                span,
                "modified-after-freeze",
                [Note(self.where, "it was completed when nothing else could run")] if self.where else [],
            )
        self.value = value
        self.where = span
        self.freeze(sched)
        return value is not None

    def freeze(self, sched: Scheduler) -> None:
        if self.frozen:
            return
        self.frozen = True
        waiters = self.waiters
        if waiters:
            sched.queue.extend(waiters)
            self.waiters = None

    def release(self, sched: Scheduler) -> None:
        self.promises -= 1
        if self.promises == 0 and self.waiters and not self.queued and not self.frozen:
            self.queued = True
            sched.candidates.append(self)

    def describe(self) -> str:
        return f"relation '{self.name}' {self.field.multiplicity} of {self.owner}"


SHOWN_VALUES = 5  # values of a relation listed in a message's notes


class ListVar(Slot):
    """A many-valued relation end: gradual, append-only, frozen when complete."""

    __slots__ = (
        "field",
        "frozen",
        "items",
        "listed",
        "listeners",
        "owner",
        "promises",
        "queued",
        "seen",
        "where",
    )

    def __init__(self, owner: Instance, field: FieldInfo) -> None:
        self.waiters = None
        self.items: list[Instance] = []
        self.seen: set[Instance] | None = None
        self.frozen = False
        self.owner = owner
        self.field = field
        self.promises = 0
        self.queued = False
        self.listeners: list[Listener] | None = None
        self.where: Span | None = None
        self.listed = False  # in the scheduler's list of relations iterated by promising loops

    @property
    def name(self) -> str:
        return self.field.name

    def get(self) -> Value:
        if self.frozen:
            return cast("list[Value]", self.items)  # a list of instances is a list of values
        raise Blocked(self)

    def is_ready(self) -> bool:
        return self.frozen

    def count(self) -> int:
        return len(self.items)

    def add_waiter(self, sched: Scheduler, task: Task) -> None:
        Slot.add_waiter(self, sched, task)
        if not self.queued:
            self.queued = True
            sched.candidates.append(self)

    def contains(self, value: Instance) -> bool:
        seen = self.seen
        if seen is not None:
            return value in seen
        items = self.items
        if len(items) < 16:
            return any(item is value for item in items)
        self.seen = seen = set(items)
        return value in seen

    def add(self, sched: Scheduler, value: Instance, span: Span) -> bool:
        """Add one value; True if it is new (False: already there)."""
        if self.contains(value):
            return False
        field = self.field
        if self.frozen:
            upper = field.upper
            if upper is not None and len(self.items) >= upper:
                raise self.over(value, span)
            raise fail(
                f"relation '{field.name}' of {self.owner} was considered complete with "
                f"{len(self.items)} value(s) before {show(value)} was added to it",
                span,
                "modified-after-freeze",
                [Note(self.where, "it was completed when nothing else could run")] if self.where else [],
            )
        upper = field.upper
        if upper is not None and len(self.items) >= upper:
            raise self.over(value, span)
        self.items.append(value)
        if self.seen is not None:
            self.seen.add(value)
        listeners = self.listeners
        if listeners:
            deliver(sched, list(listeners), value)
        if upper is not None and len(self.items) == upper:
            self.where = span
            self.freeze(sched)
        elif self.waiters and not self.queued and len(self.items) == field.lower:
            self.queued = True
            sched.candidates.append(self)
        return True

    def over(self, value: Instance, span: Span) -> Exception:
        """Too many values: the values it holds are notes (at most `SHOWN_VALUES`), so the
        first line stays short however many there are."""
        held = self.items[:SHOWN_VALUES]
        notes = [Note(item.span, f"it holds {show(item)}") for item in held]
        if len(self.items) > len(held):
            notes.append(Note(None, f"and {len(self.items) - len(held)} more"))
        return fail(
            f"relation '{self.field.name}' {self.field.multiplicity} of {self.owner} allows at most "
            f"{self.field.upper} value(s); {show(value)} would be one too many",
            span,
            "upper-bound",
            notes,
        )

    def freeze(self, sched: Scheduler) -> None:
        if self.frozen:
            return
        self.frozen = True
        waiters = self.waiters
        if waiters:
            sched.queue.extend(waiters)
            self.waiters = None
        listeners = self.listeners
        if listeners:
            self.listeners = None
            for listener in listeners:
                listener.complete(sched)

    def listen(self, sched: Scheduler, listener: Listener) -> None:
        """Report every value (present and future) to *listener*, then its completion."""
        for item in list(self.items):
            listener.receive(sched, item)
        if self.frozen:
            listener.complete(sched)
            return
        if self.listeners is None:
            self.listeners = [listener]
        else:
            self.listeners.append(listener)
        if listener.may_hold_promises and not self.listed:
            self.listed = True
            sched.listened.append(self)

    def release(self, sched: Scheduler) -> None:
        self.promises -= 1
        if (
            self.promises == 0
            and self.waiters
            and not self.queued
            and not self.frozen
            and len(self.items) >= self.field.lower
        ):
            self.queued = True
            sched.candidates.append(self)

    def describe(self) -> str:
        return f"relation '{self.name}' {self.field.multiplicity} of {self.owner}"


def deliver(sched: Scheduler, listeners: list[Listener], value: Instance) -> None:
    """``listener.receive(value)`` for each of *listeners*, in order, without nesting calls:
    a delivery asked for while another is under way (a relation forwarding to one that
    forwards on: ``b.items = a.items``, ``c.items = b.items``, …) waits on the scheduler's
    stack and the outermost call delivers it, depth first, in the order nested calls would
    have. So a chain of any length is not limited by Python's recursion limit."""
    pending = sched.deliveries
    if pending is not None:
        pending.append((iter(listeners), value))
        return
    pending = sched.deliveries = [(iter(listeners), value)]
    try:
        while pending:
            remaining, item = pending[-1]
            listener = next(remaining, None)
            if listener is None:
                pending.pop()
                continue
            listener.receive(sched, item)
    finally:
        sched.deliveries = None


class Listener:
    """Receives the values of a `ListVar` gradually."""

    __slots__ = ()

    # whether it may hold promises on other relations until the list is complete
    may_hold_promises = False

    def receive(self, sched: Scheduler, value: Instance) -> None:
        raise NotImplementedError

    def complete(self, sched: Scheduler) -> None:
        raise NotImplementedError


class IndexWait(Slot):
    """An index lookup waiting for a matching instance."""

    __slots__ = ("entity", "found", "key_text")

    def __init__(self, entity: str, key_text: str) -> None:
        self.waiters = None
        self.entity = entity
        self.key_text = key_text
        self.found: Instance | None = None

    def get(self) -> Value:
        if self.found is not None:
            return self.found
        raise Blocked(self)

    def is_ready(self) -> bool:
        return self.found is not None

    def describe(self) -> str:
        return f"an instance {self.entity}[{self.key_text}]"


class _NoBounds:
    """What the scheduler reads of a relation's field, for a `SourceWait` (nothing to reach)."""

    __slots__ = ()
    lower = 0


class SourceWait(Slot):
    """An instance bound as a parameter source (``bind parameters Web[one] to Sql[one]``) that
    does not exist yet.

    Ready when the instance is created (`found`), or when the scheduler decides that nothing
    can create it any more (`frozen`: it does not exist), as it completes an optional relation.
    """

    __slots__ = ("entity", "found", "frozen", "queued", "title", "where")

    field = _NoBounds()
    promises = 0

    def __init__(self, entity: str, title: str, where: Span | None) -> None:
        self.waiters = None
        self.entity = entity
        self.title = title
        self.where = where  # the first constructor call that needed it
        self.found: Instance | None = None
        self.frozen = False
        self.queued = False

    def get(self) -> Value:
        if self.found is not None or self.frozen:
            return self.found
        raise Blocked(self)

    def is_ready(self) -> bool:
        return self.found is not None or self.frozen

    def count(self) -> int:
        return 0

    def add_waiter(self, sched: Scheduler, task: Task) -> None:
        Slot.add_waiter(self, sched, task)
        if not self.queued:
            self.queued = True
            sched.candidates.append(self)

    def freeze(self, sched: Scheduler) -> None:
        if not self.frozen:
            self.frozen = True
            self.wake(sched)

    def describe(self) -> str:
        return f"an instance {self.entity}[{self.title}] (a parameter source)"


class Constant(Slot):
    """A value known from the start (``self``)."""

    __slots__ = ("value",)

    def __init__(self, value: Value) -> None:
        self.waiters = None
        self.value = value

    def get(self) -> Value:
        return self.value

    def is_ready(self) -> bool:
        return True

    def describe(self) -> str:
        return show(self.value)


def same_value(a: Any, b: Any) -> bool:
    """Equal as the language sees it (a bool is never equal to a number)."""
    if a is b:
        return True
    if type(a) is bool or type(b) is bool:
        return False
    try:
        return bool(a == b) and (isinstance(a, list) == isinstance(b, list))
    except Exception:
        return False


def index_key_part(value: Any) -> Any:
    """A hashable, type-exact form of an index attribute's value."""
    kind = type(value)
    if kind is str or kind is int or kind is Instance:
        return value
    if kind is bool:
        return ("bool", value)
    if kind is float:
        return int(value) if value.is_integer() else value
    if kind is list:
        return ("list", tuple(index_key_part(v) for v in value))
    if kind is dict:
        return ("dict", tuple(sorted((k, index_key_part(v)) for k, v in value.items())))
    if value is None:
        return ("null",)
    return value
