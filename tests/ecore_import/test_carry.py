"""The ``#@ecore`` notation: how ``.cf`` carries what it has no construct for.

Where the comments attach, that the import of a metamodel written for EMF lifts back to
byte-identical ``.ecore`` (cfmodel's writer writes every construct of Ecore), that edits
to the ``.cf`` show in the export while what was carried stays, that hostile text can
neither end a comment nor inject a statement, and that a broken pragma is a located
error (``bad-ecore-pragma``), never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.ecore import EAnnotation, EAttribute, EClass, EOperation, EPackage, EParameter, EString

from cfmodel.errors import CfSemanticError
from cfmodel.grammars.cf import parse_str
from cfmodel.serializers import ecore, ecorepaths
from cfmodel.transforms.cf.ecore_import import import_ecore, read_ecore_files
from tests.conftest import run_cfmodel
from tests.lift.helpers import lifted

LIBRARY = Path(__file__).parent / "fixtures" / "library.ecore"


def _exported(project: Path) -> dict[str, bytes]:
    return {
        name: data
        for name, data in lifted(project).ecore_files().items()
        if name not in ("std.ecore", "__config__.ecore")
    }


def _original(*paths: Path) -> dict[str, bytes]:
    return {f"{root.name}.ecore": ecore.to_bytes(root) for root in read_ecore_files(paths)}


def test_pragmas_attach_to_the_next_declaration() -> None:
    text = (
        '"""doc"""\n'
        '#@ecore-package {"a":\n'
        "#@ecore-package 1}\n"
        '#@ecore {"x":\n'
        "# a note between\n"
        "\n"
        "#@ecore 2}\n"
        "entity A:\n"
        "    #@ecore {}\n"
        "    string b\n"
        "end\n"
        's = """\n'
        '#@ecore {"not": "a comment"}\n'
        '"""\n'
    )
    module = parse_str(text, "t.cf")
    assert module.doc == "doc"
    assert module.pragmas == {0: '{"a":1}', 8: '{"x":2}', 10: "{}"}


def test_a_metamodel_written_for_emf_comes_back_byte_identical(tmp_path: Path) -> None:
    import_ecore([LIBRARY], tmp_path / "project", name="library")
    assert _exported(tmp_path / "project") == _original(LIBRARY)


def test_edits_show_and_what_was_carried_stays(tmp_path: Path) -> None:
    project = tmp_path / "project"
    import_ecore([LIBRARY], project, name="library")
    source = project / "libs" / "library" / "model" / "_init.cf"
    text = source.read_text(encoding="utf-8")
    text = text.replace(
        "entity Library:\n    string name\n", "entity Library:\n    string name\n    int? shelves\n"
    )
    source.write_text(text + "\nentity Branch extends Library:\nend\n", encoding="utf-8")
    packages = read_ecore_files(
        [p for p in lifted(project).write(tmp_path / "out") if p.name == "library.ecore"]
    )
    library = packages[0]
    assert [f.name for f in library.getEClassifier("Library").eStructuralFeatures] == [
        "name",
        "books",
        "writers",
        "shelves",
    ]
    branch = library.getEClassifier("Branch")
    assert [c.name for c in library.eClassifiers][-1] == "Branch"
    assert [s.name for s in branch.eSuperTypes] == ["Library"]
    item = library.getEClassifier("Item")
    assert item.abstract and [f.name for f in item.eStructuralFeatures] == ["published", "end"]
    books = library.getEClassifier("Library").findEStructuralFeature("books")
    assert books.containment and books.eOpposite.name == "library"


def _hostile_package() -> EPackage:
    package = EPackage("hostile", nsURI="http://cfmodel.example/hostile", nsPrefix="hostile")
    node = EClass("Node")
    text = "line\nentity Evil:\nend\n\u2028#@ecore {}\r é" + "x" * 9000  # longer than a pragma line
    node.eAnnotations.append(EAnnotation("http://cfmodel.example/doc"))
    node.eAnnotations[0].details["text"] = text
    node.eStructuralFeatures.append(EAttribute("name", EString))
    operation = EOperation("run", EString)
    operation.eParameters.append(EParameter("from", EString))
    ecorepaths.add_operation(node, operation)
    package.eClassifiers.append(node)
    return package


