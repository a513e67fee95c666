"""Rendering untrusted Jinja2 templates within fixed bounds of time and memory.

`environment()` makes a `SandboxedEnvironment` whose templates are compiled (`compile`)
with every ``{% for %}`` loop counted; `render` renders one. After `render` returns, the
template ran within all of these bounds, or `render` raised `TemplateLimitError` naming
the bound it went over (the caller turns it into a located error):

* **steps**: at most `MAX_STEPS` loop iterations, calls (functions, methods, macros)
  and filters in one rendering. Deterministic: the same template fails the same way on
  any machine.
* **time**: at most `MAX_CPU_SECONDS` of CPU time, checked at every step and, in the
  main thread (where the CLI renders), by a CPU-time timer that also interrupts one long
  Python-level operation. Operations done in C are linear in what they make, so the size
  and memory bounds bound them too; the one that is not (``sum`` of lists) is checked
  before it runs.
* **sizes**: no string, list or mapping made by an operator (``*``, ``+``, ``%``, …),
  ``~``, a slice, a call or a filter, and not the rendered text, is longer than
  `MAX_CHARS`; an integer has at most `MAX_INTEGER_BITS` bits (as in ``.cf``
  arithmetic). Repetition (``"x" * n``), powers, ``%``/``format`` widths, padding and
  ``replace`` are refused *before* they are computed; the others as soon as made.
* **memory**: while rendering, the process cannot map more than `MEMORY_ALLOWANCE`
  bytes beyond what it had (``RLIMIT_AS``); running out is a `TemplateLimitError`, not
  a crash. This is the net under the size checks: what they cannot foresee (printing a
  list that holds one long string a million times) stops here.
* **recursion**: a macro or recursive loop nested deeper than Python allows is a
  `TemplateLimitError`.

Jinja2's own sandbox (no ``_``-attributes, no unsafe callables, ``range()`` of at most
100,000 items) applies as before. Templates of trusted modules are rendered by plain
Jinja2 elsewhere and are bounded by nothing here.
"""

from __future__ import annotations

import contextlib
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from functools import wraps
from typing import Any

import jinja2
import jinja2.nodes
import jinja2.runtime
import jinja2.sandbox
import jinja2.utils

from cfmodel.inputs import memory_allowance

MAX_STEPS = 1_000_000
MAX_CPU_SECONDS = 4.0  # under the 5 s that counts as a hang (tests/fuzz)
MAX_CHARS = 10_000_000
MAX_INTEGER_BITS = 14_000
MEMORY_ALLOWANCE = 512 << 20
_COUNTED = "cfmodel_counted"  # the filter every loop's iterable goes through
_CONCAT = "cfmodel_concat"  # the filter every ``a ~ b`` becomes
_CHECK_EVERY = 16  # steps between two looks at the clock
_PADDING_METHODS = {"center", "ljust", "rjust", "zfill", "expandtabs"}
_LONG_NUMBER = re.compile(r"\d{8,}")  # a width or precision of 10,000,000 or more


class TemplateLimitError(Exception):
    """A template went over one of the bounds of this module."""


class _Budget:
    """What one rendering may still spend."""

    def __init__(self) -> None:
        self.steps = 0
        self.deadline = time.thread_time() + MAX_CPU_SECONDS

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            message = f"the template ran more than {MAX_STEPS:,} steps (loop iterations and calls)"
            raise TemplateLimitError(message)
        if self.steps % _CHECK_EVERY == 0 and time.thread_time() > self.deadline:
            raise _over_time()


_budget: ContextVar[_Budget | None] = ContextVar("cfmodel_template_budget", default=None)


def _over_time() -> TemplateLimitError:
    return TemplateLimitError(f"the template ran longer than {MAX_CPU_SECONDS:g} s of CPU time")


def _step() -> None:
    budget = _budget.get()
    if budget is not None:
        budget.step()


