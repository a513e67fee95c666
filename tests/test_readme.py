"""The README's Python examples run as doctests, so the documentation stays true."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_readme_examples(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("CFMODEL_CACHE_DIR", str(tmp_path))
    result = doctest.testfile(str(REPO / "README.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5
    assert result.failed == 0
