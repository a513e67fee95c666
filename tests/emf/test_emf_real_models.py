"""Real models (`tests.emf.realmetamodels.MODELS`: Eclipse's own application models from
Debian's jars, the npm ``ecore`` package's test models) read by cfmodel's XMI reader
exactly as the real EMF reads them: the canonical dump of cfmodel's reading equals
EMF's, line for line, both against the original metamodel and against the metamodel
after ``ecore import`` and ``ecore export`` (an original model reads against the
re-export; `tests.emf.corpusrun.model_reading`). A model EMF refuses, cfmodel refuses
too, at the line EMF names."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.emf.corpusrun import EQUAL, REFUSED_BY_BOTH, emf_reading, export, model_reading
from tests.emf.emf import EmfChecker, EmfReport
from tests.emf.realmetamodels import MODELS, REFUSED_MODELS, fetch_all


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fetch_all(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def emf_readings(corpus: Path, emf: EmfChecker) -> dict[str, EmfReport]:
    """EMF's reading of every model: one run per set of metamodels."""
    by_metamodels: dict[tuple[str, ...], list[str]] = {}
    for name, case in MODELS.items():
        by_metamodels.setdefault(case.files[1:], []).append(name)
    readings = {}
    for metamodels, names in by_metamodels.items():
        models = [corpus / MODELS[n].main for n in names]
        report = emf_reading(models, [corpus / f for f in metamodels], emf)
        readings.update(dict.fromkeys(names, report))
    return readings


@pytest.fixture(scope="module")
def reexported(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], list[Path]]:
    """The ``.ecore`` files ``ecore import`` + ``ecore export`` make of each set of
    metamodels the models use."""
    out: dict[tuple[str, ...], list[Path]] = {}
    for case in MODELS.values():
        metamodels = case.files[1:]
        if metamodels not in out:
            written, failed = export(
                [corpus / f for f in metamodels], tmp_path_factory.mktemp("re"), "corpus"
            )
            assert failed is None, failed
            out[metamodels] = written
    return out


@pytest.mark.parametrize("case", list(MODELS))
@pytest.mark.parametrize("metamodel", ["original", "reexported"])
def test_real_model_reads_as_emf_reads_it(
    case: str,
    metamodel: str,
    corpus: Path,
    emf_readings: dict[str, EmfReport],
    reexported: dict[tuple[str, ...], list[Path]],
) -> None:
    model = MODELS[case]
    metamodels = (
        [corpus / f for f in model.files[1:]] if metamodel == "original" else reexported[model.files[1:]]
    )
    outcome = model_reading(corpus / model.main, metamodels, emf_readings[case])
    assert (outcome.result, outcome.detail) == (EQUAL, "")
    assert outcome.lines > 3  # EMF read objects, not an empty document


@pytest.mark.parametrize("case", list(REFUSED_MODELS))
def test_a_model_emf_refuses_is_refused_where_emf_says(case: str, corpus: Path, emf: EmfChecker) -> None:
    model, message = REFUSED_MODELS[case]
    metamodels = [corpus / f for f in model.files[1:]]
    outcome = model_reading(
        corpus / model.main, metamodels, emf_reading([corpus / model.main], metamodels, emf)
    )
    assert (outcome.result, outcome.detail) == (REFUSED_BY_BOTH, message)
