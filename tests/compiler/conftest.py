"""Helpers for compiler tests: write a project, compile it, read errors and instances."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfmodel.errors import CfModelError
from cfmodel.pipeline import CompileResult, compile_project


class Project:
    """A project directory under tmp_path; paths in messages are relative (cwd = the project)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, files: dict[str, str]) -> Project:
        for name, content in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return self

    def module(self, name: str, files: dict[str, str]) -> Project:
        self.write({f"libs/{name}/module.yaml": f"name: {name}\n"})
        return self.write({f"libs/{name}/{path}": text for path, text in files.items()})

    def compile(self, **kwargs: object) -> CompileResult:
        old = os.getcwd()
        os.chdir(self.root)
        try:
            return compile_project(".", **kwargs)  # type: ignore[arg-type]
        finally:
            os.chdir(old)

    def error(self, **kwargs: object) -> str:
        """The rendered error text of a compile that must fail."""
        with pytest.raises(CfModelError) as info:
            self.compile(**kwargs)
        return info.value.render()


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    yield Project(tmp_path)


def compile_main(project: Project, source: str, **kwargs: object) -> CompileResult:
    project.write({"main.cf": source})
    return project.compile(**kwargs)


def error_of(project: Project, source: str, **kwargs: object) -> str:
    project.write({"main.cf": source})
    return project.error(**kwargs)


def values(result: CompileResult, entity: str, attribute: str) -> list[object]:
    """The value of *attribute* of every instance of *entity* (exact type), in creation order."""
    out: list[object] = []
    for instance in result.raw_instances:
        if instance.info.qname == entity or instance.info.entity.name == entity:
            slot = instance.slots.get(attribute)
            out.append(getattr(slot, "value", None) if slot is not None else None)
    return out
