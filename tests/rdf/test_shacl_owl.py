"""Real consumers of the metamodel's RDF: pySHACL judges instances as validate_instances does,
owlrl closes the OWL without error."""

from __future__ import annotations

from typing import Any

import owlrl
import pyshacl
import rdflib
from pyecore.ecore import EDataType

import cfmodel
from cfmodel.serializers import linking, rdf
from cfmodel.transforms.cf.lift import TYPEDEF
from cfmodel.transforms.cf.shacl import cf_shapes
from tests.rdf.models import EXAMPLE, webshop

SH = rdflib.Namespace(rdf.SH)


def _shacl(objects: list[Any], metamodel: Any) -> set[tuple[str, str | None]]:
    """(object id, feature) of every violation pySHACL finds (the metamodel's shapes and
    subclass triples in the data graph, as a user validating the exported file has them)."""
    ids = {o: f"o{i}" for i, o in enumerate(objects)}
    options = rdf.RdfOptions(
        id_of=ids.get, check=False, shapes=cf_shapes(metamodel), packages=tuple(metamodel.roots)
    )
    triples, prefixes = rdf.document_triples(objects, options)
    graph = rdf.to_graph(triples, prefixes)
    conforms, results, _ = pyshacl.validate(graph, shacl_graph=graph)
    found = set()
    for result in results.objects(None, SH.result):  # top-level results, not their sh:detail
        focus = str(results.value(result, SH.focusNode)).rsplit("#", 1)[1]
        path = results.value(result, SH.resultPath)
        found.add((focus, str(path).rsplit("#", 1)[1] if path is not None else None))
    assert conforms == (not found)
    return found


def _validate(objects: list[Any]) -> set[tuple[str, str | None]]:
    report = cfmodel.validate_instances(objects)
    assert all(p.severity == "error" for _, p in report.problems)
    return {(f"o{objects.index(o.obj)}", p.feature) for o in report.objects for p in o.problems}


def test_shacl_reports_exactly_what_validate_instances_reports() -> None:
    metamodel = cfmodel.load_metamodel(str(EXAMPLE))
    lb = metamodel.create("web::LoadBalancer", name="lb.example.com")
    over = metamodel.create("web::Server", name="web3.example.com", port=70000)  # condition
    badly_named = metamodel.create("web::Server", name="Bad_Name", port=8080)  # regex
    same_key = metamodel.create("web::Server", name="web3.example.com")  # index
    lonely = metamodel.create("web::Certificate", path="/x")  # required attribute and relation
    one_sided = metamodel.create("web::Certificate", domain="d", path="/y", server=badly_named)
    # one side only: over.balancer is lb, lb.backends does not list over
    linking.set_single(over, over.eClass.findEStructuralFeature("balancer"), lb)
    fine = metamodel.create("web::Database", name="db.example.com", engine="pg", size_gb=5)
    objects = [lb, over, badly_named, same_key, lonely, one_sided, fine]
    expected = _validate(objects)
    assert expected == {
        ("o1", "port"),
        ("o1", "balancer"),
        ("o2", "name"),
        ("o3", None),
        ("o4", "domain"),
        ("o4", "server"),
    }
    assert _shacl(objects, metamodel) == expected


def test_a_valid_model_has_no_violations() -> None:
    result = webshop()
    objects = list(result.model)
    assert _validate(objects) == set()
    assert _shacl(objects, result.domain) == set()


def test_every_typedef_condition_maps_or_says_why_not() -> None:
    metamodel = cfmodel.load_metamodel(str(EXAMPLE))
    shapes = cf_shapes(metamodel)
    port = metamodel.classifier("web::port")
    shape = shapes.datatype(port)
    assert shape is not None and not shape.unexpressed
    assert dict(shape.constraints) == {rdf.SH + "minExclusive": 0, rdf.SH + "maxExclusive": 65536}
    odd = EDataType("odd", instanceClassName="java.lang.Long")
    annotation = odd.getEAnnotation(TYPEDEF) or _annotate(
        odd, {"base": "int", "condition": "self % 2 == 1 and self > 0"}
    )
    assert annotation is not None
    made = shapes.datatype(odd)
    assert made is not None
    assert made.constraints == ((rdf.SH + "minExclusive", 0),)
    assert len(made.unexpressed) == 1 and "self % 2 == 1" in made.unexpressed[0]
    assert "not expressible in SHACL" in made.unexpressed[0]


def _annotate(datatype: EDataType, details: dict[str, str]) -> Any:
    from pyecore.ecore import EAnnotation

    annotation = EAnnotation(TYPEDEF)
    for key, value in details.items():
        annotation.details[key] = value
    datatype.eAnnotations.append(annotation)
    return annotation


def test_owl_output_closes_under_owlrl() -> None:
    graph = webshop().to_rdf(instances=True)
    before = len(graph)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(graph)
    assert len(graph) > before
    server = rdflib.URIRef("http://cfmodel.org/model/web#Server")
    machine = rdflib.URIRef("http://cfmodel.org/model/web#Machine")
    entity = rdflib.URIRef("http://cfmodel.org/model/std#Entity")
    assert (server, rdflib.RDFS.subClassOf, entity) in graph
    servers = set(graph.subjects(rdflib.RDF.type, server))
    assert len(servers) == 2 and servers <= set(graph.subjects(rdflib.RDF.type, machine))


def test_long_conditions_become_shapes_or_say_why_not() -> None:
    """3,000 conjuncts are 3,000 constraints; 3,000 alternatives nest deeper than SHACL
    shapes are made (`shacl.MAX_NESTING`): not expressed, with the reason (was a
    RecursionError: ``cfmodel rdf export`` exit 3)."""
    shapes = cf_shapes(cfmodel.load_metamodel(str(EXAMPLE)))
    chained = EDataType("chained", instanceClassName="java.lang.Long")
    _annotate(chained, {"base": "int", "condition": " and ".join(f"self != {n}" for n in range(3000))})
    made = shapes.datatype(chained)
    assert made is not None and not made.unexpressed
    assert len(made.constraints) == 3000
    predicate, [(inner, (value,))] = made.constraints[-1]
    assert (predicate, inner, value.lexical) == (rdf.SH + "not", rdf.SH + "in", "2999")
    alternatives = EDataType("alternatives", instanceClassName="java.lang.Long")
    _annotate(alternatives, {"base": "int", "condition": " or ".join(f"self == {n}" for n in range(3000))})
    made = shapes.datatype(alternatives)
    assert made is not None and made.constraints == ()
    assert len(made.unexpressed) == 1
    assert made.unexpressed[0].endswith("'not', 'and' and 'or' nested more than 100 deep")
