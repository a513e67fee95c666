"""Injection through the command line: ``cfmodel compile PROJECT --fact k=v`` and the exports."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

from tests.conftest import run_cfmodel

REPO = Path(__file__).resolve().parents[2]

MAIN = """
entity Host:
    string name
    int ram = 2
    string os = "linux"
end
index Host(name)
implement Host using std::none
for name in ["web1", "db1"]:
    Host(name=name)
end
"""
SITE = """
site {
  categories {
    node => "$::fqdn",
    role => "$::role"
  }
}
"""
BINDINGS = """
bindings default {
  bind parameters Host to { ram => 4 }
  bind parameters Host['db1'] to { os => 'bsd' }
  when role 'db' { bind parameters Host to { ram => 64 } }
  bind variables to { dc => 'ams' }
}
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cfmodel(*args, cwd=cwd, cache=cwd / ".cache")


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def hosts(path: Path) -> dict[str, tuple[int, str]]:
    """Ram and os of each host as the JSON export (emfjson-jackson's JSON) writes them."""
    data = json.loads(path.read_text(encoding="utf-8"))
    roots = data if isinstance(data, list) else [data]  # one root is written as an object
    return {obj["name"]: (obj["ram"], obj["os"]) for obj in roots}


def test_a_fact_selects_a_category_of_bound_parameters(tmp_path: Path) -> None:
    project = write(tmp_path / "p", {"main.cf": MAIN, "site.bind": SITE, "bindings/default.bind": BINDINGS})
    done = run("compile", "p", "--fact", "role=db", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("p: ok — 2 instances of 1 entity (")
    assert run("json", "export", "p", "--fact", "role=db", "-o", "db.json", cwd=tmp_path).returncode == 0
    assert hosts(tmp_path / "db.json") == {"web1": (64, "linux"), "db1": (64, "bsd")}
    assert run("json", "export", "p", "--fact", "role=web", "-o", "web.json", cwd=tmp_path).returncode == 0
    assert hosts(tmp_path / "web.json") == {"web1": (4, "linux"), "db1": (4, "bsd")}
    (tmp_path / "facts.yaml").write_text("role: db\nfqdn: db1.example.com\n", encoding="utf-8")
    assert run("json", "export", "p", "--facts", "facts.yaml", "-o", "f.json", cwd=tmp_path).returncode == 0
    assert hosts(tmp_path / "f.json") == hosts(tmp_path / "db.json")
    assert project.is_dir()


def test_errors_name_the_binding_and_the_model(tmp_path: Path) -> None:
    main = MAIN + 'dc = "fra"\n'
    write(tmp_path, {"main.cf": main, "site.bind": SITE, "bindings/default.bind": BINDINGS})
    done = run("compile", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.replace(str(tmp_path), "{dir}") == (
        "main.cf:11:1: error: variable 'dc' is bound to \"ams\" by the bindings (bindings default, layer "
        '"site", category common); it cannot also be set to "fra" (a value is assigned once)  '
        "[double-assignment]\n"
        "{dir}/bindings/default.bind:5:23: note: the binding of 'dc' is here\n"
    )


def test_the_request_sequence_of_an_environments_project(tmp_path: Path) -> None:
    """An environments.cfenv picks the environment; its bindings give the parameters."""
    shutil.copytree(REPO / "examples" / "environments", tmp_path / "envs")
    bindings = tmp_path / "envs" / "production" / "bindings" / "default.bind"
    bindings.write_text(
        "bindings default {\n"
        '  bind "web::workers" to 8\n'
        "  when datacenter 'ams' { bind \"web::workers\" to 16 }\n"
        "  bind parameters web::Server to { port => 8080 }\n"
        "  when datacenter 'ams' { bind parameters web::Server to { port => 8443 } }\n"
        "}\n",
        encoding="utf-8",
    )
    facts = ["--fact", "fqdn=web1.example.com", "--fact", "datacenter=ams"]
    done = run("json", "export", "envs", *facts, "-o", "out.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    ports = {obj["name"]: obj["port"] for obj in data if obj["eClass"].endswith("#//Server")}
    assert ports == {f"web{n}.example.com": 8443 for n in (1, 2, 3)}
