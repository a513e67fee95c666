"""XMI instance models: write PyEcore objects the way EMF's XMIResource does, read them back.

Input (write): the roots of an instance model (objects of metamodels that were, or will
be, written as `.ecore`), and `XmiOptions` with an optional id function. Output: one XMI
file, replaced atomically, byte-identical for the same model and ids. Input (read): an
XMI file (ours or EMF's), parsed safely; the metamodels registered in the caller's
`ResourceSet`. Output: a `Document` with new objects in that resource set.

Layout (decided here, documented in docs/serialization.md):

* Several roots, no synthetic container: a single root is the document element; several
  roots sit under ``xmi:XMI`` in order, as EMF writes them. Contained objects nest as
  child elements named after their containment feature, always with ``xsi:type``.
* Identity: an object the id function names gets ``xmi:id`` and every reference to it
  uses that id, so a reference survives edits elsewhere in the document. Objects
  without an id are referenced by EMF's positional fragments (``/1/@files.0``, or
  ``//@files.0`` under a single root).
* Values: single-valued attributes that are set (not None) are written, including values
  equal to a Python-side default, so EMF never substitutes its own default; many-valued
  attributes are child elements, one per value; non-containment references are
  attributes listing targets; container references (opposites of containments) are
  implied by nesting; transient, derived and volatile features are not written.

Guarantees: nothing is returned or written for a model `validate.check_objects` refuses
(its checks run while the bytes are built, in per-class generated code; any doubt hands
over to `validate` itself, which reports every problem); the reader sets both sides of
bidirectional references exactly as listed in the file, never duplicating an item
(PyEcore's own readers do), and adds a missing side. A read takes 10 to 30 times the
file's size in memory (its objects), and never more than ``XmlLimits.max_memory`` (1 GiB):
a file whose reading could take more (`xmlsafe.estimated_memory`, an upper bound from
counts made before parsing) is refused (``too-large``).

Speed (docs/serialization.md, "Speed"): one pre-order pass writes, with a function
generated per class; reading streams the file through expat (`xmlsafe.event_parser`)
into per-class generated constructors that store values the way PyEcore's setters would
(`fastpath`), sets one-way references to ids already read at once, and links the rest
in one pass; the cyclic garbage collector is paused during both. Cost is linear in the
model: ids, positions and opposite memberships are all looked up in tables.

Several documents (`documents`): `read_all` reads a set of files into one resource set
(and the files their references name, each once, never outside the allowed directories),
`resolve_proxies` resolves what was left as proxies later, `write_all` writes documents
referring to each other as one atomic set, with ``href``s between them.

Modules: `writer` (the writer; its generated code in `heads`; `general` for documents
with ``href``s or proxies, and for EMF's layout), `documents` (sets), `reader` (the streaming
reader and the generated constructors), `scan` (the fast lane for flat documents, which
builds with the reader's constructor lines), `options` (what they share). All generated
code is written through `cfmodel.metamodel.runtime.codegen.Emitter`; a generated
function's only way to give up is an explicit doubt (`heads.DoubtError`,
`scan.NotScannableError`), never an error from Python itself.
"""

from __future__ import annotations

from pathlib import Path

from pyecore.resources import ResourceSet

from cfmodel.collector import gc_paused
from cfmodel.serializers import xmlsafe
from cfmodel.serializers.base import Document
from cfmodel.serializers.xmi import scan
from cfmodel.serializers.xmi.documents import read_all, resolve_proxies, set_to_bytes, write_all
from cfmodel.serializers.xmi.options import XmiOptions
from cfmodel.serializers.xmi.reader import Reader
from cfmodel.serializers.xmi.writer import to_bytes, write

__all__ = [
    "XmiOptions",
    "from_bytes",
    "read",
    "read_all",
    "resolve_proxies",
    "set_to_bytes",
    "to_bytes",
    "write",
    "write_all",
]


def read(source: Path | str, resource_set: ResourceSet, options: XmiOptions | None = None) -> Document:
    """Read an XMI file into new objects; metamodels come from `resource_set`'s registry.

    Raises:
        CfSerializationError: unsafe or malformed XML, unknown classes or features, bad
            values, unresolved references (located at the file and line).
    """
    opts = options or XmiOptions()
    return from_bytes(xmlsafe.read_file(source, opts.limits), resource_set, str(source), opts)


def from_bytes(
    data: bytes, resource_set: ResourceSet, name: str = "<bytes>", options: XmiOptions | None = None
) -> Document:
    opts = options or XmiOptions()
    with gc_paused(promote=True):
        xmlsafe.check_document(data, name, opts.limits)
        xmlsafe.check_memory(data, name, opts.limits)
        if opts.scan and opts.limits.max_depth >= 2:  # a flat document's elements are 2 deep
            scanned = scan.scanned(data, name, resource_set)
            if scanned is not None:
                return scanned
        reader = Reader(name, resource_set, opts.limits.max_depth, opts, read_other=read)
        xmlsafe.feed(reader.parser, data, name, opts.limits, checked=True)
        return reader.document()
