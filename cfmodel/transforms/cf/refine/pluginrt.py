"""Plugins at run time: loading a module's Python code, checked calls.

A module's plugins are loaded the first time the model calls one of them: its Python
package is imported under its real name ``inmanta_plugins.<module>``, with every
submodule, as inmanta does (`cfmodel.moduleimport`: v2 modules are installed packages,
v1 modules' ``plugins/`` and the built-in modules are served from their directories;
``import inmanta`` is cfmodel's stand-in for inmanta's compile-time API, also when inmanta-core is installed).
Every function marked as a plugin (``@plugin`` of `cfmodel.plugins` or of
``inmanta.plugins``) becomes a function of the namespace of its Python module
(``inmanta_plugins.fs`` → ``fs``, ``inmanta_plugins.fs.sub`` → ``fs::sub``). A Python file
that fails to import, or a plugin whose signature cannot be used, is reported when the
model calls a plugin it would have defined, not before: the module's other plugins work.

When the real ``std`` is used (installed or on the module path), the plugins that in
inmanta reach into the compiler or the server (``template``, ``file``, ``source``,
``getfact``) are replaced by cfmodel's own (`NATIVE_STD`), which behave as inmanta's do.

Signatures follow inmanta's rules: a parameter whose default is None accepts null
whatever its annotation says; ``*args`` and ``**kwargs`` take extra arguments, each
checked against the annotation; annotations are language types as strings (``"any"``,
``"std::Entity"``, ``"string[]"``) or Python types (``list[str]``, ``Mapping[str, X]``,
``Sequence[X]``, ``X | None``, ``Annotated[X, "lang"]``).

A call binds the arguments like Python does (positional, keyword, ``**dict``), checks
each against its annotation (a language type, resolved in the plugin's namespace),
gives up with `Unknown` when an argument is unknown (unless the plugin allows it),
runs the function with instances wrapped in read-only proxies, and checks the result.
A plugin's exception becomes a ``plugin-error`` at the call, with the exception as
cause and the line that raised it as a note.
"""

from __future__ import annotations

import collections.abc
import importlib
import inspect
import traceback
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from cfmodel import moduleimport
from cfmodel.errors import CfModelError, Note, Span
from cfmodel.grammars import nodes
from cfmodel.plugins import (
    PLUGIN_ATTRIBUTE,
    CompilerException,
    Context,
    NoneValue,
    OptionalValueException,
    PluginError,
    PluginSpec,
    UnexpectedReference,
    Unknown,
    UnknownException,
)
from cfmodel.project import BUILTIN, BUILTIN_MODULES, ModuleInfo
from cfmodel.references import (
    annotation_reference_type,
    is_reference,
    is_reference_annotation,
    reference_type,
)
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
        for extra in args[1:]:
            if isinstance(extra, str):
                return extra
            if typing.get_origin(extra) is typing.Annotated:  # ModelType["x"] inside Annotated
                return _python_type(extra)
        return _python_type(args[0])
    if origin in (list, collections.abc.Sequence, collections.abc.Iterable, collections.abc.Collection):
        if len(args) == 1:
            element = _python_type(args[0])
            if element in _ELEMENT_TYPES:
                return f"{element}[]"
        return "list"
    if origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping):
        return "dict"
    if annotation in (collections.abc.Sequence, collections.abc.Iterable, tuple):
        return "list"
    if annotation is collections.abc.Mapping:
        return "dict"
    if isinstance(origin, type) and hasattr(origin, "__class_getitem__") and origin.__module__ != "builtins":
        return "any"  # a generic class of module code (inmanta's Reference[str]): any value
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


#: cfmodel's own implementations of the real std's plugins that reach into inmanta's compiler or server.
NATIVE_STD = "cfmodel.modules.std.plugins.real"
BUILTIN_PLUGINS = "cfmodel.modules.{}.plugins"


def _int_cast(value: object) -> int:
    """``int(x)``: a number or a numeric string as an int (a float is truncated, as Python does)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PluginError(f"int() takes a number or a string, not {show(value)}")
    return int(value)


def _float_cast(value: object) -> float:
    """``float(x)``: a number or a numeric string as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PluginError(f"float() takes a number or a string, not {show(value)}")
    return float(value)


