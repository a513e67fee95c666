"""The compile result: PyEcore instances of the derived metamodel, stable ids, exports EMF reads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cfmodel.errors import CfUsageError
from cfmodel.pipeline import compile_project
from tests.compiler.conftest import Project, compile_main
from tests.emf.emf import EmfUnavailableError, build_checker

REPO = Path(__file__).resolve().parents[2]
WEBSHOP = REPO / "examples" / "webshop"

SOURCE = """
entity Host:
    string name
    int cpus = 2
    string[] tags = []
    dict meta = {}
    float load = 0.5
    string? note = null
end
index Host(name)
entity File:
    string path
end
Host.files [0:] -- File.host [1]
index File(host, path)
entity Group:
    string name
end
Group.members [0:] -- Host.groups [0:]
implement Host using std::none
implement File using std::none
implement Group using std::none
a = Host(name="a", tags=["x", "y"], meta={"k": 1})
b = Host(name="b", cpus=4, load=2.5)
File(host=a, path="/2")
File(host=a, path="/1")
g = Group(name="g", members=[b, a])
Group(name="h", members=a)
"""


def test_model_is_pyecore_instances_of_the_derived_metamodel(project: Project) -> None:
    result = compile_main(project, SOURCE)
    hosts = result.instances("Host")
    assert [h.name for h in hosts] == ["a", "b"]
    a, b = hosts
    assert a.eClass.name == "Host"
    assert a.eClass.ePackage in result.metamodel or a.eClass.ePackage.eSuperPackage is not None
    assert list(a.tags) == ["x", "y"]
    assert b.cpus == 4
    assert b.load == 2.5
    assert [f.path for f in a.files] == ["/2", "/1"]
    assert all(f.host is a for f in a.files)
    assert [g.name for g in a.groups] == ["g", "h"]
    groups = result.instances("__config__::Group")
    assert [m.name for m in groups[0].members] == ["b", "a"]
    assert len(result.model) == 6


def test_ids_come_from_index_keys(project: Project) -> None:
    result = compile_main(project, SOURCE)
    ids = [result.id_of(obj) for obj in result.model]
    assert ids == [
        "Host_5b_a_5d_",
        "Host_5b_b_5d_",
        "File_5b_Host_5b_a_5d__2c__2f_2_5d_",
        "File_5b_Host_5b_a_5d__2c__2f_1_5d_",
        "Group.0",
        "Group.1",
    ]
    again = compile_main(project, SOURCE)
    assert [again.id_of(obj) for obj in again.model] == ids


def test_unknown_entity_name(project: Project) -> None:
    result = compile_main(project, SOURCE)
    with pytest.raises(CfUsageError, match="no entity named 'Nope'"):
        result.instances("Nope")


def test_exports_are_deterministic_and_json_names_ids(project: Project, tmp_path: Path) -> None:
    result = compile_main(project, SOURCE)
    first = result.save_xmi(tmp_path / "x1")
    second = compile_main(project, SOURCE).save_xmi(tmp_path / "x2")
    assert [p.name for p in first][-1] == f"{result.name}.xmi"
    assert "std.ecore" in [p.name for p in first]
    for one, two in zip(first, second, strict=True):
        assert one.read_bytes() == two.read_bytes()
    path = result.save_json(tmp_path / "model.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    host = data[0]  # emfjson-jackson's JSON: the roots in an array
    assert host["eClass"].endswith("#//Host")
    assert host["@id"] == "Host_5b_a_5d_"
    assert host["name"] == "a"
    assert [ref["$ref"] for ref in host["files"]] == [
        "File_5b_Host_5b_a_5d__2c__2f_2_5d_",
        "File_5b_Host_5b_a_5d__2c__2f_1_5d_",
    ]


def test_webshop_exports_load_in_real_emf(tmp_path: Path) -> None:
    try:
        emf = build_checker()
    except EmfUnavailableError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI requires real EMF: {error}")
        pytest.skip(str(error))
    result = compile_project(WEBSHOP)
    written = result.save_xmi(tmp_path)
    ecores = [p for p in written if p.suffix == ".ecore"]
    xmis = [p for p in written if p.suffix == ".xmi"]
    report = emf.check(ecores, xmis)
    assert report.clean, report.problems()
