"""``inmanta.ast.entity``: `Entity` is what ``proxy._type()`` returns in cfmodel (`EntityView`)."""

from __future__ import annotations

from cfmodel.transforms.cf.refine.pluginrt import EntityView as Entity

__all__ = ["Entity"]
