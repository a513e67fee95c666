"""`cfmodel.inputs`: the limits every untrusted text file and YAML document is read with."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from cfmodel import inputs
from cfmodel.errors import CfLoadError


def _bomb(width: int, depth: int) -> str:
    return f"b0: &b0 [{', '.join(['x'] * width)}]\n" + "".join(
        f"b{i}: &b{i} [{', '.join([f'*b{i - 1}'] * width)}]\n" for i in range(1, depth)
    )


def test_plain_yaml_with_aliases_loads() -> None:
    assert inputs.load_yaml("a: &x {k: v}\nb: *x\nc: [1, 2.5, true, null]\n") == {
        "a": {"k": "v"},
        "b": {"k": "v"},
        "c": [1, 2.5, True, None],
    }
    assert inputs.load_yaml("") is None


@pytest.mark.parametrize(("width", "depth"), [(9, 9), (2, 40)])
def test_alias_bombs_are_refused_at_once(width: int, depth: int) -> None:
    start = time.process_time()
    with pytest.raises(
        inputs.YamlLimitError, match="aliases expand the document by more than 100,000 values"
    ):
        inputs.load_yaml(_bomb(width, depth))
    assert time.process_time() - start < 1.0


def test_a_bomb_just_under_the_limit_loads() -> None:
    assert len(inputs.load_yaml(_bomb(10, 4))["b3"]) == 10


def test_aliases_adding_a_few_hundred_thousand_values_are_refused() -> None:
    # found by the fuzzing harness (project input 1135019): 16 doubling aliases, 262,000
    # values once expanded, under the 1,000,000 cap, took 8 s of CPU to show
    start = time.process_time()
    with pytest.raises(inputs.YamlLimitError, match="by more than 100,000 values"):
        inputs.load_yaml(_bomb(2, 17))
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize(
    "text",
    [
        "k: " + "[" * 5000,
        "k: " + "{" * 300,
        "k: " + "- " * 5000 + "x",
        "x:\n" + "".join(" " * i + f"a{i}:\n" for i in range(1, 400)),
    ],
)
def test_deep_nesting_is_refused_quickly(text: str) -> None:
    start = time.process_time()
    with pytest.raises(yaml.YAMLError):
        inputs.load_yaml(text)
    assert time.process_time() - start < 2.0


@pytest.mark.parametrize(
    "text", ["k: " + "9" * 5000, "k: 0x" + "f" * 5000, "k: !!binary //79", "k: !!python/object:os.system x"]
)
def test_values_python_cannot_or_must_not_make_are_yaml_errors(text: str) -> None:
    with pytest.raises(yaml.YAMLError):
        inputs.load_yaml(text)


def test_not_utf8_is_located_at_the_first_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "data.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(CfLoadError) as info:
        inputs.read_text(path, "data.yaml")
    assert info.value.render() == (
        "data.yaml:2:7: error: file is not valid UTF-8 text (byte 0xe9 cannot be decoded)  [not-utf8]"
    )


def test_a_file_over_the_cap_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inputs, "MAX_TEXT_BYTES", 100)
    path = tmp_path / "big.cf"
    path.write_bytes(b"x" * 101)
    with pytest.raises(CfLoadError) as info:
        inputs.read_text(path)
    assert info.value.code == "too-large"
    path.write_bytes(b"x" * 100)
    assert inputs.read_text(path) == "x" * 100


@pytest.mark.parametrize("depth", [900, 5000])
def test_deep_json_models_and_json_ld_are_refused_before_parsing(depth: int) -> None:
    from pyecore.resources import ResourceSet

    from cfmodel.errors import CfSerializationError
    from cfmodel.serializers import json as json_models
    from cfmodel.serializers import rdf

    nested = b"[" * depth + b"]" * depth
    for document in (b'{"format": "cfmodel-instances", "version": 1, "roots": ' + nested + b"}",
                     b'{"eClass": "http://x#//A", "kids": ' + nested + b"}"):  # fmt: skip
        with pytest.raises(CfSerializationError) as info:
            json_models.from_bytes(document, ResourceSet(), "m.json")
        assert info.value.code == "too-deep" and "nests deeper than 200 levels" in info.value.message
        assert (
            info.value.span is not None and info.value.span.col == document.index(b"[") + 200
        )  # the 201st bracket, "{" first
    with pytest.raises(CfSerializationError) as info:
        rdf._check_jsonld(b'{"@graph": ' + nested + b"}", "m.jsonld")
    assert "nests deeper than 200 levels" in info.value.message


def test_only_plain_data_is_built() -> None:
    # found by the fuzzing harness (project input 749955 of the final million-input run):
    # a date, a !!binary or a !!set in Hiera data was a Python object the bindings could
    # not hold (exit 3); timestamps stay the text written (even 2001-02-30)
    assert inputs.load_yaml(
        "d: 2001-02-03\nt: 2001-12-14t21:59:43.10-05:00\nbad: 2001-02-30\nb: !!binary aGVsbG8=\ns: !!set {a, b}\n"
    ) == {"d": "2001-02-03", "t": "2001-12-14t21:59:43.10-05:00", "bad": "2001-02-30", "b": "hello",
          "s": {"a": None, "b": None}}  # fmt: skip


def test_the_quick_json_depth_measure_gives_the_token_scan_verdict() -> None:
    """`check_json_nesting` clears large documents at C speed (`_within_json_depth`) and
    scans token by token only what that cannot clear: on valid JSON (strings holding
    brackets, quotes, backslashes, non-ASCII) both verdicts and positions agree; on
    text that is not JSON, whatever the measure clears, the parser then refuses."""
    import json
    import random

    def verdict(check: Any, text: str) -> tuple[int, str] | None:
        try:
            check(text)
        except json.JSONDecodeError as error:
            return error.pos, error.msg
        return None

    rng = random.Random(17)
    strings = ['"["', '"]"', '"{}"', '"\\"["', '"\\\\"', '"\\\\\\"]"', '"é[\\u00e9"', '""', '"a,b"']
    for _ in range(3000):
        depth = rng.choice([120, 199, 200, 201, 250])
        inner = ", ".join(rng.choice(strings) for _ in range(rng.randint(0, 6)))
        opener, closer = rng.choice([("[", "]"), ('{"k": ', "}")])
        text = opener * depth + "[" + inner + "]" + closer * depth
        json.loads(text)  # valid JSON (Python's parser reads 251 levels)
        assert verdict(inputs.check_json_nesting, text) == verdict(inputs._check_json_depth, text)
    pieces = ["[", "]", "{", "}", '"', '"[', ']"', "\\\\", '\\"', "a", ",", "é"]
    for _ in range(3000):
        text = "[" * rng.choice([150, 201]) + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        text += "]" * rng.choice([0, 150, 201])
        if verdict(inputs.check_json_nesting, text) != verdict(inputs._check_json_depth, text):
            with pytest.raises(ValueError):
                json.loads(text)
