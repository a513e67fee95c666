"""``.ecore → .cf → .ecore`` keeps a metamodel exactly, as EMF itself sees it.

Real metamodels (EMF's own from Debian's jar, ESDL from PyPI: `tests.emf.realmetamodels`)
go through ``cfmodel ecore import``, ``cfmodel check`` and ``cfmodel ecore export``; the
real EMF then dumps the original and the exported files structurally (every object with
every persistent feature, generic types in full, references by nsURI and fragment:
``EmfChecker --structure``), and the dumps must be equal line for line. What ``.cf`` has
no construct for travels in ``#@ecore`` comments (`cfmodel.transforms.cf.ecore_carry`).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from cfmodel.transforms.cf.ecore_import import import_ecore
from tests.conftest import run_cfmodel
from tests.emf.emf import EmfChecker, EmfReport
from tests.emf.realmetamodels import CASES, fetch_all


@pytest.fixture(scope="module")
def metamodels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fetch_all(tmp_path_factory.mktemp("metamodels"))


@pytest.fixture(scope="module")
def originals(metamodels: Path, emf: EmfChecker) -> EmfReport:
    files = sorted({name for names in CASES.values() for name in names})
    report = emf.check(ecores=[metamodels / name for name in files], structure=True)
    assert report.clean, report.problems()
    return report


def _difference(expected: list[str], actual: list[str]) -> str:
    diff = list(
        difflib.unified_diff(expected, actual, "EMF's view of the original", "of the round trip", n=1)
    )
    return "\n".join(diff[:60])


@pytest.mark.parametrize("case", list(CASES))
def test_round_trip_is_the_same_metamodel_for_emf(
    case: str, metamodels: Path, originals: EmfReport, emf: EmfChecker, tmp_path: Path
) -> None:
    sources = [metamodels / name for name in CASES[case]]
    project, out = tmp_path / "project", tmp_path / "out"
    import_ecore(sources, project, name=case)
    checked = run_cfmodel("check", str(project), cwd=tmp_path, cache=tmp_path / ".cache")
    assert checked.returncode == 0, checked.stderr
    exported = run_cfmodel(
        "ecore", "export", str(project), "-o", str(out), cwd=tmp_path, cache=tmp_path / ".cache"
    )
    assert exported.returncode == 0, exported.stderr
    written = sorted(out.glob("*.ecore"))
    report = emf.check(ecores=written, structure=True)
    assert report.clean, report.problems()
    by_uri = {}
    for path in written:
        lines = report.structure(path.name)
        by_uri[lines[0].partition("#")[0]] = lines
    for source in sources:
        expected = originals.structure(source.name)
        actual = by_uri.get(expected[0].partition("#")[0], [])
        assert actual == expected, _difference(expected, actual)
