"""The grammars' front-end kit (`cfmodel.grammars.frontend`) and what every grammar gets from it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cfmodel.errors import CfLoadError, CfSyntaxError
from cfmodel.grammars import bindings, cf, environments
from cfmodel.grammars.frontend import CommentBlanker, attr, attrs, expected_text, read_source, syntax_error
from cfmodel.project import parse_file as parse_cf_file

PARSERS = {
    "cf": lambda path: parse_cf_file(path, "x"),
    "bindings": lambda path: bindings.parse_file(path, "x"),
    "environments": lambda path: environments.parse_file(path, "x"),
}


@pytest.mark.parametrize("grammar", list(PARSERS))
def test_every_grammar_reads_its_files_alike(grammar: str, tmp_path: Path) -> None:
    latin1 = tmp_path / "latin1"
    latin1.write_bytes(b"a = 1\nb = '\xe9'\n")
    with pytest.raises(CfLoadError) as info:
        PARSERS[grammar](latin1)
    assert (
        info.value.render()
        == "x:2:6: error: file is not valid UTF-8 text (byte 0xe9 cannot be decoded)  [not-utf8]"
    )
    with pytest.raises(CfLoadError) as info:
        PARSERS[grammar](tmp_path / "missing")
    assert info.value.render() == "error: no such file: x  [load]"
    with pytest.raises(CfLoadError) as info:
        PARSERS[grammar](tmp_path)
    assert re.fullmatch(
        r"x:1:1: error: x is a directory, expected an? [.\w ]+ file  \[load\]", info.value.render()
    )


def test_read_source_gives_the_text(tmp_path: Path) -> None:
    path = tmp_path / "t.cf"
    path.write_bytes("é = 1\r\n".encode())
    assert read_source(path) == "é = 1\r\n"


def test_comment_blanker_keeps_every_position() -> None:
    blank = CommentBlanker(re.compile(r"""("[^"]*")|(#[^\n]*|/\*[\s\S]*?\*/)"""), ("#", "/*"))
    text = 'a = "# not" # yes\n/* two\nlines */ b'
    blanked = blank(text)
    assert blanked == 'a = "# not"      \n      \n         b'
    assert len(blanked) == len(text) and blanked.count("\n") == text.count("\n")
    plain = "nothing to blank"
    assert blank(plain) is plain


@pytest.mark.parametrize(
    ("blank", "text", "expected"),
    [
        (cf.blank_comments, 'x = "#" # c\ny = 1 // d', 'x = "#"    \ny = 1     '),
        (bindings.blank_comments, "bind 'x' to 1 # c\n/* a\nb */", "bind 'x' to 1    \n    \n    "),
        (environments.blank_comments, "$x = /#/ # c", "$x = /#/    "),
    ],
)
def test_each_grammar_blanks_its_comments(blank: object, text: str, expected: str) -> None:
    assert callable(blank)
    assert blank(text) == expected


def test_syntax_errors_read_alike() -> None:
    assert expected_text([]) == "nothing more"
    assert expected_text(["'a'"]) == "'a'"
    assert expected_text(["'a'", "'b'", "a name"]) == "'a', 'b' or a name"
    error = syntax_error("f.bind", 2, 5, "}", ["'to'", "'in'"])
    assert isinstance(error, CfSyntaxError)
    assert error.render() == "f.bind:2:5: error: unexpected '}' (expected 'to' or 'in')  [syntax]"
    assert (
        syntax_error("f", 1, 1, "", []).render()
        == "f:1:1: error: unexpected end of file (expected nothing more)  [syntax]"
    )


def test_the_textx_boundary() -> None:
    class Node:
        one = 1
        many = [1, 2]

    assert attr(Node(), "one") == 1 and attr(Node(), "none") is None
    assert attrs(Node(), "many") == [1, 2] and attrs(Node(), "one") == [1] and attrs(Node(), "none") == []


def test_parsing_evaluates_nothing() -> None:
    """The parsers load no transform: parsing builds trees (compose flattens on first use)."""
    code = (
        "import sys\n"
        "import cfmodel.grammars.bindings, cfmodel.grammars.environments, cfmodel.grammars.cf\n"
        "from cfmodel.grammars.bindings import parse_str\n"
        "parse_str(\"bindings a { bind 'x' to 1 }\", 'a.bind')\n"
        "print(sorted(m for m in sys.modules if m.startswith('cfmodel.transforms')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
