"""Reading back what was saved: an instance model from XMI or JSON, with its metamodel.

``load_xmi(path)`` and ``load_json(path)`` read a file that cfmodel (``save_xmi``, ``cfmodel
xmi export``, ``cfmodel json export``) or an EMF tool wrote, into a fresh ResourceSet. The
metamodel is read first: by default every ``.ecore`` file beside the model (what an export
writes); or the ``.ecore`` files or folders given as ``metamodel``. After it, a
``SavedModel`` holds the model's objects (every object, roots and contained ones, in file
order), their ids, and the metamodel's packages; ``counts()`` and ``instances(name)`` answer
as a compile result's do, by qualified class name (``web::Server``).

Errors are ``CfModelError``s: ``load`` (no such file, no metamodel beside it), and the
serializers' ``serialization`` errors, each with its position.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyecore.ecore import EObject, EPackage
from pyecore.resources import ResourceSet

from cfmodel.display import InstanceList, attach_displays, html_table, qualified_name, summary_repr
from cfmodel.errors import CfLoadError
from cfmodel.serializers import read
from cfmodel.transforms.cf.ecore_import import read_ecore_files


@dataclass(eq=False)
class SavedModel:
    """An instance model read back from a file (see the module docstring)."""

    path: Path
    objects: list[EObject]
    ids: dict[EObject, str]
    packages: list[EPackage]
    resource_set: ResourceSet = field(repr=False)

    def counts(self) -> dict[str, int]:
        """Objects per class (exact type), by qualified name, sorted by name."""
        found: dict[str, int] = {}
        for obj in self.objects:
            name = qualified_name(obj.eClass)
            found[name] = found.get(name, 0) + 1
        return dict(sorted(found.items()))

    def instances(self, class_name: str) -> InstanceList:
        """The objects of a class (qualified, ``web::Server``, or a plain name) and its subclasses
        (a list that a notebook shows as a table)."""
        return InstanceList((obj for obj in self.objects if _is_a(obj.eClass, class_name)), class_name)

    def __repr__(self) -> str:
        return summary_repr(f"SavedModel {self.path.name}", self.counts())

    def _repr_html_(self) -> str:
        title = f"{self.path.name}: {len(self.objects)} objects"
        return html_table(title, ("class", "objects"), list(self.counts().items()))


def load_xmi(path: str | Path, metamodel: str | Path | Sequence[str | Path] | None = None) -> SavedModel:
    """Read an XMI instance model and its metamodel (see the module docstring).

    Raises:
        CfLoadError: no such file, or no ``.ecore`` beside it and none given.
        CfSerializationError: the metamodel or the model cannot be read.
    """
    return _load(Path(path), metamodel, "xmi")


def load_json(path: str | Path, metamodel: str | Path | Sequence[str | Path] | None = None) -> SavedModel:
    """Read a JSON instance model and its metamodel (see ``load_xmi``)."""
    return _load(Path(path), metamodel, "json")


def _is_a(eclass: Any, name: str) -> bool:
    return any(name in (klass.name, qualified_name(klass)) for klass in [eclass, *eclass.eAllSuperTypes()])


def _load(path: Path, metamodel: str | Path | Sequence[str | Path] | None, fmt: str) -> SavedModel:
    if not path.is_file():
        raise CfLoadError(f"{path}: no such file", None, "load")
    ecore_files = _ecore_files(path, metamodel)
    rset = ResourceSet()
    packages = read_ecore_files(ecore_files, rset)
    attach_displays(packages)
    document = read(path, rset, format=fmt)
    objects = list(_every_object(document.roots))
    return SavedModel(path, objects, dict(document.ids), packages, rset)


def _ecore_files(path: Path, metamodel: str | Path | Sequence[str | Path] | None) -> list[Path]:
    given: Iterable[str | Path]
    if metamodel is None:
        given = [path.parent]
    elif isinstance(metamodel, str | Path):
        given = [metamodel]
    else:
        given = metamodel
    files: list[Path] = []
    for item in map(Path, given):
        files.extend(sorted(item.glob("*.ecore")) if item.is_dir() else [item])
    if not files:
        where = path.parent if metamodel is None else ", ".join(str(m) for m in map(Path, given))
        message = f"{path}: no metamodel: no .ecore file in {where} (give metamodel=...)"
        raise CfLoadError(message, None, "load")
    return files


def _every_object(roots: Iterable[EObject]) -> Iterable[EObject]:
    for root in roots:
        yield root
        yield from root.eAllContents()
