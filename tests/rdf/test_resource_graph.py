"""A resource graph (the fixed graph metamodel) as RDF: round trip, ids from resource ids, queries."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from pyecore.resources import ResourceSet

from cfmodel.metamodel import graph as gm
from cfmodel.metamodel.resource_graph import from_ecore, graph_equal, to_ecore
from cfmodel.serializers import canonical, rdf
from cfmodel.serializers.base import register_packages
from cfmodel.sparql import TripleStore
from tests.graph.conftest import webshop_graph


def _resource_ids(obj: Any) -> str | None:
    return str(obj.resourceId) if obj.eClass is gm.Resource else None


@pytest.mark.parametrize("fmt", list(rdf.FORMATS))
def test_a_resource_graph_round_trips(fmt: str) -> None:
    graph = webshop_graph()
    root = to_ecore(graph)
    options = rdf.RdfOptions(id_of=_resource_ids, base="http://cfmodel.org/instances/webshop-graph#")
    data = rdf.to_bytes([root], options, fmt)
    rset = ResourceSet()
    register_packages(rset, [gm.PACKAGE])
    doc = rdf.from_bytes(data, rset, f"graph.{fmt}", fmt, options)
    assert graph_equal(from_ecore(doc.roots[0]), graph)
    ids = {o: i for o in canonical.walk([root]) if (i := _resource_ids(o)) is not None}
    assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects([root], ids)
    assert sorted(doc.ids.values()) == sorted(graph.resources)


def test_resources_are_named_by_their_ids_and_queried() -> None:
    graph = webshop_graph()
    options = rdf.RdfOptions(id_of=_resource_ids, base="http://cfmodel.org/instances/webshop-graph#")
    triples, prefixes = rdf.document_triples([to_ecore(graph)], options)
    store = TripleStore(triples, prefixes, "rdflib")
    kinds = store.query(
        "SELECT ?kind (COUNT(?r) AS ?n) WHERE { ?r a graph:Resource ; graph:kind ?kind } GROUP BY ?kind"
    )
    assert dict(kinds.values()) == dict(Counter(r.kind for r in graph))
    edges = store.query(
        "SELECT ?source ?target WHERE { ?e a graph:Edge ; graph:source/graph:resourceId ?source ; "
        "graph:target/graph:resourceId ?target }"
    )
    assert sorted(edges.values()) == sorted((e.source, e.target) for e in graph.edges)
    some = next(iter(graph.resources))
    iri = rdf.object_iri(options.base, some)
    assert store.query(f"ASK {{ <{iri}> graph:resourceId ?id }}").boolean is True
