"""Atomic writes: readers see the old file (or set of files) or the whole new one, never a part.

Input: a target path and bytes (or a block that writes to a binary file object), or a
directory and a set of files (name -> bytes, all made before anything is written).
Output: the target replaced in one step. Guarantees:

* One file (`atomic_writer`, `write_bytes`): the data goes to a temporary file
  ``.<name>.<pid>.<random>.tmp`` in the same directory, is flushed and fsynced, then
  renamed over the target (`os.replace`); the directory is fsynced after it. A replaced
  file keeps its permission bits; a new one gets the usual ``0o666 & ~umask``.
* A set (`write_files`): the whole new directory is made beside the target
  (``.<dir>.cfmodel-new-<pid>-<random>``) holding the new files plus hard links to every
  other entry already in the target, then switched with the target in one
  ``renameat2(RENAME_EXCHANGE)``, and the old one removed. Readers, and a run killed at
  any moment, see the complete old set or the complete new set. Where the exchange is not
  available (not Linux, a file system without it) two renames are used, and a run killed
  between them leaves the old set beside the target, which the next run puts back. Where
  the target cannot be swapped at all (it is a mount point, its parent is not writable),
  the files are replaced one by one, each atomically (the previous behaviour).
* A set written with an ``owner`` (an export: ``"xmi export"``, ``"ecore export"``) is
  recorded in the directory's manifest, ``.cfmodel-manifest.json`` (for each owner, the
  names it wrote last; sorted JSON, written in the same switch as the files). A file the
  owner wrote last time and does not write now is left out of the new set, so a stale
  file of an earlier export is gone in the same switch; files no owner wrote, and files
  another owner still claims, are kept. A manifest that cannot be read is replaced and
  removes nothing.
* Leftovers of killed runs (temporary files, staged or old directories whose process is
  gone) are removed by the next write to the same place.
* Any failure (a full disk, a read-only directory) leaves the old file or set untouched,
  removes what this run made, and is raised as `CfSerializationError` (code ``io``)
  located at the target.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from cfmodel.errors import CfSerializationError, Span

_STAGED = ".cfmodel-new-"
_OLD = ".cfmodel-old-"
_MAX_LINKED_ENTRIES = 100_000  # a target holding more foreign files is replaced file by file
MANIFEST = ".cfmodel-manifest.json"
_MANIFEST_FORMAT = "cfmodel-manifest/1"


@contextlib.contextmanager
def atomic_writer(target: Path | str) -> Iterator[BinaryIO]:
    """Yield a binary file; on normal exit it atomically becomes `target`."""
    path = Path(target)
    _remove_stale_temporaries(path.parent, path.name)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise _io_error(path, exc) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _io_error(path, exc) from exc
        raise
    _fsync_dir(path.parent)


def write_bytes(target: Path | str, data: bytes) -> None:
    with atomic_writer(target) as fh:
        fh.write(data)


def write_files(directory: Path | str, files: dict[str, bytes], owner: str | None = None) -> list[Path]:
    """Make `directory` hold `files` (name -> bytes) besides what it held, as one atomic
    switch (see the module docstring); the paths written, in order. With an *owner*, the
    files it wrote before and does not write now are removed in the same switch (the
    manifest)."""
    given = Path(directory)
    target = given
    if target.is_symlink():
        target = target.resolve()
    target = target.absolute()
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _io_error(target, exc) from exc
    _recover(parent, target.name)
    written = [given / name for name in files]
    if target.exists() and not target.is_dir():
        raise CfSerializationError(
            f"cannot write into {target}: it is not a directory", Span(str(target), 1, 1, 1, 2), code="io"
        )
    stale: set[str] = set()
    if owner is not None:
        files, stale = _with_manifest(target, files, owner)
    staged = parent / f".{target.name}{_STAGED}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        os.mkdir(staged, 0o700)
    except OSError as exc:
        if target.is_dir() and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            _write_one_by_one(target, files, stale)  # the parent is not ours to write in
            return written
        raise _io_error(target, exc) from exc
    try:
        if target.is_dir() and not _link_others(target, staged, set(_top_names(files)), stale):
            shutil.rmtree(staged, ignore_errors=True)
            _write_one_by_one(target, files, stale)
            return written
        for name, data in files.items():
            _write_new(staged / name, data, target / name)
        os.chmod(staged, stat.S_IMODE(target.stat().st_mode) if target.is_dir() else 0o777 & ~_umask())
        _fsync_dir(staged)
        if not target.exists():
            os.rename(staged, target)
        else:
            _switch(staged, target)
        _fsync_dir(parent)
    except BaseException as exc:
        shutil.rmtree(staged, ignore_errors=True)
        if isinstance(exc, OSError):
            if exc.errno in (errno.EBUSY, errno.EXDEV) and target.is_dir():
                _write_one_by_one(target, files, stale)  # a mount point cannot be swapped
                return written
            raise _io_error(target, exc) from exc
        raise
    return written


def _switch(staged: Path, target: Path) -> None:
    """Put *staged* where *target* is, in one step where the system allows; remove the old."""
    if _exchange(staged, target):
        # *staged* now holds the old set
        shutil.rmtree(staged, ignore_errors=True)
        return
    old = target.parent / f".{target.name}{_OLD}{os.getpid()}-{secrets.token_hex(4)}"
    os.rename(target, old)
    try:
        os.rename(staged, target)
    except BaseException:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    renameat2 = getattr(_libc(), "renameat2", None) if _libc() is not None else None
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))


_LIBC: list[ctypes.CDLL | None] = []


def _libc() -> ctypes.CDLL | None:
    if not _LIBC:
        try:
            _LIBC.append(ctypes.CDLL(None, use_errno=True))
        except OSError:
            _LIBC.append(None)
    return _LIBC[0]


def _top_names(files: dict[str, bytes]) -> list[str]:
    return [Path(name).parts[0] for name in files]


def _with_manifest(target: Path, files: dict[str, bytes], owner: str) -> tuple[dict[str, bytes], set[str]]:
    """*files* plus the updated manifest, and the names *owner* wrote last time but not now
    (and no other owner claims)."""
    sets = _read_manifest(target / MANIFEST)
    before = set(sets.get(owner, []))
    sets[owner] = sorted(files)
    claimed = {name for other, names in sets.items() if other != owner for name in names}
    stale = {name for name in before - set(files) - claimed if _is_relative_name(name)}
    document = {"format": _MANIFEST_FORMAT, "owners": dict(sorted(sets.items()))}
    manifest = (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    return {**files, MANIFEST: manifest}, stale


def _read_manifest(path: Path) -> dict[str, list[str]]:
    """The owners' sets of a manifest; empty when there is none or it is not one of ours."""
    try:
        with open(path, "rb") as stream:
            document = json.loads(stream.read(16 * 1024 * 1024))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(document, dict) or document.get("format") != _MANIFEST_FORMAT:
        return {}
    owners = document.get("owners")
    if not isinstance(owners, dict):
        return {}
    return {
        str(owner): [name for name in names if isinstance(name, str)]
        for owner, names in owners.items()
        if isinstance(names, list)
    }


