"""Every .ecore/XMI cfmodel writes loads in real EMF with no errors, unresolved proxies
or diagnostics; EMF sees the same model (canonical dumps match); EMF's re-saves read
back into cfmodel object for object."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.ecore import EAttribute, EClass, EInt, EPackage, EReference, EString
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, ecore, validate, xmi
from cfmodel.serializers.xmi import writer
from tests.serializers.samples import infra_ids, infra_model, infra_package, tree_model, tree_packages

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


def test_pitfall_2_python_default_values_reach_emf(emf: EmfChecker, tmp_path: Path) -> None:
    pkg = EPackage("d", nsURI="http://cfmodel.example/d", nsPrefix="d")
    svc = EClass("Service")
    svc.eStructuralFeatures += [
        EAttribute("port", EInt, default_value=80),
        EAttribute("label", EString, default_value="none"),
    ]
    pkg.eClassifiers.append(svc)
    unset = svc()
    assert (unset.port, unset.label) == (80, "none")  # PyEcore's view of an unset object
    ecore.write(tmp_path / "d.ecore", pkg)
    xmi.write(tmp_path / "d.xmi", [unset])
    report = emf.check([tmp_path / "d.ecore"], [tmp_path / "d.xmi"])
    assert report.clean
    assert report.dump("d.xmi") == [
        "/0 : http://cfmodel.example/d#//Service",
        "  port = 80",
        '  label = "none"',
    ]


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


def test_two_packages_with_one_prefix_nesting_and_opposites(emf: EmfChecker, tmp_path: Path) -> None:
    """Prefix clash (``base``, ``base_1``), nested containment with a container reference,
    a bidirectional many-to-many pair, special characters: EMF sees our model, and its
    re-save reads back into the same one (each bidirectional item once)."""
    base, app = tree_packages()
    roots = tree_model(base, app)
    paths = [tmp_path / "base.ecore", tmp_path / "app.ecore"]
    ecore.write(paths[0], base)
    ecore.write(paths[1], app)
    xmi.write(tmp_path / "tree.xmi", roots)
    out = tmp_path / "emf"
    out.mkdir()
    report = emf.check(paths, [tmp_path / "tree.xmi"], resave_dir=out)
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    assert report.dump("tree.xmi") == canonical.dump_objects(roots)
    rset = ResourceSet()
    ecore.read(out / "base.ecore", rset)
    ecore.read(out / "app.ecore", rset)
    assert canonical.dump_objects(xmi.read(out / "tree.xmi", rset).roots) == canonical.dump_objects(roots)


def test_a_large_model_loads_in_emf(emf: EmfChecker, tmp_path: Path) -> None:
    pkg = infra_package()
    roots = infra_model(pkg, hosts=500)
    mm, inst = tmp_path / "infra.ecore", tmp_path / "big.xmi"
    ecore.write(mm, pkg)
    xmi.write(inst, roots, xmi.XmiOptions(id_of=infra_ids))
    report = emf.check([mm], [inst])
    assert report.problems() == []
    ids = {o: i for o in canonical.walk(roots) if (i := infra_ids(o))}
    assert report.dump("big.xmi") == canonical.dump_objects(roots, ids)


def test_pitfall_4_what_we_refuse_emf_reports(emf: EmfChecker, tmp_path: Path) -> None:
    """Written with validation bypassed, the models `validate` refuses are ones EMF flags
    or silently misreads: a reference out of the document (a load error), an id given
    twice (not reported: ambiguous). An unset required feature, which EMF saves too, is
    written with a `BoundsWarning`, and EMF's Diagnostician reports it."""
    pkg = infra_package()
    host, file_ = pkg.getEClassifier("Host"), pkg.getEClassifier("File")
    nameless, twin_a, twin_b = host(), host(name="a"), host(name="b")
    nameless.primary = file_(name="orphan")
    roots = [nameless, twin_a, twin_b]
    ids = {nameless: "nameless", twin_a: "twin", twin_b: "twin"}
    with pytest.raises(CfSerializationError) as exc:
        xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    assert [n.message.split(":")[0] for n in exc.value.notes] == [
        "id 'twin' is given to two objects (Host, Host)",
        "Host nameless.primary",
    ]
    nameless.primary = None  # written by hand below: the writer cannot name an outside object
    with pytest.warns(validate.BoundsWarning, match="Host nameless.name: required feature is not set"):
        xmi.to_bytes([nameless], xmi.XmiOptions(id_of=ids.get))
    unchecked = writer.Writer(roots, ids, list(canonical.walk(roots))).document()
    unchecked = unchecked.replace(b'xmi:id="nameless"', b'xmi:id="nameless" primary="orphan"')
    (tmp_path / "infra.ecore").write_bytes(ecore.to_bytes(pkg))
    (tmp_path / "bad.xmi").write_bytes(unchecked)
    report = emf.check([tmp_path / "infra.ecore"], [tmp_path / "bad.xmi"])
    messages = "\n".join(report.problems())
    assert "The required feature 'name' of" in messages and "#nameless}' must be set" in messages
    assert "Unresolved reference 'orphan'" in messages
    # A repeated id is not reported at all: both objects carry it, a reference finds one.
    assert [line for line in report.dump("bad.xmi") if line.startswith("twin :")] == [
        "twin : http://cfmodel.example/infra#//Host"
    ] * 2


def test_pitfall_5_what_we_refuse_emf_rejects(emf: EmfChecker, tmp_path: Path) -> None:
    """Each metamodel defect `validate` refuses is an EcoreValidator error in EMF (errors
    for exact problems, warnings for names that differ only in case). The file is our
    output for a valid package, edited by hand: our writer refuses to produce it."""
    pkg = EPackage("good", nsURI="http://cfmodel.example/p", nsPrefix="p")
    thing = EClass("Thing")
    thing.eStructuralFeatures += [
        EAttribute("x", EString),
        EAttribute("y", EInt),
        EAttribute("z", EString),
        EAttribute("w", EString),
    ]
    pkg.eClassifiers += [thing, EClass("Other")]
    text = ecore.to_bytes(pkg).decode()
    for old, new in [
        (' nsURI="http://cfmodel.example/p" nsPrefix="p"', ""),
        ('name="good"', 'name="bad name"'),
        ('name="y"', 'name="x"'),
        ('name="w"', 'name="Z"'),
        ('name="Other"', 'name="thing"'),
        ('name="z" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EString"', 'name="z"'),
    ]:
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "bad.ecore").write_text(text)
    same = EPackage("bad name")
    same_thing = EClass("Thing")
    same_thing.eStructuralFeatures += [
        EAttribute("x", EString),
        EAttribute("x", EInt),
        EAttribute("z"),
        EAttribute("Z", EString),
    ]
    same.eClassifiers += [same_thing, EClass("thing")]
    with pytest.raises(CfSerializationError) as exc:
        ecore.to_bytes(same)
    assert len(exc.value.notes) == 7
    report = emf.check([tmp_path / "bad.ecore"])
    found = sorted(p.split(": ", 2)[-1].split(" of 'org.eclipse")[0] for p in report.problems())
    assert found == [
        "The name 'bad name' is not well formed",
        "The namespace URI 'null' is not well formed",
        "The namespace prefix 'null' is not well formed",
        "The required feature 'eAttributeType'",
        "The typed element must have a type",
        "There may not be a classifier named 'Thing' as well a classifier named 'thing'",
        "There may not be two features named 'x'",
        "There should not be a feature named 'z' as well a feature named 'Z'",
    ]
