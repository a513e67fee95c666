"""docs/diff.md: its Python example runs and its text example is what the command prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cfmodel.cli import main

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "diff.md").read_text(encoding="utf-8")


def test_the_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    (block,) = re.findall(r"```python\n(.*?)```", DOC, re.DOTALL)
    namespace: dict[str, object] = {}
    exec(block, namespace)  # the documentation's own example
    assert namespace["changes"].counts() == {"added": 0, "removed": 0, "changed": 3}  # type: ignore[attr-defined]


def test_the_text_example_is_the_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)
    shown = re.search(r"Text \(default.*?```\n(.*?)```", DOC, re.DOTALL)
    assert shown is not None
    argv = ["diff", "examples/webshop", "--left-fact", "env=production", "--right-fact", "env=staging"]
    assert main(argv) == 1
    assert capsys.readouterr().out == shown.group(1)


def test_the_readme_shows_what_the_webshop_diff_prints(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = re.search(
        r"staging sizes the database smaller, and so its configuration file\):\n\n```\n(.*?)```",
        readme,
        re.DOTALL,
    )
    assert shown is not None
    argv = ["diff", "examples/webshop", "--left-fact", "env=production", "--right-fact", "env=staging"]
    assert main(argv) == 1
    assert capsys.readouterr().out == shown.group(1)
