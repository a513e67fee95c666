"""``inmanta.plugins``: the `plugin` decorator, `Context`, `PluginException`, `deprecated`.

`plugin` takes inmanta's forms (``@plugin``, ``@plugin("name")``,
``@plugin(allow_unknown=True)``, ``@plugin(commands=..., emits_statements=...)``) and marks
the function as cfmodel's `cfmodel.plugins.plugin` does; the namespace is the function's
Python module (``inmanta_plugins.fs.sub`` → ``fs::sub``), as in inmanta.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from cfmodel.plugins import Context, PluginError, Unknown
from cfmodel.plugins import plugin as _mark

__all__ = [
    "Context",
    "ModelType",
    "PluginException",
    "Unknown",
    "allow_reference_values",
    "deprecated",
    "plugin",
]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

PluginException = PluginError


def plugin(
    function: Callable[..., Any] | str | None = None,
    commands: list[str] | None = None,
    emits_statements: bool = False,
    allow_unknown: bool = False,
) -> Any:
    """Mark a function as a plugin (inmanta's signature; *commands* and *emits_statements* are ignored)."""
    del commands, emits_statements
    if callable(function):
        return _mark(function)
    return _mark(function, allow_unknown=allow_unknown)


def deprecated(
    function: Callable[..., Any] | None = None, *, replaced_by: str | None = None, **_: Any
) -> Any:
    """Mark a plugin as deprecated (cfmodel runs it all the same)."""
    del replaced_by
    if function is not None:
        return function

    def keep(target: F) -> F:
        return target

    return keep


def allow_reference_values(instance: T) -> T:
    """An instance whose attributes may be read even when they hold references (one level)."""
    allow = getattr(instance, "_allow_references", None)
    return allow() if callable(allow) else instance


class ModelType:
    """``ModelType["std::Entity"]``: an annotation naming a language type."""

    def __class_getitem__(cls, key: str) -> Any:
        return Annotated[object, key]
