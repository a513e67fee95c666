"""Projects and modules: find, read and parse every namespace a project imports.

Input: a project directory (``main.cf`` and an optional ``project.yml``). Output: a
`Project` with one `Namespace` per loaded ``.cf`` file, each holding its syntax tree.
Guarantees: only imported namespaces are loaded (plus ``std``, which every namespace
sees, and the root namespace of each module a namespace belongs to); every problem
of every file is reported, not only the first (a file with a syntax error reports its
first one). Errors (codes): ``load`` (unreadable file), ``not-utf8``,
``module-not-found``, ``namespace-not-found``, ``bad-module``, ``bad-project``,
``syntax`` and the other codes of `cfmodel.grammars.cf`.

Layout (as in the language reference): ``model/_init.cf`` is namespace ``module``,
``model/x.cf`` is ``module::x``, ``model/p/_init.cf`` is ``module::p``, ``model/p/o.cf``
is ``module::p::o``. Modules are found where Inmanta finds them, in this order:

1. **v2 modules, installed as Python packages** (distribution ``inmanta-module-<name>``,
   package ``inmanta_plugins.<name>`` with ``model/``, ``templates/``, ``files/`` and the
   Python code inside): on ``sys.path`` of the running interpreter, so after
   ``pip install inmanta-module-fs`` into cfmodel's environment ``import fs`` works;
   also a v2 module's source tree on the module path (``<dir>/<name>/setup.cfg`` with
   ``inmanta_plugins/<name>/model/``);
2. **v1 modules on the module path** (``modulepath`` in ``project.yml``, default
   ``libs``): ``<dir>/<name>/module.yml`` (or ``module.yaml``, ``setup.cfg``) and
   ``model/_init.cf``, Python code in ``plugins/``;
3. cfmodel's **built-in** modules (``std``): a fallback, used only when no ``std`` is
   installed or on the module path.

``project.yml``: ``name`` and ``modulepath`` (a list, or a string with ``:`` between
paths) are read; the other fields Inmanta projects carry (``downloadpath``, ``repo``,
``requires``, ``pip``, ``install_mode``, ``description``, ``author``, …) are accepted
and ignored (cfmodel installs nothing), each named once in ``Project.notes``.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from cfmodel.cache import ParseCache
from cfmodel.errors import CfLoadError, CfModelError, Diagnostics, Span
from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str
from cfmodel.grammars.frontend import file_span, read_source
from cfmodel.inputs import load_yaml, read_text, yaml_error_span, yaml_problem

BUILTIN_MODULES = Path(__file__).parent / "modules"
MAIN_NAMESPACE = "__config__"
PROJECT_FILES = ("project.yml", "project.yaml")
MODULE_FILES = ("module.yaml", "module.yml", "setup.cfg")


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long for the file system: no such module
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def parse_file(path: Path, label: str | None = None, cache: ParseCache | None = None) -> nodes.Module:
    """Read and parse one file, through the cache when one is given."""
    label = label or str(path)
    return parse_text(read_source(path, label, ".cf file"), label, cache)


def parse_text(text: str, label: str, cache: ParseCache | None = None) -> nodes.Module:
    """Parse *text* (the contents of *label*), through the cache when one is given."""
    if cache is None:
        return parse_str(text, label)
    key = cache.key(label, text.encode("utf-8"))
    module = cache.get(key)
    if module is None:
        module = parse_str(text, label)
        cache.put(key, module)
    return module


V1, V2, BUILTIN = "v1", "v2", "built-in"
#: The project.yml fields cfmodel reads; every other one is noted as ignored.
READ_SETTINGS = frozenset({"name", "modulepath"})


@dataclass(slots=True)
class ModuleInfo:
    """A module found where Inmanta finds it (see the module docstring).

    ``root`` holds ``model/``, ``templates/`` and ``files/``: a v1 module's directory, or a
    v2 module's package directory (``.../inmanta_plugins/<name>``). ``plugin_dir`` is the
    directory of its Python package ``inmanta_plugins.<name>`` (v1: ``plugins/``).
    """

    name: str
    root: Path
    builtin: bool
    kind: str = V1

    @property
    def model_dir(self) -> Path:
        return self.root / "model"

    @property
    def plugin_dir(self) -> Path:
        return self.root if self.kind == V2 else self.root / "plugins"

    def describe(self) -> str:
        """Where the module comes from, for people (``cfmodel check``)."""
        if self.kind == V2:
            return f"{self.name} (v2 package inmanta_plugins.{self.name}: {self.root})"
        if self.builtin:
            return f"{self.name} (cfmodel's built-in {self.name}: none installed nor on the module path)"
        return f"{self.name} (v1 module: {self.root})"


def installed_module(name: str, search_path: Sequence[str] | None = None) -> Path | None:
    """The package directory of the installed v2 module *name* (``inmanta_plugins/<name>``), or None.

    Looks in each directory of *search_path* (default ``sys.path``) without importing
    anything, then asks the import system (editable installs have finders of their own).
    """
    if not name.isidentifier():
        return None
    for entry in sys.path if search_path is None else search_path:
        candidate = Path(entry or ".") / "inmanta_plugins" / name
        if _is_dir(candidate / "model"):
            return candidate
    if search_path is not None:
        return None
    try:
        spec = importlib.util.find_spec(f"inmanta_plugins.{name}")
    except (ImportError, ValueError, OSError):
        return None
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        if _is_dir(Path(location) / "model"):
            return Path(location)
    return None


@dataclass(slots=True)
class Namespace:
    """One loaded `.cf` file and the namespace it forms."""

    name: str
    file: Path
    label: str
    tree: nodes.Module
    lines: int


@dataclass
class Project:
    """A loaded project: its settings and every namespace it needs.

    ``named``: whether ``project.yml`` gives the name (a string ``name:``); else ``name`` is
    the directory's (a request names the project after its environment instead).
    """

    root: Path
    name: str
    main: Path
    module_path: list[Path]
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    modules: dict[str, ModuleInfo] = field(default_factory=dict)
    named: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def total_lines(self) -> int:
        return sum(n.lines for n in self.namespaces.values())

    def __repr__(self) -> str:
        # bounded: the syntax trees are not shown (a large project's would be megabytes)
        count = len(self.namespaces)
        return (
            f"<Project {self.name}: {count} namespace{'s' if count != 1 else ''}, "
            f"{self.total_lines} lines, main {self.main}>"
        )


def _read_project_settings(root: Path) -> tuple[str, list[Path], bool, list[str]]:
    """The project's name, module path, whether the settings file gave the name, and notes."""
    for file_name in PROJECT_FILES:
        settings_file = root / file_name
        if settings_file.is_file():
            return _parse_project_settings(root, settings_file)
    return root.resolve().name, [root / "libs"], False, []


