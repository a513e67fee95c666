"""Models → RDF → models: every format parses in rdflib, reads back to the same model, and
is written byte for byte the same every time."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import rdflib
from pyecore.resources import ResourceSet
from rdflib.compare import isomorphic

from cfmodel.errors import CfSerializationError, CfUsageError
from cfmodel.grammars import bindings as bindings_grammar
from cfmodel.grammars import environments as environments_grammar
from cfmodel.metamodel import bindings, environments
from cfmodel.serializers import canonical, get_format, rdf, read, write
from cfmodel.serializers.base import register_packages
from cfmodel.serializers.validate import BoundsWarning
from tests.rdf.models import REPO, generated, webshop
from tests.serializers.samples import infra_ids, infra_model, infra_package, tree_model, tree_packages

FORMATS = list(rdf.FORMATS)


def _compiled(
    name: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[Any], rdf.RdfOptions, list[Any]]:
    result = webshop() if name == "webshop" else generated(str(tmp_path_factory.mktemp("gen")))
    return list(result.model), result.rdf_options(), list(result.metamodel)


def _infra(ids: bool) -> tuple[list[Any], rdf.RdfOptions, list[Any]]:
    pkg = infra_package()
    return infra_model(pkg), rdf.RdfOptions(id_of=infra_ids if ids else None), [pkg]


def _tree() -> tuple[list[Any], rdf.RdfOptions, list[Any]]:
    base, app = tree_packages()
    return tree_model(base, app), rdf.RdfOptions(), [base, app]


def _bindings() -> tuple[list[Any], rdf.RdfOptions, list[Any]]:
    parsed = bindings_grammar.parse_file(REPO / "examples/environments/production/site.bind")
    return [parsed.root], rdf.RdfOptions(), [bindings.PACKAGE]


def _environments() -> tuple[list[Any], rdf.RdfOptions, list[Any]]:
    parsed = environments_grammar.parse_file(REPO / "examples/environments/environments.cfenv")
    return [parsed.root], rdf.RdfOptions(), [environments.PACKAGE]


MODELS: dict[str, Callable[[pytest.TempPathFactory], tuple[list[Any], rdf.RdfOptions, list[Any]]]] = {
    "webshop": lambda f: _compiled("webshop", f),
    "generated": lambda f: _compiled("generated", f),
    "infra-ids": lambda f: _infra(True),
    "infra-positional": lambda f: _infra(False),
    "tree": lambda f: _tree(),
    "bindings": lambda f: _bindings(),
    "environments": lambda f: _environments(),
}


def _named(graph: rdflib.Graph) -> set[Any]:
    return {t for t in graph if not any(isinstance(term, rdflib.BNode) for term in t)}


def _shape(graph: rdflib.Graph) -> Counter[tuple[str, str, str]]:
    """The graph's triples, each blank node written as a digest of what hangs from it: equal
    for isomorphic graphs whose blank nodes form no cycle (rdflib's `isomorphic` takes 18 s
    on the generated model's metamodel)."""
    below: dict[Any, list[tuple[Any, Any]]] = defaultdict(list)
    for s, p, o in graph:
        below[s].append((p, o))
    digests: dict[Any, str] = {}

    def term(t: Any) -> str:
        if not isinstance(t, rdflib.BNode):
            return str(t.n3())
        if t not in digests:
            digests[t] = "a cycle"
            inner = "|".join(sorted(f"{p.n3()} {term(o)}" for p, o in below[t]))
            digests[t] = "[" + hashlib.sha256(inner.encode()).hexdigest() + "]"
        return digests[t]

    return Counter((term(s), str(p.n3()), term(o)) for s, p, o in graph)


def _ids(roots: list[Any], options: rdf.RdfOptions) -> dict[Any, str]:
    if options.id_of is None:
        return {}
    return {o: i for o in canonical.walk(roots) if (i := options.id_of(o)) is not None}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(MODELS))