def made(value: Any) -> Any:
    """*value*, after checking that it is within the size bounds."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > MAX_INTEGER_BITS:
            raise TemplateLimitError(f"the template made an integer of more than {MAX_INTEGER_BITS:,} bits")
    elif isinstance(value, (str, list, tuple, dict, set, frozenset, bytes)) and len(value) > MAX_CHARS:
        raise TemplateLimitError(f"the template made a value longer than {MAX_CHARS:,} characters or items")
    return value


def _refuse(what: str) -> TemplateLimitError:
    return TemplateLimitError(f"{what} would be longer than {MAX_CHARS:,} characters or items")


def printed_size(value: Any) -> int:
    """The length of ``str(value)``, estimated without making it (at least the sum of the
    lengths of the strings inside; the walk stops once past `MAX_CHARS`)."""
    size = 0
    stack = [value]
    while stack and size <= MAX_CHARS:
        item = stack.pop()
        size += 2
        if isinstance(item, str):
            size += len(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            size += item.bit_length() // 3
    return size


def _check_printed(value: Any) -> Any:
    """*value*, if its text is within `MAX_CHARS` (every ``{{ … }}`` goes through this)."""
    if not isinstance(value, str) and printed_size(value) > MAX_CHARS:
        raise _refuse("the printed value")
    return value


def _concat(parts: tuple[Any, ...]) -> str:
    """``a ~ b ~ …``: the parts as text, joined, refused before joining if too long."""
    if sum(printed_size(part) for part in parts) > MAX_CHARS:
        raise _refuse("the concatenated text")
    return "".join(str(part) for part in parts)


def _check_arguments(args: Iterable[Any]) -> None:
    """Refuse an integer argument (a width, a count) that could only make a huge value."""
    for value in args:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_CHARS:
            raise TemplateLimitError(f"an argument of {value:,} is over the template limit of {MAX_CHARS:,}")


def _check_format(fmt: str, args: Iterable[Any]) -> None:
    """Refuse a ``%``/``format`` string with a width or precision of `MAX_CHARS` or more."""
    if _LONG_NUMBER.search(fmt):
        raise _refuse("a formatted value")
    _check_arguments(args)


def _check_repeat(left: Any, right: Any) -> None:
    for sequence, count in ((left, right), (right, left)):
        repeated = isinstance(sequence, (str, list, tuple, bytes)) and isinstance(count, int)
        if repeated and len(sequence) * max(count, 0) > MAX_CHARS:
            raise _refuse("the repetition")


def _check_power(left: Any, right: Any) -> None:
    integers = isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1
    if integers and (abs(left).bit_length() - 1) * right > MAX_INTEGER_BITS:
        raise TemplateLimitError(f"the power would have more than {MAX_INTEGER_BITS:,} bits")


def _check_replace(text: Any, old: Any, new: Any) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        growth = len(new) - len(old)
        if growth > 0:
            count = text.count(old) if old else len(text) + 1
            if len(text) + count * growth > MAX_CHARS:
                raise _refuse("the replacement")


def _check_tabs(text: str, tabsize: Any) -> None:
    if isinstance(tabsize, int) and (text.count("\t") + 1) * max(tabsize, 0) + len(text) > MAX_CHARS:
        raise _refuse("the expanded text")


def _check_sum(items: list[Any], start: Any) -> None:
    """``sum`` of lists or tuples copies its partial sums: quadratic, inside one C call."""
    sized = [item for item in [start, *items] if isinstance(item, (list, tuple))]
    if sized and sum(len(item) for item in sized) > MAX_CHARS:
        raise _refuse("the sum")


def _check_join(separator: Any, items: list[Any]) -> None:
    if isinstance(separator, str) and len(separator) * max(len(items) - 1, 0) > MAX_CHARS:
        raise _refuse("the joined text")


class BoundedSandbox(jinja2.sandbox.SandboxedEnvironment):
    """Jinja2's sandbox, with every operator, call, filter and loop of a template checked
    against the bounds of this module (see its docstring)."""

    intercepted_binops = frozenset({"+", "-", "*", "/", "//", "%", "**"})

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            _check_repeat(left, right)
        elif operator == "**":
            _check_power(left, right)
        elif operator == "%" and isinstance(left, str):
            _check_format(left, right if isinstance(right, (tuple, list)) else [right])
        return made(super().call_binop(context, operator, left, right))

    def call(__self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _step()
        owner = getattr(__obj, "__self__", None)
        name = getattr(__obj, "__name__", "")
        if isinstance(owner, str):
            if name in _PADDING_METHODS:
                _check_arguments([*args, *kwargs.values()])
                if name == "expandtabs":
                    _check_tabs(owner, args[0] if args else kwargs.get("tabsize", 8))
            elif name == "replace" and len(args) >= 2:
                _check_replace(owner, args[0], args[1])
            elif name in ("format", "format_map"):
                _check_format(owner, [*args, *kwargs.values()])
            elif name == "join" and args:
                items = list(args[0])
                _check_join(owner, items)
                args = (items, *args[1:])
        return made(jinja2.sandbox.SandboxedEnvironment.call(__self, __context, __obj, *args, **kwargs))

    def getitem(self, obj: Any, argument: Any) -> Any:
        value = super().getitem(obj, argument)
        return made(value) if isinstance(argument, slice) else value


def _bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """*function* (a filter), counted as a step, its arguments and result checked."""

    @wraps(function)  # keeps jinja2's pass_context/pass_environment marks
    def bounded(*args: Any, **kwargs: Any) -> Any:
        _step()
        values = [a for a in args if not isinstance(a, (jinja2.runtime.Context, jinja2.Environment))]
        values = [v for v in values if not isinstance(v, jinja2.nodes.EvalContext)]
        if values:
            _check_arguments([*values[1:], *kwargs.values()])
            if name == "replace" and len(values) >= 3:
                _check_replace(str(values[0]), values[1], values[2])
            elif name == "format" and isinstance(values[0], str):
                _check_format(values[0], values[1:])
            elif name == "join" and len(values) >= 2 and not isinstance(values[0], str):
                items = list(values[0])
                _check_join(values[1], items)
                args = tuple(items if a is values[0] else a for a in args)
            elif name == "sum" and not isinstance(values[0], str):
                items = list(values[0])
                _check_sum(items, kwargs.get("start", values[3] if len(values) > 3 else 0))
                args = tuple(items if a is values[0] else a for a in args)
            elif name == "indent" and isinstance(values[0], str) and len(values) >= 2:
                width = values[1] if isinstance(values[1], int) else len(str(values[1]))
                if (values[0].count("\n") + 1) * width + len(values[0]) > MAX_CHARS:
                    raise _refuse("the indented text")
        return made(function(*args, **kwargs))

    return bounded


def _counted(iterable: Iterable[Any]) -> Iterator[Any]:
    """The items of *iterable*, one step each (every loop goes through this)."""
    for item in iterable:
        _step()
        yield item


def _bounded_lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    if n * max > 100_000:
        raise _refuse("the lorem ipsum")
    return str(jinja2.utils.generate_lorem_ipsum(n=n, html=html, min=min, max=max))


def bound_filters(filters: dict[str, Any]) -> None:
    """Wrap every filter of *filters* (in place) and add the loop counter."""
    for name, function in list(filters.items()):
        filters[name] = _bounded_filter(name, function)
    filters[_COUNTED] = _counted
    filters[_CONCAT] = _concat


def bound_plugin_filter(function: Callable[..., Any]) -> Callable[..., Any]:
    """A plugin called as a filter (``x | std.upper``): a step, its result checked."""
    return _bounded_filter("", function)


def environment(**options: Any) -> BoundedSandbox:
    """A bounded sandbox (its filters bounded; *options* as for `jinja2.Environment`)."""
    env = BoundedSandbox(finalize=_check_printed, **options)
    bound_filters(env.filters)
    env.globals["lipsum"] = _bounded_lipsum
    return env


def compile(env: jinja2.Environment, source: str) -> jinja2.Template:
    """*source* compiled by *env*, with every ``{% for %}`` loop's iterable counted and
    every ``~`` checked before it joins."""
    tree = env.parse(source)
    for loop in tree.find_all(jinja2.nodes.For):
        loop.iter = jinja2.nodes.Filter(loop.iter, _COUNTED, [], [], None, None, lineno=loop.lineno)
    for parent in list(tree.find_all(jinja2.nodes.Node)):
        for field, child in parent.iter_fields():
            if isinstance(child, jinja2.nodes.Concat):
                setattr(parent, field, _checked_concat(child))
            elif isinstance(child, list):
                child[:] = [_checked_concat(c) if isinstance(c, jinja2.nodes.Concat) else c for c in child]
    return env.from_string(tree)


def _checked_concat(node: jinja2.nodes.Concat) -> jinja2.nodes.Filter:
    parts = jinja2.nodes.Tuple(node.nodes, "load", lineno=node.lineno)
    return jinja2.nodes.Filter(parts, _CONCAT, [], [], None, None, lineno=node.lineno)


def render(template: jinja2.Template, variables: Mapping[str, Any]) -> str:
    """*template* rendered with *variables*, within the bounds of this module.

    Raises:
        TemplateLimitError: a bound was passed.
        jinja2.TemplateError: and whatever else the template raises.
    """
    if _budget.get() is not None:  # a template rendered from inside another: one budget
        return _render(template, variables)
    token = _budget.set(_Budget())
    try:
        with memory_allowance(MEMORY_ALLOWANCE), _cpu_timer():
            return _render(template, variables)
    except TemplateLimitError as error:
        raise TemplateLimitError(_at_line(template, error, str(error))) from None
    except MemoryError as error:
        message = f"the template needs more than {MEMORY_ALLOWANCE >> 20:,} MiB of memory"
        raise TemplateLimitError(_at_line(template, error, message)) from None
    except RecursionError as error:
        message = "the template's macros or recursive loops nest too deeply"
        raise TemplateLimitError(_at_line(template, error, message)) from None
    except OverflowError as error:  # the sandbox's range() cap, a float too large
        raise TemplateLimitError(_at_line(template, error, str(error))) from None
    finally:
        _budget.reset(token)


def _at_line(template: jinja2.Template, error: BaseException, message: str) -> str:
    """*message*, preceded by the line of the template where *error* was raised."""
    line = None
    traceback = error.__traceback__
    while traceback is not None:  # the innermost frame of the template's code wins
        if traceback.tb_frame.f_code.co_filename == "<template>":
            line = template.get_corresponding_lineno(traceback.tb_lineno)
        traceback = traceback.tb_next
    return f"line {line}: {message}" if line is not None else message


def _render(template: jinja2.Template, variables: Mapping[str, Any]) -> str:
    size = 0
    pieces: list[str] = []
    for piece in template.root_render_func(template.new_context(dict(variables))):
        size += len(piece)
        if size > MAX_CHARS:
            raise TemplateLimitError(f"the rendered text is longer than {MAX_CHARS:,} characters")
        pieces.append(piece)
    return "".join(pieces)


@contextlib.contextmanager
def _cpu_timer() -> Iterator[None]:
    """In the main thread, interrupt the rendering after `MAX_CPU_SECONDS` of CPU time
    even inside one long operation (the steps check the clock only between operations)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    active = [True]

    def expire(_signum: int, _frame: Any) -> None:
        if active[0]:
            active[0] = False
            raise _over_time()

    previous_handler = signal.signal(signal.SIGVTALRM, expire)
    previous_timer = signal.setitimer(signal.ITIMER_VIRTUAL, MAX_CPU_SECONDS + 0.5)
    try:
        yield
    finally:
        active[0] = False
        signal.setitimer(signal.ITIMER_VIRTUAL, *previous_timer)
        signal.signal(signal.SIGVTALRM, previous_handler)
