"""examples/environments end to end through the CLI: `cfmodel env list`, `cfmodel env which`,
`cfmodel check` of every environment, and the projects the request sequence selects."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from cfmodel.cli import main
from cfmodel.project import load_project
from cfmodel.transforms.environments.request import load_target, run_request
from tests.conftest import run_cfmodel

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "environments"
E = "examples/environments"
ENVDIRS = {
    "production": "production",
    "staging": "staging",
    "feature_cache": "branches/feature_cache",
    "hotfix": "branches/hotfix",
}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--no-cache"] if args[0] != "env" else list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_env_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "env", "list", E)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"environments of {E} ({E}/environments.cfenv):"
    heads = [line for line in lines if not line.startswith("      ")]
    assert heads[1:] == [
        f"  production     static     declared at {E}/environments.cfenv:9:3",
        f"  staging        static     declared at {E}/environments.cfenv:10:3",
        f"  feature_cache  dynamic    a sub-directory of {E}/branches",
        f"  hotfix         dynamic    a sub-directory of {E}/branches",
    ]
    block = lines[lines.index(heads[3]) + 1 : lines.index(heads[4])]
    assert block == [
        f"      envdir       {E}/branches/feature_cache",
        f"      main         {E}/branches/feature_cache/main.cf",
        f"      modulepath   {E}/branches/feature_cache/libs",
        f"                   {E}/shared",
        f"      bindingsdir  {E}/branches/feature_cache/bindings",
        f"      templatedir  {E}/branches/feature_cache/templates  (missing)",
    ]


@pytest.mark.parametrize(
    ("facts", "agent", "selected", "step5"),
    [
        (["fqdn=web1.example.com", "datacenter=ams"], None, "production", "set by the file to 'production'"),
        (["fqdn=web1.stage.example.com"], None, "staging", "set by the file to 'staging'"),
        (
            ["fqdn=joe.dev.example.com"],
            "feature_cache",
            "feature_cache",
            "set by the file to 'feature_cache', the value of $agent_environment (--environment)",
        ),
        (
            ["fqdn=joe.dev.example.com"],
            "hotfix",
            "hotfix",
            "set by the file to 'hotfix', the value of $agent_environment (--environment)",
        ),
    ],
)
def test_env_which(
    capsys: pytest.CaptureFixture[str], facts: list[str], agent: str | None, selected: str, step5: str
) -> None:
    args = ["env", "which", E, *[a for f in facts for a in ("--fact", f)]]
    code, out, err = cli(capsys, *args, *(["--environment", agent] if agent else []))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[-1] == f"environment: {selected}"
    assert lines[4].startswith(f"5. $environment: {step5}  [{E}/environments.cfenv:")
    envdir = f"{E}/{ENVDIRS[selected]}"
    assert lines[-2] == f"9. compile: {envdir}/main.cf with modulepath {envdir}/libs, {E}/shared"


def test_env_which_production_details(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys, "env", "which", E, "--fact", "fqdn=web1.example.com", "--fact", "datacenter=ams"
    )
    assert code == 0
    assert out.splitlines()[5:8] == [
        f"6. selected: 'production', static (declared here); envdir {E}/production  [{E}/environments.cfenv:9:3]",
        "7. categories: node = 'web1.example.com', environment = 'production', datacenter = 'ams', common "
        f"(from {E}/production/site.bind)",
        "8. injector: layers site [confdir:/default], modules [module:/*::default]",
    ]
    result = run_request(EXAMPLE, {"fqdn": "web1.example.com", "datacenter": "ams"})
    assert result.injector.lookup("web::workers") == 16


def test_production_machines_cannot_pick_a_branch(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(
        capsys, "env", "which", E, "--fact", "fqdn=web1.example.com", "--environment", "hotfix"
    )
    assert code == 0 and out.splitlines()[-1] == "environment: production"
    assert err == (
        f"{E}/environments.cfenv:25:14: warning: the requested environment 'hotfix' (--environment) was not "
        "selected: environments.cfenv sets $environment here to 'production'  [environment-not-applied]\n"
    )


def test_unknown_branch_is_an_error_and_nothing_is_selected(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(
        capsys, "env", "which", E, "--fact", "fqdn=joe.dev.example.com", "--environment", "nope"
    )
    assert (code, out) == (1, "")
    assert err == (
        f"{E}/environments.cfenv:23:5: error: unknown environment 'nope' ($environment is set here to 'nope', "
        "the value of $agent_environment (--environment); known: feature_cache, hotfix, production, staging)"
        "  [unknown-environment]\n"
    )


@pytest.mark.parametrize("name", list(ENVDIRS))
def test_every_environment_passes_check(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = cli(capsys, "check", f"{E}/{ENVDIRS[name]}")
    assert (code, err) == (0, ""), err
    assert ": ok — " in out


def test_selected_projects_differ_and_match_check() -> None:
    """The same facts with another environment load another main file and other modules;
    what the request selects is what `cfmodel check <envdir>` loads (project.yml agrees)."""
    loaded = {}
    for name in ENVDIRS:
        fqdn = "joe.dev.example.com" if name in ("feature_cache", "hotfix") else "web1.example.com"
        if name == "staging":
            fqdn = "web1.stage.example.com"
        result = run_request(EXAMPLE, {"fqdn": fqdn}, name)
        assert result.environment.name == name
        project = load_target(result.target)
        checked = load_project(EXAMPLE / ENVDIRS[name])
        assert sorted(project.namespaces) == sorted(checked.namespaces)
        assert [m.root.resolve() for m in project.modules.values()] == [
            m.root.resolve() for m in checked.modules.values()
        ]
        loaded[name] = project
    mains = {name: p.main.read_text(encoding="utf-8") for name, p in loaded.items()}
    assert len(set(mains.values())) == 4
    shop = {
        name: (p.modules["shop"].root / "model" / "_init.cf").read_text(encoding="utf-8")
        for name, p in loaded.items()
    }
    assert len(set(shop.values())) == 4
    assert "cache" in loaded["feature_cache"].modules and "cache" not in loaded["production"].modules


def test_export_from_the_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_file = tmp_path / "request.json"
    code, _, err = cli(
        capsys,
        "env",
        "which",
        E,
        "--fact",
        "fqdn=joe.dev.example.com",
        "--environment",
        "hotfix",
        "--export",
        str(out_file),
    )
    assert (code, err) == (0, "")
    data = json.loads(out_file.read_text(encoding="utf-8"))
    root = data  # emfjson-jackson's JSON: one root is the document's object
    assert root["eClass"].endswith("#//Request")
    assert root["environmentName"] == "hotfix" and root["selected"]["$ref"] == "env.hotfix"
    code, _, err = cli(capsys, "env", "list", E, "--export", str(tmp_path / "catalog.xmi"))
    assert (code, err) == (0, "")
    assert "environments:Catalog" in (tmp_path / "catalog.xmi").read_text(encoding="utf-8")
    code, _, err = cli(capsys, "env", "list", E, "--export", str(tmp_path / "x.ecore"))
    assert code == 2 and "--export writes a model" in err


def test_classifier_from_the_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    enc = tmp_path / "enc.py"
    enc.write_text("print('environment: hotfix\\nclasses: [web]')\n", encoding="utf-8")
    code, out, err = cli(
        capsys,
        "env",
        "which",
        E,
        "--fact",
        "fqdn=joe.dev.example.com",
        "--classifier",
        f"{sys.executable} {enc}",
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    shown = f"{sys.executable} {enc}".replace(f"{REPO}{os.sep}", "")  # paths in the cwd are shown relative
    assert lines[2] == f"3. classifier: '{shown}' proposes environment 'hotfix'; classes web"
    # the example's logic asks $agent_environment, not the classifier: a dev machine with no
    # --environment gets staging
    assert lines[-1] == "environment: staging"


def test_end_to_end_in_a_subprocess() -> None:
    done = run_cfmodel(
        "env", "which", E, "--fact", "fqdn=joe.dev.example.com", "--environment", "hotfix", cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "environment: hotfix"
    assert "Traceback" not in done.stderr


def test_compiled_models_differ_per_environment(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`cfmodel json export --environment` compiles the selected environment (active as soon as
    the compiler's commands are registered)."""
    from cfmodel.commands import command_modules

    if not any(module.__name__.endswith(".compile") for module in command_modules()):
        pytest.skip("cfmodel compile/json export has not landed yet")
    requests = {
        "production": ["--fact", "fqdn=web1.example.com"],
        "staging": ["--fact", "fqdn=web1.stage.example.com"],
        "feature_cache": ["--fact", "fqdn=joe.dev.example.com", "--environment", "feature_cache"],
        "hotfix": ["--fact", "fqdn=joe.dev.example.com", "--environment", "hotfix"],
    }
    roots = {}
    for name, args in requests.items():
        out_file = tmp_path / f"{name}.json"
        code = main(["json", "export", E, *args, "-o", str(out_file), "--no-cache"])
        err = capsys.readouterr().err
        if code == 3 and "ModuleNotFoundError" in err:  # the compiler is in, a module it needs is not (yet)
            pytest.skip(f"the compiler cannot run in this checkout: {err.splitlines()[0]}")
        assert code == 0, err
        data = json.loads(out_file.read_text(encoding="utf-8"))
        roots[name] = data if isinstance(data, list) else [data]  # one root: an object
    shapes = {
        name: sorted((r["eClass"], r.get("name"), r.get("port")) for r in rs) for name, rs in roots.items()
    }
    assert len({json.dumps(s) for s in shapes.values()}) == 4
    assert [r["eClass"].rpartition("/")[2] for r in roots["staging"]] == ["Server"]
    assert any(r["eClass"].endswith("#//Cache") for r in roots["feature_cache"])
    assert {r.get("port") for r in roots["hotfix"] if r["eClass"].endswith("#//Server")} == {8443}
