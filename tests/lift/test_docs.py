"""The examples of docs/metamodel.md run as written."""

from __future__ import annotations

import doctest

import pytest

from .helpers import REPO


def test_metamodel_doc_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = doctest.testfile(
        str(REPO / "docs" / "metamodel.md"), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert result.attempted >= 6
    assert result.failed == 0
