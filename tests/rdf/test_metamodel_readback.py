"""RDFS/OWL → EPackage: every metamodel cfmodel writes as RDF reads back into packages that
write the same `.ecore` bytes; a whole export (metamodel and instances) reads back alone;
RDF cfmodel did not write is refused with a located error."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from pyecore.ecore import (
    EAnnotation,
    EAttribute,
    EClass,
    EDataType,
    EEnum,
    EEnumLiteral,
    EInt,
    EIntegerObject,
    EObject,
    EPackage,
    EReference,
    EString,
)

from cfmodel.errors import CfSerializationError
from cfmodel.metamodel import bindings, environments, graph
from cfmodel.serializers import canonical, ecore, rdf, rdfmeta
from cfmodel.transforms.cf.ecore_import import read_ecore_files
from tests.rdf.models import REPO, generated, webshop
from tests.serializers.samples import infra_ids, infra_model, infra_package, tree_packages

FORMATS = list(rdf.FORMATS)


def every_feature() -> list[EPackage]:
    """A metamodel using every Ecore fact the RDF carries."""
    pkg = EPackage("every", nsURI="http://cfmodel.example/every/1.0", nsPrefix="ev")
    sub = EPackage("inner", nsURI="http://cfmodel.example/every/1.0/inner", nsPrefix="ev.inner")
    pkg.eSubpackages.append(sub)
    note = EAnnotation("http://cfmodel.example/note")
    note.details["k1"] = 'a "quoted"\nvalue'
    note.details["k0"] = ""
    pkg.eAnnotations += [note, EAnnotation(None)]
    size = EDataType("Size", instanceClassName="java.lang.Long")
    size.eAnnotations.append(EAnnotation("http://cfmodel.example/dt"))
    level = EEnum("Level")
    low = EEnumLiteral("low", value=3)
    low.literal = "Low level"
    low.eAnnotations.append(EAnnotation("http://cfmodel.example/lit"))
    level.eLiterals += [low, EEnumLiteral("high", value=0)]
    named = EClass("Named", abstract=True)
    named.interface = True
    named.eStructuralFeatures.append(EAttribute("name", EString, lower=1, iD=True))
    tagged = EClass("Tagged", abstract=True)
    tagged.eStructuralFeatures.append(EAttribute("tags", EString, upper=-1, ordered=False, unique=False))
    part = EClass("Part", superclass=(tagged, named))
    part.eAnnotations.append(EAnnotation("http://www.eclipse.org/emf/2002/GenModel"))
    part.eAnnotations[0].details["documentation"] = "A part: the <only> one."
    whole = EClass("Whole")
    parts = EReference("parts", part, upper=-1, containment=True)
    owner = EReference("owner", whole)
    parts.eOpposite = owner
    peers = EReference("peers", part, upper=5, lower=2, unsettable=True)
    part.eStructuralFeatures += [
        owner,
        peers,
        EAttribute("count", EIntegerObject, changeable=False),
        EAttribute("size", size, defaultValueLiteral="42", lower=1),
        EAttribute("level", level, defaultValueLiteral="high"),
        EAttribute("derived", EInt, derived=True, transient=True, volatile=True),
        EAttribute("odd", EString, upper=-2),
        EReference("anything", EObject),
    ]
    whole.eStructuralFeatures += [parts, EReference("name", part)]  # a name an attribute has elsewhere
    extra = EClass("Extra", superclass=(part,))
    extra.eStructuralFeatures.append(EAttribute("weight", EInt))
    sub.eClassifiers.append(extra)
    pkg.eClassifiers += [size, level, named, tagged, part, whole]
    return [pkg]


def _compiled(which: str, tmp: Path) -> tuple[list[EPackage], rdf.RdfOptions]:
    result = webshop() if which == "webshop" else generated(str(tmp))
    options = result.rdf_options()
    return list(result.metamodel), rdf.RdfOptions(packages=tuple(result.metamodel), shapes=options.shapes)


def _plain(packages: list[EPackage]) -> tuple[list[EPackage], rdf.RdfOptions]:
    return packages, rdf.RdfOptions(packages=tuple(packages))


METAMODELS: dict[str, Callable[[Path], tuple[list[EPackage], rdf.RdfOptions]]] = {
    "webshop": lambda tmp: _compiled("webshop", tmp),
    "generated": lambda tmp: _compiled("generated", tmp),
    "every-feature": lambda tmp: _plain(every_feature()),
    "infra": lambda tmp: _plain([infra_package()]),
    "tree": lambda tmp: _plain(list(tree_packages())),
    "bindings": lambda tmp: _plain([bindings.PACKAGE]),
    "environments": lambda tmp: _plain([environments.PACKAGE]),
    "graph": lambda tmp: _plain([graph.PACKAGE]),
    "library.ecore": lambda tmp: _plain(
        read_ecore_files([REPO / "tests/ecore_import/fixtures/library.ecore"])
    ),
}


def _ecore_of(packages: list[EPackage]) -> dict[str, bytes]:
    return {str(p.nsURI): ecore.to_bytes(p) for p in packages if p.eSuperPackage is None}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(METAMODELS))
def test_metamodel_reads_back_equal(name: str, fmt: str, tmp_path: Path) -> None:
    packages, options = METAMODELS[name](tmp_path)
    data = rdf.to_bytes([], replace(options, instances=False), fmt)
    back = rdfmeta.from_bytes(data, f"metamodel.{fmt}", fmt)
    want, got = _ecore_of(packages), _ecore_of(back)
    assert set(want) <= set(got)  # and the packages they refer to
    for uri, text in want.items():
        assert got[uri] == text, f"{uri} reads back different"
    # and the packages read back write the same RDF again
    again = rdf.to_bytes(
        [], rdf.RdfOptions(packages=tuple(back), shapes=options.shapes, instances=False), fmt
    )
    assert again == rdf.to_bytes([], rdf.RdfOptions(packages=tuple(back), shapes=options.shapes), fmt)
    assert rdfmeta.from_bytes(again, "again", fmt) and _ecore_of(rdfmeta.from_bytes(again, "a", fmt)) == got


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_whole_export_reads_back_alone(fmt: str, tmp_path: Path) -> None:
    result = webshop()
    target = tmp_path / f"webshop.{'rdf' if fmt == 'xml' else fmt}"
    options = result.rdf_options()
    rdf.write(target, list(result.model), options)
    packages, doc = rdfmeta.read_document(target, options)
    assert _ecore_of(packages) == _ecore_of(list(result.metamodel))
    id_of = options.id_of
    assert id_of is not None
    ids = {o: i for o in canonical.walk(result.model) if (i := id_of(o)) is not None}
    assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects(list(result.model), ids)
    read_packages = {id(p) for p in rdf.all_packages(packages)}
    assert all(id(o.eClass.ePackage) in read_packages for o in canonical.walk(doc.roots))


def test_instances_of_a_read_metamodel_read_back(tmp_path: Path) -> None:
    pkg = infra_package()
    roots = infra_model(pkg)
    options = rdf.RdfOptions(id_of=infra_ids)
    target = tmp_path / "infra.nt"
    rdf.write(target, roots, options)
    packages, doc = rdfmeta.read_document(target, options)
    assert packages[0] is not pkg and _ecore_of(packages) == _ecore_of([pkg])
    assert {id(o.eClass.ePackage) for o in canonical.walk(doc.roots)} == {id(packages[0])}
    ids = {o: i for o in canonical.walk(roots) if (i := infra_ids(o)) is not None}
    assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects(roots, ids)


BAD = {
    "no-ontology": ("<http://x#A> a <http://www.w3.org/2002/07/owl#Class> .\n", 1, "no owl:Ontology"),
    "foreign-class": (
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        '<http://x/o> a owl:Ontology ; rdfs:label "o" .\n'
        "\n"
        "<http://x/o#Person> a owl:Class .\n",
        5,
        "<http://x/o#Person>: an owl:Class that no ontology lists in cfm:classifiers",
    ),
    "unnamed-ontology": (
        "<http://x/o> a <http://www.w3.org/2002/07/owl#Ontology> .\n",
        1,
        "no rdfs:label (the package's name)",
    ),
    "unknown-type": (
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "@prefix cfm: <http://cfmodel.org/rdf/1.0#> .\n"
        "@prefix x: <http://x/o#> .\n"
        '<http://x/o> a owl:Ontology ; rdfs:label "o" ; cfm:nsURI "http://x/o" ; cfm:classifiers ( x:A ) .\n'
        'x:A a owl:Class ; rdfs:label "A" ; cfm:features ( x:b ) ;\n'
        "  rdfs:subClassOf [ a owl:Restriction ; owl:onProperty x:b ; owl:allValuesFrom x:Nowhere ] .\n"
        'x:b rdfs:label "b" .\n',
        7,
        "<http://x/o#Nowhere> is not a classifier of the document",
    ),
    "endless-list": (
        "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "@prefix cfm: <http://cfmodel.org/rdf/1.0#> .\n"
        '<http://x/o> a owl:Ontology ; rdfs:label "o" ; cfm:classifiers _:l .\n'
        "_:l rdf:first <http://x/o#A> ; rdf:rest _:l .\n",
        5,
        "the list of cfm:classifiers does not end in rdf:nil",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_rdf_cfmodel_did_not_write_is_a_located_error(case: str) -> None:
    text, line, message = BAD[case]
    with pytest.raises(CfSerializationError) as caught:
        rdfmeta.from_bytes(text.encode(), "foreign.ttl", "ttl")
    error = caught.value
    assert message in error.message
    assert error.span is not None and (error.span.file, error.span.line) == ("foreign.ttl", line)
    assert str(error).startswith(f"foreign.ttl:{line}:")


def test_a_metamodel_read_back_from_a_file(tmp_path: Path) -> None:
    packages = every_feature()
    target = tmp_path / "every.jsonld"
    rdf.write(target, [], rdf.RdfOptions(packages=tuple(packages)))
    back = rdfmeta.read(target)
    assert _ecore_of(back) == _ecore_of(packages)
    part, whole = back[0].getEClassifier("Part"), back[0].getEClassifier("Whole")
    assert [s.name for s in part.eSuperTypes] == ["Tagged", "Named"]
    owner = next(f for f in part.eStructuralFeatures if f.name == "owner")
    assert owner.eOpposite is next(f for f in whole.eStructuralFeatures if f.name == "parts")
    with pytest.raises(CfSerializationError, match="cannot read"):
        rdfmeta.read(tmp_path / "missing.ttl")
