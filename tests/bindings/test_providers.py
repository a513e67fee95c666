"""The ``confdir:`` provider and ``create_injector``: files named after their bindings, wildcards."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.errors import CfModelError
from cfmodel.transforms.bindings.providers import create_injector


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def failure(root: Path) -> str:
    with pytest.raises(CfModelError) as caught:
        create_injector(root, {"fqdn": "kermit"})
    text = "\n".join(d.render() for d in caught.value.diagnostics())
    return text.replace(str(root), "{dir}")


PROJECT = {
    "site.bind": """site {
  categories { node => $::fqdn, environment => true }
  bindings => [
    layer { 'site': include => 'confdir:/default' },
    layer { 'os': include => 'confdir:/windows/*' },
    layer { 'all': include => 'confdir:/**', exclude => ['confdir:/default', 'confdir:/windows/*'] },
  ]
}""",
    "bindings/default.bind": "bindings default { bind \"color\" to 'green' }",
    "bindings/windows/default.bind": "bindings windows::default { bind \"color\" to 'blue' bind \"os\" to 'win' }",
    "bindings/deep/er/x.bind": 'bindings deep::er::x { bind "os" to \'deep\' bind "depth" to 3 }',
}


def test_layers_from_confdir_with_wildcards(tmp_path: Path) -> None:
    write(tmp_path, PROJECT)
    injector = create_injector(tmp_path, {"fqdn": "kermit"})
    assert injector.lookup("color") == "green"
    assert injector.lookup("os") == "win"
    assert injector.lookup("depth") == 3
    explanation = injector.explain("os")
    assert explanation.layers == ("site", "os", "all")
    assert explanation.winner is not None
    assert explanation.winner.span is not None
    assert explanation.winner.span.start() == f"{tmp_path}/bindings/windows/default.bind:1:52"


def test_default_layer_is_confdir_default(tmp_path: Path) -> None:
    write(tmp_path, {"bindings/default.bind": 'bindings default { bind "x" to 1 }'})
    assert create_injector(tmp_path, {}).lookup("x") == 1


def test_missing_bindings(tmp_path: Path) -> None:
    write(tmp_path, {"site.bind": "site { bindings => [ layer { 'site': include => 'confdir:/nothere' } ] }"})
    assert failure(tmp_path) == (
        '{dir}/site.bind:1:22: error: no bindings "nothere" (looked for {dir}/bindings/nothere.bind)  '
        "[bindings-not-found]"
    )


def test_file_must_hold_the_bindings_it_is_named_after(tmp_path: Path) -> None:
    write(tmp_path, {"bindings/windows/default.bind": "bindings default { }"})
    write(
        tmp_path, {"site.bind": "site { bindings => [ { 'site': include => 'confdir:/windows/default' } ] }"}
    )
    assert failure(tmp_path) == (
        "{dir}/bindings/windows/default.bind:1:1: error: windows/default.bind must hold exactly "
        '"bindings windows::default" (found: default)  [bindings-name-mismatch]'
    )


def test_unknown_scheme(tmp_path: Path) -> None:
    write(tmp_path, {"site.bind": "site { bindings => [ { 'enc': include => 'enc:' } ] }"})
    assert failure(tmp_path) == (
        '{dir}/site.bind:1:22: error: unknown bindings scheme "enc:" in "enc:" (known: confdir:, hiera:, module:)  [unknown-scheme]'
    )


def test_syntax_error_in_a_bindings_file(tmp_path: Path) -> None:
    write(tmp_path, {"bindings/default.bind": 'bindings default { bind "x" to }'})
    assert failure(tmp_path) == (
        "{dir}/bindings/default.bind:1:32: error: unexpected '}' (expected 'optional', 'producer', 'class', "
        "a type name or an expression)  [syntax]"
    )


# --- module: ----------------------------------------------------------------------------------


MODULES = {
    "project.yml": "name: p\nmodulepath: [libs, more]\n",
    "libs/ntp/bindings/default.bind": "bindings ntp::default { bind 'ntp::servers' to ['a.pool'] }",
    "libs/ntp/bindings/extra/fast.bind": "bindings ntp::extra::fast { bind 'ntp::burst' to true }",
    "libs/web/bindings/default.bind": "bindings web::default { bind 'web::port' to 80  include web }",
    "more/ntp/bindings/default.bind": "bindings ntp::default { bind 'ntp::servers' to ['shadowed'] }",
    "more/db/bindings/default.bind": "bindings db::default { bind 'db::port' to 5432 }",
    "libs/nobindings/model/_init.cf": "",
}


def test_default_layers_are_site_over_every_modules_default(tmp_path: Path) -> None:
    write(tmp_path, {**MODULES, "bindings/default.bind": "bindings default { bind 'web::port' to 8080 }"})
    injector = create_injector(tmp_path, {})
    assert injector.layer_names == ("site", "modules")
    assert injector.lookup("web::port") == 8080
    assert injector.lookup("ntp::servers") == ["a.pool"]  # the first module of a name on the path
    assert injector.lookup("db::port") == 5432
    assert "ntp::burst" not in injector
    assert injector.classes() == ["web"]


def test_without_a_site_default_only_modules(tmp_path: Path) -> None:
    write(tmp_path, MODULES)
    assert create_injector(tmp_path, {}).layer_names == ("modules",)


def test_module_uris_with_wildcards(tmp_path: Path) -> None:
    write(tmp_path, MODULES)
    site = "site { bindings => [ layer { 'fast': include => 'module:/ntp::extra::*' }, "
    site += "layer { 'rest': include => ['module:/*::**'], exclude => 'module:/db' } ] }"
    write(tmp_path, {"site.bind": site})
    injector = create_injector(tmp_path, {})
    assert injector.lookup("ntp::burst") is True
    assert injector.lookup("web::port") == 80
    assert "db::port" not in injector


def test_module_not_found(tmp_path: Path) -> None:
    write(tmp_path, MODULES)
    site = "site { bindings => [ layer { 'm': include => ['module:/nope', 'module:/ntp::nope'] } ] }"
    write(tmp_path, {"site.bind": site})
    assert failure(tmp_path) == "\n".join(
        [
            '{dir}/site.bind:1:22: error: no bindings "ntp::nope" on the module path  [bindings-not-found]',
            '{dir}/site.bind:1:22: error: no module "nope" with bindings (looked in {dir}/libs, {dir}/more)  [bindings-not-found]',
        ]
    )


def test_module_file_must_hold_its_qualified_bindings(tmp_path: Path) -> None:
    write(tmp_path, {"libs/ntp/bindings/default.bind": "bindings default { }"})
    assert failure(tmp_path) == (
        '{dir}/libs/ntp/bindings/default.bind:1:1: error: default.bind must hold exactly "bindings ntp::default" '
        "(found: default)  [bindings-name-mismatch]"
    )


# --- enc: -------------------------------------------------------------------------------------

ENC_YAML = """\
environment: production
classes:
  ntp:
    servers: [a.pool, b.pool]
  apache:
