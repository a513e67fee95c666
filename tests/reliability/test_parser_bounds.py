"""Issue 12, items 1, 8 (parser side) and 9: no `.cf` input makes the parser's error path
blow up. Each test would hang (or run out of memory) with an exponential or quadratic
error path, so it runs the CLI in a subprocess with a time limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.helpers import run_cli


@pytest.mark.parametrize(
    "block",
    ["if a:\nx:\n", "for a in b:\nx:\n", "implementation i for A:\nx:\n", "entity A:\nx:\n"],
)
def test_unclosed_blocks_repeated_fail_fast_with_a_located_error(tmp_path: Path, block: str) -> None:
    # 15 repetitions took 1.9 GB and exited 3; each one more doubled the cost.
    (tmp_path / "main.cf").write_text(block * 60, encoding="utf-8")
    result = run_cli("parse", "main.cf", cwd=tmp_path, timeout=60)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("main.cf:"), result.stderr
    assert "[syntax]" in result.stderr


def test_an_unclosed_if_chain_names_the_innermost_open_block(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text("if a:\nx:\n" * 15, encoding="utf-8")
    result = run_cli("parse", "main.cf", cwd=tmp_path, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "main.cf:31:1: error: unexpected end of file (expected 'end' to close 'if a' opened at "
        "main.cf:29:1)  [syntax]"
    )


def test_a_long_line_before_a_syntax_error_is_reported_quickly(tmp_path: Path) -> None:
    # 60,000 list items on one line, then an error on the next line
    (tmp_path / "main.cf").write_text("x = [" + "1," * 60000 + "1]\ny = = 2\n", encoding="utf-8")
    result = run_cli("parse", "main.cf", cwd=tmp_path, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith("main.cf:2:5: error: unexpected '='"), result.stderr


def test_deep_nesting_is_refused_with_an_error_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n", encoding="utf-8")
    result = run_cli("parse", "main.cf", cwd=tmp_path, timeout=60)
    assert result.returncode == 1
    assert "nests too deeply" in result.stderr
    assert "Traceback" not in result.stderr


def _cfenv(tmp_path: Path, environment_expression: str) -> None:
    (tmp_path / "environments.cfenv").write_text(
        "site {\n  environment { 'production': envdir => 'production' }\n}\n"
        f"$environment = {environment_expression}\n",
        encoding="utf-8",
    )


def test_cfenv_with_100_nested_parentheses_is_refused_not_a_crash(tmp_path: Path) -> None:
    _cfenv(tmp_path, "(" * 100 + "'production'" + ")" * 100)
    result = run_cli("env", "which", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("environments.cfenv:"), result.stderr


def test_cfenv_with_a_regex_nested_600_deep_is_refused_not_a_crash(tmp_path: Path) -> None:
    regex = "(" * 600 + "a" + ")" * 600
    (tmp_path / "environments.cfenv").write_text(
        "site {\n  environment { 'production': envdir => 'production' }\n}\n"
        f"case $::fqdn {{\n  /{regex}/: {{ $environment = 'production' }}\n"
        "  default: { $environment = 'production' }\n}\n",
        encoding="utf-8",
    )
    result = run_cli("env", "which", ".", "--fact", "fqdn=a", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("environments.cfenv:"), result.stderr


def test_cfenv_nesting_that_people_write_still_parses(tmp_path: Path) -> None:
    _cfenv(tmp_path, "(" * 30 + "'production'" + ")" * 30)
    result = run_cli("env", "which", ".", cwd=tmp_path)
    # the file parses: the error is about the missing envdir
    assert "[envdir-not-found]" in result.stderr, result.stderr


@pytest.mark.parametrize("operator", ["+", " and "])
def test_long_operator_chains_parse_check_and_print(tmp_path: Path, operator: str) -> None:
    # item 3, parser side: 5,000 terms (the tree is 5,000 deep) are parsed, resolved and
    # printed by `cfmodel parse`; the parse cache skips what it cannot pickle
    term = "1" if operator == "+" else "true"
    (tmp_path / "project.yml").write_text("name: p\n", encoding="utf-8")
    (tmp_path / "main.cf").write_text("x = " + operator.join([term] * 5000) + "\n", encoding="utf-8")
    for _ in range(2):  # cold, then through the cache
        assert run_cli("check", ".", cwd=tmp_path).returncode == 0
    printed = run_cli("parse", "main.cf", cwd=tmp_path)
    assert printed.returncode == 0
    assert printed.stdout.count("Literal") == 5000


def test_an_envdir_name_too_long_for_the_file_system_is_not_found_not_a_crash(tmp_path: Path) -> None:
    # found by the fuzzing harness (project inputs 13823, 16736, 18116 of its first long run)
    (tmp_path / "environments.cfenv").write_text(
        "site {\n  environment { 'production': envdir => '" + "d" * 300 + "' }\n}\n", encoding="utf-8"
    )
    result = run_cli("env", "which", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("environments.cfenv:2:"), result.stderr
    assert "[envdir-not-found]" in result.stderr


def test_a_module_path_too_long_for_the_file_system_is_no_crash(tmp_path: Path) -> None:
    # found by the fuzzing harness (project input 2012756): a modulepath from the cfenv
    (tmp_path / "production").mkdir()
    (tmp_path / "production" / "main.cf").write_text("", encoding="utf-8")
    (tmp_path / "environments.cfenv").write_text(
        "site {\n  Environment { modulepath => ['" + "m" * 300 + "'] }\n"
        "  environment { 'production': envdir => 'production' }\n}\n",
        encoding="utf-8",
    )
    result = run_cli("env", "which", ".", cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr


def test_an_unclosed_block_after_a_1_mb_line_is_reported_quickly(tmp_path: Path) -> None:
    # found by the fuzzing harness (cf input 2027571): describing the open block ran a
    # regex that backtracked quadratically over a long line (22 s for 105 kB; 1 MB: hours)
    long_line = '    "' + "x" * 1_000_000 + '"\n'  # blanked to spaces before the block search
    (tmp_path / "main.cf").write_text("if b:\n" + long_line, encoding="utf-8")
    result = run_cli("parse", "main.cf", cwd=tmp_path, timeout=60)
    assert result.returncode == 1
    assert "(expected 'end' to close 'if b' opened at main.cf:1:1)" in result.stderr, result.stderr