def _parse_project_settings(root: Path, settings_file: Path) -> tuple[str, list[Path], bool, list[str]]:
    label = str(settings_file)
    try:
        settings = load_yaml(read_text(settings_file, label)) or {}
    except OSError as error:
        raise CfLoadError(f"cannot read project settings: {error}", file_span(label), "bad-project") from None
    except yaml.YAMLError as error:
        message = f"cannot read project settings: {yaml_problem(error)[0]}"
        raise CfLoadError(message, yaml_error_span(error, label), "bad-project") from None
    if not isinstance(settings, dict):
        raise CfLoadError(
            "project settings must be a mapping (name: ..., modulepath: ...)", file_span(label), "bad-project"
        )
    name = settings.get("name", root.resolve().name)
    paths = settings.get("modulepath", "libs")
    if isinstance(paths, str):
        paths = [p for p in paths.split(":") if p]  # Inmanta's form: "libs:other"
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise CfLoadError("modulepath must be a path or a list of paths", file_span(label), "bad-project")
    ignored = sorted(str(key) for key in settings if key not in READ_SETTINGS)
    notes = [f"{label}: ignored (cfmodel installs nothing): {', '.join(ignored)}"] if ignored else []
    return str(name), [root / p for p in paths], isinstance(settings.get("name"), str), notes


