"""``inmanta.config``: `Config.get` answers the defaults (cfmodel reads no inmanta configuration)."""

from __future__ import annotations

from typing import Any

__all__ = ["Config"]


class Config:
    _values: dict[tuple[str, str], Any] = {}

    @classmethod
    def get(cls, section: str, name: str, default_value: Any = None) -> Any:
        return cls._values.get((section, name), default_value)

    @classmethod
    def set(cls, section: str, name: str, value: Any) -> None:
        cls._values[(section, name)] = value
