"""Real metamodels and real models, fetched from package registries at test setup and
never committed.

Where they come from (downloaded once into the corpus cache ``$CFMODEL_CORPUS_DIR``,
default ``~/.cache/cfmodel/corpus``, with the registry's own client; every file pinned by
the SHA-256 of its bytes, each archive by version, `tests/emf/corpusfetch.py`):

* Debian: EMF's own metamodels from the installed ``libeclipse-emf-ecore-java`` jar
  (`scripts/system-packages.txt`); the change model, EMF.Edit's tree model, XML Schema's
  metamodel and the Eclipse 4 application model (``UIElements``, ``ModelFragment``) with
  three real application models of it (``*.e4xmi``) from ``.deb`` files that
  ``apt-get download`` fetches (never installed; the files are read out of the jars).
  When bookworm replaces a pinned version, the current one is taken and its files must
  still match their pins.
* PyPI: the ESDL energy-system metamodel of the ``pyesdl`` wheel (``pip download``).
* npm: the metamodels and models of the ``ecore`` package's tests and examples
  (``npm pack``): generics, references written as ``<eType href>`` elements, a metamodel
  EMF itself refuses, models with ``href`` to other documents and several roots.

`fetch_all` lays the files out as Eclipse's plugins are laid out, so that what a file
names by relative path (``../../org.eclipse.emf.ecore/model/Ecore.ecore``) is there, for
EMF and for cfmodel alike. A failed download skips locally and fails in CI; content other
than the pinned one always fails, naming the file.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from tests.conftest import skip_or_fail
from tests.corpus.test_corpus import corpus_dir
from tests.emf.corpusfetch import (
    Archive,
    CorpusError,
    CorpusUnavailable,
    Pinned,
    Registries,
    check_pin,
    extract,
)

JAR = Path("/usr/share/java/eclipse-emf-ecore.jar")  # an installed system package
ECORE_PLUGIN = "eclipse/org.eclipse.emf.ecore/model"
T = TypeVar("T")
INSTALLED_EMF = Archive("installed", "libeclipse-emf-ecore-java", "", "")

# the metamodels of EMF's installed Ecore jar (model/NAME in the jar)
JAR_FILES = {
    "DateConversionDelegateAnnotation.ecore": "5f5890cf0605c0777d8492c279cc77a662cd8687434076f0921a26ffa819b6bd",
    "Ecore.ecore": "4ef00e244eda85b2da8670bb5582eb7c8d762d459e3e2c834b228384733c0aa6",
    "EcoreAnnotation.ecore": "6d59f5aa5ec96968dcdf31fa033fe968f3b191dae8d918a851eb64a9977d5650",
    "ExtendedMetaData.ecore": "44191cbcc9f36b1c299f955f670ba4a9be47fd5273f4ab8a8f8711785487c930",
    "XMLNamespace.ecore": "92d8f482deed9d9f26d1352a3f424bac5627c2d8a665423d340c5ddc0854c98f",
    "XMLType.ecore": "a3cf212589fac57c2ec8d4b8fb0a2b8523e5c9f767d24cf322b289bcc3afd736",
}


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

_ECOREJS_TESTS = "package/test/models/"
_ECOREJS_EXAMPLES = "package/examples/"
_E4 = "eclipse/org.eclipse.e4.ui.model.workbench/model/"

# where each file goes in the layout -> its archive, its path there (in a .deb: in one of
# its jars) and the SHA-256 of its bytes
FILES: dict[str, Pinned] = {
    "eclipse/org.eclipse.emf.ecore.change/model/Change.ecore": Pinned(
        CHANGE, "model/Change.ecore", "88ab22d76d92cab00a27d8a04966da6b71855b9f2eba0e19d539e44f87709067"
    ),
    "eclipse/org.eclipse.emf.edit/model/Tree.ecore": Pinned(
        EDIT, "model/Tree.ecore", "93be700d357784a805a9a49001ec746a12abbf9f69d5f9990909a4ff71348422"
    ),
    "eclipse/org.eclipse.xsd/model/XSD.ecore": Pinned(
        XSD, "model/XSD.ecore", "cf18dba97664fa1dcd71e475d2ca76be7e0291380e78264c6f376cb5b034ed33"
    ),
    f"{_E4}UIElements.ecore": Pinned(
        E4_MODEL, "model/UIElements.ecore", "5f15a9c83eeb325e717edc0ca13212341e003e4321d010ef11c8de958148a81f"
    ),
    f"{_E4}ModelFragment.ecore": Pinned(
        E4_MODEL,
        "model/ModelFragment.ecore",
        "a45c69d4b68ca32e96c4c6f15a0f436b2582838e721e62929f4b0e7fbc975a3a",
    ),
    "eclipse/org.eclipse.ui.workbench/LegacyIDE.e4xmi": Pinned(
        UI_WORKBENCH, "LegacyIDE.e4xmi", "fc147fa6a5bf140a07b328b30e338708aba5145835216c53da6e5bb50a98a461"
    ),
    "eclipse/org.eclipse.ui.ide.application/LegacyIDE_fragment.e4xmi": Pinned(
        IDE_APPLICATION,
        "LegacyIDE_fragment.e4xmi",
        "d8a9289ba6408ec303dba6ea08faab9c444966fdd24cc5efced25d991b3ba850",
    ),
    "eclipse/org.eclipse.ui.ide/model/fragment.e4xmi": Pinned(
        IDE, "model/fragment.e4xmi", "8ea5b998dd81338f7cd0042116142adb33247d050c6e4c8e44d656aaee3163a4"
    ),
    "pyesdl/esdl.ecore": Pinned(
        PYESDL, "esdl/esdl.ecore", "4011e41c191260c2d9299f7b9cf7be26984a7a1c7481b00500560ee907d9cbcc"
    ),
    "ecore-js/TestModel.ecore": Pinned(
        ECORE_JS,
        _ECOREJS_EXAMPLES + "xmi_node/TestModel.ecore",
        "8e69a433ff0c3f10ec89bac55dfe40eca8e72a10c4c37cac4c99ace8a3cb2264",
    ),
    "ecore-js/model.xmi": Pinned(
        ECORE_JS,
        _ECOREJS_EXAMPLES + "node/model.xmi",
        "124c0b980890101ad663504f7f8d21a98ceca62b0bfeb5567b444e999c1d6bf9",
    ),
    **{
        f"ecore-js/xmi_node/{name}": Pinned(ECORE_JS, f"{_ECOREJS_EXAMPLES}xmi_node/{name}", digest)
        for name, digest in (
            (
                "multipleInstance.testmodel",
                "5cbc2863443ccf9ec5cb36c191bea25ec69c8cbc27947b466d0bf47eaa7ff67a",
            ),
            ("test1.testmodel", "f4b500e4ea12698b13bbf16dab7c34de3b1b5de317f8e50e73a0c16c608f6b0c"),
            ("test2.testmodel", "f5ea0c2af555d28dc25b22a58aa853494d0b4d4a9c0d5b69d0851a74c7c0ec15"),
            ("test3a.testmodel", "5e001f953d40e9e78bd5af35a37570bf62d4194f968042efefeedba43e8ba097"),
            ("test3b.testmodel", "4e68726cf8905180784dda85359d63bcaf3896a3473030c529914e3e3b9a0a41"),
            ("test3c.testmodel", "030d61590c27a4e971851cf40f79ab5f178d3f6b898f5d5a19359ba0b33a76ec"),
            ("test4a.testmodel", "482f6f32040662a7ddb459437607d95c5ed465988e99e37359a7412ee5ed351b"),
            ("test4b.testmodel", "a3846a42fd0a9e6b0da3ae89147604de7e78fba03da09e35343c902c2abd5eb7"),
        )
    },
    **{
        f"ecore-js/{name}": Pinned(ECORE_JS, _ECOREJS_TESTS + name, digest)
        for name, digest in (
            ("generic.ecore", "cbd146d4a4ba7bae5894ccc34bd0189bec69f1ba03a7ef200cc9b29430b14903"),
            ("test1.xmi", "411e7b811af9ed8f422ee2cc29d1448b349f78fe70463012b11a186b7e6745c5"),
            ("test2.xmi", "c8f8af4fa2526e759b0e53840525a237592349fc522976ab0b6716d307c235a4"),
            ("test3.xmi", "1a332eb44cab3f562f34cdf5adaeb9a0ad3298d3b724028b12153bba34af10dc"),
            ("test5.xmi", "4bfb2184acbefa9ac23f9d352819a44aa9730d8086cf614306547ec35441f1e1"),
            ("test6.xmi", "dd3a2509e66780f2792bcc57b42c9da866e2d86025446ac5bffcd56caa38351f"),
            ("test5-idtest1.xmi", "2db11b122e410e0f849c3aea50ccd76003a1260d9c85732bb95eb26b5a70d924"),
            ("test5-idtest2.xmi", "09b2d7aaac324b3104ff29627809a63a525d37d5cca6bd7c667bf1a76d57646a"),
            ("test5-instance1.xmi", "7d54a52277685019b644c6a60d16bcaac3ed2cc51a88dc3b267c656dcb799f56"),
            ("test5-instance2.xmi", "9c280af78b056ed536aa3c77f78a43cb2459fb40e7033148ff190361bcd91aec"),
            ("test5-instance3a.xmi", "1f20ce440c18c5a6a6ddb7ccb7ed787527c55f3ddf214cb0b83e9530e8d19598"),
            ("test5-instance3b.xmi", "177239c1d64fabda2b1e6110d74e7868fa8b7abd5b39bf33fc335e01215ff92c"),
            ("test5-instance3c.xmi", "497824dca4d3447aa5233b6fa14c21cf3d23cef2391c9b049699a1a21254bae3"),
            ("test5-instance4.xmi", "f2232ac1e32c77a506b19c8f40722019c78bd42172a654d58ff82dd2f637722a"),
            ("test5-instance5a.xmi", "34364fb29b67bd0e5274ea7f1e59bf738c3402f82b0bab9ab44c80ee50aade1f"),
            ("test5-instance5b.xmi", "0eb33eec64b46ef685b7431116614cba59649b57490d0b964c12a8dab3b9d690"),
            ("test5-instance6.xmi", "097c9c94d73f613e9e8c79b063a151101acda2db0ab1afd6118643d9ea3287b1"),
            (
                "test5-multipleinstances.xmi",
                "3ac864b39b56ec364d701cdaa86b1f8c55448c2ded65a692a59bf5a22cf8f9ca",
            ),
        )
    },
}


@dataclass(frozen=True)
class Case:
    """Files of the layout read together (the first is the one the case is about), and
    the archive the first comes from."""

    files: tuple[str, ...]
    archive: Archive

    @property
    def main(self) -> str:
        return self.files[0]

    def source(self, versions: dict[Archive, str] | None = None) -> str:
        """Where the case's file comes from (with the version served, when given)."""
        if self.archive is INSTALLED_EMF:
            return f"debian {self.archive.name} (installed: {JAR.name})"
        return self.archive.label((versions or {}).get(self.archive))


