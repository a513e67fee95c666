"""The result of a compile: the instances, their PyEcore form and the exports.

The evaluator's instances are plain slotted objects; `CompileResult.model` turns them
into PyEcore objects of the derived metamodel the first time it is asked for (one
`EObject` per instance, in creation order; every instance is a root, relations are
non-containment references set on both ends in the order the model gave them).
Ids for XMI and JSON come from index keys (docs/compiler.md, "Ids").
"""

from __future__ import annotations

import gc
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfmodel.errors import CfUsageError, Diagnostic
from cfmodel.plugins import Unknown
from cfmodel.project import MAIN_NAMESPACE, Project
from cfmodel.serializers import atomic, fastpath, ncname_id
from cfmodel.serializers import json as json_format
from cfmodel.serializers import xmi as xmi_format
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.lift import lift
from cfmodel.transforms.cf.refine.errors import show
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
    from pyecore.ecore import EObject, EPackage

    from cfmodel.transforms.cf.lift import DomainMetamodel


class CompileResult:
    """A compiled project: counts and dumps at once, the PyEcore model on demand."""

    def __init__(
        self,
        program: p.LinkedProgram,
        project: Project | None,
        instances: list[Instance],
        seconds: float,
        name: str | None = None,
        warnings: Sequence[Diagnostic] = (),
    ) -> None:
        self.program = program
        self.project = project
        self.name = name or (project.name if project is not None else program.name)
        self.seconds = seconds
        self._instances = instances
        self._request_warnings = list(warnings)
        self._metamodel: DomainMetamodel | None = None
        self._objects: list[EObject] | None = None
        self._ids: dict[int, str] | None = None

    @property
    def warnings(self) -> list[Diagnostic]:
        """The request sequence's warnings, then the program's (resolve)."""
        return [*self._request_warnings, *getattr(self.program, "warnings", [])]

    # ---------------------------------------------------------------- plain views

    @property
    def raw_instances(self) -> list[Instance]:
        """The evaluator's instances, in creation order."""
        return self._instances

    def counts(self) -> dict[str, int]:
        """Instances per entity (exact type), by qualified name, sorted by name."""
        out: dict[str, int] = {}
        for instance in self._instances:
            name = instance.info.qname
            out[name] = out.get(name, 0) + 1
        return dict(sorted(out.items()))

    def dump(self) -> str:
        """A canonical text of the instances (for tests and differential checks)."""
        numbers = {id(inst): i for i, inst in enumerate(self._instances)}
        lines: list[str] = []
        for inst in self._instances:
            lines.append(f"#{numbers[id(inst)]} {inst.info.qname}")
            for name in sorted(inst.info.fields):
                field = inst.info.fields[name]
                slot = inst.slots.get(name)
                if field.kind == ATTR:
                    if isinstance(slot, Var) and slot.ready:
                        lines.append(f"  {name} = {show_full(slot.value)}")
                    continue
                targets = _targets(slot)
                if targets:
                    lines.append(f"  {name} -> " + ", ".join(f"#{numbers[id(t)]}" for t in targets))
        return "\n".join(lines) + "\n"

    # ---------------------------------------------------------------- PyEcore

    @property
    def metamodel(self) -> list[EPackage]:
        """The derived metamodel: its root EPackages."""
        return list(self._lifted().packages)

    @property
    def domain(self) -> DomainMetamodel:
        """The derived metamodel with its lookups (`cfmodel.transforms.cf.lift.DomainMetamodel`)."""
        return self._lifted()

    def _lifted(self) -> DomainMetamodel:
        if self._metamodel is None:
            self._metamodel = lift(self.program)
        return self._metamodel

    @property
    def model(self) -> list[EObject]:
        """Every instance as a PyEcore object of the derived metamodel, in creation order.

        Made on first use. The values move into the PyEcore objects: afterwards the
        evaluator's instances (`raw_instances`) keep their entity and place, not their
        values (`dump` is then empty), so a large model does not hold its values twice.
        """
        if self._objects is None:
            metamodel = self._lifted()
            keys = _Ids(self._instances).all()
            was_enabled = gc.isenabled()
            gc.disable()  # tens of thousands of new objects, none of them garbage
            try:
                objects = _Converter(metamodel).convert(self._instances, release=True)
            finally:
                if was_enabled:
                    gc.enable()
            self._ids = {id(obj): key for obj, key in zip(objects, keys, strict=True)}
            self._objects = objects
        return self._objects

    def instances(self, entity: str) -> list[EObject]:
        """The PyEcore objects of *entity* (qualified, or a name only one namespace uses) and its subtypes."""
        target = self._entity(entity)
        objects = self.model
        return [
            obj for inst, obj in zip(self._instances, objects, strict=True) if target in inst.info.ancestors
        ]

    def _entity(self, name: str) -> p.EntityType:
        """An entity by qualified name, or by plain name: the main namespace's, else the only one."""
        matches = [
            e
            for e in self.program.entities()
            if e.qualified_name == name or (("::" not in name) and e.name == name)
        ]
        for preferred in (name, f"{self.program.main.name}::{name}"):
            exact = [e for e in matches if e.qualified_name == preferred]
            if exact:
                return exact[0]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise CfUsageError(f"no entity named {name!r} in {self.name}")
        options = ", ".join(e.qualified_name for e in matches)
        raise CfUsageError(f"{name!r} is ambiguous: {options}")

    def id_of(self, obj: EObject) -> str | None:
        """The stable id of an object of `model` (None for objects that are not)."""
        ids = self._id_table()
        return ids.get(id(obj))

    def _id_table(self) -> dict[int, str]:
        if self._ids is None:
            self.model  # noqa: B018 - makes the ids too
        assert self._ids is not None
        return self._ids

    # ---------------------------------------------------------------- exports

    def xmi_bytes(self) -> bytes:

        return xmi_format.to_bytes(self.model, xmi_format.XmiOptions(id_of=self.id_of))

    def json_bytes(self, indent: int | None = 1) -> bytes:

        return json_format.to_bytes(self.model, json_format.JsonOptions(id_of=self.id_of, indent=indent))

    def ecore_files(self) -> dict[str, bytes]:
        """One ``<package>.ecore`` per root package of the metamodel."""
        return self._lifted().ecore_files()

    def save_xmi(self, directory: Path | str) -> list[Path]:
        """Write the metamodel (``.ecore`` files) and ``<project>.xmi`` into *directory*."""
        files = self.ecore_files()
        files[f"{_file_name(self.name)}.xmi"] = self.xmi_bytes()  # everything made before anything is written

        return atomic.write_files(directory, files)

    def save_json(self, file: Path | str) -> Path:
        """Write the instance model in cfmodel's JSON format."""
        path = Path(file)
        data = self.json_bytes()

        if path.parent != Path():
            path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(path, data)
        return path