parameters:
  datacenter: ams
  ntp_burst: true
"""


def test_enc_from_a_file_gives_classes_parameters_and_variables(tmp_path: Path) -> None:
    write(tmp_path, {"enc.yaml": ENC_YAML, "project.yml": "bindings:\n  enc: enc.yaml\n"})
    write(tmp_path, {"site.bind": "site { bindings => [ layer { 'enc': include => 'enc:' } ] }"})
    injector = create_injector(tmp_path, {"fqdn": "kermit"})
    assert injector.classes() == ["ntp", "apache"]
    assert injector.parameters("ntp") == {"servers": ["a.pool", "b.pool"]}
    assert injector.variables() == {"datacenter": "ams", "ntp_burst": True}
    explanation = injector.explain("/var/datacenter").render().replace(str(tmp_path), "{dir}")
    assert explanation.splitlines()[3] == (
        "  winner: {dir}/enc.yaml:6:1 bind 'ams' (bindings enc, layer \"enc\", category common)"
    )


def test_enc_parts(tmp_path: Path) -> None:
    write(tmp_path, {"enc.yaml": ENC_YAML, "project.yml": "bindings:\n  enc: enc.yaml\n"})
    site = "site { bindings => [ layer { 'enc': include => ['enc:/classes', 'enc:/variables'] } ] }"
    write(tmp_path, {"site.bind": site})
    injector = create_injector(tmp_path, {})
    assert injector.classes() == ["ntp", "apache"]
    assert injector.parameters("ntp") == {}


def test_enc_from_a_command_gets_the_node_name(tmp_path: Path) -> None:
    script = tmp_path / "enc.sh"
    script.write_text("#!/bin/sh\necho \"classes: [role_$2]\"\necho 'parameters: {via: command}'\n")
    script.chmod(0o755)
    write(tmp_path, {"project.yml": f"bindings:\n  enc: {{command: '{script} --yaml'}}\n"})
    write(tmp_path, {"site.bind": "site { bindings => [ layer { 'enc': include => 'enc:' } ] }"})
    injector = create_injector(tmp_path, {"fqdn": "kermit"})
    assert injector.classes() == ["role_kermit"]  # run as: enc.sh --yaml kermit
    assert injector.variable("via") == "command"


ENC_ERRORS = {
    "not-yaml": (
        {"enc.yaml": "classes: [a\n"},
        "{dir}/enc.yaml:2:1: error: the classifier's answer is not valid YAML: "
        "expected ',' or ']', but got '<stream end>'  [enc-failed]",
    ),
    "shape": (
        {"enc.yaml": "classes: {ntp: [servers]}\n"},
        '{dir}/enc.yaml:1:11: error: the parameters of class "ntp" must be a mapping  [enc-failed]',
    ),
    "missing": (
        {},
        "{dir}/site.bind:1:22: error: cannot read the classifier's answer {dir}/enc.yaml: No such file or directory  [enc-failed]",
    ),
    "unknown-part": (
        {"enc.yaml": ENC_YAML, "site.bind": "site { bindings => [ { 'enc': include => 'enc:/nope' } ] }"},
        '{dir}/site.bind:1:22: error: unknown part "enc:/nope" (use enc:, enc:/classes, enc:/parameters '
        "or enc:/variables)  [enc-unknown-part]",
    ),
}


@pytest.mark.parametrize("name", list(ENC_ERRORS))
def test_enc_errors(tmp_path: Path, name: str) -> None:
    files, expected = ENC_ERRORS[name]
    write(tmp_path, {"site.bind": "site { bindings => [ { 'enc': include => 'enc:' } ] }"})
    write(tmp_path, {**files, "project.yml": "bindings:\n  enc: enc.yaml\n"})
    assert failure(tmp_path) == expected


def test_enc_from_data_for_other_callers() -> None:
    from cfmodel.metamodel import bindings as bm
    from cfmodel.metamodel.bindings import SpanTable
    from cfmodel.transforms.bindings.compose import compose
    from cfmodel.transforms.bindings.providers import EncData, EncProvider, load_layers

    provider = EncProvider(EncData(classes=("base",), variables={"x": 1}))
    layers = load_layers([bm.Layer(name="enc", include=["enc:"])], {"enc": provider}, SpanTable())
    injector = compose(layers.layers, {}, layers.spans)
    assert (injector.classes(), injector.variables()) == (["base"], {"x": 1})


# --- plugged-in providers, project settings -----------------------------------------------------


def test_providers_from_entry_points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    from cfmodel.transforms.bindings.providers import project as project_module
    from cfmodel.transforms.bindings.providers.base import BindingsBuilder, ProviderContext

    class Inventory:
        scheme = "inventory"

        def __init__(self, context: ProviderContext) -> None:
            self.node = (context.facts or {}).get("fqdn")

        def load(self, path: str, span: object, diags: object) -> list[object]:
            builder = BindingsBuilder("<inventory>")
            builder.bind(builder.named("inventory"), "rack", f"rack of {self.node} ({path})")
            return [builder.result()]

    points = [
        EntryPoint("inventory", "tests.x:Inventory", "cfmodel.bindings_providers"),
        EntryPoint("broken", "no.such.module:thing", "cfmodel.bindings_providers"),
    ]
    monkeypatch.setattr(project_module, "entry_points", lambda group: points)
    monkeypatch.setattr(EntryPoint, "load", lambda self: Inventory if self.name == "inventory" else 1 / 0)
    write(tmp_path, {"site.bind": "site { bindings => [ layer { 'inv': include => 'inventory:/dc1' } ] }"})
    with pytest.raises(CfModelError) as caught:
        create_injector(tmp_path, {"fqdn": "kermit"})
    assert caught.value.render() == (
        'error: the bindings provider "broken:" (no.such.module:thing) cannot be loaded: division by zero  [provider-failed]'
    )
    monkeypatch.setattr(EntryPoint, "load", lambda self: Inventory)
    points.pop()
    assert create_injector(tmp_path, {"fqdn": "kermit"}).lookup("rack") == "rack of kermit (/dc1)"


def test_project_setting_selects_the_literal_nesting_rule(tmp_path: Path) -> None:
    text = """bindings default {
  when virtual true { bind "x" to 1 }
  when virtual true and environment 'production' { bind "x" to 2 }
}"""
    site = "site { categories { virtual => $::is_virtual, environment => true } }"
    write(tmp_path, {"bindings/default.bind": text, "site.bind": site})
    assert create_injector(tmp_path, {"is_virtual": True}).lookup("x") == 2
    write(tmp_path, {"project.yml": "bindings:\n  nesting: highest\n"})
    with pytest.raises(CfModelError) as caught:
        create_injector(tmp_path, {"is_virtual": True})
    assert (
        caught.value.render().splitlines()[0].endswith("bind it at the same precedence  [binding-conflict]")
    )


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ("- a\n", "{dir}/project.yml:1:1: error: project settings must be a mapping  [bad-project]"),
        (
            "bindings: [x]\n",
            "{dir}/project.yml:1:1: error: the bindings section must be a mapping  [bad-project]",
        ),
        (
            "bindings: {nesting: css}\n",
            "{dir}/project.yml:1:1: error: bindings.nesting must be vector or highest, not 'css'  [bad-project]",
        ),
        (
            "bindings: {enc: 3}\n",
            "{dir}/project.yml:1:1: error: bindings.enc must be a file name, {file: <name>} or {command: <command>}  [bad-project]",
        ),
    ],
)
def test_bad_project_settings(tmp_path: Path, settings: str, expected: str) -> None:
    write(tmp_path, {"project.yml": settings})
    assert failure(tmp_path) == expected
