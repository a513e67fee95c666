"""What every serializer shares: the `Document` a reader returns and resource-set helpers.

A `Document` is the in-memory form of one file: its root objects in order, the ids the
file gave them (``xmi:id`` or the JSON ``id``), and the PyEcore `Resource` that holds the
roots inside the caller's (or a fresh) `ResourceSet`. Metamodels are looked up only in
that resource set's own registry, never in PyEcore's process-global one.
"""

from __future__ import annotations

import collections
import itertools
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyecore.ecore import EModelElement, EObject, EPackage
from pyecore.resources import URI, ResourceSet

from cfmodel.serializers import ecorepaths, model

XMI_NS = "http://www.omg.org/XMI"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
ECORE_NS = "http://www.eclipse.org/emf/2002/Ecore"

IdFunction = Callable[[EObject], str | None]


@dataclass
class Document:
    """One file's content: roots in order, their ids, and the resource holding them."""

    roots: list[EObject]
    ids: dict[EObject, str] = field(default_factory=dict)
    resource: Any = None


def local_registry(rset: ResourceSet) -> dict[str, Any]:
    """The resource set's own nsURI → EPackage map (PyEcore chains it to a global one)."""
    reg = rset.metamodel_registry
    maps = getattr(reg, "maps", None)
    local: dict[str, Any] = maps[0] if maps else reg
    return local


def register_packages(rset: ResourceSet, packages: Iterable[EPackage]) -> None:
    """Register packages (and their subpackages) by nsURI in `rset` only."""
    reg = local_registry(rset)
    for pkg in packages:
        reg[pkg.nsURI] = pkg
        register_packages(rset, pkg.eSubpackages)


def attach(rset: ResourceSet | None, source: Path | str, roots: list[EObject], fresh: bool = False) -> Any:
    """Put `roots` into a new resource of `rset` named after `source`.

    `fresh` tells that every root is a new object in no container whose ``dyn_inst`` is
    itself (light objects a reader made): then what ``Resource.append`` does for each is
    done at C speed.
    """
    rs = rset if rset is not None else ResourceSet()
    resource = rs.create_resource(URI(str(source)))
    contents = resource.contents
    if fresh:
        contents.extend(roots)
        collections.deque(
            map(
                operator.setitem,
                map(_OWN_DICT, roots),
                itertools.repeat("_eresource"),
                itertools.repeat(resource),
            ),
            maxlen=0,
        )
        return resource
    itself: dict[type, bool] = {}  # does the class give its objects themselves as dyn_inst?
    for root in roots:
        cls = type(root)
        plain = itself.get(cls)
        if plain is None:
            plain = itself[cls] = type(cls.__dict__.get("dyn_inst")).__name__ == "_Itself"
        if root._container is None and (plain or root.dyn_inst is root):  # what `append` does then
            contents.append(root)
            root.__dict__["_eresource"] = resource
        else:
            resource.append(root)
    return resource


_OWN_DICT = operator.attrgetter("__dict__")


def ncname_id(key: str) -> str:
    """Turn any key (an index key, a name) into a valid, injective XMI id (an NCName).

    Characters other than ASCII letters, digits, ``.`` and ``-`` become ``_xx_`` (hex),
    ``_`` included, so distinct keys never collide; a leading digit, ``.`` or ``-`` gets
    a ``_`` prefix (itself unambiguous, since a literal ``_`` is always escaped).
    """
    body = "".join(c if c.isascii() and (c.isalnum() or c in ".-") else f"_{ord(c):x}_" for c in key)
    return body if body[:1].isalpha() or body[:1] == "_" else f"_{body}"


_ESCAPED = re.compile(r"_([0-9a-f]{1,6})_")


def key_of_ncname(ncname: str) -> str:
    """The key an id made by ``ncname_id`` was most likely made of, for people to read.

    ``ncname_id`` is injective, but a leading ``_`` may be its prefix or an escape: this
    reads it as an escape when it forms one. Use it to show ids, never to match them.
    """
    body = ncname[1:] if ncname.startswith("_") and not _ESCAPED.match(ncname) else ncname
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), body)


def ids_from(id_of: IdFunction | None, objects: Iterable[EObject]) -> dict[EObject, str]:
    """Apply a caller's id function; objects it maps to None get positional paths."""
    if id_of is None:
        return {}
    objects = objects if type(objects) is list else list(objects)
    idents = list(map(id_of, objects))
    if None not in idents:  # every object named (the common case), at C speed
        return dict(zip(objects, idents, strict=True))
    return {obj: ident for obj, ident in zip(objects, idents, strict=True) if ident is not None}


PROXY_KEY = "_cfmodel_proxy_uri"  # on a proxy: the URI of the object it stands for
IDS_KEY = "_cfmodel_ids"  # on a resource a reader made: its objects' ids


def proxy_uri(obj: Any) -> str | None:
    """The URI a proxy stands for (None: not a proxy; see `crossrefs.proxy`)."""
    found = obj.__dict__.get(PROXY_KEY) if hasattr(obj, "__dict__") else None
    return str(found) if found is not None else None


def _metamodel_uri(element: Any) -> str | None:
    """A metamodel element's URI as EMF gives it: the ``.ecore`` file its root package was
    read from, else the root package's nsURI (Ecore's own: ``http://www.eclipse.org/emf/2002/Ecore``),
    and `ecorepaths.document_fragment` (``#//Node/name``, ``#/1/String``)."""
    root = ecorepaths.root_of(element)
    resource = getattr(root, "eResource", None)
    location = getattr(getattr(resource, "uri", None), "plain", None)
    if isinstance(location, str):
        base = "file:" + str(Path(location).absolute()) if ":" not in location[:10] else location
    elif isinstance(root, EPackage) and root.nsURI:
        base = str(root.nsURI)
    else:
        return None
    return f"{base}#{ecorepaths.document_fragment(element)}"


def emf_uri(obj: EObject) -> str | None:
    """EMF's URI of an object in a resource (``file:/abs/doc.xmi#id`` or ``#//@a.0``),
    as ``EcoreUtil.getURI`` gives it; None when it is in no resource with a location."""
    if isinstance(obj, EModelElement):  # an element of a metamodel: EMF's own fragments
        return _metamodel_uri(obj)
    resource = obj.eResource  # a property in PyEcore
    if resource is None or getattr(resource, "uri", None) is None:
        return None
    location = resource.uri.plain
    base = "file:" + str(Path(location).absolute()) if ":" not in location[:10] else location
    ids = resource.__dict__.get(IDS_KEY) or {}
    ident = ids.get(obj) or model.id_attribute_value(obj)
    if ident is not None:
        return f"{base}#{ident}"
    steps: list[str] = []
    current: Any = obj
    while True:
        container = current.eContainer()
        if not isinstance(container, EObject):
            roots = list(resource.contents)
            head = "/" if len(roots) == 1 else f"/{next(i for i, r in enumerate(roots) if r is current)}"
            break
        f = current.eContainmentFeature()
        step = f"@{f.name}"
        if f.many:
            step += f".{list(container.eGet(f)).index(current)}"
        steps.append(step)
        current = container
    return f"{base}#{head}{'/' if steps else ''}{'/'.join(reversed(steps))}"