class _Loader:
    """Breadth-first over imports, collecting every problem in `diagnostics`."""

    def __init__(
        self, project: Project, cache: ParseCache | None, progress: Callable[[str, int, int], None] | None
    ) -> None:
        self.project = project
        self.cache = cache
        self.progress = progress
        self.lines = 0
        self.diagnostics = Diagnostics()
        self.seen: set[str] = set()
        self.queue: deque[tuple[str, Path, str]] = deque()
        self.checked_modules: dict[str, bool] = {}

    def find_module(self, name: str) -> ModuleInfo | None:
        if name in self.project.modules:
            return self.project.modules[name]
        info = self._locate(name)
        if info is not None:
            self.project.modules[name] = info
        return info

    def _locate(self, name: str) -> ModuleInfo | None:
        installed = installed_module(name)
        if installed is not None:
            return ModuleInfo(name, installed, False, V2)
        for directory in self.project.module_path:
            root = directory / name
            source_tree = root / "inmanta_plugins" / name
            if _is_dir(source_tree / "model") and _is_file(root / "setup.cfg"):
                return ModuleInfo(name, source_tree, False, V2)
            if _is_dir(root) and _is_dir(root / "model"):
                return ModuleInfo(name, root, False, V1)
        builtin = BUILTIN_MODULES / name
        if _is_dir(builtin / "model"):
            return ModuleInfo(name, builtin, True, BUILTIN)
        return None

    def namespace_file(self, module: ModuleInfo, namespace: str) -> Path | None:
        parts = namespace.split("::")[1:]
        base = module.model_dir.joinpath(*parts)
        candidates = [base / "_init.cf"] if not parts else [base.with_suffix(".cf"), base / "_init.cf"]
        return next((c for c in candidates if _is_file(c)), None)

    def request(self, namespace: str, span: Span | None) -> None:
        """Load *namespace* (and its module's root namespace) unless already loaded."""
        if namespace in self.seen:
            return
        module_name = namespace.split("::")[0]
        module = self.find_module(module_name)
        if module is None:
            paths = [str(p) for p in self.project.module_path]
            looked = ", ".join(["installed packages", *paths, "built-in modules"])
            self.diagnostics.error(
                span, f"could not find module '{module_name}' (looked in: {looked})", "module-not-found"
            )
            self.seen.add(namespace)
            return
        if not self._check_module(module, span):
            self.seen.add(namespace)
            return
        if namespace != module_name:
            self.request(module_name, span)
        self.seen.add(namespace)
        path = self.namespace_file(module, namespace)
        if path is None:
            relative = "/".join(namespace.split("::")[1:])
            self.diagnostics.error(
                span,
                f"namespace '{namespace}' not found: module '{module_name}' has no "
                f"model/{relative}.cf nor model/{relative}/_init.cf",
                "namespace-not-found",
            )
            return
        self.queue.append((namespace, path, str(path)))

    def _check_module(self, module: ModuleInfo, span: Span | None) -> bool:
        if module.name in self.checked_modules:
            return self.checked_modules[module.name]
        ok = True
        if module.kind == V1 and not any((module.root / f).is_file() for f in MODULE_FILES):
            self.diagnostics.error(
                span, f"module '{module.name}' at {module.root} has no module.yaml", "bad-module"
            )
            ok = False
        elif not (module.model_dir / "_init.cf").is_file():
            self.diagnostics.error(
                span, f"module '{module.name}' at {module.root} has no model/_init.cf", "bad-module"
            )
            ok = False
        self.checked_modules[module.name] = ok
        return ok

    def run(self) -> None:
        self.queue.append((MAIN_NAMESPACE, self.project.main, str(self.project.main)))
        self.seen.add(MAIN_NAMESPACE)
        self.request("std", None)
        while self.queue:
            namespace, path, label = self.queue.popleft()
            self.load(namespace, path, label)

    def load(self, namespace: str, path: Path, label: str) -> None:
        try:
            text = read_source(path, label, ".cf file")
            tree = parse_text(text, label, self.cache)
        except CfModelError as error:
            self.diagnostics.extend(error.diagnostics())
            return
        lines = text.count("\n") + (not text.endswith("\n") and bool(text))
        self.project.namespaces[namespace] = Namespace(namespace, path, label, tree, lines)
        self.lines += lines
        if self.progress is not None:
            self.progress("loading", len(self.project.namespaces), self.lines)
        for statement in tree.statements:
            if isinstance(statement, nodes.Import):
                self.request(statement.name.text, statement.name.span)


def load_project(
    path: Path | str = ".",
    cache: ParseCache | None = None,
    *,
    main: Path | None = None,
    module_path: Sequence[Path] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Project:
    """Load the project at *path* and every namespace it imports (*progress* is called with
    ``("loading", files, lines)`` after each file).

    *main* (default ``<path>/main.cf``) and *module_path* (default: ``project.yml``'s
    ``modulepath``) let a caller that chose them already, such as an environment
    (`cfmodel.transforms.environments.request`), override the project's own settings.

    Raises:
        CfLoadError: the project itself cannot be found or read.
        CfCompileError: one or more files could not be loaded or parsed (all reported).
    """
    root = Path(path)
    if not root.exists():
        raise CfLoadError(f"no such project directory: {root}", None, "load")
    if root.is_file():
        raise CfLoadError(f"{root} is a file, expected a project directory (with main.cf)", None, "load")
    main_file = main if main is not None else root / "main.cf"
    if not main_file.is_file():
        if main is None:
            raise CfLoadError(f"{root} is not a project: it has no main.cf", None, "load")
        raise CfLoadError(f"no such main file: {main_file}", None, "load")
    name, settings_path, named, notes = _read_project_settings(root)
    paths = list(module_path) if module_path is not None else settings_path
    project = Project(root, name, main_file, paths, named=named, notes=notes)
    loader = _Loader(project, cache, progress)
    loader.run()
    loader.diagnostics.raise_if_errors()
    project.namespaces = dict(sorted(project.namespaces.items()))
    return project
