"""``.ecore → .cf → .ecore`` keeps a metamodel exactly, as EMF itself sees it.

Real metamodels (`tests.emf.realmetamodels`: EMF's own, the change and tree models, XML
Schema's, Eclipse 4's application model from Debian's jars; ESDL from PyPI; the npm
``ecore`` package's) go through ``cfmodel ecore import``, ``cfmodel check`` and
``cfmodel ecore export``; the real EMF then dumps the original and the exported files
structurally (every object with every persistent feature, generic types in full,
references by nsURI and fragment: ``EmfChecker --structure``), and the dumps must be
equal line for line (`tests.emf.corpusrun.metamodel_round_trip`). What ``.cf`` has no
construct for travels in ``#@ecore`` comments (`cfmodel.transforms.cf.ecore_carry`). A
metamodel EMF refuses is refused by the importer too, at the line EMF names, and
nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.emf.corpusrun import EQUAL, REFUSED_BY_BOTH, metamodel_round_trip
from tests.emf.emf import EmfChecker
from tests.emf.realmetamodels import METAMODELS, REFUSED_METAMODELS, fetch_all


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fetch_all(tmp_path_factory.mktemp("corpus"))


@pytest.mark.parametrize("case", list(METAMODELS))
def test_round_trip_is_the_same_metamodel_for_emf(
    case: str, corpus: Path, emf: EmfChecker, tmp_path: Path
) -> None:
    sources = [corpus / name for name in METAMODELS[case].files]
    outcome = metamodel_round_trip(sources, emf, tmp_path, case)
    assert (outcome.result, outcome.detail) == (EQUAL, "")
    assert outcome.lines > 10  # EMF dumped the metamodel: no empty comparison


@pytest.mark.parametrize("case", list(REFUSED_METAMODELS))
def test_a_metamodel_emf_refuses_is_refused_where_emf_says(
    case: str, corpus: Path, emf: EmfChecker, tmp_path: Path
) -> None:
    metamodel, message = REFUSED_METAMODELS[case]
    outcome = metamodel_round_trip([corpus / metamodel.main], emf, tmp_path, case)
    assert (outcome.result, outcome.detail) == (REFUSED_BY_BOTH, message)
    assert not (tmp_path / "project").exists()
