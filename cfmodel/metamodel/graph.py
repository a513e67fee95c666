"""The resource graph metamodel: what gets deployed, as an Ecore package built with PyEcore.

Input: nothing (the classes are built once, at import, as constants).
Output: ``PACKAGE`` (EPackage ``graph``, nsURI ``http://cfmodel.org/graph/1.0``) and one
``EClass``/``EEnum`` constant per concept. Both configuration languages end in this model:
Inmanta's export (resources with ids, attributes and ``requires``) and mgmt's mcl (the
vertices and edges it hands to its engine). The typed Python form that transforms build and
read is ``cfmodel.metamodel.resource_graph`` (``to_ecore``/``from_ecore`` convert).

Classes (every feature listed):

* ``Graph`` ``name``, ``language`` (what produced it: ``cf``, ``mcl``, ``yamlgraph``, ...),
  ``resources`` (``Resource``, in the order they were made), ``edges`` (``Edge``).
* ``Resource`` ``resourceId`` (unique in its graph: Inmanta's ``std::File[host1,path=/etc/motd]``
  or mgmt's ``file[/etc/motd]``), ``kind`` (``std::File``, ``file``), ``name`` (the value that
  identifies it within its kind and agent: a path, a package name), ``key`` (the attribute
  holding ``name``, Inmanta's id attribute; unset when the kind has none), ``agent`` (the host
  or agent that deploys it; unset when the graph has no agents), ``attributes`` and ``meta``
  (``Attribute``: meta parameters such as mgmt's ``noop``/``retry`` or Inmanta's
  ``purge_on_delete``/``send_event``), ``provenance`` (``Provenance``, one per statement that
  declared it: identical duplicates merge into one resource with several).
* ``Attribute`` ``name``, ``value`` (a ``Value``).
* ``Value`` (abstract), typed: ``StringValue``, ``IntegerValue`` (64 bits), ``FloatValue``,
  ``BooleanValue`` (each ``value``), ``NullValue``, ``ListValue`` (``items``), ``MapValue``
  (``entries``: ``MapEntry`` ``key``, ``value``; keys are strings, kept in order).
* ``Edge`` ``kind`` (``EdgeKind``), ``source`` and ``target`` (``Resource``; ``source`` is always
  the one that runs first, whatever the statement's direction), ``sendField`` and ``recvField``
  (only for ``sendrecv``: the sender's field and the receiver's), ``provenance``.
* ``EdgeKind``: the statement that made the edge — ordering ``requires`` (``target`` requires
  ``source``) and ``before`` (``source`` before ``target``); notifying ``notifies`` (``source``
  notifies ``target``) and ``listens`` (``target`` listens to ``source``): the statements
  ``notify``/``listen`` (the literals cannot be named so: PyEcore puts literals on the EEnum
  object, whose ``notify`` method they would shadow); ``sendrecv`` (mgmt's
  send/recv: ``source.sendField -> target.recvField``, which also orders and notifies).
* ``Provenance`` ``file``, ``line``, ``column``, ``endLine``, ``endColumn`` (the source span,
  1-based, end exclusive; unset when unknown), ``producer`` (the instance or program element
  that produced the element, e.g. ``__config__::Web[name=shop]``), ``statement`` (the statement
  that made it, as source text on one line, shortened).

Guarantees: the package is self-contained (Ecore's data types only); nothing is registered in
PyEcore's global registry; every name is one EMF accepts (the tests load the ``.ecore`` and
graphs written as XMI in real EMF with 0 problems).
"""

from __future__ import annotations

from typing import Any

from pyecore.ecore import EBoolean, EDouble, EEnum, EInt, ELong, EPackage, EString

from cfmodel.metamodel.builder import add_attribute, add_class, add_reference

NS_URI = "http://cfmodel.org/graph/1.0"
NS_PREFIX = "graph"

PACKAGE = EPackage("graph", nsURI=NS_URI, nsPrefix=NS_PREFIX)

EdgeKind = EEnum("EdgeKind", literals=["requires", "before", "notifies", "listens", "sendrecv"])
PACKAGE.eClassifiers.append(EdgeKind)


def _eclass(name: str, supers: tuple[Any, ...] = (), abstract: bool = False) -> Any:
    return add_class(PACKAGE, name, supers, abstract)


_attr = add_attribute
_ref = add_reference

# --- provenance ------------------------------------------------------------------------------
Provenance = _eclass("Provenance")
_attr(Provenance, "file", EString)
_attr(Provenance, "line", EInt)
_attr(Provenance, "column", EInt)
_attr(Provenance, "endLine", EInt)
_attr(Provenance, "endColumn", EInt)
_attr(Provenance, "producer", EString)
_attr(Provenance, "statement", EString)

# --- typed values ----------------------------------------------------------------------------
Value = _eclass("Value", abstract=True)
StringValue = _eclass("StringValue", (Value,))
_attr(StringValue, "value", EString)
IntegerValue = _eclass("IntegerValue", (Value,))
_attr(IntegerValue, "value", ELong)
FloatValue = _eclass("FloatValue", (Value,))
_attr(FloatValue, "value", EDouble)
BooleanValue = _eclass("BooleanValue", (Value,))
_attr(BooleanValue, "value", EBoolean)
NullValue = _eclass("NullValue", (Value,))
ListValue = _eclass("ListValue", (Value,))
_ref(ListValue, "items", Value, many=True)
MapEntry = _eclass("MapEntry")
_attr(MapEntry, "key", EString)
_ref(MapEntry, "value", Value)
MapValue = _eclass("MapValue", (Value,))
_ref(MapValue, "entries", MapEntry, many=True)

Attribute = _eclass("Attribute")
_attr(Attribute, "name", EString)
_ref(Attribute, "value", Value)

# --- resources and edges ---------------------------------------------------------------------
Resource = _eclass("Resource")
_attr(Resource, "resourceId", EString)
_attr(Resource, "kind", EString)
_attr(Resource, "name", EString)
_attr(Resource, "key", EString)
_attr(Resource, "agent", EString)
_ref(Resource, "attributes", Attribute, many=True)
_ref(Resource, "meta", Attribute, many=True)
_ref(Resource, "provenance", Provenance, many=True)

Edge = _eclass("Edge")
_attr(Edge, "kind", EdgeKind)
_ref(Edge, "source", Resource, containment=False)
_ref(Edge, "target", Resource, containment=False)
_attr(Edge, "sendField", EString)
_attr(Edge, "recvField", EString)
_ref(Edge, "provenance", Provenance, many=True)

Graph = _eclass("Graph")
_attr(Graph, "name", EString)
_attr(Graph, "language", EString)
_ref(Graph, "resources", Resource, many=True)
_ref(Graph, "edges", Edge, many=True)