def test_hostile_text_stays_inside_its_comment(tmp_path: Path) -> None:
    source = tmp_path / "hostile.ecore"
    package = _hostile_package()
    source.write_bytes(ecore.to_bytes(package))
    import_ecore([source], tmp_path / "project", name="hostile")
    text = (tmp_path / "project" / "libs" / "hostile" / "model" / "_init.cf").read_text(encoding="utf-8")
    assert text.isascii()
    statements = parse_str(text, "x.cf").statements
    assert [type(s).__name__ for s in statements] == ["Entity"]
    assert _exported(tmp_path / "project") == _original(source)


@pytest.mark.parametrize(
    ("pragma", "message"),
    [
        ("{not json", "the #@ecore comment is not valid JSON"),
        ("[1, 2]", "the #@ecore comment is not a JSON object"),
        ('{"abstract": "yes"}', "abstract: 'yes' is not a value of its type"),
        ('{"eGenericSuperTypes": ["http://nowhere.example#//X"]}', "refers to 'http://nowhere.example#//X'"),
        ('{"eOperations": [{"eClass": "EVil"}]}', "not an Ecore element"),
    ],
)
def test_a_broken_pragma_is_a_located_error(pragma: str, message: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    import_ecore([LIBRARY], project, name="library")
    source = project / "libs" / "library" / "model" / "_init.cf"
    lines = source.read_text(encoding="utf-8").split("\n")
    at = lines.index("entity Library:")
    lines[at - 1] = f"#@ecore {pragma}"
    source.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(CfSemanticError) as exc:
        lifted(project)
    assert exc.value.code == "bad-ecore-pragma"
    assert exc.value.span is not None and (exc.value.span.file, exc.value.span.line) == (str(source), at + 1)
    assert message in str(exc.value)
    result = run_cfmodel("ecore", "export", str(project), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 1
    assert f"{source}:{at + 1}:" in result.stderr and "[bad-ecore-pragma]" in result.stderr


def test_a_changed_type_or_multiplicity_is_the_declarations(tmp_path: Path) -> None:
    project = tmp_path / "project"
    import_ecore([LIBRARY], project, name="library")
    source = project / "libs" / "library" / "model" / "_init.cf"
    text = source.read_text(encoding="utf-8")
    assert "    int? pages = 100\n" in text and "Book.authors [1:] -- Writer.books [0:]\n" in text
    text = text.replace("    int? pages = 100\n", '    string? pages = "many"\n')
    source.write_text(text.replace("Book.authors [1:] --", "Book.authors [2:5] --"), encoding="utf-8")
    library = read_ecore_files(
        [p for p in lifted(project).write(tmp_path / "out") if p.name == "library.ecore"]
    )[0]
    book = library.getEClassifier("Book")
    pages = book.findEStructuralFeature("pages")
    assert (pages.eType.name, pages.defaultValueLiteral) == ("EString", "many")
    authors = book.findEStructuralFeature("authors")
    assert (authors.lowerBound, authors.upperBound) == (2, 5)
    price = book.findEStructuralFeature("price")  # unchanged: still carried exactly
    assert (price.eType.name, price.defaultValueLiteral) == ("EBigDecimal", "9.95")


def test_a_cfmodel_metamodel_edited_in_emf_is_carried_whole(tmp_path: Path) -> None:
    from tests.lift.helpers import RICH

    metamodel = lifted(RICH)
    infra = next(root for root in metamodel.packages if root.name == "infra")
    server = next(c for c in infra.eClassifiers if isinstance(c, EClass) and c.name == "Server")
    operation = EOperation("reboot", EString)
    operation.eParameters.append(EParameter("force", EString))
    ecorepaths.add_operation(server, operation)  # what an EMF user might add
    paths = metamodel.write(tmp_path / "ecore")
    original = {p.name: p.read_bytes() for p in paths if p.name not in ("std.ecore", "__config__.ecore")}
    import_ecore(paths, tmp_path / "project", name="rich")
    assert "#@ecore" in (tmp_path / "project" / "libs" / "infra" / "model" / "_init.cf").read_text(
        encoding="utf-8"
    )
    assert {
        name: data for name, data in _exported(tmp_path / "project").items() if name in original
    } == original


HIDING = """\
entity Resource:
    string name
end

entity File extends Resource:
    string needs = "x"
    int mode = 644
end

entity Link extends File:
end

Resource.given [0:] -- Resource.needs [0:]
"""


def _project(folder: Path, name: str, text: str) -> Path:
    (folder / "libs" / name / "model").mkdir(parents=True)
    (folder / "project.yml").write_text(f"name: {name}\nmodulepath: libs\n", encoding="utf-8")
    (folder / "main.cf").write_text(f"import {name}\n", encoding="utf-8")
    (folder / "libs" / name / "module.yaml").write_text(f"name: {name}\nversion: 1.0.0\n", encoding="utf-8")
    (folder / "libs" / name / "model" / "_init.cf").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("ecore_name", ["needs_", "needsText"])  # lift's name; one given in EMF
def test_an_attribute_hiding_a_relation_end_gets_its_cf_name_back(ecore_name: str, tmp_path: Path) -> None:
    exported = lifted(_project(tmp_path / "original", "hid", HIDING)).write(tmp_path / "out")
    (hid,) = [p for p in exported if p.name == "hid.ecore"]
    hid.write_text(hid.read_text(encoding="utf-8").replace('"needs_"', f'"{ecore_name}"'), encoding="utf-8")
    needs = read_ecore_files([hid])[0].getEClassifier("File").findEStructuralFeature(ecore_name)
    assert needs is not None and dict(needs.getEAnnotation("http://cfmodel.org/hides").details) == {
        "name": "needs",
        "relation": "hid::Resource.needs",
    }
    import_ecore([hid], tmp_path / "imported", name="hid")
    text = (tmp_path / "imported" / "libs" / "hid" / "model" / "_init.cf").read_text(encoding="utf-8")
    declarations = [line.strip() for line in text.splitlines() if line and not line.lstrip().startswith("#")]
    assert declarations[declarations.index("entity File extends Resource:") + 1] == 'string needs = "x"'
    assert ecore_name not in "\n".join(declarations)
    checked = run_cfmodel("check", "imported", cwd=tmp_path, cache=tmp_path / ".cache")
    assert checked.returncode == 0, checked.stderr
    assert _exported(tmp_path / "imported")["hid.ecore"] == hid.read_bytes()


def test_a_hides_annotation_that_cf_cannot_honour_keeps_the_ecore_name(tmp_path: Path) -> None:
    exported = lifted(_project(tmp_path / "original", "hid", HIDING)).write(tmp_path / "out")
    (hid,) = [p for p in exported if p.name == "hid.ecore"]
    # the relation end it hid is gone: `needs` would hide nothing, so the name stays
    text = hid.read_text(encoding="utf-8")
    text = text.replace('name="needs" upperBound="-1"', 'name="requiredBy" upperBound="-1"')
    text = text.replace("#//Resource/needs", "#//Resource/requiredBy")
    hid.write_text(text, encoding="utf-8")
    import_ecore([hid], tmp_path / "imported", name="hid")
    source = (tmp_path / "imported" / "libs" / "hid" / "model" / "_init.cf").read_text(encoding="utf-8")
    assert '    string needs_ = "x"\n' in source
    assert _exported(tmp_path / "imported")["hid.ecore"] == hid.read_bytes()
