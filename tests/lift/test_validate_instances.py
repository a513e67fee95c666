"""Instance models without the compiler: load a metamodel, make objects, validate them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cfmodel.errors import CfModelError, CfUsageError
from cfmodel.pipeline import compile_project
from cfmodel.serializers import xmi
from cfmodel.transforms.cf.validate_instances import load_metamodel, validate

from .helpers import RICH


@pytest.fixture(scope="module")
def mm():  # type: ignore[no-untyped-def]
    return load_metamodel(RICH)


def good_server(mm, name="web1", **extra):  # type: ignore[no-untyped-def]
    server = mm.create("infra::Server", name=name, motd="hi", **extra)
    for size in (10, 20):
        mm.create("infra::Disk", size_gb=size, server=server)
    return server


def test_a_valid_model_has_no_problems(mm) -> None:  # type: ignore[no-untyped-def]
    server = good_server(mm)
    report = validate([server, *server.disks])
    assert report.ok
    assert str(report) == "3 objects, 0 errors, 0 notes"
    assert [o.label for o in report.objects] == [
        'infra::Server[name="web1"]',
        "infra::Disk #1",
        "infra::Disk #2",
    ]


def test_every_kind_of_problem_with_its_full_text(mm) -> None:  # type: ignore[no-untyped-def]
    bad = mm.create(
        "infra::Server",
        name="Web1",
        admin_port=80,
        load=2.0,
        labels={"team": "x"},
        motd="m",
        cpus=True,
        ports=[1],
    )
    bad.eSet("options", "not json")
    bad.eSet("extra", '{"not": "a list"}')
    twin = good_server(mm, name="Web1")
    orphan = mm.create("infra::Disk", size_gb=1)
    address = mm.create("infra::IP", address="1.2.3.x")
    web = mm.create("infra::Web", name="w")
    report = validate([bad, twin, orphan, address, web])
    assert not report.ok
    assert str(report) == "\n".join(
        [
            'infra::Server[name="Web1"]: error: name: "Web1" does not match /^[a-z0-9.-]+$/ of infra::hoststring  '
            "[constraint]",
            'infra::Server[name="Web1"]: error: cpus: true is not a valid int  [type]',
            'infra::Server[name="Web1"]: error: load: 2.0 does not satisfy the condition of infra::ratio '
            "(self >= 0.0 and self <= 1.0)  [constraint]",
            'infra::Server[name="Web1"]: error: options: "not json" is not valid JSON  [type]',
            'infra::Server[name="Web1"]: error: extra: JSON "{\\"not\\": \\"a list\\"}" is not a list  [type]',
            'infra::Server[name="Web1"]: error: labels: {"team": "x"} does not satisfy the condition of '
            'infra::labels ("owner" in self)  [constraint]',
            'infra::Server[name="Web1"]: error: admin_port: 80 does not satisfy the condition of infra::high_port '
            "(self >= 1024)  [constraint]",
            'infra::Server[name="Web1"]: error: disks: 0 values, expected [1..4]  [bounds]',
            'infra::Server[name="Web1"] #1: error: name: "Web1" does not match /^[a-z0-9.-]+$/ of infra::hoststring  '
            "[constraint]",
            'infra::Server[name="Web1"] #1: error: index infra::Machine(name): same key as infra::Server[name="Web1"]  '
            "[index]",
            "infra::Disk #2: error: server: required relation is not set  [bounds]",
            'infra::IP #3: error: address: "1.2.3.x" does not match /^[0-9.]+$/ of infra::ip  [constraint]',
            'infra::Web[name="w"]: error: disks: 0 values, expected [1..4]  [bounds]',
            'infra::Web[name="w"]: error: vhost: required attribute is not set  [bounds]',
            "5 objects, 14 errors, 0 notes",
        ]
    )
    assert [p.kind for p in report.of(orphan).problems] == ["bounds"]


def test_the_typedef_chain_checks_the_base_first(mm) -> None:  # type: ignore[no-untyped-def]
    server = good_server(mm, admin_port=70000)
    problems = validate([server, *server.disks]).of(server).problems
    assert [str(p) for p in problems] == [
        "admin_port: 70000 does not satisfy the condition of infra::port (self > 0 and self < 65536)  [constraint]"
    ]


def test_out_of_java_range_is_a_type_problem(mm) -> None:  # type: ignore[no-untyped-def]
    server = good_server(mm, cpus=2**70)
    assert [str(p) for p in validate(server).of(server).problems] == [
        "cpus: 1180591620717411303424 is not a valid ELongObject (the Ecore type of ELongObject)  [type]"
    ]


def test_plugin_conditions_are_not_checked_without_a_runtime(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text(
        "typedef b64 as string matching std::is_base64_encoded(self)\nentity Blob:\n    b64 data\nend\n",
        encoding="utf-8",
    )
    mm = load_metamodel(tmp_path)
    blob = mm.create("__config__::Blob", data="eA==")
    report = validate(blob)
    assert report.ok
    assert str(report) == (
        "__config__::Blob #0: note: data: the condition of __config__::b64 was not checked: "
        "plugin call std::is_base64_encoded(...) needs a plugin runtime  [not-checked]\n"
        "1 objects, 0 errors, 1 note"
    )
    checked = validate(blob, plugins={"std::is_base64_encoded": lambda s: s.endswith("==")})
    assert checked.ok and checked.problems == []
    failing = validate(blob, plugins={"std::is_base64_encoded": lambda s: False})
    assert [p.kind for _, p in failing.problems] == ["constraint"]


def test_opposites_that_do_not_point_back(mm) -> None:  # type: ignore[no-untyped-def]
    server = good_server(mm)
    disk = server.disks[0]
    stray = mm.create("infra::Disk", size_gb=5)
    stray.eGet("server")
    stray.__dict__["server"]._set(server, update_opposite=False)
    problems = validate([server, disk, stray]).of(stray).problems
    assert [str(p) for p in problems] == ["server: infra::Server does not list it back in disks  [opposite]"]


def test_a_metamodel_from_ecore_files_validates_the_same(mm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    paths = mm.write(tmp_path / "ecore")
    from_files = load_metamodel(paths)
    bad = from_files.create("infra::Server", name="Web1", motd="x")
    problems = [str(p) for p in validate(bad).of(bad).problems]
    assert problems == [
        'name: "Web1" does not match /^[a-z0-9.-]+$/ of infra::hoststring  [constraint]',
        "disks: 0 values, expected [1..4]  [bounds]",
    ]
    infra_only = load_metamodel([tmp_path / "ecore" / "infra.ecore", tmp_path / "ecore" / "__config__.ecore"])
    assert infra_only.eclass("std::Entity").name == "Entity"  # the built-in std fills in


def test_a_document_read_from_xmi_validates(mm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = good_server(mm)
    xmi.write(tmp_path / "m.xmi", [server, *server.disks])
    doc = xmi.read(tmp_path / "m.xmi", mm.resource_set())
    assert validate(doc).ok
    assert validate(doc.resource).ok


def test_load_metamodel_refuses_other_paths(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("", encoding="utf-8")
    with pytest.raises(CfUsageError):
        load_metamodel(tmp_path / "x.txt")


CONDITIONS = """\
typedef one as bool matching self == 1
typedef early as string matching self < "m"
typedef first_big as list matching self[0] > 1
typedef tagged as list matching 1 in self
typedef port as int matching self > 0 and self < 65536
typedef has_owner as dict matching self["owner"] is defined
entity A:
    one? b = null
    early? s = null
    first_big? l = null
    tagged? t = null
    port? p = null
    has_owner? d = null