#: The type casts of the language, called like plugins without a namespace: ``int("5")``.
CASTS: dict[str, Callable[..., Any]] = {"int": _int_cast, "float": _float_cast}


class PluginType:
    """A parsed annotation: any, null, an entity or an attribute type; and where it takes
    references (Inmanta 20): ``refs`` is "" (nowhere), "also" (``X | Reference[T]``), "only"
    (``Reference[T]``) or "items" (``Sequence[X | Reference[T]]``), *held* the T."""

    __slots__ = ("entity", "held", "kind", "refs", "spec", "text")

    def __init__(
        self, text: str, kind: str, entity: p.EntityType | None = None, spec: p.TypeSpec | None = None
    ) -> None:
        self.text = text
        self.kind = kind  # "any", "null", "entity", "value"
        self.entity = entity
        self.spec = spec
        self.refs = ""
        self.held = "any"


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
        self.full_signature = signature
        self.context_param: str | None = None
        self.var_keyword: str | None = None
        self.var_positional: str | None = None
        self.nullable: frozenset[str] = frozenset(
            name for name, param in signature.parameters.items() if param.default is None
        )
        params = []
        for param in signature.parameters.values():
            if param.kind == param.VAR_POSITIONAL:
                self.var_positional = param.name
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
        self.loaded: set[str] = set()
        self.broken: dict[str, str] = {}  # ns::name -> why the plugin cannot be used
        self.failures: dict[str, list[moduleimport.LoadFailure]] = {}  # module -> files that failed
        self._modules: dict[str, ModuleInfo] | None = None

    # -- loading

    def modules(self) -> dict[str, ModuleInfo]:
        if self._modules is None:
            project = self.ev.project
            self._modules = dict(project.modules) if project is not None else {}
        return self._modules

    def module_info(self, module: str) -> ModuleInfo | None:
        found = self.modules().get(module)
        if found is not None:
            return found
        builtin = BUILTIN_MODULES / module
        return ModuleInfo(module, builtin, True, BUILTIN) if builtin.is_dir() else None

    def module_root(self, module: str) -> Path | None:
        info = self.module_info(module)
        return info.root if info is not None else None

    def registry(self, namespace: str) -> dict[str, Plugin]:
        module = namespace.split("::")[0]
        if module not in self.loaded:
            self.loaded.add(module)
            project = self.ev.project
            # this compile's modules are the ones inmanta_plugins.<name> means while it loads
            with moduleimport.loading(self.modules(), project.root if project is not None else None):
                self._load_module(module)
        return self.registries.setdefault(namespace, {})

    def _load_module(self, module: str) -> None:
        info = self.module_info(module)
        if info is None:
            return
        if info.kind == BUILTIN:
            python_modules = [importlib.import_module(BUILTIN_PLUGINS.format(module))]
            self._collect(python_modules, info, lambda _: module)
            return
        python_modules, failures = moduleimport.load_module_code(info)
        self.failures[module] = failures
        package = f"{moduleimport.PACKAGE}.{module}"

        def namespace_of(python_name: str) -> str:
            rest = python_name[len(package) :].strip(".")
            return module + ("::" + rest.replace(".", "::") if rest else "")

        self._collect(python_modules, info, namespace_of)
        if module == "std":
            native = importlib.import_module(NATIVE_STD)
            registry = self.registries.setdefault("std", {})
            for value in vars(native).values():
                spec = getattr(value, PLUGIN_ATTRIBUTE, None)
                if isinstance(spec, PluginSpec) and spec.function is value:
                    registry[spec.name] = Plugin(
                        spec, "std", "std", _defined_in(value, Path(native.__file__ or ""))
                    )
                    self.broken.pop(f"std::{spec.name}", None)

    def _collect(
        self, python_modules: list[ModuleType], info: ModuleInfo, namespace_of: Callable[[str], str]
    ) -> None:
        module = info.name
        for python_module in python_modules:
            namespace = namespace_of(python_module.__name__)
            registry = self.registries.setdefault(namespace, {})
            file = moduleimport.label_of(getattr(python_module, "__file__", None), info)
            for value in list(vars(python_module).values()):
                spec = getattr(value, PLUGIN_ATTRIBUTE, None)
                if not isinstance(spec, PluginSpec) or spec.function is not value:
                    continue
                if getattr(value, "__module__", None) != python_module.__name__:
                    continue  # imported from another module: registered there
                try:
                    registry[spec.name] = Plugin(spec, namespace, module, _defined_in(value, file))
                except (TypeError, ValueError) as error:
                    self.broken[f"{namespace}::{spec.name}"] = str(error)

    def _not_found_notes(self, namespace: str) -> list[Note]:
        notes = []
        for failure in self.failures.get(namespace.split("::")[0], []):
            error = failure.error
            line = _raised_line(error, str(failure.file)) or 1
            notes.append(
                Note(
                    Span(str(failure.file), line, 1, line, 1),
                    f"loading {failure.module} failed: {type(error).__name__}: {error}",
                )
            )
        return notes

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
                broken = self.broken.get(f"{target}::{local}")
                if broken is not None:
                    raise fail(f"plugin {target}::{local} cannot be used: {broken}", span, "bad-plugin")
                notes = self._not_found_notes(target)
                if notes:
                    message = f"namespace {target} has no plugin '{local}': its Python code failed to load"
                    raise fail(message, span, "bad-plugin", notes)
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
        cast = CASTS.get(local)
        if cast is not None:
            return Plugin(PluginSpec(local, cast, False), "builtin", "std", __file__)
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
                if isinstance(value, Unknown):
                    return Unknown(span)
        call_args: dict[str, Any] = {}
        for name, value in bound.arguments.items():
            declared = types.get(name)
            what = f"argument '{name}' of plugin {plugin.qname}"
            if name == plugin.var_keyword:
                call_args[name] = {
                    key: to_python(self.ev, self._check_param(plugin, declared, name, item, span, what))
                    for key, item in value.items()
                }
            elif name == plugin.var_positional:
                call_args[name] = tuple(
                    to_python(self.ev, self._check_param(plugin, declared, name, item, span, what))
                    for item in value
                )
            else:
                call_args[name] = to_python(
                    self.ev, self._check_param(plugin, declared, name, value, span, what)
                )
                if not plugin.spec.allow_unknown and type(call_args[name]) is list:
                    call_args[name] = _guarded(call_args[name])
        if plugin.context_param is not None:
            call_args[plugin.context_param] = Context(_Backend(self, frame, task, span, plugin))
        full = inspect.BoundArguments(
            plugin.full_signature,
            {name: call_args[name] for name in plugin.full_signature.parameters if name in call_args},
        )
        try:
            result = plugin.function(*full.args, **full.kwargs)
        except Blocked:
            raise
        except UnknownException:
            return Unknown(span)
        except CfModelError as error:
            if error.span is None:
                error.span = span
            raise
        except PluginError as error:
            raise fail(f"{plugin.qname}: {error}", span, "plugin-error") from error
        except CompilerException as error:
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

    def _check_param(
        self, plugin: Plugin, declared: PluginType | None, name: str, value: Any, span: Span, what: str
    ) -> Any:
        if declared is None or (value is None and name in plugin.nullable):
            return value  # inmanta: a parameter whose default is None takes null
        return self._check(declared, value, span, what)

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
        scope = getattr(plugin.function, "__globals__", {})
        rest, refs, held = split_reference(annotation, scope)
        if rest is None:
            parsed = PluginType(f"Reference[{held}]", "any")
        else:
            parsed = self._parse_plain(plugin, rest, scope, span)
        parsed.refs, parsed.held = refs, held
        return parsed

    def _parse_plain(
        self, plugin: Plugin, annotation: object, scope: dict[str, Any], span: Span
    ) -> PluginType:
        text = language_type(annotation, scope)
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
        refs = declared.refs
        if is_reference(value):
            return _checked_reference(declared, value, span, what)
        if refs == "only":
            raise fail(
                f"{what} must be a reference ({declared.text}), not {show(value)}", span, "plugin-type"
            )
        if refs != "items" and type(value) is list and kind != "entity":
            for item in value:
                if is_reference(item):
                    _checked_reference(declared, item, span, what)
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


