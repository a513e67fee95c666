"""References between documents of one resource set, as EMF writes them.

EMF names an object of another document ``other.xmi#//@nodes.3`` or ``other.xmi#id``
(relative to the referring document), ``platform:/resource/project/m.xmi#…`` inside an
Eclipse workspace, or by an absolute URI; an object it cannot load stays a *proxy* that
keeps the URI. After this module, a reader can: tell whether a location names the
document being read (``#id``, ``same.xmi#id``); turn a location into an absolute URI
(``file:/…`` for files, through a map of URI prefixes for ``platform:/`` and the like);
find an object in a document already read into the same resource set; and make a proxy
— an object of the reference's class with no values, marked with its URI
(`proxy_uri`), which the canonical dumps show as EMF does (``proxy:<uri>``).

A document is known to its resource set while it is read (before its own references are
resolved, so documents that refer to each other in a circle are each read once) and as
one of its resources after; nothing here keeps objects alive.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyecore.ecore import EObject
from pyecore.resources import ResourceSet

from cfmodel.serializers import linking
from cfmodel.serializers.base import IDS_KEY, PROXY_KEY, proxy_uri

__all__ = [
    "PROXY_KEY",
    "Documents",
    "documents",
    "local_path",
    "proxy",
    "proxy_uri",
    "resolve_uri",
    "same_document",
]

MAX_NESTED_LOADS = 64  # documents read because one refers to the next, at most this deep


class Documents:
    """The documents of one resource set: those being read (roots and ids, until they are
    attached) and those read before (its resources), by absolute path."""

    def __init__(self, rset: ResourceSet, state: _State) -> None:
        self.rset = rset
        self.state = state

    @staticmethod
    def key(path: str | Path) -> str:
        return os.path.abspath(str(path))

    def add(self, name: str | Path, roots: list[EObject], by_id: Mapping[str, EObject]) -> None:
        """*name* is being read: its references may lead back to it."""
        self.state.loading[self.key(name)] = (roots, by_id)

    def remove(self, name: str | Path) -> None:
        self.state.loading.pop(self.key(name), None)

    def has(self, path: str | Path) -> bool:
        key = self.key(path)
        return key in self.state.loading or key in self.rset.resources

    def find(self, path: str | Path, fragment: str) -> EObject | None:
        key = self.key(path)
        loading = self.state.loading.get(key)
        if loading is not None:
            return linking.Targets(*loading).find(fragment)
        resource = self.rset.resources.get(key)
        if resource is None:
            return None
        targets = resource.__dict__.get(_TARGETS_KEY)
        if targets is None:
            ids = resource.__dict__.get(IDS_KEY) or {}
            by_id = {ident: obj for obj, ident in ids.items()}
            targets = resource.__dict__[_TARGETS_KEY] = linking.Targets(list(resource.contents), by_id)
        found: EObject | None = targets.find(fragment)
        return found

    @property
    def depth(self) -> int:
        return self.state.depth

    @depth.setter
    def depth(self, value: int) -> None:
        self.state.depth = value


class _State:
    __slots__ = ("depth", "loading")

    def __init__(self) -> None:
        self.loading: dict[str, tuple[list[EObject], Mapping[str, EObject]]] = {}
        self.depth = 0


_TARGETS_KEY = "_cfmodel_targets"
_STATES: weakref.WeakKeyDictionary[ResourceSet, _State] = weakref.WeakKeyDictionary()


def documents(rset: ResourceSet) -> Documents:
    state = _STATES.get(rset)
    if state is None:
        state = _STATES[rset] = _State()
    return Documents(rset, state)


def _has_scheme(location: str) -> bool:
    scheme, sep, _ = location.partition(":")
    return (
        bool(sep) and len(scheme) > 1 and scheme.replace("+", "").replace("-", "").replace(".", "").isalnum()
    )


def resolve_uri(document: str | Path, location: str, uri_map: Mapping[str, str] | None = None) -> str:
    """*location* (as written in *document*) as an absolute URI: ``file:/abs/path`` for a
    file, else the mapped or absolute URI as it is."""
    for prefix in sorted(uri_map or {}, key=len, reverse=True):
        if location.startswith(prefix):
            location = (uri_map or {})[prefix] + location[len(prefix) :]
            break
    if location.startswith("file:"):
        return "file:" + os.path.abspath(location[5:].removeprefix("//"))
    if _has_scheme(location):
        return location
    base = os.path.dirname(os.path.abspath(str(document)))
    return "file:" + os.path.normpath(os.path.join(base, location))


def local_path(uri: str) -> Path | None:
    """The file a ``file:`` URI names (None for other schemes)."""
    return Path(uri[5:]) if uri.startswith("file:") else None


def same_document(document: str | Path, location: str) -> bool:
    """Whether *location* names *document* itself (``same.xmi#id`` in ``same.xmi``)."""
    return resolve_uri(document, location) == "file:" + os.path.abspath(str(document))


def proxy(eclass: Any, uri: str) -> EObject:
    """An object of *eclass* standing for ``uri`` (another document's object not read)."""
    obj: EObject = eclass()
    obj.__dict__[PROXY_KEY] = uri
    return obj
