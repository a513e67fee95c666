"""``hiera:``: Hiera 5 data as bindings, checked against what ``puppet lookup`` answered."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from cfmodel.cli import main
from cfmodel.commands.bindings import render_value
from cfmodel.errors import CfModelError
from cfmodel.transforms.bindings.providers import create_injector, parse_merge
from cfmodel.transforms.bindings.providers.hiera import lookup

from .hiera_cases import CASES, HIERA, MISSES, merge_spec

FACTS = yaml.safe_load((HIERA / "facts.yaml").read_text(encoding="utf-8"))
SITE = """site {
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'hiera': include => 'hiera:' },
  ]
}
"""


def expected_output(json_text: str) -> str:
    """What ``cfmodel bindings inject`` prints for a value ``puppet lookup`` rendered as JSON."""
    value = json.loads(json_text)
    return json_text if isinstance(value, list | dict) else render_value(value)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hiera-project")
    shutil.copytree(HIERA, root, dirs_exist_ok=True)
    (root / "site.bind").write_text(SITE, encoding="utf-8")
    (root / "bindings").mkdir()
    (root / "bindings" / "default.bind").write_text(
        "bindings default {\n  bind 'extra_b' to 'from the site layer'\n}\n", encoding="utf-8"
    )
    return root


@pytest.mark.parametrize(("spec", "expected"), CASES, ids=[c[0] for c in CASES])
def test_lookup_answers_as_puppet_lookup(spec: str, expected: str) -> None:
    key, *args = spec.split()
    spec_merge = merge_spec(args)
    found = lookup(HIERA / "hiera.yaml", FACTS, key, parse_merge(spec_merge) if spec_merge else None)
    assert found is not None
    assert json.dumps(found.value, separators=(",", ":"), ensure_ascii=False) == expected


@pytest.mark.parametrize(("spec", "expected"), CASES, ids=[c[0] for c in CASES])
def test_cli_inject_answers_as_puppet_lookup(
    spec: str, expected: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, *args = spec.split()
    if key == "extra_b":
        expected = '"from the site layer"'  # the site layer is above the hiera layer
    code = main(["bindings", "inject", key, str(project), "--facts", str(project / "facts.yaml"), *args])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out == expected_output(expected) + "\n"


@pytest.mark.parametrize("key", MISSES)
def test_misses_find_nothing_as_puppet_lookup(
    key: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lookup(HIERA / "hiera.yaml", FACTS, key) is None
    code = main(["bindings", "inject", key, str(project), "--facts", str(project / "facts.yaml")])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err == f'error: no binding for Data "{key}"  [not-bound]\n'


def test_a_malformed_dotted_key_is_an_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bindings", "inject", "a.'b", str(project), "--facts", str(project / "facts.yaml")])
    assert (code, capsys.readouterr().err) == (
        1,
        'error: the key "a.\'b" has an unterminated quote  [bad-key]\n',
    )


def test_trusted_comes_from_node_and_trusted_facts_never_from_a_fact(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    facts = [f"--fact={k}={v}" for k, v in FACTS.items() if isinstance(v, str) and k != "clientcert"]
    trusted = tmp_path / "trusted.yaml"
    trusted.write_text("extensions: {pp_role: web}\n", encoding="utf-8")

    def inject(*args: str) -> tuple[int, str, str]:
        code = main(["bindings", "inject", "trusted_message", str(project), *facts, *args])
        out, err = capsys.readouterr()
        return code, out, err

    said = "certname kermit.example.com, host kermit, domain example.com\n"
    assert inject("--node", "kermit.example.com") == (0, said, "")
    assert inject("--trusted-facts", str(trusted), "--node", "kermit.example.com") == (0, said, "")
    # a fact named trusted is not the trusted hash (Puppet never reads one)
    assert inject("--fact", "trusted={certname: kermit.example.com}") == (
        1,
        "",
        "cfmodel: warning: the fact 'trusted' is ignored: trusted data comes from --node and --trusted-facts\n"
        'error: no binding for Data "trusted_message"  [not-bound]\n',
    )
    assert inject("--node", "kermit.example.com", "--fact", "clientcert=piggy.example.com") == (
        2,
        "",
        "cfmodel: the node's certname is given twice, differently: --node 'kermit.example.com', "
        "the fact clientcert 'piggy.example.com'\n",
    )
    trusted.write_text("certname: kermit.example.com\nextension: {}\n", encoding="utf-8")
    assert inject("--trusted-facts", str(trusted)) == (
        2,
        "",
        "cfmodel: the trusted facts file has unknown keys extension (known: certname, extensions, external)\n",
    )


def test_trusted_extensions_reach_hiera_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "site.bind").write_text("site { bindings => [ layer { 'hiera': include => 'hiera:' } ] }\n")
    (tmp_path / "hiera.yaml").write_text(
        "version: 5\nhierarchy:\n  - name: roles\n    path: 'roles/%{trusted.extensions.pp_role}.yaml'\n"
    )
    (tmp_path / "data" / "roles").mkdir(parents=True)
    (tmp_path / "data" / "roles" / "web.yaml").write_text('who: "%{trusted.hostname} in %{trusted.domain}"\n')
    trusted = tmp_path / "trusted.json"
    trusted.write_text('{"certname": "web7.lan", "extensions": {"pp_role": "web"}}', encoding="utf-8")
    assert main(["bindings", "inject", "who", str(tmp_path), "--trusted-facts", str(trusted)]) == 0
    assert capsys.readouterr() == ("web7 in lan\n", "")


@pytest.mark.parametrize("key", ["limits", "nokey"])
def test_explain_shows_every_level_and_path_as_puppet_lookup_explain(
    key: str, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At least what ``puppet lookup --explain`` shows: the lookup_options search and where the
    merge came from, every level and path (as written and interpolated) with "Path not found",
    "No such key" or the level's own value, and the merged result; a key that is not found
    still shows every path searched. A merged value is bound at hiera.yaml, no one data file."""
    assert main(["bindings", "explain", key, str(project), "--facts", str(project / "facts.yaml")]) == 0
    out = capsys.readouterr().out.replace(str(project), "{dir}")
    assert out == (Path(__file__).parent / "golden" / f"explain-{key}.txt").read_text(encoding="utf-8")


