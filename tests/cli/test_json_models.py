"""``cfmodel json check|dump`` as users run them: a good model of two documents and a proxy
read and described; every kind of bad JSON input (syntax, a value of the wrong type, an
unknown class or feature, a dangling ``$ref``, too deep, too big, not UTF-8, a reference
out of the root, cfmodel's older format) a located error ``file:line:col: error: …  [code]``
at the value concerned, exit 1, nothing on stdout, never a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cfmodel.serializers import ecore, json
from tests.conftest import run_cfmodel
from tests.serializers.samples import infra_ids, infra_model, infra_package

INFRA = "http://cfmodel.example/infra"


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cfmodel(*args, cwd=cwd, cache=cwd / ".test-cache")


def _model(folder: Path) -> str:
    """infra.ecore and m.json (hosts named by ids, files by fragments) in `folder`; the JSON's text."""
    folder.mkdir(parents=True, exist_ok=True)
    pkg = infra_package()
    (folder / "infra.ecore").write_bytes(ecore.to_bytes(pkg))
    text = json.to_bytes(infra_model(pkg), json.JsonOptions(id_of=infra_ids, indent=1)).decode()
    (folder / "m.json").write_text(text, encoding="utf-8")
    return text


def _at(text: str, marker: str) -> str:
    """``line:col`` of the first `marker` in `text`."""
    at = text.index(marker)
    return f"{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def _refused(folder: Path, data: bytes, *args: str) -> str:
    """Check `data` as bad.json beside the metamodel: exit 1, nothing on stdout; stderr."""
    (folder / "bad.json").write_bytes(data)
    result = run(folder, "json", "check", "bad.json", *args)
    assert (result.returncode, result.stdout) == (1, ""), result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def test_check_and_dump_a_model_of_two_documents(tmp_path: Path) -> None:
    text = _model(tmp_path)
    (tmp_path / "other.json").write_text(text.replace("_3a_", "_3a_o"), encoding="utf-8")  # other ids
    linked = _replace_last(text, '"$ref": "Host_3a_web0"', '"$ref": "other.json#Host_3a_oweb0"')
    linked = _replace_last(linked, '"$ref": "Host_3a_web2"', '"$ref": "gone.json#x9"')  # the cluster's
    (tmp_path / "m.json").write_text(linked, encoding="utf-8")
    result = run(tmp_path, "json", "check", "m.json")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "m.json: 4 root(s), 10 object(s), 1 reference(s) to other documents, 1 proxy(ies)\n"
        f"{tmp_path}/other.json: 4 root(s), 10 object(s), 0 reference(s) to other documents, 0 proxy(ies)\n"
    )
    line = _at(linked, '"gone.json#x9"').split(":")[0]
    assert result.stderr == (
        f"m.json:{line}:1: warning: Cluster.hosts: file:{tmp_path}/gone.json#x9 is not read (a proxy)"
        "  [unresolved-proxy]\n"
    )
    dump = run(tmp_path, "json", "dump", "m.json")
    assert dump.returncode == 0, dump.stderr
    assert dump.stdout.startswith("# m.json\nHost_3a_web0 : http://cfmodel.example/infra#//Host\n")
    assert (
        f"  hosts = [extern:file:{tmp_path}/other.json#Host_3a_oweb0, @Host_3a_web1,"
        f" proxy:file:{tmp_path}/gone.json#x9]\n"
    ) in dump.stdout
    every = run(tmp_path, "json", "dump", "m.json", "--all")
    assert every.stdout.startswith(dump.stdout) and f"# {tmp_path}/other.json\n" in every.stdout


def _replace_last(text: str, old: str, new: str) -> str:
    at = text.rindex(old)
    return text[:at] + new + text[at + len(old) :]


