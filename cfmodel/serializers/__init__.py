"""Serializers: one module per format, each able to write and read.

The registry here picks a serializer by format name (``ecore``, ``xmi``, ``json``, ``rdf``) or by
a file's extension. Every serializer has the same surface: ``write(target, content,
options)`` replaces the file atomically after validating the content (an `EPackage` for
``ecore``, instance roots otherwise); ``read(source, resource_set, options)`` returns a
`Document` whose objects live in the given (or a fresh) PyEcore `ResourceSet`; options
are frozen dataclasses. Layout and guarantees: docs/serialization.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyecore.resources import ResourceSet

from cfmodel.errors import CfUsageError
from cfmodel.serializers import ecore, json, rdf, xmi
from cfmodel.serializers.base import Document, ncname_id
from cfmodel.serializers.ecore import EcoreOptions
from cfmodel.serializers.json import JsonOptions
from cfmodel.serializers.rdf import RdfOptions
from cfmodel.serializers.xmi import XmiOptions
from cfmodel.serializers.xmlsafe import XmlLimits

__all__ = [
    "FORMATS",
    "Document",
    "EcoreOptions",
    "Format",
    "JsonOptions",
    "RdfOptions",
    "XmiOptions",
    "XmlLimits",
    "get_format",
    "ncname_id",
    "read",
    "write",
]


@dataclass(frozen=True, slots=True)
class Format:
    """One serializer: its name, file extensions, what it holds, and its functions."""

    name: str
    extensions: tuple[str, ...]
    holds: str  # "metamodel" or "instances"
    options: type
    writer: Callable[..., None]
    reader: Callable[..., Document]


FORMATS: tuple[Format, ...] = (
    Format("ecore", (".ecore",), "metamodel", EcoreOptions, ecore.write, ecore.read),
    Format("xmi", (".xmi", ".xml"), "instances", XmiOptions, xmi.write, xmi.read),
    Format("json", (".json",), "instances", JsonOptions, json.write, json.read),
    Format("rdf", tuple(rdf.EXTENSIONS), "instances", RdfOptions, rdf.write, rdf.read),
)


def get_format(name_or_path: str | Path) -> Format:
    """The serializer for a format name or a file name's extension.

    Raises:
        CfUsageError: no serializer matches.
    """
    text = str(name_or_path)
    for fmt in FORMATS:
        if text == fmt.name or Path(text).suffix.lower() in fmt.extensions:
            return fmt
    known = ", ".join(f"{f.name} ({' '.join(f.extensions)})" for f in FORMATS)
    raise CfUsageError(f"no serializer for {text!r}; known formats: {known}", code="unknown-format")


def _options(fmt: Format, options: Any) -> Any:
    if options is not None and not isinstance(options, fmt.options):
        raise CfUsageError(f"{fmt.name} takes {fmt.options.__name__}, not {type(options).__name__}")
    return options


def write(target: Path | str, content: Any, options: Any = None, format: str | None = None) -> None:
    """Write `content` (an EPackage for ``ecore``, instance roots otherwise) to `target`."""
    fmt = get_format(format or target)
    fmt.writer(target, content, _options(fmt, options))


def read(
    source: Path | str,
    resource_set: ResourceSet | None = None,
    options: Any = None,
    format: str | None = None,
) -> Document:
    """Read `source` into `resource_set` (a fresh one when None)."""
    fmt = get_format(format or source)
    rset = resource_set if resource_set is not None else ResourceSet()
    return fmt.reader(source, rset, _options(fmt, options))
