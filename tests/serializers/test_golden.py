"""Determinism across versions: the serializers write today, byte for byte, what they
wrote before the speed work (tests/serializers/golden/), and read it back. JSON has two
dialects: emfjson-jackson's (the default since issue 17; its goldens were made then) and
cfmodel's older ``cfmodel-instances`` (the goldens from before, still written on request
and read by detection)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pyecore.ecore import EObject, EPackage
from pyecore.resources import ResourceSet

from cfmodel.serializers import canonical, ecore, json, xmi
from tests.serializers.samples import infra_ids, infra_model, infra_package, tree_model, tree_packages

GOLDEN = Path(__file__).parent / "golden"

Case = Callable[[], tuple[list[EPackage], list[EObject], Callable[[EObject], str | None] | None]]


def _infra() -> tuple[list[EPackage], list[EObject], Callable[[EObject], str | None] | None]:
    pkg = infra_package()
    return [pkg], infra_model(pkg), infra_ids


def _infra_positional() -> tuple[list[EPackage], list[EObject], Callable[[EObject], str | None] | None]:
    pkg = infra_package()
    return [pkg], infra_model(pkg), None


def _infra_one() -> tuple[list[EPackage], list[EObject], Callable[[EObject], str | None] | None]:
    pkg = infra_package()
    return [pkg], infra_model(pkg, hosts=1)[:1], infra_ids


def _tree() -> tuple[list[EPackage], list[EObject], Callable[[EObject], str | None] | None]:
    base, app = tree_packages()
    return [base, app], tree_model(base, app), None


CASES: dict[str, Case] = {
    "infra": _infra,
    "infra-positional": _infra_positional,
    "infra-one": _infra_one,
    "tree": _tree,
}


@pytest.mark.parametrize("module", [xmi, json], ids=["xmi", "json"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_instance_files_are_byte_identical_and_read_back(case: str, module: object) -> None:
    """XMI, and JSON in emfjson-jackson's dialect."""
    packages, roots, id_of = CASES[case]()
    ext = "xmi" if module is xmi else "json"
    options = (xmi.XmiOptions if module is xmi else json.JsonOptions)(id_of=id_of)
    golden = (GOLDEN / f"{case}.{ext}").read_bytes()
    assert module.to_bytes(roots, options) == golden  # type: ignore[attr-defined]
    rset = ResourceSet()
    for pkg in packages:
        ecore.from_bytes(ecore.to_bytes(pkg), f"{pkg.name}.ecore", rset)
    doc = module.from_bytes(golden, rset)  # type: ignore[attr-defined]
    ids = {o: i for o in canonical.walk(roots) if id_of and (i := id_of(o))}
    assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects(roots, ids)


@pytest.mark.parametrize(
    "name, pkg",
    [
        ("infra.ecore", lambda: infra_package()),
        ("tree-base.ecore", lambda: tree_packages()[0]),
        ("tree-app.ecore", lambda: tree_packages()[1]),
    ],
)
def test_metamodel_files_are_byte_identical(name: str, pkg: Callable[[], EPackage]) -> None:
    assert ecore.to_bytes(pkg()) == (GOLDEN / name).read_bytes()


@pytest.mark.parametrize("case", sorted(CASES))
def test_older_json_dialect_is_still_written_on_request_and_read(case: str) -> None:
    packages, roots, id_of = CASES[case]()
    golden = (GOLDEN / f"{case}.cfmodel-instances.json").read_bytes()
    options = json.JsonOptions(id_of=id_of, dialect="cfmodel-instances")
    assert json.to_bytes(roots, options) == golden
    rset = ResourceSet()
    for pkg in packages:
        ecore.from_bytes(ecore.to_bytes(pkg), f"{pkg.name}.ecore", rset)
    doc = json.from_bytes(golden, rset)  # detected by its header, without options
    ids = {o: i for o in canonical.walk(roots) if id_of and (i := id_of(o))}
    assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects(roots, ids)
