"""Shared fixtures of the environments tests: projects written into a temporary directory."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from cfmodel.errors import CfModelError
from cfmodel.transforms.environments.environments import Evaluation, evaluate_environments
from cfmodel.transforms.environments.request import RequestOptions, RequestResult, run_request

MAIN = '"""A project."""\nx = 1\n'


class Project:
    """A project directory under ``tmp_path``: ``write`` files, ``run`` requests."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, files: Mapping[str, str]) -> Project:
        for name, text in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return self

    def envs(self, text: str) -> Project:
        """Write ``environments.cfenv``."""
        return self.write({"environments.cfenv": text})

    def env_dir(self, *names: str, main: bool = True) -> Project:
        """Create environment directories (with a ``main.cf``)."""
        for name in names:
            (self.root / name).mkdir(parents=True, exist_ok=True)
            if main:
                (self.root / name / "main.cf").write_text(MAIN, encoding="utf-8")
        return self

    def run(
        self,
        facts: Mapping[str, Any] | None = None,
        agent: str | None = None,
        options: RequestOptions | None = None,
    ) -> RequestResult:
        return run_request(self.root, facts or {}, agent, options)

    def evaluate(self, facts: Mapping[str, Any] | None = None, agent: str | None = None) -> Evaluation:
        return evaluate_environments(self.root, facts or {}, agent)

    def errors(self, call: Callable[[], object]) -> str:
        """The full rendered diagnostics of a call that must fail, ``{dir}`` for the root."""
        with pytest.raises(CfModelError) as caught:
            call()
        return rendered(caught.value).replace(str(self.root), "{dir}")


def rendered(err: CfModelError) -> str:
    return "\n".join(d.render() for d in err.diagnostics())


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.cf").write_text(MAIN, encoding="utf-8")
    return Project(root)
