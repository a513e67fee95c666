"""The progress line (issue 20, CLI conventions): on a terminal every long step says itself
(stage, counts, seconds), a diagnostic written meanwhile goes above it, and it is erased at
the end; nothing of it when stderr is not a terminal, with -q, or with --format json."""

from __future__ import annotations

import io
import itertools
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cfmodel.console import DiagnosticStream, Progress
from tests.conftest import run_cfmodel

REPO = Path(__file__).resolve().parents[2]
WEBSHOP = REPO / "examples" / "webshop"
ERASE = "\r\x1b[K"


def on_a_terminal(*args: str, cwd: Path) -> tuple[int, str, str]:
    """Run ``cfmodel ARGS`` with stderr on a pseudo-terminal: (exit code, stdout, what the
    terminal received)."""
    leader, follower = pty.openpty()
    env = {**os.environ, "CFMODEL_CACHE_DIR": str(cwd / ".cache"), "TERM": "xterm", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "cfmodel", *args],
        stdout=subprocess.PIPE,
        stderr=follower,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
    )
    os.close(follower)
    received = bytearray()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is closed: the process ended
                break
            if not chunk:
                break
            received += chunk
        elif process.poll() is not None:
            break
    os.close(leader)
    assert process.stdout is not None
    out = process.stdout.read().decode()
    process.stdout.close()
    return process.wait(timeout=60), out, received.decode()


def shown_lines(terminal: str) -> list[str]:
    """Every progress line drawn, in order (each is drawn after an erase)."""
    return [part for part in terminal.replace("\r\n", "\n").split(ERASE)[1:] if part]


def test_an_export_says_each_step_then_erases_its_line(tmp_path: Path) -> None:
    code, out, terminal = on_a_terminal(
        "xmi", "export", str(WEBSHOP), "-o", str(tmp_path / "out"), cwd=tmp_path
    )
    assert code == 0, terminal
    assert out.splitlines()[-1] == str(tmp_path / "out" / "webshop.xmi")
    stages = [re.sub(r" · \d+\.\d s$", "", line) for line in shown_lines(terminal)]
    # counts are drawn at most every 0.1 s: a fast load may show none of them
    before_linking = stages[: stages.index("cfmodel: linking")]
    assert all(re.fullmatch(r"cfmodel: loading( — \d+ files?, [\d,]+ lines?)?", s) for s in before_linking)
    order = [
        "cfmodel: loading",
        "cfmodel: linking",
        "cfmodel: lifting the metamodel",
        "cfmodel: making the model",
    ]
    order.append(f"cfmodel: writing {tmp_path / 'out'}")
    assert [s for s in dict.fromkeys(stages) if s in order] == order
    assert all(re.search(r" · \d+\.\d s$", line) for line in shown_lines(terminal))
    assert terminal.endswith(ERASE)  # nothing is left on the terminal's last line


@pytest.mark.parametrize(
    ("args", "stages"),
    [
        (["ecore", "export", str(WEBSHOP), "-o", "out"], ["linking", "lifting the metamodel", "writing out"]),
        (["mcl", "graph", str(REPO / "examples" / "mcl"), "-o", "g.txt"], ["compiling", "writing g.txt"]),
        (
            [
                "diff",
                str(WEBSHOP),
                "--left-fact",
                "env=production",
                "--right-fact",
                "env=staging",
                "-o",
                "d.txt",
            ],
            ["reading", "linking", "comparing", "writing the differences"],
        ),
    ],
    ids=["ecore-export", "mcl-graph", "diff"],
)
def test_other_long_commands_say_their_steps(args: list[str], stages: list[str], tmp_path: Path) -> None:
    code, _, terminal = on_a_terminal(*args, cwd=tmp_path)
    assert code in (0, 1), terminal  # diff: 1, the requests differ
    said = [line.split(" · ")[0] for line in shown_lines(terminal)]
    firsts = [
        next((n for n, line in enumerate(said) if line.startswith(f"cfmodel: {stage}")), -1)
        for stage in stages
    ]
    assert -1 not in firsts and firsts == sorted(firsts), said
    assert terminal.endswith(ERASE)


