"""Command-line conventions: the subcommands' options are accepted before the subcommand."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.cli import main, move_leading_options

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("argv", "moved"),
    [
        (["--no-cache", "compile", "p"], ["compile", "p", "--no-cache"]),
        (
            ["--fact", "a=b", "--fact=c=d", "bindings", "show"],
            ["bindings", "show", "--fact", "a=b", "--fact=c=d"],
        ),
        (["--cache-dir", "/c", "check", "--", "-odd"], ["check", "--cache-dir", "/c", "--", "-odd"]),
        (["compile", "--no-cache"], ["compile", "--no-cache"]),
        (["--version"], ["--version"]),
    ],
)
def test_leading_options_move_after_the_subcommand(argv: list[str], moved: list[str]) -> None:
    assert move_leading_options(argv) == moved


def test_options_before_or_after_the_subcommand_do_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    project = str(ROOT / "tests" / "bindings" / "data" / "environments")
    after = ["bindings", "inject", "tier", project, "--fact", "fqdn=web1.example.com", "--no-cache"]
    before = ["--no-cache", "--fact", "fqdn=web1.example.com", "bindings", "inject", "tier", project]
    assert main(after) == 0
    said_after = capsys.readouterr()
    assert main(before) == 0
    assert capsys.readouterr() == said_after
    assert said_after.out == "prod\n"
