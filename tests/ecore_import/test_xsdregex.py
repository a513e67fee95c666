"""XML Schema regexes ↔ Python regexes: each translation accepts exactly the strings
the original accepts (tables of accepted and refused strings), refuses what it cannot
translate exactly, and the ``.cf`` regex token reads back as the same regex."""

from __future__ import annotations

import re

import pytest

from cfmodel.grammars.cf import parse_str
from cfmodel.transforms.cf.xsdregex import MAX_DEPTH, cf_regex_literal, python_to_xsd, xsd_to_python

# XML Schema pattern, strings it accepts, strings it refuses (XSD semantics: whole string)
XSD_TABLE = [
    ("[0-9]{9}[0-9X]", ["123456789X", "1234567890"], ["12345678X", "123456789Y", "123456789X\n"]),
    ("a^b$c", ["a^b$c"], ["abc", "a"]),
    ("\\i\\c*", ["_a1", "x-y.z", "é"], ["1a", "-a", ""]),
    ("[a-z-[aeiou]]+", ["bcd", "xyz"], ["abc", "", "B"]),
    ("[^a-z-[0-9]]", ["A", "-"], ["a", "5"]),
    (".", ["x", " "], ["\n", "\r", "xy"]),
    ("\\p{Lu}\\p{Ll}*", ["Abc", "Éa"], ["abc", "A1"]),
    ("\\P{N}+", ["abc"], ["a1"]),
    ("\\s\\S", [" x", "\tx"], ["xx", "  "]),
    ("(ab|cd)*", ["", "abcd", "cdab"], ["abc", "ac"]),
    ("a{2,3}", ["aa", "aaa"], ["a", "aaaa"]),
    ("[\\-\\[\\]]+", ["-[]"], ["a"]),
    ("\\d+(\\.\\d+)?", ["1", "1.25"], ["1.", ".5"]),
    ("a/b", ["a/b"], ["ab"]),
    ("\\p{IsBasicLatin}+", ["abc~"], ["é"]),
    ("[\\s\\S]*", ["", "a\nb"], []),
    ("[a\\D]", ["a", "x"], ["1", "ab"]),
]


@pytest.mark.parametrize(("pattern", "accepted", "refused"), XSD_TABLE)
def test_xsd_to_python_accepts_exactly_what_xml_schema_accepts(
    pattern: str, accepted: list[str], refused: list[str]
) -> None:
    translated = xsd_to_python(pattern)
    assert translated is not None
    assert [s for s in accepted if re.match(translated, s) is None] == []
    assert [s for s in refused if re.match(translated, s) is not None] == []


@pytest.mark.parametrize(
    "pattern",
    [
        "\\p{IsGreek}",  # a block we do not carry
        "[A-Z]+)$/x=1#",  # unbalanced
        "(a",
        "[a-",
        "a{3,1}",
        "\\q",
        "*a",
        "[^\\S]",  # a negated escape inside a negated class
        "(" * (MAX_DEPTH + 2) + ")" * (MAX_DEPTH + 2),
    ],
)
def test_what_cannot_be_translated_exactly_is_refused(pattern: str) -> None:
    assert xsd_to_python(pattern) is None


# Python regex (re.match), strings it accepts, strings it refuses
PYTHON_TABLE = [
    ("^[a-z0-9.-]+$", ["web01.example.org", "a\n"], ["Web", "", "a\nb"]),
    ("[a-z]", ["abc", "a-Z"], ["Abc", ""]),
    ("^a\\Z", ["a"], ["a\n", "ab"]),
    ("a|b", ["a", "bcd"], ["c"]),
    ("\\d+\\s?", ["12 ", "1x"], ["x1"]),
    ("[^/]*", ["", "abc"], []),
    ("x*?y", ["y", "xxy"], ["x"]),
]


@pytest.mark.parametrize(("pattern", "accepted", "refused"), PYTHON_TABLE)
def test_python_to_xsd_round_trips_through_xsd_to_python(
    pattern: str, accepted: list[str], refused: list[str]
) -> None:
    xsd = python_to_xsd(pattern)
    assert xsd is not None
    back = xsd_to_python(xsd)
    assert back is not None
    for s in accepted:
        assert re.match(pattern, s) is not None and re.match(back, s) is not None, s
    for s in refused:
        assert re.match(pattern, s) is None and re.match(back, s) is None, s


@pytest.mark.parametrize("pattern", ["(?i)a", "a\\b", "a|b$", "(?=a)a", "(a)\\1", "a$b", "^|a^"])
def test_python_constructs_without_an_xml_schema_form_are_refused(pattern: str) -> None:
    assert python_to_xsd(pattern) is None


@pytest.mark.parametrize("pattern", ["a/b", "a\\/b", "x\ny", "\\\n", "tab\there", "\u2028", "[/]", "\\"])
def test_a_cf_regex_token_reads_back_as_the_same_regex(pattern: str) -> None:
    token = cf_regex_literal(pattern)
    module = parse_str(f"typedef t as string matching {token}\nx = 1\n", "<test>")
    assert len(module.statements) == 2
    parsed = module.statements[0].regex  # type: ignore[union-attr]
    assert parsed is not None
    for s in ["a/b", "x\ny", "\n", "tab\there", "\u2028", "/", "\\", "ab"]:
        try:
            expected = re.match(pattern, s) is not None
        except re.error:
            expected = None
        if expected is not None:
            assert (re.match(parsed.pattern, s) is not None) == expected, (pattern, s)
