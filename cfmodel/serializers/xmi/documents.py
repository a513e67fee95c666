"""Models that span several XMI documents: read a set, resolve proxies later, write a set.

Input (read): XMI files and a `ResourceSet` holding their metamodels. Output: one
`Document` per file, every file read once (a file another one refers to, and that was read
for it, is not read again); references between them set (eager) or left as proxies
(`XmiOptions(load_references=False)`) that `resolve_proxies` replaces later, as EMF's
``EcoreUtil.resolveAll`` does. Input (write): documents as ``{relative name: roots}``.
Output: the files, written as one atomic set into a directory; a reference from one to
another's object is an ``href`` relative to the referring file (``b.xmi#id``,
``sub/c.xmi#//@a.0``), and a reference to an object of a document read before, or to a
proxy, keeps naming it (see `crossrefs.Hrefs`).

Reading never leaves the allowed directories (`crossrefs.confined`): what a reference
names outside them is an error (``outside-root``), whether it is read now or later.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from pyecore.ecore import EAttribute, EObject
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError, Span
from cfmodel.serializers import atomic, canonical, crossrefs, featuremaps, linking, model
from cfmodel.serializers import ecore as ecore_files
from cfmodel.serializers.base import IDS_KEY, Document, ids_from
from cfmodel.serializers.xmi.options import XmiOptions
from cfmodel.serializers.xmi.writer import read_ids, to_bytes


def read_all(
    paths: Iterable[Path | str], rset: ResourceSet, options: XmiOptions | None = None
) -> list[Document]:
    """Read each file into `rset` (in order), and with it the files its references name
    (unless `load_references` is off); a file already in the resource set is not read again.
    References may lead into `XmiOptions.root`, by default the directory all the files are in.

    Raises:
        CfSerializationError: what `xmi.read` raises, for any of the files.
    """
    # lazy: the package's __init__ imports this module
    from cfmodel.serializers.xmi import read

    opts = options or XmiOptions()
    paths = list(paths)
    if opts.root is None and paths:  # the files given may refer to each other: their common directory
        common = os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in paths])
        opts = dataclasses.replace(opts, root=Path(common))
    found: list[Document] = []
    for path in paths:
        document = existing(rset, path)
        if document is None:
            document = read(path, rset, opts)
        found.append(document)
    return found


def _root_of(path: Path | str, opts: XmiOptions) -> Path:
    return Path(os.path.abspath(path)).parent if opts.root is None else Path(opts.root)


def existing(rset: ResourceSet, path: Path | str) -> Document | None:
    """The document read from `path` into `rset` before, if any."""
    resource = rset.resources.get(crossrefs.Documents.key(path))
    if resource is None:
        return None
    return Document(list(resource.contents), dict(resource.__dict__.get(IDS_KEY) or {}), resource)


def resolve_proxies(rset: ResourceSet, options: XmiOptions | None = None) -> list[str]:
    """Replace every proxy that a non-containment reference of a document in `rset` holds
    by the object it stands for, reading the documents it needs (confined as a reading is:
    `XmiOptions.root`, else each referring document's directory, and the URI map). A
    proxy whose document or object cannot be found stays; their URIs are returned, in
    document order. Containment proxies stay proxies (a PyEcore object has one container
    and one resource, so a child kept in another document cannot be both).

    Raises:
        CfSerializationError: a proxy names a file outside the allowed directories
            (``outside-root``), or a document it names cannot be read.
    """
    opts = options or XmiOptions()
    unresolved: list[str] = []
    for resource in list(rset.resources.values()):
        if IDS_KEY not in resource.__dict__:
            continue  # not an XMI document a reader made (a metamodel)
        location = str(resource.uri.plain)
        for obj in canonical.walk(list(resource.contents)):
            for f in model.persistent_features(obj.eClass):
                if featuremaps.is_feature_map(f):  # its entries that are references
                    for e in featuremaps.entries(obj, f):
                        member = e.feature
                        if not isinstance(member, EAttribute) and not member.containment:
                            target = _target(e.value, location, rset, opts, unresolved)
                            if target is not None:
                                e.value = target
                    continue
                if isinstance(f, EAttribute) or f.containment or model.is_container_ref(f):
                    continue
                _resolve_feature(obj, f, location, rset, opts, unresolved)
    return unresolved


def _resolve_feature(
    obj: EObject, f: Any, location: str, rset: ResourceSet, opts: XmiOptions, unresolved: list[str]
) -> None:
    if f.many:
        values = obj.eGet(f)
        for i, v in enumerate(list(values)):
            target = _target(v, location, rset, opts, unresolved)
            if target is not None:
                values[i] = target
    else:
        v = obj.eGet(f)
        target = _target(v, location, rset, opts, unresolved)
        if target is not None:
            obj.eSet(f, target)


def _target(
    v: Any, location: str, rset: ResourceSet, opts: XmiOptions, unresolved: list[str]
) -> EObject | None:
    uri = crossrefs.proxy_uri(v) if v is not None else None
    if uri is None:
        return None
    where, _, fragment = uri.partition("#")
    mapped = crossrefs.resolve_uri(location, where, opts.uri_map)
    path = crossrefs.local_path(mapped)
    allowed = [_root_of(location, opts)] + [
        p for t in opts.uri_map.values() if (p := crossrefs.local_path(crossrefs.resolve_uri(location, t)))
    ]
    if path is not None and not crossrefs.confined(path, allowed):
        raise CfSerializationError(
            f"proxy {uri!r} names a file outside the directories the model may be read from"
            f" ({', '.join(map(str, allowed))}); give XmiOptions.root (--root) to allow more",
            Span(location, 1, 1, 1, 2),
            code="outside-root",
        )
    documents = crossrefs.documents(rset)
    if path is not None and not documents.has(path) and path.is_file():
        if path.suffix == ".ecore":  # a metamodel's elements (EMF's own fragments)
            ecore_files.read(path, rset, ecore_files.EcoreOptions(limits=opts.limits))
        else:
            read_all([path], rset, dataclasses.replace(opts, root=allowed[0]))
    found = documents.find(path, fragment) if path is not None else None
    if found is None:
        unresolved.append(uri)
    return found


def _checked_name(directory: Path, name: str) -> Path:
    """`name` must stay inside the directory: relative, no ``..``."""
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts or "\\" in name:
        raise CfSerializationError(
            f"document name {name!r} must be a relative path inside {directory}",
            Span(str(directory), 1, 1, 1, 2),
            code="io",
        )
    return directory / pure


def placed_documents(
    directory: Path | str,
    documents: Mapping[str, Sequence[EObject]],
    names_of: Callable[[list[EObject]], Callable[[EObject], str]],
) -> dict[str, tuple[list[EObject], Path, crossrefs.Hrefs]]:
    """Each document of a set to be written into `directory` (``{relative name: roots}``):
    its roots, its path (`_checked_name`), and the `crossrefs.Hrefs` that names the other
    documents' objects relative to it, each as its own document names it (`names_of`,
    made once per document: the format's way of naming objects).

    Raises:
        CfSerializationError: a name leaves the directory.
    """
    base = Path(os.path.abspath(directory))
    placed: dict[int, tuple[Path, Any]] = {}
    planned: dict[str, tuple[list[EObject], Path]] = {}
    for name, given in documents.items():
        roots = list(given)
        path = _checked_name(base, name)
        planned[name] = (roots, path)
        names = names_of(roots)
        for root in roots:
            placed[id(root)] = (path, names)
    return {name: (roots, path, crossrefs.Hrefs(path, placed)) for name, (roots, path) in planned.items()}


def set_to_bytes(
    directory: Path | str, documents: Mapping[str, Sequence[EObject]], options: XmiOptions | None = None
) -> dict[str, bytes]:
    """The bytes of each document, named as given (relative to `directory`, where they
    are to be written): references between them are ``href``s relative to each other.

    Raises:
        CfSerializationError: a name leaves the directory, or a document breaks its
            metamodel (`xmi.to_bytes`).
    """
    opts = options or XmiOptions()

    def names_of(roots: list[EObject]) -> linking.Fragments:
        objects = canonical.contents(roots)
        ids = ids_from(opts.id_of, objects) if opts.id_of is not None else read_ids(roots, objects)
        return linking.Fragments(roots, ids)

    return {
        name: to_bytes(roots, opts, location=path, hrefs=hrefs)
        for name, (roots, path, hrefs) in placed_documents(directory, documents, names_of).items()
    }


def write_all(
    directory: Path | str, documents: Mapping[str, Sequence[EObject]], options: XmiOptions | None = None
) -> list[Path]:
    """Write the documents (``{relative name: roots}``) into `directory` as one atomic set
    (`atomic.write_files`: all new files or all old ones); the paths written, in order.

    Raises:
        CfSerializationError: as `set_to_bytes`; ``io`` when the files cannot be written.
    """
    return atomic.write_files(directory, set_to_bytes(directory, documents, options))