def test_loading_counts_files_and_lines() -> None:
    from cfmodel.project import load_project

    calls: list[tuple[str, int, int]] = []
    project = load_project(WEBSHOP, progress=lambda *call: calls.append(call))
    assert [call[1] for call in calls] == list(range(1, 8))  # one call per file, counting
    assert calls[-1] == ("loading", 7, project.total_lines) and project.total_lines == 232
    assert all(a[2] < b[2] for a, b in itertools.pairwise(calls))  # lines so far


def test_a_diagnostic_goes_above_the_progress_line(tmp_path: Path) -> None:
    (tmp_path / "project.yml").write_text("name: p\n", encoding="utf-8")
    (tmp_path / "main.cf").write_text("entity A:\n    number n\nend\n", encoding="utf-8")
    code, _, terminal = on_a_terminal("check", ".", cwd=tmp_path)
    assert code == 0
    # the progress line was erased right before the warning (coloured: a terminal), and
    # drawn again after it
    warning = (
        "main.cf:2:5: \x1b[1;35mwarning\x1b[0m: type 'number' is deprecated, use 'float' or 'int' instead"
    )
    assert re.search(
        re.escape(ERASE + warning) + r"  \[deprecated-type\]\r\n" + re.escape(ERASE + "cfmodel: linking · "),
        terminal,
    ), repr(terminal)


def test_silent_when_not_a_terminal_quiet_or_json(tmp_path: Path) -> None:
    piped = run_cfmodel("compile", str(WEBSHOP), cwd=tmp_path, cache=tmp_path / ".cache")
    assert piped.returncode == 0 and piped.stderr == ""
    for flags in (["-q"], ["--format", "json"]):
        code, _, terminal = on_a_terminal("compile", str(WEBSHOP), *flags, cwd=tmp_path)
        assert code == 0 and "cfmodel: loading" not in terminal and ERASE not in terminal


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_ticker_moves_the_time_on_during_a_long_step() -> None:
    target = _Terminal()
    stream = DiagnosticStream(target, color=False, quiet=False)
    progress = Progress(stream, interval=0.05)
    progress("writing big.xmi")
    time.sleep(0.4)
    stream.write("cfmodel: warning: meanwhile\n")
    progress.close()
    drawn = shown_lines(target.getvalue())
    times = [
        float(line.rsplit("· ", 1)[1].split()[0]) for line in drawn if line.startswith("cfmodel: writing")
    ]
    assert len(times) >= 2 and times == sorted(times) and times[-1] >= 0.3  # 8 draws on an idle machine
    assert "\r\x1b[Kcfmodel: warning: meanwhile\n\r\x1b[Kcfmodel: writing big.xmi · " in target.getvalue()
    assert target.getvalue().endswith(ERASE)
    assert not progress._ticker or not progress._ticker.is_alive()


def test_without_a_stream_nothing_is_shown() -> None:
    progress = Progress(None)
    progress("loading", 3, 100)
    progress.close()
    assert not progress.enabled and progress._ticker is None


def test_counts_faster_than_a_terminal_needs_are_not_all_drawn() -> None:
    target = _Terminal()
    progress = Progress(DiagnosticStream(target, color=False, quiet=False), interval=60)
    progress("loading")
    for n in range(1, 1001):
        progress("evaluating", n * 1024, n)
    drawn = shown_lines(target.getvalue())
    progress.close()
    said = [line.split(" · ")[0] for line in drawn]
    assert said[:2] == ["cfmodel: loading", "cfmodel: evaluating — 1,024 steps, 1 instance"]
    assert len(said) < 50  # a thousand calls, a few draws (one per 0.1 s)
    assert progress.text().startswith("cfmodel: evaluating — 1,024,000 steps, 1,000 instances · ")
