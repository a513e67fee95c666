"""Golden tests of the `.cf` grammar: every construct, success paths and errors.

Each case's source is parsed as ``main.cf``; the expected output is the canonical dump
of the tree, or the full rendered error for a source that must be rejected.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.dump import dump_module
from cfmodel.errors import CfModelError, Span
from cfmodel.grammars.cf import parse_str
from tests.golden import Case, load_cases, rewrite_case

CASES_DIR = Path(__file__).parent / "cases"
CASES = [case for path in sorted(CASES_DIR.glob("*.test")) for case in load_cases(path)]


def render(source: str) -> str:
    try:
        return dump_module(parse_str(source, "main.cf"))
    except CfModelError as error:
        return error.render() + "\n"


@pytest.mark.parametrize("case", CASES, ids=[f"{c.file.stem}::{c.name}" for c in CASES])
def test_case(case: Case, update_golden: bool) -> None:
    actual = render(case.source)
    if update_golden and actual != case.expected:
        rewrite_case(case, actual)
        pytest.skip("golden output rewritten")
    assert actual == case.expected


def test_case_names_are_unique() -> None:
    names = [(c.file.stem, c.name) for c in CASES]
    assert len(names) == len(set(names))
    assert len(CASES) > 50


def test_windows_line_endings_keep_positions() -> None:
    crlf = parse_str('x = 1\r\nentity A:\r\n    string a = "v"\r\nend\r\n', "main.cf")
    lf = parse_str('x = 1\nentity A:\n    string a = "v"\nend\n', "main.cf")
    assert dump_module(crlf) == dump_module(lf)


def test_spans_are_one_based_and_end_exclusive() -> None:
    module = parse_str("entity Host:\nend\n", "main.cf")
    entity = module.statements[0]
    assert getattr(entity, "span") == Span("main.cf", 1, 1, 2, 4)  # noqa: B009
    assert getattr(entity, "name").span == Span("main.cf", 1, 8, 1, 12)  # noqa: B009
