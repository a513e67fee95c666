"""``inmanta.agent.handler``: handlers import and register (`provider`), and never run in cfmodel."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from cfmodel.resources import provider

from .. import deploy_time_only

__all__ = [
    "CRUDHandler",
    "DiscoveryHandler",
    "HandlerAPI",
    "HandlerContext",
    "InvalidOperation",
    "LoggerABC",
    "PythonLogger",
    "ResourceHandler",
    "ResourcePurged",
    "SkipResource",
    "cache",
    "provider",
]

R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])


class LoggerABC:
    def debug(self, msg: str, *args: Any, **kwargs: Any) -> None:
        pass

    def info(self, msg: str, *args: Any, **kwargs: Any) -> None:
        pass

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        pass

    def error(self, msg: str, *args: Any, **kwargs: Any) -> None:
        pass

    def exception(self, msg: str, *args: Any, **kwargs: Any) -> None:
        pass


class PythonLogger(LoggerABC):
    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger


class HandlerContext(LoggerABC):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise deploy_time_only("HandlerContext")


class HandlerAPI(Generic[R]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise deploy_time_only(type(self).__name__)


class ResourceHandler(HandlerAPI[R]):
    pass


class CRUDHandler(ResourceHandler[R]):
    pass


class DiscoveryHandler(HandlerAPI[R], Generic[R, F]):
    pass


class SkipResource(Exception):  # noqa: N818 - inmanta's name
    pass


class ResourcePurged(Exception):  # noqa: N818 - inmanta's name
    pass


class InvalidOperation(Exception):  # noqa: N818 - inmanta's name
    pass


def cache(function: F | None = None, **_: Any) -> Any:
    """The handlers' cache decorator: the function unchanged."""
    if function is not None:
        return function

    def keep(target: F) -> F:
        return target

    return keep
