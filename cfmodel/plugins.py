"""Plugins: Python functions that `.cf` code calls, like ``std::template(...)``.

A module's ``plugins/__init__.py`` defines them with the `plugin` decorator; they
become functions of the module's namespace (``mymodule::name``). Arguments and the
return value are checked against the language types written as annotations::

    from cfmodel.plugins import Context, Unknown, plugin

    @plugin
    def upper(value: "string") -> "string":
        return value.upper()

    @plugin("first_host")          # the name the model uses
    def first(ctx: Context, hosts: "std::Host[]") -> "std::Host?":
        return hosts[0] if hosts else None

Annotations are language types as strings (``"string"``, ``"int[]"``, ``"dict"``,
``"any"``, ``"std::Entity"``, ``"mymodule::port?"``, ``"null"`` for no result) or the
Python types ``str``, ``int``, ``float``, ``bool``, ``list``, ``dict``, ``object`` and
``None``. Names are resolved in the plugin's own module namespace. A parameter
annotated with `Context` receives the call's context and is not a language argument.
Parameters with a Python default are optional; ``**kwargs`` collects extra keyword
arguments (each checked against its annotation).

`Unknown` is a value that is not known yet (it will be in a later deployment step):
a plugin may return it; a plugin called with an `Unknown` argument is not run and its
result is `Unknown` (unless declared with ``allow_unknown=True``). Entity instances
arrive as read-only proxies: reading an attribute that is not known yet makes the
compiler run the call again later, so a plugin must not have side effects before it
has read everything it needs. Any exception a plugin raises becomes a compile error at
the call, with the exception as its cause; raise `PluginError` for a message without
the exception's type name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar, overload

__all__ = [
    "CompilerException",
    "Context",
    "NoneValue",
    "NotFoundException",
    "OptionalValueException",
    "PluginError",
    "PluginSpec",
    "RuntimeException",
    "UnexpectedReference",
    "Unknown",
    "UnknownException",
    "plugin",
]

F = TypeVar("F", bound=Callable[..., Any])

PLUGIN_ATTRIBUTE = "__cfmodel_plugin__"


class Unknown:
    """A value that is not known at compile time; it propagates through expressions."""

    __slots__ = ("source",)

    def __init__(self, source: object = None) -> None:
        self.source = source

    def __repr__(self) -> str:
        return "Unknown"


class NoneValue:
    """inmanta's internal null (``inmanta.execute.util.NoneValue``): a plugin returning one returns null."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NoneValue)

    def __hash__(self) -> int:
        return hash(None)

    def __repr__(self) -> str:
        return "null"


class PluginError(Exception):
    """Raise from a plugin for a clean error message at the call site (inmanta's ``PluginException``)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message


# The exceptions inmanta's compile-time API names (``inmanta.ast``), so that plugins written for
# inmanta raise and catch them unchanged (cfmodel's ``inmanta`` stand-in re-exports these).


class CompilerException(Exception):  # noqa: N818 - inmanta's name
    """A problem of the model, raised by plugin code; reported at the plugin call."""

    def __init__(self, msg: str = "") -> None:
        super().__init__(msg)
        self.msg = msg


class RuntimeException(CompilerException):
    """``RuntimeException(stmt, msg)``: a problem found while running the model."""

    def __init__(self, stmt: object = None, msg: str = "") -> None:
        super().__init__(msg)
        self.stmt = stmt


class ExternalException(RuntimeException):
    """``ExternalException(stmt, msg, cause)``: a plugin failed."""

    def __init__(self, stmt: object = None, msg: str = "", cause: BaseException | None = None) -> None:
        super().__init__(stmt, msg)
        self.__cause__ = cause


class OptionalValueException(RuntimeException, AttributeError):  # noqa: N818 - inmanta's name
    """An optional relation without a value was read (from a plugin or a template, through an instance).

    Also an `AttributeError`, so that ``hasattr`` and Jinja's ``is defined`` see no value."""

    def __init__(self, instance: object = None, attribute: object = None) -> None:
        super().__init__(None, f"optional attribute '{attribute}' of {instance} has no value")
        self.instance = instance
        self.attribute = attribute


class NotFoundException(RuntimeException):
    """``NotFoundException(stmt, name, msg=None)``: a name or attribute does not exist."""

    def __init__(self, stmt: object = None, name: str = "", msg: str | None = None) -> None:
        super().__init__(stmt, msg or f"could not find value {name}")
        self.name = name


