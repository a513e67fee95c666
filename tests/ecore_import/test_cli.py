"""``cfmodel ecore export`` and ``cfmodel ecore import`` as users run them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import run_cfmodel

REPO = Path(__file__).resolve().parents[2]
LIBRARY = Path(__file__).parent / "fixtures" / "library.ecore"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cfmodel(*args, cwd=cwd, cache=cwd / ".cache")


def test_export_then_import_then_check(tmp_path: Path) -> None:
    result = run("ecore", "export", str(REPO / "examples" / "webshop"), "-o", "ecore", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [f"ecore/{n}.ecore" for n in ("__config__", "shop", "std", "web")]
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "ecore").glob("*.ecore"))
    result = run("ecore", "import", *files, "-o", "project", "--name", "shop", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "project/libs/web/model/services.cf" in result.stdout.split()
    result = run("check", "project", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("shop: ok — 7 files, ")


def test_export_with_spans_and_uri_base(tmp_path: Path) -> None:
    result = run(
        "ecore",
        "export",
        str(REPO / "examples" / "webshop"),
        "-o",
        "out",
        "--spans",
        "--uri-base",
        "urn:shop:",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "out" / "web.ecore").read_text(encoding="utf-8")
    assert 'nsURI="urn:shop:web"' in text and 'source="http://cfmodel.org/source"' in text


def test_export_reports_resolve_errors(tmp_path: Path) -> None:
    (tmp_path / "main.cf").write_text("entity A extends B:\nend\n", encoding="utf-8")
    result = run("ecore", "export", ".", "-o", "out", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        result.stderr
        == "main.cf:1:18: error: could not find entity 'B' in namespace __config__  [unknown-entity]\n"
    )
    assert not (tmp_path / "out").exists()


def test_import_errors_exit_1_or_2(tmp_path: Path) -> None:
    (tmp_path / "bad.ecore").write_text("<nope", encoding="utf-8")
    result = run("ecore", "import", "bad.ecore", "-o", "out", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("bad.ecore:1:")
    assert "[xml-syntax]" in result.stderr
    assert run("ecore", "import", str(LIBRARY), "-o", "out", cwd=tmp_path).returncode == 0
    (tmp_path / "out" / "main.cf").write_text("x = 1\n", encoding="utf-8")
    result = run("ecore", "import", str(LIBRARY), "-o", "out", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (2, "cfmodel: out: would overwrite main.cf (use --force)\n")
    assert "Traceback" not in result.stderr
