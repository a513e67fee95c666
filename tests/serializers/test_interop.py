"""Files written by real EMF (tests/serializers/interop/) read back into the same model."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, ecore, xmi
from tests.serializers.samples import infra_ids, infra_model, infra_package, tree_model, tree_packages

INTEROP = Path(__file__).parent / "interop"


def test_emf_written_ecore_reads_as_the_sample() -> None:
    doc = ecore.read(INTEROP / "infra.ecore", ResourceSet())
    assert canonical.dump_packages(doc.roots) == canonical.dump_packages([infra_package()])


@pytest.mark.parametrize("name, id_of", [("infra.xmi", infra_ids), ("infra-positional.xmi", None)])
def test_emf_written_xmi_reads_as_the_sample(name: str, id_of: object) -> None:
    rset = ResourceSet()
    ecore.read(INTEROP / "infra.ecore", rset)
    doc = xmi.read(INTEROP / name, rset)
    roots = infra_model(infra_package())
    ids = {o: i for o in canonical.walk(roots) if id_of and (i := id_of(o))}  # type: ignore[operator]
    assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects(roots, ids)


def test_emf_written_files_naming_each_other_read_as_the_sample() -> None:
    rset = ResourceSet()
    base, app = tree_packages()
    assert canonical.dump_packages(
        ecore.read(INTEROP / "tree-base.ecore", rset).roots
    ) == canonical.dump_packages([base])
    assert canonical.dump_packages(
        ecore.read(INTEROP / "tree-app.ecore", rset).roots
    ) == canonical.dump_packages([app])
    doc = xmi.read(INTEROP / "tree.xmi", rset)
    assert canonical.dump_objects(doc.roots) == canonical.dump_objects(tree_model(base, app))


def test_a_file_reference_needs_the_file_read_first() -> None:
    with pytest.raises(CfSerializationError, match=r"unresolved reference 'tree-base\.ecore#//Named'"):
        ecore.read(INTEROP / "tree-app.ecore", ResourceSet())


@pytest.mark.parametrize(
    "ecores, name",
    [
        (["infra.ecore"], "infra.xmi"),
        (["infra.ecore"], "infra-positional.xmi"),
        (["tree-base.ecore", "tree-app.ecore"], "tree.xmi"),
    ],
)
def test_emf_written_xmi_written_back_in_emf_layout_gives_emf_bytes(ecores: list[str], name: str) -> None:
    """Several roots under xmi:XMI, ids or positional references, two packages, children
    without xsi:type, many-valued attributes with escapes: EMF's bytes come back (the
    xmi:ids read are kept without an id function)."""
    rset = ResourceSet()
    for e in ecores:
        ecore.read(INTEROP / e, rset)
    doc = xmi.read(INTEROP / name, rset)
    options = xmi.XmiOptions(emf_layout=True)
    assert xmi.to_bytes(doc.roots, options, location=INTEROP / name) == (INTEROP / name).read_bytes()
