"""Module Python code under its real names: ``inmanta_plugins.<module>`` and ``import inmanta``.

After `activate(modules)` for a compile:

* every module of the project is importable as ``inmanta_plugins.<name>`` (so modules import
  each other's code, ``import inmanta_plugins.std``): v2 modules are installed packages and
  import as usual; v1 modules (``<module>/plugins/``) and cfmodel's built-in modules are
  served from their directories by `ModuleFinder`, which sits *last* on ``sys.meta_path``
  (an installed package always wins). Code imported for an earlier compile whose module is
  now another directory, or whose files changed, is dropped from ``sys.modules`` first;
* ``import inmanta`` is cfmodel's stand-in for inmanta's compile-time API
  (``cfmodel/shim/inmanta/``: ``inmanta.plugins``, ``inmanta.execute.util``,
  ``inmanta.execute.proxy``, ``inmanta.ast``, ``inmanta.resources``, ``inmanta.export``,
  ``inmanta.references``, ``inmanta.agent.handler``, …), served under the name
  ``inmanta`` by `StandInFinder`, which sits *first* on ``sys.meta_path``: also when
  inmanta-core is installed (it is whenever a module was pip-installed with its
  dependencies). inmanta-core's own API is bound to its compiler (its plugin registry, its
  instances behind ``DynamicProxy``, its ``Unknown``): plugins registered with it, and
  values it makes, are not cfmodel's. So in a compiling process ``inmanta`` is the
  stand-in; if inmanta-core was imported before (another library of the process), module
  code would bind to it, and loading it is refused with that reason (`load_module_code`).
  Deploy-time classes (handlers, agents) import, and refuse to run: cfmodel never deploys.

`load_module_code(name)` imports ``inmanta_plugins.<name>`` and all its submodules, as
inmanta does when it loads a module, and reports the ones that failed (a failure costs
the plugins of that file, not the module's or the compile's).

Python's modules are the process's (``sys.modules``, ``sys.meta_path``): `loading(modules)`
activates a compile's modules and holds the one lock under which module code is imported,
so compiles in several threads each import their own modules' code.

Plugins are trusted code: they run in the compiling process with its rights.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from cfmodel.project import V2, ModuleInfo

PACKAGE = "inmanta_plugins"
SHIM_ROOT = Path(__file__).parent / "shim"
#: Directories inside a module's Python package that hold no Python code of it.
NOT_CODE = frozenset({"model", "templates", "files", "__pycache__", "tests"})


@dataclass
class LoadFailure:
    """A Python file of a module that could not be imported."""

    module: str  # the Python module name (inmanta_plugins.x.y)
    file: Path
    error: BaseException


@dataclass
class _State:
    modules: dict[str, ModuleInfo] = field(default_factory=dict)
    project_root: Path | None = None


_state = _State()


def current_modules() -> dict[str, ModuleInfo]:
    """The modules of the compile that activated the finder (the stand-in's ``Project.get()``)."""
    return _state.modules


def current_project_root() -> Path | None:
    return _state.project_root


class ModuleFinder(importlib.abc.MetaPathFinder):
    """Serves v1 and built-in modules' code as ``inmanta_plugins.*``."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if parts[0] != PACKAGE:
            return None
        if len(parts) == 1:  # no v2 module installed yet: a namespace package kept up to date by activate()
            spec = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
            spec.submodule_search_locations = _package_dirs()
            return spec
        info = _state.modules.get(parts[1])
        if info is None or info.kind == V2:
            return None
        base = info.plugin_dir.resolve().joinpath(*parts[2:])
        return _file_spec(fullname, base, package_dir=len(parts) == 2)


def _file_spec(fullname: str, base: Path, package_dir: bool = False) -> importlib.machinery.ModuleSpec | None:
    init = base / "__init__.py"
    if init.is_file() or (package_dir and base.is_dir()):
        if not init.is_file():  # a v1 module without plugins/__init__.py: an empty package
            spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = [str(base)]
            return spec
        return importlib.util.spec_from_file_location(fullname, init, submodule_search_locations=[str(base)])
    source = base.with_suffix(".py")
    if source.is_file():
        return importlib.util.spec_from_file_location(fullname, source)
    return None


_FINDER = ModuleFinder()


class StandInFinder(importlib.abc.MetaPathFinder):
    """Serves ``inmanta`` and ``inmanta.*`` from cfmodel's stand-in, before any installed inmanta-core."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "inmanta" and not fullname.startswith("inmanta."):
            return None
        return _file_spec(fullname, SHIM_ROOT.joinpath(*fullname.split(".")))


_STAND_IN = StandInFinder()


def foreign_inmanta() -> str | None:
    """Where the ``inmanta`` this process already imported comes from, when it is not cfmodel's
    stand-in (inmanta-core, imported before a compile); None when it is the stand-in or not imported."""
    loaded = sys.modules.get("inmanta")
    if loaded is None:
        return None
    origin = Path(getattr(loaded, "__file__", None) or "")
    if origin.resolve().parent == (SHIM_ROOT / "inmanta").resolve():
        return None
    return str(origin)


_LOADING = threading.RLock()


@contextmanager
def loading(modules: dict[str, ModuleInfo], project_root: Path | None = None) -> Iterator[None]:
    """*modules* activated, and no other thread activating or importing module code, inside."""
    with _LOADING:
        activate(modules, project_root)
        yield


def activate(modules: dict[str, ModuleInfo], project_root: Path | None = None) -> None:
    """Make *modules* the ones ``inmanta_plugins.<name>`` means (see the module docstring)."""
    _state.modules = dict(modules)
    _state.project_root = project_root
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
    if _STAND_IN not in sys.meta_path:
        sys.meta_path.insert(0, _STAND_IN)
    package = sys.modules.get(PACKAGE)
    locations = getattr(package, "__path__", None)
    if isinstance(locations, list):  # made by ModuleFinder: see v2 modules installed since
        locations[:] = _package_dirs()
    for name, info in modules.items():
        _drop_stale(f"{PACKAGE}.{name}", info.plugin_dir)


def _package_dirs() -> list[str]:
    candidates = [Path(entry or ".") / PACKAGE for entry in sys.path]
    return [str(candidate) for candidate in candidates if candidate.is_dir()]


def _drop_stale(package: str, directory: Path) -> None:
    loaded = sys.modules.get(package)
    if loaded is None:
        return
    stale = _origin_dir(loaded) != directory.resolve()
    if not stale:
        for name, module in list(sys.modules.items()):
            if name == package or name.startswith(package + "."):
                stale = stale or _changed(module)
    if stale:
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()


def _origin_dir(module: ModuleType) -> Path | None:
    locations = list(getattr(module, "__path__", []) or [])
    if locations:
        return Path(locations[0]).resolve()
    return None


_MTIMES: dict[str, float] = {}


def _changed(module: ModuleType) -> bool:
    file = getattr(module, "__file__", None)
    if not file:
        return False
    try:
        mtime = Path(file).stat().st_mtime
    except OSError:
        return True
    known = _MTIMES.setdefault(file, mtime)
    if known != mtime:
        _MTIMES[file] = mtime
        return True
    return False


def python_files(info: ModuleInfo) -> list[str]:
    """The Python module names of a module's code, package first, as inmanta imports them
    (none for a v1 module without a ``plugins/`` directory: it has no code)."""
    root = info.plugin_dir
    base = f"{PACKAGE}.{info.name}"
    names = [base]
    if not root.is_dir():
        return names if info.kind == V2 else []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] in NOT_CODE or any(
            not part.isidentifier() for part in relative.with_suffix("").parts
        ):
            continue
        if relative.name == "__init__.py":
            dotted = ".".join(relative.parts[:-1])
        else:
            dotted = ".".join(relative.with_suffix("").parts)
        if dotted:
            names.append(f"{base}.{dotted}")
    return names


