"""To model: the evaluated instances become PyEcore objects of the derived metamodel.

`to_model(instances, metamodel)` makes one `EObject` per instance, in creation order (every
instance is a root; relations are non-containment references set on both ends in the order
the model gave them), by the runtime's one object builder (`cfmodel.metamodel.runtime.objects`: the light
objects and holders the readers make too), and the stable id of each object from its index keys
(docs/compiler.md, "Ids"). With ``release`` the instances' values move into the objects:
afterwards each instance keeps its entity and place, not its values, so a large model does
not hold its values twice.
"""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyecore.ecore import EEnum

from cfmodel.metamodel.runtime.objects import Feature, ObjectBuilder
from cfmodel.plugins import Unknown
from cfmodel.project import MAIN_NAMESPACE
from cfmodel.references import describe as describe_reference
from cfmodel.references import is_reference
from cfmodel.serializers import ncname_id
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.refine.values import (
    ATTR,
    EntityInfo,
    Instance,
    ListVar,
    OptVar,
    Var,
    index_key_part,
)

if TYPE_CHECKING:
    from pyecore.ecore import EObject

    from cfmodel.transforms.cf.lift import DomainMetamodel


@dataclass(frozen=True, slots=True)
class InstanceModel:
    """The instance model: the PyEcore objects in creation order and their stable ids."""

    objects: list[EObject]
    ids: dict[int, str]  # id() of an object -> its id

    def id_of(self, obj: EObject) -> str | None:
        """The stable id of one of the objects (None for any other object)."""
        return self.ids.get(id(obj))


def to_model(instances: list[Instance], metamodel: DomainMetamodel, release: bool = False) -> InstanceModel:
    """The PyEcore objects of *instances* (see the module docstring); *release*: move the values."""
    keys = _Ids(instances).all()
    was_enabled = gc.isenabled()
    gc.disable()  # tens of thousands of new objects, none of them garbage
    try:
        objects = _Converter(metamodel).convert(instances, release=release)
    finally:
        if was_enabled:
            gc.enable()
    return InstanceModel(objects, {id(obj): key for obj, key in zip(objects, keys, strict=True)})


def instance_targets(slot: object) -> list[Instance]:
    """The instances a relation slot holds, in order."""
    if isinstance(slot, ListVar):
        return list(slot.items)
    if isinstance(slot, OptVar):
        return [slot.value] if slot.value is not None else []
    if isinstance(slot, Var) and slot.ready and isinstance(slot.value, Instance):
        return [slot.value]
    return []


class _Converter:
    """Instances → EObjects (two passes: create all, then fill features)."""

    def __init__(self, metamodel: DomainMetamodel) -> None:
        self.metamodel = metamodel
        self.plans: dict[int, list[tuple[str, int, Any, str]]] = {}

    def plan(self, info: EntityInfo) -> list[tuple[str, int, Any, str]]:
        """Per field: (name, kind, feature, how values are converted: "", json, float, enum)."""
        found = self.plans.get(id(info))
        if found is not None:
            return found
        plan = []
        entity = info.entity
        for name, field in info.fields.items():
            how = ""
            if field.kind == ATTR:
                feature = self.metamodel.eattribute(entity, name)
                etype = feature.eType
                if isinstance(etype, EEnum):
                    how = "enum"
                elif field.type is not None and json_valued(field.type):
                    how = "json"
                elif getattr(etype, "eType", None) is float:
                    how = "float"
            else:
                feature = self.metamodel.ereference(entity, name)
            plan.append((name, field.kind, feature, how))
        self.plans[id(info)] = plan
        return plan

    def convert(self, instances: list[Instance], release: bool = False) -> list[EObject]:
        """Make the EObjects; with *release*, empty each instance's slots once copied.

        The objects are made by the runtime's `ObjectBuilder` (light objects and holders when
        PyEcore is laid out as `fastpath` knows it), as the readers make theirs: they are
        new, so there is nobody to notify, and the values were checked against the
        language's types (the serializers check them again before writing). Both ends of a
        relation are set from the instances' own slots; every object ends as PyEcore's
        setters would leave it, ``_isset`` and the inverse index included.
        """
        metamodel = self.metamodel
        builder = ObjectBuilder()
        # per entity: its EClass and per field (name, kind, feature as the builder takes it, how)
        kinds: dict[int, tuple[Any, list[tuple[str, int, Feature, str]]]] = {}
        objects: list[EObject] = []
        by_instance: dict[int, EObject] = {}
        for inst in instances:
            info = inst.info
            entry = kinds.get(id(info))
            if entry is None:
                fields = [(name, k, builder.feature(f), how) for name, k, f, how in self.plan(info)]
                entry = kinds[id(info)] = (metamodel.eclass(info.entity), fields)
            obj = builder.new(entry[0])
            objects.append(obj)
            by_instance[id(inst)] = obj
        builder.finish()  # for EClass.allInstances(), as PyEcore's constructor does

        for inst, obj in zip(instances, objects, strict=True):
            slots = inst.slots
            for name, kind, feature, how in kinds[id(inst.info)][1]:
                slot = slots.get(name)
                if slot is None:
                    continue
                if kind == ATTR:
                    if not isinstance(slot, Var) or not slot.ready:
                        continue
                    value: Any = slot.value  # a list when the feature is many
                    if value is None or isinstance(value, Unknown) or is_reference(value):
                        continue  # not known at compile time (a reference: at deploy time)
                    if feature.many:
                        known = [v for v in value if not isinstance(v, Unknown) and not is_reference(v)]
                        builder.extend(obj, feature, [_value(feature.feature, v, how) for v in known])
                    else:
                        builder.set(obj, feature, _value(feature.feature, value, how))
                    continue
                targets = instance_targets(slot)
                if not targets:
                    continue
                if feature.many:
                    builder.extend(obj, feature, [by_instance[id(target)] for target in targets])
                else:
                    builder.set(obj, feature, by_instance[id(targets[0])])
            if release:
                inst.slots = _RELEASED
        return objects


