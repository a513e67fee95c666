"""``cfmodel mcl fmt``: canonical, idempotent, comment-preserving; the same tree after it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from cfmodel.cli import main
from cfmodel.errors import Span
from cfmodel.grammars.mcl import parse_str
from cfmodel.transforms.mcl.unparse import format_source
from tests.mcl.test_golden import CASES

MESSY = """\
import "fmt"   # the printf
$b=true
$l=[1,2,
  3]   # three
file   "/tmp/x"{content=>$b?:"a\\tb",Meta:noop=>true,Before=>Svc["s"],}


svc "s" {}
# a class
class c($a,$b str){
test "${a}" {int=>($b+"x")->len||1,}   # odd but valid
}
$f=func($x int)int{$x*(2+3)}
if not $b{test "no"{}}else{
  # in else
  test "yes" {}
}
"""

CANONICAL = """\
import "fmt" # the printf
$b = true
$l = [
\t1,
\t2,
\t3, # three
]
file "/tmp/x" {
\tcontent => $b ?: "a\\tb",
\tMeta:noop => true,
\tBefore => Svc["s"],
}

svc "s" {}
# a class
class c($a, $b str) {
\ttest "${a}" { # odd but valid
\t\tint => ($b + "x")->len || 1,
\t}
}
$f = func($x int) int { $x * (2 + 3) }
if not $b {
\ttest "no" {}
} else {
\t# in else
\ttest "yes" {}
}
"""


def test_messy_program_formats_canonically() -> None:
    assert format_source(MESSY, "m.mcl") == CANONICAL


def test_formatting_is_idempotent() -> None:
    assert format_source(CANONICAL, "m.mcl") == CANONICAL


def _shape(node: Any) -> Any:
    """A tree without spans and comments (what formatting must not change)."""
    if isinstance(node, list):
        return [_shape(x) for x in node]
    if isinstance(node, tuple):
        return tuple(_shape(x) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, Span):
        return (
            type(node).__name__,
            *tuple(
                (f.name, _shape(getattr(node, f.name)))
                for f in dataclasses.fields(node)
                if f.name not in ("span", "else_span", "comments", "file", "raw")
            ),
        )
    return node


@pytest.mark.parametrize("case", CASES, ids=[f"{c.file.stem}::{c.name}" for c in CASES])
def test_every_golden_program_keeps_its_tree_and_comments(case: Any) -> None:
    try:
        before = parse_str(case.source, "main.mcl")
    except Exception:  # a program that does not parse has nothing to format: its golden says so
        assert "[mcl-parse" in case.expected, case.expected
        return
    formatted = format_source(case.source, "main.mcl")
    after = parse_str(formatted, "main.mcl")
    assert _shape(after) == _shape(before)
    assert [text for _, text in after.comments] == [text for _, text in before.comments]
    assert format_source(formatted, "main.mcl") == formatted


def test_fmt_command_check_and_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "main.mcl"
    path.write_text(MESSY, encoding="utf-8")
    assert main(["mcl", "fmt", str(path)]) == 0
    assert capsys.readouterr().out == CANONICAL
    assert main(["mcl", "fmt", "--check", str(path)]) == 1
    assert "would reformat" in capsys.readouterr().err
    assert main(["mcl", "fmt", "--write", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == CANONICAL
    assert main(["mcl", "fmt", "--check", str(path)]) == 0


def test_fmt_of_a_program_that_does_not_parse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "main.mcl"
    path.write_text('test "t" {\n', encoding="utf-8")
    assert main(["mcl", "fmt", str(path)]) == 1
    assert "[mcl-parse]" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == 'test "t" {\n'
