"""Inmanta 20's deploy-time references: in instances, at the plugin boundary, in the export.

A v1 module written here defines references as module code does (``from inmanta.references
import Reference, reference``; cfmodel's stand-in answers). The ids asserted are the ones
inmanta-core 20.1 computes for the same references (std's ``std::Environment`` with the
argument ``name``, recorded from ``inmanta export -j`` of std 8.7.5's own test model): the
same reference has the same id in both exports; every kind of argument is serialized by
both implementations and compared (`test_references_serialize_as_inmanta_core_serializes_them`).
The real std's references are compared with inmanta-core by the module corpus
(``tests/modules/test_agreement.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cfmodel.transforms.cf.export import export_resources
from tests.compat.inmanta import inmanta_python
from tests.compiler.conftest import Project, error_of
from tests.conftest import skip_or_fail

PLUGINS = """
from inmanta.plugins import plugin, allow_reference_values
from inmanta.references import Reference, reference
from inmanta.resources import resource, PurgeableResource


@reference("std::Environment")
class EnvironmentReference(Reference[str]):
    def __init__(self, name: "str | Reference[str]") -> None:
        super().__init__()
        self.name = name

    def resolve(self, logger):
        return "never at compile time"


@reference("refs::Number")
class NumberReference(Reference[int]):
    def __init__(self, value: object) -> None:
        super().__init__()
        self.value = value


@plugin
def env(name: str | Reference[str]) -> Reference[str]:
    return EnvironmentReference(name)


@plugin
def number(value: object | Reference) -> Reference[int]:
    return NumberReference(value)


@plugin
def upper(text: "string") -> "string":
    return text.upper()


@plugin
def read(box: "refs::Box") -> "string":
    return box.text


@plugin
def read_allowed(box: "refs::Box") -> object | Reference:
    return allow_reference_values(box).text


@plugin
def count(items: list[object | Reference]) -> int:
    return len(items)


@resource("refs::Box", agent="agent", id_attribute="name")
class Box(PurgeableResource):
    fields = ("name", "text", "size", "config", "items")
"""

MODEL = """
entity Box extends std::PurgeableResource:
    string name
    string agent = "a1"
    string text = ""
    int size = 0
    dict config = {}
    string[] items = []
end
implement Box using std::none
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project(tmp_path / "project")
    made.write({"project.yml": "name: p\nmodulepath: libs\n"})
    return made.module("refs", {"plugins/__init__.py": PLUGINS, "model/_init.cf": MODEL})


META = "47a650cc-97e3-347b-9f87-923f8202a5ef"  # std::Environment(name="METATESTENV"), by inmanta-core 20.1
VALUE = "1a066ade-4253-34be-af1d-d0fc84d33aa7"  # std::Environment(name=<the one above>)


def test_references_are_exported_as_inmanta_exports_them(project: Project) -> None:
    project.write(
        {
            "main.cf": """
                import refs
                meta = refs::env("METATESTENV")
                value = refs::env(meta)
                value = refs::env(meta)  # an equal reference is the same value
                refs::Box(name="b", text=value, config={"k": value, "plain": 1}, items=["x", value])
            """
        }
    )
    [box] = export_resources(project.compile()).document
    assert (box["text"], box["config"], box["items"]) == (None, {"k": None, "plain": 1}, ["x", None])
    assert box["references"] == [
        {"type": "std::Environment", "args": [{"type": "reference", "name": "name", "id": META}], "id": VALUE},
        {"type": "std::Environment", "args": [{"type": "literal", "name": "name", "value": "METATESTENV"}], "id": META},
    ]  # fmt: skip
    assert sorted(m["args"][2]["value"] for m in box["mutators"]) == ["config.'k'", "items[1]", "text"]
    assert box["mutators"][0]["type"] == "core::Replace"
    assert {tuple(a["type"] for a in m["args"]) for m in box["mutators"]} == {
        ("resource", "reference", "literal")
    }
    assert {m["args"][0]["id"] for m in box["mutators"]} == {"refs::Box[a1,name=b]"}
    assert {m["args"][1]["id"] for m in box["mutators"]} == {VALUE}


def test_a_reference_of_another_type_is_a_located_type_error(project: Project) -> None:
    assert error_of(project, 'import refs\nrefs::Box(name="b", text=refs::number(1))\n') == (
        "main.cf:2:21: error: attribute 'text' of refs::Box instance (created at main.cf:2:1) must be a "
        "string, not a reference to int (refs::Number(value=1))  [type-error]"
    )


def test_an_int_reference_fits_an_int_attribute_and_leaves_the_instance_model_unset(project: Project) -> None:
    result = project.write(
        {"main.cf": 'import refs\nrefs::Box(name="b", size=refs::number(refs::env("N")))\n'}
    )
    compiled = result.compile()
    [box] = export_resources(compiled).document
    assert box["size"] is None
    assert sorted(r["type"] for r in box["references"]) == ["refs::Number", "std::Environment"]
    assert [r["id"] for r in box["references"]] == sorted(r["id"] for r in box["references"])
    [model_box] = compiled.instances("refs::Box")
    assert not model_box.eIsSet("size")


