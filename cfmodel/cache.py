"""A parse cache keyed by content hash, so unchanged files are not parsed again.

Key: SHA-256 of (cache format, the grammar file, the builder's source, the file label,
the file's bytes). Value: the pickled `nodes.Module`. Entries are written atomically
(temp file + rename); a corrupt or unreadable entry is ignored and rewritten.
Location: ``$CFMODEL_CACHE_DIR``, else ``$XDG_CACHE_HOME/cfmodel``, else
``~/.cache/cfmodel``.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from cfmodel.grammars import nodes

_FORMAT = b"cfmodel-parse-cache-1"


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
    for name in ("cf.tx", "cf.py", "peg.py", "nodes.py", "strings.py", "positions.py", "common.py"):
        digest.update((here / name).read_bytes())
    return digest.digest()


class ParseCache:
    """Maps (file label, content) to a parsed module, on disk."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = (directory or default_cache_dir()) / "parse"
        self.hits = 0
        self.misses = 0

    def key(self, label: str, content: bytes) -> str:
        digest = hashlib.sha256(_code_fingerprint())
        digest.update(label.encode("utf-8", "surrogateescape"))
        digest.update(b"\0")
        digest.update(content)
        return digest.hexdigest()

    def get(self, key: str) -> nodes.Module | None:
        path = self.directory / key[:2] / key
        try:
            data = path.read_bytes()
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
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as stream:
                    pickle.dump(module, stream, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temp, folder / key)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except (OSError, RecursionError):
            # a cache that cannot be written only costs time; a tree deeper than pickle can
            # walk (an expression chain of thousands of terms) is parsed each time
            pass
