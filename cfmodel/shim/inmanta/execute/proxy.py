"""``inmanta.execute.proxy``: `DynamicProxy` is cfmodel's read-only instance proxy.

Lists and dicts reach plugins as Python lists and dicts in cfmodel; `SequenceProxy` and
`DictProxy` exist so that code testing for them imports (cfmodel never makes them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cfmodel.plugins import UnknownException
from cfmodel.transforms.cf.refine.pluginrt import InstanceProxy as DynamicProxy

from .util import NoneValue

__all__ = [
    "CallProxy",
    "DictProxy",
    "DynamicProxy",
    "IteratorProxy",
    "NoneValue",
    "ProxyContext",
    "SequenceProxy",
    "UnknownException",
]


class ProxyContext:
    def __init__(self, path: str = "", validated: bool = True, **_: Any) -> None:
        self.path = path
        self.validated = validated

    def allow_references(self) -> ProxyContext:
        return self


class SequenceProxy(list[Any]):
    def _get_instance(self) -> list[Any]:
        return list(self)


class DictProxy(dict[str, Any]):
    def _get_instance(self) -> dict[str, Any]:
        return dict(self)


class IteratorProxy:
    def __init__(self, iterator: Any, **_: Any) -> None:
        self._iterator = iter(iterator)

    def _is_sequence(self) -> bool:
        return True

    def __iter__(self) -> IteratorProxy:
        return self

    def __next__(self) -> Any:
        return next(self._iterator)


class CallProxy:
    def __init__(self, instance: Callable[..., Any], **_: Any) -> None:
        self._instance = instance

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._instance(*args, **kwargs)
