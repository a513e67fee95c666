"""docs/environments.md shows the grammar verbatim and the example's CLI output as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.cli import main

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "environments.md").read_text(encoding="utf-8")


def _blocks() -> list[str]:
    """The contents of every fenced code block."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in DOC.splitlines(keepends=True):
        if line.startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append("".join(current))
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def test_the_grammar_is_shown_verbatim() -> None:
    grammar = (REPO / "cfmodel" / "grammars" / "environments.tx").read_text(encoding="utf-8")
    body = grammar[grammar.index("*/") + 3 :]
    assert body in _blocks()


def test_the_env_which_example_is_current(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    command = "cfmodel env which examples/environments --fact fqdn=joe.dev.example.com --environment hotfix"
    assert main(command.split()[1:]) == 0
    out = capsys.readouterr().out
    block = next(b for b in _blocks() if command in b)
    assert block[block.index(f"$ {command}") :] == f"$ {command}\n{out}"
