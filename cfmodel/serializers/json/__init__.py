"""JSON instance models: emfjson-jackson's format by default, read and written
(docs/serialization.md, "JSON instance models").

Input (write): instance roots and `JsonOptions`. Output: one UTF-8 JSON file, replaced
atomically, byte-identical for the same model and options: emfjson-jackson's format
(`writer`), or with ``dialect="cfmodel-instances"`` cfmodel's own format of earlier
versions (`legacy`). References to objects of other documents (read into a resource set,
or written in the same `write_all` call) and to proxies are written as emfjson-jackson
writes them, ``{"eClass": …, "$ref": "other.json#id"}``, relative to the document's file
(as the XMI writer's ``href``s); `write_all` writes a set of documents referring to each
other as one atomic set.

Input (read): a JSON file and the caller's `ResourceSet` (its metamodels). Output: a
`Document`. The dialect is detected: cfmodel's own format by its header, anything else
is read as emfjson-jackson's JSON, which PyEcore's ``JsonResource`` writes too (`reader`).
Untrusted input is bounded (size, nesting) and every refusal is a located
`CfSerializationError`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pyecore.ecore import EObject
from pyecore.resources import ResourceSet

from cfmodel.serializers import atomic, canonical, crossrefs
from cfmodel.serializers.base import Document, ids_from
from cfmodel.serializers.json import legacy, reader, writer
from cfmodel.serializers.json.options import DIALECTS, EMFJSON, LEGACY, JsonOptions
from cfmodel.serializers.xmi.documents import existing, placed_documents

__all__ = [
    "DIALECTS",
    "EMFJSON",
    "LEGACY",
    "JsonOptions",
    "from_bytes",
    "read",
    "read_all",
    "set_to_bytes",
    "to_bytes",
    "write",
    "write_all",
]


def write(target: Path | str, roots: Sequence[EObject], options: JsonOptions | None = None) -> None:
    """Validate the model and write it to `target` atomically; objects of other documents
    it refers to are written as ``$ref``s relative to `target` (see `writer`).

    Raises:
        CfSerializationError: the model breaks its metamodel (every problem as a note).
    """
    atomic.write_bytes(target, to_bytes(roots, options, location=target))


def to_bytes(
    roots: Sequence[EObject],
    options: JsonOptions | None = None,
    *,
    location: Path | str | None = None,
    hrefs: crossrefs.Hrefs | None = None,
) -> bytes:
    """The document's bytes in the dialect the options name (emfjson-jackson's by default).
    `location`: where it will be (``$ref``s to other documents are relative to it; None:
    absolute ``file:`` URIs); `hrefs`: names objects of other documents (default
    `crossrefs.Hrefs(location)`). cfmodel's own dialect holds one document only."""
    opts = options or JsonOptions()
    if opts.dialect == LEGACY:
        return legacy.to_bytes(roots, opts)
    return writer.to_bytes(roots, opts, location=location, hrefs=hrefs)


def set_to_bytes(
    directory: Path | str, documents: Mapping[str, Sequence[EObject]], options: JsonOptions | None = None
) -> dict[str, bytes]:
    """The bytes of each document (``{relative name: roots}``, to be written into
    `directory`): a reference from one to another's object is ``{"eClass": …, "$ref":
    "b.json#id"}`` relative to the referring document, the object named as its own
    document names it (id, iD attribute value, position: `writer.EmfNames`), as
    `xmi.set_to_bytes` writes ``href``s. Objects of documents read before, and proxies,
    keep their names (`crossrefs.Hrefs`).

    Raises:
        CfSerializationError: a name leaves the directory, or a document breaks its
            metamodel (`to_bytes`).
    """
    opts = options or JsonOptions()

    def names_of(roots: list[EObject]) -> writer.EmfNames:
        return writer.EmfNames(roots, ids_from(opts.id_of, canonical.contents(roots)))

    return {
        name: to_bytes(roots, opts, location=path, hrefs=hrefs)
        for name, (roots, path, hrefs) in placed_documents(directory, documents, names_of).items()
    }


def write_all(
    directory: Path | str, documents: Mapping[str, Sequence[EObject]], options: JsonOptions | None = None
) -> list[Path]:
    """Write the documents (``{relative name: roots}``) into `directory` as one atomic set
    (all new files or all old ones); the paths written, in order.

    Raises:
        CfSerializationError: as `set_to_bytes`; ``io`` when the files cannot be written.
    """
    return atomic.write_files(directory, set_to_bytes(directory, documents, options))


def read(source: Path | str, resource_set: ResourceSet, options: JsonOptions | None = None) -> Document:
    """Read a JSON model file (either dialect) into new objects; metamodels come from
    `resource_set`.

    Raises:
        CfSerializationError: too large, too deep, not JSON, or not matching the
            metamodel (unknown class or feature, bad value, unresolved reference), located.
    """
    return reader.read(source, resource_set, options or JsonOptions())


def read_all(
    paths: Iterable[Path | str], resource_set: ResourceSet, options: JsonOptions | None = None
) -> list[Document]:
    """Read each JSON file into `resource_set`, in order, with the documents their
    references name (unless `load_references` is off); a file already read into it is
    not read again. References may lead into `JsonOptions.root`, by default the
    directory all the files are in.

    Raises:
        CfSerializationError: what `read` raises, for any of the files.
    """
    opts = options or JsonOptions()
    paths = list(paths)
    if opts.root is None and paths:  # the files given may refer to each other: their common directory
        common = os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in paths])
        opts = dataclasses.replace(opts, root=Path(common))
    found = []
    for path in paths:
        document = existing(resource_set, path)
        found.append(document if document is not None else read(path, resource_set, opts))
    return found


def from_bytes(
    data: bytes, resource_set: ResourceSet, name: str = "<bytes>", options: JsonOptions | None = None
) -> Document:
    """`read` from bytes in memory; `name` labels errors and the resource."""
    return reader.from_bytes(data, resource_set, name, options or JsonOptions())
