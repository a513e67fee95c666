"""SPARQL answers checked against the model's own counts and values, on both engines."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from cfmodel import sparql
from cfmodel.errors import CfSyntaxError, CfUsageError
from cfmodel.serializers import rdf
from cfmodel.sparql import Cell, TripleStore
from tests.rdf.models import generated, webshop

STORES = ["rdflib", "oxigraph"]


@pytest.mark.parametrize("store", STORES)
def test_counts_per_class_are_the_models(store: str) -> None:
    result = webshop()
    answer = result.sparql(
        "SELECT ?class (COUNT(?s) AS ?n) WHERE { ?s a ?c . ?c rdfs:isDefinedBy ?package ; rdfs:label ?name . "
        "BIND(?c AS ?class) } GROUP BY ?class",
        store=store,
    )
    namespaces = {namespace: name for name, namespace in result.rdf_triples()[1].items()}
    counts = {}
    for iri, n in answer:
        namespace, _, local = iri.rpartition("#")
        counts[f"{namespaces[namespace + '#'].replace('.', '::')}::{local}"] = n
    assert counts == result.counts()


@pytest.mark.parametrize("store", STORES)
def test_values_and_subclasses(store: str, tmp_path: Path) -> None:
    result = generated(str(tmp_path))
    nodes = result.instances("gen::Node")
    heavy = sorted(n.number for n in nodes if n.weight > 500 and n.zone.name == "north")
    answer = result.sparql(
        "SELECT ?number WHERE { ?n a gen:Node ; gen:weight ?w ; gen:number ?number ; gen:zone/gen:name 'north' . "
        "FILTER(?w > 500) } ORDER BY ?number",
        store=store,
    )
    assert [row[0] for row in answer] == heavy
    shop = webshop()
    answer = shop.sparql("SELECT (COUNT(?s) AS ?n) WHERE { ?s a/rdfs:subClassOf* web:Machine }", store=store)
    assert answer.values() == [(len(shop.instances("web::Machine")),)]
    assert shop.sparql("ASK { ?s a web:Server ; web:tls true }", store=store).boolean is True


@pytest.mark.parametrize("store", STORES)
def test_two_hop_join_and_renderings(store: str) -> None:
    shop = webshop()
    query = (
        "SELECT ?vhost ?url ?cert WHERE { ?vhost web.services:server ?server ; web.services:url ?url . "
        "?server web:certificates ?c . ?c web:path ?cert } ORDER BY ?url"
    )
    answer = shop.sparql(query, store=store)
    expected = sorted(
        (vhost.url, cert.path)
        for vhost in shop.instances("web::services::Vhost")
        for cert in vhost.server.certificates
    )
    assert [(url, cert) for _, url, cert in answer] == expected
    table = answer.table()
    assert table.splitlines()[0].split() == ["vhost", "url", "cert"]
    assert "inst:" in table and f"({len(expected)} row" in table
    rows = list(csv.reader(io.StringIO(answer.csv())))
    assert rows[0] == ["vhost", "url", "cert"] and len(rows) == len(expected) + 1
    assert rows[1][0].startswith("http://cfmodel.org/instances/webshop#")
    doc = json.loads(answer.json())
    assert doc["head"]["vars"] == ["vhost", "url", "cert"]
    assert doc["results"]["bindings"][0]["vhost"]["type"] == "uri"
    assert answer.tsv().splitlines()[0] == "?vhost\t?url\t?cert"


def test_both_engines_give_the_same_values(tmp_path: Path) -> None:
    result = generated(str(tmp_path))
    query = "SELECT ?n ?p ?o WHERE { ?n a gen:Node ; ?p ?o FILTER(!isBlank(?o)) } ORDER BY ?n ?p ?o"
    rdflib_rows = result.sparql(query, store="rdflib").values()
    oxigraph_rows = result.sparql(query, store="oxigraph").values()  # spells some literals otherwise
    assert len(rdflib_rows) > 1000
    assert rdflib_rows == oxigraph_rows


def test_cells_as_python_values() -> None:
    xsd = "http://www.w3.org/2001/XMLSchema#"
    assert Cell("literal", "42", xsd + "long").value == 42
    assert Cell("literal", "INF", xsd + "double").value == float("inf")
    assert Cell("literal", "true", xsd + "boolean").value is True
    assert Cell("literal", "x", xsd + "string").value == "x"
    assert Cell("uri", "http://a#b").value == "http://a#b"
    assert Cell("literal", 'a"b\n', xsd + "string").ntriples() == '"a\\"b\\n"'


@pytest.mark.parametrize("store", STORES)
def test_a_bad_query_is_a_located_error(store: str) -> None:
    triples, prefixes = webshop().rdf_triples()
    with pytest.raises(CfSyntaxError) as caught:
        TripleStore(triples, prefixes, store).query("SELECT ?x WHERE { ?x a }", "q.rq")
    assert caught.value.render().startswith("q.rq:1:")
    assert caught.value.code == "bad-sparql"


def test_unknown_store() -> None:
    with pytest.raises(CfUsageError, match="unknown store"):
        TripleStore([], {}, "jena")


@pytest.mark.parametrize("store", STORES)
def test_a_store_from_an_exported_file(store: str) -> None:
    shop = webshop()
    triples, prefixes = shop.rdf_triples()
    loaded = TripleStore.from_ntriples(rdf.ntriples(triples), prefixes, store)
    assert loaded.size == len(triples)
    answer = loaded.query("SELECT (COUNT(?s) AS ?n) WHERE { ?s a web:Server }")
    assert answer.values() == [(2,)]


@pytest.mark.parametrize("store", ["auto", *STORES])
def test_a_store_of_a_model_holds_its_triples(store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    shop = webshop()
    triples, prefixes = shop.rdf_triples()
    made = TripleStore.of_model(list(shop.model), shop.rdf_options(), store)
    assert made.size == len(triples) and made.prefixes == prefixes
    assert made.engine == ("rdflib" if store == "auto" else store)  # auto: Oxigraph from OXIGRAPH_FROM on
    query = "SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(!isBlank(?s) && !isBlank(?o)) } ORDER BY ?s ?p ?o"
    assert made.query(query).values() == TripleStore(triples, prefixes, "rdflib").query(query).values()
    monkeypatch.setattr(sparql, "OXIGRAPH_FROM", 10)
    assert TripleStore.of_model(list(shop.model), shop.rdf_options(), "auto").engine == "oxigraph"
    with pytest.raises(CfUsageError, match="unknown store"):
        TripleStore.of_model([], rdf.RdfOptions(), "jena")
