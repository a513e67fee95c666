"""Real models (`tests.emf.realmetamodels.MODELS`), saved by the real EMF, written back by
cfmodel in EMF's layout: the same bytes. EMF re-saves each model (and its metamodels) into
a directory of its own; cfmodel reads EMF's files (references to documents EMF did not
re-save lead back into the corpus, allowed by ``root``) and writes each model where EMF
wrote it, without an id function (the ids read are kept, an id given to two objects too,
with a warning, as EMF keeps it)."""

from __future__ import annotations

import difflib
import shutil
import warnings
from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.serializers import ecore, xmi
from tests.emf.emf import EmfChecker
from tests.emf.realmetamodels import MODELS, fetch_all

REPEATED_IDS = {
    "LegacyIDE": [
        "written as read: id '_SeXUEO8EEd6FC9cDb6iV7x' is given to two objects (BindingTable, BindingContext)"
    ]
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fetch_all(tmp_path_factory.mktemp("corpus"))


@pytest.mark.parametrize("case", list(MODELS))
def test_emf_resave_of_a_real_model_is_written_back_byte_for_byte(
    case: str, corpus: Path, emf: EmfChecker, tmp_path: Path
) -> None:
    model = MODELS[case]
    files = [corpus / f for f in model.files]
    report = emf.check(ecores=files[1:], xmis=files[:1], resave_dir=tmp_path, dump=False)
    assert report.of_kind("error") == [], report.problems()
    rset = ResourceSet()
    for f in files[1:]:  # the metamodels as they were, where EMF wrote its copies
        shutil.copy(f, tmp_path / f.name)
        ecore.read(tmp_path / f.name, rset)
    resaved = tmp_path / files[0].name
    doc = xmi.read(resaved, rset, xmi.XmiOptions(root=corpus.parent))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        written = xmi.to_bytes(doc.roots, xmi.XmiOptions(emf_layout=True), location=resaved)
    # an id Eclipse's own file gives to two objects: EMF keeps it, and so does cfmodel (warned)
    assert [str(w.message) for w in caught] == REPEATED_IDS.get(case, [])
    expected = resaved.read_bytes()
    assert written == expected, "\n".join(
        list(
            difflib.unified_diff(
                expected.decode().splitlines(), written.decode().splitlines(), "EMF", "cfmodel", n=1
            )
        )[:40]
    )
