"""The program as a model: ``program.ecore`` and ``cfmodel parse FILE --format xmi``.

Every tree the grammar's golden cases parse to is written as XMI of ``program.ecore``;
the real EMF loads them all with 0 problems and re-saves them, and reading EMF's files
back gives the same canonical dump as the parser's tree. The shipped
``cfmodel/metamodel/program.ecore`` is the package, byte for byte, and the metamodel
covers every field of every node kind of `cfmodel.grammars.nodes`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cfmodel.dump import dump_module
from cfmodel.errors import CfModelError, CfSerializationError
from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str
from cfmodel.metamodel import program
from cfmodel.pipeline import read_syntax_xmi, syntax_xmi
from cfmodel.serializers import ecore
from tests.conftest import run_cfmodel
from tests.golden import load_cases

from .emf import EmfChecker

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "cfmodel" / "metamodel" / "program.ecore"
CASES = [
    c for path in sorted((ROOT / "tests" / "grammar" / "cases").glob("*.test")) for c in load_cases(path)
]


def _trees() -> dict[str, nodes.Module]:
    trees = {}
    for index, case in enumerate(CASES):
        try:
            trees[f"case{index:03d}.xmi"] = parse_str(case.source, "main.cf")
        except CfModelError:
            continue  # a case of a syntax error
    return trees


def test_the_shipped_program_ecore_is_the_package() -> None:
    assert SHIPPED.read_bytes() == ecore.to_bytes(program.PACKAGE), (
        "regenerate: python -c 'from cfmodel.metamodel import program; from cfmodel.serializers import ecore; "
        'open("cfmodel/metamodel/program.ecore", "wb").write(ecore.to_bytes(program.PACKAGE))\''
    )


def test_every_field_of_every_node_kind_is_in_the_metamodel() -> None:
    kinds = {
        name: cls
        for name, cls in vars(nodes).items()
        if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == nodes.__name__
    }
    assert set(kinds) == set(program.FIELDS)
    for name, cls in kinds.items():
        fields = {f.name for f in dataclasses.fields(cls)} - {"span"}
        assert fields == {field for field, _, _ in program.FIELDS[name]}, name
        assert (name not in program.WITHOUT_SPAN) == any(f.name == "span" for f in dataclasses.fields(cls)), (
            name
        )


def test_emf_loads_every_tree_and_its_resave_reads_back_the_same(emf: EmfChecker, tmp_path: Path) -> None:
    trees = _trees()
    assert len(trees) >= 50
    metamodel = tmp_path / "program.ecore"
    metamodel.write_bytes(SHIPPED.read_bytes())
    for name, tree in trees.items():
        (tmp_path / name).write_bytes(syntax_xmi(tree))
    resaved = tmp_path / "emf"
    resaved.mkdir()
    report = emf.check([metamodel], [tmp_path / name for name in trees], resave_dir=resaved, dump=False)
    assert report.clean, report.problems()[:5]
    for name, tree in trees.items():
        assert dump_module(read_syntax_xmi((resaved / name).read_bytes(), name)) == dump_module(tree), name


def test_parse_writes_xmi_and_a_deep_tree_comes_back(emf: EmfChecker, tmp_path: Path) -> None:
    source = tmp_path / "deep.cf"
    chain = " + ".join(f"a{i}" for i in range(2000))
    source.write_text(
        f'x = {chain}\ny = f"v{{a!r:>3}} w"\nz = {{"k": [1, 2.5, true, null]}}\n', encoding="utf-8"
    )
    result = run_cfmodel("parse", str(source), "--format", "xmi", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    tree = parse_str(source.read_text(encoding="utf-8"), str(source))
    assert dump_module(read_syntax_xmi(result.stdout.encode("utf-8"))) == dump_module(tree)
    # what the command wrote, EMF loads with 0 problems (EMF's own save of a tree 2,000
    # deep overflows Java's stack: the re-saves are `test_emf_loads_every_tree...`'s)
    (tmp_path / "deep.xmi").write_text(result.stdout, encoding="utf-8")
    (tmp_path / "program.ecore").write_bytes(SHIPPED.read_bytes())
    report = emf.check([tmp_path / "program.ecore"], [tmp_path / "deep.xmi"], dump=False)
    assert report.clean, report.problems()[:5]


def test_pragmas_travel_too() -> None:
    tree = parse_str('"""doc"""\n#@ecore-package {}\n#@ecore {"name": "A"}\nentity A:\nend\n', "p.cf")
    assert read_syntax_xmi(syntax_xmi(tree)).pragmas == {0: "{}", 4: '{"name": "A"}'}


def test_a_model_that_is_no_program_tree_is_refused() -> None:
    data = syntax_xmi(parse_str("x = 1\n", "m.cf")).replace(
        b'value="1" valueType="int"', b'value="one" valueType="int"'
    )
    with pytest.raises(CfSerializationError) as exc:
        read_syntax_xmi(data)
    assert exc.value.code == "bad-xmi"
    assert "literal 'one' is not a value of type 'int'" in str(exc.value)


def _tree_files() -> list[Path]:
    found = [*ROOT.glob("tests/bindings/data/**/*.bind"), *ROOT.glob("tests/bindings/data/**/*.cfenv")]
    return sorted([*found, *ROOT.glob("examples/**/*.cfenv"), *ROOT.glob("examples/**/*.bind")])


def test_bindings_and_environments_trees_as_models(emf: EmfChecker, tmp_path: Path) -> None:
    from pyecore.resources import ResourceSet

    from cfmodel.metamodel import bindings, environments
    from cfmodel.pipeline import syntax_model, syntax_model_dump
    from cfmodel.serializers import xmi
    from cfmodel.serializers.base import register_packages

    files = _tree_files()
    assert len(files) >= 5 and {p.suffix for p in files} == {".bind", ".cfenv"}
    metamodels = []
    for package in (bindings.PACKAGE, environments.PACKAGE):
        metamodels.append(tmp_path / f"{package.name}.ecore")
        metamodels[-1].write_bytes(ecore.to_bytes(package))
    written, dumps = [], {}
    for index, path in enumerate(files):
        target = tmp_path / f"tree{index:02d}.xmi"
        result = run_cfmodel("parse", str(path), "--format", "xmi", cwd=tmp_path) if index == 0 else None
        root = syntax_model(path)
        target.write_bytes(result.stdout.encode("utf-8") if result is not None else xmi.to_bytes([root]))
        written.append(target)
        dumps[target.name] = syntax_model_dump(root)
    assert run_cfmodel("parse", str(files[0]), cwd=tmp_path).stdout == dumps[written[0].name]
    resaved = tmp_path / "emf"
    resaved.mkdir()
    report = emf.check(metamodels, written, resave_dir=resaved, dump=False)
    assert report.clean, report.problems()[:5]
    rset = ResourceSet()
    register_packages(rset, [bindings.PACKAGE, environments.PACKAGE])
    for target in written:
        back = xmi.read(resaved / target.name, rset).roots
        assert syntax_model_dump(back[0]) == dumps[target.name], target.name
