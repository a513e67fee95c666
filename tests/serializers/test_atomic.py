"""Atomic writes: the old file survives any failure and no temporary file is left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfmodel.serializers import atomic


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
    with pytest.raises(OSError, match="No space"):
        atomic.write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.xmi"]


def test_new_file_gets_umask_permissions(tmp_path: Path) -> None:
    target = tmp_path / "new.json"
    atomic.write_bytes(target, b"{}")
    old = os.umask(0)
    os.umask(old)
    assert (target.stat().st_mode & 0o777) == (0o666 & ~old)
