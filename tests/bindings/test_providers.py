"""The ``confdir:`` provider and ``create_injector``: files named after their bindings, wildcards."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.errors import CfModelError
from cfmodel.transforms.providers import create_injector


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
