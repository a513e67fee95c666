"""The derived metamodel the instance model is made of, and a small stand-in for it.

`derived_metamodel(program)` returns what `cfmodel.transforms.lift.lift` returns when
that module exists (its ``eclass``, ``eattribute``, ``ereference`` lookups and its
packages); until then — or for a program lift refuses — a stand-in built here: one
EPackage per module (``http://cfmodel.org/model/<module>``, sub-namespaces as
subpackages), one EClass per entity with its parents as supertypes, one EAttribute per
attribute (``string`` → EString, ``int`` → ELong, ``float``/``number`` → EDouble,
``bool`` → EBoolean, typedefs as their base, enums, ``dict``, ``list`` and ``any`` as
EString holding JSON), one EReference per relation end, with bounds and ``eOpposite``.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from pyecore.ecore import (
    EAttribute,
    EBoolean,
    EClass,
    EDouble,
    ELong,
    EPackage,
    EReference,
    EString,
)

from cfmodel.transforms import program as p

NS_URI = "http://cfmodel.org/model/"


class Metamodel(Protocol):
    """The lookups the compiler needs of a derived metamodel."""

    @property
    def packages(self) -> list[EPackage]: ...

    def eclass(self, entity: p.EntityType) -> EClass: ...

    def eattribute(self, entity: p.EntityType, name: str) -> EAttribute: ...

    def ereference(self, entity: p.EntityType, name: str) -> EReference: ...


def derived_metamodel(program: p.LinkedProgram) -> Metamodel:
    """The program's metamodel: lift's, or the stand-in while lift does not exist."""
    try:
        lift_module: Any = importlib.import_module("cfmodel.transforms.lift")
    except ImportError:
        return StandIn(program)
    lifted: Metamodel = lift_module.lift(program)
    return lifted


_PRIMITIVE_TYPES = {"string": EString, "int": ELong, "float": EDouble, "number": EDouble, "bool": EBoolean}


def _datatype(spec: p.TypeSpec) -> Any:
    base: object = spec.base
    while isinstance(base, p.Typedef):
        base = base.parent if base.parent is not None else base.base
    if isinstance(base, p.Primitive):
        return _PRIMITIVE_TYPES.get(base.name, EString)
    return EString


def json_valued(spec: p.TypeSpec) -> bool:
    """Whether the stand-in stores this attribute's values as JSON text."""
    base: object = spec.base
    while isinstance(base, p.Typedef):
        base = base.parent if base.parent is not None else base.base
    return isinstance(base, p.Primitive) and base.name in ("dict", "list", "any")


class StandIn:
    """A plain derived metamodel (see the module docstring)."""

    def __init__(self, program: p.LinkedProgram) -> None:
        self._packages: dict[str, EPackage] = {}
        self._classes: dict[p.EntityType, EClass] = {}
        self._features: dict[tuple[p.EntityType, str], Any] = {}
        self.roots: list[EPackage] = []
        entities = list(program.entities())
        for entity in entities:
            eclass = EClass(entity.name)
            self._package(entity.namespace.name).eClassifiers.append(eclass)
            self._classes[entity] = eclass
        for entity in entities:
            eclass = self._classes[entity]
            for parent in entity.parents:
                eclass.eSuperTypes.append(self._classes[parent])
            for name, attribute in entity.attributes.items():
                if attribute.overrides is not None:
                    continue
                feature = EAttribute(
                    name,
                    _datatype(attribute.type),
                    upper=-1 if attribute.type.multi else 1,
                    lower=0 if attribute.type.nullable or attribute.type.multi else 1,
                )
                eclass.eStructuralFeatures.append(feature)
                self._features[(entity, name)] = feature
            for name, end in entity.relations.items():
                reference = EReference(
                    name,
                    self._classes[end.target],
                    lower=end.lower,
                    upper=-1 if end.upper is None else end.upper,
                )
                eclass.eStructuralFeatures.append(reference)
                self._features[(entity, name)] = reference
        for entity in entities:
            for name, end in entity.relations.items():
                if end.opposite is not None:
                    self._features[(entity, name)].eOpposite = self._features[(end.target, end.opposite.name)]

    def _package(self, namespace: str) -> EPackage:
        found = self._packages.get(namespace)
        if found is not None:
            return found
        parent_name, _, local = namespace.rpartition("::")
        name = local if local != "__config__" else "config"
        package = EPackage(
            name, nsURI=NS_URI + namespace.replace("::", "/"), nsPrefix=namespace.replace("::", "_")
        )
        if parent_name:
            self._package(parent_name).eSubpackages.append(package)
        else:
            self.roots.append(package)
        self._packages[namespace] = package
        return package

    @property
    def packages(self) -> list[EPackage]:
        return self.roots

    def eclass(self, entity: p.EntityType) -> EClass:
        return self._classes[entity]

    def _feature(self, entity: p.EntityType, name: str) -> Any:
        for owner in entity.mro:
            feature = self._features.get((owner, name))
            if feature is not None:
                return feature
        raise KeyError(f"{entity.qualified_name}.{name}")

    def eattribute(self, entity: p.EntityType, name: str) -> EAttribute:
        feature: EAttribute = self._feature(entity, name)
        return feature

    def ereference(self, entity: p.EntityType, name: str) -> EReference:
        feature: EReference = self._feature(entity, name)
        return feature