_EMF = INSTALLED_EMF

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
    "Change": Case(("eclipse/org.eclipse.emf.ecore.change/model/Change.ecore",), CHANGE),
    "Tree": Case(("eclipse/org.eclipse.emf.edit/model/Tree.ecore",), EDIT),
    "XSD": Case(("eclipse/org.eclipse.xsd/model/XSD.ecore",), XSD),
    "UIElements": Case((f"{_E4}UIElements.ecore",), E4_MODEL),
    "ModelFragment": Case((f"{_E4}ModelFragment.ecore", f"{_E4}UIElements.ecore"), E4_MODEL),
    "esdl": Case(("pyesdl/esdl.ecore",), PYESDL),
    "ecorejs-generic": Case(("ecore-js/generic.ecore",), ECORE_JS),
    "ecorejs-TestModel": Case(("ecore-js/TestModel.ecore",), ECORE_JS),
    "ecorejs-model": Case(("ecore-js/model.xmi",), ECORE_JS),
    "ecorejs-test1": Case(("ecore-js/test1.xmi",), ECORE_JS),
    "ecorejs-test2": Case(("ecore-js/test2.xmi",), ECORE_JS),
    "ecorejs-test3": Case(("ecore-js/test3.xmi",), ECORE_JS),
    "ecorejs-test5": Case(("ecore-js/test5.xmi",), ECORE_JS),
}