#: The slots of an instance whose values moved into its PyEcore object (shared: never written).
_RELEASED: dict[str, Any] = {}


def json_valued(spec: p.TypeSpec) -> bool:
    """Whether values of this type are JSON text in the metamodel (dict, list, any; typedefs on them)."""
    base: object = spec.base
    while isinstance(base, p.Typedef):
        base = base.parent if base.parent is not None else base.base
    return isinstance(base, p.Primitive) and base.name in ("dict", "list", "any")


def _value(feature: Any, value: Any, how: str) -> Any:
    if how == "json":
        return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=_json_default)
    if how == "float" and type(value) is int:
        return float(value)
    if how == "enum":
        for literal in feature.eType.eLiterals:
            if literal.literal == value or literal.name == value:
                return literal
    return value


def _json_default(value: Any) -> Any:
    """Inside a dict or list attribute: an Unknown is null, a reference its description."""
    if is_reference(value):
        return describe_reference(value)
    if isinstance(value, Unknown):
        return None
    raise TypeError(f"{type(value).__name__} is not JSON")


class _Ids:
    """Ids from index keys: ``ns.E[v1,v2]`` (relations as the target's key), else ``ns.E.n``.

    The entity is its qualified name with ``.`` for ``::`` (the main namespace's entities
    without a prefix); ``n`` numbers the instances of an entity without an index.

    Values are written with ``\\``, ``,``, ``[`` and ``]`` escaped by a backslash, so
    distinct keys stay distinct; `ncname_id` then makes them XML ids."""

    def __init__(self, instances: list[Instance]) -> None:
        self.instances = instances
        self.keys: dict[int, str] = {}
        self.counters: dict[str, int] = {}

    def all(self) -> list[str]:

        return [ncname_id(self.key(inst)) for inst in self.instances]

    def key(self, inst: Instance, depth: int = 0) -> str:
        found = self.keys.get(id(inst))
        if found is not None:
            return found
        info = inst.info
        key = None
        if info.indexes and depth < 8:
            _, names = info.indexes[0]
            parts = []
            for name in names:
                slot = inst.slots.get(name)
                value = slot.value if isinstance(slot, Var | OptVar) else None
                if isinstance(value, Instance):
                    parts.append(self.key(value, depth + 1))
                else:
                    parts.append(_escape(_key_text(value)))
            key = f"{_entity_key(info)}[{','.join(parts)}]"
        if key is None:
            number = self.counters.get(info.qname, 0)
            self.counters[info.qname] = number + 1
            key = f"{_entity_key(info)}.{number}"
        self.keys[id(inst)] = key
        return key


def _entity_key(info: EntityInfo) -> str:
    namespace = info.entity.namespace.name
    if namespace == MAIN_NAMESPACE:
        return info.entity.name
    return info.qname.replace("::", ".")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace(",", "\\,").replace("[", "\\[").replace("]", "\\]")


def _key_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    part = index_key_part(value)
    return json.dumps(part, default=str) if not isinstance(part, str) else part