def split_reference(annotation: object, scope: dict[str, Any]) -> tuple[object, str, str]:
    """An annotation without its references (None for ``Reference[T]`` alone), where it takes
    them (`PluginType.refs`) and the language type they hold."""
    if isinstance(annotation, str) and "Reference" in annotation:
        try:
            annotation = eval(annotation.strip().strip("'\""), dict(scope))  # trusted module code
        except Exception:
            return annotation, "", "any"
    if is_reference_annotation(annotation):
        return None, "only", annotation_reference_type(annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or origin is types.UnionType:
        held = [a for a in args if is_reference_annotation(a)]
        if held:
            others = [a for a in args if not is_reference_annotation(a)]
            kind = annotation_reference_type(held[0]) if len(held) == 1 else "any"
            if not others:
                return None, "only", kind
            rest: object = others[0] if len(others) == 1 else typing.Union[tuple(others)]  # noqa: UP007
            return rest, "also", kind
    if origin in _SEQUENCES and len(args) == 1:
        inner, refs, kind = split_reference(args[0], scope)
        if refs:
            return (list if inner is None else list[inner]), "items", kind  # type: ignore[valid-type]
    return annotation, "", "any"


_SEQUENCES = (list, collections.abc.Sequence, collections.abc.Iterable, collections.abc.Collection)


def _checked_reference(declared: PluginType, value: Any, span: Span, what: str) -> Any:
    """A reference where a plugin takes one (`PluginType.refs`), of the type it says."""
    shown = show(value)
    if declared.refs not in ("also", "only", "items"):
        raise fail(
            f"{what}: references are not allowed for values of type {declared.text} ({shown}); "
            "a plugin takes them where its annotation says `... | Reference[...]`",
            span,
            "plugin-type",
        )
    held = reference_type(value)
    wanted = declared.held
    if wanted != "any" and held != wanted and not (wanted == "number" and held in ("int", "float")):
        raise fail(
            f"{what} must be a reference to {wanted}, not {shown} "
            f"(a reference to {held or 'an unknown type'})",
            span,
            "plugin-type",
        )
    return value


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


class AttributeView:
    """An attribute as inmanta's API shows it (``inmanta.ast.attribute.Attribute``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def get_name(self) -> str:
        return self.name


class RelationView(AttributeView):
    """A relation end (``inmanta.ast.attribute.RelationAttribute``)."""

    __slots__ = ()


class EntityView:
    """An entity as inmanta's API shows it to plugin code (``proxy._type()``)."""

    __slots__ = ("entity",)

    def __init__(self, entity: p.EntityType) -> None:
        self.entity = entity

    @property
    def name(self) -> str:
        return self.entity.name

    def get_full_name(self) -> str:
        return self.entity.qualified_name

    def get_all_parent_names(self) -> list[str]:
        return [e.qualified_name for e in self.entity.mro[1:]]

    def get_all_attribute_names(self) -> list[str]:
        return [*self.entity.all_attributes, *self.entity.all_relations]

    def get_attribute(self, name: str) -> AttributeView | None:
        if name in self.entity.all_attributes:
            return AttributeView(name)
        if name in self.entity.all_relations:
            return RelationView(name)
        return None

    def get_attributes(self) -> dict[str, AttributeView]:
        own = self.entity
        views: dict[str, AttributeView] = {name: AttributeView(name) for name in own.attributes}
        views.update({name: RelationView(name) for name in own.relations})
        return views

    def is_subclass(self, other: EntityView) -> bool:
        return self.entity.is_subtype_of(other.entity)

    def __str__(self) -> str:
        return self.entity.qualified_name

    def __repr__(self) -> str:
        return self.entity.qualified_name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EntityView) and other.entity is self.entity

    def __hash__(self) -> int:
        return id(self.entity)


