"""Real models (`tests.emf.realmetamodels.MODELS`: Eclipse's own application models from
Debian's jars, the npm ``ecore`` package's test models) read by cfmodel's XMI reader
exactly as the real EMF reads them: the canonical dump of cfmodel's reading equals
EMF's, line for line, both against the original metamodel and against the metamodel
after ``ecore import`` and ``ecore export`` (an original model reads against the
re-export). A model EMF refuses, cfmodel refuses too."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, ecore, xmi
from cfmodel.transforms.cf.ecore_import import import_ecore, read_ecore_files
from tests.conftest import run_cfmodel
from tests.emf.emf import EmfChecker, EmfReport
from tests.emf.realmetamodels import MODELS, REFUSED_MODELS, Case, fetch_all


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
        report = emf.check(
            ecores=[corpus / f for f in metamodels], xmis=[corpus / MODELS[n].main for n in names]
        )
        for name in names:
            readings[name] = report
    return readings


@pytest.fixture(scope="module")
def reexported(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], list[Path]]:
    """The ``.ecore`` files ``ecore import`` + ``ecore export`` make of each set of
    metamodels the models use."""
    out: dict[tuple[str, ...], list[Path]] = {}
    for case in MODELS.values():
        metamodels = case.files[1:]
        if metamodels in out:
            continue
        work = tmp_path_factory.mktemp("reexport")
        import_ecore([corpus / f for f in metamodels], work / "project", name="corpus")
        done = run_cfmodel("ecore", "export", "project", "-o", "out", cwd=work, cache=work / ".cache")
        assert done.returncode == 0, done.stderr
        out[metamodels] = sorted((work / "out").glob("*.ecore"))
    return out


def _read(case: Case, corpus: Path, metamodels: list[Path] | None) -> list[str]:
    rset = ResourceSet()
    if metamodels is None:
        for f in case.files[1:]:
            ecore.read(corpus / f, rset)
    else:
        read_ecore_files(metamodels, rset)
    doc = xmi.read(corpus / case.main, rset)
    return canonical.dump_objects(doc.roots, doc.ids)


def _difference(expected: list[str], actual: list[str]) -> str:
    return "\n".join(list(difflib.unified_diff(expected, actual, "EMF", "cfmodel", n=1))[:60])


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
    report = emf_readings[case]
    assert report.clean, report.problems()
    expected = report.dump(Path(model.main).name)
    assert len(expected) > 3  # EMF read objects, not an empty document
    actual = _read(model, corpus, None if metamodel == "original" else reexported[model.files[1:]])
    assert actual == expected, _difference(expected, actual)


@pytest.mark.parametrize("case", list(REFUSED_MODELS))
def test_a_model_emf_refuses_is_refused_where_emf_says(case: str, corpus: Path, emf: EmfChecker) -> None:
    model, message = REFUSED_MODELS[case]
    report = emf.check(ecores=[corpus / f for f in model.files[1:]], xmis=[corpus / model.main])
    (error,) = report.of_kind("error")
    line = int(error["message"].rpartition(" at ")[2].split(":")[0])
    with pytest.raises(CfSerializationError) as exc:
        _read(model, corpus, None)
    assert exc.value.span is not None and (exc.value.span.file, exc.value.span.line) == (
        str(corpus / model.main),
        line,
    )
    assert exc.value.message == message
