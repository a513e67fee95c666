"""Projects and modules: the namespace table, lazy loading, and every load error."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.cache import ParseCache
from cfmodel.errors import CfCompileError, CfLoadError
from cfmodel.project import load_project, parse_file


def make_project(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def module(name: str, files: dict[str, str]) -> dict[str, str]:
    result = {f"libs/{name}/module.yaml": f"name: {name}\n"}
    result.update({f"libs/{name}/model/{path}": text for path, text in files.items()})
    return result


def errors_of(root: Path, base: Path | None = None) -> str:
    with pytest.raises((CfCompileError, CfLoadError)) as info:
        load_project(root)
    return info.value.render().replace(str(base or root), "{dir}")


def test_namespace_table_of_the_language_reference(tmp_path: Path) -> None:
    files = {
        "main.cf": "import test\nimport test::services\nimport test::policy\nimport test::policy::other\n",
        **module(
            "test",
            {
                "_init.cf": "a = 1\n",
                "services.cf": "b = 2\n",
                "policy/_init.cf": "c = 3\n",
                "policy/other.cf": "d = 4\n",
                "unused.cf": "this is not even valid\n",
            },
        ),
    }
    project = load_project(make_project(tmp_path, files))
    namespaces = dict(project.namespaces)
    assert namespaces.pop("std").file.as_posix().endswith("cfmodel/modules/std/model/_init.cf")
    table = {name: ns.file.relative_to(tmp_path).as_posix() for name, ns in namespaces.items()}
    assert table == {
        "__config__": "main.cf",
        "test": "libs/test/model/_init.cf",
        "test::services": "libs/test/model/services.cf",
        "test::policy": "libs/test/model/policy/_init.cf",
        "test::policy::other": "libs/test/model/policy/other.cf",
    }


def test_modules_load_only_when_imported(tmp_path: Path) -> None:
    files = {
        "main.cf": "import used\n",
        **module("used", {"_init.cf": "x = 1\n"}),
        **module("unused", {"_init.cf": "syntax error here (\n"}),
    }
    project = load_project(make_project(tmp_path, files))
    assert sorted(project.namespaces) == ["__config__", "std", "used"]


def test_importing_a_sub_namespace_loads_its_module_and_follows_its_imports(tmp_path: Path) -> None:
    files = {
        "main.cf": "import a::b as ab\n",
        **module("a", {"_init.cf": "", "b.cf": "import c\n"}),
        **module("c", {"_init.cf": "z = 1\n"}),
    }
    project = load_project(make_project(tmp_path, files))
    assert sorted(project.namespaces) == ["__config__", "a", "a::b", "c", "std"]


def test_project_file_names_module_paths(tmp_path: Path) -> None:
    files = {
        "project.yml": "name: demo\nmodulepath: [mods, other]\n",
        "main.cf": "import one\nimport two\n",
        "mods/one/module.yaml": "name: one\n",
        "mods/one/model/_init.cf": "",
        "other/two/module.yaml": "name: two\n",
        "other/two/model/_init.cf": "",
    }
    project = load_project(make_project(tmp_path, files))
    assert project.name == "demo"
    assert sorted(project.namespaces) == ["__config__", "one", "std", "two"]


def test_missing_module_and_namespace_are_reported_together(tmp_path: Path) -> None:
    files = {
        "main.cf": "import nothere\nimport a::missing\n",
        **module("a", {"_init.cf": ""}),
    }
    assert errors_of(make_project(tmp_path, files)) == (
        "{dir}/main.cf:1:8: error: could not find module 'nothere' (looked in: installed packages, {dir}/libs, built-in modules)"
        "  [module-not-found]\n"
        "{dir}/main.cf:2:8: error: namespace 'a::missing' not found: module 'a' has no model/missing.cf "
        "nor model/missing/_init.cf  [namespace-not-found]"
    )


def test_problems_in_several_modules_are_each_reported(tmp_path: Path) -> None:
    files = {
        "main.cf": "import a\nimport b\n",
        **module("a", {"_init.cf": "entity A:\n"}),
        **module("b", {"_init.cf": "y = 1 +\n"}),
    }
    assert errors_of(make_project(tmp_path, files)) == (
        "{dir}/libs/a/model/_init.cf:2:1: error: unexpected end of file (expected 'end' to close "
        "'entity A' opened at {dir}/libs/a/model/_init.cf:1:1)  [syntax]\n"
        "{dir}/libs/b/model/_init.cf:2:1: error: unexpected end of file (expected a value, '(', '[', 'not' or '{')"
        "  [syntax]"
    )


def test_module_without_module_yaml_or_init(tmp_path: Path) -> None:
    files = {
        "main.cf": "import bare\nimport noinit\n",
        "libs/bare/model/_init.cf": "",
        "libs/noinit/module.yaml": "name: noinit\n",
        "libs/noinit/model/other.cf": "",
    }
    assert errors_of(make_project(tmp_path, files)) == (
        "{dir}/main.cf:1:8: error: module 'bare' at {dir}/libs/bare has no module.yaml  [bad-module]\n"
        "{dir}/main.cf:2:8: error: module 'noinit' at {dir}/libs/noinit has no model/_init.cf  [bad-module]"
    )


def test_not_a_project(tmp_path: Path) -> None:
    assert errors_of(tmp_path) == f"error: {tmp_path} is not a project: it has no main.cf  [load]".replace(
        str(tmp_path), "{dir}"
    )
    assert errors_of(tmp_path / "nope", tmp_path) == "error: no such project directory: {dir}/nope  [load]"


def test_bad_project_file(tmp_path: Path) -> None:
    make_project(tmp_path, {"main.cf": "", "project.yml": "modulepath: 3\n"})
    assert errors_of(tmp_path) == (
        "{dir}/project.yml:1:1: error: modulepath must be a path or a list of paths  [bad-project]"
    )


def test_non_utf8_file(tmp_path: Path) -> None:
    make_project(tmp_path, {"main.cf": b'x = "caf\xe9"\n'})
    assert errors_of(tmp_path) == (
        "{dir}/main.cf:1:9: error: file is not valid UTF-8 text (byte 0xe9 cannot be decoded)  [not-utf8]"
    )


def test_directory_instead_of_file(tmp_path: Path) -> None:
    (tmp_path / "dir.cf").mkdir()
    with pytest.raises(CfLoadError) as info:
        parse_file(tmp_path / "dir.cf", "dir.cf")
    assert info.value.render() == "dir.cf:1:1: error: dir.cf is a directory, expected a .cf file  [load]"


def test_empty_main_is_a_valid_project(tmp_path: Path) -> None:
    project = load_project(make_project(tmp_path, {"main.cf": ""}))
    assert project.namespaces["__config__"].tree.statements == []


def test_project_modules_shadow_builtin_std(tmp_path: Path) -> None:
    files = {"main.cf": "", **module("std", {"_init.cf": "mine = true\n"})}
    project = load_project(make_project(tmp_path, files))
    assert project.namespaces["std"].file == tmp_path / "libs/std/model/_init.cf"


def test_parse_cache_hits_on_unchanged_content_and_misses_on_change(tmp_path: Path) -> None:
    make_project(tmp_path, {"main.cf": "x = 1\n"})
    cache = ParseCache(tmp_path / "cache")
    first = load_project(tmp_path, cache)
    assert (cache.hits, cache.misses) == (0, 2)  # main.cf and std
    second = load_project(tmp_path, cache)
    assert (cache.hits, cache.misses) == (2, 2)
    assert second.namespaces["__config__"].tree == first.namespaces["__config__"].tree
    (tmp_path / "main.cf").write_text("x = 2\n")
    third = load_project(tmp_path, cache)
    assert (cache.hits, cache.misses) == (3, 3)
    statement = third.namespaces["__config__"].tree.statements[0]
    assert getattr(statement, "value").value == 2  # noqa: B009


def test_corrupt_cache_entry_is_ignored(tmp_path: Path) -> None:
    make_project(tmp_path, {"main.cf": "x = 1\n"})
    cache = ParseCache(tmp_path / "cache")
    load_project(tmp_path, cache)
    for entry in (tmp_path / "cache").rglob("*"):
        if entry.is_file():
            entry.write_bytes(b"garbage")
    project = load_project(tmp_path, ParseCache(tmp_path / "cache"))
    assert len(project.namespaces["__config__"].tree.statements) == 1


def test_an_explicit_main_file_and_module_path_override_the_project_settings(tmp_path: Path) -> None:
    (tmp_path / "project.yml").write_text("name: p\nmodulepath: nowhere\n", encoding="utf-8")
    (tmp_path / "main.cf").write_text("import absent\n", encoding="utf-8")
    (tmp_path / "envs" / "staging").mkdir(parents=True)
    (tmp_path / "envs" / "staging" / "site.cf").write_text("import m\n", encoding="utf-8")
    module = tmp_path / "mods" / "m"
    (module / "model").mkdir(parents=True)
    (module / "module.yaml").write_text("name: m\n", encoding="utf-8")
    (module / "model" / "_init.cf").write_text("x = 1\n", encoding="utf-8")
    project = load_project(
        tmp_path, None, main=tmp_path / "envs" / "staging" / "site.cf", module_path=[tmp_path / "mods"]
    )
    assert project.name == "p"
    assert sorted(project.namespaces) == ["__config__", "m", "std"]
    assert project.namespaces["__config__"].file == tmp_path / "envs" / "staging" / "site.cf"


def test_an_explicit_main_file_that_does_not_exist_is_named(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text("", encoding="utf-8")
    with pytest.raises(CfLoadError) as caught:
        load_project(tmp_path, None, main=tmp_path / "other.cf")
    assert caught.value.render() == f"error: no such main file: {tmp_path / 'other.cf'}  [load]"
