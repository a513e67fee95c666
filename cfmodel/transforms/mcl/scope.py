"""Scope propagation: every name of the program linked to what it means.

Input: an interpolated `Program`, the function `Library`, and how to read imported files.
Output: a `Resolution` (side tables keyed by node), where

* every `Var` that can run is linked to its `Binding` (a bind, a class or function
  parameter, a loop variable or a built-in constant) in ``targets``; binds may be used
  before they are defined in their block, inner blocks shadow outer ones;
* every `Call` is linked to a built-in `Function`, to its own copy of a named function
  (``func`` statements are polymorphic: each call site types and runs its own copy), or
  marked as a call of a value (``$f(...)``, an anonymous function);
* every `Include` is linked to its own copy of the class body (an `Instance`), whose
  parameters are bound to the include's arguments (``class_args``); ``include ... as x``
  exposes the copy's variables, functions and classes as ``x.name``;
* ``owner`` gives each bind, class parameter and function copy the innermost ``for``,
  ``forkv`` or function literal it lives in (None at top level): the evaluator keeps one
  value per run of that owner;
* imports are read: system packages (``import "fmt"``) open their functions, local files
  and module directories are parsed, interpolated and resolved once each.

Binds nobody uses are resolved (their errors reported) but, as in mgmt, not typed or run.

Errors (``mcl-scope``): undefined variables, functions and classes, a name defined twice
in one block, recursive binds, functions and class includes, a wrong number of include
arguments, imports that cannot be found (remote ``git://`` imports are refused: there is
no network). ``mcl-init`` (the checks mgmt makes when it initializes the tree): a struct
literal with a field given twice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

import yaml

from cfmodel.errors import CfModelError, Diagnostics, Span
from cfmodel.grammars import mcl_nodes as n
from cfmodel.inputs import load_yaml, read_text
from cfmodel.transforms.mcl.core import PACKAGES, package_of
from cfmodel.transforms.mcl.funcs import Function, Library


@dataclass(eq=False)
class LoopVar:
    """``$index``/``$value`` of a ``for``, ``$key``/``$value`` of a ``forkv``."""

    span: Span
    name: str
    loop: n.For | n.ForKV
    role: str  # index, value, key


@dataclass(eq=False)
class Constant:
    """A built-in variable such as ``$const.res.file.state.exists``."""

    name: str
    type: str
    value: object
    span: Span | None = None


Binding: TypeAlias = n.Bind | n.Param | LoopVar | Constant
Owner: TypeAlias = n.For | n.ForKV | n.FuncLit | None

CONSTANTS = (
    Constant("const.res.file.state.exists", "str", "exists"),
    Constant("const.res.file.state.absent", "str", "absent"),
)


@dataclass(eq=False)
class Instance:
    """The copy of a class body made for one include."""

    cls: n.ClassDef
    params: list[n.Param]
    body: list[n.Stmt]


@dataclass(eq=False)
class Module:
    """An imported local file or module directory, resolved once."""

    path: Path
    program: n.Program
    scope: Scope


@dataclass
class Resolution:
    targets: dict[n.Var, Binding] = field(default_factory=dict)
    calls: dict[n.Call, Function | n.FuncLit | None] = field(default_factory=dict)
    call_targets: dict[n.Call, Binding] = field(default_factory=dict)  # $f(...)
    includes: dict[n.Include, Instance] = field(default_factory=dict)
    class_args: dict[n.Param, n.Expr] = field(default_factory=dict)
    owner: dict[object, Owner] = field(default_factory=dict)
    loops: dict[n.For | n.ForKV, tuple[LoopVar, LoopVar]] = field(default_factory=dict)
    modules: list[Module] = field(default_factory=list)
    used_binds: list[n.Bind] = field(default_factory=list)


class Scope:
    """One block's names; ``parent`` is the lexically enclosing scope."""

    __slots__ = ("classes", "funcs", "namespaces", "owner", "parent", "vars")

    def __init__(self, parent: Scope | None, owner: Owner) -> None:
        self.vars: dict[str, Binding] = {}
        self.funcs: dict[str, tuple[n.FuncDef, Scope] | Function] = {}
        self.classes: dict[str, tuple[n.ClassDef, Scope]] = {}
        self.namespaces: dict[str, Scope | str] = {}  # a scope, or a system package name
        self.parent = parent
        self.owner = owner

    def chain(self) -> list[Scope]:
        scopes: list[Scope] = []
        scope: Scope | None = self
        while scope is not None:
            scopes.append(scope)
            scope = scope.parent
        return scopes


