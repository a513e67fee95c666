"""Plugins at run time: loading a module's ``plugins/`` package, checked calls.

A module's plugins are loaded the first time the model calls one of them: the
module's ``plugins/__init__.py`` (and, for a namespace ``mod::a``, ``plugins/a.py`` or
``plugins/a/__init__.py``) is executed as a fresh Python module; every function in it
marked with `cfmodel.plugins.plugin` becomes a function of that namespace.

A call binds the arguments like Python does (positional, keyword, ``**dict``), checks
each against its annotation (a language type, resolved in the plugin's namespace),
gives up with `Unknown` when an argument is unknown (unless the plugin allows it),
runs the function with instances wrapped in read-only proxies, and checks the result.
A plugin's exception becomes a ``plugin-error`` at the call, with the exception as
cause and the line that raised it as a note.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
import threading
import traceback
import types
import typing
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from cfmodel.errors import CfModelError, Note, Span
from cfmodel.grammars import nodes
from cfmodel.plugins import PLUGIN_ATTRIBUTE, Context, PluginError, PluginSpec, Unknown
from cfmodel.project import BUILTIN_MODULES
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.refine.errors import Blocked, fail, kind_of, show
from cfmodel.transforms.cf.refine.frames import Frame
from cfmodel.transforms.cf.refine.typecheck import check_entity
from cfmodel.transforms.cf.refine.values import Instance, Value

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.evaluator import Evaluator
    from cfmodel.transforms.cf.refine.scheduler import Task

_PYTHON_TYPES: dict[object, str] = {
    str: "string",
    int: "int",
    float: "float",
    bool: "bool",
    list: "list",
    dict: "dict",
    object: "any",
    Any: "any",
    None: "null",
    type(None): "null",
}
_LANGUAGE_NAMES = frozenset(p.PRIMITIVE_NAMES) | {"null", "expression"}
_ELEMENT_TYPES = ("string", "int", "float", "bool", "number")


def language_type(annotation: object, scope: dict[str, Any]) -> str | None:
    """The language type an annotation means: a language string as written, or a Python type.

    Python types: ``str``, ``int``, ``float``, ``bool``, ``dict``/``dict[str, X]``,
    ``list``/``list[X]`` (``X[]`` for a primitive X), ``Any``/``object`` (any), ``None``
    (null), ``X | None`` (``X?``), ``Annotated[X, "lang"]`` (``lang``).
    """
    if isinstance(annotation, str):
        text = annotation.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            return text[1:-1].strip()  # `from __future__ import annotations` keeps the quotes
        base = text.rstrip("?")
        base = base[:-2] if base.endswith("[]") else base
        if "::" in base or base in _LANGUAGE_NAMES:
            return text
        try:
            annotation = eval(text, dict(scope))
        except Exception:
            return text
    return _python_type(annotation)


def _python_type(annotation: object) -> str | None:
    simple = _PYTHON_TYPES.get(annotation) if _hashable(annotation) else None
    if simple is not None:
        return simple
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        extra = [a for a in args[1:] if isinstance(a, str)]
        return extra[0] if extra else _python_type(args[0])
    if origin is list:
        if len(args) == 1:
            element = _python_type(args[0])
            if element in _ELEMENT_TYPES:
                return f"{element}[]"
        return "list"
    if origin is dict:
        return "dict"
    if origin is typing.Union or origin is types.UnionType:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            inner = _python_type(rest[0])
            if inner is None or inner in ("any", "null") or inner.endswith("?"):
                return inner
            return inner + "?"
        return "any"
    return None


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


# The plugin modules loaded in this process, by file (and its mtime): Python modules are
# process-wide (sys.modules), so this is too; a lock keeps two compiles in two threads from
# loading one file twice. Keyed by path, never by id(): nothing of one compile stays here.
_LOADED: dict[Path, tuple[float, ModuleType]] = {}
_LOADING = threading.RLock()


class PluginType:
    """A parsed annotation: any, null, an entity or an attribute type."""

    __slots__ = ("entity", "kind", "spec", "text")

    def __init__(
        self, text: str, kind: str, entity: p.EntityType | None = None, spec: p.TypeSpec | None = None
    ) -> None:
        self.text = text
        self.kind = kind  # "any", "null", "entity", "value"
        self.entity = entity
        self.spec = spec


class Plugin:
    """One loaded plugin: its function, signature and (lazily parsed) types."""

    def __init__(self, spec: PluginSpec, namespace: str, module_ns: str, file: str) -> None:
        self.spec = spec
        self.file = file
        self.qname = f"{namespace}::{spec.name}"
        self.module_ns = module_ns
        function = spec.function
        self.function = function
        signature = inspect.signature(function)
        self.context_param: str | None = None
        self.var_keyword: str | None = None
        params = []
        for param in signature.parameters.values():
            if param.kind == param.VAR_POSITIONAL:
                raise TypeError(f"plugin {self.qname}: *args is not supported")
            if param.kind == param.VAR_KEYWORD:
                self.var_keyword = param.name
            annotation = param.annotation
            if annotation is Context or (
                isinstance(annotation, str) and annotation.strip("'\"").split(".")[-1] == "Context"
            ):
                self.context_param = param.name
                continue
            params.append(param)
        self.signature = signature.replace(parameters=params)
        self.annotations: dict[str, object] = {param.name: param.annotation for param in params}
        self.returns: object = signature.return_annotation
        self.types: dict[str, PluginType] | None = None
        self.return_type: PluginType | None = None


class PluginRuntime:
    """The plugins of one compile."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self.registries: dict[str, dict[str, Plugin]] = {}
        self.call_cache: dict[int, Plugin] = {}

    # -- loading

    def module_root(self, module: str) -> Path | None:
        project = self.ev.project
        if project is not None and module in project.modules:
            return project.modules[module].root
        builtin = BUILTIN_MODULES / module
        return builtin if builtin.is_dir() else None

    def registry(self, namespace: str) -> dict[str, Plugin]:
        found = self.registries.get(namespace)
        if found is not None:
            return found
        registry: dict[str, Plugin] = {}
        self.registries[namespace] = registry
        module, *rest = namespace.split("::")
        root = self.module_root(module)
        if root is None:
            return registry
        plugins_dir = root / "plugins"
        if not rest:
            path = plugins_dir / "__init__.py"
        else:
            base = plugins_dir.joinpath(*rest)
            path = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if not path.is_file():
            return registry
        python_module = self._load(path, plugins_dir, module, rest)
        for value in list(vars(python_module).values()):
            spec = getattr(value, PLUGIN_ATTRIBUTE, None)
            if isinstance(spec, PluginSpec) and spec.function is value:
                try:
                    registry[spec.name] = Plugin(spec, namespace, module, _defined_in(value, path))
                except TypeError as error:
                    raise fail(str(error), Span(str(path), 1, 1, 1, 1), "bad-plugin") from None
        return registry

    def _load(self, path: Path, plugins_dir: Path, module: str, rest: list[str]) -> ModuleType:
        with _LOADING:
            return self._load_once(path, plugins_dir, module, rest)

    def _load_once(self, path: Path, plugins_dir: Path, module: str, rest: list[str]) -> ModuleType:
        resolved = path.resolve()
        try:
            mtime = resolved.stat().st_mtime
        except OSError:
            mtime = 0.0
        cached = _LOADED.get(resolved)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        token = hashlib.sha256(str(plugins_dir.resolve()).encode()).hexdigest()[:10]
        package = f"cfmodel_plugins_{module}_{token}"
        if rest and (plugins_dir / "__init__.py").is_file():
            self._load(plugins_dir / "__init__.py", plugins_dir, module, [])  # the package first
        name = package if not rest else package + "." + ".".join(rest)
        is_package = path.name == "__init__.py"
        locations = [str(path.parent)] if is_package else None
        spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
        if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
            raise fail(f"cannot load plugins from {path}", Span(str(path), 1, 1, 1, 1), "bad-plugin")
        python_module = importlib.util.module_from_spec(spec)
        sys.modules[name] = python_module
        try:
            spec.loader.exec_module(python_module)
        except Exception as error:
            sys.modules.pop(name, None)
            line = _raised_line(error, str(path))
            raise fail(
                f"loading the plugins of module {module} failed: {type(error).__name__}: {error}",
                Span(str(path), line or 1, 1, line or 1, 1),
                "bad-plugin",
            ) from error
        _LOADED[resolved] = (mtime, python_module)
        return python_module

    def find(self, name: str, ns: p.LinkedNamespace, span: Span) -> Plugin:
        prefix, _, local = name.rpartition("::")
        if prefix:
            target = ns.imports.get(prefix)
            if target is None:
                raise fail(
                    f"'{prefix}' is not imported in namespace {ns.name} (add 'import {prefix}')",
                    span,
                    "missing-import",
                )
            plugin = self.registry(target).get(local)
            if plugin is None:
                raise fail(f"namespace {target} has no plugin '{local}'", span, "unknown-plugin")
            return plugin
        current = ns.name
        while True:
            plugin = self.registry(current).get(local)
            if plugin is not None:
                return plugin
            if "::" not in current:
                break
            current = current.rpartition("::")[0]
        raise fail(
            f"no plugin '{local}' in namespace {ns.name} "
            "(plugins of other modules are called as module::name)",
            span,
            "unknown-plugin",
        )

    # -- calling

    def call(self, node: nodes.FunctionCall, frame: Frame, task: Task) -> Value:
        ev = self.ev
        plugin = self.call_cache.get(id(node))
        if plugin is None:
            plugin = self.call_cache[id(node)] = self.find(node.name.text, frame.ns, node.name.span)
        args = [ev.eval(a, frame, task) for a in node.positional]
        kwargs: dict[str, Any] = {}
        for argument in node.arguments:
            kwargs[argument.name.text] = ev.eval(argument.value, frame, task)
        for wrapped in node.wrapped_kwargs:
            mapping = ev.eval(wrapped, frame, task)
            if type(mapping) is not dict:
                raise fail(
                    f"** needs a dict, not {kind_of(mapping)} {show(mapping)}", wrapped.span, "type-error"
                )
            for key, value in mapping.items():
                if key in kwargs:
                    raise fail(f"argument '{key}' is given twice", wrapped.span, "duplicate-argument")
                kwargs[key] = value
        return self.invoke(plugin, args, kwargs, frame, task, node.span)

    def invoke(
        self, plugin: Plugin, args: list[Any], kwargs: dict[str, Any], frame: Frame, task: Task, span: Span
    ) -> Value:
        try:
            bound = plugin.signature.bind(*args, **kwargs)
        except TypeError as error:
            raise fail(
                f"wrong arguments for plugin {plugin.qname}{plugin.signature}: {error}",
                span,
                "plugin-arguments",
            ) from None
        bound.apply_defaults()
        types = self._types(plugin, span)
        if not plugin.spec.allow_unknown:
            for value in bound.arguments.values():
                if isinstance(value, Unknown) or (
                    type(value) is list and any(isinstance(v, Unknown) for v in value)
                ):
                    return Unknown(span)
        call_args: dict[str, Any] = {}
        for name, value in bound.arguments.items():
            declared = types.get(name)
            if name == plugin.var_keyword:
                checked = {}
                for key, item in value.items():
                    if declared is not None:
                        item = self._check(declared, item, span, f"argument '{key}' of plugin {plugin.qname}")
                    checked[key] = to_python(self.ev, item)
                call_args.update(checked)
                continue
            if declared is not None:
                value = self._check(declared, value, span, f"argument '{name}' of plugin {plugin.qname}")
            call_args[name] = to_python(self.ev, value)
        if plugin.context_param is not None:
            call_args[plugin.context_param] = Context(_Backend(self, frame, task, span, plugin))
        try:
            result = plugin.function(**call_args)
        except Blocked:
            raise
        except CfModelError as error:
            if error.span is None:
                error.span = span
            raise
        except PluginError as error:
            raise fail(f"{plugin.qname}: {error}", span, "plugin-error") from error
        except Exception as error:
            line = _raised_line(error, inspect.getsourcefile(plugin.function) or "")
            notes = [Note(Span(plugin.file, line, 1, line, 1), "raised here")] if line else []
            raise fail(
                f"plugin {plugin.qname} failed: {type(error).__name__}: {error}", span, "plugin-error", notes
            ) from error
        returned: Value = from_python(result)
        if plugin.return_type is not None and not isinstance(returned, Unknown):
            returned = self._check(plugin.return_type, returned, span, f"the result of plugin {plugin.qname}")
        return returned

    def _types(self, plugin: Plugin, span: Span) -> dict[str, PluginType]:
        if plugin.types is not None:
            return plugin.types
        types: dict[str, PluginType] = {}
        for name, annotation in plugin.annotations.items():
            if annotation is inspect.Parameter.empty:
                continue
            types[name] = self._parse(plugin, annotation, span)
        if plugin.returns is not inspect.Signature.empty:
            plugin.return_type = self._parse(plugin, plugin.returns, span)
        plugin.types = types
        return types

    def _parse(self, plugin: Plugin, annotation: object, span: Span) -> PluginType:
        text = language_type(annotation, getattr(plugin.function, "__globals__", {}))
        if text is None:
            raise fail(
                f"plugin {plugin.qname}: annotation {annotation!r} is not a language type "
                '(use a Python type like list[str], or a string like "std::Entity[]")',
                span,
                "bad-plugin",
            )
        if text in ("any", "expression"):
            return PluginType(text, "any")
        if text == "null":
            return PluginType(text, "null")
        nullable = text.endswith("?")
        core = text[:-1] if nullable else text
        multi = core.endswith("[]")
        base = core[:-2] if multi else core
        ns = self.ev.program.namespaces.get(plugin.module_ns)
        found: object = p.PRIMITIVES.get(base)
        if found is None and ns is not None:
            found = ns.lookup_type(base)
        if isinstance(found, p.EntityType):
            return PluginType(
                text, "entity", entity=found, spec=p.TypeSpec(p.PRIMITIVES["any"], multi, nullable)
            )
        if isinstance(found, p.Primitive | p.Typedef | p.EnumType):
            return PluginType(text, "value", spec=p.TypeSpec(found, multi, nullable))
        raise fail(f"plugin {plugin.qname}: unknown type '{base}' in annotation {text!r}", span, "bad-plugin")

    def _check(self, declared: PluginType, value: Any, span: Span, what: str) -> Any:
        kind = declared.kind
        if kind == "any":
            return value
        if kind == "null":
            if value is not None:
                raise fail(f"{what} must be null (nothing), not {show(value)}", span, "plugin-type")
            return None
        spec = declared.spec
        assert spec is not None
        if kind == "entity":
            assert declared.entity is not None
            if value is None:
                if spec.nullable:
                    return None
                raise fail(f"{what} cannot be null ({declared.text})", span, "plugin-type")
            if spec.multi and type(value) is not list:
                raise fail(f"{what} must be a list ({declared.text}), not {show(value)}", span, "plugin-type")
            try:
                if spec.multi:
                    return [check_entity(declared.entity, v, span, what) for v in value]
                return check_entity(declared.entity, value, span, what)
            except CfModelError as error:
                error.code = "plugin-type"
                raise
        try:
            return self.ev.checker.check(spec, value, span, what)
        except CfModelError as error:
            error.code = "plugin-type" if error.code == "type-error" else error.code
            raise


