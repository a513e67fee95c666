"""Imports of local files and module directories (``metadata.yaml``, ``files/``), ``as``
names, and the errors of imports that cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.errors import CfModelError
from cfmodel.mcl import compile
from cfmodel.transforms.mcl.to_graph import graph_text


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def graph_of(root: Path) -> str:
    return graph_text(compile(root).graph)


def test_local_file_import_named_after_the_file(tmp_path: Path) -> None:
    tree(tmp_path, {
        "main.mcl": 'import "lib/helpers.mcl"\ntest helpers.greet("x") {}\ntest $helpers.name {}\n',
        "lib/helpers.mcl": 'func greet($n) { "hi-" + $n }\n$name = "from-lib"\n',
    })  # fmt: skip
    assert graph_of(tmp_path) == "Vertex: test[from-lib]\nVertex: test[hi-x]\n"


def test_local_file_import_as_alias_and_star(tmp_path: Path) -> None:
    tree(tmp_path, {
        "main.mcl": 'import "a.mcl" as other\nimport "b.mcl" as *\ntest $other.v {}\ntest $w {}\n',
        "a.mcl": '$v = "a-value"\n',
        "b.mcl": '$w = "b-value"\n',
    })  # fmt: skip
    assert graph_of(tmp_path) == "Vertex: test[a-value]\nVertex: test[b-value]\n"


def test_module_directory_with_metadata_and_files(tmp_path: Path) -> None:
    tree(tmp_path, {
        "main.mcl": 'import "mod1/"\ninclude mod1.server("web")\n',
        "mod1/metadata.yaml": "main: entry.mcl\n",
        "mod1/entry.mcl": 'class server($n) { test "server-${n}" {} }\n',
    })  # fmt: skip
    assert graph_of(tmp_path) == "Vertex: test[server-web]\n"


def test_module_directory_with_main_mcl_and_mgmt_prefix(tmp_path: Path) -> None:
    tree(tmp_path, {
        "main.mcl": 'import "mgmt-example/"\ntest $example.x {}\n',
        "mgmt-example/main.mcl": '$x = "ok"\n',
    })  # fmt: skip
    assert graph_of(tmp_path) == "Vertex: test[ok]\n"


def test_imported_files_produce_no_output(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {"main.mcl": 'import "lib.mcl"\ntest $lib.x {}\n', "lib.mcl": 'test "ignored" {}\n$x = "y"\n'},
    )
    assert graph_of(tmp_path) == "Vertex: test[y]\n"


def test_readfile_reads_below_the_program(tmp_path: Path) -> None:
    tree(tmp_path, {
        "main.mcl": 'import "os"\nfile "/etc/motd" { content => os.readfile("files/motd"), }\n',
        "files/motd": "hello\n",
    })  # fmt: skip
    resource = compile(tmp_path).output.resources[("file", "/etc/motd")]
    assert resource.fields["content"] == "hello\n"


def test_readfile_refuses_paths_outside_the_program(tmp_path: Path) -> None:
    tree(tmp_path / "p", {"main.mcl": 'import "os"\ntest "t" { str => os.readfile("../../etc/passwd"), }\n'})
    with pytest.raises(CfModelError) as info:
        compile(tmp_path / "p")
    assert info.value.code == "mcl-runtime"
    assert "outside the program's directory" in info.value.message


def test_import_cycle_is_refused(tmp_path: Path) -> None:
    tree(tmp_path, {"main.mcl": 'import "a.mcl"\n', "a.mcl": 'import "b.mcl"\n', "b.mcl": 'import "a.mcl"\n'})
    with pytest.raises(CfModelError) as info:
        compile(tmp_path)
    assert [d.code for d in info.value.diagnostics()] == ["mcl-scope"]
    assert "import cycle" in info.value.message


def test_errors_in_imported_files_name_that_file(tmp_path: Path) -> None:
    tree(tmp_path, {"main.mcl": 'import "bad.mcl"\n', "bad.mcl": "$x = \n"})
    with pytest.raises(CfModelError) as info:
        compile(tmp_path)
    assert info.value.span is not None and info.value.span.file.endswith("bad.mcl")
    assert info.value.code == "mcl-parse"


def test_missing_module_directory(tmp_path: Path) -> None:
    tree(tmp_path, {"main.mcl": 'import "nomod/"\n'})
    with pytest.raises(CfModelError) as info:
        compile(tmp_path)
    assert "does not exist" in info.value.message