# metamodels EMF itself refuses: cfmodel refuses them too, at the line EMF names
REFUSED_METAMODELS: dict[str, tuple[Case, str]] = {
    "ecorejs-test6": (Case(("ecore-js/test6.xmi",), ECORE_JS), "unresolved reference '#//Invalid'"),
}

_TEST5 = ("ecore-js/test5.xmi",)
_TESTMODEL = ("ecore-js/TestModel.ecore",)
# real models -> the metamodel files they are instances of (read as EMF reads them)
MODELS: dict[str, Case] = {
    "LegacyIDE": Case(
        ("eclipse/org.eclipse.ui.workbench/LegacyIDE.e4xmi", f"{_E4}UIElements.ecore"), UI_WORKBENCH
    ),
    "LegacyIDE_fragment": Case(
        (
            "eclipse/org.eclipse.ui.ide.application/LegacyIDE_fragment.e4xmi",
            f"{_E4}UIElements.ecore",
            f"{_E4}ModelFragment.ecore",
        ),
        IDE_APPLICATION,
    ),
    "ide-fragment": Case(
        (
            "eclipse/org.eclipse.ui.ide/model/fragment.e4xmi",
            f"{_E4}UIElements.ecore",
            f"{_E4}ModelFragment.ecore",
        ),
        IDE,
    ),
    **{
        f"ecorejs-{name}": Case((f"ecore-js/{name}.xmi", *_TEST5), ECORE_JS)
        for name in (
            "test5-idtest1",
            "test5-idtest2",  # href to test5-idtest1.xmi, by id
            "test5-instance1",
            "test5-instance2",
            "test5-instance3a",
            "test5-instance3b",
            "test5-instance3c",  # hrefs to two other documents' roots
            "test5-instance5a",
            "test5-instance5b",  # an attribute's value written as an element
            "test5-instance6",  # escaped markup in values
        )
    },
    "ecorejs-test5-multipleinstances": Case(
        ("ecore-js/test5-multipleinstances.xmi", *_TEST5, "ecore-js/test1.xmi"), ECORE_JS
    ),
    # the ecore package's example models of TestModel.ecore
    **{
        f"ecorejs-{name}": Case((f"ecore-js/xmi_node/{name}.testmodel", *_TESTMODEL), ECORE_JS)
        for name in (
            "test1",  # subclasses in a containment
            "test2",
            "test3a",
            "test3b",
            "test3c",  # hrefs to the roots of test3a and test3b, by relative path
            "test4a",
            "test4b",  # a value written as an element
            "multipleInstance",  # several roots, references as "/1 /2"
        )
    },
}

