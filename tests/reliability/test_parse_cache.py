"""Issue 12, items 3 (parse-cache side), 8 (a flipped byte) and 11 (a crafted entry):
the parse cache loads only entries signed with this user's key, and never crashes."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from cfmodel.cache import ParseCache
from cfmodel.grammars import nodes
from tests.reliability.helpers import run_cli

SOURCE = "entity A:\n    string name\nend\na = A(name='x')\n"


def _project(root: Path, source: str = SOURCE) -> None:
    (root / "project.yml").write_text("name: p\n", encoding="utf-8")
    (root / "main.cf").write_text(source, encoding="utf-8")


def _entries(cache: Path) -> list[Path]:
    return sorted(
        path for path in (cache / "parse").rglob("*") if path.is_file() and not path.name.startswith(".")
    )


def test_a_long_expression_does_not_crash_the_cache(tmp_path: Path) -> None:
    # 300 terms: pickling the tree raised RecursionError (exit 3)
    _project(tmp_path, "x = " + "+".join(["1"] * 300) + "\n")
    first = run_cli("check", ".", cwd=tmp_path)
    second = run_cli("check", ".", cwd=tmp_path)
    assert first.returncode == second.returncode == 0, first.stderr


def test_an_and_chain_does_not_crash_the_cache(tmp_path: Path) -> None:
    _project(tmp_path, "x = " + " and ".join(["true"] * 300) + "\n")
    assert run_cli("check", ".", cwd=tmp_path).returncode == 0


def test_a_flipped_byte_in_an_entry_is_a_miss_not_a_crash(tmp_path: Path) -> None:
    _project(tmp_path)
    assert run_cli("check", ".", cwd=tmp_path).returncode == 0
    entries = _entries(tmp_path / ".cache")
    assert entries
    for entry in entries:
        data = bytearray(entry.read_bytes())
        data[len(data) // 2] ^= 0xFF
        entry.write_bytes(bytes(data))
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr


class _RunsCode:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (exec, ("open(__import__('os').environ['CFMODEL_TEST_MARKER'], 'w').write('ran')",))


def test_a_crafted_entry_never_runs_code(tmp_path: Path) -> None:
    # An attacker who can write the cache directory but not read the key: an entry of
    # theirs, with or without a made-up signature, is never unpickled.
    _project(tmp_path)
    assert run_cli("check", ".", cwd=tmp_path).returncode == 0
    marker = tmp_path / "marker"
    payload = pickle.dumps(_RunsCode())
    for entry in _entries(tmp_path / ".cache"):
        entry.write_bytes(payload)
    assert run_cli("check", ".", cwd=tmp_path, env={"CFMODEL_TEST_MARKER": str(marker)}).returncode == 0
    for entry in _entries(tmp_path / ".cache"):
        entry.write_bytes(b"\0" * 32 + payload)
    assert run_cli("check", ".", cwd=tmp_path, env={"CFMODEL_TEST_MARKER": str(marker)}).returncode == 0
    assert not marker.exists()


def test_entries_round_trip_and_are_signed(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path)
    module = nodes.Module(file="main.cf", doc=None)
    key = cache.key("main.cf", b"")
    cache.put(key, module)
    assert isinstance(ParseCache(tmp_path).get(key), nodes.Module)
    # another user's key (another cache object with a different key file) rejects it
    stranger = ParseCache(tmp_path)
    stranger.key_file = tmp_path / "key-stranger"
    assert stranger.get(key) is None


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership and modes")
def test_a_key_others_can_read_is_never_used(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path)
    assert cache.secret() is not None
    cache.key_file.chmod(0o644)
    assert ParseCache(tmp_path).secret() is None
    cache.key_file.chmod(0o600)
    assert ParseCache(tmp_path).secret() is not None
