"""Issue 12, item 4 and "bounded resources everywhere": deeply nested flow collections
(``[[[[…``, ``{a: {a: …``) in every YAML (and JSON) document a user or a machine feeds
cfmodel — Hiera data (YAML and the ``json_data`` backend), ``hiera.yaml``, ``--facts``
files (YAML and JSON), ENC answers (a file and a command's output), ``project.yml`` and
an mcl program's ``metadata.yaml`` —
are refused with a located error (``file:line:col: error: … [code]``, exit 1) at the
bracket that goes too deep, within 10 s of CPU time and 1 GiB of address space.

The payloads: 100,000 unclosed brackets (PyYAML's scanner is quadratic in the depth, its
composer recursive); brackets hidden from the quick bracket count by quoted ``"]"``
strings; and, for JSON, a balanced 900-deep document that Python's ``json`` reads but
that would crash whatever walks it later (it did: exit 3 from ``RecursionError``).
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from cfmodel.inputs import MAX_YAML_DEPTH
from tests.reliability.helpers import run_cli

SITE = "site {\n  bindings => [\n    layer { 'data': include => '%s' },\n  ]\n}\n"
HIERA = "version: 5\nhierarchy:\n  - {name: common, path: common.yaml}\n"
HIERA_JSON = "version: 5\nhierarchy:\n  - {name: common, path: common.json, data_hash: json_data}\n"
CPU_SECONDS = 10
MEMORY_BYTES = 1 << 30

PAYLOADS = {
    "lists": "[" * 100_000,
    "mappings": "{a: " * 100_000,
    "quoted-brackets": '[ "]", ' * 2_000 + "]" * 2_000,
}
JSON_PAYLOADS = {
    "lists": "[" * 100_000,
    "objects": '{"a": ' * 100_000,
    "balanced-900": "[" * 900 + "]" * 900,
}


def _project(root: Path, include: str = "hiera:") -> Path:
    (root / "data").mkdir(parents=True)
    (root / "project.yml").write_text("name: p\n", encoding="utf-8")
    (root / "main.cf").write_text("", encoding="utf-8")
    (root / "site.bind").write_text(SITE % include, encoding="utf-8")
    (root / "hiera.yaml").write_text(HIERA, encoding="utf-8")
    (root / "data" / "common.yaml").write_text("k: 1\n", encoding="utf-8")
    return root


def _enc_project(root: Path) -> Path:
    _project(root, "enc:")
    (root / "project.yml").write_text("name: p\nbindings:\n  enc: enc.yaml\n", encoding="utf-8")
    return root


def _enc_command_project(root: Path) -> Path:
    _project(root, "enc:")
    script = root / "bin" / "enc"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\ncat '{root / 'answer.yaml'}'\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (root / "project.yml").write_text("name: p\nbindings:\n  enc: {command: bin/enc}\n", encoding="utf-8")
    return root


def _folder(root: Path) -> Path:
    root.mkdir(parents=True)
    return root


def _mcl_program(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "main.mcl").write_text("$x = 1\n", encoding="utf-8")
    return root


# entry point -> (make the project, the file the payload goes into, its text around the
# payload, the command, the file the error names, its code)
YAML_ENTRY_POINTS = {
    "hiera-data": (_project, "data/common.yaml", "k: %s\n", ("bindings", "show", "."), "common.yaml", "hiera-data"),
    "hiera.yaml": (_project, "hiera.yaml", HIERA + "defaults:\n  x: %s\n", ("bindings", "show", "."),
                   "hiera.yaml", "hiera-config"),
    "facts-yaml": (_project, "facts.yaml", "k: %s\n", ("bindings", "show", ".", "--facts", "facts.yaml"),
                   "facts.yaml", "bad-facts"),
    "enc-answer-file": (_enc_project, "enc.yaml", "classes: []\nparameters:\n  x: %s\n",
                        ("bindings", "show", ".", "--fact", "fqdn=n1"), "enc.yaml", "enc-failed"),
    "enc-command-output": (_enc_command_project, "answer.yaml", "classes: []\nparameters:\n  x: %s\n",
                           ("bindings", "show", ".", "--fact", "fqdn=n1"), "<enc: bin/enc n1>", "enc-failed"),
    "project.yml-bindings": (_project, "project.yml", "name: p\nbindings:\n  nesting: %s\n",
                             ("bindings", "show", "."), "project.yml", "bad-project"),
    "project.yml-check": (_project, "project.yml", "name: p\nmodulepath: %s\n", ("check", "."),
                          "project.yml", "bad-project"),
    # found while checking this list: mcl's metadata.yaml was read by plain PyYAML (exit 3)
    "mcl-metadata.yaml": (_mcl_program, "metadata.yaml", "main: %s\n", ("mcl", "check", "."),
                          "metadata.yaml", "mcl-parse"),
    # and the resource graph's YAML format (``cfmodel graph``/``diff`` read it): exit 3
    "graph-yamlgraph": (_folder, "g.yaml", "resources:\n  - kind: file\n    name: %s\n", ("graph", "g.yaml"),
                        "g.yaml", "bad-yamlgraph"),
}  # fmt: skip
JSON_ENTRY_POINTS = {
    "hiera-data-json": ("data/common.json", '{"k": %s}\n', ("bindings", "show", "."), "common.json", "hiera-data"),
    "facts-json": ("facts.json", '{"k": %s}\n', ("bindings", "show", ".", "--facts", "facts.json"), "facts.json",
                   "bad-facts"),
    # an Inmanta export document (``cfmodel graph``/``diff`` read it): 5,000 levels were exit 3
    "graph-export-json": ("export.json", '[{"id": "std::File[h,path=/a],v=1", "x": %s}]\n', ("graph", "export.json"),
                          "export.json", "bad-export"),
    # JSON models (emfjson-jackson's format; ``graph`` and ``diff`` read them): one root, several
    "model-json": ("m.json", '{"eClass": "http://x#//A", "k": %s}\n', ("graph", "m.json"), "m.json", "too-deep"),
    "graph-model-json": ("g.json", '[{"eClass": "http://x#//A", "k": %s}]\n', ("graph", "g.json"), "g.json",
                         "too-deep"),
}  # fmt: skip


def _assert_refused_at_the_deep_bracket(stderr: str, file: str, code: str, text: str) -> None:
    first = stderr.strip().splitlines()[0]
    location, _, rest = first.partition(": error: ")
    assert rest, stderr
    name, line, col = location.rsplit(":", 2)
    assert name.endswith(file), first
    assert f"nests deeper than {MAX_YAML_DEPTH} levels" in rest, first
    assert rest.endswith(f"[{code}]"), first
    # the position is inside the payload's line, not the start of the file
    assert 1 <= int(line) <= text.count("\n") + 1, first
    assert int(col) > MAX_YAML_DEPTH, first


@pytest.mark.parametrize("payload", list(PAYLOADS))
@pytest.mark.parametrize("entry", list(YAML_ENTRY_POINTS))
def test_deep_flow_nesting_in_yaml_is_a_located_error(tmp_path: Path, entry: str, payload: str) -> None:
    make, file, around, command, named, code = YAML_ENTRY_POINTS[entry]
    root = make(tmp_path / "p")
    text = around % PAYLOADS[payload]
    (root / file).write_text(text, encoding="utf-8")
    result = run_cli(*command, cwd=root, cpu_seconds=CPU_SECONDS, memory_bytes=MEMORY_BYTES)
    assert result.returncode == 1, result.stderr
    _assert_refused_at_the_deep_bracket(result.stderr, named, code, text)


@pytest.mark.parametrize("payload", list(JSON_PAYLOADS))
@pytest.mark.parametrize("entry", list(JSON_ENTRY_POINTS))
def test_deep_nesting_in_json_is_a_located_error(tmp_path: Path, entry: str, payload: str) -> None:
    file, around, command, named, code = JSON_ENTRY_POINTS[entry]
    root = _project(tmp_path / "p")
    (root / "hiera.yaml").write_text(HIERA_JSON, encoding="utf-8")
    (root / "data" / "common.json").write_text('{"k": 1}\n', encoding="utf-8")
    text = around % JSON_PAYLOADS[payload]
    (root / file).write_text(text, encoding="utf-8")
    result = run_cli(*command, cwd=root, cpu_seconds=CPU_SECONDS, memory_bytes=MEMORY_BYTES)
    assert result.returncode == 1, result.stderr
    _assert_refused_at_the_deep_bracket(result.stderr, named, code, text)


@pytest.mark.parametrize("backend", ["yaml", "json"])
def test_nesting_just_within_the_limit_is_looked_up(tmp_path: Path, backend: str) -> None:
    root = _project(tmp_path / "p")
    depth = MAX_YAML_DEPTH - 2  # the top mapping and the innermost value are levels too
    value = "[" * depth + "1" + "]" * depth
    if backend == "json":
        (root / "hiera.yaml").write_text(HIERA_JSON, encoding="utf-8")
        (root / "data" / "common.json").write_text('{"k": ' + value + "}\n", encoding="utf-8")
    else:
        (root / "data" / "common.yaml").write_text(f"k: {value}\n", encoding="utf-8")
    result = run_cli(
        "bindings", "inject", "k", ".", cwd=root, cpu_seconds=CPU_SECONDS, memory_bytes=MEMORY_BYTES
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.replace(" ", "").replace("\n", "") == value