def test_keys_come_from_every_level_and_lookup_options_is_not_a_key(project: Path) -> None:
    injector = create_injector(project, FACTS)
    assert injector.lookup("extra_a") == 1
    assert injector.lookup("greeting").startswith("node kermit.example.com")
    assert "lookup_options" not in injector


def test_a_request_with_other_facts_reads_other_files(project: Path) -> None:
    facts = {**FACTS, "fqdn": "piggy.example.com", "role": "db", "services": []}
    injector = create_injector(project, facts)
    assert injector.lookup("message") == "from common"
    assert injector.lookup("settings") == {
        "port": 80,
        "tuning": {"workers": 2, "backlog": 128},
        "log": "info",
        "os_release": 12,
    }


def _failure(root: Path, files: dict[str, str], facts: dict[str, object] | None = None) -> str:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "site.bind").write_text("site { bindings => [ layer { 'hiera': include => 'hiera:' } ] }")
    with pytest.raises(CfModelError) as caught:
        create_injector(root, facts or {"fqdn": "kermit"})
    return "\n".join(d.render() for d in caught.value.diagnostics()).replace(str(root), "{dir}")


HIERA_ERRORS = {
    "no-config": (
        {},
        "{dir}/site.bind:1:22: error: cannot read {dir}/hiera.yaml: No such file or directory  [hiera-config]",
    ),
    "version": (
        {"hiera.yaml": "version: 3\n:backends: [yaml]\n"},
        "{dir}/hiera.yaml:1:1: error: hiera.yaml must be a Hiera 5 configuration (version: 5)  [hiera-config]",
    ),
    "backend": (
        {
            "hiera.yaml": "version: 5\nhierarchy:\n  - name: secrets\n    lookup_key: eyaml_lookup_key\n    path: s.eyaml\n"
        },
        '{dir}/hiera.yaml:3:5: error: level "secrets": lookup_key is not supported here (only yaml_data, json_data data)  [hiera-unsupported]',
    ),
    "no-path": (
        {"hiera.yaml": "version: 5\nhierarchy:\n  - name: nowhere\n"},
        '{dir}/hiera.yaml:3:5: error: level "nowhere" needs exactly one of path, paths, glob, globs, mapped_paths  [hiera-config]',
    ),
    "data-not-a-mapping": (
        {"hiera.yaml": "version: 5\n", "data/common.yaml": "- a\n- b\n"},
        "{dir}/data/common.yaml:1:1: error: {dir}/data/common.yaml must hold a mapping of keys to values  [hiera-data]",
    ),
    "unknown-function": (
        {"hiera.yaml": "version: 5\n", "data/common.yaml": "a: 1\nb: \"%{shout('a')}\"\n"},
        "{dir}/data/common.yaml:2:1: error: unknown interpolation function shout() in \"%{shout('a')}\"  [hiera-interpolation]",
    ),
    "endless": (
        {"hiera.yaml": "version: 5\n", "data/common.yaml": "a: \"%{lookup('b')}\"\nb: \"%{lookup('a')}\"\n"},
        "\n".join(
            [
                "{dir}/data/common.yaml:1:1: error: endless interpolation: 'b' -> 'a' -> 'b'  [hiera-interpolation]",
                "{dir}/data/common.yaml:2:1: error: endless interpolation: 'a' -> 'b' -> 'a'  [hiera-interpolation]",
            ]
        ),
    ),
    "unique-of-hashes": (
        {
            "hiera.yaml": "version: 5\nhierarchy:\n  - {name: n, path: n.yaml}\n  - {name: c, path: c.yaml}\n",
            "data/n.yaml": "h: {a: 1}\nlookup_options: {h: {merge: unique}}\n",
            "data/c.yaml": "h: {b: 2}\n",
        },
        "{dir}/data/n.yaml:1:1: error: cannot merge the values of 'h': a unique merge cannot merge hashes (the second value is {'b' => 2})  [hiera-merge]",
    ),
    "bad-merge-option": (
        {
            "hiera.yaml": "version: 5\n",
            "data/common.yaml": "h: {a: 1}\nlookup_options: {h: {merge: {strategy: hash, knockout_prefix: '--'}}}\n",
        },
        "{dir}/data/common.yaml:1:1: error: cannot merge the values of 'h': the merge strategy 'hash' has no option 'knockout_prefix'  [hiera-merge]",
    ),
}


@pytest.mark.parametrize("name", list(HIERA_ERRORS))
def test_hiera_errors_in_full(name: str, tmp_path: Path) -> None:
    files, expected = HIERA_ERRORS[name]
    assert _failure(tmp_path, files) == expected
