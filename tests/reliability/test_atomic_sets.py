"""Issue 12, item 2: `xmi export` replaces its whole output set atomically.

A run killed at any moment leaves the complete old set or the complete new set (never a
new `.ecore` beside an old `.xmi`), and the next run leaves no leftovers. A full disk and
a read-only directory are located errors (exit 1), with the old set untouched.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cfmodel
from tests.reliability.helpers import run_cli

OLD = "entity Host:\n  string name\nend\nimplement Host using std::none\n"
NEW = "entity Host:\n  string name\n  string legacy = 'x'\n  int port = 22\nend\nimplement Host using std::none\n"
KILLS = 24


def _project(root: Path, entity: str, count: int) -> Path:
    root.mkdir(parents=True)
    (root / "project.yml").write_text("name: p\n", encoding="utf-8")
    hosts = "".join(f"h{i} = Host(name='host{i}')\n" for i in range(count))
    (root / "main.cf").write_text(entity + hosts, encoding="utf-8")
    return root


def _visible(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if not p.name.startswith(".")}


def _leftovers(out: Path) -> list[str]:
    beside = [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    inside = [p.name for p in out.iterdir() if p.name.startswith(".")] if out.is_dir() else []
    inside = [
        name for name in inside if name != ".cfmodel-manifest.json"
    ]  # the export's record, not a leftover
    return beside + inside


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, bytes], dict[str, bytes]]:
    base = tmp_path_factory.mktemp("atomic-sets")
    old_project = _project(base / "old", OLD, 300)
    new_project = _project(base / "new", NEW, 300)
    assert run_cli("xmi", "export", str(old_project), "-o", str(base / "old-out"), cwd=base).returncode == 0
    assert run_cli("xmi", "export", str(new_project), "-o", str(base / "new-out"), cwd=base).returncode == 0
    old, new = _visible(base / "old-out"), _visible(base / "new-out")
    assert old.keys() == new.keys() and old != new
    assert all(old[name] != new[name] for name in old if name.endswith(".xmi") or name == "__config__.ecore")
    return base, new_project, old, new


def test_a_killed_export_leaves_the_old_set_or_the_new_set(
    sets: tuple[Path, Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path
) -> None:
    base, new_project, old, new = sets
    out = tmp_path / "out"
    env = {**os.environ, "CFMODEL_CACHE_DIR": str(base / ".cache")}
    command = [sys.executable, "-m", "cfmodel", "xmi", "export", str(new_project), "-o", str(out)]
    started = time.monotonic()
    first = run_cfmodel(*command[3:], cwd=base, cache=base / ".cache")
    assert first.returncode == 0, first.stderr
    duration = time.monotonic() - started
    rng = random.Random(12)
    seen = {"old": 0, "new": 0}
    in_write_phase = 0
    for attempt in range(KILLS):
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        for name, data in old.items():
            (out / name).write_bytes(data)
        (out / "README").write_bytes(b"not ours: kept")
        with subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
            if attempt % 2:
                time.sleep(rng.uniform(0, duration * 1.1))
            else:
                # wait for the write phase (the staged directory appears), then a little more
                deadline = time.monotonic() + 120
                while proc.poll() is None and time.monotonic() < deadline:
                    if any(p.name.startswith(".out.cfmodel-") for p in tmp_path.iterdir()):
                        in_write_phase += 1
                        time.sleep(rng.uniform(0, 0.01))
                        break
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
        found = _visible(out)
        assert found.pop("README") == b"not ours: kept"
        assert found in (old, new), f"attempt {attempt}: a mixed set {sorted(found)}"
        seen["old" if found == old else "new"] += 1
    assert in_write_phase >= KILLS // 4
    assert seen["old"] > 0
    # the next run completes the switch and cleans what the killed runs left
    last = run_cfmodel(*command[3:], cwd=base, cache=base / ".cache")
    assert last.returncode == 0, last.stderr
    found = _visible(out)
    assert found.pop("README") == b"not ours: kept"
    assert found == new
    assert _leftovers(out) == []


@contextlib.contextmanager
def _tmpfs(mount_point: Path, options: str) -> Iterator[bool]:
    """Mount a tmpfs at *mount_point* if this machine lets us (root with the capability)."""
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount_point)], capture_output=True, check=False
    )
    try:
        yield done.returncode == 0
    finally:
        if done.returncode == 0:
            subprocess.run(["umount", str(mount_point)], capture_output=True, check=False)


def test_a_full_disk_is_a_located_error_and_keeps_the_old_set(
    sets: tuple[Path, Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path
) -> None:
    base, new_project, old, _ = sets
    with _tmpfs(tmp_path / "disk", "size=1m") as mounted:
        out = tmp_path / "disk" / "out"
        out.mkdir()
        for name, data in old.items():
            (out / name).write_bytes(data)
        if mounted:  # leave 8 KiB free: less than the new set needs
            info = os.statvfs(out)
            filler = info.f_bavail * info.f_frsize - 8192
            (tmp_path / "disk" / "filler").write_bytes(b"\0" * filler)
        # else every file the process writes is capped at 4 KiB (writes past it fail with
        # EFBIG; Python ignores SIGXFSZ)
        result = run_cfmodel(
            "xmi", "export", str(new_project), "-o", str(out),
            cwd=base, cache=base / ".cache", file_bytes=None if mounted else 4096,
        )  # fmt: skip
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stderr
        reason = "No space left on device" if mounted else "File too large"
        assert result.stderr.startswith(f"{out}:1:1: error: cannot write: {reason}  [io]"), result.stderr
        assert _visible(out) == old
        assert _leftovers(out) == []


def test_a_read_only_directory_is_a_located_error(
    sets: tuple[Path, Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path
) -> None:
    base, new_project, old, _ = sets
    with _tmpfs(tmp_path / "ro", "size=1m") as mounted:
        out = tmp_path / "ro" / "out"
        out.mkdir()
        for name, data in old.items():
            (out / name).write_bytes(data)
        if mounted:
            subprocess.run(["mount", "-o", "remount,ro", str(tmp_path / "ro")], check=True)
        elif os.geteuid() != 0:
            (tmp_path / "ro").chmod(0o555)
            out.chmod(0o555)
        else:  # root without the right to mount: permissions do not stop root
            pytest.fail("cannot make a read-only directory here (root without mount)")
        result = run_cli("xmi", "export", str(new_project), "-o", str(out), cwd=base)
        assert result.returncode == 1, result.stderr
        assert result.stderr.startswith(f"{out}"), result.stderr
        assert "[io]" in result.stderr
        assert _visible(out) == old
        if not mounted:
            (tmp_path / "ro").chmod(0o755)
            out.chmod(0o755)
