"""``cfmodel xmi check|dump|copy``: XMI models of any metamodel, in as many documents as EMF wrote.

``check FILE... --ecore MM.ecore`` reads the files (and the documents their references
name, each once) into one resource set, checks every document as the writers do, and
prints one line per document (roots, objects, references to other documents, proxies);
an unresolved proxy is a warning at the reference's line (``unresolved-proxy``), features
out of their bounds a warning (``model-bounds``), as is an ``xmi:id`` given to several
objects (``duplicate-id``: EMF reads and writes such files), anything else an error (exit 1).
``dump`` prints each document's canonical dump (the format ``tests/emf/EmfChecker.java``
prints from EMF's reading). ``copy ... -o DIR`` writes the documents read into DIR as one
atomic set, at the same places relative to each other, ``href``s between them rewritten;
``--emf-layout`` writes what EMF's own serializer writes. Options shared by the three:
``--ecore`` (metamodels, read first, together; default: the ``.ecore`` files beside the
first file, as ``cfmodel.load_xmi``, and those the documents' ``xsi:schemaLocation``
names), ``--uri-map PREFIX=TARGET`` (``platform:/resource/`` → a workspace), ``--root
DIR`` (where references may lead; default: the directory all the files are in),
``--lazy`` (documents that are referred to are not read: proxies).
Registered under ``cfmodel xmi`` by `cfmodel.commands.compile` (which makes that group).

``cfmodel json check|dump`` are the same for JSON models (emfjson-jackson's JSON, PyEcore's,
cfmodel's older format): the files are read by `cfmodel.serializers.json`, whose refusals
are located errors (``file:line:col: error: …  [code]``, exit 1) at the value concerned.
"""

from __future__ import annotations

import argparse
import json
import os
import warnings
from pathlib import Path
from typing import Any

from cfmodel.commands._options import add_format_option, output_directory, print_warning
from cfmodel.errors import CfModelError, Diagnostic, Note, Severity, Span


def _uri_mapping(text: str) -> tuple[str, str]:
    from cfmodel.commands.ecore import _uri_mapping as mapping  # lazy: startup reads no serializer

    return mapping(text)


def _options(args: argparse.Namespace, **more: Any) -> Any:
    from cfmodel.serializers import json as json_format
    from cfmodel.serializers import xmi

    uri_map = dict(args.uri_map or [])
    if args.model_format == "json":  # no root: the directory all the files are in
        root = Path(args.root).absolute() if args.root else None
        return json_format.JsonOptions(uri_map=uri_map, load_references=not args.lazy, root=root)
    root = Path(args.root).absolute() if args.root else Path(os.path.abspath(args.files[0])).parent
    return xmi.XmiOptions(uri_map=uri_map, load_references=not args.lazy, root=root, **more)


