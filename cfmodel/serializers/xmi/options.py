"""What the XMI writer and readers share: their options and the XML names they use.

Input: nothing. Output: `XmiOptions` (frozen) and the names of XMI's own attributes and
elements as the expat parser reports them (``"namespace-URI local-name"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from cfmodel.serializers.base import XMI_NS, XSI_NS, IdFunction
from cfmodel.serializers.xmlsafe import XmlLimits

XSI_TYPE = f"{XSI_NS} type"
XMI_ID = f"{XMI_NS} id"
XMI_XMI = f"{XMI_NS} XMI"
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


@dataclass(frozen=True, slots=True)
class XmiOptions:
    """``id_of`` names objects (None: positional fragment); ``limits`` cap reading;
    ``scan``: read flat documents in cfmodel's own layout through the fast lane (which
    holds the document's text while it reads); False streams every document through expat."""

    id_of: IdFunction | None = None
    limits: XmlLimits = field(default_factory=XmlLimits)
    scan: bool = True
    # reading references to other documents (``href``, ``other.xmi#//@a.0``): a prefix of
    # their URIs → its replacement (``platform:/resource/`` → a workspace directory);
    # whether documents that exist on disk are read at once (else: proxies)
    uri_map: Mapping[str, str] = field(default_factory=dict)
    load_references: bool = True