class UnexpectedReference(RuntimeException):
    """Plugin code read a reference (an Inmanta 20 deploy-time value) it did not ask for."""

    def __init__(self, reference: object = None, message: str = "") -> None:
        super().__init__(None, message)
        self.reference = reference


class UnknownException(Exception):  # noqa: N818 - inmanta's name
    """Raised when plugin code reads a value that is `Unknown` through an instance; the call gives Unknown."""

    def __init__(self, unknown: Unknown) -> None:
        super().__init__("value is unknown")
        self.unknown = unknown


class PluginSpec:
    """What the decorator records on a function: its language name and options."""

    __slots__ = ("allow_unknown", "function", "name")

    def __init__(self, name: str, function: Callable[..., Any], allow_unknown: bool) -> None:
        self.name = name
        self.function = function
        self.allow_unknown = allow_unknown

    def __repr__(self) -> str:
        return f"PluginSpec({self.name!r})"


@overload
def plugin(function: F, /) -> F: ...


@overload
def plugin(name: str | None = None, /, *, allow_unknown: bool = False) -> Callable[[F], F]: ...


def plugin(target: Callable[..., Any] | str | None = None, /, *, allow_unknown: bool = False) -> Any:
    """Mark a function as a plugin: ``@plugin``, ``@plugin("name")`` or ``@plugin(allow_unknown=True)``."""

    def mark(function: F, name: str | None) -> F:
        if not callable(function):
            raise TypeError("@plugin decorates functions")
        spec = PluginSpec(name or function.__name__, function, allow_unknown)
        setattr(function, PLUGIN_ATTRIBUTE, spec)
        return function

    if callable(target):
        return mark(target, None)
    name = target

    def decorator(function: F) -> F:
        return mark(function, name)

    return decorator


class _ContextBackend(Protocol):
    """What the compiler gives a `Context` (internal)."""

    def lookup(self, name: str) -> Any: ...

    def module_dir(self, module: str) -> Path: ...

    def namespace_name(self) -> str: ...

    def location(self) -> str: ...

    def facts(self) -> dict[str, Any]: ...

    def injector(self) -> Any: ...

    def plugin_functions(self) -> dict[str, Callable[..., Any]]: ...

    def imports(self) -> dict[str, str]: ...


class Context:
    """The call's context, for plugins that declare a parameter of this type.

    * `lookup(name)`: the value of a variable (or ``ns::name``) visible where the
      plugin is called, as the model sees it (waits, like any read, until it is known);
    * `module_dir(name)`: the directory of a loaded module (``files/``, ``templates/``);
    * `namespace`: the calling namespace; `location`: ``file:line:col`` of the call;
    * `facts`: the facts of the compile request; `injector`: the bindings injector or
      None.
    """

    __slots__ = ("_backend",)

    def __init__(self, backend: _ContextBackend) -> None:
        self._backend = backend

    def lookup(self, name: str) -> Any:
        return self._backend.lookup(name)

    def module_dir(self, module: str) -> Path:
        return self._backend.module_dir(module)

    @property
    def namespace(self) -> str:
        return self._backend.namespace_name()

    @property
    def location(self) -> str:
        return self._backend.location()

    @property
    def facts(self) -> dict[str, Any]:
        return self._backend.facts()

    @property
    def injector(self) -> Any:
        return self._backend.injector()

    def plugin_functions(self) -> dict[str, Callable[..., Any]]:
        """Every plugin visible from the calling namespace, as ``ns::name`` → callable."""
        return self._backend.plugin_functions()

    def imports(self) -> dict[str, str]:
        """The calling namespace's import prefixes (alias or name → full namespace name)."""
        return self._backend.imports()

    def get_environment_id(self) -> str:
        """inmanta's environment id: cfmodel compiles for none, so ``"None"`` (what inmanta-core
        gives when no environment is configured: ``str(None)``)."""
        return "None"

    @property
    def compiler(self) -> object:
        """inmanta's compiler object: cfmodel has no mocked facts or other test hooks to show."""
        return _NO_COMPILER


class _NoCompiler:
    """What `Context.compiler` gives: an object with none of inmanta's test hooks (``refs``)."""

    __slots__ = ()


_NO_COMPILER = _NoCompiler()