end
implement A using std::none
"""
CREATED = "main.cf:16:3: error: attribute '{}' of __config__::A instance (created at main.cf:16:1): "


@pytest.mark.parametrize(
    ("attribute", "source", "value", "compiled", "validated"),
    [
        # inmanta-core 14 takes true here (a bool is an int there); cfmodel's two evaluators do not
        (
            "b",
            "true",
            True,
            CREATED.format("b") + "true does not satisfy typedef __config__::one  [typedef]",
            "true does not satisfy the condition of __config__::one (self == 1)",
        ),
        (
            "s",
            '"a"',
            "a",
            'main.cf:2:34: error: \'<\' compares numbers, not string "a" and string "m"  [type-error]',
            'the condition of __config__::early cannot be evaluated for "a": '
            '\'<\' compares numbers, not string "a" and string "m"',
        ),
        (
            "l",
            "[2]",
            "[2]",
            "main.cf:3:36: error: [...] looks up a key in a dict; [2] is list  [type-error]",
            "the condition of __config__::first_big cannot be evaluated for [2]: "
            "[...] looks up a key in a dict; [2] is list",
        ),
        (
            "t",
            "[true]",
            "[true]",
            CREATED.format("t") + "[true] does not satisfy typedef __config__::tagged  [typedef]",
            "[true] does not satisfy the condition of __config__::tagged (1 in self)",
        ),
        ("t", "[1.0]", "[1.0]", None, None),
        ("p", "80", 80, None, None),
        (
            "p",
            "0",
            0,
            CREATED.format("p") + "0 does not satisfy typedef __config__::port  [typedef]",
            "0 does not satisfy the condition of __config__::port (self > 0 and self < 65536)",
        ),
        ("d", '{"owner": "ops"}', '{"owner": "ops"}', None, None),
        (
            "d",
            '{"owner": null}',
            '{"owner": null}',
            CREATED.format("d") + '{"owner": null} does not satisfy typedef __config__::has_owner  [typedef]',
            '{"owner": null} does not satisfy the condition of __config__::has_owner (self["owner"] is defined)',
        ),
    ],
)
def test_typedef_conditions_are_judged_as_the_compiler_judges_them(
    tmp_path: Path, attribute: str, source: str, value: object, compiled: str | None, validated: str | None
) -> None:
    (tmp_path / "main.cf").write_text(CONDITIONS + f"A({attribute}={source})\n", encoding="utf-8")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        if compiled is None:
            compile_project(".")
        else:
            with pytest.raises(CfModelError) as error:
                compile_project(".")
            assert error.value.render().splitlines()[0] == compiled
    finally:
        os.chdir(old)
    created = load_metamodel(tmp_path).create("__config__::A", **{attribute: value})
    problems = [str(p) for p in validate(created).of(created).problems]
    assert problems == ([] if validated is None else [f"{attribute}: {validated}  [constraint]"])
