"""JSON instance models: emfjson-jackson's format by default, read and written
(docs/serialization.md, "JSON instance models").

Input (write): instance roots and `JsonOptions`. Output: one UTF-8 JSON file, replaced
atomically, byte-identical for the same model and options: emfjson-jackson's format
(`writer`), or with ``dialect="cfmodel-instances"`` cfmodel's own format of earlier
versions (`legacy`).

Input (read): a JSON file and the caller's `ResourceSet` (its metamodels). Output: a
`Document`. The dialect is detected: cfmodel's own format by its header, anything else
is read as emfjson-jackson's JSON, which PyEcore's ``JsonResource`` writes too (`reader`).
Untrusted input is bounded (size, nesting) and every refusal is a located
`CfSerializationError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pyecore.ecore import EObject
from pyecore.resources import ResourceSet

from cfmodel.serializers import atomic
from cfmodel.serializers.base import Document
from cfmodel.serializers.json import legacy, reader, writer
from cfmodel.serializers.json.options import DIALECTS, EMFJSON, LEGACY, JsonOptions

__all__ = ["DIALECTS", "EMFJSON", "LEGACY", "JsonOptions", "from_bytes", "read", "to_bytes", "write"]


def write(target: Path | str, roots: Sequence[EObject], options: JsonOptions | None = None) -> None:
    """Validate the model and write it to `target` atomically.

    Raises:
        CfSerializationError: the model breaks its metamodel (every problem as a note).
    """
    atomic.write_bytes(target, to_bytes(roots, options))


def to_bytes(roots: Sequence[EObject], options: JsonOptions | None = None) -> bytes:
    """The document's bytes in the dialect the options name (emfjson-jackson's by default)."""
    opts = options or JsonOptions()
    if opts.dialect == LEGACY:
        return legacy.to_bytes(roots, opts)
    return writer.to_bytes(roots, opts)


def read(source: Path | str, resource_set: ResourceSet, options: JsonOptions | None = None) -> Document:
    """Read a JSON model file (either dialect) into new objects; metamodels come from
    `resource_set`.

    Raises:
        CfSerializationError: too large, too deep, not JSON, or not matching the
            metamodel (unknown class or feature, bad value, unresolved reference), located.
    """
    return reader.read(source, resource_set, options or JsonOptions())


def from_bytes(
    data: bytes, resource_set: ResourceSet, name: str = "<bytes>", options: JsonOptions | None = None
) -> Document:
    """`read` from bytes in memory; `name` labels errors and the resource."""
    return reader.from_bytes(data, resource_set, name, options or JsonOptions())
