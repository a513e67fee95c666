"""XML Schema's own types (``XMLType.ecore`` of Debian's ``libeclipse-emf-ecore-java``
jar, read at test setup, never copied into the repository: ``\\i\\c*`` and class
subtraction in its patterns) keep their meaning through ``cfmodel ecore import``; what
cannot be kept (``eKeys``, which PyEcore has no feature for) is refused with a located
error, never dropped. (That every real metamodel imports, checks and round-trips exactly
is `test_emf_round_trip`.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cfmodel.errors import CfSerializationError
from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str
from cfmodel.transforms.cf.ecore_import import import_ecore
from tests.emf.realmetamodels import emf_jar_models, for_tests


@pytest.fixture(scope="module")
def emf_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("emf-models")
    for_tests(lambda: emf_jar_models(folder))
    return folder


def _typedef_regexes(project: Path) -> dict[str, str]:
    found = {}
    for path in project.rglob("*.cf"):
        for statement in parse_str(path.read_text(encoding="utf-8"), str(path)).statements:
            if isinstance(statement, nodes.Typedef) and statement.regex is not None:
                found[statement.name.text] = statement.regex.pattern
    return found


# XML Schema's meaning of each type (XSD Part 2): valid and invalid lexical forms
XSD_TYPES = {
    "NCName": (["abc", "_a-b.c", "été"], ["a:b", "1a", "-a", ""]),
    "Name": (["a:b", ":x", "abc"], ["1a", "a b", ""]),
    "NMTOKEN": (["1a", "a:b", "-"], ["a b", ""]),
    "Language": (["en", "en-US", "x-klingon"], ["englishlanguage", "en_US", "", "en-"]),
}


def test_xml_schema_types_keep_their_meaning(emf_models: Path, tmp_path: Path) -> None:
    import_ecore([emf_models / "XMLType.ecore"], tmp_path / "project", name="XMLType")
    regexes = _typedef_regexes(tmp_path / "project")
    for name, (valid, invalid) in XSD_TYPES.items():
        pattern = regexes[name]
        assert [v for v in valid if re.match(pattern, v) is None] == [], name
        assert [v for v in invalid if re.match(pattern, v) is not None] == [], name


KEYS = """<?xml version="1.0" encoding="UTF-8"?>
<ecore:EPackage xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xmlns:ecore="http://www.eclipse.org/emf/2002/Ecore" name="keys" nsURI="http://cfmodel.example/keys" nsPrefix="keys">
  <eClassifiers xsi:type="ecore:EClass" name="Node">
    <eStructuralFeatures xsi:type="ecore:EAttribute" name="id" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EString"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="next" eType="#//Node" eKeys="#//Node/id"/>
  </eClassifiers>
</ecore:EPackage>
"""


def test_what_cannot_be_kept_is_refused_with_a_location(tmp_path: Path) -> None:
    source = tmp_path / "keys.ecore"
    source.write_text(KEYS, encoding="utf-8")
    with pytest.raises(CfSerializationError) as exc:
        import_ecore([source], tmp_path / "project")
    assert exc.value.code == "bad-ecore"
    assert str(exc.value).startswith(f"{source}:6:")
    assert "eKeys" in str(exc.value)
    assert not (tmp_path / "project").exists()
