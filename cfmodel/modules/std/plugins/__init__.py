"""The plugins of cfmodel's built-in ``std`` module.

Templates (``std::template``) are Jinja2, evaluated in the scope where the plugin is
called: a name in the template is the variable of that scope (``{{ name }}``,
``{{ host.name }}``); a namespace's ``::`` is written ``.`` (``{{ web.port }}`` for
``web::port``, ``{{ x | std.upper }}`` for the plugin ``std::upper``). The path's first
part is the module, the rest is inside the module's ``templates/`` directory
(``./x.j2``: the calling module). Paths that leave that directory are refused, and so is
a ``files/`` or ``templates/`` directory that is itself a link out of its module.

Templates are data, not code: they render in Jinja2's `SandboxedEnvironment` (no access
to ``_``-attributes, Python internals or unsafe callables; ``{{ cycler.__init__.__globals__
}}`` is an error). A module whose templates the user trusts can be rendered unsandboxed:
``CFMODEL_TRUSTED_TEMPLATES`` lists such module names, comma-separated (``*``: all).
Sandboxed templates also render within fixed bounds of steps, CPU time, value sizes and
memory (`cfmodel.modules.std.plugins.bounded`); going over one is a located error.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from cfmodel.errors import CfEvaluationError
from cfmodel.plugins import Context, PluginError, Unknown, plugin
from cfmodel.references import describe, is_reference

# ---------------------------------------------------------------- files and templates


def _module_file(ctx: Context, kind: str, path: str) -> Path:
    """``module/rest`` → ``<module>/<kind>/rest``, refusing anything that leaves that directory."""
    if path.startswith("./"):
        module = ctx.namespace.split("::")[0]
        rest = path[2:]
    else:
        module, _, rest = path.partition("/")
    if not module or not rest:
        raise PluginError(f"path {path!r} must be <module>/<path inside the module's {kind}/ directory>")
    module_root = ctx.module_dir(module).resolve()
    base = (module_root / kind).resolve()
    if not base.is_relative_to(module_root):
        raise PluginError(f"the {kind}/ directory of module {module} leads out of the module ({base})")
    target = (base / rest).resolve()
    if not target.is_relative_to(base):
        raise PluginError(f"path {path!r} leaves the {kind}/ directory of module {module}")
    if not target.is_file():
        raise PluginError(f"no file {rest!r} in the {kind}/ directory of module {module} ({target})")
    return target


@plugin("file")
def file(ctx: Context, path: str) -> str:
    """The text of ``<module>/files/<path>``."""
    return _module_file(ctx, "files", path).read_text(encoding="utf-8")


@plugin("source")
def source(ctx: Context, path: str) -> str:
    """The text of ``<module>/files/<path>`` (same as `file`)."""
    return _module_file(ctx, "files", path).read_text(encoding="utf-8")


_engine_state: dict[str, Any] = {}
_templates: dict[Path, tuple[tuple[float, bool], Any]] = {}


class _Rendering(threading.local):
    """The contexts of the templates this thread is rendering, innermost last (a template's
    plugin filters are its compile's: compiles in other threads render with theirs)."""

    def __init__(self) -> None:
        self.contexts: list[Context] = []


_rendering = _Rendering()


def _trusted(module: str) -> bool:
    """Did the user say this module's templates may run unsandboxed?"""
    names = {name.strip() for name in os.environ.get("CFMODEL_TRUSTED_TEMPLATES", "").split(",")}
    return module in names or "*" in names


def _engine(trusted: bool = False) -> Any:
    """The Jinja2 environment (made, and Jinja2 imported, on first use): sandboxed unless
    *trusted*."""
    key = "trusted" if trusted else "env"
    env = _engine_state.get(key)
    if env is not None:
        return env
    import jinja2
    import jinja2.runtime

    from cfmodel.modules.std.plugins import bounded  # lazy: Jinja2 is imported on first use

    class Filters(dict[str, Any]):
        """The built-in filters, and every plugin as ``ns.name`` (resolved per render)."""

        def __contains__(self, name: object) -> bool:
            return super().__contains__(name) or (isinstance(name, str) and "." in name)

        def get(self, name: str, default: Any = None) -> Any:
            try:
                return self[name]
            except KeyError:
                return default

        def __missing__(self, name: str) -> Any:
            if "." not in name:
                raise KeyError(name)
            qualified = name.replace(".", "::")

            def call(*args: Any, **kwargs: Any) -> Any:
                functions = _rendering.contexts[-1].plugin_functions()
                if qualified not in functions:
                    raise PluginError(f"no plugin {qualified} for the template filter '{name}'")
                return functions[qualified](*args, **kwargs)

            return call if trusted else bounded.bound_plugin_filter(call)

    class ScopeContext(jinja2.runtime.Context):
        """Names in a template are looked up in the calling scope."""

        def resolve_or_missing(self, key: str) -> Any:
            ctx = self.parent.get("__cfmodel_context__")
            if ctx is None or not isinstance(ctx, Context):
                return super().resolve_or_missing(key)
            try:
                value = ctx.lookup(key)
                if is_reference(value):  # as inmanta's std: a deploy-time value cannot be rendered
                    raise PluginError(
                        f"Encountered reference in Jinja template for variable {key} (= `{describe(value)}`)"
                    )
                return value
            except CfEvaluationError as error:
                if error.code == "no-value":  # an optional relation without a value: undefined, as in inmanta
                    return jinja2.utils.missing
                if error.code not in ("undefined", "not-a-value"):
                    raise
            if key in ctx.imports():
                return _Namespace(ctx, key)
            return super().resolve_or_missing(key)

    # keep_trailing_newline=False: a template's last newline is dropped, as inmanta's std does.
    options: dict[str, Any] = {
        "undefined": jinja2.StrictUndefined,
        "keep_trailing_newline": False,
        "autoescape": False,
    }
    env = jinja2.Environment(**options) if trusted else bounded.environment(**options)
    env.context_class = ScopeContext
    env.filters = Filters(env.filters)
    _engine_state[key] = env
    _engine_state["errors"] = (jinja2.UndefinedError, jinja2.TemplateSyntaxError, jinja2.TemplateError)
    return env


class _Namespace:
    """``web.x`` in a template: the variable ``web::x`` (or a deeper namespace)."""

    def __init__(self, ctx: Context, prefix: str) -> None:
        self._ctx = ctx
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        qualified = f"{self._prefix}::{name}"
        if qualified in self._ctx.imports():
            return _Namespace(self._ctx, qualified)
        functions = self._ctx.plugin_functions()
        try:
            return self._ctx.lookup(qualified)
        except CfEvaluationError as error:
            if qualified in functions:
                return functions[qualified]
            if error.code in ("undefined", "not-a-value"):
                raise AttributeError(name) from None
            raise


def _compiled(path: Path, label: str, trusted: bool) -> Any:
    mtime = path.stat().st_mtime
    cached = _templates.get(path)
    if cached is not None and cached[0] == (mtime, trusted):
        return cached[1]
    from cfmodel.modules.std.plugins import bounded  # lazy: Jinja2 is imported on first use

    env = _engine(trusted)
    text = path.read_text(encoding="utf-8")
    try:
        compiled = env.from_string(text) if trusted else bounded.compile(env, text)
    except _engine_state["errors"][1] as error:
        raise PluginError(f"template {label}, line {error.lineno}: {error.message}") from None
    _templates[path] = ((mtime, trusted), compiled)
    return compiled


@plugin("template")
def template(ctx: Context, path: str, **kwargs: Any) -> str:
    """Render ``<module>/templates/<path>`` in the calling scope (or with only *kwargs*)."""
    target = _module_file(ctx, "templates", path)
    module = ctx.namespace.split("::")[0] if path.startswith("./") else path.partition("/")[0]
    from cfmodel.modules.std.plugins import bounded  # lazy: Jinja2 is imported on first use

    trusted = _trusted(module)
    compiled = _compiled(target, path, trusted)
    variables: dict[str, Any] = dict(kwargs) if kwargs else {"__cfmodel_context__": ctx}
    _rendering.contexts.append(ctx)
    undefined, _, template_error = _engine_state["errors"]
    try:
        text: str = compiled.render(variables) if trusted else bounded.render(compiled, variables)
    except bounded.TemplateLimitError as error:
        raise PluginError(f"template {path}: {error}") from None
    except undefined as error:
        raise PluginError(f"template {path}: {error.message}") from None
    except template_error as error:
        raise PluginError(f"template {path}: {error}") from None
    finally:
        _rendering.contexts.pop()
    return text


# ---------------------------------------------------------------- lists and values


@plugin
def sequence(i: int, start: int = 0, offset: int = 0) -> list[int]:
    """``i`` numbers from ``start`` (``start, start+1, …``), minus ``offset`` at the end."""
    return list(range(start, int(i) + start - offset))


@plugin("print")
def printf(message: Any) -> None:
    """Print a value on the compiler's standard output."""
    print(message)


@plugin("len")
def list_len(item_list: list[Any]) -> int:
    """The number of items of a list (or relation)."""
    return len(item_list)


@plugin
def count(item_list: list[Any]) -> int:
    """The number of items of a list (or relation)."""
    return len(item_list)


@plugin
def length(value: str) -> int:
    """The length of a string."""
    return len(value)


@plugin
def familyof(member: Any, family: str) -> bool:
    """Whether *member* (an OS name, or an entity with ``name`` and ``family``) is in *family*."""
    current: Any = member
    seen = 0
    while current is not None and seen < 100:
        name = current if isinstance(current, str) else getattr(current, "name", None)
        if name == family:
            return True
        if isinstance(current, str):
            return False
        try:
            current = getattr(current, "family", None)
        except (AttributeError, CfEvaluationError):
            return False
        seen += 1
    return False


@plugin
def flatten(item_list: list[Any]) -> list[Any]:
    """A list of lists as one list."""
    out: list[Any] = []
    for item in item_list:
        if isinstance(item, list):
            out.extend(item)
        else:
            out.append(item)
    return out


@plugin
def unique(item_list: list[Any]) -> bool:
    """Whether the list has no duplicates."""
    seen: list[Any] = []
    for item in item_list:
        if item in seen:
            return False
        seen.append(item)
    return True


@plugin
def select(objects: list[Any], attr: str) -> list[Any]:
    """The attribute *attr* of every instance of the list."""
    return [getattr(o, attr) for o in objects]


@plugin
def at(objects: list[Any], index: int) -> Any:
    """The item at *index*."""
    return objects[index]


@plugin
def key_sort(items: list[Any], key: Any) -> list[Any]:
    """The list sorted by an attribute (or a list of attributes) of its items."""
    keys = key if isinstance(key, list) else [key]
    return sorted(items, key=lambda item: tuple(getattr(item, k) for k in keys))


@plugin
def replace(string: str, old: str, new: str) -> str:
    return string.replace(old, new)


@plugin
def upper(string: str) -> str:
    return string.upper()


@plugin
def lower(string: str) -> str:
    return string.lower()


@plugin
def capitalize(string: str) -> str:
    return string.capitalize()


@plugin
def split(string_list: str, delim: str) -> list[str]:
    return string_list.split(delim)


@plugin
def join(items: list[str], separator: str = "") -> str:
    return separator.join(items)


@plugin
def contains(dct: dict[str, Any], key: str) -> bool:
    return key in dct


@plugin
def dict_get(dct: dict[str, Any], key: str) -> Any:
    return dct[key]


@plugin
def json_dumps(obj: Any) -> str:
    """JSON text of a value, keys in the order the model gives them (as inmanta's std)."""
    return json.dumps(obj)


@plugin
def json_loads(s: str) -> Any:
    return json.loads(s)


@plugin("assert")
def assert_function(expression: bool, message: str = "") -> None:
    """Fail the compile with *message* unless *expression* is true."""
    if not expression:
        raise PluginError(message or "assertion failed")


@plugin(allow_unknown=True)
def is_unknown(value: Any) -> bool:
    """Whether the value is not known at compile time."""
    return isinstance(value, Unknown)


@plugin
def get_env(name: str, default_value: str | None = None) -> str | Unknown:
    """An environment variable of the compiler's process; Unknown when it is not set (as inmanta's std)."""
    value = os.environ.get(name, default_value)
    if value is None:
        return Unknown(source=name)
    return value


@plugin
def getfact(ctx: Context, name: str, default_value: Any = None) -> Any:
    """A fact of the compile request (``--fact``/``--facts``), or *default_value*."""
    return ctx.facts.get(name, default_value)


_MISSING = object()


@plugin
def inject(ctx: Context, type_or_name: str, name: str | None = None, default: Any = _MISSING) -> Any:
    """The value the bindings inject: ``inject(type, "x")``, ``inject(type, "x", default=d)``.

    Needs an injector (``compile_project(..., injector=...)``, or a project with bindings
    through ``cfmodel compile``): an object with ``inject(type_or_name, name=None, *,
    default=...)`` (cfmodel's bindings `Injector`), or with ``lookup`` of the same signature.
    """
    injector = ctx.injector
    if injector is None:
        raise PluginError(
            "bindings are not configured: std::inject needs an injector (compile with bindings, "
            "or pass injector= to compile_project)"
        )
    function = getattr(injector, "inject", None) or injector.lookup
    if default is _MISSING:
        return function(type_or_name, name)
    return function(type_or_name, name, default=default)
