"""Typedef constraints travel to EMF as ExtendedMetaData facets: EMF's Diagnostician and
cfmodel's `validate_instances` give the same verdict on every row of a table of valid
and invalid values (issue 17: "EMF rejects ``port=70000`` in a cfmodel export")."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest
from pyecore.resources import ResourceSet

from cfmodel.serializers import xmi
from cfmodel.transforms.cf.ecore_import import read_ecore_files
from cfmodel.transforms.cf.facets import facets_of
from cfmodel.transforms.cf.validate_instances import validate
from tests.lift.helpers import lifted

from .emf import EmfChecker

MODEL = """\
typedef port as int matching self > 0 and self < 65536
typedef high_port as port matching self >= 1024
typedef hostname as string matching /^[a-z0-9.-]+$/
typedef label as string matching /[a-z]/
typedef colour as string matching self in ["red", "green"]
typedef code as string matching std::length(self) == 3
typedef shortname as string matching std::length(self) <= 4 and std::length(self) >= 2
typedef ratio as float matching self >= 0.0 and self <= 1.0
typedef offset as int matching -12 <= self and self <= 14
typedef answer as int matching self == 42

entity Holder:
    port? port = null
    high_port? high = null
    hostname? host = null
    label? label = null
    colour? colour = null
    code? code = null
    shortname? short = null
    ratio? ratio = null
    offset? offset = null
    answer? answer = null
end
"""

# (attribute, literal, valid): every facet kind, both sides of every bound
TABLE = [
    ("port", "443", True),
    ("port", "1", True),
    ("port", "65535", True),
    ("port", "0", False),
    ("port", "65536", False),
    ("port", "70000", False),
    ("port", "-1", False),
    ("high", "1024", True),
    ("high", "65535", True),
    ("high", "1023", False),  # its own facet
    ("high", "70000", False),  # the facet of its base type
    ("host", "web01.example.org", True),
    ("host", "Web01", False),
    ("host", "a b", False),
    ("host", "", False),
    ("label", "a-prefix then ANYTHING", True),
    ("label", "Abc", False),
    ("colour", "red", True),
    ("colour", "green", True),
    ("colour", "blue", False),
    ("code", "abc", True),
    ("code", "ab", False),
    ("code", "abcd", False),
    ("short", "ab", True),
    ("short", "abcd", True),
    ("short", "a", False),
    ("short", "abcde", False),
    ("ratio", "0.0", True),
    ("ratio", "0.5", True),
    ("ratio", "1.0", True),
    ("ratio", "1.5", False),
    ("ratio", "-0.1", False),
    ("offset", "-12", True),
    ("offset", "14", True),
    ("offset", "-13", False),
    ("offset", "15", False),
    ("answer", "42", True),
    ("answer", "41", False),
]


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "project.yml").write_text("name: facets\n", encoding="utf-8")
    (project / "main.cf").write_text(MODEL, encoding="utf-8")
    return project


def test_every_typedef_of_the_table_is_exported_as_facets(tmp_path: Path) -> None:
    program_typedefs = {
        name: facets_of(t)
        for name, t in lifted(_project(tmp_path)).program.namespaces["__config__"].typedefs.items()  # type: ignore[union-attr]
    }
    assert program_typedefs == {
        "port": {"minExclusive": "0", "maxExclusive": "65536"},
        "high_port": {"minInclusive": "1024"},
        "hostname": {"pattern": "([a-z0-9.\\-]+)\\n?"},
        "label": {"pattern": "([a-z])[\\s\\S]*"},
        "colour": {"enumeration": "red green"},
        "code": {"length": "3"},
        "shortname": {"minLength": "2", "maxLength": "4"},
        "ratio": {"minInclusive": "0.0", "maxInclusive": "1.0"},
        "offset": {"minInclusive": "-12", "maxInclusive": "14"},
        "answer": {"enumeration": "42"},
    }


def test_emf_and_cfmodel_give_the_same_verdicts(emf: EmfChecker, tmp_path: Path) -> None:
    metamodel = lifted(_project(tmp_path))
    ecores = metamodel.write(tmp_path / "ecore")
    models = []
    for i, (attribute, literal, _) in enumerate(TABLE):
        path = tmp_path / "models" / f"row{i:02d}.xmi"
        path.parent.mkdir(exist_ok=True)
        path.write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<__config__:Holder xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" '
            f'xmlns:__config__="http://cfmodel.org/model/__config__" {attribute}={quoteattr(literal)}/>\n',
            encoding="utf-8",
        )
        models.append(path)
    report = emf.check(ecores, models, dump=False)
    assert report.of_kind("error") == [] and report.of_kind("unresolved") == []
    emf_rejects = {r["file"] for r in report.of_kind("diagnostic")}
    rset = ResourceSet()
    read_ecore_files(ecores, rset)
    verdicts = []
    for i, (attribute, literal, valid) in enumerate(TABLE):
        document = xmi.read(models[i], rset)
        cfmodel_ok = validate(document, plugins={"std::length": len}).ok
        emf_ok = models[i].name not in emf_rejects
        verdicts.append((attribute, literal, valid, cfmodel_ok, emf_ok))
    assert [v for v in verdicts if not v[2] == v[3] == v[4]] == []


@pytest.mark.parametrize(
    "condition",
    [
        "self > 0 or self < -5",  # a disjunction
        "not self == 3",
        "self != 3",
        "std::is_valid(self)",
    ],
)
def test_conditions_without_an_exact_facet_give_none(condition: str, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "project.yml").write_text("name: p\n", encoding="utf-8")
    (project / "main.cf").write_text(f"typedef t as int matching {condition}\n", encoding="utf-8")
    typedef = lifted(project).program.namespaces["__config__"].typedefs["t"]  # type: ignore[union-attr]
    assert facets_of(typedef) == {}
