"""``cfmodel bindings`` follows the request sequence: the selected environment's bindings.

The facts and ``--environment`` go through ``run_request`` (docs/environments.md): the
environments file selects the environment, whose ``site.bind``, ``bindingsdir`` and module
path make the injector. ``data/environments``: ``production`` (``prod``: site.bind with a
``datacenter`` category and a ``hiera:`` layer, module ``web`` in its own libs), ``staging``
(``stage``: bindingsdir ``data``, default layers, its own ``web``), the dynamic ``feature``
(``branches/feature``), and a module ``log`` shared by all. ``examples/environments`` too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfmodel.cli import main
from cfmodel.transforms.bindings.providers import project_default_layers

ROOT = Path(__file__).parent / "data" / "environments"
EXAMPLE = Path(__file__).parents[2] / "examples" / "environments"
PROD, STAGE, DEV = "fqdn=web1.example.com", "fqdn=x.stage.example.com", "fqdn=joe.dev.example.com"


def run(capsys: pytest.CaptureFixture[str], *args: str, root: Path = ROOT) -> tuple[int, str, str]:
    code = main(["bindings", *args])
    out, err = capsys.readouterr()
    return code, out.replace(str(root), "{dir}"), err.replace(str(root), "{dir}")


@pytest.mark.parametrize(
    ("key", "facts", "expected"),
    [
        # production: its bindings folder, its site.bind's categories, its module path
        ("workers", [PROD], "8"),
        ("workers", [PROD, "datacenter=ams"], "16"),
        ("tier", [PROD], "prod"),
        ("web::port", [PROD], "80"),
        ("log::level", [PROD], "info"),
        ("users", [PROD], '{"bob":{"uid":1002}}'),  # hiera: of the environment (first merge)
        # staging: bindingsdir 'data', the default layers, its own libs before the shared ones
        ("workers", [STAGE], "2"),
        ("workers", [STAGE, "datacenter=ams"], "2"),  # no datacenter category in staging
        ("tier", [STAGE], "stage"),
        ("web::port", [STAGE], "8080"),
        ("log::level", [STAGE], "info"),
        # the dynamic environment a developer asks for; staging when they ask for none
        ("tier", [DEV, "--environment", "feature"], "feature"),
        ("web::port", [DEV, "--environment", "feature"], "9090"),
        ("log::level", [DEV, "--environment", "feature"], "info"),
        ("tier", [DEV], "stage"),
    ],
)
def test_inject_uses_the_selected_environments_bindings(
    capsys: pytest.CaptureFixture[str], key: str, facts: list[str], expected: str
) -> None:
    args = [a if a.startswith("-") or "=" not in a else f"--fact={a}" for a in facts]
    assert run(capsys, "inject", key, str(ROOT), *args) == (0, expected + "\n", "")


def test_show_names_the_environment_and_its_layers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "show", str(ROOT), f"--fact={STAGE}")
    assert (code, err) == (0, "")
    assert out == "\n".join(
        [
            "environment: staging",
            "layers: site, modules",
            "categories: node=x.stage.example.com, environment=staging, common=true",
            "classes: (none)",
            'Data "log::level" = \'info\'  # {dir}/shared/log/bindings/default.bind:2:3 (bindings log::default, layer "modules", category common)',
            'Data "tier" = \'stage\'  # {dir}/stage/data/default.bind:3:3 (bindings default, layer "site", category common)',
            'Data "web::port" = 8080  # {dir}/stage/libs/web/bindings/default.bind:2:3 (bindings web::default, layer "modules", category common)',
            'Data "workers" = 2  # {dir}/stage/data/default.bind:2:3 (bindings default, layer "site", category common)',
            "",
        ]
    )
    code, out, _ = run(
        capsys, "show", str(ROOT), f"--fact={DEV}", "--environment", "feature", "--format", "json"
    )
    data = json.loads(out)
    assert (code, data["environment"], data["categories"]["environment"]) == (0, "feature", "feature")


def test_explain_in_the_selected_environment(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain", "workers", str(ROOT), f"--fact={PROD}", "--fact=datacenter=ams")
    assert (code, err) == (0, "")
    assert out == "\n".join(
        [
            'Data "workers" = 16',
            "  layers consulted: site, hiera, modules",
            "  categories consulted: node=web1.example.com, environment=production, datacenter=ams, common=true",
            '  winner: {dir}/prod/bindings/default.bind:3:27 bind 16 (bindings default, layer "site", category datacenter "ams")',
            '  shadowed: {dir}/prod/bindings/default.bind:2:3 bind 8 (bindings default, layer "site", category common)',
            # the hiera layer was consulted too: every level and path, and what each said
            '  hiera (layer "hiera"):',
            '    Searching for "lookup_options"',
            '      Hierarchy entry "node"',
            '        Path "data/nodes/web1.example.com.yaml"',
            '          Original path: "nodes/%{facts.fqdn}.yaml"',
            '          No such key: "lookup_options" entry for "workers"',
            '      Hierarchy entry "common"',
            '        Path "data/common.yaml"',
            '          Original path: "common.yaml"',
            '          No such key: "lookup_options" entry for "workers"',
            '      Merge of "workers": first (the default: no lookup_options entry)',
            '    Searching for "workers" (merge first)',
            '      Hierarchy entry "node"',
            '        Path "data/nodes/web1.example.com.yaml"',
            '          Original path: "nodes/%{facts.fqdn}.yaml"',
            '          No such key: "workers"',
            '      Hierarchy entry "common"',
            '        Path "data/common.yaml"',
            '          Original path: "common.yaml"',
            '          No such key: "workers"',
            '      Not found: no data file of this request has "workers"',
            "",
        ]
    )


def test_forced_merge_reaches_the_environments_hiera(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "inject", "users", str(ROOT), f"--fact={PROD}", "--merge", "hash")
    assert (code, out, err) == (0, '{"alice":{"uid":1001},"bob":{"uid":1002}}\n', "")


@pytest.mark.parametrize(
    ("asked", "source"),
    [
        (["--environment", "staging"], "--environment"),
        (["--fact=environment=staging"], "the fact 'environment'"),
    ],
)
def test_an_environment_asked_for_is_not_applied_unless_the_file_says_so(
    capsys: pytest.CaptureFixture[str], asked: list[str], source: str
) -> None:
    """Rules 16 and 17: production machines build production, whatever they ask for; the
    warning goes to stderr and the value is production's."""
    code, out, err = run(capsys, "inject", "tier", str(ROOT), f"--fact={PROD}", *asked)
    assert (code, out) == (0, "prod\n")
    assert err == (
        "{dir}/environments.cfenv:15:14: warning: the requested environment 'staging' "
        f"({source}) was not selected: environments.cfenv sets $environment here to 'production'  "
        "[environment-not-applied]\n"
    )


