"""The differences metamodel: what ``cfmodel diff`` found, as an Ecore package built with PyEcore.

Input: nothing (the classes are built once, at import, as constants).
Output: ``PACKAGE`` (EPackage ``diff``, nsURI ``http://cfmodel.org/diff/1.0``). The typed
Python form is ``cfmodel.transforms.diff.model.Comparison``; its ``to_ecore()`` makes these
objects (``cfmodel diff --format xmi`` writes them).

Classes (every feature listed):

* ``Comparison`` ``left``, ``right`` (what was compared), ``instances`` and ``resources``
  (``Difference``), ``edges`` (``EdgeDifference``).
* ``ChangeKind``: ``added``, ``removed``, ``changed``.
* ``Difference`` ``change``, ``element`` (the identity: an instance's id, a resource id),
  ``className`` (its class or resource kind), ``attributes`` (``AttributeChange``: ``feature``,
  ``left``, ``right``, each value as JSON text; unset on a side: ``null``), ``relations``
  (``RelationChange``: ``feature``, ``added`` and ``removed`` target identities), ``values``
  (``ValueEntry``: ``name``, ``value`` as JSON text: an added or removed element's values).
* ``EdgeDifference`` ``change`` (added or removed), ``kind`` (the edge kind, with send/recv
  fields), ``source``, ``target`` (resource ids).

Guarantees: self-contained (Ecore's data types only); nothing registered globally; EMF loads
the ``.ecore`` and written comparisons with 0 problems (the tests run it).
"""

from __future__ import annotations

from typing import Any

from pyecore.ecore import EEnum, EPackage, EString

from cfmodel.metamodel.builder import add_attribute, add_class, add_reference

NS_URI = "http://cfmodel.org/diff/1.0"
NS_PREFIX = "diff"

PACKAGE = EPackage("diff", nsURI=NS_URI, nsPrefix=NS_PREFIX)

ChangeKind = EEnum("ChangeKind", literals=["added", "removed", "changed"])
PACKAGE.eClassifiers.append(ChangeKind)


def _eclass(name: str) -> Any:
    return add_class(PACKAGE, name)


_attr = add_attribute
_ref = add_reference

AttributeChange = _eclass("AttributeChange")
_attr(AttributeChange, "feature", EString)
_attr(AttributeChange, "left", EString)
_attr(AttributeChange, "right", EString)

RelationChange = _eclass("RelationChange")
_attr(RelationChange, "feature", EString)
_attr(RelationChange, "added", EString, many=True)
_attr(RelationChange, "removed", EString, many=True)

ValueEntry = _eclass("ValueEntry")
_attr(ValueEntry, "name", EString)
_attr(ValueEntry, "value", EString)

Difference = _eclass("Difference")
_attr(Difference, "change", ChangeKind)
_attr(Difference, "element", EString)
_attr(Difference, "className", EString)
_ref(Difference, "attributes", AttributeChange, many=True)
_ref(Difference, "relations", RelationChange, many=True)
_ref(Difference, "values", ValueEntry, many=True)

EdgeDifference = _eclass("EdgeDifference")
_attr(EdgeDifference, "change", ChangeKind)
_attr(EdgeDifference, "kind", EString)
_attr(EdgeDifference, "source", EString)
_attr(EdgeDifference, "target", EString)

Comparison = _eclass("Comparison")
_attr(Comparison, "left", EString)
_attr(Comparison, "right", EString)
_ref(Comparison, "instances", Difference, many=True)
_ref(Comparison, "resources", Difference, many=True)
_ref(Comparison, "edges", EdgeDifference, many=True)
