"""The API reference is built from the docstrings (pdoc) with warnings as errors, and it
documents every name the package exports (issue 20, housekeeping)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cfmodel

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("api")
    built = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "apidocs.py"), str(output)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert built.returncode == 0 and built.stderr == "", built.stderr  # warnings are errors
    assert built.stdout == f"{output / 'index.html'}\n"
    return output


def test_every_exported_name_is_documented(reference: Path) -> None:
    page = (reference / "cfmodel.html").read_text(encoding="utf-8")
    missing = [name for name in cfmodel.__all__ if name != "__version__" and f'id="{name}"' not in page]
    assert missing == []


def test_docstrings_become_the_reference(reference: Path) -> None:
    saved = (reference / "cfmodel" / "saved.html").read_text(encoding="utf-8")
    assert "Read an XMI instance model and its metamodel" in saved
    # Google-style sections are rendered as such
    assert '<h6 id="raises">Raises:</h6>' in saved and "CfLoadError" in saved
    pipeline = (reference / "cfmodel" / "pipeline.html").read_text(encoding="utf-8")
    assert 'id="CompileResult.save_xmi"' in pipeline
    for module in ("cfmodel/mcl.html", "cfmodel/sparql.html", "cfmodel/transforms/environments/request.html"):
        assert (reference / module).is_file(), module


def test_a_warning_fails_the_build(tmp_path: Path) -> None:
    broken = tmp_path / "broken_module.py"
    broken.write_text(
        '"""A module whose annotation cannot be resolved."""\n\ndef f(x: "Nowhere") -> None:\n    """F."""\n'
    )
    script = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "import apidocs\n"
        "apidocs.PUBLIC_MODULES = ('broken_module',)\n"
        "sys.exit(apidocs.main([sys.argv[3]]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(REPO / "scripts"), str(tmp_path), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1
    assert "apidocs: warning (an error here): " in run.stderr and "Nowhere" in run.stderr
    assert not (tmp_path / "out").exists()  # nothing written
