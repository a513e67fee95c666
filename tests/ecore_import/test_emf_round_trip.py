"""``.ecore → .cf → .ecore`` keeps a metamodel exactly, as EMF itself sees it.

Real metamodels (`tests.emf.realmetamodels`: EMF's own, the change and tree models, XML
Schema's, Eclipse 4's application model from Debian's jars; ESDL from PyPI; the npm
``ecore`` package's) go through ``cfmodel ecore import``, ``cfmodel check`` and
``cfmodel ecore export``; the real EMF then dumps the original and the exported files
structurally (every object with every persistent feature, generic types in full,
references by nsURI and fragment: ``EmfChecker --structure``), and the dumps must be
equal line for line. What ``.cf`` has no construct for travels in ``#@ecore`` comments
(`cfmodel.transforms.cf.ecore_carry`). A metamodel EMF refuses is refused by the
importer too, at the line EMF names.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from cfmodel.errors import CfSerializationError
from cfmodel.transforms.cf.ecore_import import import_ecore
from tests.conftest import run_cfmodel
from tests.emf.emf import EmfChecker
from tests.emf.realmetamodels import METAMODELS, REFUSED_METAMODELS, fetch_all


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fetch_all(tmp_path_factory.mktemp("corpus"))


def _difference(expected: list[str], actual: list[str]) -> str:
    diff = list(
        difflib.unified_diff(expected, actual, "EMF's view of the original", "of the round trip", n=1)
    )
    return "\n".join(diff[:60])


@pytest.mark.parametrize("case", list(METAMODELS))
def test_round_trip_is_the_same_metamodel_for_emf(
    case: str, corpus: Path, emf: EmfChecker, tmp_path: Path
) -> None:
    sources = [corpus / name for name in METAMODELS[case].files]
    originals = emf.check(ecores=sources, structure=True)
    assert originals.clean, originals.problems()
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


@pytest.mark.parametrize("case", list(REFUSED_METAMODELS))
def test_a_metamodel_emf_refuses_is_refused_where_emf_says(
    case: str, corpus: Path, emf: EmfChecker, tmp_path: Path
) -> None:
    metamodel, message = REFUSED_METAMODELS[case]
    source = corpus / metamodel.main
    (error,) = emf.check(ecores=[source], structure=True).of_kind("error")
    line = int(error["message"].rpartition(" at ")[2].split(":")[0])
    with pytest.raises(CfSerializationError) as exc:
        import_ecore([source], tmp_path / "project", name=case)
    assert exc.value.code == "bad-ecore"
    assert exc.value.span is not None and (exc.value.span.file, exc.value.span.line) == (str(source), line)
    assert exc.value.message == message
    assert not (tmp_path / "project").exists()
