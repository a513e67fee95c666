"""``inmanta.ast``: the exceptions plugins raise and catch (cfmodel's, `cfmodel.plugins`)."""

from __future__ import annotations

from cfmodel.plugins import (
    CompilerException,
    ExternalException,
    NotFoundException,
    OptionalValueException,
    RuntimeException,
    UnexpectedReference,
    UnknownException,
)

__all__ = [
    "CompilerException",
    "ExternalException",
    "Location",
    "Namespace",
    "NotFoundException",
    "OptionalValueException",
    "RuntimeException",
    "TypingException",
    "UnexpectedReference",
    "UnknownException",
    "UnsetException",
]


class TypingException(RuntimeException):
    pass


class UnsetException(RuntimeException):
    pass


class Location:
    def __init__(self, file: str = "", lnr: int = 0) -> None:
        self.file = file
        self.lnr = lnr


class Namespace:
    """A namespace as `Context.owner.namespace` shows it: its full name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def get_full_name(self) -> str:
        return self.name
