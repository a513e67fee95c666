"""Every .ecore/XMI cfmodel writes loads in real EMF with no errors, unresolved proxies
or diagnostics; EMF sees the same model (canonical dumps match); EMF's re-saves read
back into cfmodel object for object."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.ecore import EAttribute, EClass, EInt, EPackage, EReference, EString
from pyecore.resources import ResourceSet

from cfmodel.serializers import canonical, ecore, xmi
from tests.serializers.samples import infra_ids, infra_model, infra_package

from .emf import EmfChecker


def _write_infra(tmp_path: Path, id_of: object = infra_ids) -> tuple[Path, Path, list[str], list[str]]:
    pkg = infra_package()
    roots = infra_model(pkg)
    mm, inst = tmp_path / "infra.ecore", tmp_path / "infra.xmi"
    ecore.write(mm, pkg)
    xmi.write(inst, roots, xmi.XmiOptions(id_of=id_of))  # type: ignore[arg-type]
    ids = {o: i for o in canonical.walk(roots) if id_of and (i := id_of(o))}  # type: ignore[operator]
    return mm, inst, canonical.dump_packages([pkg]), canonical.dump_objects(roots, ids)


@pytest.mark.parametrize("id_of", [infra_ids, None], ids=["xmi-ids", "positional"])
def test_emf_loads_what_we_write_and_sees_the_same_model(
    emf: EmfChecker, tmp_path: Path, id_of: object
) -> None:
    mm, inst, mm_dump, inst_dump = _write_infra(tmp_path, id_of)
    report = emf.check([mm], [inst])
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    assert report.dump("infra.ecore") == mm_dump
    assert report.dump("infra.xmi") == inst_dump


def test_emf_resaves_read_back_object_for_object(emf: EmfChecker, tmp_path: Path) -> None:
    mm, inst, mm_dump, inst_dump = _write_infra(tmp_path)
    out = tmp_path / "emf"
    out.mkdir()
    assert emf.check([mm], [inst], resave_dir=out, dump=False).clean
    rset = ResourceSet()
    assert canonical.dump_packages(ecore.read(out / "infra.ecore", rset).roots) == mm_dump
    doc = xmi.read(out / "infra.xmi", rset)
    assert canonical.dump_objects(doc.roots, doc.ids) == inst_dump


def test_pitfall_1_eopposite_reaches_emf(emf: EmfChecker, tmp_path: Path) -> None:
    mm, *_ = _write_infra(tmp_path)
    lines = emf.check([mm]).dump("infra.ecore")
    assert any(line.startswith("    ref files ") and line.endswith("opposite=host") for line in lines)
    assert any(line.startswith("    ref peers ") and line.endswith("opposite=peerOf") for line in lines)


def test_pitfall_2_defaults_and_default_equal_values_reach_emf(emf: EmfChecker, tmp_path: Path) -> None:
    pkg = EPackage("d", nsURI="http://cfmodel.example/d", nsPrefix="d")
    svc = EClass("Service")
    svc.eStructuralFeatures += [
        EAttribute("port", EInt, defaultValueLiteral="80"),
        EAttribute("name", EString),
    ]
    pkg.eClassifiers.append(svc)
    a, b, c = svc(name="a"), svc(name="b", port=80), svc(name="c", port=0)
    mm, inst = tmp_path / "d.ecore", tmp_path / "d.xmi"
    ecore.write(mm, pkg)
    xmi.write(inst, [a, b, c])
    report = emf.check([mm], [inst])
    assert report.clean
    assert "  port = 80" in report.dump("d.xmi")[1:3]  # unset: EMF's default comes from the literal
    lines = report.dump("d.xmi")
    assert lines == canonical.dump_objects([a, b, c])
    assert lines[lines.index("/2 : http://cfmodel.example/d#//Service") + 1] == "  port = 0"


def test_pitfall_3_dates_reach_emf_as_milliseconds(emf: EmfChecker, tmp_path: Path) -> None:
    mm, inst, *_ = _write_infra(tmp_path)
    lines = emf.check([mm], [inst]).dump("infra.xmi")
    assert "  created = 2024-01-02T03:04:05.678Z" in lines


def test_bidirectional_containment_and_cross_package_types(emf: EmfChecker, tmp_path: Path) -> None:
    base = EPackage("base", nsURI="http://cfmodel.example/base", nsPrefix="base")
    named = EClass("Named", abstract=True)
    named.eStructuralFeatures.append(EAttribute("name", EString))
    base.eClassifiers.append(named)
    app = EPackage("app", nsURI="http://cfmodel.example/app", nsPrefix="app")
    node = EClass("Node", superclass=(named,))
    kids = EReference("kids", node, upper=-1, containment=True)
    parent = EReference("parent", node)
    kids.eOpposite = parent
    node.eStructuralFeatures += [kids, parent]
    app.eClassifiers.append(node)
    root = node(name="r")
    root.kids.append(node(name="k"))
    root.kids[0].kids.append(node(name="kk"))
    ecore.write(tmp_path / "base.ecore", base)
    ecore.write(tmp_path / "app.ecore", app)
    xmi.write(tmp_path / "tree.xmi", [root])
    report = emf.check([tmp_path / "base.ecore", tmp_path / "app.ecore"], [tmp_path / "tree.xmi"])
    assert report.problems() == []
    assert report.dump("tree.xmi") == canonical.dump_objects([root])