# models EMF itself refuses: cfmodel refuses them too
REFUSED_MODELS: dict[str, tuple[Case, str]] = {
    "ecorejs-test5-instance4": (
        Case(("ecore-js/test5-instance4.xmi", *_TEST5), ECORE_JS),
        "class 'invalidItem' not found in http://www.example.org/test5",
    ),
}


# ---------------------------------------------------------------------- laying out


def emf_jar_models(folder: Path) -> None:
    """The metamodels of EMF's installed Ecore jar (`JAR_FILES`) into *folder*, each
    checked against its pin (`CorpusChanged` when the installed package has others)."""
    if not JAR.is_file():
        raise CorpusUnavailable(f"{JAR} (Debian's libeclipse-emf-ecore-java, scripts/system-packages.txt)")
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(JAR) as jar:
        for name, digest in JAR_FILES.items():
            member = f"model/{name}"
            found = jar.read(member) if member in jar.NameToInfo else None
            pinned = Pinned(INSTALLED_EMF, member, digest)
            data = check_pin(f"{ECORE_PLUGIN}/{name}", pinned, found, f"the installed {JAR}")
            (folder / name).write_bytes(data)


def lay_out(folder: Path, registries: Registries | None = None) -> dict[Archive, str]:
    """Every file of the corpus into *folder*, laid out as described above; the version
    each archive was taken at. Raises `CorpusError` (`CorpusUnavailable`, `CorpusChanged`)."""
    emf_jar_models(folder / ECORE_PLUGIN)
    return extract(FILES, folder, registries or Registries(), corpus_dir())


def for_tests(lay: Callable[[], T]) -> T:
    """What *lay* returns, or a skip (locally) or failure (in CI) when an archive cannot be
    had, and always a failure, without a traceback, when a file is not the pinned one."""
    try:
        return lay()
    except CorpusUnavailable as exc:
        skip_or_fail(str(exc))
        raise  # skip_or_fail does not return
    except CorpusError as exc:  # CorpusChanged
        pytest.fail(str(exc), pytrace=False)


def fetch_all(folder: Path) -> Path:
    """`lay_out` for the tests (`for_tests`): *folder*, with the corpus in it."""
    for_tests(lambda: lay_out(folder))
    return folder
