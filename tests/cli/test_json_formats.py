"""``--format json`` on ``bindings inject|explain`` and ``env list|which`` (issue 20, CLI
conventions): one JSON document on stdout, with what the text says, for scripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cfmodel.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PRODUCTION = ["--fact", "fqdn=web1.example.com"]


@pytest.fixture(autouse=True)
def _in_examples(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(EXAMPLES)
    monkeypatch.setenv("CFMODEL_CACHE_DIR", str(tmp_path))


def run_json(capsys: pytest.CaptureFixture[str], *args: str, code: int = 0) -> Any:
    assert main([*args, "--format", "json"]) == code
    said = capsys.readouterr()
    assert said.err == ""
    return json.loads(said.out)


def test_bindings_inject(capsys: pytest.CaptureFixture[str]) -> None:
    found = run_json(capsys, "bindings", "inject", "web::workers", "environments/production", *PRODUCTION)
    assert found == {"key": "web::workers", "type": "Data", "value": 8}
    typed = run_json(
        capsys, "bindings", "inject", "web::workers", "environments/production", *PRODUCTION,
        "--fact", "datacenter=ams", "--type", "Integer",
    )  # fmt: skip
    assert typed == {"key": "web::workers", "type": "Integer", "value": 16}


def test_bindings_explain(capsys: pytest.CaptureFixture[str]) -> None:
    explained = run_json(
        capsys,
        "bindings",
        "explain",
        "web::workers",
        "environments/production",
        *PRODUCTION,
        "--fact",
        "datacenter=ams",
    )
    assert explained["key"] == 'Data "web::workers"' and explained["value"] == "16"
    assert explained["layers"] == ["site", "modules"]
    assert explained["categories"] == {
        "node": "web1.example.com",
        "environment": "production",
        "datacenter": "ams",
        "common": "true",
    }
    where = str(EXAMPLES / "environments" / "production" / "bindings" / "default.bind")
    assert [(c["status"], c["value"], c["location"]) for c in explained["candidates"]] == [
        ("winner", "16", f"{where}:3:27"),
        ("shadowed", "8", f"{where}:2:3"),
    ]
    assert explained["problems"] == [] and explained["merge_steps"] == []


def test_env_list(capsys: pytest.CaptureFixture[str]) -> None:
    catalog = run_json(capsys, "env", "list", "environments")
    assert catalog["file"] == "environments/environments.cfenv"
    names = {env["name"]: env for env in catalog["environments"]}
    assert sorted(names) == ["feature_cache", "hotfix", "production", "staging"]
    production = names["production"]
    assert production["kind"] == "static"
    assert production["main"] == {"path": "environments/production/main.cf", "exists": True}
    assert production["modulepath"] == [
        {"path": "environments/production/libs", "exists": True},
        {"path": "environments/shared", "exists": True},
    ]


def test_env_which(capsys: pytest.CaptureFixture[str]) -> None:
    request = run_json(
        capsys,
        "env",
        "which",
        "environments",
        "--fact",
        "fqdn=joe.dev.example.com",
        "--environment",
        "hotfix",
    )
    assert request["environment"] == "hotfix"
    assert [step["step"] for step in request["steps"]][:5] == [
        "facts",
        "agent environment",
        "classifier",
        "environments file",
        "$environment",
    ]
    assert request["steps"][4]["location"] == "environments/environments.cfenv:23:5"
    assert request["target"]["main"] == "environments/branches/hotfix/main.cf"


def test_an_error_is_a_json_diagnostic(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "bindings",
                "inject",
                "nothing::bound",
                "environments/production",
                *PRODUCTION,
                "--format",
                "json",
            ]
        )
        == 1
    )
    said = capsys.readouterr()
    assert said.out == ""
    diagnostic = json.loads(said.err)
    assert diagnostic["severity"] == "error" and diagnostic["code"] == "not-bound"
