"""``cfmodel bindings show|inject|explain`` as users run them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cfmodel.cli import main
from tests.conftest import run_cfmodel

SITE = """site {
  categories { node => $::fqdn, environment => true, virtual => $::is_virtual }
}
"""
DEFAULT = """bindings default {
  bind "the meaning of life" to 42
  bind "names" to ['Mary', 'John']
  bind "db" to { 'host' => "db.$::dc", 'port' => 5432 }
  bind Boolean, "debug" to false
  when node 'kermit' { bind "greeting" to "hello kermit" }
  when virtual true { bind "greeting" to "hello vm" }
  bind "greeting" to "hello"
  include ntp
  bind variables to { dc => 'ams' }
}
"""
MODULE = "bindings web::default {\n  bind 'greeting' to 'hello from web'\n  include web\n}\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    files = {
        "site.bind": SITE,
        "bindings/default.bind": DEFAULT,
        "libs/web/bindings/default.bind": MODULE,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("key", "extra", "expected"),
    [
        ("the meaning of life", [], "42"),
        ("names", [], '["Mary","John"]'),
        ("db", ["--fact", "dc=ams"], '{"host":"db.ams","port":5432}'),
        ("debug", [], "false"),
        ("greeting", [], "hello"),
        ("greeting", ["--fact", "fqdn=kermit", "--fact", "is_virtual=true"], "hello kermit"),
        ("greeting", ["--fact", "fqdn=piggy", "--fact", "is_virtual=true"], "hello vm"),
        ("/classes", [], '["ntp","web"]'),
        ("the meaning of life", ["--type", "int"], "42"),
        ("the meaning of life", ["--type", "Integer", "--environment", "production"], "42"),
    ],
)
def test_inject(
    project: Path, capsys: pytest.CaptureFixture[str], key: str, extra: list[str], expected: str
) -> None:
    assert run(capsys, "bindings", "inject", key, str(project), *extra) == (0, expected + "\n", "")


def test_inject_with_facts_from_a_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    facts = project / "facts.json"
    facts.write_text(json.dumps({"fqdn": "kermit", "dc": "fra"}))
    assert run(capsys, "bindings", "inject", "db", str(project), "--facts", str(facts))[1] == (
        '{"host":"db.fra","port":5432}\n'
    )


def test_project_defaults_to_the_current_directory(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert run(capsys, "bindings", "inject", "names") == (0, '["Mary","John"]\n', "")


def test_show(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "bindings", "show", str(project), "--fact", "fqdn=kermit", "--fact", "dc=ams"
    )
    assert (code, err) == (0, "")
    assert out.replace(str(project), "{dir}") == "\n".join(
        [
            "environment: production",
            "layers: site, modules",
            "categories: node=kermit, environment=production, virtual (n/a), common=true",
            "classes: ntp, web",
            'Data "/var/dc" = \'ams\'  # {dir}/bindings/default.bind:10:23 (bindings default, layer "site", category common)',
            "Data \"db\" = {'host' => 'db.ams', 'port' => 5432}  # {dir}/bindings/default.bind:4:3 "
            '(bindings default, layer "site", category common)',
            'Data "debug" = false  # {dir}/bindings/default.bind:5:3 (bindings default, layer "site", category common)',
            "Data \"greeting\" = 'hello kermit'  # {dir}/bindings/default.bind:6:24 "
            '(bindings default, layer "site", category node "kermit")',
            "Data \"names\" = ['Mary', 'John']  # {dir}/bindings/default.bind:3:3 (bindings default, layer \"site\", category common)",
            'Data "the meaning of life" = 42  # {dir}/bindings/default.bind:2:3 (bindings default, layer "site", category common)',
            "",
        ]
    )


def test_show_as_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bindings", "show", str(project), "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert (data["environment"], data["layers"]) == ("production", ["site", "modules"])
    assert data["categories"] == {
        "node": None,
        "environment": "production",
        "virtual": None,
        "common": "true",
    }
    greeting = next(b for b in data["bindings"] if b["name"] == "greeting")
    assert greeting == {
        "type": "Data",
        "name": "greeting",
        "value": "hello",
        "kind": "bind",
        "origin": "default",
        "layer": "site",
        "category": "category common",
        "location": f"{project}/bindings/default.bind:8:3",
    }


def test_explain(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bindings", "explain", "greeting", str(project), "--fact", "is_virtual=true")
    assert (code, err) == (0, "")
    assert out.replace(str(project), "{dir}") == "\n".join(
        [
            "Data \"greeting\" = 'hello vm'",
            "  layers consulted: site, modules",
            "  categories consulted: node (n/a), environment=production, virtual=true, common=true",
            '  not applicable: {dir}/bindings/default.bind:6:24 bind \'hello kermit\' (bindings default, layer "site", category node "kermit")',
            '  winner: {dir}/bindings/default.bind:7:23 bind \'hello vm\' (bindings default, layer "site", category virtual "true")',
            "  shadowed: {dir}/bindings/default.bind:8:3 bind 'hello' (bindings default, layer \"site\", category common)",
            "  shadowed: {dir}/libs/web/bindings/default.bind:2:3 bind 'hello from web' "
            '(bindings web::default, layer "modules", category common)',
            "",
        ]
    )


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cfmodel(*args, cwd=cwd)


def test_errors_exit_1_as_file_line_col_without_traceback(project: Path) -> None:
    (project / "bindings" / "default.bind").write_text(
        'bindings default {\n  bind "x" to 1\n  bind "x" to 2\n  bind abstract "y"\n}\n', encoding="utf-8"
    )
    result = cli("bindings", "inject", "x", ".", cwd=project)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    # inject is lenient: the error of another key is a warning, the key's own error fails it
    assert result.stderr.splitlines() == [
        'bindings/default.bind:4:3: warning: a concrete binding must be provided for Data "y": it is abstract '
        '(bindings default, layer "site", category common)  [abstract-not-bound]',
        'bindings/default.bind:3:3: error: conflicting bindings of Data "x" in layer "site", category common: '
        "bindings default and bindings default bind it at the same precedence  [binding-conflict]",
        'bindings/default.bind:2:3: note: the other binding of Data "x" (bindings default) is here',
        'note: to resolve, bind Data "x" in a higher layer or a more specific category',
    ]


def test_syntax_error_and_not_bound(project: Path) -> None:
    (project / "site.bind").write_text("site { categories { node => } }\n", encoding="utf-8")
    result = cli("bindings", "show", cwd=project)
    assert (result.returncode, result.stderr) == (
        1,
        "site.bind:1:29: error: unexpected '}' (expected an expression)  [syntax]\n",
    )
    (project / "site.bind").write_text(SITE, encoding="utf-8")
    result = cli("bindings", "inject", "nothing", cwd=project)
    assert (result.returncode, result.stderr) == (1, 'error: no binding for Data "nothing"  [not-bound]\n')


def test_usage_errors_exit_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bindings", "inject", "x", str(project), "--knock-out-prefix=--")
    assert (code, err) == (
        2,
        "cfmodel: --knock-out-prefix, --sort-merged-arrays and --merge-hash-arrays need --merge deep\n",
    )


def test_exports_are_written(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = project / "out"
    code, _, err = run(
        capsys,
        "bindings",
        "show",
        str(project),
        "--export",
        str(out / "effective.xmi"),
        "--export-model",
        str(out / "model.json"),
    )
    assert (code, err) == (0, "")
    assert "EffectiveBindings" in (out / "effective.xmi").read_text(encoding="utf-8")
    assert "BindingsFile" in (out / "model.json").read_text(encoding="utf-8")
    code, _, err = run(capsys, "bindings", "show", str(project), "--export", str(out / "x.ecore"))
    assert (code, err) == (2, f"cfmodel: {out / 'x.ecore'}: export as .xmi or .json (not ecore)\n")


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A project with errors in some bindings: a conflict, a misspelled option, a module that
    does not parse; other keys are fine."""
    files = {
        "bindings/default.bind": (
            "bindings default {\n"
            '  bind "x" to 1\n'
            '  bind "x" to 2\n'
            "  bind \"ok\" to 'fine'\n"
            '  bind "odd" to 1 { singleton => true }\n'
            "}\n"
        ),
        "libs/good/bindings/default.bind": 'bindings good::default { bind "from_good" to 42 }\n',
        "libs/bad/bindings/default.bind": 'bindings bad::default { bind "from_bad" to }\n',
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


BROKEN_CONFLICT = (
    '{dir}/bindings/default.bind:3:3: {severity}: conflicting bindings of Data "x" in layer "site", '
    "category common: bindings default and bindings default bind it at the same precedence  [binding-conflict]\n"
    '{dir}/bindings/default.bind:2:3: note: the other binding of Data "x" (bindings default) is here\n'
    'note: to resolve, bind Data "x" in a higher layer or a more specific category\n'
)
BROKEN_OPTION = (
    '{dir}/bindings/default.bind:5:21: {severity}: unknown option "singleton" (bindings default, layer "site", '
    "category common): this binding takes no options  [unknown-option]\n"
)
BROKEN_SYNTAX = (
    "{dir}/libs/bad/bindings/default.bind:1:44: {severity}: unexpected '}}' (expected 'optional', 'producer', "
    "'class', a type name or an expression)  [syntax]\n"
)


def test_one_error_does_not_block_lookups_of_other_keys(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ARM-8 stops a compile at any error, but inject answers for keys the errors do not
    concern, listing the errors as warnings."""
    warnings = (BROKEN_CONFLICT + BROKEN_OPTION + BROKEN_SYNTAX).format(dir=broken, severity="warning")
    assert run(capsys, "bindings", "inject", "ok", str(broken)) == (0, "fine\n", warnings)
    assert run(capsys, "bindings", "inject", "from_good", str(broken)) == (0, "42\n", warnings)
    # a key an error concerns fails with that error (the others stay warnings)
    code, out, err = run(capsys, "bindings", "inject", "x", str(broken))
    assert (code, out) == (1, "")
    assert err == (BROKEN_OPTION + BROKEN_SYNTAX).format(
        dir=broken, severity="warning"
    ) + BROKEN_CONFLICT.format(dir=broken, severity="error")
    code, out, err = run(capsys, "bindings", "inject", "odd", str(broken))
    assert (code, err.endswith(BROKEN_OPTION.format(dir=broken, severity="error"))) == (1, True)
    # the compile-time view stays strict: loading stops at the files that do not parse, exit 1
    assert run(capsys, "bindings", "show", str(broken)) == (
        1,
        "",
        BROKEN_SYNTAX.format(dir=broken, severity="error"),
    )


def test_explain_shows_the_error_of_an_affected_key_in_context(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "bindings", "explain", "x", str(broken))
    assert code == 1
    assert err == (BROKEN_OPTION + BROKEN_SYNTAX).format(dir=broken, severity="warning")
    in_context = "".join(
        "  " + line + "\n" for line in BROKEN_CONFLICT.format(dir=broken, severity="error").splitlines()
    )
    assert out == (
        'Data "x" cannot be looked up: 1 error (below)\n'
        "  layers consulted: site, modules\n"
        "  categories consulted: node (n/a), environment=production, common=true\n"
        f'  winner: {broken}/bindings/default.bind:2:3 bind 1 (bindings default, layer "site", category common)\n'
        f'  shadowed: {broken}/bindings/default.bind:3:3 bind 2 (bindings default, layer "site", category common)\n'
        + in_context
    )
