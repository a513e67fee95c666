"""The parse cache is bounded: a size cap, least-recently-used eviction, and ``cfmodel cache
info|clear`` (issue 20, housekeeping)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cfmodel.cache import CacheSizeError, ParseCache, parse_size
from cfmodel.cli import main
from cfmodel.grammars import nodes


def _module(size: int) -> nodes.Module:
    return nodes.Module(file="x" * size, doc=None)


def _put(cache: ParseCache, name: str, size: int, used: int) -> str:
    """An entry of about *size* bytes, last used at second *used*."""
    key = cache.key(name, b"")
    cache.put(key, _module(size))
    path = cache.directory / key[:2] / key
    os.utime(path, ns=(used * 10**9, used * 10**9))
    return key


def _entry_size(tmp_path: Path) -> int:
    probe = ParseCache(tmp_path / "probe")
    _put(probe, "probe", 1000, 1)
    return probe.info().size


def test_writes_past_the_cap_evict_the_least_recently_used(tmp_path: Path) -> None:
    one = _entry_size(tmp_path)
    cache = ParseCache(tmp_path / "c", max_bytes=4 * one + one // 2)
    keys = [_put(cache, f"file{n}", 1000, used=100 + n) for n in range(4)]
    assert cache.info().entries == 4
    # reading the oldest marks it used now: it is no longer the first to go
    assert cache.get(keys[0]) is not None
    cache.put(cache.key("file4", b""), _module(1000))
    left = {entry.path.name for entry in cache.entries()}
    # over the cap: the least recently used go until at most 9/10 of the cap is left
    assert left == {keys[0], keys[2], keys[3], cache.key("file4", b"")}
    assert cache.info().size <= cache.max_bytes * 9 // 10
    assert cache.evicted == 1
    cache.put(cache.key("file5", b""), _module(1000))
    left = {entry.path.name for entry in cache.entries()}
    assert left == {keys[0], keys[3], cache.key("file4", b""), cache.key("file5", b"")}


def test_the_cap_holds_across_processes(tmp_path: Path) -> None:
    one = _entry_size(tmp_path)
    for n in range(6):  # each a fresh cache object, as each command is
        _put(ParseCache(tmp_path / "c", max_bytes=3 * one), f"f{n}", 1000, used=n + 1)
    entries = ParseCache(tmp_path / "c", max_bytes=3 * one).entries()
    assert sum(entry.size for entry in entries) <= 3 * one
    assert entries[-1].path.name == ParseCache(tmp_path / "c").key("f5", b"")


def test_an_entry_larger_than_the_cap_is_not_written(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path, max_bytes=500)
    key = cache.key("big", b"")
    cache.put(key, _module(2000))
    assert cache.get(key) is None and cache.info().entries == 0
    off = ParseCache(tmp_path, max_bytes=0)
    off.put(off.key("small", b""), _module(1))
    assert off.info().entries == 0


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 0),
        ("1024", 1024),
        ("1.5K", 1536),
        ("500M", 500 * 1024**2),
        ("2g", 2 * 1024**3),
        ("64MiB", 64 * 1024**2),
    ],
)
def test_sizes_are_read_as_people_write_them(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "M", "lots", "-1G", "nanM", "1e40G"])
def test_a_size_that_is_none_is_refused(text: str) -> None:
    with pytest.raises(CacheSizeError, match="not a size"):
        parse_size(text)


def _project(root: Path) -> None:
    (root / "project.yml").write_text("name: p\n", encoding="utf-8")
    (root / "main.cf").write_text("entity A:\n    string name\nend\na = A(name='x')\n", encoding="utf-8")


class _Cli:
    """``cfmodel ARGS`` run in this process (as the command line runs it), in *root*."""

    def __init__(
        self, root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        self.root, self.capsys = root, capsys
        monkeypatch.chdir(root)
        monkeypatch.setenv("CFMODEL_CACHE_DIR", str(root / ".cache"))
        monkeypatch.delenv("CFMODEL_CACHE_SIZE", raising=False)
        self.monkeypatch = monkeypatch

    def __call__(self, *args: str, size: str | None = None) -> tuple[int, str, str]:
        if size is None:
            self.monkeypatch.delenv("CFMODEL_CACHE_SIZE", raising=False)
        else:
            self.monkeypatch.setenv("CFMODEL_CACHE_SIZE", size)
        code = main(list(args))
        said = self.capsys.readouterr()
        return code, said.out, said.err


def test_cache_info_and_clear(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path)
    cli = _Cli(tmp_path, monkeypatch, capsys)
    code, out, _ = cli("cache", "info")
    assert code == 0
    assert out.splitlines() == [
        f"parse cache: {tmp_path / '.cache' / 'parse'}",
        "entries:     0",
        "size:        0 bytes of 256.0 MiB (0 %)",
    ]
    assert cli("check", ".")[0] == 0
    info = json.loads(cli("cache", "info", "--format", "json")[1])
    assert info["entries"] >= 2  # main.cf and the built-in std
    assert info["max_bytes"] == 256 * 1024**2 and info["signing_key"] is True
    assert 0 < info["bytes"] < info["max_bytes"] and info["oldest_use"] <= info["newest_use"]
    code, out, _ = cli("cache", "clear")
    assert code == 0 and out.startswith(f"removed {info['entries']} entries (")
    assert json.loads(cli("cache", "info", "--format", "json")[1])["entries"] == 0
    assert (tmp_path / ".cache" / f"key-{os.getuid()}").is_file()  # the key stays


def test_cache_size_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path)
    cli = _Cli(tmp_path, monkeypatch, capsys)
    assert "of 1.0 MiB" in cli("cache", "info", size="1M")[1]
    code, _, err = cli("check", ".", size="lots")
    assert code == 2
    assert err == "cfmodel: CFMODEL_CACHE_SIZE: not a size: 'lots' (say e.g. 500M or 2G)\n"
    # a cap too small for any entry: the compile works, nothing is cached
    assert cli("check", ".", size="100")[0] == 0
    assert json.loads(cli("cache", "info", "--format", "json")[1])["entries"] == 0
