"""Links between objects: naming reference targets on write, setting them on read.

Input (write): the roots and ids of a document. Output: the text that names each
object in a reference, an id or EMF's positional fragment. Input (read): fragments
and ids found in a file. Output: the objects, and references set on PyEcore objects
exactly as the file lists them. Guarantees: both sides of a bidirectional reference end
up set once each (never duplicated, which PyEcore 0.15's JSON reader does), a side the
file left out is added, and PyEcore's inverse-reference index stays right for one-way
references. Shared by the XMI and JSON serializers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyecore.ecore import EAttribute, EObject

from cfmodel.serializers import canonical, model


class Fragments:
    """Names objects for references: the id, else EMF's positional fragment
    (``/1/@files.0`` among several roots, ``//@files.0`` under a single root)."""

    def __init__(self, roots: list[EObject], ids: Mapping[EObject, str]) -> None:
        self.single = len(roots) == 1
        self.ids = ids
        self.root_index = {id(r): i for i, r in enumerate(roots)}
        self.cache: dict[int, str] = {}
        self.positions: dict[tuple[int, str], dict[int, int]] = {}

    def __call__(self, obj: EObject) -> str:
        key = id(obj)
        found = self.cache.get(key)
        if found is None:
            found = self.ids.get(obj) or self.position(obj)
            self.cache[key] = found
        return found

    def position(self, obj: EObject) -> str:
        container = obj.eContainer()
        if not isinstance(container, EObject):
            return "/" if self.single else f"/{self.root_index[id(obj)]}"
        base = self.position(container)
        f = obj.eContainmentFeature()
        step = f"@{f.name}"
        if f.many:
            step += f".{self.index_in(container, f, obj)}"
        return f"{base}/{step}" if base != "/" else f"//{step}"

    def index_in(self, container: EObject, f: Any, obj: EObject) -> int:
        key = (id(container), str(f.name))
        positions = self.positions.get(key)
        if positions is None:
            positions = {id(c): i for i, c in enumerate(container.eGet(f))}
            self.positions[key] = positions
        return positions[id(obj)]


def set_single(obj: EObject, f: Any, value: Any) -> None:
    obj.eGet(f)  # PyEcore creates the value holder on first access
    obj.__dict__[f.name]._set(value, update_opposite=False)


def set_references(obj: EObject, f: Any, targets: list[EObject]) -> None:
    """Set exactly what the file lists; opposites are handled by `_ensure_back`."""
    update = f.eOpposite is None  # keeps PyEcore's inverse-reference index for one-way refs
    if f.many:
        coll = obj.eGet(f)
        for t in targets:
            if not f.unique or t not in coll:
                coll.append(t, update_opposite=update)
    elif targets:
        obj.eGet(f)
        obj.__dict__[f.name]._set(targets[-1], update_opposite=update)


def ensure_back(obj: EObject, f: Any, target: EObject) -> None:
    """Add the other side of a bidirectional reference when the file left it out."""
    opp = f.eOpposite
    if opp.many:
        back = target.eGet(opp)
        if obj not in back:
            back.append(obj, update_opposite=False)
    elif target.eGet(opp) is not obj:
        set_single(target, opp, obj)


class Positions:
    """Resolves EMF positional fragments: ``/``, ``/2``, ``//@a.1/@b``, ``/2/@a.0``."""

    def __init__(self, roots: list[EObject]) -> None:
        self.roots = roots

    def find(self, fragment: str) -> EObject | None:
        parts = fragment.split("/")[1:]
        if not parts or not self.roots:
            return None
        head = parts[0]
        if head == "":
            obj: Any = self.roots[0]
        elif head.isdigit() and int(head) < len(self.roots):
            obj = self.roots[int(head)]
        else:
            return None
        for step in parts[1:]:
            obj = self.step(obj, step)
            if obj is None:
                return None
        return obj if isinstance(obj, EObject) else None

    @staticmethod
    def step(obj: EObject, step: str) -> Any:
        if not step.startswith("@"):
            return None
        name, _, index = step[1:].partition(".")
        f = obj.eClass.findEStructuralFeature(name)
        if f is None:
            return None
        value = obj.eGet(f)
        if not f.many:
            return value
        items = list(value)
        return items[int(index)] if index.isdigit() and int(index) < len(items) else None


class IdAttributes:
    """EMF also identifies objects by their class's iD attribute; built on first use."""

    def __init__(self, roots: list[EObject]) -> None:
        self.roots = roots
        self.table: dict[str, EObject] | None = None

    def find(self, token: str) -> EObject | None:
        if self.table is None:
            self.table = {}
            for obj in canonical.walk(self.roots):
                for f in model.all_features(obj.eClass):
                    if isinstance(f, EAttribute) and f.iD and obj.eIsSet(f):
                        self.table.setdefault(str(obj.eGet(f)), obj)
        return self.table.get(token)


class Targets:
    """Finds the object a reference token names: positional fragment, id, or iD value."""

    def __init__(self, roots: list[EObject], by_id: Mapping[str, EObject]) -> None:
        self.positions = Positions(roots)
        self.id_attributes = IdAttributes(roots)
        self.by_id = by_id

    def find(self, token: str) -> EObject | None:
        if token.startswith("/"):
            return self.positions.find(token)
        return self.by_id.get(token) or self.id_attributes.find(token)
