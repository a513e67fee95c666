"""The command line as users run it: exit codes, messages, never a traceback."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import run_cfmodel

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "webshop"
GOLDEN = Path(__file__).parent / "golden"


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    cache = (
        cwd / ".test-cache" if cwd != REPO and cwd != EXAMPLE else Path(tempfile.mkdtemp(prefix="cfmodel-"))
    )
    return run_cfmodel(*args, cwd=cwd, cache=cache)


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr
    assert "Traceback" not in result.stdout


def test_parse_prints_the_canonical_tree(update_golden: bool) -> None:
    result = run("parse", "examples/webshop/libs/web/model/_init.cf", "--no-cache")
    assert result.returncode == 0, result.stderr
    golden = GOLDEN / "web_init.dump"
    if update_golden:
        golden.write_text(result.stdout, encoding="utf-8")
    assert result.stdout == golden.read_text(encoding="utf-8")


def test_parse_output_is_deterministic_and_cache_transparent(tmp_path: Path) -> None:
    source = tmp_path / "main.cf"
    source.write_text((EXAMPLE / "main.cf").read_text(encoding="utf-8"), encoding="utf-8")
    cold = run("parse", "main.cf", cwd=tmp_path)
    warm = run("parse", "main.cf", cwd=tmp_path)
    uncached = run("parse", "main.cf", "--no-cache", cwd=tmp_path)
    assert cold.returncode == warm.returncode == uncached.returncode == 0
    assert cold.stdout == warm.stdout == uncached.stdout
    assert any((tmp_path / ".test-cache" / "parse").rglob("*"))


def test_syntax_error_exit_1_with_position(tmp_path: Path) -> None:
    (tmp_path / "bad.cf").write_text("entity Host:\n    string name =\nend\n", encoding="utf-8")
    result = run("parse", "bad.cf", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "bad.cf:3:1: error: unexpected 'end' (expected a value, '(', '[', 'not', 'undef' or '{')  [syntax]\n"
    )
    assert_no_traceback(result)


@pytest.mark.parametrize(
    ("setup", "argument", "expected"),
    [
        ("dir", "thing.cf", "thing.cf:1:1: error: thing.cf is a directory, expected a .cf file  [load]\n"),
        ("none", "missing.cf", "error: no such file: missing.cf  [load]\n"),
        (
            "latin1",
            "latin1.cf",
            "latin1.cf:1:9: error: file is not valid UTF-8 text (byte 0xe9 cannot be decoded)  [not-utf8]\n",
        ),
    ],
)
def test_unreadable_input(tmp_path: Path, setup: str, argument: str, expected: str) -> None:
    if setup == "dir":
        (tmp_path / argument).mkdir()
    elif setup == "latin1":
        (tmp_path / argument).write_bytes(b'x = "caf\xe9"\n')
    result = run("parse", argument, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, expected)
    assert_no_traceback(result)


def test_empty_file_warns_but_succeeds(tmp_path: Path) -> None:
    (tmp_path / "empty.cf").write_text("", encoding="utf-8")
    result = run("parse", "empty.cf", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == "Module empty.cf\n"
    assert result.stderr == "empty.cf:1:1: warning: file is empty  [empty-file]\n"


def test_check_the_example_project() -> None:
    result = run("check", "examples/webshop", "--no-cache")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("webshop: ok — 7 files, 232 lines, modules: shop, std, web (")


def test_check_defaults_to_the_current_directory() -> None:
    result = run("check", cwd=EXAMPLE)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("webshop: ok — 7 files")


def test_check_reports_every_broken_module(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text("import a\nimport b\nimport c\n", encoding="utf-8")
    for name, text in {"a": "x = = 1\n", "b": "entity B:\n"}.items():
        (tmp_path / "libs" / name / "model").mkdir(parents=True)
        (tmp_path / "libs" / name / "module.yaml").write_text(f"name: {name}\n", encoding="utf-8")
        (tmp_path / "libs" / name / "model" / "_init.cf").write_text(text, encoding="utf-8")
    result = run("check", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (
        "libs/a/model/_init.cf:1:5: error: unexpected '=' (expected a value, '(', '[', 'not' or '{')  [syntax]\n"
        "libs/b/model/_init.cf:2:1: error: unexpected end of file (expected 'end' to close 'entity B' opened at "
        "libs/b/model/_init.cf:1:1)  [syntax]\n"
        "main.cf:3:8: error: could not find module 'c' (looked in: installed packages, libs, built-in modules)  [module-not-found]\n"
    )
    assert_no_traceback(result)


@pytest.mark.parametrize("args", [[], ["parse"], ["frobnicate"], ["check", "--bogus"]])
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: cfmodel")
    assert_no_traceback(result)


def test_internal_errors_are_reported_as_bugs_without_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cfmodel import cli
    from cfmodel.commands import frontend

    def broken(_args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(frontend, "cmd_check", broken)
    monkeypatch.delenv("CFMODEL_DEBUG", raising=False)
    assert cli.main(["check", str(EXAMPLE)]) == 3
    captured = capsys.readouterr()
    assert captured.err == (
        "cfmodel: internal error: RuntimeError: boom\n"
        "cfmodel: this is a bug; set CFMODEL_DEBUG=1 for details and please report it\n"
    )


def test_check_resolves_names_and_reports_every_problem(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text(
        "entity Host:\n    strin name\nend\nHost.disks [2:1] -- Disk\n", encoding="utf-8"
    )
    result = run("check", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "main.cf:2:5: error: could not find type 'strin' in namespace __config__ (did you mean 'string'?)  "
        "[unknown-type]\n"
        "main.cf:4:12: error: bad multiplicity [2:1]: the upper bound 1 is below the lower bound 2  "
        "[bad-multiplicity]\n"
        "main.cf:4:21: error: could not find entity 'Disk' in namespace __config__  [unknown-entity]\n"
    )
    assert_no_traceback(result)


def test_check_prints_resolve_warnings_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text("entity Host:\n    number weight = 1\nend\n", encoding="utf-8")
    result = run("check", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{tmp_path.name}: ok — 2 files, ")
    assert result.stderr == (
        "main.cf:2:5: warning: type 'number' is deprecated, use 'float' or 'int' instead  [deprecated-type]\n"
    )
