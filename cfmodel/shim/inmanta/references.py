"""``inmanta.references``: the names module code uses; cfmodel resolves no references."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
C = TypeVar("C", bound=type)

__all__ = ["Reference", "reference"]


class Reference(Generic[T]):
    def __init__(self) -> None:
        self._model_type: Any = None

    def resolve(self, logger: Any) -> T:
        raise NotImplementedError

    def resolve_other(self, value: Any, logger: Any) -> Any:
        return value.resolve(logger) if isinstance(value, Reference) else value


def reference(name: str) -> Callable[[C], C]:
    def register(cls: C) -> C:
        return cls

    return register
