"""EMF's URI fragments for the elements of a metamodel: made and followed.

Input: an element of a PyEcore metamodel (package, classifier, feature, operation,
parameter, type parameter, enum literal, annotation, generic type), or a root package
and a fragment. Output: the fragment EMF's ``EModelElementImpl.eURIFragmentSegment``
gives the element (``//Class/feature``, ``//Class/op.1`` for the second ``op``,
``//Class/%source%`` for an annotation, ``//Class/op/@eGenericType`` for what has no
name), and the element a fragment names (None when it names nothing).

Guarantees: `resolve(root, fragment_of(x)) is x` for every element under *root*; the
containment order of every Ecore class is EMF's own (the order its ``eContents`` and
``.ecore`` files use), so the ``.N`` counts are EMF's.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, unquote

from pyecore.ecore import (
    EAnnotation,
    EClass,
    EEnum,
    EGenericType,
    ENamedElement,
    EOperation,
    EPackage,
    ETypeParameter,
)

# Each Ecore class's containment features, in EMF's order (Ecore.ecore's eAllContainments)
_CONTAINMENTS: list[tuple[type, tuple[str, ...]]] = [
    (EPackage, ("eAnnotations", "eClassifiers", "eSubpackages")),
    (EClass, ("eAnnotations", "eTypeParameters", "eOperations", "eStructuralFeatures", "eGenericSuperTypes")),
    (EEnum, ("eAnnotations", "eTypeParameters", "eLiterals")),
    (EOperation, ("eAnnotations", "eGenericType", "eTypeParameters", "eParameters", "eGenericExceptions")),
    (EAnnotation, ("eAnnotations", "contents")),
    (ETypeParameter, ("eAnnotations", "eBounds")),
    (EGenericType, ("eUpperBound", "eTypeArguments", "eLowerBound")),
]
_DATATYPE_OR_TYPED = {
    "EDataType": ("eAnnotations", "eTypeParameters"),
    "EAttribute": ("eAnnotations", "eGenericType"),
    "EReference": ("eAnnotations", "eGenericType"),
    "EParameter": ("eAnnotations", "eGenericType"),
    "EEnumLiteral": ("eAnnotations",),
}


def containment_features(element: Any) -> tuple[str, ...]:
    """The names of *element*'s containment features, in EMF's order."""
    for kind, names in _CONTAINMENTS:
        if isinstance(element, kind):
            return names
    return _DATATYPE_OR_TYPED.get(type(element).__name__, ("eAnnotations",))


def children(element: Any) -> Iterator[tuple[str, int | None, Any]]:
    """(feature, index or None for a single-valued feature, child) in EMF's order."""
    for name in containment_features(element):
        value = getattr(element, name, None)
        if value is None:
            continue
        if isinstance(value, EGenericType | EAnnotation) or not hasattr(value, "__iter__"):
            yield name, None, value
        else:
            for index, child in enumerate(value):
                yield name, index, child


def segment(parent: Any, feature: str, index: int | None, element: Any) -> str:
    """EMF's fragment segment for *element*, a child of *parent* by *feature*."""
    if isinstance(element, ENamedElement) and element.name is not None:
        return _counted(
            parent, element, lambda x: isinstance(x, ENamedElement) and x.name == element.name
        ) or (_encode(element.name))
    if isinstance(element, EAnnotation) and element.source is not None:
        base = f"%{quote(element.source, safe='')}%"
        count = _count(parent, element, lambda x: isinstance(x, EAnnotation) and x.source == element.source)
        return f"{base}.{count}" if count else base
    return f"@{feature}" if index is None else f"@{feature}.{index}"


def _count(parent: Any, element: Any, same: Any) -> int:
    count = 0
    for _, _, other in children(parent):
        if other is element:
            break
        if same(other):
            count += 1
    return count


def _counted(parent: Any, element: Any, same: Any) -> str | None:
    count = _count(parent, element, same)
    return f"{_encode(element.name)}.{count}" if count else None


def _encode(name: str) -> str:
    # EMF encodes the characters a URI fragment segment cannot hold
    return quote(name, safe="$-_.!~*'()+,;=:@& ") if any(c in name for c in "/%#?") else name


def _parent(element: Any) -> Any:
    """*element*'s container; for PyEcore's own Ecore elements (whose container is the
    ``pyecore.ecore`` module) its Ecore package."""
    parent = element.eContainer()
    if isinstance(parent, types.ModuleType):
        return getattr(parent, "eClass", None)
    return parent


