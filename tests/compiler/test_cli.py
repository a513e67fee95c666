"""``cfmodel compile``, ``cfmodel xmi export``, ``cfmodel json export`` as users run them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import run_cfmodel

REPO = Path(__file__).resolve().parents[2]

MAIN = """
entity Host:
    string name
    int cpus = 2
end
index Host(name)
implement Host using std::none
for name in ["a", "b"]:
    Host(name=name)
end
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cfmodel(*args, cwd=cwd, cache=cwd / ".cache")


def project(tmp_path: Path, main: str = MAIN) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "project.yml").write_text("name: demo\n", encoding="utf-8")
    (root / "main.cf").write_text(main.lstrip(), encoding="utf-8")
    return root


def test_compile_prints_a_summary(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = run("compile", cwd=root)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("demo: ok — 2 instances of 1 entity (")
    assert lines[1:] == ["  __config__::Host         2"]
    assert result.stderr == ""  # no progress line when stderr is not a terminal


def test_compile_error_exit_1_without_traceback(tmp_path: Path) -> None:
    project(tmp_path, 'x = 1\nx = "two"\n')
    result = run("compile", "proj", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "proj/main.cf:2:1: error: variable 'x' is already 1; it cannot be set to \"two\" (a value is assigned "
        "once)  [double-assignment]\n"
        "proj/main.cf:1:1: note: the first value, 1, was set here\n"
    )


def test_facts_on_the_command_line(tmp_path: Path) -> None:
    root = project(tmp_path, MAIN + 'Host(name=std::getfact("extra"))\n')
    result = run("json", "export", "--fact", "extra=c", "-o", "out.json", cwd=root)
    assert result.returncode == 0, result.stderr
    data = json.loads((root / "out.json").read_text(encoding="utf-8"))
    assert sorted(r["name"] for r in data) == ["a", "b", "c"]
    assert sorted(r["@id"] for r in data) == ["Host_5b_a_5d_", "Host_5b_b_5d_", "Host_5b_c_5d_"]


def test_json_export_writes_emfjson_and_the_older_dialect_on_request(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert run("xmi", "export", "-o", "x", cwd=root).returncode == 0  # the .ecore files, to read back
    result = run("json", "export", "-o", "x/new.json", cwd=root)
    assert result.returncode == 0, result.stderr
    new = json.loads((root / "x" / "new.json").read_text(encoding="utf-8"))
    assert [(r["eClass"].rpartition("#")[2], r["@id"], r["name"]) for r in new] == [
        ("//Host", "Host_5b_a_5d_", "a"),
        ("//Host", "Host_5b_b_5d_", "b"),
    ]
    result = run("json", "export", "--dialect", "cfmodel-instances", "-o", "x/old.json", cwd=root)
    assert result.returncode == 0, result.stderr
    old = json.loads((root / "x" / "old.json").read_text(encoding="utf-8"))
    assert (old["format"], old["version"], [r["$id"] for r in old["roots"]]) == (
        "cfmodel-instances",
        1,
        ["Host_5b_a_5d_", "Host_5b_b_5d_"],
    )
    # both read back (the dialect detected) as the same model: diff finds nothing
    result = run("diff", "x/new.json", "x/old.json", cwd=root)
    assert result.returncode == 0, result.stderr + result.stdout
    result = run("json", "export", "--dialect", "yaml", "-o", "x/bad.json", cwd=root)
    assert result.returncode == 2 and "invalid choice: 'yaml'" in result.stderr


def test_xmi_export_writes_metamodel_and_instances(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = run("xmi", "export", "-o", "out", cwd=root)
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in (root / "out").iterdir() if p.name != ".cfmodel-manifest.json")
    assert (root / "out" / ".cfmodel-manifest.json").is_file()  # the export's own files
    assert "demo.xmi" in names and "std.ecore" in names and len(names) == 3
    assert sorted(Path(line).name for line in result.stdout.splitlines()) == names
    text = (root / "out" / "demo.xmi").read_text(encoding="utf-8")
    assert 'xmi:id="Host_5b_a_5d_" name="a" cpus="2"' in text


def test_failed_export_writes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path, "x = y\n")
    result = run("xmi", "export", "-o", "out", cwd=root)
    assert result.returncode == 1
    assert result.stderr == "main.cf:1:5: error: name 'y' is not defined  [undefined]\n"
    assert not (root / "out").exists()
    result = run("json", "export", "-o", "model.json", cwd=root)
    assert result.returncode == 1
    assert not (root / "model.json").exists()


def test_export_needs_an_output(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = run("json", "export", cwd=root)
    assert result.returncode == 2
    assert "the following arguments are required: -o/--output" in result.stderr


def test_webshop_example_exports(tmp_path: Path) -> None:
    result = run(
        "xmi", "export", str(REPO / "examples" / "webshop"), "-o", str(tmp_path / "out"), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "webshop.xmi").is_file()


def test_environments_pick_the_main_file_and_bindings(tmp_path: Path) -> None:
    example = REPO / "examples" / "environments"
    result = run("compile", str(example), "--fact", "fqdn=web1.example.com", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("shop-production: ok — 4 instances of 2 entities (")


def test_the_summary_counts_in_singular_and_plural(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text("entity A:\nend\nimplement A using std::none\nA()\n", encoding="utf-8")
    one = run("compile", str(tmp_path), "--no-cache", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    assert one.stdout.splitlines()[0].startswith(f"{tmp_path.name}: ok — 1 instance of 1 entity (")
