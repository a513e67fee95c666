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


def _workspace(tmp_path: Path, reference: str) -> Path:
    """Two projects of an Eclipse workspace: app.ecore refers to base.ecore by *reference*."""
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<ecore:EPackage xmi:version="2.0" '
        'xmlns:xmi="http://www.omg.org/XMI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xmlns:ecore="http://www.eclipse.org/emf/2002/Ecore" '
    )
    base = tmp_path / "ws" / "base" / "model" / "base.ecore"
    app = tmp_path / "ws" / "app" / "model" / "app.ecore"
    base.parent.mkdir(parents=True)
    app.parent.mkdir(parents=True)
    base.write_text(
        head + 'name="base" nsURI="http://example.org/base" nsPrefix="base">'
        '<eClassifiers xsi:type="ecore:EClass" name="Named"/></ecore:EPackage>\n',
        encoding="utf-8",
    )
    app.write_text(
        head + 'name="app" nsURI="http://example.org/app" nsPrefix="app">'
        f'<eClassifiers xsi:type="ecore:EClass" name="Server" eSuperTypes="{reference}#//Named">'
        '<eStructuralFeatures xsi:type="ecore:EReference" name="peer" '
        f'eType="ecore:EClass {reference}#//Named"/></eClassifiers></ecore:EPackage>\n',
        encoding="utf-8",
    )
    return app


def test_a_platform_uri_is_read_through_the_uri_map(tmp_path: Path) -> None:
    app = _workspace(tmp_path, "platform:/resource/base/model/base.ecore")
    result = run("ecore", "import", str(app), "-o", "project", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        "platform:/resource/base/model/base.ecore" in result.stderr and "[missing-package]" in result.stderr
    )
    result = run(
        "ecore", "import", str(app), "-o", "project", "--uri-map", "platform:/resource/=ws/", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "project/libs/base/model/_init.cf" in result.stdout.split()
    text = (tmp_path / "project" / "libs" / "app" / "model" / "_init.cf").read_text(encoding="utf-8")
    assert "entity Server extends base::Named:" in text and "Server.peer [0:1] -- base::Named" in text
    assert run("check", "project", cwd=tmp_path).returncode == 0


def test_a_relative_path_reads_the_file_it_names(tmp_path: Path) -> None:
    app = _workspace(tmp_path, "../../base/model/base.ecore")
    result = run("ecore", "import", str(app), "-o", "project", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "project/libs/base/model/_init.cf" in result.stdout.split()


def test_a_malformed_uri_map_is_a_usage_error(tmp_path: Path) -> None:
    result = run("ecore", "import", "x.ecore", "-o", "p", "--uri-map", "platform:/resource/", cwd=tmp_path)
    assert result.returncode == 2
    assert "expected PREFIX=TARGET" in result.stderr


def test_a_relative_path_to_a_file_elsewhere_goes_through_the_uri_map(tmp_path: Path) -> None:
    # as EMF's change model names Ecore: ../../org.eclipse.emf.ecore/model/Ecore.ecore
    app = _workspace(tmp_path, "../../lib/model/base.ecore")
    assert run("ecore", "import", str(app), "-o", "project", cwd=tmp_path).returncode == 1
    mapped = run(
        "ecore",
        "import",
        str(app),
        "-o",
        "project",
        "--uri-map",
        "../../lib/model/=ws/base/model/",
        cwd=tmp_path,
    )
    assert mapped.returncode == 0, mapped.stderr
    text = (tmp_path / "project" / "libs" / "app" / "model" / "_init.cf").read_text(encoding="utf-8")
    assert "entity Server extends base::Named:" in text
    assert run("check", "project", cwd=tmp_path).returncode == 0