def _is_relative_name(name: str) -> bool:
    """A name inside the directory: relative, no ``..``, not the manifest."""
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts and name != MANIFEST


def _link_others(target: Path, staged: Path, replaced: set[str], stale: set[str]) -> bool:
    """Hard-link every entry of *target* not being replaced (nor *stale*) into *staged*;
    False if too many."""
    count = 0
    for entry in os.scandir(target):
        if entry.name in replaced or entry.name in stale or _is_ours_leftover(entry.name):
            continue
        source, copy = Path(entry.path), staged / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(source), copy)
            count += 1
        elif entry.is_dir():
            count += _link_tree(source, copy, _inside(stale, entry.name))
        else:
            _link_or_copy(source, copy)
            count += 1
        if count > _MAX_LINKED_ENTRIES:
            return False
    return True


def _inside(names: set[str], folder: str) -> set[str]:
    """The names under *folder*, relative to it."""
    prefix = folder + "/"
    return {name[len(prefix) :] for name in names if name.startswith(prefix)}


def _link_tree(source: Path, copy: Path, stale: set[str]) -> int:
    count = 0
    os.mkdir(copy, stat.S_IMODE(source.stat().st_mode) | 0o700)
    for entry in os.scandir(source):
        if entry.name in stale:
            continue
        child, child_copy = Path(entry.path), copy / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(child), child_copy)
        elif entry.is_dir():
            count += _link_tree(child, child_copy, _inside(stale, entry.name))
        else:
            _link_or_copy(child, child_copy)
        count += 1
        if count > _MAX_LINKED_ENTRIES:
            break
    shutil.copymode(source, copy)
    return count


def _link_or_copy(source: Path, copy: Path) -> None:
    try:
        os.link(source, copy, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, copy, follow_symlinks=False)


def _write_new(path: Path, data: bytes, previous: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(path, _mode_for(previous))


def _write_one_by_one(target: Path, files: dict[str, bytes], stale: set[str]) -> None:
    """Where the directory cannot be swapped: each file replaced atomically, then the stale
    files removed, the manifest last (a run killed before it leaves the old manifest, so the
    next run removes what is left)."""
    manifest = files.get(MANIFEST)
    for name, data in files.items():
        if name != MANIFEST:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            write_bytes(target / name, data)
    for name in sorted(stale):
        path = target / name
        if path.is_symlink() or path.is_file():
            with contextlib.suppress(OSError):
                path.unlink()
    if manifest is not None:
        write_bytes(target / MANIFEST, manifest)


def _is_ours_leftover(name: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp") and name.count(".") >= 4


def _recover(parent: Path, name: str) -> None:
    """Undo what killed runs left beside *parent*/*name*: put an old set back if the target
    is missing, remove staged and old directories whose process is gone."""
    prefix = f".{name}"
    try:
        entries = [e for e in os.scandir(parent) if e.name.startswith(prefix)]
    except OSError:
        return
    for entry in entries:
        rest = entry.name[len(prefix) :]
        for marker in (_STAGED, _OLD):
            if not rest.startswith(marker):
                continue
            pid = _pid_of(rest[len(marker) :])
            if pid is None or _alive(pid):
                continue
            if marker == _OLD and not (parent / name).exists():
                with contextlib.suppress(OSError):
                    os.rename(entry.path, parent / name)
                continue
            shutil.rmtree(entry.path, ignore_errors=True)
    if (parent / name).is_dir():
        _remove_stale_temporaries(parent / name, None)


def _remove_stale_temporaries(directory: Path, name: str | None) -> None:
    """Remove ``.<name>.<pid>.<random>.tmp`` files of processes that are gone."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if not _is_ours_leftover(entry.name):
            continue
        parts = entry.name[1:-4].rsplit(".", 2)
        if len(parts) != 3 or (name is not None and parts[0] != name):
            continue
        pid = _pid_of(parts[1])
        if pid is not None and not _alive(pid):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _pid_of(text: str) -> int | None:
    digits = text.split("-", 1)[0]
    return int(digits) if digits.isdigit() else None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, not ours
    return True


def _io_error(path: Path, exc: OSError) -> CfSerializationError:
    reason = exc.strerror or str(exc)
    return CfSerializationError(f"cannot write: {reason}", Span(str(path), 1, 1, 1, 2), code="io")


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