def _read(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The resource set and every XMI document in it (the given files first, then those
    read for their references), in order."""
    from pyecore.resources import ResourceSet

    from cfmodel.pipeline import read_metamodels
    from cfmodel.serializers import json as json_format
    from cfmodel.serializers import xmi
    from cfmodel.serializers.base import IDS_KEY
    from cfmodel.serializers.xmi.documents import existing

    rset = ResourceSet()
    ecores = [Path(e) for e in args.ecore or []]
    if not ecores:  # as cfmodel.load_xmi: the metamodels beside the first file
        beside = Path(os.path.abspath(args.files[0])).parent
        ecores = sorted(beside.glob("*.ecore"))
    if ecores:
        read_metamodels(ecores, rset, uri_map=dict(args.uri_map or []))
    read_all = json_format.read_all if args.model_format == "json" else xmi.read_all
    try:  # without any: the documents' xsi:schemaLocation names them, or the reader says what is missing
        given = read_all(args.files, rset, _options(args))
    except CfModelError as exc:
        if not ecores:
            note = f"no .ecore file beside {args.files[0]} and none given with --ecore"
            exc.notes = (*exc.notes, Note(None, note))
        raise
    seen = {id(d.resource) for d in given}
    others = [
        existing(rset, key)
        for key, resource in rset.resources.items()
        if IDS_KEY in resource.__dict__ and id(resource) not in seen
    ]
    return rset, given + [d for d in others if d is not None]


def _name(document: Any) -> str:
    return str(document.resource.uri.plain)


def _facts(document: Any) -> dict[str, Any]:
    """What `check` says of one document: counts, and the proxies with their lines."""
    from pyecore.ecore import EAttribute

    from cfmodel.serializers import canonical, crossrefs, featuremaps, model

    objects = list(canonical.walk(document.roots))
    inside = {id(o) for o in objects}
    hrefs, proxies = 0, []
    for obj in objects:
        for f in model.persistent_features(obj.eClass):
            if featuremaps.is_feature_map(f):
                values = [
                    e.value for e in featuremaps.entries(obj, f) if not isinstance(e.feature, EAttribute)
                ]
            elif isinstance(f, EAttribute) or model.is_container_ref(f):
                continue
            else:
                values = list(obj.eGet(f)) if f.many else [obj.eGet(f)]
            for v in values:
                if v is None:
                    continue
                uri = crossrefs.proxy_uri(v)
                if uri is not None:
                    proxies.append(
                        (uri, v.__dict__.get(crossrefs.LINE_KEY) or 1, f"{obj.eClass.name}.{f.name}")
                    )
                elif id(v) not in inside:
                    hrefs += 1
    return {"objects": objects, "hrefs": hrefs, "proxies": proxies}


def cmd_check(args: argparse.Namespace) -> int:
    from cfmodel.errors import CfSerializationError
    from cfmodel.serializers import crossrefs, validate

    _, documents = _read(args)
    failed = False
    report = []
    for document in documents:
        name = _name(document)
        facts = _facts(document)
        for uri, line, where in facts["proxies"]:
            span = Span(name, line, 1, line, 2)
            print_warning(
                Diagnostic(
                    span, f"{where}: {uri} is not read (a proxy)", "unresolved-proxy", Severity.WARNING
                ),
                args,
            )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", validate.BoundsWarning)
            warnings.simplefilter("always", validate.DuplicateIdWarning)
            try:
                validate.check_objects(
                    facts["objects"],
                    document.ids,
                    elsewhere=crossrefs.Hrefs(name),
                    outside=[],
                    ids_as_read=True,
                )
            except CfSerializationError as error:
                failed = True
                message = error.message.replace("cannot be written", "breaks its metamodel", 1)
                print_warning(
                    Diagnostic(Span(name, 1, 1, 1, 2), message, error.code, Severity.ERROR, error.notes), args
                )
        for w in caught:
            if isinstance(w.message, validate.DuplicateIdWarning):
                said = str(w.message).removeprefix("written as read: ")
                print_warning(
                    Diagnostic(Span(name, 1, 1, 1, 2), said, "duplicate-id", Severity.WARNING), args
                )
            elif isinstance(w.message, validate.BoundsWarning):
                print_warning(
                    Diagnostic(Span(name, 1, 1, 1, 2), str(w.message), "model-bounds", Severity.WARNING), args
                )
        entry = {
            "file": name,
            "roots": len(document.roots),
            "objects": len(facts["objects"]),
            "references_to_other_documents": facts["hrefs"],
            "proxies": [uri for uri, _, _ in facts["proxies"]],
        }
        report.append(entry)
    if args.format == "json":
        print(json.dumps({"documents": report, "valid": not failed}, indent=2, ensure_ascii=False))
    else:
        for e in report:
            print(
                f"{e['file']}: {e['roots']} root(s), {e['objects']} object(s),"
                f" {e['references_to_other_documents']} reference(s) to other documents,"
                f" {len(e['proxies'])} proxy(ies)"
            )
    return 1 if failed else 0


def cmd_dump(args: argparse.Namespace) -> int:
    from cfmodel.serializers import canonical

    _, documents = _read(args)
    for document in documents[: len(args.files)] if not args.all else documents:
        print(f"# {_name(document)}")
        print("\n".join(canonical.dump_objects(document.roots, document.ids)))
    return 0


def cmd_copy(args: argparse.Namespace) -> int:
    from cfmodel.serializers import xmi

    output = output_directory(args.output)
    _, documents = _read(args)
    paths = [Path(os.path.abspath(_name(d))) for d in documents]
    base = Path(os.path.commonpath([str(p.parent) for p in paths]))
    ids: dict[Any, str] = {}
    for d in documents:
        ids.update(d.ids)
    options = _options(args, id_of=ids.get, emf_layout=args.emf_layout)
    named = {p.relative_to(base).as_posix(): d.roots for p, d in zip(paths, documents, strict=True)}
    for path in xmi.write_all(output, named, options):
        print(path)
    return 0


def _common(p: argparse.ArgumentParser, kind: str = "XMI") -> None:
    p.add_argument("files", metavar="FILE", nargs="+", help=f"{kind} files (read into one resource set)")
    p.add_argument(
        "--ecore",
        metavar="FILE",
        action="append",
        help="a metamodel (.ecore) the files use; repeatable (default: the .ecore files beside the first)",
    )
    p.add_argument(
        "--uri-map",
        metavar="PREFIX=TARGET",
        action="append",
        type=_uri_mapping,
        help="read documents referred to by URI from TARGET (platform:/resource/=../ws/); repeatable",
    )
    p.add_argument(
        "--root", metavar="DIR", help="where references may lead (default: the directory the files are in)"
    )
    p.add_argument("--lazy", action="store_true", help="do not read the documents the files refer to")


def register_xmi(xmi_sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``check``, ``dump`` and ``copy`` to the ``cfmodel xmi`` group."""
    p = xmi_sub.add_parser(
        "check",
        parents=[common],
        help="read XMI files (and what they refer to), check them, say what they hold",
    )
    _common(p)
    add_format_option(p)
    p.set_defaults(func=cmd_check)
    p = xmi_sub.add_parser("dump", parents=[common], help="print XMI files' objects as canonical text")
    _common(p)
    p.add_argument("--all", action="store_true", help="also the documents read for references")
    p.set_defaults(func=cmd_dump)
    p = xmi_sub.add_parser(
        "copy", parents=[common], help="write XMI files and those they refer to into DIR, hrefs rewritten"
    )
    _common(p)
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="directory to write into")
    p.add_argument("--emf-layout", action="store_true", help="write exactly as EMF's XMI serializer")
    p.set_defaults(func=cmd_copy)
    for name in ("check", "dump", "copy"):
        xmi_sub.choices[name].set_defaults(model_format="xmi")


def register_json(json_sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``check`` and ``dump`` to the ``cfmodel json`` group: JSON models of any metamodel."""
    p = json_sub.add_parser(
        "check",
        parents=[common],
        help="read JSON models (and what they refer to), check them, say what they hold",
    )
    _common(p, "JSON")
    add_format_option(p)
    p.set_defaults(func=cmd_check, model_format="json")
    p = json_sub.add_parser("dump", parents=[common], help="print JSON models' objects as canonical text")
    _common(p, "JSON")
    p.add_argument("--all", action="store_true", help="also the documents read for references")
    p.set_defaults(func=cmd_dump, model_format="json")
