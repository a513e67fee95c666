"""A parse cache keyed by content hash, so unchanged files are not parsed again.

Key: SHA-256 of (cache format, the grammar file, the builder's source, the file label,
the file's bytes). Value: the pickled `nodes.Module`, preceded by its HMAC-SHA256 under
a per-user secret key. Entries are written atomically (temp file + rename); a corrupt,
unsigned, wrongly signed or unreadable entry is ignored and rewritten.
Location: ``$CFMODEL_CACHE_DIR``, else ``$XDG_CACHE_HOME/cfmodel``, else
``~/.cache/cfmodel``.

Size: bounded. The entries take at most ``max_bytes`` (``$CFMODEL_CACHE_SIZE``, e.g.
``500M`` or ``2G``; default 256 MiB; ``0`` turns writing off). A hit marks its entry as
used (its modification time); when a write takes the entries over the cap, the least
recently used are removed until they take at most nine tenths of it, so a process never
leaves the cache over its cap (writers racing in other processes may, until their next
write). An entry larger than the cap is not written. ``info()`` and ``clear()`` are what
``cfmodel cache info|clear`` show and do.

Trust: unpickling can run code, so nothing is unpickled unless its signature verifies
under the key in ``<cache dir>/key-<uid>``: 32 random bytes, made on first use, which
must be a regular file owned by the current user and readable by nobody else (a key
someone else could have written or read is never used; the cache is then off). Anyone
who cannot read that key cannot make an entry this user will load, so a shared or copied
cache directory cannot inject code. A tree too deep to pickle is simply not cached.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import hmac
import os
import pickle
import secrets
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cfmodel.grammars import nodes

_FORMAT = b"cfmodel-parse-cache-2"
_KEY_BYTES = 32
_SIGNATURE_BYTES = 32  # HMAC-SHA256
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_ENTRY_NAME_LENGTH = 64  # a SHA-256 in hex


class CacheSizeError(ValueError):
    """``$CFMODEL_CACHE_SIZE`` is not a size."""


def parse_size(text: str) -> int:
    """``"256M"`` -> 268435456: a byte count with an optional K, M, G or T (powers of 1024)."""
    raw = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = raw[-1:] if raw[-1:] in _UNITS else ""
    number = raw[: len(raw) - len(unit)].strip()
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if not number or value < 0 or value != value or value * _UNITS[unit] > 2**62:
        raise CacheSizeError(f"not a size: {text!r} (say e.g. 500M or 2G)")
    return int(value * _UNITS[unit])


def default_max_bytes() -> int:
    """The cap: ``$CFMODEL_CACHE_SIZE`` if set, else `DEFAULT_MAX_BYTES`."""
    given = os.environ.get("CFMODEL_CACHE_SIZE")
    return DEFAULT_MAX_BYTES if not given else parse_size(given)


@dataclass(frozen=True)
class CacheEntry:
    """One entry on disk: its file, its size, when it was last used (ns since the epoch)."""

    path: Path
    size: int
    used: int


@dataclass(frozen=True)
class CacheInfo:
    """What ``cfmodel cache info`` shows."""

    directory: Path
    entries: int
    size: int
    max_bytes: int
    oldest_use: int | None
    newest_use: int | None
    signed: bool  # this user's key is usable (else nothing is read or written)


def default_cache_dir() -> Path:
    explicit = os.environ.get("CFMODEL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cfmodel"


@functools.cache
def _code_fingerprint() -> bytes:
    # A change to the grammar or the tree builder invalidates every entry.
    here = Path(__file__).parent / "grammars"
    digest = hashlib.sha256(_FORMAT)
    for name in (
        "cf.tx",
        "cf.py",
        "peg.py",
        "nodes.py",
        "strings.py",
        "positions.py",
        "common.py",
        "frontend.py",
    ):
        digest.update((here / name).read_bytes())
    return digest.digest()


class ParseCache:
    """Maps (file label, content) to a parsed module, on disk."""

    def __init__(self, directory: Path | None = None, max_bytes: int | None = None) -> None:
        base = directory or default_cache_dir()
        self.directory = base / "parse"
        self.key_file = base / f"key-{_uid()}"
        self.max_bytes = default_max_bytes() if max_bytes is None else max_bytes
        self.hits = 0
        self.misses = 0
        self.evicted = 0
        self._secret: bytes | None = None
        self._secret_read = False
        self._total: int | None = None  # bytes of the entries, known after this cache's first write

    def secret(self) -> bytes | None:
        """This user's signing key (made on first use), or None if none can be trusted."""
        if not self._secret_read:
            self._secret_read = True
            self._secret = _read_or_make_key(self.key_file)
        return self._secret

    def key(self, label: str, content: bytes) -> str:
        digest = hashlib.sha256(_code_fingerprint())
        digest.update(label.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
        digest.update(content)
        return digest.hexdigest()

    def get(self, key: str) -> nodes.Module | None:
        path = self.directory / key[:2] / key
        secret = self.secret()
        if secret is None:
            self.misses += 1
            return None
        try:
            signed = path.read_bytes()
            signature, data = signed[:_SIGNATURE_BYTES], signed[_SIGNATURE_BYTES:]
            expected = hmac.new(secret, key.encode("ascii") + data, hashlib.sha256).digest()
            if not hmac.compare_digest(signature, expected):
                self.misses += 1
                return None
            # Unpickling makes one object per node; with the cyclic collector running
            # it would be scanned again and again (twice as slow for a large file).
            was_enabled = gc.isenabled()
            gc.disable()
            try:
                module = pickle.loads(data)
            finally:
                if was_enabled:
                    gc.enable()
        except (
            OSError,
            pickle.UnpicklingError,
            EOFError,
            AttributeError,
            ValueError,
            TypeError,
            ImportError,
            IndexError,
            KeyError,
            RecursionError,
        ):
            self.misses += 1
            return None
        if not isinstance(module, nodes.Module):
            self.misses += 1
            return None
        self.hits += 1
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: the last to be evicted
        return module

    def put(self, key: str, module: nodes.Module) -> None:
        folder = self.directory / key[:2]
        secret = self.secret()
        if secret is None:
            return
        try:
            data = pickle.dumps(module, protocol=pickle.HIGHEST_PROTOCOL)
        except RecursionError:
            return  # nested too deeply for pickle: parsed again next time
        if _SIGNATURE_BYTES + len(data) > self.max_bytes:
            return  # larger than the whole cache (or writing is off)
        signature = hmac.new(secret, key.encode("ascii") + data, hashlib.sha256).digest()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as stream:
                    stream.write(signature)
                    stream.write(data)
                os.replace(temp, folder / key)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except (OSError, RecursionError):
            # a cache that cannot be written only costs time; a tree deeper than pickle can
            # walk (an expression chain of thousands of terms) is parsed each time
            return
        self._written(_SIGNATURE_BYTES + len(data))

    # ---------------------------------------------------------------- the size bound

    def entries(self) -> list[CacheEntry]:
        """Every entry on disk, least recently used first (ties by name: deterministic)."""
        found: list[CacheEntry] = []
        with contextlib.suppress(OSError):
            for folder in os.scandir(self.directory):
                if not folder.is_dir(follow_symlinks=False) or len(folder.name) != 2:
                    continue
                with contextlib.suppress(OSError):
                    for entry in os.scandir(folder.path):
                        if len(entry.name) != _ENTRY_NAME_LENGTH or entry.name[:2] != folder.name:
                            continue
                        with contextlib.suppress(OSError):
                            info = entry.stat(follow_symlinks=False)
                            if stat.S_ISREG(info.st_mode):
                                found.append(CacheEntry(Path(entry.path), info.st_size, info.st_mtime_ns))
        return sorted(found, key=lambda e: (e.used, e.path.name))

    def _written(self, size: int) -> None:
        if self._total is None:
            self._total = sum(entry.size for entry in self.entries())
        else:
            self._total += size
        if self._total > self.max_bytes:
            self._total = self.evict(self.max_bytes * 9 // 10)

    def evict(self, keep_bytes: int) -> int:
        """Remove the least recently used entries until the rest take at most *keep_bytes*;
        the bytes left."""
        entries = self.entries()
        total = sum(entry.size for entry in entries)
        for entry in entries:
            if total <= keep_bytes:
                break
            with contextlib.suppress(OSError):
                entry.path.unlink()
                self.evicted += 1
            total -= entry.size
        return total

    def info(self) -> CacheInfo:
        """The entries' count and size, the cap, and the oldest and newest use."""
        entries = self.entries()
        return CacheInfo(
            self.directory,
            len(entries),
            sum(entry.size for entry in entries),
            self.max_bytes,
            entries[0].used if entries else None,
            entries[-1].used if entries else None,
            self.secret() is not None,
        )

    def clear(self) -> tuple[int, int]:
        """Remove every entry (and leftovers of interrupted writes); (entries, bytes) removed.
        The signing key stays."""
        entries = self.entries()
        removed = 0
        for entry in entries:
            with contextlib.suppress(OSError):
                entry.path.unlink()
                removed += 1
        with contextlib.suppress(OSError):
            for folder in os.scandir(self.directory):
                if folder.is_dir(follow_symlinks=False) and len(folder.name) == 2:
                    for leftover in os.scandir(folder.path):
                        if leftover.name.startswith(".tmp-"):
                            with contextlib.suppress(OSError):
                                os.unlink(leftover.path)
                    with contextlib.suppress(OSError):
                        os.rmdir(folder.path)
        self._total = None
        return removed, sum(entry.size for entry in entries)


def _uid() -> int:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else 0


def _read_or_make_key(path: Path) -> bytes | None:
    """The key in *path*, made (0600, exclusively) if missing; None if it cannot be trusted."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as stream:
                stream.write(secrets.token_bytes(_KEY_BYTES))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != _uid() or info.st_mode & 0o077:
                return None
            key = stream.read(_KEY_BYTES + 1)
    except OSError:
        return None
    return key if len(key) == _KEY_BYTES else None