def test_round_trip(name: str, fmt: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    roots, options, packages = MODELS[name](tmp_path_factory)
    data = rdf.to_bytes(roots, options, fmt)
    assert data == rdf.to_bytes(roots, options, fmt), "the same model gives the same bytes"
    # rdflib parses every file, to the same triples in every format (blank nodes aside:
    # Turtle nests them without labels)
    graph = rdf.parse_graph(data, fmt)
    reference = rdflib.Graph().parse(data=rdf.to_bytes(roots, options, "nt"), format="nt")
    assert len(graph) == len(reference) > 0
    assert _named(graph) == _named(reference)
    # and it reads back to the same model
    rset = ResourceSet()
    register_packages(rset, [*packages, *rdf.root_packages_of(canonical.walk(roots))])
    doc = rdf.from_bytes(data, rset, f"model.{fmt}", fmt, options)
    assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects(roots, _ids(roots, options))
    # and is written again byte for byte the same
    again = replace(options, id_of=doc.ids.get if options.id_of else None)
    assert rdf.to_bytes(doc.roots, again, fmt) == data


@pytest.mark.parametrize("name", list(MODELS))
def test_streamed_ntriples_are_the_triples_written_in_order(
    name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    roots, options, _ = MODELS[name](tmp_path_factory)
    for parts in ({}, {"metamodel": False}, {"instances": False}):
        chosen = replace(options, **parts)  # type: ignore[arg-type]
        triples, _ = rdf.document_triples(roots, chosen)
        buffer = io.BytesIO()
        assert rdf.write_ntriples(buffer, roots, chosen) == len(triples)
        assert buffer.getvalue() == rdf.ntriples(triples) == rdf.to_bytes(roots, chosen, "nt")


@pytest.mark.parametrize("name", list(MODELS))
def test_streamed_turtle_is_the_graph_written(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    roots, options, _ = MODELS[name](tmp_path_factory)
    for parts in ({}, {"metamodel": False}, {"instances": False}):
        chosen = replace(options, **parts)  # type: ignore[arg-type]
        triples, prefixes = rdf.document_triples(roots, chosen)
        buffer = io.BytesIO()
        assert rdf.write_turtle(buffer, roots, chosen) == len(triples)
        data = buffer.getvalue()
        assert data == rdf.to_bytes(roots, chosen, "ttl")
        text = data.decode()
        head = "".join(f"@prefix {p}: <{ns}> .\n" for p, ns in sorted(prefixes.items()))
        assert text.startswith(head + "\n")
        shape = _shape(rdflib.Graph().parse(data=data, format="turtle"))
        assert shape == _shape(rdf.to_graph(triples)), parts
        assert _shape(rdflib.Graph().parse(data=rdf.turtle(triples, prefixes), format="turtle")) == shape
        if chosen.instances and chosen.id_of is not None:
            assert "\ninst:" in text  # objects by prefixed name


def test_turtle_nests_what_it_can_and_labels_the_rest() -> None:
    ex = "http://cfmodel.example/t#"
    b = rdf.Blank
    triples: list[rdf.Triple] = [
        (ex + "s", rdf.RDF_TYPE, ex + "C"),
        (ex + "s", ex + "list", b("l0")),
        (b("l0"), rdf.RDF_FIRST, rdf.Literal('say "hi"\n\\', rdf.XSD + "string")),
        (b("l0"), rdf.RDF_REST, b("l1")),
        (b("l1"), rdf.RDF_FIRST, ex + "a/b"),  # no prefixed name for a local with a slash
        (b("l1"), rdf.RDF_REST, rdf.RDF_NIL),
        (ex + "s", ex + "shared", b("twice")),  # used twice: keeps its label
        (ex + "s2", ex + "shared", b("twice")),
        (b("twice"), ex + "p", rdf.Literal("1", ex + "dt")),
        (b("c1"), ex + "next", b("c2")),  # a cycle of blank nodes only
        (b("c2"), ex + "next", b("c1")),
        (ex + "s", ex + "broken", b("x0")),  # a list cell without rdf:rest: nested as [ ]
        (b("x0"), rdf.RDF_FIRST, ex + "a"),
        (ex + "s", ex + "kind", rdf.RDF_TYPE),
        (ex + "s", ex + "empty", rdf.RDF_NIL),
        (ex + "s", ex + "many", ex + "v1"),
        (ex + "s", ex + "many", ex + "v2"),
    ]
    data = rdf.turtle(triples, {"ex": ex, "rdf": rdf.RDF, "bad prefix": ex + "x"})
    text = data.decode()
    assert '( "say \\"hi\\"\\n\\\\" <http://cfmodel.example/t#a/b> )' in text
    assert "_:twice" in text and "[ rdf:first ex:a ]" in text and "ex:kind rdf:type" in text
    assert "ex:many ex:v1,\n        ex:v2" in text and "bad prefix" not in text
    assert isomorphic(rdflib.Graph().parse(data=data, format="turtle"), rdf.to_graph(triples))


def test_bytes_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    script = (
        "import cfmodel, hashlib;"
        "r = cfmodel.compile_project('examples/webshop');"
        "print(*[hashlib.sha256(r.rdf_bytes(f)).hexdigest() for f in ('ttl', 'nt', 'jsonld', 'xml')])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPO,
            env={"PYTHONHASHSEED": seed, "CFMODEL_CACHE_DIR": str(tmp_path)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


def test_what_plain_triples_cannot_say_is_added_only_where_needed() -> None:
    base, app = tree_packages()
    roots = tree_model(base, app)
    text = rdf.to_bytes(roots, rdf.RdfOptions(), "nt").decode()
    # vals [3, 1, 2] of the root: kept in order by a sequence; roots /0 /1 /2: in IRI order already
    assert text.count(f"<{rdf.CFM_SEQUENCE}>") == 1
    assert f"<{rdf.CFM_POSITION}>" not in text
    backwards = {root: f"r{9 - i}" for i, root in enumerate(roots)}
    text = rdf.to_bytes(roots, rdf.RdfOptions(id_of=backwards.get), "nt").decode()
    assert text.count(f"<{rdf.CFM_POSITION}>") == 3
    triples, _ = rdf.document_triples(roots, rdf.RdfOptions(id_of=backwards.get))
    assert rdf.ntriples(triples).decode() == text  # streamed: the same lines


def test_registry_and_files(tmp_path: Path) -> None:
    pkg = infra_package()
    roots = infra_model(pkg)
    assert get_format("model.ttl").name == "rdf"
    assert get_format("model.jsonld").name == "rdf"
    for suffix in (".ttl", ".nt", ".jsonld", ".rdf"):
        target = tmp_path / f"model{suffix}"
        write(target, roots, rdf.RdfOptions(id_of=infra_ids))
        rset = ResourceSet()
        register_packages(rset, [pkg])
        doc = read(target, rset)
        assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects(
            roots, _ids(roots, rdf.RdfOptions(id_of=infra_ids))
        )
    with pytest.raises(CfUsageError, match="unknown RDF format"):
        rdf.format_of("x", "n3")


def test_the_writer_checks_the_model_unless_asked_not_to() -> None:
    pkg = infra_package()
    host = pkg.getEClassifier("Host")()  # name is required
    # a bound problem is written, as EMF writes it, with a warning (the other writers do the same)
    with pytest.warns(BoundsWarning):
        assert b"Host" in rdf.to_bytes([host], rdf.RdfOptions(), "nt")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert b"Host" in rdf.to_bytes([host], rdf.RdfOptions(check=False), "nt")


@pytest.mark.parametrize(
    ("fmt", "text", "message"),
    [
        ("ttl", "@prefix x: <http://x#> . x:a x:b", "not valid ttl"),
        ("nt", "<a> <b> .", "not valid nt"),
        ("xml", "<rdf:RDF", "not valid xml"),
        ("jsonld", '{"@context": "http://example.org/ctx.jsonld", "@id": "x"}', "remote context"),
        ("jsonld", "[1, 2", "not valid JSON"),
        (
            "ttl",
            "<http://cfmodel.example/infra#x> a <http://cfmodel.example/infra#Host> ; "
            "<http://cfmodel.example/infra#primary> <http://nowhere#y> .",
            "unresolved reference <http://nowhere#y>",
        ),
        (
            "ttl",
            '<http://m#x> a <http://cfmodel.example/infra#Host> ; <http://cfmodel.example/infra#cpus> "many" .',
            "bad EInt value 'many'",
        ),
        (
            "ttl",
            "<http://m#x> a <http://cfmodel.example/infra#Host> ; <http://cfmodel.example/infra#cpus> 1, 2 .",
            "2 values for single-valued cpus",
        ),
    ],
    ids=[
        "ttl-syntax",
        "nt-syntax",
        "xml-syntax",
        "jsonld-remote",
        "jsonld-syntax",
        "unresolved",
        "bad-value",
        "two-values",
    ],
)
def test_bad_input_is_a_located_error(fmt: str, text: str, message: str, tmp_path: Path) -> None:
    rset = ResourceSet()
    register_packages(rset, [infra_package()])
    source = tmp_path / f"bad.{fmt}"
    source.write_text(text)
    with pytest.raises(CfSerializationError) as caught:
        rdf.read(source, rset, rdf.RdfOptions(format=fmt))
    assert message in caught.value.message
    assert caught.value.render().startswith(f"{source}:1:1: error: ")


def test_reading_is_capped(tmp_path: Path) -> None:
    source = tmp_path / "big.nt"
    source.write_text("<http://a> <http://b> <http://c> .\n" * 10)
    with pytest.raises(CfSerializationError, match="over the limit"):
        rdf.read(source, ResourceSet(), rdf.RdfOptions(max_bytes=100))


def test_an_instance_error_is_located_at_its_subject(tmp_path: Path) -> None:
    rset = ResourceSet()
    register_packages(rset, [infra_package()])
    source = tmp_path / "bad.ttl"
    source.write_text(
        "@prefix infra: <http://cfmodel.example/infra#> .\n"
        '<http://m#ok> a infra:Host ; infra:name "ok" .\n'
        "\n"
        '<http://m#x> a infra:Host ; infra:name "x" ; infra:cpus "many" .\n'
    )
    with pytest.raises(CfSerializationError) as caught:
        rdf.read(source, rset)
    assert caught.value.render().startswith(f"{source}:4:1: error: <http://m#x> cpus: bad EInt value 'many'")