Reader = Callable[[Path], n.Program]


def resolve_scope(program: n.Program, library: Library, read: Reader, base_dir: Path | None) -> Resolution:
    """Run the stage (see the module docstring).

    Args:
        program: the interpolated main program.
        library: the functions system imports can open.
        read: parses and interpolates an imported ``.mcl`` file.
        base_dir: the main program's directory (local imports are relative to it).

    Raises:
        CfCompileError: every problem found (code ``mcl-scope``).
    """
    diagnostics = Diagnostics()
    resolver = _Resolver(library, read, diagnostics)
    root = resolver.root_scope()
    resolver.block(program.statements, Scope(root, None), base_dir, top=True)
    diagnostics.raise_if_errors()
    return resolver.result


def _import_alias(path: str) -> str:
    stripped = path.rstrip("/")
    last = stripped.rsplit("/", 1)[-1]
    if last.endswith(".mcl"):
        last = last[:-4]
    if last.startswith("mgmt-"):
        last = last[5:]
    return last.lower().replace("-", "_")


class _Resolver:
    def __init__(self, library: Library, read: Reader, diagnostics: Diagnostics) -> None:
        self.library = library
        self.read = read
        self.diagnostics = diagnostics
        self.result = Resolution()
        self.expanding: list[object] = []  # classes and functions being copied (recursion)
        self.bind_scopes: dict[n.Bind, tuple[Scope, Path | None]] = {}
        self.bind_state: dict[n.Bind, str] = {}  # resolving / done
        self.bind_stack: list[n.Bind] = []
        self.modules: dict[Path, Module] = {}
        self.importing: list[Path] = []

    def error(self, span: Span | None, message: str) -> None:
        self.diagnostics.error(span, message, "mcl-scope")

    def root_scope(self) -> Scope:
        root = Scope(None, None)
        for constant in CONSTANTS:
            root.vars[constant.name] = constant
        for name, function in self.library.items():
            if not package_of(name):
                root.funcs[name] = function
        return root

    # --- blocks ---------------------------------------------------------------------------

    def block(
        self, statements: list[n.Stmt], scope: Scope, base_dir: Path | None, top: bool = False
    ) -> Scope:
        """Declare the block's names first (out-of-order binds), then resolve its statements."""
        self.declare(statements, scope, base_dir, top)
        # includes first: their `as` names may be used before them in the block
        for stmt in sorted(statements, key=lambda s: not isinstance(s, n.Include)):
            self.statement(stmt, scope, base_dir)
        for stmt in statements:  # binds nobody used: resolved for their errors only
            if isinstance(stmt, n.Bind) and stmt not in self.bind_state and stmt in self.bind_scopes:
                self.resolve_bind(stmt, used=False)
        return scope

    def declare(self, statements: list[n.Stmt], scope: Scope, base_dir: Path | None, top: bool) -> None:
        seen: dict[tuple[str, str], Span] = {}

        def once(kind: str, name: str, span: Span) -> bool:
            if (kind, name) in seen:
                first = seen[(kind, name)]
                self.error(span, f"{kind} {name} is already defined in this scope (at line {first.line})")
                return False
            seen[(kind, name)] = span
            return True

        self.check_class_cycles(statements)
        for stmt in statements:
            if isinstance(stmt, n.Bind) and once("variable", "$" + stmt.name, stmt.span):
                scope.vars[stmt.name] = stmt
                self.bind_scopes[stmt] = (scope, base_dir)
                self.result.owner[stmt] = scope.owner
            elif isinstance(stmt, n.FuncDef) and once("function", stmt.name, stmt.span):
                scope.funcs[stmt.name] = (stmt, scope)
            elif isinstance(stmt, n.ClassDef) and once("class", stmt.name, stmt.span):
                scope.classes[stmt.name] = (stmt, scope)
            elif isinstance(stmt, n.Import):
                if not top:
                    self.error(stmt.span, "import is only allowed at the top level of a file")
                    continue
                self.declare_import(stmt, scope, base_dir)

    def check_class_cycles(self, statements: list[n.Stmt]) -> None:
        """Classes of one block that include each other in a cycle are refused, used or not."""
        classes = {s.name: s for s in statements if isinstance(s, n.ClassDef)}
        includes = {name: _included_names(cls.body) & classes.keys() for name, cls in classes.items()}
        state: dict[str, int] = {}

        def visit(name: str, path: list[str]) -> None:
            state[name] = 1
            for other in sorted(includes[name]):
                if state.get(other) == 1:
                    cycle = " -> ".join([*path[path.index(other) :], other])
                    self.error(classes[other].span, f"recursive class: {cycle}")
                elif not state.get(other):
                    visit(other, [*path, other])
            state[name] = 2

        for name in classes:
            if not state.get(name):
                visit(name, [name])

    def declare_import(self, stmt: n.Import, scope: Scope, base_dir: Path | None) -> None:
        path = stmt.path
        alias = stmt.alias or _import_alias(path)
        if "://" in path:
            self.error(
                stmt.span,
                f"cannot import {path}: remote imports need the network; "
                "put the module in a local directory and import that",
            )
            return
        if path.endswith(".mcl") or path.endswith("/"):
            module = self.load_module(stmt, base_dir)
            if module is None:
                return
            target: Scope | str = module.scope
        else:
            if path not in PACKAGES or not path:
                self.error(
                    stmt.span,
                    f"unknown system package {path!r} (known: {', '.join(p for p in PACKAGES if p)})",
                )
                return
            target = path
        if alias == "*":
            self.merge_star(scope, target)
        elif alias in scope.namespaces:
            self.error(
                stmt.span, f"the name {alias} is already imported in this scope (use import ... as another)"
            )
        else:
            scope.namespaces[alias] = target

    def merge_star(self, scope: Scope, target: Scope | str) -> None:
        if isinstance(target, str):
            prefix = target + "."
            for name, function in self.library.items():
                if name.startswith(prefix) and "." not in name[len(prefix) :]:
                    scope.funcs[name[len(prefix) :]] = function
            return
        scope.vars.update(target.vars)
        scope.funcs.update(target.funcs)
        scope.classes.update(target.classes)
        scope.namespaces.update(target.namespaces)

    def load_module(self, stmt: n.Import, base_dir: Path | None) -> Module | None:
        if base_dir is None:
            self.error(stmt.span, f"cannot import {stmt.path}: this program has no directory")
            return None
        target = (base_dir / stmt.path).resolve()
        if stmt.path.endswith("/"):
            main = target / "main.mcl"
            if (target / "metadata.yaml").is_file():
                main = target / _metadata_main(target / "metadata.yaml")
            file_path = main
        else:
            file_path = target
        if file_path in self.importing:
            self.error(stmt.span, f"import cycle: {stmt.path} is being imported already")
            return None
        if file_path in self.modules:
            return self.modules[file_path]
        if not file_path.is_file():
            self.error(stmt.span, f"cannot import {stmt.path}: {file_path} does not exist")
            return None
        self.importing.append(file_path)
        try:
            program = self.read(file_path)
        except CfModelError as err:
            self.diagnostics.extend(err.diagnostics())
            self.importing.pop()
            return None
        scope = Scope(self.root_scope(), None)
        module = Module(file_path, program, scope)
        self.modules[file_path] = module
        self.block(program.statements, scope, file_path.parent, top=True)
        self.importing.pop()
        self.result.modules.append(module)
        return module

    # --- statements -----------------------------------------------------------------------

    def statement(self, stmt: n.Stmt, scope: Scope, base_dir: Path | None) -> None:
        if isinstance(stmt, (n.Bind, n.FuncDef, n.ClassDef, n.Import)):
            return  # binds on use; functions per call; classes per include
        if isinstance(stmt, n.If):
            self.expr(stmt.condition, scope)
            self.block(stmt.then, Scope(scope, scope.owner), base_dir)
            if stmt.otherwise is not None:
                self.block(stmt.otherwise, Scope(scope, scope.owner), base_dir)
        elif isinstance(stmt, (n.For, n.ForKV)):
            self.expr(stmt.collection, scope)
            inner = Scope(scope, stmt)
            first_name = stmt.index if isinstance(stmt, n.For) else stmt.key
            first = LoopVar(stmt.span, first_name, stmt, "index" if isinstance(stmt, n.For) else "key")
            second = LoopVar(stmt.span, stmt.value, stmt, "value")
            if first_name == stmt.value:
                self.error(stmt.span, f"the loop variables are both named ${first_name}")
            inner.vars[first_name] = first
            inner.vars[stmt.value] = second
            self.result.loops[stmt] = (first, second)
            self.block(stmt.body, Scope(inner, stmt), base_dir)
        elif isinstance(stmt, n.Include):
            self.include(stmt, scope, base_dir)
        elif isinstance(stmt, n.Panic):
            for arg in stmt.args:
                self.expr(arg, scope)
        elif isinstance(stmt, n.EdgeChain):
            for half in stmt.halves:
                self.expr(half.title, scope)
        else:
            self.expr(stmt.title, scope)
            for entry in stmt.entries:
                if entry.condition is not None:
                    self.expr(entry.condition, scope)
                if isinstance(entry, n.ResEdge):
                    self.expr(entry.half.title, scope)
                else:
                    self.expr(entry.value, scope)

    def include(self, stmt: n.Include, scope: Scope, base_dir: Path | None) -> None:
        found = self.find_class(stmt.name, scope)
        if found is None:
            self.error(stmt.span, f"class {stmt.name} is not defined")
            return
        cls, def_scope = found
        params = cls.params or []
        args = stmt.args or []
        if len(params) != len(args):
            self.error(stmt.span, f"class {stmt.name} takes {len(params)} arguments, {len(args)} given")
            return
        if cls in self.expanding:
            if not self.refused_recursion(cls):
                self.error(stmt.span, f"recursive class: {stmt.name} includes itself")
            return
        if stmt.alias and stmt.alias in scope.namespaces:
            self.error(
                stmt.span, f"the name {stmt.alias} is already used in this scope (include ... as another)"
            )
            return
        for arg in args:
            self.expr(arg, scope)
        copy = n.clone(cls)
        instance = Instance(cls, copy.params or [], copy.body)
        self.result.includes[stmt] = instance
        inner = Scope(def_scope, scope.owner)
        # the lexical parent is the definition's scope, the runs are the include site's
        for param, arg in zip(instance.params, args, strict=True):
            inner.vars[param.name] = param
            self.result.class_args[param] = arg
            self.result.owner[param] = scope.owner
        self.expanding.append(cls)
        body_scope = Scope(inner, scope.owner)
        self.block(instance.body, body_scope, base_dir)
        self.expanding.pop()
        if stmt.alias:
            scope.namespaces[stmt.alias] = body_scope

    def refused_recursion(self, cls: n.ClassDef) -> bool:
        """True when the block of *cls* already reported its cycle (reported once)."""
        return any(d.message.startswith("recursive class:") for d in self.diagnostics.items)

    def find_class(self, name: str, scope: Scope) -> tuple[n.ClassDef, Scope] | None:
        head, _, rest = name.partition(".")
        for s in scope.chain():
            if not rest and head in s.classes:
                return s.classes[head]
            if rest and isinstance(s.namespaces.get(head), Scope):
                namespace = s.namespaces[head]
                assert isinstance(namespace, Scope)
                return self.find_class(rest, namespace)
        return None

    # --- expressions ----------------------------------------------------------------------

    def expr(self, node: n.Expr, scope: Scope) -> None:
        if isinstance(node, n.Var):
            self.var(node, scope)
        elif isinstance(node, n.Call):
            self.call(node, scope)
        elif isinstance(node, n.FuncLit):
            self.lambda_(node, scope)
        elif isinstance(node, n.MapLit):
            for pair in node.pairs:
                self.expr(pair.key, scope)
                self.expr(pair.value, scope)
        elif isinstance(node, n.StructLit):
            names = [name for name, _ in node.fields]
            for name in sorted({x for x in names if names.count(x) > 1}):
                self.diagnostics.error(node.span, f"duplicate struct field name {name}", "mcl-init")
            for _, value in node.fields:
                self.expr(value, scope)
        elif isinstance(node, n.Interpolated):
            for part in node.parts:
                self.expr(part, scope)
        else:
            for f in dataclasses.fields(node):
                value = getattr(node, f.name)
                if isinstance(value, list):
                    for item in value:
                        self.expr(item, scope)
                elif value is not None and not isinstance(value, (str, int, float, bool, Span)):
                    self.expr(value, scope)

    def lambda_(self, node: n.FuncLit, scope: Scope) -> None:
        inner = Scope(scope, node)
        for param in node.params:
            if param.name in inner.vars:
                self.error(param.span, f"parameter ${param.name} is given twice")
            inner.vars[param.name] = param
        self.expr(node.body, inner)

    def var(self, node: n.Var, scope: Scope) -> None:
        binding = self.lookup_var(node.name, scope)
        if binding is None:
            self.error(node.span, f"variable ${node.name} is not defined")
            return
        self.result.targets[node] = binding
        if isinstance(binding, n.Bind):
            self.resolve_bind(binding, used=True, use=node)

    def lookup_var(self, name: str, scope: Scope) -> Binding | None:
        head, _, rest = name.partition(".")
        for s in scope.chain():
            if name in s.vars:
                return s.vars[name]
            if rest and isinstance(s.namespaces.get(head), Scope):
                namespace = s.namespaces[head]
                assert isinstance(namespace, Scope)
                return self.lookup_var(rest, namespace)
        return None

    def resolve_bind(self, bind: n.Bind, used: bool, use: n.Var | None = None) -> None:
        state = self.bind_state.get(bind)
        if state == "resolving":
            cycle = [*self.bind_stack[self.bind_stack.index(bind) :], bind]
            names = " -> ".join("$" + b.name for b in cycle)
            self.error(use.span if use else bind.span, f"recursive reference: {names}")
            return
        if used and bind not in self.result.used_binds and state != "resolving":
            self.result.used_binds.append(bind)
        if state is not None:
            return
        self.bind_state[bind] = "resolving"
        self.bind_stack.append(bind)
        scope, _ = self.bind_scopes[bind]
        self.expr(bind.value, scope)
        self.bind_stack.pop()
        self.bind_state[bind] = "done"

    def call(self, node: n.Call, scope: Scope) -> None:
        for arg in node.args:
            self.expr(arg, scope)
        if node.callee is not None:
            self.expr(node.callee, scope)
            self.result.calls[node] = None
            return
        if node.variable:
            binding = self.lookup_var(node.name, scope)
            if binding is None:
                self.error(node.span, f"variable ${node.name} is not defined")
                return
            self.result.call_targets[node] = binding
            if isinstance(binding, n.Bind):
                self.resolve_bind(binding, used=True)
            self.result.calls[node] = None
            return
        found = self.lookup_func(node.name, scope)
        if found is None:
            hint = ""
            package = package_of(node.name)
            if package and package in PACKAGES:
                hint = f' (missing import "{package}"?)'
            self.error(node.span, f"function {node.name} is not defined{hint}")
            return
        if isinstance(found, Function):
            self.result.calls[node] = found
            return
        definition, def_scope = found
        if definition in self.expanding:
            self.error(node.span, f"recursive function: {node.name} calls itself")
            return
        copy = n.clone(definition.func)
        self.result.calls[node] = copy
        self.result.owner[copy] = def_scope.owner
        self.expanding.append(definition)
        self.lambda_(copy, def_scope)
        self.expanding.pop()

    def lookup_func(self, name: str, scope: Scope) -> tuple[n.FuncDef, Scope] | Function | None:
        head, _, rest = name.partition(".")
        for s in scope.chain():
            if name in s.funcs:
                return s.funcs[name]
            if rest and head in s.namespaces:
                namespace = s.namespaces[head]
                if isinstance(namespace, str):
                    return self.library.get(f"{namespace}.{rest}")
                return self.lookup_func(rest, namespace)
        return None


def _included_names(statements: list[n.Stmt]) -> set[str]:
    """The plain class names a class body includes (its if and for blocks too)."""
    names: set[str] = set()
    for stmt in statements:
        if isinstance(stmt, n.Include) and "." not in stmt.name:
            names.add(stmt.name)
        elif isinstance(stmt, n.If):
            names |= _included_names(stmt.then) | _included_names(stmt.otherwise or [])
        elif isinstance(stmt, n.For | n.ForKV):
            names |= _included_names(stmt.body)
    return names


def _metadata_main(path: Path) -> str:
    """The ``main:`` entry of a module's ``metadata.yaml`` (default ``main.mcl``)."""
    try:
        data = load_yaml(read_text(path))  # bounded: deep nesting and alias bombs are errors
    except (OSError, yaml.YAMLError, CfModelError):
        return "main.mcl"
    main = data.get("main") if isinstance(data, dict) else None
    return str(main) if isinstance(main, str) and main else "main.mcl"
