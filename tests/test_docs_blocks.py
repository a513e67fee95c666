"""Every code block of README.md and docs/*.md runs as written (issue 20, housekeeping).

A block's language says what it is. ``python`` blocks are executed, in order, one namespace
per file (a block with ``>>>`` prompts is a doctest: its outputs are compared); ``sh`` and
``bash`` blocks run in bash (``-e -o pipefail``) and must succeed (a command whose comment
says ``# exit N`` may exit N, as ``diff`` does when models differ); in ``console`` blocks each
``$ command`` runs and its output must be the lines that follow. Shell blocks, and the
Python of every file, run in a fresh copy of the repository, with ``cfmodel`` on the PATH
and a cache of their own, so they may write what they like. Any other block (no language,
``text``, ``yaml``, ``json``, ``cf``, …) is text, not code.

A code block that is not meant to run (a synopsis with placeholders, the body of a
function shown as it is) says so on the line before it: ``<!-- not run: REASON -->``. Such
blocks are few (`MAX_NOT_RUN`), and each gives its reason.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
PYTHON = {"python", "py"}
SHELL = {"sh", "bash", "shell"}
CONSOLE = {"console"}
MAX_NOT_RUN = 12

_FENCE = re.compile(r"^```(?P<info>[^`\n]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
_NOT_RUN = re.compile(r"<!-- not run: (?P<reason>\S.*?) -->\s*$")
_EXPECTED_EXIT = re.compile(r"^(?P<command>\S.*?)\s+# exit (?P<code>\d+)\b.*$", re.M)


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    language: str
    text: str
    not_run: str | None  # the reason given, for a block marked as not run

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with the mark on the line before each."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = _NOT_RUN.match(before.strip())
        language = match.group("info").strip().split(" ")[0].lower()
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(path, line, language, match.group("body"), mark.group("reason") if mark else None))
    return found


def code_blocks() -> list[Block]:
    return [b for path in DOCS for b in blocks_of(path) if b.language in PYTHON | SHELL | CONSOLE]


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the repository (what a reader has after cloning), for the blocks to run in."""
    target = tmp_path_factory.mktemp("docs") / "repo"
    ignore = shutil.ignore_patterns(
        ".git", ".venv", ".cache", "build", "__pycache__", "*.egg-info", ".*_cache"
    )
    shutil.copytree(REPO, target, ignore=ignore, symlinks=True)
    return target


def _environment(copy: Path) -> dict[str, str]:
    env = {**os.environ, "CFMODEL_CACHE_DIR": str(copy / ".cache"), "NO_COLOR": "1"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("CFMODEL_DEBUG", None)
    return env


def test_blocks_not_run_are_few_and_say_why() -> None:
    marked = [b for b in code_blocks() if b.not_run is not None]
    assert len(marked) <= MAX_NOT_RUN, [b.where for b in marked]
    assert all(len(b.not_run or "") >= 10 for b in marked)
    assert len(code_blocks()) - len(marked) >= 15  # the docs keep runnable examples


def test_a_command_may_exit_as_its_comment_says(tmp_path: Path) -> None:
    script = expecting_exits("false   # exit 1: it fails\ntrue\n")
    assert script == "{ false; } || [ $? -eq 1 ]\ntrue\n"
    assert subprocess.run(["bash", "-e", "-c", script], check=False).returncode == 0
    wrong = expecting_exits("exit 2   # exit 1: it fails\n")
    assert subprocess.run(["bash", "-e", "-c", wrong], check=False).returncode != 0


def test_the_block_reader_sees_marks_and_languages(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n<!-- not run: a synopsis with placeholders -->\n```sh\ncfmodel graph SOURCE\n```\n\n"
        "```python\nx = 1\n```\n\n```\nplain text\n```\n",
        encoding="utf-8",
    )
    found = blocks_of(page)
    assert [(b.line, b.language, b.text, b.not_run) for b in found] == [
        (4, "sh", "cfmodel graph SOURCE\n", "a synopsis with placeholders"),
        (8, "python", "x = 1\n", None),
        (12, "", "plain text\n", None),
    ]


@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(REPO)) for p in DOCS])
def test_every_code_block_runs_as_written(path: Path, copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(copy)
    for name, value in _environment(copy).items():
        monkeypatch.setenv(name, value)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    ran = 0
    for block in blocks_of(path):
        if block.not_run is not None:
            continue
        if block.language in PYTHON:
            _run_python(block, namespace)
        elif block.language in SHELL:
            _run_shell(block, copy)
        elif block.language in CONSOLE:
            _run_console(block, copy)
        else:
            continue
        ran += 1
    code = [b for b in blocks_of(path) if b.language in PYTHON | SHELL | CONSOLE and b.not_run is None]
    assert ran == len(code)


def _run_python(block: Block, namespace: dict[str, object]) -> None:
    if ">>>" in block.text:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.text, namespace, block.where, str(block.path), block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        namespace.update(test.globs)  # the next blocks go on from here (a DocTest copies its globals)
        assert runner.failures == 0, f"{block.where}: doctest failed\n" + "".join(report)
        return
    try:
        exec(compile(block.text, block.where, "exec"), namespace)  # the docs' own example code
    except Exception as error:
        pytest.fail(f"{block.where}: {type(error).__name__}: {error}")


def expecting_exits(script: str) -> str:
    """*script* with each ``command  # exit N …`` line allowed to exit N."""
    return _EXPECTED_EXIT.sub(lambda m: f"{{ {m['command']}; }} || [ $? -eq {m['code']} ]", script)


def _run_shell(block: Block, copy: Path) -> None:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", expecting_exits(block.text)],
        cwd=copy,
        env=_environment(copy),
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, f"{block.where}: exit {done.returncode}\n{said}"
    assert "Traceback" not in said, f"{block.where}\n{said}"


def _run_console(block: Block, copy: Path) -> None:
    commands: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            assert commands, f"{block.where}: output before the first $ command"
            commands[-1][1].append(line)
    for command, expected in commands:
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=copy,
            env=_environment(copy),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"{block.where}: {command}: exit {done.returncode}\n{done.stderr}"
        assert done.stdout.splitlines() == expected, f"{block.where}: {command}"