class InstanceProxy:
    """An entity instance as plugins and templates see it: attributes read-only."""

    __slots__ = ("_ev", "_instance", "_references")

    def __init__(
        self, instance: Instance, ev: Evaluator | None = None, allow_references: bool = False, **_: Any
    ) -> None:
        object.__setattr__(self, "_instance", instance)
        object.__setattr__(self, "_ev", ev)
        object.__setattr__(self, "_references", allow_references)

    def __getattr__(self, name: str) -> Any:
        instance: Instance = object.__getattribute__(self, "_instance")
        slot = instance.slot(name)
        if slot is None:
            raise AttributeError(f"{instance.info.qname} has no attribute or relation '{name}'")
        final = object.__getattribute__(self, "_ev") is None  # after the compile: every slot is final
        try:
            value = _final_value(slot) if final else slot.get()
        except CfModelError as error:
            if error.code == "no-value":
                raise OptionalValueException(self, name) from None
            raise
        if isinstance(value, Unknown):
            raise UnknownException(value)  # as inmanta's proxy: the plugin call gives Unknown
        if not final and is_reference(value) and not object.__getattribute__(self, "_references"):
            raise UnexpectedReference(
                value,
                f"Encountered unexpected reference value during plugin execution: attribute '{name}' of "
                f"{instance} is {show(value)}. Plugins read references only where they ask for them: "
                "a `... | Reference[...]` annotation, or `inmanta.plugins.allow_reference_values(instance)`",
            )
        return to_python(object.__getattribute__(self, "_ev"), value)

    def _allow_references(self) -> InstanceProxy:
        """This instance, with its attributes' references readable (``allow_reference_values``)."""
        instance: Instance = object.__getattribute__(self, "_instance")
        return InstanceProxy(instance, object.__getattribute__(self, "_ev"), allow_references=True)

    def _type(self) -> EntityView:
        """inmanta's ``DynamicProxy._type()``: the instance's entity."""
        instance: Instance = object.__getattribute__(self, "_instance")
        return EntityView(instance.info.entity)

    def _get_instance(self) -> Instance:
        instance: Instance = object.__getattribute__(self, "_instance")
        return instance

    @classmethod
    def unwrap(cls, item: Any, **_: Any) -> Any:
        """inmanta's ``DynamicProxy.unwrap``: proxies to instances, None to `NoneValue`."""
        if item is None:
            return NoneValue()
        return from_python(item)

    @classmethod
    def return_value(cls, value: Any, **_: Any) -> Any:
        """inmanta's ``DynamicProxy.return_value``: a value as plugins see it."""
        if isinstance(value, NoneValue):
            return None
        if isinstance(value, Unknown):
            raise UnknownException(value)
        if type(value) is Instance:
            return InstanceProxy(value)
        return value

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