def test_unknown_environment_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "inject", "tier", str(ROOT), f"--fact={DEV}", "--environment", "nope")
    assert (code, out) == (1, "")
    assert err == (
        "{dir}/environments.cfenv:13:5: error: unknown environment 'nope' ($environment is set here to "
        "'nope', the value of $agent_environment (--environment); known: feature, production, staging)  "
        "[unknown-environment]\n"
    )


def test_export_model_holds_the_environments_bindings(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "model.json"
    code, _, err = run(capsys, "show", str(ROOT), f"--fact={PROD}", "--export-model", str(out))
    assert (code, err) == (0, "")
    roots = json.loads(out.read_text(encoding="utf-8"))
    roots = roots if isinstance(roots, list) else [roots]
    text = json.dumps(roots)
    for name in ('"default"', '"web::default"', '"log::default"', '"hiera"', '"confdir:/default"'):
        assert name in text
    assert '"stage"' not in text and '"feature"' not in text


@pytest.mark.parametrize(
    ("key", "facts", "expected"),
    [
        ("web::workers", ["--fact=fqdn=web1.example.com"], (0, "8\n", "")),
        ("web::workers", ["--fact=fqdn=web1.example.com", "--fact=datacenter=ams"], (0, "16\n", "")),
        (
            "cache::size_mb",
            ["--fact=fqdn=joe.dev.example.com", "--environment", "feature_cache"],
            (0, "512\n", ""),
        ),
        (
            "web::workers",
            ["--fact=fqdn=joe.dev.example.com", "--environment", "hotfix"],
            (1, "", 'error: no binding for Data "web::workers"  [not-bound]\n'),
        ),
        (
            "web::workers",
            ["--fact=fqdn=x.stage.example.com"],
            (1, "", 'error: no binding for Data "web::workers"  [not-bound]\n'),
        ),
    ],
)
def test_the_example_environments(
    capsys: pytest.CaptureFixture[str], key: str, facts: list[str], expected: tuple[int, str, str]
) -> None:
    """examples/environments: production's bindings (with its datacenter category), the
    feature_cache branch's own bindings, none in staging and hotfix."""
    assert run(capsys, "inject", key, str(EXAMPLE), *facts, root=EXAMPLE) == expected


def test_a_bindings_only_folder_is_its_automatic_production_environment(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Without environments.cfenv and main.cf nothing could be compiled: the folder's bindings
    are composed as the automatic production environment, with the warning the request
    sequence gives once the folder has a main file."""
    (tmp_path / "bindings").mkdir()
    (tmp_path / "bindings" / "default.bind").write_text(
        'bindings default {\n  bind "env" to "$::environment"\n}\n', encoding="utf-8"
    )
    results = []
    for _ in range(2):
        results.append(
            run(capsys, "inject", "env", str(tmp_path), "--fact=environment=staging", root=tmp_path)
        )
        (tmp_path / "main.cf").write_text("", encoding="utf-8")
    assert (
        results[0]
        == results[1]
        == (
            0,
            "production\n",
            "warning: the requested environment 'staging' (the fact 'environment') was not selected: "
            "there is no environments.cfenv, so the default is 'production'  [environment-not-applied]\n",
        )
    )


def test_default_layers_read_the_bindings_folder_given(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "default.bind").write_text("bindings default { }", encoding="utf-8")
    layers = [(layer.name, list(layer.include)) for layer in project_default_layers(tmp_path)]
    assert layers == [("modules", ["module:/*::default"])]
    layers = [
        (layer.name, list(layer.include)) for layer in project_default_layers(tmp_path, tmp_path / "data")
    ]
    assert layers == [("site", ["confdir:/default"]), ("modules", ["module:/*::default"])]