def _container(element: Any) -> tuple[Any, str, int | None] | None:
    parent = _parent(element)
    if parent is None:
        return None
    for feature, index, child in children(parent):
        if child is element:
            return parent, feature, index
    return None


def fragment_of(element: Any) -> str:
    """EMF's fragment of *element* in its root package's file (``//Class/feature``)."""
    parts: list[str] = []
    current = element
    while True:
        found = _container(current)
        if found is None:
            break
        parent, feature, index = found
        parts.append(segment(parent, feature, index, current))
        current = parent
    return "//" + "/".join(reversed(parts))


def root_of(element: Any) -> Any:
    """The outermost container of *element* (its root package)."""
    current = element
    while True:
        parent = _parent(current)
        if parent is None:
            return current
        current = parent


def resolve(root: Any, fragment: str) -> Any:
    """The element *fragment* names under *root* (None: it names nothing)."""
    if not fragment.startswith("//"):
        return None
    current = root
    path = fragment[2:]
    if not path:
        return current
    for part in path.split("/"):
        current = _step(current, part)
        if current is None:
            return None
    return current


def resolve_in(roots: list[Any], fragment: str) -> Any:
    """The element *fragment* names in a file whose root packages are *roots*: ``//X``
    under the first, ``/1/X`` (EMF's fragments in a file of several roots) under the
    second, ``/1`` the second itself; None when it names nothing."""
    if fragment.startswith("//"):
        return resolve(roots[0], fragment) if roots else None
    head, _, rest = fragment[1:].partition("/")
    if not fragment.startswith("/") or not head.isdigit() or int(head) >= len(roots):
        return None
    return resolve(roots[int(head)], "//" + rest)


def document_fragment(element: Any) -> str:
    """EMF's fragment of *element* in the file (resource) its root package is in: `fragment_of`
    when the root is the file's only root, else ``/N/Class/feature`` (root N)."""
    fragment = fragment_of(element)
    root = root_of(element)
    resource = getattr(root, "eResource", None)
    roots = list(resource.contents) if resource is not None else [root]
    if len(roots) < 2:
        return fragment
    index = next((i for i, r in enumerate(roots) if r is root), 0)
    return f"/{index}" + (f"/{fragment[2:]}" if fragment[2:] else "")


def _step(parent: Any, part: str) -> Any:
    if part.startswith("@"):
        feature, _, index = part[1:].partition(".")
        if feature not in containment_features(parent):
            return None
        value = getattr(parent, feature, None)
        if not index:
            return value if isinstance(value, EGenericType | EAnnotation) or value is None else None
        items = list(value or [])
        return items[int(index)] if index.isdigit() and int(index) < len(items) else None
    base, count = part, 0
    head, dot, tail = part.rpartition(".")
    if dot and tail.isdigit():
        base, count = head, int(tail)
    if base.startswith("%") and base.endswith("%") and len(base) > 1:
        source = unquote(base[1:-1])
        matches = [c for _, _, c in children(parent) if isinstance(c, EAnnotation) and c.source == source]
    else:
        name = unquote(base)
        matches = [c for _, _, c in children(parent) if isinstance(c, ENamedElement) and c.name == name]
        if not matches and dot and tail.isdigit():  # a name that ends in .<digits> itself
            whole = unquote(part)
            return next((c for _, _, c in children(parent) if getattr(c, "name", None) == whole), None)
    return matches[count] if count < len(matches) else None


@contextmanager
def quiet(eclass: EClass) -> Iterator[None]:
    """While inside, *eclass* does not hear of changes made to it.

    PyEcore's class reacts to them by changing its Python class: an added operation
    becomes a method compiled from source text made of the operation's and its
    parameters' names (untrusted text in an imported metamodel, and ``from`` is a fine
    Ecore name but no Python one); any removal deletes the Python attribute named like
    the removed element (an annotation has no name: an error). Reordering features,
    replacing annotations and adding operations are done quietly; the Python class keeps
    the attributes its features gave it.
    """
    listeners = eclass._eternal_listener
    eclass._eternal_listener = [listener for listener in listeners if listener is not eclass]
    try:
        yield
    finally:
        eclass._eternal_listener = listeners


def add_operation(eclass: EClass, operation: EOperation) -> None:
    """Append *operation* to *eclass* without PyEcore making code of it (`quiet`)."""
    with quiet(eclass):
        eclass.eOperations.append(operation)
