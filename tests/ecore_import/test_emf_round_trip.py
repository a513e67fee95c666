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
nothing is written. Plain PyEcore (its own ``ResourceSet``) reads the export as it reads
the original: the same classes, supertypes, features with their types, bounds and
containment, enums and data types.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.ecore import EClass, EEnum, EPackage
from pyecore.resources import URI, ResourceSet

from cfmodel.serializers.base import ECORE_NS
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
    original = _pyecore_shape(sources)
    exported = _pyecore_shape(sorted((tmp_path / "out").glob("*.ecore")))
    exported = {
        line for line in exported if line.partition(" ")[0] in {o.partition(" ")[0] for o in original}
    }
    assert (sorted(original - exported), sorted(exported - original)) == PYECORE_DIFFERS.get(case, ([], []))


# what plain PyEcore reads differently from cfmodel's export than from the original: a type
# of EMF's Ecore that PyEcore's own lacks, which the original names through its relative
# path to Ecore.ecore and the export by Ecore's nsURI (as EMF itself does once Ecore is
# the registered package)
_RESOURCE = "http://www.eclipse.org/emf/2003/Change ResourceChange.resource [0..1] containment=None : "
PYECORE_DIFFERS = {"Change": ([_RESOURCE + "EResource"], [_RESOURCE + "None"])}


def _pyecore_shape(files: list[Path]) -> set[str]:
    """What plain PyEcore reads from *files* (each after those after it, as EMF's tests
    register them), one line per classifier, supertype list and feature."""
    rset, packages = ResourceSet(), []
    for path in reversed(files):
        for root in rset.get_resource(URI(str(path))).contents:
            if root.nsURI != ECORE_NS:  # a copy of Ecore never replaces PyEcore's own
                rset.metamodel_registry[root.nsURI] = root
                packages.append(root)
    lines: set[str] = set()

    def walk(package: EPackage) -> None:
        for c in package.eClassifiers:
            where = f"{package.nsURI} {c.name}"
            if isinstance(c, EClass):
                lines.add(f"{where} super {sorted(s.name for s in c.eSuperTypes)} abstract={c.abstract}")
                for f in c.eStructuralFeatures:
                    bounds = f"[{f.lowerBound}..{f.upperBound}] containment={getattr(f, 'containment', None)}"
                    lines.add(f"{where}.{f.name} {bounds} : {getattr(f.eType, 'name', None)}")
            elif isinstance(c, EEnum):
                lines.add(f"{where} enum {[(lit.name, lit.value) for lit in c.eLiterals]}")
            else:
                lines.add(f"{where} datatype {c.instanceClassName}")
        for sub in package.eSubpackages:
            walk(sub)

    for package in packages:
        walk(package)
    return lines


@pytest.mark.parametrize("case", list(REFUSED_METAMODELS))
def test_a_metamodel_emf_refuses_is_refused_where_emf_says(
    case: str, corpus: Path, emf: EmfChecker, tmp_path: Path
) -> None:
    metamodel, message = REFUSED_METAMODELS[case]
    outcome = metamodel_round_trip([corpus / metamodel.main], emf, tmp_path, case)
    assert (outcome.result, outcome.detail) == (REFUSED_BY_BOTH, message)
    assert not (tmp_path / "project").exists()
