"""``inmanta.execute.util``: `Unknown` and `NoneValue` are cfmodel's own, so the compiler recognises them."""

from __future__ import annotations

from cfmodel.plugins import NoneValue, Unknown

__all__ = ["NoneValue", "Unknown"]
