"""The compiled PyEcore model is made of `fastpath`'s light objects and holders: the same
model and exports as PyEcore's own constructor and setters give, PyEcore's API intact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyecore.ecore import EObject
from pyecore.notification import EObserver
from pyecore.resources import URI, ResourceSet
from pyecore.valuecontainer import EValue

from cfmodel.metamodel.runtime import fastpath
from cfmodel.pipeline import CompileResult, compile_project
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

# Values set after a many-valued attribute made the object's _isset (tags, then label, size).
INTERLEAVED = """
entity Item:
    string name
    string[] tags
    string label = "l"
    int[] sizes = []
    int size = 3
end
implement Item using std::none
Item(name="one", tags=["a", "b"], sizes=[1, 2])
Item(name="two", tags=[])
"""

# One-way relations turned into containments (the derived metamodel has none) before the
# model is made: each disk contained once.
CONTAINED = """
entity Disk:
    string name
end
entity Server:
    string name
end
Server.disk [0:1] -- Disk
Server.spares [0:] -- Disk
implement Disk using std::none
implement Server using std::none
Server(name="s", disk=Disk(name="d0"), spares=[Disk(name="d1"), Disk(name="d2")])
"""


def light_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next models by PyEcore's own constructor (fastpath's probe failed), its holders set directly."""
    monkeypatch.setattr(fastpath, "LIGHT", False)


