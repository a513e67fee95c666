"""Issue 12, item 8: numbers and names past any sensible size are located errors, never a
crash (exit 3), a hang or a `MemoryError`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.helpers import run_cli

ENTITY = "entity A:\n    int n\nend\nimplement A using std::none\n"


def _project(root: Path, source: str) -> Path:
    (root / "project.yml").write_text("name: p\n", encoding="utf-8")
    (root / "main.cf").write_text(source, encoding="utf-8")
    return root


def _first_line(stderr: str) -> str:
    return stderr.strip().splitlines()[0]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = " + "9" * 4301 + "\n", "main.cf:1:5: error: an integer of more than 4,300 digits  [syntax]"),
        (
            "entity A:\nend\nA.x [0:" + "9" * 4400 + "] -- A.y [0:1]\n",
            "main.cf:3:5: error: a multiplicity bound of more than 18 digits  [syntax]",
        ),
    ],
    ids=["literal", "multiplicity"],
)
def test_huge_integer_literals_are_located_errors(tmp_path: Path, source: str, expected: str) -> None:
    result = run_cli("check", ".", cwd=_project(tmp_path, source))
    assert result.returncode == 1
    assert _first_line(result.stderr) == expected


def test_a_300_character_import_is_module_not_found(tmp_path: Path) -> None:
    result = run_cli("check", ".", cwd=_project(tmp_path, "import " + "a" * 300 + "\n"))
    assert result.returncode == 1
    line = _first_line(result.stderr)
    assert line.startswith("main.cf:1:8: error: could not find module 'aaaa"), line


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("10 ** 5000", "main.cf:5:5: error: 10 ** 5000 is too large  [arithmetic]"),
        ("2 ** 4294967296 ** 2", "main.cf:5:5: error: 2 ** 4294967296 is too large  [arithmetic]"),
    ],
)
def test_huge_arithmetic_is_refused_where_it_is_computed(
    tmp_path: Path, expression: str, expected: str
) -> None:
    project = _project(tmp_path, ENTITY + f"A(n={expression})\n")
    result = run_cli("xmi", "export", ".", "-o", "out", cwd=project, timeout=60)
    assert result.returncode == 1
    assert _first_line(result.stderr) == expected
    assert not (project / "out").exists()


def test_growing_products_are_refused_with_a_short_message(tmp_path: Path) -> None:
    project = _project(tmp_path, ENTITY + "x = 10 ** 2000\nA(n=x * x * x)\n")
    result = run_cli("compile", ".", cwd=project)
    assert result.returncode == 1
    line = _first_line(result.stderr)
    assert line.endswith("(4,001 digits) * 100000000000... (2,001 digits) is too large  [arithmetic]"), line
    assert len(line) < 200


def test_a_huge_integer_in_a_bind_file_is_a_located_error(tmp_path: Path) -> None:
    project = _project(tmp_path, "")
    (project / "bindings").mkdir()
    (project / "bindings" / "default.bind").write_text(
        "bindings default {\n  bind 'n' to " + "9" * 4400 + "\n}\n", encoding="utf-8"
    )
    result = run_cli("bindings", "show", ".", cwd=project)
    assert result.returncode == 1
    assert _first_line(result.stderr).endswith("error: an integer of more than 4,300 digits  [syntax]")
    assert "default.bind:2:" in result.stderr


# found by the fuzzing harness (cf inputs 479021 and 480595 of the million-input run): a
# repetition count past what Python's `re` takes raised ValueError (over 4,300 digits) or
# OverflowError instead of a located error
HUGE_REPEATS = ["a{" + "9" * 4302 + "}", "a{99999999999}", "a{1," + "9" * 30 + "}"]


@pytest.mark.parametrize("pattern", HUGE_REPEATS, ids=["4302-digits", "overflow", "upper-bound"])
def test_a_huge_repetition_in_a_typedef_regex_is_a_located_error(pattern: str) -> None:
    from cfmodel.errors import CfSyntaxError
    from cfmodel.grammars import cf

    with pytest.raises(CfSyntaxError) as info:
        cf.parse_str(f"typedef t as string matching /{pattern}/\n", "main.cf")
    rendered = info.value.render()
    assert rendered.startswith("main.cf:1:30: error: invalid regex /a{"), rendered
    assert rendered.endswith("[regex]") and len(rendered) < 400, rendered


@pytest.mark.parametrize("pattern", HUGE_REPEATS, ids=["4302-digits", "overflow", "upper-bound"])
def test_a_huge_repetition_in_a_cfenv_regex_is_a_located_error(pattern: str) -> None:
    from cfmodel.errors import CfSyntaxError
    from cfmodel.grammars import environments

    text = f"case $::fqdn {{\n  /{pattern}/: {{ $environment = 'production' }}\n}}\n"
    with pytest.raises(CfSyntaxError) as info:
        environments.parse_str(text, "environments.cfenv")
    rendered = info.value.render()
    assert rendered.startswith("environments.cfenv:2:3: error: invalid regular expression /a{"), rendered
    assert rendered.endswith("[bad-regex]") and len(rendered) < 400, rendered


@pytest.mark.parametrize("pattern", HUGE_REPEATS, ids=["4302-digits", "overflow", "upper-bound"])
def test_a_huge_repetition_in_a_lookup_options_key_is_a_located_error(tmp_path: Path, pattern: str) -> None:
    project = _project(tmp_path, "")
    (project / "site.bind").write_text(
        "site {\n  bindings => [ layer { 'h': include => 'hiera:' } ]\n}\n", encoding="utf-8"
    )
    (project / "hiera.yaml").write_text(
        "version: 5\nhierarchy:\n  - {name: c, path: c.yaml}\n", encoding="utf-8"
    )
    (project / "data").mkdir()
    # an explicit key (``? ``): YAML allows no implicit key of more than 1,024 characters
    (project / "data" / "c.yaml").write_text(
        f"lookup_options:\n  ? '^{pattern}'\n  : {{merge: deep}}\nk: 1\n", encoding="utf-8"
    )
    result = run_cli("bindings", "show", ".", cwd=project)
    assert result.returncode == 1, result.stderr
    line = _first_line(result.stderr)
    assert "is not a valid regular expression" in line and line.endswith("[hiera-merge]"), line
