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

Confinement: a reader reads another document only when it lies, after symlinks, inside
the directories it may read (`confined`: the root the reading started from and the
targets of the URI map); a reference to any other file is an error, never a read.

Writing (`Hrefs`): an object outside the document being written is named as EMF names
it, relative to where the document goes: ``b.xmi#id`` or ``../x/b.xmi#//@a.0`` for an
object of another document (one written in the same call, or one a reader put in a
resource), its URI for a proxy (relative when it is a file, as written when it is not:
``platform:/resource/p/b.xmi#x``). Proxies are objects of a subclass of their class's
Python class (`is_proxy_class`), so a writer can tell them apart per class, not per object.
"""

from __future__ import annotations

import os
import urllib.parse
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyecore.ecore import ENamedElement, EObject, EPackage
from pyecore.resources import ResourceSet

from cfmodel.serializers import ecorepaths, linking
from cfmodel.serializers.base import IDS_KEY, PROXY_KEY, emf_uri, proxy_uri

__all__ = [
    "PROXY_KEY",
    "Documents",
    "Hrefs",
    "absolute_uri",
    "confined",
    "documents",
    "is_proxy_class",
    "local_path",
    "proxy",
    "proxy_uri",
    "relative_uri",
    "resolve_uri",
    "same_document",
]

LINE_KEY = "_cfmodel_line"  # on a proxy a reader made: the line of the reference
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
        roots = list(resource.contents)
        if roots and all(isinstance(r, EPackage) for r in roots):  # a metamodel: EMF's own fragments
            found_element: EObject | None = ecorepaths.resolve_in(roots, fragment)
            return found_element
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
    file (percent-escapes decoded), else the mapped or absolute URI as it is."""
    for prefix in sorted(uri_map or {}, key=len, reverse=True):
        if location.startswith(prefix):
            location = (uri_map or {})[prefix] + location[len(prefix) :]
            break
    base = os.path.dirname(os.path.abspath(str(document)))
    if location.startswith("file:"):
        rest = location[5:]
        if rest.startswith("//"):  # file://host/path: only this host's files are files
            host, slash, path = rest[2:].partition("/")
            if host not in ("", "localhost"):
                return location
            rest = slash + path
        return "file:" + os.path.normpath(os.path.join(base, urllib.parse.unquote(rest)))
    if _has_scheme(location):
        return location
    return "file:" + os.path.normpath(os.path.join(base, urllib.parse.unquote(location)))


def absolute_uri(document: str | Path, location: str) -> str:
    """*location* made absolute against *document*, not mapped: what a proxy keeps (EMF's
    proxies keep ``platform:/resource/…`` as written; the map applies when reading)."""
    return (
        location
        if _has_scheme(location) and not location.startswith("file:")
        else resolve_uri(document, location)
    )


def local_path(uri: str) -> Path | None:
    """The file a ``file:`` URI of this host names (None for other schemes and hosts)."""
    return Path(uri[5:]) if uri.startswith("file:") and not uri.startswith("file://") else None


def confined(path: Path, roots: list[Path]) -> bool:
    """Whether *path*, once symlinks are resolved, lies inside one of *roots* (themselves
    resolved)."""
    real = Path(os.path.realpath(path))
    return any(real.is_relative_to(os.path.realpath(root)) for root in roots)


def relative_uri(document: str | Path | None, uri: str) -> str:
    """*uri* as written in *document*: a ``file:`` URI relative to the document's directory
    (path segments percent-escaped as EMF escapes them), any other URI as it is."""
    if document is None or not uri.startswith("file:"):
        return uri
    path, sep, fragment = uri[5:].rpartition("#")  # (the path is unescaped: it may hold a #)
    if not sep:
        path, fragment = fragment, ""
    rel = os.path.relpath(path, os.path.dirname(os.path.abspath(str(document))))
    return urllib.parse.quote(rel.replace(os.sep, "/"), safe="/!$&'()*+,;=:@-._~") + sep + fragment


def same_document(document: str | Path, location: str) -> bool:
    """Whether *location* names *document* itself (``same.xmi#id`` in ``same.xmi``)."""
    return resolve_uri(document, location) == "file:" + os.path.abspath(str(document))


def proxy(eclass: Any, uri: str) -> EObject:
    """An object of *eclass* standing for ``uri`` (another document's object not read)."""
    static = eclass.python_class
    if getattr(static, "_staticEClass", False):
        # PyEcore's own metamodel classes (EClass…): never subclassed (its metaclass would
        # register the subclass as the class's own), made with an empty name
        obj: EObject = static("") if issubclass(static, ENamedElement) else static()
    else:
        obj = proxy_class(eclass)()
    obj.__dict__[PROXY_KEY] = uri
    return obj


_PROXY_CLASS = "_cfmodel_proxy_class"


def proxy_class(eclass: Any) -> type:
    """The Python class of *eclass*'s proxies: a subclass of its objects' class (made once)."""
    cls = eclass.python_class
    found: type | None = cls.__dict__.get(_PROXY_CLASS)
    if found is None:
        found = type(cls.__name__, (cls,), {_PROXY_CLASS: None, "__module__": cls.__module__})
        setattr(cls, _PROXY_CLASS, found)
    return found


def is_proxy_class(cls: type) -> bool:
    """Whether objects of *cls* are proxies (see `proxy_class`)."""
    return _PROXY_CLASS in cls.__dict__ and cls.__dict__[_PROXY_CLASS] is None


class Hrefs:
    """Names objects outside the document written at *location* (None: no file; file
    URIs then stay absolute), as EMF's ``href``s: see the module docstring.

    *placed*: the documents written in the same call, by the identity of each of their
    roots: (their path, a function naming their objects by id or positional fragment).
    Returns None for an object no document holds (a dangling target).
    """

    def __init__(
        self,
        location: str | Path | None,
        placed: Mapping[int, tuple[Path, Any]] | None = None,
    ) -> None:
        self.location = location
        self.placed = placed or {}

    def __call__(self, obj: EObject) -> str | None:
        uri = proxy_uri(obj)
        if uri is None:
            uri = self.placed_uri(obj) if self.placed else None
        if uri is None:
            uri = emf_uri(obj)
        return None if uri is None else relative_uri(self.location, uri)

    def placed_uri(self, obj: EObject) -> str | None:
        root: Any = obj
        while True:
            container = root.eContainer()
            if not isinstance(container, EObject):
                break
            root = container
        found = self.placed.get(id(root))
        if found is None:
            return None
        path, names = found
        return f"file:{os.path.abspath(path)}#{names(obj)}"
