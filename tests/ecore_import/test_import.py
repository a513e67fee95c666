""".ecore → .cf: the reverse direction, its golden output, and the round trip
``.cf → .ecore → .cf → .ecore`` (the second .ecore byte-identical to the first) on the
rich fixture, the bundled example, the real corpus and a metamodel written for EMF."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cfmodel.errors import CfSerializationError, CfUsageError
from cfmodel.serializers import canonical
from cfmodel.transforms.cf.ecore_import import import_ecore, read_ecore_files
from tests.emf.emf import EmfChecker
from tests.lift.helpers import RICH, WEBSHOP, lifted
from tests.resolve.corpus_project import build_corpus_project

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
LIBRARY = HERE / "fixtures" / "library.ecore"


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def round_trip(project: Path, tmp_path: Path) -> tuple[dict[str, bytes], dict[str, bytes], Path, Path]:
    """Lift *project* (A), import A, lift that (B), import B; return A, B and both imports."""
    first = lifted(project).write(tmp_path / "a")
    import_ecore(first, tmp_path / "cf1", name="roundtrip")
    second = lifted(tmp_path / "cf1").write(tmp_path / "b")
    import_ecore(second, tmp_path / "cf2", name="roundtrip")
    return files_of(tmp_path / "a"), files_of(tmp_path / "b"), tmp_path / "cf1", tmp_path / "cf2"


@pytest.mark.parametrize("project", [RICH, WEBSHOP], ids=["rich", "webshop"])
def test_round_trip_is_stable(project: Path, tmp_path: Path) -> None:
    a, b, cf1, cf2 = round_trip(project, tmp_path)
    assert list(a) == list(b)
    for name in a:
        assert a[name] == b[name], name
    assert files_of(cf1) == files_of(cf2)


@pytest.mark.corpus
def test_round_trip_of_the_corpus_is_stable(tmp_path: Path) -> None:
    build_corpus_project(tmp_path / "corpus")
    a, b, cf1, cf2 = round_trip(tmp_path / "corpus", tmp_path)
    assert len(a) == 16 and a == b  # 15 .ecore files and the export's manifest
    assert files_of(cf1) == files_of(cf2)
    assert "libs/std/model/_init.cf" in files_of(cf1)  # Inmanta's std is not cfmodel's: it is written


@pytest.mark.parametrize("source", ["rich", "library"])
def test_import_is_golden(source: str, tmp_path: Path, update_golden: bool) -> None:
    paths = lifted(RICH).write(tmp_path / "ecore") if source == "rich" else [LIBRARY]
    import_ecore(paths, tmp_path / "out", name=source)
    actual = files_of(tmp_path / "out")
    golden = GOLDEN / source
    if update_golden:
        shutil.rmtree(golden, ignore_errors=True)
        for name, data in actual.items():
            (golden / name).parent.mkdir(parents=True, exist_ok=True)
            (golden / name).write_bytes(data)
    assert {k: v.decode() for k, v in actual.items()} == {k: v.decode() for k, v in files_of(golden).items()}


def test_a_metamodel_written_for_emf_becomes_stable_after_one_cycle(tmp_path: Path) -> None:
    import_ecore([LIBRARY], tmp_path / "cf1")
    first = lifted(tmp_path / "cf1").write(tmp_path / "a")
    import_ecore(first, tmp_path / "cf2", name="x")
    lifted(tmp_path / "cf2").write(tmp_path / "b")
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")


def test_emf_resaves_import_the_same(emf: EmfChecker, tmp_path: Path) -> None:
    ours = lifted(RICH).write(tmp_path / "ours")
    (tmp_path / "emf").mkdir()
    report = emf.check(ours, resave_dir=tmp_path / "emf", dump=False)
    assert report.clean
    emf_files = sorted((tmp_path / "emf").glob("*.ecore"))
    read_back = sorted(read_ecore_files(emf_files), key=lambda p: p.name)
    assert canonical.dump_packages(read_back) == canonical.dump_packages(lifted(RICH).packages)
    import_ecore(ours, tmp_path / "from-ours", name="x")
    import_ecore(emf_files, tmp_path / "from-emf", name="x")
    assert files_of(tmp_path / "from-ours") == files_of(tmp_path / "from-emf")


def test_emf_loads_what_an_imported_foreign_metamodel_lifts_to(emf: EmfChecker, tmp_path: Path) -> None:
    import_ecore([LIBRARY], tmp_path / "cf")
    paths = lifted(tmp_path / "cf").write(tmp_path / "ecore")
    report = emf.check(paths, dump=False)
    assert report.problems() == [] and report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}


def test_missing_packages_are_named(tmp_path: Path) -> None:
    paths = lifted(RICH).write(tmp_path)
    with pytest.raises(CfSerializationError) as error:
        import_ecore([tmp_path / "__config__.ecore"], tmp_path / "out")
    assert error.value.code == "missing-package"
    assert error.value.message == (
        "the metamodel refers to packages no given file defines: http://cfmodel.org/model/infra (used in "
        f"{paths[0]}); give their .ecore files too"
    )


def test_std_is_taken_from_cfmodel_when_not_given(tmp_path: Path) -> None:
    lifted(RICH).write(tmp_path)
    written = import_ecore([tmp_path / "infra.ecore", tmp_path / "__config__.ecore"], tmp_path / "out")
    assert not any("libs/std" in str(p) for p in written)


def test_existing_files_are_not_overwritten_without_force(tmp_path: Path) -> None:
    import_ecore([LIBRARY], tmp_path / "out")
    import_ecore([LIBRARY], tmp_path / "out")  # same content: fine
    main = tmp_path / "out" / "main.cf"
    main.write_text("# mine\n", encoding="utf-8")
    with pytest.raises(CfUsageError) as error:
        import_ecore([LIBRARY], tmp_path / "out")
    assert error.value.message == f"{tmp_path / 'out'}: would overwrite main.cf (use --force)"
    assert main.read_text(encoding="utf-8") == "# mine\n"
    import_ecore([LIBRARY], tmp_path / "out", force=True)
    assert main.read_text(encoding="utf-8") == "import library\n"
