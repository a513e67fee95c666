"""Real metamodels, fetched at test setup and never committed: EMF's own (Debian's
``libeclipse-emf-ecore-java`` jar) and the ESDL energy-system metamodel (the ``pyesdl``
wheel on PyPI, pinned, downloaded with ``pip download --no-deps`` into the corpus cache
``$CFMODEL_CORPUS_DIR``, default ``~/.cache/cfmodel/corpus``). Missing in CI is an error."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import skip_or_fail
from tests.corpus.test_corpus import corpus_dir

JAR = Path("/usr/share/java/eclipse-emf-ecore.jar")
PYESDL = ("pyesdl", "26.10.4")

# name -> the files imported together (the first is the one the case is about)
CASES: dict[str, list[str]] = {
    "Ecore": ["Ecore.ecore"],
    "XMLType": ["XMLType.ecore"],
    "XMLNamespace": ["XMLNamespace.ecore", "XMLType.ecore"],
    "ExtendedMetaData": ["ExtendedMetaData.ecore"],
    "EcoreAnnotation": ["EcoreAnnotation.ecore"],
    "DateConversionDelegateAnnotation": ["DateConversionDelegateAnnotation.ecore"],
    "esdl": ["esdl.ecore"],
}


def emf_jar_models(folder: Path) -> None:
    """Every ``model/*.ecore`` of EMF's Ecore jar, into *folder*."""
    if not JAR.is_file():
        skip_or_fail(f"{JAR} (Debian's libeclipse-emf-ecore-java, scripts/system-packages.txt)")
    with zipfile.ZipFile(JAR) as jar:
        for name in jar.namelist():
            if name.startswith("model/") and name.endswith(".ecore"):
                (folder / Path(name).name).write_bytes(jar.read(name))


def pyesdl_ecore(folder: Path) -> None:
    """``esdl.ecore`` from the pinned pyesdl wheel, into *folder*."""
    package, version = PYESDL
    cache = corpus_dir()
    cache.mkdir(parents=True, exist_ok=True)
    wheel = cache / f"{package}-{version}-py3-none-any.whl"
    if not wheel.is_file():
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--quiet",
                "-d",
                str(cache),
                f"{package}=={version}",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0 or not wheel.is_file():
            skip_or_fail(f"could not download {package}=={version}: {done.stderr.strip()[-500:]}")
    with zipfile.ZipFile(wheel) as archive:
        (folder / "esdl.ecore").write_bytes(archive.read("esdl/esdl.ecore"))


def fetch_all(folder: Path) -> Path:
    """Every metamodel of `CASES` into *folder*; returns it."""
    emf_jar_models(folder)
    pyesdl_ecore(folder)
    return folder
