"""Real metamodels and real models, fetched from package registries at test setup and
never committed.

Where they come from (each archive pinned by version and SHA-256, downloaded once into
the corpus cache ``$CFMODEL_CORPUS_DIR``, default ``~/.cache/cfmodel/corpus``, with the
registry's own client):

* Debian: EMF's own metamodels from the installed ``libeclipse-emf-ecore-java`` jar
  (`scripts/system-packages.txt`); the change model, EMF.Edit's tree model, XML Schema's
  metamodel and the Eclipse 4 application model (``UIElements``, ``ModelFragment``) with
  three real application models of it (``*.e4xmi``) from ``.deb`` files that
  ``apt-get download`` fetches (never installed; the files are read out of the jars).
* PyPI: the ESDL energy-system metamodel of the ``pyesdl`` wheel (``pip download``).
* npm: the metamodels and models of the ``ecore`` package's tests and examples
  (``npm pack``): generics, references written as ``<eType href>`` elements, a metamodel
  EMF itself refuses, models with ``href``s to other documents and several roots.

`fetch_all` lays the files out as Eclipse's plugins are laid out, so that what a file
names by relative path (``../../org.eclipse.emf.ecore/model/Ecore.ecore``) is there, for
EMF and for cfmodel alike. In CI a failed download or a changed checksum is an error.
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import skip_or_fail
from tests.corpus.test_corpus import corpus_dir

JAR = Path("/usr/share/java/eclipse-emf-ecore.jar")  # an installed system package
ECORE_PLUGIN = "eclipse/org.eclipse.emf.ecore/model"


@dataclass(frozen=True)
class Archive:
    """One pinned download: a Debian ``.deb``, a PyPI wheel or an npm tarball."""

    registry: str  # "debian", "pypi" or "npm"
    name: str
    version: str
    sha256: str

    @property
    def label(self) -> str:
        return f"{self.registry} {self.name} {self.version}"

    @property
    def file_name(self) -> str:
        if self.registry == "debian":
            return f"{self.name}_{self.version.replace(':', '%3a')}_all.deb"
        if self.registry == "pypi":
            return f"{self.name}-{self.version}-py3-none-any.whl"
        return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"


def _deb(name: str, version: str, sha256: str) -> Archive:
    return Archive("debian", name, version, sha256)


CHANGE = _deb(
    "libeclipse-emf-ecore-change-java",
    "2.14.0+eclipse2.32.0+dfsg-1",
    "656bed27ee8ce61a9ffd8480c37f5c64876fb5d7f1abb431296206d313cece00",
)
EDIT = _deb(
    "libeclipse-emf-edit-java",
    "2.17.0+eclipse2.32.0+dfsg-1",
    "749f02758caeb76656a6851da6b2c9874ed20acc6bb121a25f965c70171f7d9f",
)
XSD = _deb(
    "libeclipse-xsd-java",
    "2.17.0+eclipse2.22.0-2",
    "fcf60b527658203c7a7b46da6733149b85a31e77799bde5615f64b4e4f572ae8",
)
E4_MODEL = _deb(
    "libeclipse-e4-ui-model-workbench-java",
    "2.2.300+eclipse4.26-1",
    "c04d681b7f54b3d2016bc8feec04796175839e062e474a27ddec349d1c12063a",
)
UI_WORKBENCH = _deb(
    "libeclipse-ui-workbench-java",
    "3.127.0+eclipse4.26-1",
    "73d5606b89f1b3980053802b12e28b505fe5ec761fe5400b393a887023ad033d",
)
IDE_APPLICATION = _deb(
    "libeclipse-ui-ide-application-java",
    "1.4.600+eclipse4.26-1",
    "2241d302d99ffcd2145af52921f8a0365d997252ebb95fa6f3aa0d052cff4128",
)
IDE = _deb(
    "libeclipse-ui-ide-java",
    "3.20.0+eclipse4.26-1",
    "4b5e0b6d12ccab047a08136847bdcd6562462d2ea99a8b42493e940114c5e0d9",
)
PYESDL = Archive(
    "pypi", "pyesdl", "26.10.4", "d866935e346f610eefff2b93fee0c5303b089c8885cd7f1a0e86ed06c578057c"
)
ECORE_JS = Archive(
    "npm", "ecore", "0.12.0", "079271c0301103534eca75145ead6b4be97f13d6138bcc2c5258948e4bf7dbd6"
)

# where each file goes in the layout <- (archive, the jar inside a .deb or None, member)
_DEB_JARS = {
    CHANGE: "usr/share/java/eclipse-emf-ecore-change-2.14.0.jar",
    EDIT: "usr/share/java/eclipse-emf-edit-2.17.0.jar",
    XSD: "usr/share/java/eclipse-xsd-2.17.0.jar",
    E4_MODEL: "usr/share/java/eclipse-e4-ui-model-workbench-2.2.300.jar",
    UI_WORKBENCH: "usr/share/java/eclipse-ui-workbench-3.127.0.jar",
    IDE_APPLICATION: "usr/share/java/eclipse-ui-ide-application-1.4.600.jar",
    IDE: "usr/share/java/eclipse-ui-ide-3.20.0.jar",
}
_ECOREJS_TESTS = "package/test/models/"
FILES: dict[str, tuple[Archive, str]] = {
    "eclipse/org.eclipse.emf.ecore.change/model/Change.ecore": (CHANGE, "model/Change.ecore"),
    "eclipse/org.eclipse.emf.edit/model/Tree.ecore": (EDIT, "model/Tree.ecore"),
    "eclipse/org.eclipse.xsd/model/XSD.ecore": (XSD, "model/XSD.ecore"),
    "eclipse/org.eclipse.e4.ui.model.workbench/model/UIElements.ecore": (E4_MODEL, "model/UIElements.ecore"),
    "eclipse/org.eclipse.e4.ui.model.workbench/model/ModelFragment.ecore": (
        E4_MODEL,
        "model/ModelFragment.ecore",
    ),
    "eclipse/org.eclipse.ui.workbench/LegacyIDE.e4xmi": (UI_WORKBENCH, "LegacyIDE.e4xmi"),
    "eclipse/org.eclipse.ui.ide.application/LegacyIDE_fragment.e4xmi": (
        IDE_APPLICATION,
        "LegacyIDE_fragment.e4xmi",
    ),
    "eclipse/org.eclipse.ui.ide/model/fragment.e4xmi": (IDE, "model/fragment.e4xmi"),
    "pyesdl/esdl.ecore": (PYESDL, "esdl/esdl.ecore"),
    "ecore-js/TestModel.ecore": (ECORE_JS, "package/examples/xmi_node/TestModel.ecore"),
    **{
        f"ecore-js/{name}": (ECORE_JS, _ECOREJS_TESTS + name)
        for name in (
            "generic.ecore",
            "test1.xmi",
            "test2.xmi",
            "test3.xmi",
            "test5.xmi",
            "test6.xmi",
            "test5-idtest1.xmi",
            "test5-idtest2.xmi",
            "test5-instance1.xmi",
            "test5-instance2.xmi",
            "test5-instance3a.xmi",
            "test5-instance3b.xmi",
            "test5-instance3c.xmi",
            "test5-instance4.xmi",
            "test5-instance5a.xmi",
            "test5-instance5b.xmi",
            "test5-instance6.xmi",
            "test5-multipleinstances.xmi",
        )
    },
}


@dataclass(frozen=True)
class Case:
    """Files of the layout read together (the first is the one the case is about)."""

    files: tuple[str, ...]
    source: str

    @property
    def main(self) -> str:
        return self.files[0]


_EMF = f"debian libeclipse-emf-ecore-java (installed: {JAR.name})"
_E4 = "eclipse/org.eclipse.e4.ui.model.workbench/model/"

# metamodels: import -> check -> export -> EMF structural comparison
METAMODELS: dict[str, Case] = {
    "Ecore": Case((f"{ECORE_PLUGIN}/Ecore.ecore",), _EMF),
    "XMLType": Case((f"{ECORE_PLUGIN}/XMLType.ecore",), _EMF),
    "XMLNamespace": Case((f"{ECORE_PLUGIN}/XMLNamespace.ecore", f"{ECORE_PLUGIN}/XMLType.ecore"), _EMF),
    "ExtendedMetaData": Case((f"{ECORE_PLUGIN}/ExtendedMetaData.ecore",), _EMF),
    "EcoreAnnotation": Case((f"{ECORE_PLUGIN}/EcoreAnnotation.ecore",), _EMF),
    "DateConversionDelegateAnnotation": Case(
        (f"{ECORE_PLUGIN}/DateConversionDelegateAnnotation.ecore",), _EMF
    ),
    "Change": Case(("eclipse/org.eclipse.emf.ecore.change/model/Change.ecore",), CHANGE.label),
    "Tree": Case(("eclipse/org.eclipse.emf.edit/model/Tree.ecore",), EDIT.label),
    "XSD": Case(("eclipse/org.eclipse.xsd/model/XSD.ecore",), XSD.label),
    "UIElements": Case((f"{_E4}UIElements.ecore",), E4_MODEL.label),
    "ModelFragment": Case((f"{_E4}ModelFragment.ecore", f"{_E4}UIElements.ecore"), E4_MODEL.label),
    "esdl": Case(("pyesdl/esdl.ecore",), PYESDL.label),
    "ecorejs-generic": Case(("ecore-js/generic.ecore",), ECORE_JS.label),
    "ecorejs-TestModel": Case(("ecore-js/TestModel.ecore",), ECORE_JS.label),
    "ecorejs-test1": Case(("ecore-js/test1.xmi",), ECORE_JS.label),
    "ecorejs-test2": Case(("ecore-js/test2.xmi",), ECORE_JS.label),
    "ecorejs-test3": Case(("ecore-js/test3.xmi",), ECORE_JS.label),
    "ecorejs-test5": Case(("ecore-js/test5.xmi",), ECORE_JS.label),
}

# metamodels EMF itself refuses: cfmodel refuses them too, at the line EMF names
REFUSED_METAMODELS: dict[str, tuple[Case, str]] = {
    "ecorejs-test6": (Case(("ecore-js/test6.xmi",), ECORE_JS.label), "unresolved reference '#//Invalid'"),
}

_TEST5 = ("ecore-js/test5.xmi",)
# real models -> the metamodel files they are instances of (read as EMF reads them)
MODELS: dict[str, Case] = {
    "LegacyIDE": Case(
        ("eclipse/org.eclipse.ui.workbench/LegacyIDE.e4xmi", f"{_E4}UIElements.ecore"), UI_WORKBENCH.label
    ),
    "LegacyIDE_fragment": Case(
        (
            "eclipse/org.eclipse.ui.ide.application/LegacyIDE_fragment.e4xmi",
            f"{_E4}UIElements.ecore",
            f"{_E4}ModelFragment.ecore",
        ),
        IDE_APPLICATION.label,
    ),
    "ide-fragment": Case(
        (
            "eclipse/org.eclipse.ui.ide/model/fragment.e4xmi",
            f"{_E4}UIElements.ecore",
            f"{_E4}ModelFragment.ecore",
        ),
        IDE.label,
    ),
    **{
        f"ecorejs-{name}": Case((f"ecore-js/{name}.xmi", *_TEST5), ECORE_JS.label)
        for name in (
            "test5-idtest2",  # href to test5-idtest1.xmi, by id
            "test5-instance1",
            "test5-instance2",
            "test5-instance3c",  # hrefs to two other documents' roots
            "test5-instance5a",
            "test5-instance5b",  # an attribute's value written as an element
            "test5-instance6",  # escaped markup in values
        )
    },
    "ecorejs-test5-multipleinstances": Case(
        ("ecore-js/test5-multipleinstances.xmi", *_TEST5, "ecore-js/test1.xmi"), ECORE_JS.label
    ),
}

# models EMF itself refuses: cfmodel refuses them too
REFUSED_MODELS: dict[str, tuple[Case, str]] = {
    "ecorejs-test5-instance4": (
        Case(("ecore-js/test5-instance4.xmi", *_TEST5), ECORE_JS.label),
        "class 'invalidItem' not found in http://www.example.org/test5",
    ),
}


# ---------------------------------------------------------------------- fetching


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)


def _download(archive: Archive, folder: Path) -> subprocess.CompletedProcess[str]:
    if archive.registry == "debian":
        wanted = f"{archive.name}={archive.version}"
        done = _run(["apt-get", "download", wanted], folder)
        if done.returncode != 0 and os.geteuid() == 0:  # a fresh machine has no package lists
            _run(["apt-get", "update", "-qq"], folder)
            done = _run(["apt-get", "download", wanted], folder)
        return done
    if archive.registry == "pypi":
        pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder)]
        return _run([*pip, f"{archive.name}=={archive.version}"], folder)
    return _run(["npm", "pack", "--silent", f"{archive.name}@{archive.version}"], folder)


def fetch(archive: Archive) -> Path:
    """The archive in the corpus cache, downloaded if missing; its checksum checked."""
    folder = corpus_dir() / archive.registry
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / archive.file_name
    if not path.is_file():
        try:
            done = _download(archive, folder)
        except (OSError, subprocess.TimeoutExpired) as exc:
            skip_or_fail(f"could not download {archive.label}: {exc}")
        if done.returncode != 0 or not path.is_file():
            skip_or_fail(f"could not download {archive.label}: {done.stderr.strip()[-500:]}")
    found = _sha256(path)
    if found != archive.sha256:
        skip_or_fail(f"{path}: SHA-256 {found}, pinned {archive.sha256} ({archive.label})")
    return path


def _deb_member(deb: Path, member: str) -> bytes:
    """One file of a ``.deb``'s data (through ``dpkg-deb``, which every Debian has)."""
    done = subprocess.run(
        ["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, timeout=600, check=False
    )
    if done.returncode != 0:
        skip_or_fail(f"dpkg-deb cannot read {deb}: {done.stderr.decode(errors='replace')[-300:]}")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as data:
        extracted = data.extractfile(f"./{member}")
        assert extracted is not None, f"{member} is not a file in {deb}"
        return extracted.read()


def _member(archive: Archive, path: Path, member: str, jars: dict[Archive, zipfile.ZipFile]) -> bytes:
    if archive.registry == "debian":
        if archive not in jars:
            jars[archive] = zipfile.ZipFile(io.BytesIO(_deb_member(path, _DEB_JARS[archive])))
        return jars[archive].read(member)
    if archive.registry == "pypi":
        with zipfile.ZipFile(path) as wheel:
            return wheel.read(member)
    with tarfile.open(path) as tgz:
        extracted = tgz.extractfile(member)
        assert extracted is not None, f"{member} is not a file in {path}"
        return extracted.read()


def emf_jar_models(folder: Path) -> None:
    """Every ``model/*.ecore`` of EMF's installed Ecore jar, into *folder*."""
    if not JAR.is_file():
        skip_or_fail(f"{JAR} (Debian's libeclipse-emf-ecore-java, scripts/system-packages.txt)")
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(JAR) as jar:
        for name in jar.namelist():
            if name.startswith("model/") and name.endswith(".ecore"):
                (folder / Path(name).name).write_bytes(jar.read(name))


def fetch_all(folder: Path) -> Path:
    """Every file of the corpus into *folder*, laid out as described above; returns it."""
    emf_jar_models(folder / ECORE_PLUGIN)
    archives = {archive: fetch(archive) for archive, _ in FILES.values()}
    jars: dict[Archive, zipfile.ZipFile] = {}
    for target, (archive, member) in FILES.items():
        out = folder / target
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(_member(archive, archives[archive], member, jars))
    return folder