def _file_name(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return safe or "model"


def _targets(slot: object) -> list[Instance]:
    if isinstance(slot, ListVar):
        return list(slot.items)
    if isinstance(slot, OptVar):
        return [slot.value] if slot.value is not None else []
    if isinstance(slot, Var) and slot.ready and isinstance(slot.value, Instance):
        return [slot.value]
    return []


def show_full(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(show_full(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show_full(k)}: {show_full(v)}" for k, v in value.items()) + "}"
    return show(value)


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
        from pyecore.ecore import EEnum

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

        Objects and single values are made light when `fastpath.LIGHT` (PyEcore's classes
        and behaviour, less bookkeeping per object: `fastpath.light_class`, one slotted
        holder per value), else by PyEcore's constructor with the serializers' direct
        holder access. Either way the objects are new, so there is nobody to notify, and
        the values were checked against the language's types (the serializers check them
        again before writing). Every object ends as PyEcore's setters (without opposite
        updates; the converter sets both ends itself) would leave it, ``_isset`` included.
        """

        light = fastpath.LIGHT and fastpath.RAW
        metamodel = self.metamodel
        # per entity: its EClass, its light class (None: PyEcore's constructor), and per field
        # (name, kind, feature, how, the feature's light holder class or None)
        kinds: dict[int, tuple[Any, type | None, list[tuple[str, int, Any, str, type | None]]]] = {}
        objects: list[EObject] = []
        light_objects: list[EObject] = []
        by_instance: dict[int, EObject] = {}
        new = object.__new__
        h: Any
        for inst in instances:
            info = inst.info
            entry = kinds.get(id(info))
            if entry is None:
                eclass = metamodel.eclass(info.entity)
                cls = fastpath.light_class(eclass) if light else None
                fields = [
                    (name, k, f, how, fastpath.holder_class(f) if cls is not None and not f.many else None)
                    for name, k, f, how in self.plan(info)
                ]
                entry = kinds[id(info)] = (eclass, cls, fields)
            cls = entry[1]
            if cls is None:
                obj = fastpath.new_object(entry[0])
            else:
                obj = new(cls)
                light_objects.append(obj)
            objects.append(obj)
            by_instance[id(inst)] = obj
        fastpath.register_all(light_objects)  # for EClass.allInstances(), as PyEcore's constructor does

        collection = fastpath.collection
        add_item = fastpath.add_item
        note_inverse = fastpath.note_inverse
        for inst, obj in zip(instances, objects, strict=True):
            slots = inst.slots
            d = obj.__dict__
            # A light object's _isset is made from its holders when first read (adding to a
            # collection reads it); once made, a value set afterwards is noted in it at once,
            # in the order PyEcore's setters would have noted it.
            isset = d.get("_isset")
            for name, kind, feature, how, holder in kinds[id(inst.info)][2]:
                slot = slots.get(name)
                if slot is None:
                    continue
                if kind == ATTR:
                    if not isinstance(slot, Var) or not slot.ready:
                        continue
                    value: Any = slot.value  # a list when the feature is many
                    if value is None or isinstance(value, Unknown):
                        continue
                    if feature.many:
                        items = collection(obj, feature)
                        for item in value:
                            if not isinstance(item, Unknown):
                                add_item(obj, feature, items, _value(feature, item, how))
                        if isset is None:
                            isset = d.get("_isset")
                    elif holder is not None:
                        h = new(holder)
                        h.owner = obj
                        h._value = _value(feature, value, how)
                        d[feature._name] = h
                        if isset is not None:
                            isset[feature] = None
                    else:
                        fastpath.set_attribute(obj, feature, _value(feature, value, how))
                    continue
                targets = _targets(slot)
                if not targets:
                    continue
                one_way = feature.eOpposite is None
                if feature.many:
                    items = collection(obj, feature)
                    containment = feature.containment
                    for target in targets:
                        target_object = by_instance[id(target)]
                        add_item(obj, feature, items, target_object, containment)
                        if one_way:
                            note_inverse(target_object, obj, feature)
                    if isset is None:
                        isset = d.get("_isset")
                    continue
                target_object = by_instance[id(targets[0])]
                if holder is not None and not feature.containment:
                    h = new(holder)
                    h.owner = obj
                    h._value = target_object
                    d[feature._name] = h
                    if isset is not None:
                        isset[feature] = None
                else:  # a containment also gives the target its container, as PyEcore's setter does
                    fastpath.set_reference(obj, feature, target_object, containment=feature.containment)
                    if isset is None:
                        isset = d.get("_isset")
                if one_way:
                    note_inverse(target_object, obj, feature)
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
        return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    if how == "float" and type(value) is int:
        return float(value)
    if how == "enum":
        for literal in feature.eType.eLiterals:
            if literal.literal == value or literal.name == value:
                return literal
    return value


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
