"""What the XMI writer and readers share: their options and the XML names they use.

Input: nothing. Output: `XmiOptions` (frozen) and the names of XMI's own attributes and
elements as the expat parser reports them (``"namespace-URI local-name"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cfmodel.serializers.base import XMI_NS, XSI_NS, IdFunction
from cfmodel.serializers.xmlsafe import XmlLimits

XSI_TYPE = f"{XSI_NS} type"
XSI_SCHEMA_LOCATION = f"{XSI_NS} schemaLocation"
SCHEMA_LOCATION_KEY = "_cfmodel_schema_location"  # on a resource read from a document that had one
XMI_ID = f"{XMI_NS} id"
XMI_XMI = f"{XMI_NS} XMI"
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


@dataclass(frozen=True, slots=True)
class XmiOptions:
    """``id_of`` names objects (None: the ``xmi:id`` a reader read, else a positional
    fragment); ``limits`` cap reading;
    ``scan``: read flat documents in cfmodel's own layout through the fast lane (which
    holds the document's text while it reads); False streams every document through expat;
    the rest: references to other documents (reading), and the layout (writing)."""

    id_of: IdFunction | None = None
    limits: XmlLimits = field(default_factory=XmlLimits)
    scan: bool = True
    # reading references to other documents (``href``, ``other.xmi#//@a.0``): a prefix of
    # their URIs → its replacement (``platform:/resource/`` → a workspace directory);
    # whether documents that exist on disk are read at once (else: proxies)
    uri_map: Mapping[str, str] = field(default_factory=dict)
    load_references: bool = True
    # the directory references may lead into (None: the directory of the document read
    # first); a file outside it (and outside the URI map's directories) is an error
    root: Path | None = None
    # writing: EMF's own layout (features in EMF's order, xsi:type and xmlns:xsi only where
    # EMF writes them) instead of cfmodel's (always xsi:type on children)
    emf_layout: bool = False
    # EMF's layout: write ``xsi:schemaLocation`` (each package's .ecore file, relative)?
    # None: when the document the roots were read from had one, as EMF does
    schema_location: bool | None = None