_CASES: dict[str, tuple[str, str, str, str, str]] = {
    # case: (text replaced (its first occurrence), by what, where the error points, message, code)
    "syntax error": ('"name": "web0"', '"name": "web0" "x"', '"x"', "not valid JSON: Expecting ',' delimiter", "json-syntax"),
    "wrong type of value": ('"cpus": 0', '"cpus": "two"', '"two"', "Host.cpus: bad EInt value 'two'", "bad-value"),
    "value out of range": ('"cpus": 0', '"cpus": 4294967296', "4294967296", "Host.cpus: 4294967296 is not a valid EInt", "bad-value"),
    "number out of range": ('"cpus": 0', '"cpus": 1e99999999999999999999999999', "1e9999",
                            "not valid JSON: the number 1e99999999999999999999999999 is out of range", "json-syntax"),
    "date out of range": ('"created": "2024-01-02T03:04:05.678+0000"', '"created": 1000000000000000000000', "1000000000000000000000",
                          "Host.created: 1000000000000000000000 is not a valid EDate", "bad-value"),
    "array for a single value": ('"name": "web0"', '"name": ["web0"]', '["web0"]',
                                 'Entity.name: ["web0"] is not a valid EString', "bad-value"),
    "object for an array": ('"tags": [', '"tags": {"a": 1}, "x": [', '{"a": 1}', "Host.tags is many-valued: expected an array", "bad-json"),
    "unknown eClass": (f'"eClass": "{INFRA}#//Host"', f'"eClass": "{INFRA}#//Disk"', f'"{INFRA}#//Disk"',
                       f"unknown class '{INFRA}#//Disk': package infra has no class 'Disk'", "bad-json"),
    "unknown feature": ('"name": "web0"', '"name": "web0", "colour": "red"', '"colour"', "class Host has no feature 'colour'", "bad-json"),
    "dangling $ref": ('"$ref": "/0/@files.0"', '"$ref": "/0/@nothing.7"', '"/0/@nothing.7"',
                      "unresolved reference '/0/@nothing.7'", "bad-json"),
    "reference out of the root": ('"$ref": "/0/@files.0"', '"$ref": "../../etc/x.json#a"', '"../../etc',
                                  "reference to '../../etc/x.json' leaves the directories", "outside-root"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(_CASES))
def test_bad_input_is_a_located_error(case: str, tmp_path: Path) -> None:
    old, new, marker, message, code = _CASES[case]
    text = _model(tmp_path)
    assert old in text
    text = text.replace(old, new, 1)
    said = _refused(tmp_path, text.encode())
    assert said.startswith(f"bad.json:{_at(text, marker)}: error: {message}"), said
    assert said.endswith(f"  [{code}]\n"), said


def test_too_deep_too_big_and_not_utf8_are_located_errors(tmp_path: Path) -> None:
    _model(tmp_path)
    deep = b'{"eClass": "' + INFRA.encode() + b'#//Host", "tags": ' + b"[" * 300 + b"]" * 300 + b"}"
    said = _refused(tmp_path, deep)
    column = deep.index(b"[") + 200  # the bracket that goes too deep: level 201, with the object
    assert said.startswith(f"bad.json:1:{column}: error: "), said
    assert said.endswith("  [too-deep]\n"), said
    big = b"[" + b",".join([b"{}"] * 900_000) + b"]"  # 2.7 MB of objects: over 1 GiB to read
    said = _refused(tmp_path, big)
    assert said.startswith("bad.json:1:1: error: reading the document could take "), said
    assert said.endswith("over the limit of 1,024 MiB  [too-large]\n"), said
    said = _refused(tmp_path, b'{"eClass": "' + INFRA.encode() + b'#//Host",\n "name": "web\xff"}')
    assert said == "bad.json:2:14: error: not UTF-8 (byte 0xff cannot be decoded)  [json-syntax]\n"


def test_the_older_format_is_read_and_its_errors_are_located(tmp_path: Path) -> None:
    _model(tmp_path)
    pkg = infra_package()
    options = json.JsonOptions(id_of=infra_ids, indent=1, dialect="cfmodel-instances")
    text = json.to_bytes(infra_model(pkg), options).decode()
    (tmp_path / "old.json").write_text(text, encoding="utf-8")
    good = run(tmp_path, "json", "check", "old.json")
    assert good.returncode == 0, good.stderr
    assert (
        good.stdout == "old.json: 4 root(s), 10 object(s), 0 reference(s) to other documents, 0 proxy(ies)\n"
    )
    for old, new, marker, message, code in (
        ('"name": "web0"', '"name": "web0", "colour": 1', '"colour"', "class Host has no feature 'colour'", "bad-json"),
        ('"cpus": 0', '"cpus": "two"', '"two"', "Host.cpus: bad EInt value 'two'", "bad-value"),
        ('"primary": "/0/@files.0"', '"primary": "//@nothing.7"', '"//@nothing.7"', "unresolved reference", "bad-json"),
        ('"$class": "infra:File"', '"$class": "infra:Host"', '{\n     "$class": "infra:Host"', "class Host is not a File", "bad-json"),
        ('"$class": "infra:File"', '"$class": "infra:Disk"', '"infra:Disk"', "unknown or abstract class 'infra:Disk'", "bad-json"),
        ('"version": 1', '"version": 2', "2", "not a cfmodel-instances version 1 document", "bad-json"),
    ):  # fmt: skip
        assert old in text
        bad = text.replace(old, new, 1)
        said = _refused(tmp_path, bad.encode())
        assert said.startswith(f"bad.json:{_at(bad, marker)}: error: {message}"), said
        assert said.endswith(f"  [{code}]\n"), said
