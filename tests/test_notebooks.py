"""The example notebooks run in a real Jupyter kernel (nbclient + ipykernel), and their rich
outputs are there and well formed: not only "no exception". The outputs stored in the
notebooks (what the docs show) are what they print today."""

from __future__ import annotations

import importlib.util
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.conftest import skip_or_fail

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "examples" / "notebooks"

pytestmark = pytest.mark.slow


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("notebooks_script", REPO / "scripts" / "notebooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NOTEBOOK_SCRIPT = _script()


def execute(name: str) -> list[dict[str, Any]]:
    """Run a notebook in a fresh kernel (``scripts/notebooks.py``); the outputs of its code
    cells, in order, after checking that the outputs stored in the file (what the docs show)
    are what it prints today."""
    stored = nbformat.read(NOTEBOOKS / name, as_version=4)
    notebook = NOTEBOOK_SCRIPT.run(NOTEBOOKS / name)
    cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(not any(o.output_type == "error" for o in cell.outputs) for cell in cells)
    assert NOTEBOOK_SCRIPT.shown(notebook) == NOTEBOOK_SCRIPT.shown(stored), (
        f"{name}: the stored outputs are not what it prints now: run python scripts/notebooks.py {name}"
    )
    return [_result(cell) for cell in cells]


def well_formed(markup: str) -> str:
    """*markup* (an HTML fragment or an SVG document), after checking that it parses as XML."""
    if markup.lstrip().startswith("<?xml"):
        ET.fromstring(markup.encode("utf-8"))
    else:
        ET.fromstring(f"<root>{markup}</root>")
    return markup


def _result(cell: Any) -> dict[str, Any]:
    results = [o for o in cell.outputs if o.output_type == "execute_result"]
    return dict(results[-1].data) if results else {}


def test_the_walkthrough_shows_its_rich_outputs() -> None:
    if shutil.which("dot") is None:
        skip_or_fail("Graphviz is not installed (apt-get install graphviz; see scripts/system-packages.txt)")
    project, result, servers, report, ok, saved_files, saved, equal, diagram, server = execute(
        "walkthrough.ipynb"
    )
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
    one = ET.fromstring(well_formed(server["image/svg+xml"]).encode("utf-8"))
    titles = {t.text for t in one.iter("{http://www.w3.org/2000/svg}title")}
    assert {
        "web::Server",
        "web::LoadBalancer",
        "web::services::Vhost",
    } <= titles and "web::Database" not in titles


def test_the_bindings_notebook_explains_its_answers() -> None:
    workers, explained, elsewhere, explained_elsewhere = execute("bindings.ipynb")
    assert workers["text/plain"] == "16"
    assert explained["text/plain"] == '<Explanation Data "web::workers" = 16: 2 candidates>'
    page = well_formed(explained["text/html"])
    assert page.startswith('<pre class="cfmodel">Data &quot;web::workers&quot; = 16\n')
    assert (
        "  winner: ../environments/production/bindings/default.bind:3:27 bind 16 "
        "(bindings default, layer &quot;site&quot;, category datacenter &quot;ams&quot;)\n"
        "  shadowed: ../environments/production/bindings/default.bind:2:3 bind 8"
    ) in page
    assert elsewhere["text/plain"] == "(8, None)"
    assert "  winner: ../environments/production/bindings/default.bind:2:3 bind 8" in well_formed(
        explained_elsewhere["text/html"]
    )


def test_the_environments_notebook_shows_the_request_and_the_instances() -> None:
    request, names, result, servers, server = execute("environments.ipynb")
    assert request["text/plain"] == "<RequestResult: environment 'production' (1 fact, 9 steps)>"
    chain = well_formed(request["text/html"])
    assert chain.startswith('<div class="cfmodel"><strong>request: environment production</strong>')
    assert "<tr><td>5</td><td>$environment</td><td>set by the file to &#x27;production&#x27;</td>" in chain
    assert "<td>../environments/environments.cfenv:25:14</td>" in chain
    assert names["text/plain"] == "('production', 'hotfix', 'hotfix')"
    assert "<tr><td>web::Server</td><td>3</td></tr>" in well_formed(result["text/html"])
    assert servers["text/plain"] == (
        "<web::Server: 3 instances (web::Server web1.example.com, web::Server web2.example.com, "
        "web::Server web3.example.com)>"
    )
    assert (
        "<tr><td>3</td><td>web::Server web3.example.com</td><td>web3.example.com</td>"
        "<td>80</td><td>8</td><td>true</td></tr>"
    ) in well_formed(servers["text/html"])
    assert server["text/plain"].splitlines()[:2] == [
        "web::Server web1.example.com",
        "  name = web1.example.com",
    ]
    assert (
        "<tr><td>balancer →</td><td><details><summary>web::LoadBalancer lb.example.com</summary>"
        "<table><tbody><tr><td>name</td><td>lb.example.com</td></tr><tr><td>port</td><td>443</td></tr>"
    ) in well_formed(server["text/html"])


def test_the_mcl_notebook_draws_its_graph() -> None:
    if shutil.which("dot") is None:
        skip_or_fail("Graphviz is not installed (apt-get install graphviz; see scripts/system-packages.txt)")
    compiled, resources, picture = execute("mcl.ipynb")
    assert compiled["text/plain"] == "<Compiled ../mcl/main.mcl: 3 resources, 2 edges>"
    assert (
        "<tr><td>pkg[nginx]</td><td></td><td>file[/etc/nginx/conf.d/site.conf]</td></tr>"
        "<tr><td>file[/etc/nginx/conf.d/site.conf]</td><td></td><td>svc[nginx]</td></tr>"
    ) in well_formed(compiled["text/html"])
    assert (
        "('file',\n  '/etc/nginx/conf.d/site.conf',\n  {'state': 'exists', 'content': 'server { listen 8080; }\\n'})"
        in (resources["text/plain"])
    )
    assert picture["text/plain"].startswith("<Picture: DOT text of ")
    svg = ET.fromstring(well_formed(picture["image/svg+xml"]).encode("utf-8"))
    titles = {t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")}
    assert {"pkg[nginx]", "file[/etc/nginx/conf.d/site.conf]", "svc[nginx]"} <= titles
    assert "pkg[nginx]->file[/etc/nginx/conf.d/site.conf]" in titles


def test_the_rdf_notebook_queries_the_model() -> None:
    answer, values, classes, checks = execute("rdf.ipynb")
    assert answer["text/plain"] == "<QueryResult: 2 rows of name, port, tls>"
    assert well_formed(answer["text/html"]) == (
        "<table><tr><th>name</th><th>port</th><th>tls</th></tr>"
        "<tr><td>web1.example.com</td><td>80</td><td>true</td></tr>"
        "<tr><td>web2.example.com</td><td>80</td><td>false</td></tr></table>"
    )
    assert values["text/plain"] == "[('web1.example.com', 80, True), ('web2.example.com', 80, False)]"
    assert "<tr><td>web:Server</td><td>2</td></tr>" in well_formed(classes["text/html"])
    assert checks["text/plain"] == "(True, True)"
