"""``inmanta.module``: `Project.get()` shows the compile's project and modules (paths) to plugin code."""

from __future__ import annotations

from pathlib import Path

from cfmodel.moduleimport import current_modules, current_project_root

__all__ = ["Module", "Project"]


class Module:
    def __init__(self, name: str, path: Path) -> None:
        self.name = name
        self._path = str(path)
        self.path = str(path)


class Project:
    def __init__(self, root: Path | None, modules: dict[str, Module]) -> None:
        self.project_path = str(root or Path.cwd())
        self.modules = modules

    @classmethod
    def get(cls) -> Project:
        modules = {name: Module(name, info.root) for name, info in current_modules().items()}
        return cls(current_project_root(), modules)
