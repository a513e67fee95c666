"""``scripts/emf_corpus.py DIR``: a corpus kept anywhere is run as the tests run the
registry corpus. Its cases are found in the folder (metamodels with the files defining
the nsURIs they use; models with the metamodels their namespaces name), and the table
says each outcome; the exit status is 1 when a case is neither equal nor refused by both.
``--registry`` whose corpus cannot be laid out (a download fails, a file changed) says
why in one line and exits 2."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pyecore.ecore import EAttribute, EClass, EPackage, EReference, EString

from cfmodel.serializers import ecore
from tests.emf import realmetamodels
from tests.emf.corpusfetch import CorpusChanged

from .emf import EmfChecker

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "emf_corpus.py"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("emf_corpus_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _folder(root: Path) -> Path:
    base = EPackage("base", nsURI="http://example.org/base", nsPrefix="base")
    named = EClass("Named", abstract=True)
    named.eStructuralFeatures.append(EAttribute("name", EString))
    base.eClassifiers.append(named)
    shop = EPackage("shop", nsURI="http://example.org/shop", nsPrefix="shop")
    item = EClass("Item", superclass=(named,))
    item.eStructuralFeatures.append(EReference("parts", item, upper=-1, containment=True))
    shop.eClassifiers.append(item)
    (root / "mm").mkdir(parents=True)
    ecore.write(root / "mm" / "base.ecore", base)
    ecore.write(root / "mm" / "shop.ecore", shop)
    (root / "models").mkdir()
    (root / "models" / "cart.xmi").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<shop:Item xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" xmlns:shop="http://example.org/shop"'
        ' name="cart">\n  <parts name="apple"/>\n</shop:Item>\n',
        encoding="utf-8",
    )
    (root / "models" / "broken.xmi").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<shop:Item xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" xmlns:shop="http://example.org/shop"'
        ' name="cart">\n  <parts xsi:type="shop:Nothing" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>\n'
        "</shop:Item>\n",
        encoding="utf-8",
    )
    (root / "notes.txt").write_text("not a model\n", encoding="utf-8")
    return root


def test_cases_are_found_in_a_folder(script: ModuleType, tmp_path: Path) -> None:
    folder = _folder(tmp_path / "corpus")
    rows = [
        (r.kind, r.name, [str(m.relative_to(folder)) for m in r.metamodels])
        for r in script.rows_of_folder(folder)
    ]
    assert rows == [
        ("metamodel", "mm/base.ecore", ["mm/base.ecore"]),
        ("metamodel", "mm/shop.ecore", ["mm/shop.ecore", "mm/base.ecore"]),
        ("model", "models/broken.xmi", ["mm/shop.ecore", "mm/base.ecore"]),
        ("model", "models/cart.xmi", ["mm/shop.ecore", "mm/base.ecore"]),
    ]


def test_the_table_says_each_outcome(
    script: ModuleType, emf: EmfChecker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path / "corpus")
    assert script.main([str(folder)]) == 0
    printed = capsys.readouterr().out.splitlines()
    results = {
        line.split(" | ")[1]: line.rsplit(" | ", 1)[1].rstrip(" |")
        for line in printed
        if line.startswith("| m")
    }
    assert results == {
        "mm/base.ecore": "round trip: equal",
        "mm/shop.ecore": "round trip: equal",
        "models/cart.xmi": "original: equal; re-export: equal",
        "models/broken.xmi": "original: refused by both (class 'Nothing' not found in http://example.org/shop); "
        "re-export: refused by both (class 'Nothing' not found in http://example.org/shop)",
    }
    sizes = {line.split(" | ")[1]: line.split(" | ")[4:6] for line in printed if line.startswith("| m")}
    assert sizes["models/cart.xmi"] == ["2", "6"]  # objects and dump lines as EMF reads them
    assert printed[-1] == "4 of 4 cases equal or refused by both"
    # a metamodel EMF takes and cfmodel cannot keep (eKeys): said, and the exit status is 1
    keys = (folder / "mm" / "base.ecore").read_text(encoding="utf-8")
    keys = keys.replace('name="base"', 'name="keys"').replace("example.org/base", "example.org/keys")
    keys = keys.replace(
        "</eClassifiers>",
        '<eStructuralFeatures xsi:type="ecore:EReference" name="next" eType="#//Named" eKeys="#//Named/name"/></eClassifiers>',
    )
    (folder / "mm" / "keys.ecore").write_text(keys, encoding="utf-8")
    (folder / "mm" / "shop.ecore").unlink()  # the models' metamodel is gone: they are no cases
    assert script.main([str(folder)]) == 1
    printed = capsys.readouterr().out.splitlines()
    (keys_row,) = [line for line in printed if "keys.ecore" in line]
    assert "round trip: cfmodel refuses" in keys_row and "eKeys cannot be kept" in keys_row
    assert printed[-1] == "1 of 2 cases equal or refused by both"


def test_a_registry_corpus_that_cannot_be_laid_out_is_said_in_one_line(
    script: ModuleType, emf: EmfChecker, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    said = "corpus file pyesdl/esdl.ecore changed: pypi pyesdl 26.10.4 gives esdl/esdl.ecore with SHA-256 1…"

    def changed(folder: Path, registries: object = None) -> None:
        raise CorpusChanged(said)

    monkeypatch.setattr(realmetamodels, "lay_out", changed)
    assert script.main(["--registry"]) == 2
    printed = capsys.readouterr()
    assert (printed.out, printed.err) == ("", f"emf_corpus: {said}\n")
