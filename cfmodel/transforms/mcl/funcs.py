"""The Python function API of mcl (the seed's ``Func``, ``BuildableFunc``, ``InferableFunc``).

A `Function` declares:

* ``signature``: a type string such as ``func(a str, b int) float`` or, with unification
  variables, ``func(a ?1, b ?2, foo []?3) ?1`` (fresh variables at every call site);
* ``stream``: a generator function ``stream(world, *args)`` yielding the function's values
  (a stream, as mgmt's engine runs them; a program's value is the first of every stream);
* ``build`` (optional, a BuildableFunc): called after unification with the solved signature;
  returns an error message when that solution is not one the function supports (``+`` on
  bools), else None; the stream finds the solved signature in ``world.signature``;
* ``infer`` (optional, an InferableFunc): called before unification with the arguments'
  values where they are literals (None otherwise); returns the signature for this call
  (``fmt.printf`` reads its format string). Raise `InferError` to refuse the call.
* ``reads``: what a function reads from the world, if anything (``"fact hostname"``,
  ``"files"``); such functions take their values from the facts and files given to the
  compile, never from the machine it runs on.

A `Library` is an ordinary mapping of dotted names (``fmt.printf``, ``len``) to functions;
``transforms/mcl/core.py`` makes the core library, and a caller may add its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cfmodel.transforms.mcl.types import FuncOf

Value = Any


class InferError(Exception):
    """An InferableFunc cannot make a signature for this call (the message says why)."""


class StreamError(Exception):
    """A function's stream failed (the message says why): reported as ``mcl-runtime``."""


@dataclass
class World:
    """What functions may read: the facts of the request and the program's files."""

    facts: Mapping[str, Any] = field(default_factory=dict)
    files_dir: Path | None = None
    caller: Callable[[Any, list[Any]], Any] | None = None  # set by the evaluator
    signature: FuncOf | None = None  # the solved signature of the call being run

    def call(self, function: Any, args: list[Any]) -> Any:
        """The value of a function value (a lambda) for *args* (higher-order functions)."""
        if self.caller is None:
            raise StreamError("functions cannot be called here")
        return self.caller(function, args)

    def fact(self, name: str, reader: str) -> Any:
        if name not in self.facts:
            raise StreamError(
                f"{reader} reads the fact {name!r}, which is not set (give it with --fact {name}=...)"
            )
        return self.facts[name]


Stream = Callable[..., Iterator[Value]]


@dataclass(frozen=True)
class Function:
    name: str
    signature: str | None
    stream: Stream
    build: Callable[[FuncOf], str | None] | None = None
    infer: Callable[[list[Value | None]], str] | None = None
    reads: str | None = None
    doc: str = ""


Library = dict[str, Function]


def pure(fn: Callable[..., Value]) -> Stream:
    """A stream of one value from a plain function of the arguments (the world unused)."""

    def stream(world: World, *args: Value) -> Iterator[Value]:
        yield fn(*args)

    stream.__name__ = getattr(fn, "__name__", "stream")
    return stream


def first_value(function: Function, world: World, args: list[Value]) -> Value:
    """The first value of the function's stream for these arguments.

    Raises:
        StreamError: the stream failed or ended without a value.
    """
    try:
        for value in function.stream(world, *args):
            return value
    except StreamError:
        raise
    except (ValueError, TypeError, ArithmeticError, LookupError, OSError, RuntimeError) as err:
        raise StreamError(f"{function.name}: {err}") from err
    raise StreamError(f"{function.name} produced no value")
