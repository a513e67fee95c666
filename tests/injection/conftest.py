"""Helpers for injection tests: a project with bindings, compiled through the API (cwd = the project)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.compiler.conftest import Project


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    yield Project(tmp_path)
