"""``cfmodel rdf export`` and ``cfmodel sparql``: any model cfmodel holds, as RDF and queried.

``rdf export PATH -o FILE [--format ttl|nt|jsonld|xml] [--metamodel-only|--instances-only]``
writes the model and its metamodel (RDFS/OWL with SHACL shapes) in one file, replaced
atomically (format from ``--format``, else the file's extension, else Turtle).
``sparql PATH QUERY`` runs a query (its text, or ``@file.rq``) over the model and its
metamodel, prefixes predeclared, and prints a table, or SPARQL's CSV, TSV or JSON results
(``--format``); ``--store`` picks rdflib or Oxigraph (default: by size).

PATH is a project directory (compiled with ``--fact``/``--facts``/``--environment`` as
``compile`` takes them), a bindings file (``.bind``), an environments file (``.cfenv``),
a metamodel (``.ecore``), an instance model (``.xmi``, ``.json``) whose metamodels are
the fixed ones and the ``.ecore`` files beside it (or those ``--metamodel`` names; a
``.ecore`` is read with those beside it, and all of them are written), or an RDF
file (queried, or converted to another format, as it is).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cfmodel.commands import SubParsers
from cfmodel.commands._options import add_project_argument, add_request_options, progress_of
from cfmodel.commands.compile import _done, _warnings, compile_from_args
from cfmodel.errors import CfUsageError
from cfmodel.serializers import rdf

ORDER = 25
OUTPUTS = ("table", "csv", "tsv", "json")


def model_triples(
    args: argparse.Namespace, metamodel: bool = True, instances: bool = True
) -> tuple[list[Any], dict[str, str]]:
    """The triples and prefixes of the model PATH names."""
    path = Path(args.project)
    if path.is_file() and path.suffix.lower() in rdf.EXTENSIONS:  # RDF already: queried or converted as it is
        fmt = rdf.format_of(path)
        graph = rdf.parse_graph(_read_bytes(path), fmt, str(path))
        return rdf.graph_triples(graph), rdf.prefixes_of([], graph.namespaces())
    roots, options = model_document(args, metamodel, instances)
    return rdf.document_triples(roots, options)


def model_document(
    args: argparse.Namespace, metamodel: bool = True, instances: bool = True
) -> tuple[list[Any], rdf.RdfOptions]:
    """The roots of the model PATH names (compiled, or read from a file other than RDF) and
    how they are written as RDF."""
    path = Path(args.project)
    if path.is_dir() or not path.exists():
        result = compile_from_args(args)
        _warnings(result, args)
        return list(result.model), result.rdf_options(metamodel, instances)
    roots, options = _file_model(path, [Path(m) for m in getattr(args, "metamodel", None) or []])
    return roots, replace(options, metamodel=metamodel, instances=instances)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise CfUsageError(f"cannot read {path}: {error.strerror}") from None


def _file_model(path: Path, metamodels: list[Path]) -> tuple[list[Any], rdf.RdfOptions]:
    from pyecore.resources import ResourceSet

    from cfmodel import serializers
    from cfmodel.metamodel import bindings, environments, graph
    from cfmodel.pipeline import metamodel_shapes, read_metamodels
    from cfmodel.serializers.base import register_packages

    base = f"http://cfmodel.org/instances/{quote(path.stem, safe='')}#"
    suffix = path.suffix.lower()
    if suffix == ".bind":
        from cfmodel.grammars.bindings import parse_file as parse_bindings

        return [parse_bindings(path).root], rdf.RdfOptions(base=base, packages=(bindings.PACKAGE,))
    if suffix == ".cfenv":
        from cfmodel.grammars.environments import parse_file as parse_environments

        return [parse_environments(path).root], rdf.RdfOptions(base=base, packages=(environments.PACKAGE,))
    rset = ResourceSet()
    fixed = [bindings.PACKAGE, environments.PACKAGE, graph.PACKAGE]
    register_packages(rset, fixed)
    if suffix not in (".ecore", ".xmi", ".xml", ".json"):
        raise CfUsageError(
            f"{path}: not a model cfmodel reads (a project directory, .bind, .cfenv, .ecore, .xmi, .json, "
            f"or RDF: {' '.join(rdf.EXTENSIONS)})"
        )
    beside = [p for p in sorted(path.parent.glob("*.ecore")) if p != path] if not metamodels else []
    ecore_files = [path, *beside] if suffix == ".ecore" else [*metamodels, *beside]
    packages = read_metamodels(ecore_files, rset) if ecore_files else []  # in the order their references need
    found = metamodel_shapes(packages) if packages else None
    if suffix == ".ecore":
        return [], rdf.RdfOptions(base=base, packages=tuple(packages), instances=False, shapes=found)
    document = serializers.read(path, rset)
    options = rdf.RdfOptions(id_of=document.ids.get, base=base, packages=tuple(packages), shapes=found)
    return list(document.roots), options


def cmd_rdf_export(args: argparse.Namespace) -> int:
    output = Path(args.output)
    fmt = rdf.format_of(output, args.format)
    metamodel, instances = not args.instances_only, not args.metamodel_only
    path = Path(args.project)
    if fmt == "nt" and not (path.is_file() and path.suffix.lower() in rdf.EXTENSIONS):
        roots, options = model_document(args, metamodel, instances)  # streamed as it is written
        if output.parent != Path():
            output.parent.mkdir(parents=True, exist_ok=True)
        progress_of(args)(f"writing {output}")
        rdf.write(output, roots, replace(options, format=fmt))
        print(output)
        return _done()
    triples, prefixes = model_triples(args, metamodel, instances)
    progress_of(args)(f"writing {output}")
    data = rdf.serialize(triples, fmt, prefixes)
    from cfmodel.serializers import atomic

    if output.parent != Path():
        output.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(output, data)
    print(output)
    return _done()


def cmd_rdf_import(args: argparse.Namespace) -> int:
    """FILE (RDF cfmodel wrote) → OUT/<package>.ecore per root package, and OUT/<stem>.xmi
    when it holds instances: written together, atomically."""
    from cfmodel.serializers import atomic, ecore, rdfmeta, validate, xmi
    from cfmodel.serializers.base import ncname_id

    source = Path(args.file)
    if not source.is_file():
        raise CfUsageError(f"{source}: no such file")
    options = (
        rdf.RdfOptions(format=args.format, base=args.base)
        if args.base
        else rdf.RdfOptions(format=args.format)
    )
    packages, document = rdfmeta.read_document(source, options)
    files: dict[str, bytes] = {}
    for pkg in packages:
        name = f"{pkg.name}.ecore"
        if name in files:
            raise CfUsageError(
                f"{source}: two root packages are named {pkg.name}; cannot write both to {args.output}"
            )
        files[name] = ecore.to_bytes(pkg)
    if document.roots:
        ids = dict(document.ids)  # XMI ids as they are when they can be (compiled models' are)
        if validate.id_problems(ids):
            ids = {o: ncname_id(i) for o, i in ids.items()}
        files[f"{source.stem}.xmi"] = xmi.to_bytes(document.roots, xmi.XmiOptions(id_of=ids.get))
    for path in atomic.write_files(args.output, files, owner="rdf import"):
        print(path)
    return _done()


def query_text(argument: str) -> tuple[str, str]:
    """The query and where it came from: ``@file.rq`` is read from the file."""
    if not argument.startswith("@"):
        return argument, "<query>"
    path = Path(argument[1:])
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise CfUsageError(f"cannot read the query file {path}: {reason}") from None


def cmd_sparql(args: argparse.Namespace) -> int:
    from cfmodel.sparql import TripleStore

    text, name = query_text(args.query)
    path = Path(args.project)
    if path.is_file() and path.suffix.lower() in rdf.EXTENSIONS:  # RDF already: queried as it is
        store = TripleStore(*model_triples(args), args.store)
    else:
        store = TripleStore.of_model(*model_document(args), args.store)
    answer = store.query(text, name)
    output = args.format
    rendered = {"table": answer.table, "csv": answer.csv, "tsv": answer.tsv, "json": answer.json}[output]()
    sys.stdout.write(rendered)
    return _done()


def _model_options(parser: argparse.ArgumentParser) -> None:
    add_project_argument(parser)
    add_request_options(parser)
    parser.add_argument(
        "--metamodel",
        metavar="FILE.ecore",
        action="append",
        help="the metamodel of an .xmi/.json model (repeatable; default: the .ecore files beside it)",
    )


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    r = sub.add_parser("rdf", help="RDF: the model and its metamodel (RDFS/OWL, SHACL) as triples")
    r_sub = r.add_subparsers(dest="rdf_command", metavar="COMMAND")
    r_sub.required = True
    p = r_sub.add_parser(
        "export",
        parents=[common],
        help="write the model and/or its metamodel as Turtle, N-Triples, JSON-LD or RDF/XML",
    )
    _model_options(p)
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the RDF file to write")
    p.add_argument("--format", choices=list(rdf.FORMATS), help="default: from the file's extension, else ttl")
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--metamodel-only", action="store_true", help="only the metamodel (RDFS/OWL and SHACL)"
    )
    which.add_argument("--instances-only", action="store_true", help="only the instances")
    p.set_defaults(func=cmd_rdf_export)

    i = r_sub.add_parser(
        "import",
        parents=[common],
        help="read an RDF file cfmodel wrote back: its metamodel as .ecore, its instances as .xmi",
    )
    i.add_argument("file", metavar="FILE", help="an RDF file (.ttl .nt .jsonld .rdf .owl) with a metamodel")
    i.add_argument("-o", "--output", metavar="DIR", required=True, help="the directory to write into")
    i.add_argument("--format", choices=list(rdf.FORMATS), help="default: from the file's extension, else ttl")
    i.add_argument(
        "--base",
        metavar="IRI",
        help="the instances' IRI base, whose ids become XMI ids (default: the text after the last '#')",
    )
    i.set_defaults(func=cmd_rdf_import)

    q = sub.add_parser("sparql", parents=[common], help="run a SPARQL query over a model and its metamodel")
    _model_options(q)
    q.add_argument("query", metavar="QUERY", help="the query text, or @FILE.rq")
    q.add_argument(
        "--format",
        choices=OUTPUTS,
        default="table",
        help="table (default), or SPARQL results as csv, tsv, json",
    )
    q.add_argument(
        "--store",
        choices=["auto", "rdflib", "oxigraph"],
        default="auto",
        help="query engine (default auto: Oxigraph for large models, when installed)",
    )
    q.set_defaults(func=cmd_sparql)
