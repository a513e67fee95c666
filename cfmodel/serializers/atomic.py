"""Atomic file replacement: readers see the old file or the whole new one, never a part.

Input: a target path and bytes (or a block that writes to a binary file object).
Output: the target replaced in one `os.replace`. Guarantees: the data goes to a
temporary file in the same directory (same file system), is flushed and fsynced before
the rename, and the directory is fsynced after it; on any failure the temporary file is
removed and the previous target is untouched. A replaced file keeps its permission
bits; a new one gets the usual ``0o666 & ~umask``.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from cfmodel.errors import CfSerializationError, Span


@contextlib.contextmanager
def atomic_writer(target: Path | str) -> Iterator[BinaryIO]:
    """Yield a binary file; on normal exit it atomically becomes `target`."""
    path = Path(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        span = Span(str(path), 1, 1, 1, 2)
        raise CfSerializationError(f"cannot write: {exc.strerror}", span, code="io") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def write_bytes(target: Path | str, data: bytes) -> None:
    with atomic_writer(target) as fh:
        fh.write(data)


def write_files(directory: Path | str, files: dict[str, bytes]) -> list[Path]:
    """Write each of `files` (name → bytes, all made before this is called) into
    `directory`, made if missing, each atomically; the paths written, in order."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files.items():
        write_bytes(target / name, data)
        written.append(target / name)
    return written


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    # Read it without changing it (os.umask would briefly alter it for all threads).
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform/file system allows it
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
