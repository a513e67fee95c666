"""Lift: the derived metamodel of a project, checked as .ecore text and through its API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyecore.ecore import EAttribute, EClass, EEnum, EReference

from cfmodel.errors import CfCompileError, CfUsageError
from cfmodel.pipeline import compile_project
from cfmodel.serializers import canonical, ecore, xmi
from cfmodel.serializers import json as json_format
from cfmodel.transforms.cf import lift as lift_module
from cfmodel.transforms.cf.lift import LiftOptions, namespace_prefix, namespace_uri

from .helpers import RICH, WEBSHOP, lifted

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("root", ["infra", "__config__"])
def test_rich_fixture_ecore_is_golden(root: str, update_golden: bool) -> None:
    data = lifted(RICH).ecore_files()[f"{root}.ecore"]
    golden = GOLDEN / "rich" / f"{root}.ecore"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(data)
    assert data.decode("utf-8") == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("project", [RICH, WEBSHOP], ids=["rich", "webshop"])
def test_lifting_is_deterministic(project: Path) -> None:
    assert lifted(project).ecore_files() == lifted(project).ecore_files()


def test_one_package_per_namespace_nested_by_module() -> None:
    mm = lifted(RICH)
    assert [p.name for p in mm.packages] == ["__config__", "infra", "std"]
    assert sorted(mm.namespaces) == ["__config__", "infra", "infra::net", "std"]
    net = mm.package("infra::net")
    assert net.eSuperPackage is mm.package("infra")
    assert (net.nsURI, net.nsPrefix) == ("http://cfmodel.org/model/infra/net", "infra.net")
    assert mm.package("__config__").nsPrefix == "__config__"


def test_uri_scheme() -> None:
    assert namespace_uri("a::b::c") == "http://cfmodel.org/model/a/b/c"
    assert namespace_uri("a", "urn:x:") == "urn:x:a"
    assert namespace_prefix("a::b") == "a.b"
    assert namespace_prefix("xmltools::sub") == "_xmltools.sub"
    mm = lifted(RICH, LiftOptions(uri_base="http://example.org/m/"))
    assert mm.package("infra::net").nsURI == "http://example.org/m/infra/net"


def test_every_parent_is_a_supertype_and_std_entity_is_the_root() -> None:
    mm = lifted(RICH)
    web = mm.eclass("infra::Web")
    assert [s.name for s in web.eSuperTypes] == ["Server", "Logged"]
    entity = mm.eclass("std::Entity")
    for eclass in mm.classes():
        assert eclass is entity or entity in eclass.eAllSuperTypes()


TYPE_TABLE = [
    # attribute, eType name, lower, upper, unique, default literal, cf type annotation
    ("name", "hoststring", 1, 1, True, None, None),
    ("os", "os", 1, 1, True, "linux", None),
    ("tags", "EString", 0, -1, False, None, None),
    ("cpus", "ELongObject", 1, 1, True, "2", None),
    ("load", "ratio", 1, 1, True, "0.5", None),
    ("weight", "EDoubleObject", 1, 1, True, "1.0", "number"),
    ("managed", "EBooleanObject", 1, 1, True, "true", None),
    ("options", "EString", 1, 1, True, '{"a": [1, 2], "b": 1}', "dict"),
    ("extra", "EString", 1, 1, True, '["x"]', "list"),
    ("labels", "labels", 1, 1, True, '{"owner": "ops"}', None),
    ("comment", "EString", 0, 1, True, None, None),
    ("ports", "ELongObject", 0, -1, False, None, "int[]?"),
    ("admin_port", "high_port", 1, 1, True, "8443", None),
    ("motd", "EString", 1, 1, True, "Welcome", None),
]


@pytest.mark.parametrize(("name", "etype", "lower", "upper", "unique", "literal", "cf_type"), TYPE_TABLE)
def test_type_mapping(
    name: str, etype: str, lower: int, upper: int, unique: bool, literal: str | None, cf_type: str | None
) -> None:
    feature = lifted(RICH).eattribute("infra::Machine", name)
    assert (feature.eType.name, feature.lowerBound, feature.upperBound, feature.unique) == (
        etype,
        lower,
        upper,
        unique,
    )
    assert feature.defaultValueLiteral == literal
    assert lift_module.cf_type_of(feature) == cf_type


def test_defaults_that_are_no_ecore_literal_are_annotated() -> None:
    mm = lifted(RICH)
    details = {
        n: mm.eattribute("infra::Machine", n).getEAnnotation(lift_module.DEFAULT)
        for n in ("tags", "motd", "cpus")
    }
    assert details["tags"].details["value"] == "[]"
    assert details["motd"] is None
    assert details["cpus"] is None
    assert (
        mm.eattribute("__config__::Site", "alias").getEAnnotation(lift_module.DEFAULT).details["value"]
        == "null"
    )
    server = mm.eclass("infra::Server")
    assert dict(server.getEAnnotation(lift_module.DEFAULTS).details) == {"cpus": "4", "motd": "undef"}
    assert [f.name for f in server.eStructuralFeatures] == ["disks", "site"]  # no second cpus


def test_typedefs_enums_indexes_docs_and_constructors() -> None:
    mm = lifted(RICH)
    high = mm.edatatype("infra::high_port")
    assert high.instanceClassName == "java.lang.Long"
    assert dict(high.getEAnnotation(lift_module.TYPEDEF).details) == {
        "base": "infra::port",
        "primitive": "int",
        "condition": "self >= 1024",
    }
    renamed = mm.edatatype("infra::ip")
    assert renamed.name == "ip_type" and mm.name_of(renamed) == "infra::ip"
    os = mm.eenum("infra::os")
    assert [(lit.name, lit.literal) for lit in os.eLiterals] == [
        ("unix", "unix"),
        ("windows", "windows"),
        ("linux", "linux"),
        ("free_bsd", "free-bsd"),
    ]
    machine = mm.eclass("infra::Machine")
    assert dict(machine.getEAnnotation(lift_module.INDEX).details) == {"1": "name"}
    assert machine.getEAnnotation(lift_module.GENMODEL).details["documentation"] == (
        "A machine.\n\nEvery machine has a name."
    )
    assert dict(mm.package("infra").getEAnnotation(lift_module.CONSTRUCTORS).details) == {
        "Big": 'infra::Server(cpus=16, tags=["big"])'
    }


def test_relations_become_paired_references() -> None:
    mm = lifted(RICH)
    disks = mm.ereference("infra::Server", "disks")
    assert (disks.lowerBound, disks.upperBound, disks.containment) == (1, 4, False)
    assert disks.eOpposite is mm.ereference("infra::Disk", "server")
    assert mm.ereference("infra::Disk", "server").eOpposite is disks
    uni = mm.ereference("__config__::Site", "networks")
    assert uni.eOpposite is None and uni.eType is mm.eclass("infra::net::Network")
    peers = mm.ereference("infra::Machine", "peers")
    assert peers.eOpposite is None
    assert peers.getEAnnotation(lift_module.RELATION).details["symmetric"] == "true"
    owner = mm.ereference("infra::Machine", "owner")
    assert owner.getEAnnotation(lift_module.RELATION).details["annotations"] == '"owner", 1'
    inherited = mm.ereference("infra::Web", "site")  # reached through Server
    assert inherited.eContainingClass is mm.eclass("infra::Server")


def test_lookups_by_program_objects_and_spans_side_table() -> None:
    mm = lifted(RICH)
    assert mm.program is not None
    entity = mm.program.entity("infra::Machine")
    eclass = mm.eclass(entity)
    assert mm.entity_of(eclass) is entity
    assert isinstance(mm.efeature(entity, "peers"), EReference)
    assert isinstance(mm.eattribute(entity, "name"), EAttribute)
    span = mm.span_of(eclass)
    assert span is not None and span.file.endswith("infra/model/_init.cf") and span.line == 21
    assert mm.span_of(mm.eattribute(entity, "name")).line == 27  # type: ignore[union-attr]
    text = b"".join(lifted(RICH).ecore_files().values())
    assert b"cfmodel.org/source" not in text and b"_init.cf" not in text


def test_spans_exported_when_asked() -> None:
    mm = lifted(RICH, LiftOptions(spans=True))
    eclass = mm.eclass("infra::Machine")
    span = eclass.getEAnnotation(lift_module.SOURCE).details["span"]
    assert span.endswith("infra/model/_init.cf:21:8-21:15")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda mm: mm.eclass("infra::Nope"), "no entity 'infra::Nope' in this metamodel"),
        (
            lambda mm: mm.eclass("Machine"),
            "no entity 'Machine' in this metamodel; did you mean infra::Machine?",
        ),
        (
            lambda mm: mm.eattribute("infra::Machine", "peers"),
            "infra::Machine.peers is a relation, not an attribute",
        ),
        (
            lambda mm: mm.ereference("infra::Machine", "name"),
            "infra::Machine.name is an attribute, not a relation",
        ),
        (lambda mm: mm.efeature("infra::Machine", "x"), "infra::Machine has no attribute or relation 'x'"),
        (lambda mm: mm.package("nope"), "no namespace 'nope' in this metamodel"),
    ],
)
def test_lookup_errors(call: object, message: str) -> None:
    with pytest.raises(CfUsageError) as error:
        call(lifted(RICH))  # type: ignore[operator]
    assert error.value.message == message


def test_instances_through_the_api_round_trip_xmi_and_json(tmp_path: Path) -> None:
    mm = lifted(RICH)
    server = mm.create(
        "infra::Server",
        name="web1",
        os="free-bsd",
        tags=["a", "a"],
        load=1,
        weight=2,
        options={"k": [1]},
        extra=[1, "x"],
        labels={"owner": "me"},
        admin_port=8080,
        motd="hello",
    )
    disk = mm.create("infra::Disk", size_gb=10, server=server)
    assert mm.get(server, "options") == {"k": [1]}
    assert mm.get(server, "os") == "free-bsd"
    assert mm.get(server, "tags") == ["a", "a"]
    assert mm.get(server, "load") == 1.0 and isinstance(server.load, float)
    assert list(server.disks) == [disk]
    rset = mm.resource_set()
    xmi.write(tmp_path / "m.xmi", [server, disk])
    doc = xmi.read(tmp_path / "m.xmi", rset)
    assert canonical.dump_objects(doc.roots) == canonical.dump_objects([server, disk])
    json_format.write(tmp_path / "m.json", [server, disk])
    data = json.loads((tmp_path / "m.json").read_text())
    assert data[0]["eClass"] == f"{server.eClass.ePackage.nsURI}#//Server"
    assert canonical.dump_objects(
        json_format.read(tmp_path / "m.json", mm.resource_set()).roots
    ) == canonical.dump_objects([server, disk])


def test_written_files_read_back_equal(tmp_path: Path) -> None:
    mm = lifted(RICH)
    paths = mm.write(tmp_path)
    assert sorted(p.name for p in paths) == ["__config__.ecore", "infra.ecore", "std.ecore"]
    from cfmodel.transforms.cf.ecore_import import read_ecore_files

    packages = read_ecore_files(paths)
    assert canonical.dump_packages(sorted(packages, key=lambda p: p.name)) == canonical.dump_packages(
        mm.packages
    )


def test_classes_and_enums_are_typed() -> None:
    mm = lifted(RICH)
    assert all(isinstance(c, EClass) for c in mm.classes())
    assert isinstance(mm.classifier("infra::os"), EEnum)
    assert ecore.to_bytes(mm.package("infra"))  # valid Ecore, as the writer checks


def test_computed_defaults_are_refused(tmp_path: Path) -> None:
    """A default is a literal (the language reference's grammar, and inmanta-core): an
    expression, an interpolated string, a variable or a nested list is refused where it is."""
    (tmp_path / "main.cf").write_text(
        "entity A:\n"
        "    int eight = 2 ** 3\n"
        '    string motd = "hi {{name}}"\n'
        "    list nested = [1, [2]]\n"
        "    int n = -1\n"
        '    dict d = {"a": [1, 2], "b": {"c": null}}\n'
        "end\n"
        "implement A using std::none\n"
        "A()\n",
        encoding="utf-8",
    )
    with pytest.raises(CfCompileError) as caught:
        compile_project(tmp_path)
    assert [(d.span.line, d.span.col, d.code) for d in caught.value.items if d.span is not None] == [
        (2, 17, "bad-default"),
        (3, 19, "bad-default"),
        (4, 23, "bad-default"),
    ]
