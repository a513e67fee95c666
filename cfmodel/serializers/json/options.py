"""The options of the JSON serializers (`JsonOptions`) and the names of the two dialects.

``emfjson`` is emfjson-jackson's format, the JSON the EMF world reads and writes (the
default); ``cfmodel-instances`` is cfmodel's own format of earlier versions, still read
(detected by its header) and written when asked for by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from cfmodel.serializers.base import IdFunction

EMFJSON = "emfjson"
LEGACY = "cfmodel-instances"
DIALECTS = (EMFJSON, LEGACY)
Dialect = Literal["emfjson", "cfmodel-instances"]


@dataclass(frozen=True, slots=True)
class JsonOptions:
    """How JSON models are written and read.

    ``id_of`` names objects (written as ``id_key``, ``"@id"`` as emfjson-jackson's
    ``OPTION_USE_ID`` writes it; ``"uuid"`` is what PyEcore's ``JsonResource`` reads);
    ``indent`` pretty-prints (as Python's ``json.dumps`` with that indent would);
    ``dialect`` picks the format written (reading detects it); ``max_bytes`` caps the
    size of a document read, ``max_memory`` what reading it may take (estimated before);
    ``uri_map``, ``load_references`` and ``root`` say how references to other documents
    are read, as `XmiOptions` says (a reference may never lead outside ``root``).
    """

    id_of: IdFunction | None = None
    indent: int | None = None
    max_bytes: int = 512 * 1024 * 1024
    max_memory: int = 1 << 30
    dialect: Dialect = "emfjson"
    id_key: str = "@id"
    # reading references to other documents (``other.json#//@a.0``), as `XmiOptions`: a
    # prefix of their URIs → its replacement; whether documents on disk are read at once
    # (JSON or XMI, in the same resource set; else, and when absent: proxies)
    uri_map: Mapping[str, str] = field(default_factory=dict)
    load_references: bool = True
    # where references may lead (after symlinks), with the URI map's targets: as
    # `XmiOptions.root`; None: the directory of the document read
    root: Path | str | None = None
