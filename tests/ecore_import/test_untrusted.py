"""``cfmodel ecore import`` of untrusted metamodels: every string copied into ``.cf``
(patterns, regexes, conditions, defaults, relation annotations, constructors, types,
names, notes) is translated or escaped, so the generated project always parses and
holds nothing but definitions — compiling it never runs a statement a metamodel smuggled
in (issue 12, item 6)."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest

from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str
from cfmodel.transforms.cf.ecore_import import cf_expression, import_ecore
from tests.conftest import run_cfmodel

EMD = "http:///org/eclipse/emf/ecore/util/ExtendedMetaData"
PAYLOAD = 'std::print("INJECTED")'
DEFINITIONS = (nodes.Typedef, nodes.Entity, nodes.Relation, nodes.Enum, nodes.Index, nodes.Import)


def annotation(source: str, **details: str) -> str:
    rows = "".join(f"<details key={quoteattr(k)} value={quoteattr(v)}/>" for k, v in details.items())
    return f"<eAnnotations source={quoteattr(source)}>{rows}</eAnnotations>"


def ecore(classifiers: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ecore:EPackage xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xmlns:ecore="http://www.eclipse.org/emf/2002/Ecore" name="evil" nsURI="http://example.org/evil" '
        f'nsPrefix="evil">{classifiers}</ecore:EPackage>\n'
    )


def string_type(extra: str = "") -> str:
    return f'eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EString"{extra}'


# One hostile metamodel per route into the generated text.
HOSTILE = {
    "pattern facet (issue 12's reproducer)": (
        '<eClassifiers xsi:type="ecore:EClass" name="Host">'
        '<eStructuralFeatures xsi:type="ecore:EAttribute" name="name" eType="#//Name"/></eClassifiers>'
        '<eClassifiers xsi:type="ecore:EDataType" name="Name" instanceClassName="java.lang.String">'
        + annotation(EMD, pattern='[A-Z]+)$/x=std::print("INJECTED")#')
        + "</eClassifiers>"
    ),
    "pattern facet with a slash": (
        '<eClassifiers xsi:type="ecore:EDataType" name="Path" instanceClassName="java.lang.String">'
        + annotation(EMD, pattern='[a-z]+/\nx=std::print("INJECTED")#')
        + "</eClassifiers>"
    ),
    "cfmodel regex annotation": (
        '<eClassifiers xsi:type="ecore:EDataType" name="t" instanceClassName="java.lang.String">'
        + annotation("http://cfmodel.org/typedef", base="string", regex='a/\nx = std::print("INJECTED")\n#')
        + "</eClassifiers>"
    ),
    "cfmodel condition annotation": (
        '<eClassifiers xsi:type="ecore:EDataType" name="t" instanceClassName="java.lang.String">'
        + annotation("http://cfmodel.org/typedef", base="string", condition=f"true\n{PAYLOAD}")
        + "</eClassifiers>"
    ),
    "condition with a second statement on one line": (
        '<eClassifiers xsi:type="ecore:EDataType" name="t" instanceClassName="java.lang.String">'
        + annotation("http://cfmodel.org/typedef", base="string", condition=f"true {PAYLOAD}")
        + "</eClassifiers>"
    ),
    "typedef base": (
        '<eClassifiers xsi:type="ecore:EDataType" name="t" instanceClassName="java.lang.String">'
        + annotation(
            "http://cfmodel.org/typedef", base=f"string matching true\n{PAYLOAD}\n#", condition="true"
        )
        + "</eClassifiers>"
    ),
    "default annotation": (
        '<eClassifiers xsi:type="ecore:EClass" name="Host">'
        f'<eStructuralFeatures xsi:type="ecore:EAttribute" name="a" {string_type()}>'
        + annotation("http://cfmodel.org/default", value=f'"x"\n{PAYLOAD}')
        + "</eStructuralFeatures></eClassifiers>"
    ),
    "default annotation closing the entity": (
        '<eClassifiers xsi:type="ecore:EClass" name="Host">'
        f'<eStructuralFeatures xsi:type="ecore:EAttribute" name="a" {string_type()}>'
        + annotation("http://cfmodel.org/default", value=f'"x" end {PAYLOAD} entity X:')
        + "</eStructuralFeatures></eClassifiers>"
    ),
    "type annotation": (
        '<eClassifiers xsi:type="ecore:EClass" name="Host">'
        f'<eStructuralFeatures xsi:type="ecore:EAttribute" name="a" {string_type()}>'
        + annotation("http://cfmodel.org/type", type=f"string a\nend\n{PAYLOAD}\nentity X:\nstring")
        + "</eStructuralFeatures></eClassifiers>"
    ),
    "inherited default annotation": (
        '<eClassifiers xsi:type="ecore:EClass" name="Base">'
        f'<eStructuralFeatures xsi:type="ecore:EAttribute" name="a" {string_type()}/></eClassifiers>'
        '<eClassifiers xsi:type="ecore:EClass" name="Host" eSuperTypes="#//Base">'
        + annotation("http://cfmodel.org/defaults", a=f'"x"\nend\n{PAYLOAD}\nentity Y:')
        + "</eClassifiers>"
    ),
    "relation annotations": (
        '<eClassifiers xsi:type="ecore:EClass" name="Host">'
        '<eStructuralFeatures xsi:type="ecore:EReference" name="peer" eType="#//Host">'
        + annotation("http://cfmodel.org/relation", annotations=f"std::Host\n{PAYLOAD}\nHost.x [0:1] --")
        + "</eStructuralFeatures></eClassifiers>"
    ),
    "constructor typedef": (
        '<eClassifiers xsi:type="ecore:EClass" name="Host"/>'
        + annotation("http://cfmodel.org/constructors", h=f"Host()\n{PAYLOAD}")
    ),
    "names and instance class names in notes": (
        '<eClassifiers xsi:type="ecore:EClass" name="host&#10;std::print(&quot;INJECTED&quot;)">'
        '<eStructuralFeatures xsi:type="ecore:EAttribute" name="end&#10;std::print(&quot;INJECTED&quot;)" '
        'eType="#//Odd"/></eClassifiers>'
        '<eClassifiers xsi:type="ecore:EDataType" name="Odd" '
        'instanceClassName="x&#10;std::print(&quot;INJECTED&quot;)&#13;y&#x2028;z"/>'
    ),
    "facet bounds that are no numbers": (
        '<eClassifiers xsi:type="ecore:EDataType" name="Big" instanceClassName="double">'
        + annotation(EMD, minInclusive="1e999", maxInclusive=f"1\n{PAYLOAD}")
        + "</eClassifiers>"
    ),
    "documentation": (
        '<eClassifiers xsi:type="ecore:EClass" name="Host">'
        + annotation("http://www.eclipse.org/emf/2002/GenModel", documentation=f'"""\n{PAYLOAD}\n"""\\')
        + "</eClassifiers>"
    ),
}


def statements_of(project: Path) -> list[object]:
    found: list[object] = []
    for path in sorted(project.rglob("*.cf")):
        found.extend(parse_str(path.read_text(encoding="utf-8"), str(path)).statements)
    return found


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_metamodel_imports_to_definitions_only(case: str, tmp_path: Path) -> None:
    source = tmp_path / "evil.ecore"
    source.write_text(ecore(HOSTILE[case]), encoding="utf-8")
    import_ecore([source], tmp_path / "out")
    statements = statements_of(tmp_path / "out")
    assert statements
    assert all(isinstance(s, DEFINITIONS) for s in statements), [type(s).__name__ for s in statements]
    result = run_cfmodel("compile", str(tmp_path / "out"), cwd=tmp_path, cache=tmp_path / ".cache")
    assert result.returncode == 0, result.stderr
    assert "INJECTED" not in result.stdout + result.stderr.replace(repr("INJECTED"), "")


def test_an_untranslatable_pattern_is_named_in_a_note(tmp_path: Path) -> None:
    source = tmp_path / "evil.ecore"
    source.write_text(ecore(HOSTILE["pattern facet (issue 12's reproducer)"]), encoding="utf-8")
    import_ecore([source], tmp_path / "out")
    text = (tmp_path / "out" / "libs" / "evil" / "model" / "_init.cf").read_text(encoding="utf-8")
    assert "# note: data type 'Name': the XML Schema pattern" in text
    assert "    string? name  # note: name: data type Name (java.lang.String) mapped to string\n" in text


def test_a_translatable_pattern_with_a_slash_stays_a_constraint(tmp_path: Path) -> None:
    source = tmp_path / "p.ecore"
    source.write_text(
        ecore(
            '<eClassifiers xsi:type="ecore:EDataType" name="Path" instanceClassName="java.lang.String">'
            + annotation(EMD, pattern="/[a-z]+(/[a-z]+)*")
            + "</eClassifiers>"
        ),
        encoding="utf-8",
    )
    import_ecore([source], tmp_path / "out")
    text = (tmp_path / "out" / "libs" / "evil" / "model" / "_init.cf").read_text(encoding="utf-8")
    assert "typedef Path as string matching /^(?:\\/[a-z]+(?:\\/[a-z]+)*)\\Z/\n" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("self > 0 and self < 65536", "self > 0 and self < 65536"),
        ("ip::is_valid( self )", "ip::is_valid(self)"),
        ('"a" # comment', '"a"'),
        (f"true\n{PAYLOAD}", None),
        (f"true {PAYLOAD}", None),
        ("x = 1", None),
        ("", None),
        ("(", None),
    ],
)
def test_copied_expressions_are_one_expression_rewritten_from_its_tree(
    text: str, expected: str | None
) -> None:
    assert cf_expression(text) == expected


def test_a_condition_must_name_self() -> None:
    assert cf_expression("true", condition=True) is None
    assert cf_expression("std::length(self) < 4", condition=True) == "std::length(self) < 4"