def standard(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next models by PyEcore's own constructor and setters only (no direct holders either)."""
    monkeypatch.setattr(fastpath, "LIGHT", False)
    monkeypatch.setattr(fastpath, "RAW", False)


def isset_names(result: CompileResult) -> list[list[str]]:
    return [[f.name for f in obj._isset] for obj in result.model]


def test_fastpaths_probe_passes_and_the_model_is_light(project: Project) -> None:
    assert fastpath.LIGHT and fastpath.RAW
    a = compile_main(project, SOURCE).instances("Host")[0]
    name = a.eClass.findEStructuralFeature("name")
    assert fastpath.light_class(a.eClass) is type(a)
    assert type(a.__dict__["name"]) is fastpath.holder_class(name)
    assert a.__dict__["name"].feature is name and not a.__dict__["name"].is_ref


@pytest.mark.parametrize(
    "source", [SOURCE, ONE_WAY, INTERLEAVED], ids=["relations", "one-way", "interleaved"]
)
@pytest.mark.parametrize("other", [light_off, standard], ids=["light-off", "standard"])
def test_model_and_exports_equal_those_of_pyecores_own_objects(
    project: Project, source: str, other: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    light = compile_main(project, source)
    light_bytes = (light.xmi_bytes(), light.json_bytes())
    light_isset = isset_names(light)  # read after the exports: they make every _isset
    other(monkeypatch)
    plain = compile_main(project, source)
    assert type(plain.model[0].__dict__["name"]) is EValue and "listeners" in vars(plain.model[0])
    assert (plain.xmi_bytes(), plain.json_bytes()) == light_bytes
    assert isset_names(plain) == light_isset  # same features, same order
    for one, two in zip(light.model, plain.model, strict=True):
        for f in one.eClass.eAllStructuralFeatures():
            assert one.eIsSet(f.name) == two.eIsSet(f.name), f.name


def test_isset_is_pyecores_before_anything_else_reads_the_model(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    light = isset_names(compile_main(project, INTERLEAVED))
    standard(monkeypatch)
    assert isset_names(compile_main(project, INTERLEAVED)) == light
    assert light[0] == ["name", "tags", "label", "sizes", "size"]


def test_webshop_exports_equal(monkeypatch: pytest.MonkeyPatch) -> None:
    light = compile_project(WEBSHOP)
    expected = (light.xmi_bytes(), light.json_bytes())
    standard(monkeypatch)
    plain = compile_project(WEBSHOP)
    assert (plain.xmi_bytes(), plain.json_bytes()) == expected


def test_a_class_fastpath_refuses_is_made_by_pyecore_with_the_same_exports(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = compile_main(project, ONE_WAY)
    expected_bytes = (expected.xmi_bytes(), expected.json_bytes())
    refuse = fastpath.light_class
    monkeypatch.setattr(
        fastpath, "light_class", lambda eclass: None if eclass.name == "Box" else refuse(eclass)
    )
    mixed = compile_main(project, ONE_WAY)
    rack, box = mixed.instances("Rack")[0], mixed.instances("Box")[0]
    assert "listeners" in vars(box) and "listeners" not in vars(rack)
    assert (mixed.xmi_bytes(), mixed.json_bytes()) == expected_bytes


def test_a_light_object_holds_only_its_values(project: Project) -> None:
    result = compile_main(project, ONE_WAY)
    rack = result.instances("Rack")[0]
    a, b = result.instances("Box")
    # _isset is made only where a collection was filled; one-way targets have their inverse index
    assert list(a.__dict__) == ["name", "size", "rack", "_inverse_rels"]
    assert list(b.__dict__) == ["name", "size", "rack", "peers", "_isset"]
    assert list(rack.__dict__) == ["name", "_inverse_rels"]
    assert rack._inverse_rels == {
        (a, a.eClass.findEStructuralFeature("rack")),
        (b, b.eClass.findEStructuralFeature("rack")),
    }
    assert b.dyn_inst is b and type(b).dyn_inst is b.eClass  # type: ignore[attr-defined]
    assert b._container is None and b._internal_id is None and b.eResource is None
    assert b.eContainer() is None and b.eRoot() is b
    assert [f.name for f in a._isset] == ["name", "size", "rack"] and "_isset" in vars(a)


def test_pyecores_api_works_on_the_light_model(project: Project) -> None:
    result = compile_main(project, ONE_WAY)
    rack = result.instances("Rack")[0]
    a, b = result.instances("Box")
    assert set(a.eClass.allInstances()) >= {a, b} and rack in set(rack.eClass.allInstances())
    seen: list[Any] = []
    EObserver(a, notifyChanged=seen.append)
    a.size = 5
    a.name = "a2"
    assert (a.size, a.name, a.eGet("size")) == (5, "a2", 5)
    assert [n.feature.name for n in seen] == ["size", "name"]
    b.peers.append(b)
    assert list(b.peers) == [a, b]
    b.rack = None
    assert b.rack is None and not any(owner is b for owner, _ in rack._inverse_rels)
    a.delete()
    assert list(b.peers) == [b]
    a.eSet("name", "again")
    assert a.name == "again" and a.eIsSet("name") and b.eIsSet("size")


def test_opposites_and_deletion_follow_as_on_pyecores_own_objects(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    def changed(result: CompileResult) -> list[Any]:
        a, b = result.instances("Host")
        first, second = result.instances("File")
        g, h = result.instances("Group")
        first.host = b  # PyEcore leaves it in a.files too (its own limitation)
        b.groups.append(h)
        g.delete()
        second.delete()
        second.eSet("path", "/gone")
        return [
            [f.path for f in a.files],
            [f.path for f in b.files],
            first.host.name,
            second.host,
            [x.name for x in a.groups],
            [x.name for x in b.groups],
            [x.name for x in h.members],
            [x.name for x in g.members],
            [f.name for f in second._isset],
            second.path,
        ]

    light = changed(compile_main(project, SOURCE))
    assert light[1:3] == [["/2"], "b"] and light[4:7] == [["h"], ["h"], ["a", "b"]]
    standard(monkeypatch)
    assert changed(compile_main(project, SOURCE)) == light


def test_pyecores_own_xmi_resource_saves_the_light_model(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def saved(result: CompileResult, name: str) -> str:
        rset = ResourceSet()
        for package in result.metamodel:
            rset.metamodel_registry[package.nsURI] = package
        resource = rset.create_resource(URI(str(tmp_path / name)))
        for obj in result.model:
            resource.append(obj)
        assert all(obj.eResource is resource for obj in result.model)
        resource.save()
        return (tmp_path / name).read_text(encoding="utf-8")

    light = saved(compile_main(project, SOURCE), "light.xmi")
    standard(monkeypatch)
    assert saved(compile_main(project, SOURCE), "plain.xmi") == light


def contained(project: Project) -> CompileResult:
    """CONTAINED compiled, its relations made containments before the model."""
    project.write({"main.cf": CONTAINED})
    result = project.compile()
    for name in ("disk", "spares"):
        result.domain.ereference("__config__::Server", name).containment = True
    return result


def test_containment_values_get_their_container_as_with_pyecores_setters(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    def shape(result: CompileResult) -> list[Any]:
        server = result.instances("Server")[0]
        disks = result.instances("Disk")
        return [
            [
                (d.name, d.eContainer() is server, getattr(d.eContainmentFeature(), "name", None))
                for d in disks
            ],
            [f.name for f in server._isset],
            server.__dict__["disk"].is_cont,
        ]

    light = contained(project)
    light_shape = shape(light)
    assert light_shape[0] == [("d0", True, "disk"), ("d1", True, "spares"), ("d2", True, "spares")]
    standard(monkeypatch)
    assert shape(contained(project)) == light_shape
    # PyEcore's setters take a contained value from its container
    server, d0 = light.instances("Server")[0], light.instances("Disk")[0]
    server.spares.append(d0)
    assert server.disk is None and d0.eContainmentFeature().name == "spares"


def test_objects_made_by_pyecore_keep_their_own_attributes(project: Project) -> None:
    result = compile_main(project, ONE_WAY)
    box_class = result.instances("Box")[0].eClass
    made: EObject = box_class(name="new")
    assert "listeners" in made.__dict__ and made.dyn_inst is made and made.name == "new"
    assert made.eIsSet("name") and not made.eIsSet("size") and made in set(box_class.allInstances())
