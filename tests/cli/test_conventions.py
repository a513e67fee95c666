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


def test_format_json_for_scripts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    example = str(ROOT / "examples" / "webshop")
    assert main(["compile", example, "--format", "json"]) == 0
    compiled = json.loads(capsys.readouterr().out)
    assert {k: compiled[k] for k in ("project", "ok", "total")} == {
        "project": "webshop",
        "ok": True,
        "total": 19,
    }
    assert compiled["instances"]["web::Server"] == 2 and compiled["seconds"] >= 0
    assert main(["check", example, "--format", "json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert (checked["project"], checked["ok"], checked["files"]) == ("webshop", True, 7)
    assert "web::services" in checked["namespaces"]
    # errors: one JSON object per diagnostic on stderr, nothing on stdout
    (tmp_path / "main.cf").write_text('entity Host:\n  string name\nend\nHost(nme="x")\n', encoding="utf-8")
    assert main(["compile", str(tmp_path), "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert [json.loads(line) for line in err.splitlines()] == [
        {
            "file": str(tmp_path / "main.cf"),
            "line": 4,
            "col": 6,
            "end_line": 4,
            "end_col": 9,
            "severity": "error",
            "code": "unknown-attribute",
            "message": "entity __config__::Host has no attribute or relation 'nme' (did you mean 'name'?)",
            "notes": [
                {
                    "file": None,
                    "line": None,
                    "col": None,
                    "end_line": None,
                    "end_col": None,
                    "message": "__config__::Host has: name, provides, requires",
                }
            ],
        }
    ]


class _Terminal:
    """A stand-in for a terminal's stderr (what colour is decided on)."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_quiet_colour_and_verbose(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sys

    from cfmodel.console import DiagnosticStream, color_wanted

    said = (
        "a.bind:3:3: warning: something  [code]\n"
        "a.bind:2:3: note: its note\n"
        "note: a note without place\n"
        "a.bind:4:3: error: broken  [other]\n"
        "note: the error's note\n"
        "plain output\n"
    )
    quiet = _Terminal()
    stream = DiagnosticStream(quiet, color=False, quiet=True)
    stream.write(said)
    stream.flush()
    assert quiet.text == "a.bind:4:3: error: broken  [other]\nnote: the error's note\nplain output\n"
    coloured = _Terminal()
    stream = DiagnosticStream(coloured, color=True, quiet=False)
    stream.write(said)
    stream.flush()
    assert coloured.text.splitlines()[0] == "a.bind:3:3: \x1b[1;35mwarning\x1b[0m: something  [code]"
    assert coloured.text.splitlines()[3] == "a.bind:4:3: \x1b[1;31merror\x1b[0m: broken  [other]"
    assert coloured.text.splitlines()[5] == "plain output"
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert color_wanted(_Terminal()) is True  # type: ignore[arg-type]  # a stand-in
    with (tmp_path / "log").open("w") as log:
        assert color_wanted(log) is False  # not a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    assert color_wanted(_Terminal()) is False  # type: ignore[arg-type]
    # -v: the time and peak memory on stderr, the output unchanged
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["-v", "check", str(ROOT / "examples" / "webshop")]) == 0
    last = terminal.text.rsplit("\r\x1b[K", 1)[-1]  # after the progress line (a terminal) is erased
    assert last.startswith("cfmodel: check took ") and last.endswith(" MB\n")


def _bash_completes(script: Path, *words: str) -> list[str]:
    import subprocess

    typed = " ".join(f"'{w}'" for w in words)
    code = f'source {script}; COMP_WORDS=(cfmodel {typed}); COMP_CWORD={len(words)}; _cfmodel; echo "${{COMPREPLY[*]}}"'
    done = subprocess.run(["bash", "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_shell_completion_knows_every_command_and_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["completion", "bash"]) == 0
    script = tmp_path / "cfmodel.bash"
    script.write_text(capsys.readouterr().out, encoding="utf-8")
    assert _bash_completes(script, "com") == ["compile", "completion"]
    assert _bash_completes(script, "bindings", "")[:3] == ["explain", "inject", "show"]
    assert _bash_completes(script, "compile", "examples/webshop", "--fa") == ["--fact", "--facts"]
    assert _bash_completes(script, "xmi", "export", "--o") == ["--output"]
    assert main(["completion", "zsh"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "autoload -U +X bashcompinit && bashcompinit"
    assert main(["completion", "fish"]) == 0
    fish = capsys.readouterr().out.splitlines()
    assert (
        "complete -c cfmodel -n '__fish_seen_subcommand_from bindings; and __fish_seen_subcommand_from show' -l format"
        in fish
    )