class _Backend:
    """What a plugin's `Context` reaches: the calling scope and the compile."""

    __slots__ = ("frame", "plugin", "runtime", "span", "task")

    def __init__(self, runtime: PluginRuntime, frame: Frame, task: Task, span: Span, plugin: Plugin) -> None:
        self.runtime = runtime
        self.frame = frame
        self.task = task
        self.span = span
        self.plugin = plugin

    def lookup(self, name: str) -> Any:
        ev = self.runtime.ev
        slot = ev.lookup(name, self.frame, self.span)
        return to_python(ev, ev.read_slot(slot, self.span))

    def module_dir(self, module: str) -> Path:
        root = self.runtime.module_root(module)
        if root is None:
            raise PluginError(f"no module named '{module}' is loaded")
        return root

    def namespace_name(self) -> str:
        return self.frame.ns.name

    def location(self) -> str:
        return self.span.start()

    def facts(self) -> dict[str, Any]:
        return self.runtime.ev.facts

    def injector(self) -> Any:
        return self.runtime.ev.injector

    def imports(self) -> dict[str, str]:
        return dict(self.frame.ns.imports)

    def plugin_functions(self) -> dict[str, Callable[..., Any]]:
        runtime = self.runtime
        out: dict[str, Callable[..., Any]] = {}
        ns = self.frame.ns
        for prefix, target in sorted(ns.imports.items()):
            for name, plugin in runtime.registry(target).items():
                out[f"{prefix}::{name}"] = self._bound(plugin)
        return out

    def _bound(self, plugin: Plugin) -> Callable[..., Any]:
        runtime = self.runtime

        def call(*args: Any, **kwargs: Any) -> Any:
            args_in = [from_python(a) for a in args]
            kwargs_in = {k: from_python(v) for k, v in kwargs.items()}
            return to_python(
                runtime.ev, runtime.invoke(plugin, args_in, kwargs_in, self.frame, self.task, self.span)
            )

        return call


