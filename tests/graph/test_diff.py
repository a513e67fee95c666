"""cfmodel diff and cfmodel.diff: instances and resources added, removed and changed, matched by
identity then content; text, JSON and HTML; exit 0 equal, 1 different, 2 trouble."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

import cfmodel
from cfmodel.cli import main
from cfmodel.metamodel import environments as em
from cfmodel.pipeline import compile_project
from cfmodel.transforms.diff import Objects, diff, render
from cfmodel.transforms.graph import GraphBuilder
from cfmodel.transforms.graph.files import write_graph

from .conftest import webshop_graph

WEBSHOP = Path(__file__).resolve().parents[2] / "examples" / "webshop"

MAIN = """\
entity Host:
    string name
    int port = 80
    string[] tags = []
end
index Host(name)
entity Disk:
    string label
end
index Disk(label)
Host.disks [0:] -- Disk.host [0:1]
implement Host using std::none
implement Disk using std::none
"""


def _project(path: Path, body: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "main.cf").write_text(MAIN + body, encoding="utf-8")
    return path


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    a = _project(
        tmp_path / "a",
        'h1 = Host(name="h1", tags=["x"])\nh2 = Host(name="h2")\nd = Disk(label="d1", host=h1)\n',
    )
    b = _project(
        tmp_path / "b",
        'h1 = Host(name="h1", port=8080, tags=["x"])\nh3 = Host(name="h3")\nd = Disk(label="d1", host=h3)\n',
    )
    return a, b


def test_instances_added_removed_and_changed_attribute_by_attribute(two: tuple[Path, Path]) -> None:
    result = cfmodel.diff(compile_project(two[0]), compile_project(two[1]), "a", "b")
    assert render.to_text(result) == "\n".join(
        [
            "--- a",
            "+++ b",
            "instances:",
            "~ __config__:Disk Disk[d1]",
            "    host: +Host[h3] -Host[h1]",
            "~ __config__:Host Host[h1]",
            "    port: 80 → 8080",
            "    disks: -Disk[d1]",
            "- __config__:Host Host[h2]",
            "+ __config__:Host Host[h3]",
            "1 added, 1 removed, 2 changed",
            "",
        ]
    )
    added = next(d for d in result.objects if d.change == "added")
    assert added.values == {"name": "h3", "port": 80, "disks": ["Disk[d1]"]}
    assert not result.equal


def test_equal_models_are_equal_and_say_so(
    two: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(two[0]), str(two[0])]) == 0
    assert capsys.readouterr().out == f"--- {two[0]}\n+++ {two[0]}\nno differences\n"


def test_exit_codes_and_formats(
    two: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(two[0]), str(two[1]), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["summary"] == {"added": 1, "changed": 2, "removed": 1} and data["equal"] is False
    assert data["instances"][1]["attributes"] == [{"left": 80, "name": "port", "right": 8080}]
    out = tmp_path / "d.html"
    assert main(["diff", str(two[0]), str(two[1]), "--format", "html", "-o", str(out)]) == 1
    page = out.read_text(encoding="utf-8")
    assert (
        page.startswith("<!DOCTYPE html>") and "<script" not in page and "http" not in page.split("<body>")[1]
    )
    cells: list[str] = []

    class Cells(HTMLParser):
        def handle_data(self, data: str) -> None:
            cells.append(data)

    Cells().feed(page)
    assert "Host[h3]" in cells and "8080" in cells
    assert main(["diff", str(two[0]), str(two[1]), "--color", "always"]) == 1
    assert "\x1b[32m+ __config__:Host Host[h3]\x1b[0m" in capsys.readouterr().out
    assert main(["diff", str(two[0]), str(two[1])]) == 1
    assert "\x1b[" not in capsys.readouterr().out  # not a terminal: no colour


def test_trouble_is_exit_2(
    two: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _project(tmp_path / "bad", "x = Host(\n")
    assert main(["diff", str(two[0]), str(bad)]) == 2
    assert "error:" in capsys.readouterr().err
    assert main(["diff", str(two[0]), str(tmp_path / "missing")]) == 2
    assert main(["diff", str(two[0])]) == 2
    assert "compared with itself" in capsys.readouterr().err


def test_one_project_two_requests_of_the_webshop(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["diff", str(WEBSHOP), "--left-fact", "env=production", "--right-fact", "env=staging"]
    assert main(argv) == 1
    assert capsys.readouterr().out == (
        f"--- {WEBSHOP} (env=production)\n+++ {WEBSHOP} (env=staging)\ninstances:\n"
        "~ web:Database web.Database[db.example.com]\n    size_gb: 100 → 10\n"
        "~ web.deploy:File web.deploy.File[db.example.com,/etc/postgresql/shop.conf]\n"
        '    content: "max_database_size = 100GB\\n" → "max_database_size = 10GB\\n"\n'
        "resources:\n"
        "~ web::deploy::File web::deploy::File[db.example.com,path=/etc/postgresql/shop.conf]\n"
        '    content: "max_database_size = 100GB\\n" → "max_database_size = 10GB\\n"\n'
        "0 added, 0 removed, 3 changed\n"
    )


def test_xmi_files_with_their_metamodels_beside(two: tuple[Path, Path], tmp_path: Path) -> None:
    for name, project in zip("ab", two, strict=True):
        assert main(["xmi", "export", str(project), "-o", str(tmp_path / f"x{name}")]) == 0
    left, right = tmp_path / "xa" / "a.xmi", tmp_path / "xb" / "b.xmi"
    assert main(["diff", str(left), str(left)]) == 0
    assert main(["diff", str(left), str(right), "--format", "json", "-o", str(tmp_path / "d.json")]) == 1
    from_files = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    from_projects = render.to_data(cfmodel.diff(compile_project(two[0]), compile_project(two[1])))
    assert from_files["instances"] == from_projects["instances"]


def test_json_files_with_their_metamodel_given_or_missing(
    two: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["xmi", "export", str(two[0]), "-o", str(tmp_path / "xa")]) == 0  # for its .ecore files
    for name, project in zip("ab", two, strict=True):
        assert main(["json", "export", str(project), "-o", str(tmp_path / f"{name}.json")]) == 0
    capsys.readouterr()
    left, right = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["diff", str(left), str(right)]) == 2  # no .ecore beside them: no metamodel
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"note: no .ecore file beside {left} and none given with --ecore"
    )
    given = [arg for e in sorted((tmp_path / "xa").glob("*.ecore")) for arg in ("--ecore", str(e))]
    assert (
        main(["diff", str(left), str(right), *given, "--format", "json", "-o", str(tmp_path / "d.json")]) == 1
    )
    from_files = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    from_projects = render.to_data(cfmodel.diff(compile_project(two[0]), compile_project(two[1])))
    assert from_files["instances"] == from_projects["instances"]


def test_resource_graphs_by_id_and_edges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = webshop_graph()
    b = GraphBuilder("webshop", "cf")
    for res in a:
        if res.id == "std::Service[db1,name=nginx]":
            continue
        attributes = dict(res.attributes)
        if res.id == "std::File[web1,path=/etc/nginx.conf]":
            attributes["mode"] = 416
        b.resource(res.kind, res.name, agent=res.agent, key=res.key, attributes=attributes, meta=res.meta)
    b.resource("std::Package", "curl", agent="web1", key="name")
    for edge in a.edges:
        if edge.target != "std::Service[db1,name=nginx]":
            if edge.kind.notifies:
                b.notify(edge.source, edge.target)
            else:
                b.requires(edge.target, edge.source)
    write_graph(tmp_path / "a.xmi", a)
    write_graph(tmp_path / "b.json", b.build())
    assert main(["diff", str(tmp_path / "a.xmi"), str(tmp_path / "b.json")]) == 1
    assert capsys.readouterr().out == "\n".join(
        [
            f"--- {tmp_path / 'a.xmi'}",
            f"+++ {tmp_path / 'b.json'}",
            "resources:",
            "~ std::File std::File[web1,path=/etc/nginx.conf]",
            "    mode: 420 → 416",
            "+ std::Package std::Package[web1,name=curl]",
            "- std::Service std::Service[db1,name=nginx]",
            "edges:",
            "- notifies std::File[db1,path=/etc/nginx.conf] -> std::Service[db1,name=nginx]",
            "- sendrecv content -> reload std::File[web1,path=/etc/nginx.conf] -> std::Service[db1,name=nginx]",
            "1 added, 3 removed, 1 changed",
            "",
        ]
    )


def test_objects_without_ids_match_by_content() -> None:
    left = [em.Fact(name="a", value="1"), em.Fact(name="b", value="2")]
    right = [em.Fact(name="b", value="2"), em.Fact(name="a", value="9")]
    result = diff(Objects(left, lambda _: None, "l"), Objects(right, lambda _: None, "r"))
    assert [(d.change, d.identity, d.values) for d in result.objects] == [
        ("removed", "environments:Fact#1", {"name": "a", "value": "1"}),
        ("added", "environments:Fact#2", {"name": "a", "value": "9"}),
    ]
    with pytest.raises(cfmodel.CfModelError):
        diff(object(), object())


def test_the_differences_model_loads_in_real_emf(two: tuple[Path, Path], tmp_path: Path) -> None:
    from pyecore.resources import ResourceSet

    from cfmodel.metamodel import diff as dm
    from cfmodel.serializers import canonical, ecore, read
    from cfmodel.serializers.base import register_packages
    from tests.conftest import skip_or_fail
    from tests.emf.emf import EmfUnavailableError, build_checker

    out = tmp_path / "d.xmi"
    assert main(["diff", str(two[0]), str(two[1]), "--format", "xmi", "-o", str(out)]) == 1
    rset = ResourceSet()
    register_packages(rset, [dm.PACKAGE])
    (root,) = read(out, rset).roots
    host = next(d for d in root.instances if d.element == "Host[h1]")
    assert (host.change.name, [(a.feature, a.left, a.right) for a in host.attributes]) == (
        "changed",
        [("port", "80", "8080")],
    )
    assert [(r.feature, list(r.added), list(r.removed)) for r in host.relations] == [
        ("disks", [], ["Disk[d1]"])
    ]
    ecore.write(tmp_path / "diff.ecore", dm.PACKAGE)
    try:
        emf = build_checker()
    except EmfUnavailableError as exc:
        skip_or_fail(f"real EMF unavailable: {exc}")
        raise
    report = emf.check([tmp_path / "diff.ecore"], [out])
    assert report.problems() == [] and report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    assert report.dump("d.xmi") == canonical.dump_objects([root], {})


def test_the_process_entry_leaves_what_it_built_out_of_shutdowns_collections(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gc

    assert gc.get_freeze_count() == 0
    assert main(["explain-code", "bad-value"]) == 0  # called with arguments: nothing frozen
    assert gc.get_freeze_count() == 0
    monkeypatch.setattr("sys.argv", ["cfmodel", "explain-code", "bad-value"])
    try:
        assert main() == 0  # the process entry: shutdown's collections skip the heap
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert "bad-value" in capsys.readouterr().out


def test_ids_read_from_files_are_shown_as_the_keys_they_were_made_of() -> None:
    from cfmodel.serializers.base import key_of_ncname, ncname_id
    from cfmodel.transforms.diff.compare import _Side

    keys = [
        "Host_1",
        "h1",
        "_x",
        "a_5f_b",
        "web.Database[db.example.com]",
        "a_b_c",
        "_5f_",
        "a b",
        "1st",
        "é",
    ]
    for raws, shown in ((keys, [key_of_ncname(k) for k in keys]), ([ncname_id(k) for k in keys], keys)):
        objects = [object() for _ in raws]
        raw_of = dict(zip(map(id, objects), raws, strict=True))
        side = _Side(objects, lambda o, raw_of=raw_of: raw_of[id(o)])  # type: ignore[misc]
        assert [side.identity[id(o)] for o in objects] == shown
