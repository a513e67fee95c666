"""Light PyEcore objects (`refine.eobjects`): the same model, the same exports, PyEcore's API intact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyecore.ecore import EObject
from pyecore.notification import EObserver
from pyecore.resources import URI, ResourceSet
from pyecore.valuecontainer import EValue

from cfmodel.transforms.refine import CompileResult, compile_project, eobjects
from tests.compiler.conftest import Project, compile_main
from tests.compiler.test_result import SOURCE, WEBSHOP

ONE_WAY = """
entity Rack:
    string name
end
entity Box:
    string name
    int size = 1
end
Box.rack [0:1] -- Rack
Box.peers [0:] -- Box
implement Rack using std::none
implement Box using std::none
r = Rack(name="r")
a = Box(name="a", rack=r)
b = Box(name="b", rack=r, peers=[a])
"""


def standard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the next models with PyEcore's own constructor and holders: no `eobjects`, and the
    serializers' `fastpath` on PyEcore's public API (no direct holders, no light objects)."""
    from cfmodel.serializers import fastpath

    monkeypatch.setattr(eobjects, "usable", lambda: False)
    monkeypatch.setattr(fastpath, "RAW", False)
    monkeypatch.setattr(fastpath, "LIGHT", False, raising=False)


def test_the_probe_passes_with_this_pyecore() -> None:
    assert eobjects.usable()
    assert eobjects._probe()


@pytest.mark.parametrize("source", [SOURCE, ONE_WAY], ids=["relations", "one-way"])
def test_exports_equal_those_of_pyecores_own_objects(
    project: Project, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    light = compile_main(project, source)
    light_bytes = (light.xmi_bytes(), light.json_bytes())
    assert type(light.model[0].__dict__["name"]) is eobjects.light_value_class()
    standard(monkeypatch)
    plain = compile_main(project, source)
    assert type(plain.model[0].__dict__["name"]) is EValue and "listeners" in vars(plain.model[0])
    assert (plain.xmi_bytes(), plain.json_bytes()) == light_bytes
    for one, two in zip(light.model, plain.model, strict=True):
        assert [f.name for f in one._isset] == [f.name for f in two._isset]


def test_webshop_exports_equal(monkeypatch: pytest.MonkeyPatch) -> None:
    light = compile_project(WEBSHOP)
    expected = (light.xmi_bytes(), light.json_bytes())
    standard(monkeypatch)
    assert (compile_project(WEBSHOP).xmi_bytes(), compile_project(WEBSHOP).json_bytes()) == expected


def test_a_light_object_holds_only_its_values(project: Project) -> None:
    box = compile_main(project, ONE_WAY).instances("Box")[1]
    assert list(box.__dict__) == ["_isset", "name", "size", "rack", "peers"]
    assert box.dyn_inst is box and box.eClass.python_class.dyn_inst is box.eClass
    assert box._container is None and box._internal_id is None and box.eResource is None
    assert box.eContainer() is None and box.eRoot() is box


def test_pyecores_api_works_on_the_light_model(project: Project) -> None:
    result = compile_main(project, ONE_WAY)
    rack = result.instances("Rack")[0]
    a, b = result.instances("Box")
    assert set(type(a).eClass.allInstances()) >= {a, b}
    seen: list[Any] = []
    EObserver(a, notifyChanged=seen.append)
    a.size = 5
    a.name = "a2"
    assert (a.size, a.name, a.eGet("size")) == (5, "a2", 5)
    assert [n.feature.name for n in seen] == ["size", "name"]
    assert (b, type(b).eClass.findEStructuralFeature("rack")) in rack._inverse_rels  # one-way, noted
    b.peers.append(b)
    assert list(b.peers) == [a, b]
    b.rack = None
    assert b.rack is None and not any(owner is b for owner, _ in rack._inverse_rels)
    a.delete()
    assert list(b.peers) == [b]
    a.eSet("name", "again")
    assert a.name == "again" and a.eIsSet("name") and b.eIsSet("size")


def test_pyecores_own_xmi_resource_saves_and_reloads_the_light_model(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def saved(result: CompileResult, name: str) -> str:
        rset = ResourceSet()
        for package in result.metamodel:
            rset.metamodel_registry[package.nsURI] = package
        resource = rset.create_resource(URI(str(tmp_path / name)))
        for obj in result.model:
            resource.append(obj)
        resource.save()
        return (tmp_path / name).read_text(encoding="utf-8")

    light = saved(compile_main(project, SOURCE), "light.xmi")
    standard(monkeypatch)
    assert saved(compile_main(project, SOURCE), "plain.xmi") == light


def test_objects_made_by_pyecore_keep_their_own_attributes(project: Project) -> None:
    result = compile_main(project, ONE_WAY)
    box_class = result.instances("Box")[0].eClass
    made: EObject = box_class(name="new")
    assert "listeners" in made.__dict__ and made.dyn_inst is made and made.name == "new"
