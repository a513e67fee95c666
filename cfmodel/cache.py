"""A parse cache keyed by content hash, so unchanged files are not parsed again.

Key: SHA-256 of (cache format, the grammar file, the builder's source, the file label,
the file's bytes). Value: the pickled `nodes.Module`, preceded by its HMAC-SHA256 under
a per-user secret key. Entries are written atomically (temp file + rename); a corrupt,
unsigned, wrongly signed or unreadable entry is ignored and rewritten.
Location: ``$CFMODEL_CACHE_DIR``, else ``$XDG_CACHE_HOME/cfmodel``, else
``~/.cache/cfmodel``.

Trust: unpickling can run code, so nothing is unpickled unless its signature verifies
under the key in ``<cache dir>/key-<uid>``: 32 random bytes, made on first use, which
must be a regular file owned by the current user and readable by nobody else (a key
someone else could have written or read is never used; the cache is then off). Anyone
who cannot read that key cannot make an entry this user will load, so a shared or copied
cache directory cannot inject code. A tree too deep to pickle is simply not cached.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import hmac
import os
import pickle
import secrets
import stat
import tempfile
from pathlib import Path

from cfmodel.grammars import nodes

_FORMAT = b"cfmodel-parse-cache-2"
_KEY_BYTES = 32
_SIGNATURE_BYTES = 32  # HMAC-SHA256


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

    def __init__(self, directory: Path | None = None) -> None:
        base = directory or default_cache_dir()
        self.directory = base / "parse"
        self.key_file = base / f"key-{_uid()}"
        self.hits = 0
        self.misses = 0
        self._secret: bytes | None = None
        self._secret_read = False

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
            pass


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