class InstanceProxy:
    """An entity instance as plugins and templates see it: attributes read-only."""

    __slots__ = ("_ev", "_instance")

    def __init__(self, instance: Instance, ev: Evaluator) -> None:
        object.__setattr__(self, "_instance", instance)
        object.__setattr__(self, "_ev", ev)

    def __getattr__(self, name: str) -> Any:
        instance: Instance = object.__getattribute__(self, "_instance")
        slot = instance.slot(name)
        if slot is None:
            raise AttributeError(f"{instance.info.qname} has no attribute or relation '{name}'")
        value = slot.get()
        return to_python(object.__getattribute__(self, "_ev"), value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("entity instances are read-only in plugins")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, InstanceProxy):
            return object.__getattribute__(self, "_instance") is object.__getattribute__(other, "_instance")
        return False

    def __hash__(self) -> int:
        return id(object.__getattribute__(self, "_instance"))

    def __repr__(self) -> str:
        return repr(object.__getattribute__(self, "_instance"))

    def __str__(self) -> str:
        return str(object.__getattribute__(self, "_instance"))

    @property
    def entity_name(self) -> str:
        instance: Instance = object.__getattribute__(self, "_instance")
        return instance.info.qname


def to_python(ev: Evaluator, value: Any) -> Any:
    """A language value as plugins receive it (instances wrapped)."""
    kind = type(value)
    if kind is Instance:
        return InstanceProxy(value, ev)
    if kind is list:
        if any(type(v) is Instance or type(v) is list or type(v) is dict for v in value):
            return [to_python(ev, v) for v in value]
        return list(value)
    if kind is dict:
        return {k: to_python(ev, v) for k, v in value.items()}
    return value


def from_python(value: Any) -> Any:
    """A plugin's result as a language value (proxies unwrapped, tuples as lists)."""
    kind = type(value)
    if kind is InstanceProxy:
        return object.__getattribute__(value, "_instance")
    if kind is list or kind is tuple:
        return [from_python(v) for v in value]
    if kind is dict:
        return {str(k): from_python(v) for k, v in value.items()}
    return value


def _defined_in(function: Any, loaded: Path) -> str:
    """The file a plugin function is defined in, as the project names it (relative if it was)."""
    source = inspect.getsourcefile(function) or str(loaded)
    if Path(source).resolve() == loaded.resolve():
        return str(loaded)
    return source


def _raised_line(error: BaseException, file: str) -> int:
    """The last line of *file* in the traceback of *error* (0 if none)."""
    line = 0
    for frame in traceback.extract_tb(error.__traceback__):
        if file and Path(frame.filename).resolve() == Path(file).resolve():
            line = frame.lineno or 0
    return line
