"""Multiple inheritance as seed 000 states it: two parents may declare the same attribute
(the left parent's default wins), and the derived metamodel stays valid for EMF: the
attribute is one feature, declared on a generated abstract class that each declaring
entity's class extends (docs/metamodel.md, "Multiple inheritance")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cfmodel.pipeline import compile_project
from cfmodel.serializers import canonical
from cfmodel.transforms.cf import lift as lift_module
from tests.emf.emf import EmfChecker

from .helpers import lifted

PROJECT = Path(__file__).parent / "fixtures" / "multiple_inheritance"


def _defaults(eclass: object) -> dict[str, str]:
    return _annotations(eclass).get(lift_module.DEFAULTS, {})


def test_one_feature_on_a_generated_abstract_class() -> None:
    mm = lifted(PROJECT)
    main = mm.package("__config__")
    holder = main.getEClassifier("Shared_mode")
    assert holder.abstract
    assert [f.name for f in holder.eStructuralFeatures] == ["mode"]
    assert holder.eStructuralFeatures[0].defaultValueLiteral is None
    assert _annotations(holder)[lift_module.SHARED] == {
        "attribute": "mode",
        "declared_by": "__config__::Left, __config__::Right",
    }
    for name in ("Left", "Right"):
        eclass = mm.eclass(f"__config__::{name}")
        assert holder in eclass.eSuperTypes
        assert eclass.eStructuralFeatures == []
    for name in ("Both", "Other", "Own"):
        features = [f.name for f in mm.eclass(f"__config__::{name}").eAllStructuralFeatures()]
        assert features.count("mode") == 1, name
    # each declaration's default, and the default where they meet (left parent first)
    assert _defaults(mm.eclass("__config__::Left")) == {"mode": '"left"'}
    assert _defaults(mm.eclass("__config__::Right")) == {"mode": '"right"'}
    assert _defaults(mm.eclass("__config__::Both")) == {"mode": '"left"'}
    assert _defaults(mm.eclass("__config__::Other")) == {"mode": '"right"'}
    assert _defaults(mm.eclass("__config__::Own")) == {"mode": '"own"'}


def test_shared_across_modules() -> None:
    """A holder lives in the package of the first declaring entity (in the program's order of
    entities: the main namespace first), whichever package the others are in."""
    mm = lifted(PROJECT)
    shared = {
        (package.name, c.name): _annotations(c)[lift_module.SHARED]
        for package in mm.packages
        for c in package.eClassifiers
        if lift_module.SHARED in _annotations(c)
    }
    assert shared == {
        ("__config__", "Shared_mode"): {
            "attribute": "mode",
            "declared_by": "__config__::Left, __config__::Right",
        },
        ("__config__", "Shared_name"): {
            "attribute": "name",
            "declared_by": "__config__::Tagged, base::Monitored, base::Backed",
        },
        ("base", "Shared_interval"): {
            "attribute": "interval",
            "declared_by": "base::Monitored, base::Backed",
        },
    }
    database = mm.eclass("__config__::Database")
    assert sorted(f.name for f in database.eAllStructuralFeatures()) == [
        "interval",
        "name",
        "provides",
        "requires",
        "target",
    ]
    assert _defaults(database) == {"interval": "60", "name": ""}
    assert _defaults(mm.eclass("base::Backed")) == {"interval": "3600", "name": ""}
    assert _defaults(mm.eclass("__config__::Archive")) == {"interval": "3600", "name": ""}


def test_compiled_values_follow_the_left_parent() -> None:
    result = compile_project(PROJECT)
    values = sorted(
        (obj.eClass.name, sorted((f.name, obj.eGet(f)) for f in obj.eClass.eAllAttributes()))
        for obj in result.model
        if obj.eClass.ePackage.name != "std"
    )
    assert values == [
        ("Archive", [("interval", 86400), ("name", "tape"), ("target", "/backup")]),
        ("Both", [("mode", "given")]),
        ("Both", [("mode", "left")]),
        ("Database", [("interval", 60), ("name", "pg"), ("target", "/backup")]),
        ("Other", [("mode", "right")]),
        ("Own", [("mode", "own")]),
    ]


def test_emf_validates_the_metamodel_and_the_model(emf: EmfChecker, tmp_path: Path) -> None:
    result = compile_project(PROJECT)
    paths = result.save_xmi(tmp_path)
    ecores = [p for p in paths if p.suffix == ".ecore"]
    models = [p for p in paths if p.suffix == ".xmi"]
    report = emf.check(ecores, models)
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    for root in result.domain.packages:
        assert report.dump(f"{root.name}.ecore") == canonical.dump_packages([root]), root.name


def _annotations(element: Any) -> dict[str, dict[str, str]]:
    """Each annotation of *element*: source -> its details."""
    return {str(a.source): {str(k): str(v) for k, v in a.details.items()} for a in element.eAnnotations}