def test_plugins_take_references_only_where_their_annotation_says_so(project: Project) -> None:
    assert error_of(project, 'import refs\nx = refs::upper(refs::env("A"))\n') == (
        "main.cf:2:5: error: argument 'text' of plugin refs::upper: references are not allowed for values "
        'of type string (std::Environment(name="A")); a plugin takes them where its annotation says '
        "`... | Reference[...]`  [plugin-type]"
    )
    assert error_of(project, 'import refs\nx = refs::upper(["a", refs::env("A")])\n').startswith(
        "main.cf:2:5: error: argument 'text' of plugin refs::upper: references are not allowed"
    )
    main = 'import refs\nrefs::Box(name="b", size=refs::count(["a", refs::env("A")]))\n'
    [box] = export_resources(project.write({"main.cf": main}).compile()).document
    assert box["size"] == 2


def test_reading_a_reference_through_an_instance_needs_allow_reference_values(project: Project) -> None:
    text = error_of(project, 'import refs\nb = refs::Box(name="b", text=refs::env("A"))\nx = refs::read(b)\n')
    assert text.startswith(
        "main.cf:3:5: error: refs::read: Encountered unexpected reference value during plugin execution: "
        "attribute 'text' of refs::Box instance (created at main.cf:2:5) is std::Environment(name=\"A\")."
    )
    assert text.endswith("[plugin-error]")
    main = 'import refs\nb = refs::Box(name="b", text=refs::env("A"))\nx = refs::read_allowed(b)\nrefs::Box(name="c", text=x)\n'
    document = export_resources(project.write({"main.cf": main}).compile()).document
    assert [r["references"][0]["args"] for r in document] == [
        [{"type": "literal", "name": "name", "value": "A"}]
    ] * 2


def test_a_reference_in_a_template_is_an_error(project: Project) -> None:
    project.write({"libs/refs/templates/t.j2": "Hello {{ world }}"})
    assert error_of(project, 'import refs\nworld = refs::env("W")\nx = std::template("refs/t.j2")\n') == (
        "main.cf:3:5: error: std::template: Encountered reference in Jinja template for variable world "
        '(= `std::Environment(name="W")`)  [plugin-error]'
    )


def test_a_reference_in_the_id_attribute_is_an_export_error(project: Project) -> None:
    project.write({"main.cf": 'import refs\nrefs::Box(name=refs::env("N"))\n'})
    with pytest.raises(Exception) as info:
        export_resources(project.compile())
    assert 'is a reference (std::Environment(name="N")): an id is known at compile time' in str(info.value)


def test_a_reference_in_an_index_is_a_type_error(project: Project) -> None:
    main = "import refs\nentity K:\n    string name\nend\nindex K(name)\nimplement K using std::none\n"
    assert error_of(project, main + 'K(name=refs::env("A"))\n') == (
        "main.cf:7:1: error: index attribute 'name' of __config__::K is a reference (std::Environment(name=\"A\")): "
        "references cannot be used in indexes (they are resolved at deploy time)  [type-error]"
    )


def test_a_reference_has_no_text_at_compile_time(project: Project) -> None:
    for line, column in (('x = "a{{ref}}"', 9), ('x = f"a{ref}"', 5)):
        assert error_of(project, f'import refs\nref = refs::env("A")\n{line}\n') == (
            f'main.cf:3:{column}: error: std::Environment(name="A") is a reference, resolved at deploy time: it '
            "cannot be written into a string  [type-error]"
        )


def test_equal_references_are_equal_values(project: Project) -> None:
    main = 'import refs\nref = refs::env("A")\nx = ref == refs::env("A")\ny = ref == refs::env("B")\n'
    main += 'refs::Box(name="b", config={"same": x, "other": y, "defined": ref is defined})\n'
    [box] = export_resources(project.write({"main.cf": main}).compile()).document
    assert box["config"] == {"same": True, "other": False, "defined": True}


PEER_SCRIPT = """
import json, sys
if sys.argv[1] == "inmanta-core":
    from inmanta import protocol
    from inmanta.references import Reference, reference
    serialized = lambda r: json.loads(protocol.json_encode(r.serialize()))
else:
    from cfmodel.references import Reference, reference
    serialized = lambda r: r.serialize().model_dump()

@reference("t::R")
class R(Reference[str]):
    def __init__(self, a, b=None, c=None, d=None):
        super().__init__()
        self.a, self.b, self.c, self.d = a, b, c, d

inner = R("x")
outer = R(1.5, {"k": [inner, 2], "q": "it's"}, inner, str)
plain = R(True, [1, "a", None], {"n": {"m": 1.25}}, None)
print(json.dumps([serialized(r) for r in (inner, outer, plain)], sort_keys=True))
"""


def test_references_serialize_as_inmanta_core_serializes_them() -> None:
    """Every kind of argument (literal, json, JSON holding a reference, reference, python type):
    the same document and ids as inmanta-core 20.1's own serialization."""
    python = inmanta_python(create=True)
    if python is None:
        skip_or_fail("the reference compiler (inmanta-core 20.1) could not be installed in its venv")
        return
    repo = str(Path(__file__).resolve().parents[2])
    runs = {
        "cfmodel": [sys.executable, "-c", PEER_SCRIPT, "cfmodel"],
        "inmanta-core": [str(python), "-c", PEER_SCRIPT, "inmanta-core"],
    }
    out = {
        name: subprocess.run(
            command, capture_output=True, text=True, check=True, env={"PYTHONPATH": repo}
        ).stdout
        for name, command in runs.items()
    }
    assert out["cfmodel"] == out["inmanta-core"]
    assert '"type": "mjson"' in out["cfmodel"] and "\"$.'k'[0]\"" in out["cfmodel"]
