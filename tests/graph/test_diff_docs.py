"""docs/diff.md: its Python example runs and its text example is what the command prints."""

from __future__ import annotations

import re
import shlex
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


def test_every_webshop_command_of_the_readme_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cfmodel.transforms.graph.files import read_graph

    monkeypatch.chdir(REPO)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(
        r"### Pictures and differences \(the bundled webshop\)\n\n```sh\n(.*?)```", readme, re.DOTALL
    )
    assert block is not None
    commands = [shlex.split(line.split("#")[0]) for line in block.group(1).splitlines()]
    assert [c[1] for c in commands] == ["graph", "graph", "graph", "diagram", "diagram", "diff"]
    for command in commands:
        argv = [str(tmp_path / a) if i and command[i - 1] == "-o" else a for i, a in enumerate(command)][1:]
        assert main(argv) == (1 if command[1] == "diff" else 0), command
    assert len(read_graph(tmp_path / "resources.xmi")) == 12
    for picture in ("resources.svg", "classes.svg", "objects.svg"):
        assert (tmp_path / picture).read_text(encoding="utf-8").rstrip().endswith("</svg>")
    out = capsys.readouterr().out
    assert "graph: " in out and "resources:" in out  # the yamlgraph, then the diff
