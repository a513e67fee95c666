"""Files of other projects, taken out of archives that package registries serve, each file
checked against the SHA-256 it is pinned to; how the real corpus
(`tests/emf/realmetamodels.py`) reaches a machine.

After `extract`, every requested file is in the target folder with exactly the pinned
bytes, or an exception says why not, in words a maintainer can act on:

* `CorpusUnavailable`: an archive could not be downloaded (no network, no registry);
  the tests skip locally and fail in CI (`tests.conftest.skip_or_fail`).
* `CorpusChanged`: the registry now serves other content: which file, from which package
  and version, its SHA-256 against the pin, or that the package no longer has it.

The pin that counts is the extracted file's. An archive is pinned by version too:

* PyPI and npm keep every version, so the pinned one is downloaded and its SHA-256
  checked as well.
* Debian's mirror keeps only the current version of a package: when bookworm replaces the
  pinned one, ``apt-get download NAME=VERSION`` fails, and the package's current version
  is taken instead (``apt-get download NAME``). Its files still have to match their pins,
  so an update that leaves the metamodels alone changes nothing, and one that changes
  them is a `CorpusChanged` naming the file. A ``.deb``'s jars are searched for the file
  (their names carry the bundle's version).

Downloads go into the corpus cache (``$CFMODEL_CORPUS_DIR``, default
``~/.cache/cfmodel/corpus``) through each registry's own client (``apt-get download``,
``pip download``, ``npm pack``), run by `Registries.run`: the unit tests give it a fake
registry. A fresh machine without Debian's package lists gets them once
(``apt-get update``, as root).
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


class CorpusError(Exception):
    """The corpus cannot be laid out; the message says why."""


class CorpusUnavailable(CorpusError):  # noqa: N818 - says what happened, as its siblings do
    """An archive could not be downloaded."""


class CorpusChanged(CorpusError):  # noqa: N818
    """A registry serves content other than what is pinned."""


@dataclass(frozen=True)
class Archive:
    """One pinned download: a Debian ``.deb``, a PyPI wheel or an npm tarball."""

    registry: str  # "debian", "pypi" or "npm"
    name: str
    version: str
    sha256: str  # of the archive of that version

    def label(self, version: str | None = None) -> str:
        """``registry name version``; with the version served when it is not the pinned one."""
        if version is None or version == self.version:
            return f"{self.registry} {self.name} {self.version}"
        return f"{self.registry} {self.name} {version} (pinned {self.version})"

    def file_name(self, version: str | None = None) -> str:
        version = version or self.version
        if self.registry == "debian":
            return f"{self.name}_{version.replace(':', '%3a')}_all.deb"
        if self.registry == "pypi":
            return f"{self.name}-{version}-py3-none-any.whl"
        return f"{self.name.lstrip('@').replace('/', '-')}-{version}.tgz"


@dataclass(frozen=True)
class Pinned:
    """A file of an archive (``member``: its path in the wheel or tarball, or in one of the
    ``.deb``'s jars) and the SHA-256 of its bytes."""

    archive: Archive
    member: str
    sha256: str


@dataclass(frozen=True)
class Fetched:
    """An archive in the cache and the version it is (the pinned one, or Debian's current)."""

    path: Path
    version: str


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


@dataclass
class Registries:
    """How archives are downloaded: ``run`` runs a registry client's command in a folder
    (the unit tests give a fake one); ``may_update_apt`` says whether Debian's package
    lists may be refreshed first when a download fails (only root can)."""

    run: Callable[[list[str], Path], subprocess.CompletedProcess[str]] = _run
    may_update_apt: bool = field(default_factory=lambda: os.geteuid() == 0)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _deb_version(path: Path, archive: Archive) -> str:
    """The version in a ``.deb``'s file name (as ``apt-get download`` names it)."""
    middle = path.name[len(archive.name) + 1 : -len("_all.deb")]
    return urllib.parse.unquote(middle)


def _apt_download(archive: Archive, folder: Path, registries: Registries) -> list[str]:
    """``apt-get download`` of the pinned version, else of the current one, into *folder*;
    the clients' complaints (empty when a file came)."""
    said: list[str] = []
    for wanted in (f"{archive.name}={archive.version}", archive.name):
        done = registries.run(["apt-get", "download", wanted], folder)
        if done.returncode != 0 and registries.may_update_apt and not said:
            registries.run(["apt-get", "update", "-qq"], folder)  # a fresh machine has no lists
            done = registries.run(["apt-get", "download", wanted], folder)
        if done.returncode == 0 and list(folder.glob(f"{archive.name}_*.deb")):
            return []
        said.append(f"apt-get download {wanted}: {done.stderr.strip()[-300:]}")
    return said


def _download(archive: Archive, folder: Path, registries: Registries) -> Path:
    """The archive downloaded into a fresh folder inside *folder*, then moved into it."""
    with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as temporary:
        work = Path(temporary)
        try:
            if archive.registry == "debian":
                said = _apt_download(archive, work, registries)
            else:
                if archive.registry == "pypi":
                    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
                    command += ["-d", ".", f"{archive.name}=={archive.version}"]
                else:
                    command = ["npm", "pack", "--silent", f"{archive.name}@{archive.version}"]
                done = registries.run(command, work)
                said = [] if done.returncode == 0 else [f"{' '.join(command)}: {done.stderr.strip()[-300:]}"]
        except (OSError, subprocess.TimeoutExpired) as exc:
            said = [str(exc)]
        found = sorted(p for p in work.iterdir() if p.is_file())
        if said or len(found) != 1:
            reason = "; ".join(said) or f"the client left {[p.name for p in found]}"
            raise CorpusUnavailable(f"could not download {archive.label()}: {reason}")
        target = folder / found[0].name
        os.replace(found[0], target)
        return target


def fetch(archive: Archive, registries: Registries, cache: Path) -> Fetched:
    """The archive in *cache* (downloaded when missing): the pinned version, or for Debian
    the version the mirror serves now. The pinned version's SHA-256 is checked."""
    folder = cache / archive.registry
    folder.mkdir(parents=True, exist_ok=True)
    pinned = folder / archive.file_name()
    if pinned.is_file():
        path = pinned
    else:
        others = sorted(folder.glob(f"{archive.name}_*_all.deb")) if archive.registry == "debian" else []
        path = others[-1] if others else _download(archive, folder, registries)
    version = _deb_version(path, archive) if archive.registry == "debian" else archive.version
    if version == archive.version:
        found = sha256(path.read_bytes())
        if found != archive.sha256:
            path.unlink()  # a broken download is not kept: the next run fetches it again
            raise CorpusChanged(
                f"{archive.label()}: the archive's SHA-256 is {found}, pinned {archive.sha256}"
            )
    return Fetched(path, version)


def _deb_jars(deb: Path) -> list[zipfile.ZipFile]:
    """The jars (regular files, not their version-less links) of a ``.deb``'s data."""
    try:
        done = subprocess.run(
            ["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, timeout=600, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CorpusUnavailable(f"dpkg-deb cannot read {deb}: {exc}") from exc
    if done.returncode != 0:
        raise CorpusChanged(f"dpkg-deb cannot read {deb}: {done.stderr.decode(errors='replace')[-300:]}")
    jars = []
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as data:
        for info in data.getmembers():
            if info.isfile() and info.name.endswith(".jar"):
                extracted = data.extractfile(info)
                assert extracted is not None  # a regular file
                jars.append(zipfile.ZipFile(io.BytesIO(extracted.read())))
    return jars


class _Opened:
    """The archives' contents, each opened once."""

    def __init__(self) -> None:
        self.jars: dict[Path, list[zipfile.ZipFile]] = {}

    def member(self, archive: Archive, path: Path, member: str) -> bytes | None:
        if archive.registry == "debian":
            if path not in self.jars:
                self.jars[path] = _deb_jars(path)
            for jar in self.jars[path]:
                if member in jar.NameToInfo:
                    return jar.read(member)
            return None
        if archive.registry == "pypi":
            with zipfile.ZipFile(path) as wheel:
                return wheel.read(member) if member in wheel.NameToInfo else None
        with tarfile.open(path) as tgz:
            try:
                extracted = tgz.extractfile(member)
            except KeyError:
                return None
            return None if extracted is None else extracted.read()


def check_pin(target: str, pinned: Pinned, data: bytes | None, source: str) -> bytes:
    """*data* (the file *target* as *source* gives it) when it is the pinned content;
    otherwise `CorpusChanged` naming the file and what changed."""
    advice = (
        "check the new file with scripts/emf_corpus.py --registry and update its pin in "
        "tests/emf/realmetamodels.py"
    )
    if data is None:
        raise CorpusChanged(f"corpus file {target}: {source} has no {pinned.member} any more; {advice}")
    found = sha256(data)
    if found != pinned.sha256:
        raise CorpusChanged(
            f"corpus file {target} changed: {source} gives {pinned.member} with SHA-256 {found}, "
            f"pinned {pinned.sha256}; {advice}"
        )
    return data


def extract(
    files: dict[str, Pinned], folder: Path, registries: Registries, cache: Path
) -> dict[Archive, str]:
    """Every file of *files* (a path in *folder* → its pin) written into *folder*, each
    checked against its pin; returns the version each archive was taken at."""
    archives: dict[Archive, Fetched] = {}
    for pinned in files.values():
        if pinned.archive not in archives:
            archives[pinned.archive] = fetch(pinned.archive, registries, cache)
    opened = _Opened()
    for target, pinned in files.items():
        fetched = archives[pinned.archive]
        found = opened.member(pinned.archive, fetched.path, pinned.member)
        data = check_pin(target, pinned, found, pinned.archive.label(fetched.version))
        out = folder / target
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    return {archive: fetched.version for archive, fetched in archives.items()}
