"""``inmanta.ast.attribute``: what ``entity_type.get_attribute(name)`` returns, for isinstance checks."""

from __future__ import annotations

from cfmodel.transforms.cf.refine.pluginrt import AttributeView as Attribute
from cfmodel.transforms.cf.refine.pluginrt import RelationView as RelationAttribute

__all__ = ["Attribute", "RelationAttribute"]
