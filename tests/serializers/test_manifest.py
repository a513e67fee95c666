"""An export owns the files it wrote (issue 20, housekeeping): its manifest records them, so
a file it wrote before and no longer writes is removed, in the same switch as the new set;
files it never wrote, and files another export still claims, are kept."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cfmodel.serializers import atomic
from tests.conftest import run_cfmodel

REPO = Path(__file__).resolve().parents[2]
MANIFEST = ".cfmodel-manifest.json"


def _names(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


def test_files_an_owner_no_longer_writes_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    atomic.write_files(out, {"a.ecore": b"a", "b.ecore": b"b", "m.xmi": b"m"}, owner="xmi export")
    atomic.write_files(out, {"a.ecore": b"a2", "m.xmi": b"m2"}, owner="xmi export")
    assert _names(out) == [MANIFEST, "a.ecore", "m.xmi", "notes.txt"]
    assert (out / "a.ecore").read_bytes() == b"a2" and (out / "notes.txt").read_text() == "mine"
    assert (out / MANIFEST).read_text() == (
        '{\n "format": "cfmodel-manifest/1",\n "owners": {\n  "xmi export": [\n   "a.ecore",\n   "m.xmi"\n  ]\n }\n}\n'
    )


def test_a_file_another_owner_claims_is_kept(tmp_path: Path) -> None:
    atomic.write_files(tmp_path, {"web.ecore": b"1", "shop.xmi": b"x"}, owner="xmi export")
    atomic.write_files(tmp_path, {"web.ecore": b"2", "std.ecore": b"s"}, owner="ecore export")
    atomic.write_files(tmp_path, {"shop.xmi": b"y"}, owner="xmi export")
    # web.ecore: the xmi export no longer writes it, but the ecore export still does
    assert _names(tmp_path) == [MANIFEST, "shop.xmi", "std.ecore", "web.ecore"]
    owners = json.loads((tmp_path / MANIFEST).read_text())["owners"]
    assert owners == {"ecore export": ["std.ecore", "web.ecore"], "xmi export": ["shop.xmi"]}
    atomic.write_files(tmp_path, {"std.ecore": b"s"}, owner="ecore export")
    assert _names(tmp_path) == [MANIFEST, "shop.xmi", "std.ecore"]


def test_without_an_owner_nothing_is_removed_and_no_manifest_is_written(tmp_path: Path) -> None:
    atomic.write_files(tmp_path, {"a": b"1", "b": b"2"})
    atomic.write_files(tmp_path, {"a": b"3"})
    assert _names(tmp_path) == ["a", "b"]


@pytest.mark.parametrize(
    "manifest",
    [
        "not json",
        '{"format": "other", "owners": {"x": ["keep.txt"]}}',
        '{"format": "cfmodel-manifest/1", "owners": {"x": ["../outside.txt", "/etc/passwd", "keep.txt"]}}',
        '["keep.txt"]',
    ],
)
def test_a_foreign_or_hostile_manifest_removes_nothing_outside(tmp_path: Path, manifest: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "outside.txt").write_text("outside")
    (out / "keep.txt").write_text("keep")
    (out / MANIFEST).write_text(manifest)
    atomic.write_files(out, {"new.xmi": b"n"}, owner="y")
    assert (tmp_path / "outside.txt").read_text() == "outside"
    assert _names(out) == [MANIFEST, "keep.txt", "new.xmi"]
    assert json.loads((out / MANIFEST).read_text())["owners"]["y"] == ["new.xmi"]


def test_stale_files_in_subdirectories(tmp_path: Path) -> None:
    atomic.write_files(tmp_path, {"sub/a.ecore": b"a", "sub/b.ecore": b"b", "m.xmi": b"m"}, owner="o")
    (tmp_path / "sub" / "c.txt").write_text("c")
    atomic.write_files(tmp_path, {"m.xmi": b"m"}, owner="o")
    assert _names(tmp_path) == [MANIFEST, "m.xmi", "sub/c.txt"]


def test_file_by_file_where_the_directory_cannot_be_swapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    atomic.write_files(tmp_path, {"a.ecore": b"a", "b.ecore": b"b"}, owner="o")
    monkeypatch.setattr(atomic, "_MAX_LINKED_ENTRIES", -1)  # too many foreign files: file by file
    atomic.write_files(tmp_path, {"a.ecore": b"a2"}, owner="o")
    assert _names(tmp_path) == [MANIFEST, "a.ecore"]
    assert json.loads((tmp_path / MANIFEST).read_text())["owners"]["o"] == ["a.ecore"]


def _project(root: Path, entities: list[str]) -> None:
    root.mkdir(exist_ok=True)
    (root / "project.yml").write_text("name: shop\n", encoding="utf-8")
    module = root / "libs" / "extra"
    if module.exists():
        shutil.rmtree(module)
    imports = "".join(f"import {name}\n" for name in entities)
    for name in entities:
        (root / "libs" / name / "model").mkdir(parents=True, exist_ok=True)
        (root / "libs" / name / "module.yml").write_text(f"name: {name}\n", encoding="utf-8")
        (root / "libs" / name / "model" / "_init.cf").write_text(
            "entity Thing:\n    string name\nend\nimplement Thing using std::none\n", encoding="utf-8"
        )
    (root / "main.cf").write_text(imports, encoding="utf-8")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cfmodel(*args, cwd=cwd, cache=cwd / ".cache")


def test_xmi_export_removes_the_ecore_files_of_an_earlier_run(tmp_path: Path) -> None:
    project, out = tmp_path / "p", tmp_path / "out"
    _project(project, ["alpha", "beta"])
    out.mkdir()
    (out / "README").write_text("not cfmodel's")
    first = _cli("xmi", "export", str(project), "-o", str(out), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert _names(out) == [
        MANIFEST,
        "README",
        "__config__.ecore",
        "alpha.ecore",
        "beta.ecore",
        "shop.xmi",
        "std.ecore",
    ]
    _project(project, ["alpha"])
    second = _cli("xmi", "export", str(project), "-o", str(out), cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert _names(out) == [MANIFEST, "README", "__config__.ecore", "alpha.ecore", "shop.xmi", "std.ecore"]
