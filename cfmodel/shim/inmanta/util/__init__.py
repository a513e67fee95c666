"""``inmanta.util``: the JSON helpers module code uses."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime
from typing import Any

from ..execute.util import Unknown

__all__ = ["JSONSerializable", "Unknown", "api_boundary_json_encoder", "internal_json_encoder"]


class JSONSerializable:
    def json_serialization_step(self) -> Any:
        raise NotImplementedError


def internal_json_encoder(value: Any) -> Any:
    """What ``json.dumps(default=...)`` calls for a value JSON does not know."""
    if isinstance(value, JSONSerializable):
        return value.json_serialization_step()
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, set | tuple):
        return list(value)
    to_dict = getattr(value, "_asdict", None) or getattr(value, "model_dump", None)
    if to_dict is not None:
        return to_dict()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


api_boundary_json_encoder = internal_json_encoder
