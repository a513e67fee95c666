"""The grammars' front-end kit (`cfmodel.grammars.frontend`) and what every grammar gets from it."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cfmodel.errors import CfLoadError, CfSyntaxError
from cfmodel.grammars import bindings, cf, environments, mcl
from cfmodel.grammars.frontend import (
    CommentBlanker,
    TextxErrors,
    attr,
    attrs,
    expected_text,
    read_source,
    syntax_error,
)
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


@pytest.mark.parametrize(
    ("parse", "text", "expected"),
    [
        (
            bindings.parse_str,
            "bindings a {\r\n bind 'x' to \"abc\r\n}",
            "t:2:14: error: unexpected '\"abc' (expected 'optional', 'producer', 'class', a type name "
            "or an expression)  [syntax]",
        ),
        (
            bindings.parse_str,
            "bindings a { bind 'x' to 1 + }",
            "t:1:30: error: unexpected '}' (expected an expression)  [syntax]",
        ),
        (
            environments.parse_str,
            "$x = [1,",
            "t:1:9: error: unexpected end of file (expected ']' or an expression)  [syntax]",
        ),
        (
            mcl.parse_str,
            "$x = -",
            "t:1:6: error: unexpected '-' (expected a name or an expression)  [mcl-parse]",
        ),
        (
            mcl.parse_str,
            "$x = struct{a int",
            "t:1:15: error: unexpected 'int' (expected '=>')  [mcl-parse]",
        ),
    ],
)
def test_every_textx_grammar_reports_syntax_errors_through_the_kit(
    parse: Callable[[str, str], object], text: str, expected: str
) -> None:
    """The found token (a string up to its line's end, CR excluded), the expected rules by
    their names, an expression's starts as one, the grammar's code."""
    with pytest.raises(CfSyntaxError) as caught:
        parse(text, "t")
    assert caught.value.render() == expected


class _Rule:
    def __init__(self, rule_name: str, to_match: str = "") -> None:
        self.rule_name, self.to_match = rule_name, to_match


class _Failure:
    def __init__(self, line: int, col: int) -> None:
        self.line, self.col = line, col
        self.expected_rules = [_Rule("Str"), _Rule("Kw", "bind\\b"), _Rule("Str"), _Rule("Op")]


def test_textx_errors_find_the_token_where_textx_points() -> None:
    errors = TextxErrors(
        {"Str": "a string", "Op": ("'+'", "'-'")},
        re.compile(r"\w+|\S"),
        frozenset({"'+'", "'-'"}),
        lambda names: "'-'" in names,
    )
    assert errors.expected(_Failure(1, 1)) == ["a string", "'bind'", "an expression"]
    assert errors.error(_Failure(2, 3), "a\nb word\n", "f").render() == (
        "f:2:3: error: unexpected 'word' (expected a string, 'bind' or an expression)  [syntax]"
    )
    past = errors.error(_Failure(9, 1), "a\n", "f").render()  # past the text: its end
    assert past.startswith("f:9:1: error: unexpected end of file")


def test_the_blanker_also_gives_the_comments() -> None:
    """mcl's ``fmt`` puts comments back: the kit's blanker gives them with their offsets."""
    text = '$x = "a # b" # one\n# two\n'
    blanked, comments = mcl.split_comments(text)
    assert blanked == '$x = "a # b"      \n     \n'
    assert comments == [(13, 18, "# one"), (19, 24, "# two")]
    assert mcl.split_comments("$x = 1\n") == ("$x = 1\n", [])


def test_grammars_are_built_by_one_thread_at_a_time() -> None:
    """A fresh process parsing in four threads at once (each grammar built on first use:
    textX's parser of grammars is one shared object, which two threads at once break)."""
    code = (
        "import threading\n"
        "from cfmodel.grammars import bindings, cf, environments, mcl\n"
        "texts = [(cf.parse_str, 'x = 1\\n'), (bindings.parse_str, \"bindings a { bind 'x' to 1 }\"),\n"
        "         (environments.parse_str, '$x = 1\\n'), (mcl.parse_str, '$x = 1\\n')] * 2\n"
        "start, done = threading.Barrier(len(texts)), []\n"
        "def run(parse, text):\n"
        "    start.wait()\n"
        "    parse(text, 't')\n"
        "    done.append(1)\n"
        "threads = [threading.Thread(target=run, args=pair) for pair in texts]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print(len(done))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "8", done.stderr
