"""``inmanta.export``: `dependency_manager`, `unknown_parameters`, `Exporter` (what mappers receive)."""

from __future__ import annotations

from typing import Any

from cfmodel.resources import dependency_manager
from cfmodel.transforms.cf.export import Exporter

__all__ = ["Exporter", "ModelDict", "ResourceDict", "dependency_manager", "unknown_parameters"]

ModelDict = dict[str, Any]
ResourceDict = dict[Any, Any]

#: Unknown values met while exporting (inmanta sends them to the server; cfmodel keeps none).
unknown_parameters: list[dict[str, Any]] = []
