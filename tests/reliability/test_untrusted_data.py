"""Issue 12, items 4, 5, 7, 8 (hiera parts) and 11 (the ENC): data, facts and classifier
answers are untrusted. None of them may hang, exhaust memory, crash (exit 3) or make
cfmodel read a file outside the project."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.reliability.helpers import run_cli

SITE = "site {\n  bindings => [\n    layer { 'hiera': include => 'hiera:' },\n  ]\n}\n"
HIERA = """version: 5
hierarchy:
  - name: nodes
    path: "nodes/%{facts.fqdn}.yaml"
  - name: common
    path: common.yaml
"""
# 9 x 9 x ... : a few hundred bytes that expand to 9**10 values
BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)
)
LATIN1 = "# caf\xe9\nk: 1\n".encode("latin-1")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "data" / "nodes").mkdir(parents=True)
    (root / "project.yml").write_text("name: p\n", encoding="utf-8")
    (root / "main.cf").write_text("", encoding="utf-8")
    (root / "site.bind").write_text(SITE, encoding="utf-8")
    (root / "hiera.yaml").write_text(HIERA, encoding="utf-8")
    (root / "data" / "common.yaml").write_text("k: 1\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("secret: leaked\n", encoding="utf-8")
    return root


def show(project: Path, *args: str) -> tuple[int, str]:
    result = run_cli("bindings", "show", ".", *args, cwd=project, timeout=60)
    assert "leaked" not in result.stdout + result.stderr
    return result.returncode, result.stderr


def assert_located(stderr: str, file: str, code: str) -> None:
    line = stderr.strip().splitlines()[0]
    assert line.split(":")[0].endswith(file), stderr
    assert line.endswith(f"[{code}]"), stderr


# --- item 5: facts and configuration cannot leave the project --------------------------------


def test_a_fact_cannot_change_the_directory_of_a_hierarchy_path(project: Path) -> None:
    code, stderr = show(project, "--fact", "fqdn=../../../outside/secret")
    assert code == 1
    assert "cannot be used in a hierarchy path" in stderr
    assert_located(stderr, "hiera.yaml", "hiera-interpolation")


def test_a_300_character_fact_is_no_crash(project: Path) -> None:
    code, _ = show(project, "--fact", "fqdn=" + "a" * 300)
    assert code == 0


@pytest.mark.parametrize(
    "level",
    [
        '{name: x, datadir: "/", path: "etc/passwd"}',
        '{name: x, datadir: "../..", path: "outside/secret.yaml"}',
        '{name: x, datadir: "..", path: "outside/secret.yaml"}',
        '{name: x, path: "/etc/passwd"}',
        '{name: x, path: "../../outside/secret.yaml"}',
        '{name: x, glob: "../../outside/*.yaml"}',
        '{name: x, datadir: "/tmp", glob: "*.yaml"}',
    ],
)
def test_datadir_path_and_glob_stay_inside_the_project(project: Path, level: str) -> None:
    (project / "hiera.yaml").write_text(f"version: 5\nhierarchy:\n  - {level}\n", encoding="utf-8")
    code, stderr = show(project)
    assert code == 1
    assert_located(stderr, "hiera.yaml", "hiera-config")


def test_a_symlinked_datadir_leading_outside_is_refused(project: Path) -> None:
    (project / "linked").symlink_to(project.parent / "outside")
    (project / "hiera.yaml").write_text(
        "version: 5\nhierarchy:\n  - {name: x, datadir: linked, path: secret.yaml}\n", encoding="utf-8"
    )
    code, stderr = show(project)
    assert code == 1
    assert "outside the project" in stderr


def test_a_symlinked_data_file_leading_outside_is_refused(project: Path) -> None:
    (project / "data" / "common.yaml").unlink()
    (project / "data" / "common.yaml").symlink_to(project.parent / "outside" / "secret.yaml")
    code, stderr = show(project)
    assert code == 1
    assert "outside the project" in stderr


# --- item 4: YAML bombs and hiera interpolation ------------------------------------------------


def test_an_alias_bomb_in_hiera_data_is_refused_quickly(project: Path) -> None:
    (project / "data" / "common.yaml").write_text(BOMB, encoding="utf-8")
    code, stderr = show(project)
    assert code == 1
    assert "aliases expand the document" in stderr
    assert_located(stderr, "common.yaml", "hiera-data")


def test_an_alias_bomb_in_hiera_yaml_defaults_is_refused(project: Path) -> None:
    (project / "hiera.yaml").write_text(HIERA + "defaults:\n  x:\n" + _indent(BOMB, 4), encoding="utf-8")
    code, stderr = show(project)
    assert code == 1
    assert "aliases expand the document" in stderr


def test_an_alias_bomb_in_a_facts_file_is_refused(project: Path) -> None:
    (project / "facts.yaml").write_text(BOMB, encoding="utf-8")
    result = run_cli("bindings", "show", ".", "--facts", "facts.yaml", cwd=project)
    assert result.returncode in (1, 2)
    assert "aliases expand the document" in result.stderr


@pytest.mark.parametrize("where", ["name", "bindings.nesting"])
def test_an_alias_bomb_in_project_yml_is_refused(project: Path, where: str) -> None:
    body = _indent(BOMB, 2)
    text = f"name:\n{body}" if where == "name" else f"name: p\nbindings:\n  nesting:\n{_indent(BOMB, 4)}"
    (project / "project.yml").write_text(text, encoding="utf-8")
    code, stderr = show(project)
    assert code == 1
    assert "aliases expand the document" in stderr


def test_an_alias_bomb_in_an_enc_answer_is_refused(project: Path) -> None:
    enc = project / "enc.yaml"
    enc.write_text("classes:\n" + _indent(BOMB, 2) + "parameters:\n  x: 1\n", encoding="utf-8")
    (project / "project.yml").write_text("name: p\nbindings:\n  enc: enc.yaml\n", encoding="utf-8")
    (project / "site.bind").write_text(SITE.replace("'hiera:'", "'enc:'"), encoding="utf-8")
    code, stderr = show(project, "--fact", "fqdn=n1")
    assert code == 1
    assert "aliases expand the document" in stderr


def test_a_doubling_lookup_chain_is_memoized_and_bounded(project: Path) -> None:
    # 26 keys, each looking the next up twice: minutes before memoization
    lines = [f"k{i}: \"%{{lookup('k{i + 1}')}}%{{lookup('k{i + 1}')}}\"" for i in range(25)] + ["k25: x"]
    (project / "data" / "common.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, stderr = show(project)
    assert code == 1
    assert "longer than 1,048,576 characters" in stderr
    assert_located(stderr, "common.yaml", "hiera-interpolation")


def test_a_doubling_chain_that_stays_small_is_looked_up(project: Path) -> None:
    lines = [f"k{i}: \"%{{lookup('k{i + 1}')}}%{{lookup('k{i + 1}')}}\"" for i in range(12)] + ["k12: x"]
    (project / "data" / "common.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_cli("bindings", "inject", "k0", ".", cwd=project)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "x" * 4096


# --- item 8 (hiera): malformed configuration ---------------------------------------------------


def test_an_invalid_lookup_options_regex_is_a_located_error(project: Path) -> None:
    (project / "data" / "common.yaml").write_text(
        "lookup_options:\n  '^(':\n    merge: deep\nk: 1\n", encoding="utf-8"
    )
    code, stderr = show(project)
    assert code == 1
    assert "not a valid regular expression" in stderr
    assert_located(stderr, "common.yaml", "hiera-merge")


def test_a_list_as_a_key_in_hiera_yaml_is_a_located_error(project: Path) -> None:
    (project / "hiera.yaml").write_text(HIERA + "? [a, b]\n: c\n", encoding="utf-8")
    code, stderr = show(project)
    assert code == 1
    assert_located(stderr, "hiera.yaml", "hiera-config")


# --- item 7: not UTF-8 -------------------------------------------------------------------------


@pytest.mark.parametrize("file", ["data/common.yaml", "hiera.yaml", "site.bind", "facts.yaml", "enc.yaml"])
def test_latin1_files_give_a_located_not_utf8_error(project: Path, file: str) -> None:
    args: list[str] = []
    if file == "site.bind":
        (project / file).write_bytes(SITE.encode() + b"# caf\xe9\n")
    elif file == "hiera.yaml":
        (project / file).write_bytes(HIERA.encode() + b"# caf\xe9\n")
    else:
        (project / file).write_bytes(LATIN1)
    if file == "facts.yaml":
        args = ["--facts", "facts.yaml"]
    if file == "enc.yaml":
        (project / "project.yml").write_text("name: p\nbindings:\n  enc: enc.yaml\n", encoding="utf-8")
        (project / "site.bind").write_text(SITE.replace("'hiera:'", "'enc:'"), encoding="utf-8")
        args = ["--fact", "fqdn=n1"]
    code, stderr = show(project, *args)
    assert code == 1
    assert "not valid UTF-8" in stderr
    assert stderr.split(":")[0].endswith(Path(file).name), stderr
    assert stderr.strip().endswith("[not-utf8]"), stderr


def test_a_latin1_enc_command_answer_gives_a_located_error(project: Path) -> None:
    script = project / "bin" / "enc"
    script.parent.mkdir()
    script.write_bytes(b"#!/bin/sh\nprintf 'classes: [caf\\351]\\n'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (project / "project.yml").write_text("name: p\nbindings:\n  enc: {command: bin/enc}\n", encoding="utf-8")
    (project / "site.bind").write_text(SITE.replace("'hiera:'", "'enc:'"), encoding="utf-8")
    code, stderr = show(project, "--fact", "fqdn=n1")
    assert code == 1
    assert "not valid UTF-8" in stderr


# --- item 11: the ENC command -----------------------------------------------------------------


def test_the_enc_command_is_resolved_against_the_project_not_the_current_directory(
    project: Path, tmp_path: Path
) -> None:
    script = project / "bin" / "enc"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho 'parameters: {who: \"'$1'\"}'\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (project / "project.yml").write_text("name: p\nbindings:\n  enc: {command: bin/enc}\n", encoding="utf-8")
    (project / "site.bind").write_text(SITE.replace("'hiera:'", "'enc:'"), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_cli("bindings", "show", str(project), "--fact", "fqdn=n1", cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    assert "who" in result.stdout
    assert "n1" in result.stdout.split("who", 1)[1]


def test_a_fact_that_looks_like_an_option_never_reaches_the_enc(project: Path) -> None:
    marker = project / "ran"
    script = project / "bin" / "enc"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\ntouch {marker}\necho 'classes: []'\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (project / "project.yml").write_text("name: p\nbindings:\n  enc: {command: bin/enc}\n", encoding="utf-8")
    (project / "site.bind").write_text(SITE.replace("'hiera:'", "'enc:'"), encoding="utf-8")
    code, stderr = show(project, "--fact", "fqdn=--help")
    assert code == 1
    assert "cannot be given to the classifier" in stderr
    assert not marker.exists()


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


def test_dates_binary_and_sets_in_hiera_data_are_plain_values(project: Path) -> None:
    # found by the fuzzing harness (project input 749955): exit 3, "not plain data: date"
    (project / "data" / "common.yaml").write_text(
        "k: 2001-02-03\nb: !!binary aGVsbG8=\ns: !!set {a}\n", encoding="utf-8"
    )
    for key, expected in (("k", "2001-02-03"), ("b", "hello"), ("s", '{"a":null}')):
        result = run_cli("bindings", "inject", key, ".", cwd=project)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == expected
    (project / "data" / "common.yaml").write_text("k: !!binary //79\n", encoding="utf-8")
    code, stderr = show(project)
    assert code == 1
    assert "a !!binary value that is not UTF-8 text" in stderr
    assert_located(stderr, "common.yaml", "hiera-data")
