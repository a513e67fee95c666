"""The notebook API as the README shows it (kept in step with the README's example)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.pipeline import compile_project

REPO = Path(__file__).resolve().parents[2]


def test_readme_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = compile_project("examples/webshop")
    assert result.counts()["web::Server"] == 2
    assert [s.name for s in result.instances("web::Server")] == ["web1.example.com", "web2.example.com"]
    assert [c.path for c in result.instances("web::Server")[0].certificates] == [
        "/etc/ssl/web1.example.com.pem"
    ]
    assert "web" in [p.name for p in result.metamodel]
    written = result.save_xmi(tmp_path / "out")
    names = [p.name for p in written]
    assert names[-1] == "webshop.xmi"
    assert {"std.ecore", "web.ecore"} <= set(names)
    assert result.save_json(tmp_path / "webshop.json").is_file()
