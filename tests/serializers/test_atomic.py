"""Atomic writes: the old file survives any failure and no temporary file is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cfmodel import serializers
from cfmodel.errors import CfSerializationError
from cfmodel.serializers import atomic
from tests.serializers.samples import infra_model, infra_package


def test_replaces_and_keeps_permissions(tmp_path: Path) -> None:
    target = tmp_path / "m.xmi"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    atomic.write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.xmi"]


def test_failure_midway_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "m.xmi"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="disk on fire"), atomic.atomic_writer(target) as fh:
        fh.write(b"half of the new conte")
        raise RuntimeError("disk on fire")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.xmi"]


def test_failed_rename_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "m.xmi"
    target.write_bytes(b"old")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(CfSerializationError, match="No space"):
        atomic.write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.xmi"]


def test_new_file_gets_umask_permissions(tmp_path: Path) -> None:
    target = tmp_path / "new.json"
    atomic.write_bytes(target, b"{}")
    old = os.umask(0)
    os.umask(old)
    assert (target.stat().st_mode & 0o777) == (0o666 & ~old)


def test_a_killed_writer_leaves_the_old_file(tmp_path: Path) -> None:
    """A crash (SIGKILL, nothing runs afterwards) in the middle of writing: the target is
    still the old file. Only the temporary file remains, named ``.m.xmi.<pid>.*.tmp``,
    until the next write."""
    target = tmp_path / "m.xmi"
    target.write_bytes(b"old")
    script = (
        "import sys, time\n"
        "from cfmodel.serializers import atomic\n"
        "with atomic.atomic_writer(sys.argv[1]) as fh:\n"
        "    fh.write(b'half of the new')\n"
        "    fh.flush()\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
    )
    root = Path(__file__).resolve().parents[2]
    with subprocess.Popen(
        [sys.executable, "-c", script, str(target)], stdout=subprocess.PIPE, cwd=root
    ) as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline() == b"writing\n"
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
    assert target.read_bytes() == b"old"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "m.xmi"]
    assert len(leftovers) == 1 and leftovers[0].startswith(".m.xmi.") and leftovers[0].endswith(".tmp")
    # the next write to the same file removes what the dead process left
    atomic.write_bytes(target, b"new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.xmi"]


@pytest.mark.parametrize("fmt", ["ecore", "xmi", "json"])
def test_every_format_keeps_the_old_file_when_writing_fails(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = infra_package()
    content = pkg if fmt == "ecore" else infra_model(pkg)
    target = tmp_path / f"m.{fmt}"
    serializers.write(target, content)
    before = target.read_bytes()
    (tmp_path / "new.txt").write_bytes(b"")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full_disk)
    with pytest.raises(CfSerializationError, match="No space"):
        serializers.write(target, content)
    with pytest.raises(CfSerializationError, match="No space"):
        serializers.write(tmp_path / f"fresh.{fmt}", content)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, "new.txt"])


@pytest.mark.parametrize("fmt", ["ecore", "xmi", "json"])
def test_written_files_are_deterministic(fmt: str, tmp_path: Path) -> None:
    pkg = infra_package()
    for name in ("a", "b"):
        serializers.write(tmp_path / f"{name}.{fmt}", pkg if fmt == "ecore" else infra_model(infra_package()))
    assert (tmp_path / f"a.{fmt}").read_bytes() == (tmp_path / f"b.{fmt}").read_bytes()


def test_a_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CfSerializationError, match="cannot write") as exc:
        atomic.write_bytes(tmp_path / "no" / "such" / "m.xmi", b"x")
    assert exc.value.code == "io"
    assert not (tmp_path / "no").exists()
