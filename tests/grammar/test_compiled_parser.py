"""The compiled parser (`grammars/peg.py`) must parse exactly what textX parses.

`parse_str` parses valid files with Python code generated from textX's parser model
of `cf.tx`, and falls back to textX only to explain a syntax error. These tests
compare the two, object for object (class, positions, attribute values), on every
golden source, the bundled examples, and deterministic mutations of them, so a grammar
edit the generator does not reproduce faithfully fails here.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from textx import TextXSyntaxError

from cfmodel.grammars import cf, peg
from tests.golden import load_cases

ROOT = Path(__file__).parents[2]
CASES_DIR = Path(__file__).parent / "cases"
SOURCES = [case.source for path in sorted(CASES_DIR.glob("*.test")) for case in load_cases(path)] + [
    path.read_text(encoding="utf-8") for path in sorted((ROOT / "examples").rglob("*.cf"))
]


def comparable(value: object) -> object:
    """A parser object as nested tuples: class name, positions, attribute values."""
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    cls = type(value)
    names = getattr(cls, "_tx_attrs", None) or [
        n for n in getattr(cls, "__slots__", ()) if not n.startswith("_")
    ]
    return (
        cls.__name__,
        getattr(value, "_tx_position", None),
        getattr(value, "_tx_position_end", None),
        tuple((name, comparable(getattr(value, name))) for name in names),
    )


def textx_verdict(text: str) -> object:
    try:
        model = cf._metamodel().model_from_str(text)
    except TextXSyntaxError:
        return None
    return "<empty>" if model == "" else comparable(model)


def compiled_verdict(text: str) -> object:
    model = cf._fast_parser()(text)
    return None if model is None else "<empty>" if not model.statements else comparable(model)


def mutations(seed: int, count: int) -> list[str]:
    """Sources with a token dropped, duplicated or swapped: many invalid, some valid."""
    rng = random.Random(seed)
    pieces = [" ", "\n", "end", ":", "(", ")", "[", "]", "=", ",", ".", "--", "if", "else", "for", '"', "x"]
    out = []
    for _ in range(count):
        text = rng.choice(SOURCES)
        if not text:
            continue
        at = rng.randrange(len(text))
        kind = rng.randrange(3)
        if kind == 0:
            text = text[:at] + text[at + rng.randrange(1, 4) :]
        elif kind == 1:
            text = text[:at] + rng.choice(pieces) + text[at:]
        else:
            other = rng.randrange(len(text))
            text = text[:at] + text[other : other + 6] + text[at:]
        out.append(text)
    return out


@pytest.mark.parametrize("index", range(len(SOURCES)))
def test_same_objects_as_textx_on_every_golden_source_and_example(index: int) -> None:
    text = cf.blank_comments(SOURCES[index])
    assert compiled_verdict(text) == textx_verdict(text)


def test_same_verdict_and_objects_as_textx_on_mutated_sources() -> None:
    disagreements = []
    valid = 0
    for text in mutations(seed=20261121, count=400):
        blanked = cf.blank_comments(text)
        expected = textx_verdict(blanked)
        valid += expected is not None
        if compiled_verdict(blanked) != expected:
            disagreements.append(text)
    assert disagreements == []
    assert 20 < valid < 400  # the mutations exercise both paths


@pytest.mark.parametrize(
    ("grammar", "options", "reason"),
    [
        ("Model: items*=Item; Item: name=/[a-z]+/; Comment: /#.*$/;", {}, "comment rules"),
        ("Model: items*=Item; Item: 'x' name=/[a-z]+/;", {"ignore_case": True}, "case-insensitive"),
        ("Model: items*=Item; Item: 'x' name=/[a-z]+/;", {"skipws": False}, "skipws=False"),
    ],
)
def test_grammar_features_it_cannot_reproduce_are_refused_not_approximated(
    grammar: str, options: dict[str, bool], reason: str
) -> None:
    from textx import metamodel_from_str

    with pytest.raises(peg.UnsupportedGrammarError, match=reason):
        peg.compile_parser(metamodel_from_str(grammar, **options))


def test_the_explainer_reports_what_textx_reports_on_every_invalid_mutation() -> None:
    # The error path no longer runs textX: the explainer must find the same farthest
    # position and the same expected tokens, or the messages would drift.
    compared = 0
    for text in mutations(seed=20261124, count=300):
        blanked = cf.blank_comments(text)
        failure = cf._explainer()(blanked)
        try:
            cf._metamodel().model_from_str(blanked)
        except TextXSyntaxError as error:
            assert failure is not None, text
            line_start = sum(len(line) + 1 for line in blanked.split("\n")[: error.line - 1])
            assert failure.position == line_start + error.col - 1, text
            assert {id(rule) for rule in failure.expected} == {id(rule) for rule in error.expected_rules}, (
                text
            )
            compared += 1
        else:
            assert failure is None, text
    assert compared > 100
