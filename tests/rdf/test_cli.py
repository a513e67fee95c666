"""``cfmodel rdf export`` and ``cfmodel sparql`` as users run them."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import rdflib

from cfmodel.serializers import rdf
from tests.cli.test_cli import assert_no_traceback, run
from tests.rdf.models import REPO

QUERY = "SELECT ?name ?port WHERE { ?s a web:Server ; web:name ?name ; web:port ?port } ORDER BY ?name"


@pytest.mark.parametrize("fmt", list(rdf.FORMATS))
def test_export_every_format(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / "out" / f"webshop.{fmt}"
    result = run("rdf", "export", "examples/webshop", "-o", str(out), "--format", fmt)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(out)
    graph = rdf.parse_graph(out.read_bytes(), fmt)
    servers = set(graph.subjects(rdflib.RDF.type, rdflib.URIRef("http://cfmodel.org/model/web#Server")))
    assert len(servers) == 2
    assert (rdflib.URIRef("http://cfmodel.org/model/web#Server"), rdflib.RDF.type, rdflib.OWL.Class) in graph


def test_metamodel_only_and_instances_only(tmp_path: Path) -> None:
    assert (
        run("rdf", "export", "examples/webshop", "-o", str(tmp_path / "m.nt"), "--metamodel-only").returncode
        == 0
    )
    assert (
        run("rdf", "export", "examples/webshop", "-o", str(tmp_path / "i.nt"), "--instances-only").returncode
        == 0
    )
    metamodel = (tmp_path / "m.nt").read_text()
    instances = (tmp_path / "i.nt").read_text()
    assert "owl#Class" in metamodel and "instances/webshop#" not in metamodel
    assert "owl#Class" not in instances and "instances/webshop#" in instances
    both = run("rdf", "export", "examples/webshop", "-o", "x.ttl", "--metamodel-only", "--instances-only")
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_export_other_models(tmp_path: Path) -> None:
    # bindings, environments, a metamodel, and an XMI model with its .ecore files beside it
    for source in ("examples/environments/production/site.bind", "examples/environments/environments.cfenv"):
        result = run("rdf", "export", source, "-o", str(tmp_path / "x.ttl"))
        assert result.returncode == 0, result.stderr
        assert len(rdf.parse_graph((tmp_path / "x.ttl").read_bytes(), "ttl")) > 10
    assert run("xmi", "export", "examples/webshop", "-o", str(tmp_path / "xmi")).returncode == 0
    result = run("rdf", "export", str(tmp_path / "xmi" / "web.ecore"), "-o", str(tmp_path / "web.ttl"))
    assert result.returncode == 0, result.stderr
    assert "web:shape.datatype.port" in (tmp_path / "web.ttl").read_text()
    result = run("sparql", str(tmp_path / "xmi" / "webshop.xmi"), QUERY, "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["name,port", "web1.example.com,80", "web2.example.com,80"]
    # an RDF file is queried as it is
    assert run("rdf", "export", "examples/webshop", "-o", str(tmp_path / "w.jsonld")).returncode == 0
    result = run("sparql", str(tmp_path / "w.jsonld"), QUERY, "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["name,port", "web1.example.com,80", "web2.example.com,80"]


def test_sparql_formats(tmp_path: Path) -> None:
    table = run("sparql", "examples/webshop", QUERY)
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines() == [
        "name              port",
        "----------------  ----",
        "web1.example.com  80",
        "web2.example.com  80",
        "(2 rows)",
    ]
    query_file = tmp_path / "servers.rq"
    query_file.write_text(QUERY + "\n")
    answer = run("sparql", "examples/webshop", f"@{query_file}", "--format", "json", "--store", "oxigraph")
    assert answer.returncode == 0, answer.stderr
    bindings = json.loads(answer.stdout)["results"]["bindings"]
    assert [b["name"]["value"] for b in bindings] == ["web1.example.com", "web2.example.com"]
    tsv = run("sparql", "examples/webshop", "ASK { ?s a web:Database }", "--format", "tsv")
    assert tsv.stdout == "?boolean\ntrue\n"


def test_sparql_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.rq"
    bad.write_text("SELECT ?x\nWHERE { ?x a }\n")
    result = run("sparql", "examples/webshop", f"@{bad}")
    assert_no_traceback(result)
    assert result.returncode == 1
    assert result.stderr.startswith(f"{bad}:") and "[bad-sparql]" in result.stderr
    missing = run("sparql", "examples/webshop", "@nowhere.rq")
    assert missing.returncode == 2 and "cannot read the query file nowhere.rq" in missing.stderr
    broken = tmp_path / "broken.ttl"
    broken.write_text("this is not turtle")
    result = run("sparql", str(broken), "ASK {}")
    assert_no_traceback(result)
    assert result.returncode == 1 and result.stderr.startswith(f"{broken}:1:1: error: not valid ttl")
    result = run("rdf", "export", str(REPO / "examples/webshop/main.cf"), "-o", str(tmp_path / "y.ttl"))
    assert_no_traceback(result)
    assert result.returncode == 2 and "not a model cfmodel reads" in result.stderr


def test_the_readme_console_block_is_what_cfmodel_prints(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    block = next(b for b in readme.split("```console\n")[1:] if "cfmodel rdf export" in b).split("```")[0]
    commands: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            commands[-1][1].append(line)
    assert [c.split()[1] for c, _ in commands] == ["rdf", "sparql", "sparql"]
    for command, expected in commands:
        args = shlex.split(command.replace("build/", f"{tmp_path}/"))
        assert args[0] == "cfmodel"
        result = run(*args[1:])
        assert result.returncode == 0, result.stderr
        wanted = [line.replace("build/", f"{tmp_path}/") for line in expected]
        assert result.stdout.replace("\r\n", "\n").splitlines() == wanted


@pytest.mark.parametrize("fmt", list(rdf.FORMATS))
def test_import_gives_back_what_xmi_export_writes(fmt: str, tmp_path: Path) -> None:
    exported = tmp_path / f"webshop.{'rdf' if fmt == 'xml' else fmt}"
    assert run("rdf", "export", "examples/webshop", "-o", str(exported)).returncode == 0
    assert run("xmi", "export", "examples/webshop", "-o", str(tmp_path / "xmi")).returncode == 0
    result = run("rdf", "import", str(exported), "-o", str(tmp_path / "back"))
    assert result.returncode == 0, result.stderr
    written = sorted(Path(line).name for line in result.stdout.split())
    assert written == sorted(
        p.name for p in (tmp_path / "xmi").iterdir() if p.name != ".cfmodel-manifest.json"
    )
    assert (tmp_path / "back" / ".cfmodel-manifest.json").is_file()  # the import owns what it wrote
    for name in written:  # the metamodel's .ecore files and the model's XMI, byte for byte
        assert (tmp_path / "back" / name).read_bytes() == (tmp_path / "xmi" / name).read_bytes(), name


def test_import_refuses_rdf_cfmodel_did_not_write(tmp_path: Path) -> None:
    foreign = tmp_path / "foaf.ttl"
    foreign.write_text(
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        '<http://xmlns.com/foaf/0.1/> a owl:Ontology ; <http://www.w3.org/2000/01/rdf-schema#label> "foaf" .\n'
        "<http://xmlns.com/foaf/0.1/Person> a owl:Class .\n"
    )
    result = run("rdf", "import", str(foreign), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{foreign}:3:1: error: <http://xmlns.com/foaf/0.1/Person>: an owl:Class")
    assert "[bad-rdf]" in result.stderr
    assert_no_traceback(result)
    assert not (tmp_path / "out").exists()
    missing = run("rdf", "import", str(tmp_path / "nothing.ttl"), "-o", str(tmp_path / "out"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