class UnknownGuardedList(list[Any]):
    """A list argument with Unknown elements, as inmanta passes it: its length is known, reading an
    Unknown element raises `UnknownException` (the call then gives Unknown)."""

    def __getitem__(self, index: Any) -> Any:
        value = super().__getitem__(index)
        if isinstance(index, slice):
            return [_check_known(v) for v in value]
        return _check_known(value)

    def __iter__(self) -> Iterator[Any]:
        for value in super().__iter__():
            yield _check_known(value)


def _check_known(value: Any) -> Any:
    if isinstance(value, Unknown):
        raise UnknownException(value)
    return value


def _guarded(value: list[Any]) -> list[Any]:
    return UnknownGuardedList(value) if any(isinstance(v, Unknown) for v in value) else value


def _final_value(slot: Any) -> Any:
    items = getattr(slot, "items", None)
    if items is not None:
        return list(items)
    return slot.value


def to_python(ev: Evaluator | None, value: Any) -> Any:
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
    """A plugin's result as a language value (proxies unwrapped, tuples as lists, NoneValue as null)."""
    if isinstance(value, InstanceProxy):
        return object.__getattribute__(value, "_instance")
    if isinstance(value, NoneValue):
        return None
    if isinstance(value, list | tuple):
        return [from_python(v) for v in value]
    if isinstance(value, dict):
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