def load_module_code(info: ModuleInfo) -> tuple[list[ModuleType], list[LoadFailure]]:
    """Import a module's package and every submodule; the loaded ones and the failures."""
    loaded: list[ModuleType] = []
    failures: list[LoadFailure] = []
    foreign = foreign_inmanta()
    if foreign is not None:
        why = ImportError(
            f"this process imported inmanta-core ({foreign}) before cfmodel loaded module code: "
            "its plugins would register with inmanta-core's compiler, not cfmodel's; compile in a "
            "process that has not imported inmanta (cfmodel serves its own `inmanta` API)"
        )
        return loaded, [LoadFailure(f"{PACKAGE}.{info.name}", _file_of(f"{PACKAGE}.{info.name}", info), why)]
    for name in python_files(info):
        try:
            loaded.append(importlib.import_module(name))
        except BaseException as error:  # plugin code is foreign: anything may come out of it
            if isinstance(error, KeyboardInterrupt | SystemExit):
                raise
            spec_file = _file_of(name, info)
            failures.append(LoadFailure(name, spec_file, error))
            if name == f"{PACKAGE}.{info.name}":
                break  # without its package, none of its submodules imports
    return loaded, failures


def label_of(file: str | None, info: ModuleInfo) -> Path:
    """A module's Python file named as the project names the module (relative stays relative)."""
    path = Path(file or info.plugin_dir)
    try:
        return info.plugin_dir / path.resolve().relative_to(info.plugin_dir.resolve())
    except ValueError:
        return path


def _file_of(name: str, info: ModuleInfo) -> Path:
    parts = name.split(".")[2:]
    base = info.plugin_dir.joinpath(*parts)
    return base / "__init__.py" if (base / "__init__.py").is_file() else base.with_suffix(".py")
