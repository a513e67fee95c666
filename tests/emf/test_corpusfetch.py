"""How the real corpus reaches a fresh machine (`tests/emf/corpusfetch.py`), against a fake
registry, without network: Debian's mirror serves only a package's current version, so a
pinned ``.deb`` that is gone is replaced by the current one, whose files must still match
their pins; a changed file is a failure that names it (never a traceback); PyPI and npm
keep their versions, so their archives stay pinned too. The ``.deb`` files are real ones
that ``dpkg-deb --build`` makes here."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.emf.corpusfetch import (
    Archive,
    CorpusChanged,
    CorpusUnavailable,
    Pinned,
    Registries,
    extract,
    sha256,
)

METAMODEL = b'<?xml version="1.0"?>\n<ecore:EPackage name="a"/>\n'
CHANGED = b'<?xml version="1.0"?>\n<ecore:EPackage name="b"/>\n'
NAME = "libfake-model-java"


def _deb(folder: Path, version: str, files: dict[str, bytes]) -> Path:
    """A real ``.deb`` of NAME at *version*: a versioned jar holding *files*, and the
    version-less link to it that Debian's Java packages have."""
    root = folder / f"build-{version}"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        f"Package: {NAME}\nVersion: {version}\nArchitecture: all\nMaintainer: t <t@example.org>\n"
        "Description: a fake\n",
        encoding="utf-8",
    )
    java = root / "usr" / "share" / "java"
    java.mkdir(parents=True)
    upstream = version.partition("+")[0]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as jar:
        for name, data in files.items():
            jar.writestr(name, data)
    (java / f"fake-model-{upstream}.jar").write_bytes(buffer.getvalue())
    (java / "fake-model.jar").symlink_to(f"fake-model-{upstream}.jar")
    deb = folder / f"{NAME}_{version}_all.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "--build", str(root), str(deb)], check=True, capture_output=True
    )
    return deb


