"""The example notebooks run in a real Jupyter kernel (nbclient + ipykernel), and their rich
outputs are there and well formed: not only "no exception"."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import skip_or_fail

NOTEBOOKS = Path(__file__).resolve().parents[1] / "examples" / "notebooks"

pytestmark = pytest.mark.slow


def execute(name: str) -> list[dict[str, Any]]:
    """Run a notebook in a fresh kernel; the outputs of its code cells, in order."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute()
    cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(not any(o.output_type == "error" for o in cell.outputs) for cell in cells)
    return [_result(cell) for cell in cells]


def _result(cell: Any) -> dict[str, Any]:
    results = [o for o in cell.outputs if o.output_type == "execute_result"]
    return dict(results[-1].data) if results else {}


def test_the_walkthrough_shows_its_rich_outputs() -> None:
    if shutil.which("dot") is None:
        skip_or_fail("Graphviz is not installed (apt-get install graphviz; see scripts/system-packages.txt)")
    project, result, servers, report, ok, saved_files, saved, equal, diagram = execute("walkthrough.ipynb")
    assert project["text/plain"] == "<Project webshop: 7 namespaces, 232 lines, main ../webshop/main.cf>"
    assert "text/html" not in project
    table = result["text/html"]
    assert table.startswith('<div class="cfmodel"><strong>webshop: 19 instances')
    assert "<tr><td>web::Server</td><td>2</td></tr>" in table and table.endswith("</table></div>")
    assert servers["text/plain"] == (
        "[('web1.example.com', 80, ['https://shop.example.com/']),\n ('web2.example.com', 80, ['http://shop.example.com/'])]"
    )
    assert "70000 does not satisfy the condition of web::port" in report["text/html"]
    assert ok["text/plain"] == "True"
    assert (
        saved_files["text/plain"]
        == "['__config__.ecore', 'shop.ecore', 'std.ecore', 'web.ecore', 'webshop.xmi']"
    )
    assert "<tr><td>web::services::Vhost</td><td>2</td></tr>" in saved["text/html"]
    assert equal["text/plain"] == "True"
    svg = diagram["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") or svg.lstrip().startswith("<svg")
    assert "Server" in svg and "</svg>" in svg
