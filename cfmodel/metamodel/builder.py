"""Declaring a fixed metamodel: classes, attributes and references added to an EPackage.

Both fixed metamodels (`bindings`, `environments`) are written as short sequences of
these calls, so they read like the `.ecore` they export.
"""

from __future__ import annotations

from typing import Any

from pyecore.ecore import EAttribute, EClass, EPackage, EReference


def add_class(package: EPackage, name: str, supers: tuple[Any, ...] = (), abstract: bool = False) -> Any:
    cls = EClass(name, superclass=supers, abstract=abstract)
    package.eClassifiers.append(cls)
    return cls


def add_attribute(cls: Any, name: str, etype: Any, many: bool = False, default: Any = None) -> None:
    cls.eStructuralFeatures.append(EAttribute(name, etype, upper=-1 if many else 1, default_value=default))


def add_reference(cls: Any, name: str, etype: Any, many: bool = False, containment: bool = True) -> None:
    cls.eStructuralFeatures.append(EReference(name, etype, upper=-1 if many else 1, containment=containment))