class FakeApt:
    """A Debian mirror that serves *current* only (``apt-get download NAME`` and
    ``NAME=VERSION`` of that version); ``lists`` says whether ``apt-get update`` has run
    (a fresh machine has no package lists: every download fails before)."""

    def __init__(self, current: Path | None, lists: bool = True) -> None:
        self.current = current
        self.lists = lists
        self.commands: list[str] = []

    def run(self, command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        self.commands.append(" ".join(command))
        if command[:2] == ["apt-get", "update"]:
            self.lists = True
            return subprocess.CompletedProcess(command, 0, "", "")
        wanted = command[2]
        served = self.current.name.split("_")[1] if self.current else None
        if not self.lists or self.current is None:
            return subprocess.CompletedProcess(command, 100, "", f"E: Unable to locate package {wanted}")
        if "=" in wanted and wanted.partition("=")[2] != served:
            version = wanted.partition("=")[2]
            return subprocess.CompletedProcess(
                command, 100, "", f"E: Version '{version}' for '{NAME}' was not found"
            )
        shutil.copy(self.current, cwd / self.current.name)
        return subprocess.CompletedProcess(command, 0, "", "")


@pytest.fixture
def debs(tmp_path: Path) -> Path:
    folder = tmp_path / "mirror"
    folder.mkdir()
    return folder


def _pinned(deb: Path) -> tuple[Archive, dict[str, Pinned]]:
    archive = Archive("debian", NAME, "1.0+eclipse4.26-1", sha256(deb.read_bytes()))
    return archive, {"plugin/model/A.ecore": Pinned(archive, "model/A.ecore", sha256(METAMODEL))}


def test_the_pinned_version_is_taken_when_the_mirror_has_it(debs: Path, tmp_path: Path) -> None:
    deb = _deb(debs, "1.0+eclipse4.26-1", {"model/A.ecore": METAMODEL})
    archive, files = _pinned(deb)
    apt = FakeApt(deb)
    versions = extract(files, tmp_path / "out", Registries(apt.run, True), tmp_path / "cache")
    assert versions == {archive: "1.0+eclipse4.26-1"}
    assert (tmp_path / "out" / "plugin" / "model" / "A.ecore").read_bytes() == METAMODEL
    assert apt.commands == [f"apt-get download {NAME}=1.0+eclipse4.26-1"]
    assert archive.label(versions[archive]) == f"debian {NAME} 1.0+eclipse4.26-1"
    # cached: no registry asked again
    extract(files, tmp_path / "again", Registries(apt.run, True), tmp_path / "cache")
    assert len(apt.commands) == 1


def test_a_replaced_version_is_taken_at_the_current_one_when_its_files_are_the_same(
    debs: Path, tmp_path: Path
) -> None:
    archive, files = _pinned(_deb(debs, "1.0+eclipse4.26-1", {"model/A.ecore": METAMODEL}))
    newer = _deb(debs, "1.1+eclipse4.27-1", {"model/A.ecore": METAMODEL, "model/New.ecore": CHANGED})
    apt = FakeApt(newer, lists=False)  # a fresh machine: no package lists yet
    versions = extract(files, tmp_path / "out", Registries(apt.run, True), tmp_path / "cache")
    assert versions == {archive: "1.1+eclipse4.27-1"}
    assert (tmp_path / "out" / "plugin" / "model" / "A.ecore").read_bytes() == METAMODEL
    assert apt.commands == [
        f"apt-get download {NAME}=1.0+eclipse4.26-1",
        "apt-get update -qq",
        f"apt-get download {NAME}=1.0+eclipse4.26-1",
        f"apt-get download {NAME}",
    ]
    assert archive.label(versions[archive]) == f"debian {NAME} 1.1+eclipse4.27-1 (pinned 1.0+eclipse4.26-1)"
    assert sorted(p.name for p in (tmp_path / "cache" / "debian").iterdir()) == [newer.name]
    # the current version, once cached, is used again without asking the registry
    apt.commands.clear()
    assert extract(files, tmp_path / "again", Registries(apt.run, True), tmp_path / "cache") == versions
    assert apt.commands == []


def test_a_changed_file_fails_naming_it(debs: Path, tmp_path: Path) -> None:
    _, files = _pinned(_deb(debs, "1.0+eclipse4.26-1", {"model/A.ecore": METAMODEL}))
    apt = FakeApt(_deb(debs, "1.1+eclipse4.27-1", {"model/A.ecore": CHANGED}))
    with pytest.raises(CorpusChanged) as failed:
        extract(files, tmp_path / "out", Registries(apt.run, False), tmp_path / "cache")
    assert str(failed.value) == (
        f"corpus file plugin/model/A.ecore changed: debian {NAME} 1.1+eclipse4.27-1 (pinned "
        f"1.0+eclipse4.26-1) gives model/A.ecore with SHA-256 {sha256(CHANGED)}, pinned "
        f"{sha256(METAMODEL)}; check the new file with scripts/emf_corpus.py --registry and update "
        "its pin in tests/emf/realmetamodels.py"
    )
    assert not (tmp_path / "out" / "plugin" / "model" / "A.ecore").exists()


def test_a_file_gone_from_the_package_fails_naming_it(debs: Path, tmp_path: Path) -> None:
    _, files = _pinned(_deb(debs, "1.0+eclipse4.26-1", {"model/A.ecore": METAMODEL}))
    apt = FakeApt(_deb(debs, "2.0+eclipse4.30-1", {"model/Renamed.ecore": METAMODEL}))
    with pytest.raises(
        CorpusChanged, match=rf"^corpus file plugin/model/A.ecore: debian {NAME} 2.0\+eclipse4.30-1 "
    ):
        extract(files, tmp_path / "out", Registries(apt.run, False), tmp_path / "cache")


def test_a_package_the_mirror_does_not_have_is_unavailable(tmp_path: Path) -> None:
    archive = Archive("debian", NAME, "1.0-1", "0" * 64)
    apt = FakeApt(None)
    with pytest.raises(CorpusUnavailable) as failed:
        extract({"a": Pinned(archive, "a", "0" * 64)}, tmp_path / "out", Registries(apt.run, False), tmp_path)
    assert str(failed.value) == (
        f"could not download debian {NAME} 1.0-1: apt-get download {NAME}=1.0-1: E: Unable to locate "
        f"package {NAME}=1.0-1; apt-get download {NAME}: E: Unable to locate package {NAME}"
    )


def _wheel(folder: Path, data: bytes) -> Path:
    wheel = folder / "pyfake-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("pyfake/model.ecore", data)
    return wheel


def test_a_pypi_archive_is_pinned_by_version_and_checksum(tmp_path: Path) -> None:
    good = _wheel(tmp_path, METAMODEL)
    archive = Archive("pypi", "pyfake", "1.0", sha256(good.read_bytes()))
    files = {"pyfake/model.ecore": Pinned(archive, "pyfake/model.ecore", sha256(METAMODEL))}
    asked = []

    def pip(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        asked.append(command[-1])
        shutil.copy(served, cwd / served.name)
        return subprocess.CompletedProcess(command, 0, "", "")

    served = good
    assert extract(files, tmp_path / "out", Registries(pip, False), tmp_path / "cache") == {archive: "1.0"}
    assert asked == ["pyfake==1.0"]
    # another archive under the same version: refused, and not kept in the cache
    os.remove(tmp_path / "cache" / "pypi" / good.name)
    (tmp_path / "other").mkdir()
    served = _wheel(tmp_path / "other", CHANGED)
    with pytest.raises(CorpusChanged) as failed:
        extract(files, tmp_path / "out", Registries(pip, False), tmp_path / "cache")
    assert str(failed.value) == (
        f"pypi pyfake 1.0: the archive's SHA-256 is {sha256(served.read_bytes())}, pinned {archive.sha256}"
    )
    assert list((tmp_path / "cache" / "pypi").iterdir()) == []
