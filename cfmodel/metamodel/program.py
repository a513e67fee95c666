"""The program metamodel: the ``.cf`` syntax tree as Ecore (``program.ecore``).

Input: nothing (built once, on import, as constants). Output: ``PACKAGE`` (nsURI
``http://cfmodel.org/program/cf/1.0``) with one `EClass` per node kind of
``cfmodel.grammars.nodes``, and `FIELDS`: for each class, how each field of the node
is held (the table both directions of `cfmodel.transforms.cf.program_model` follow).
``cfmodel parse FILE --format xmi`` writes a file's tree as an instance of it; the
same package is ``cfmodel/metamodel/program.ecore`` (a test keeps the file equal to
the package). The bindings and environments trees have their own metamodels
(`bindings`, `environments`).

Classes (every feature in `FIELDS`):

* ``Node`` (abstract): the source range, ``line``/``column``/``endLine``/``endColumn``
  (1-based, end exclusive; unset for the kinds that have none: ``RelationEnd``,
  ``ComprehensionFor``, ``FormatField``, ``Module``). The file is the ``Module``'s.
* ``Module``: ``file``, ``doc``, ``statements`` (``TopStatement``), ``pragmas``
  (``Pragma``: ``line`` and ``text`` of the file's ``#@ecore`` comments; line 0 is the
  package's).
* ``TopStatement`` (abstract) ← ``Definition`` (``Import``, ``Entity``, ``Relation``,
  ``Implementation``, ``Implement``, ``Typedef``, ``Index``, ``Enum``) and
  ``Statement`` (``Assignment``, ``ExpressionStatement``, ``For``, ``If``, ``Include``).
* ``Expression`` (abstract): ``Literal`` (``value`` as text, ``valueType``: ``string``,
  ``int``, ``float``, ``bool``, ``null``), ``Interpolation`` and ``FString`` (``parts``:
  ``TextPart``, ``ExpressionPart``, ``FormatField``), ``Regex``, ``Reference``,
  ``AttributeAccess``, ``MapLookup``, ``IndexQuery``, ``SelectorQuery``, ``Constructor``,
  ``FunctionCall``, ``ListLiteral``, ``DictLiteral`` (``pairs``: ``DictPair``),
  ``ListComprehension``, ``BinaryOperation``, ``Not``, ``IsDefined``, ``Conditional``.
* ``Name`` (``text``: a name as written, with its own range), ``KeywordArgument``,
  ``ComprehensionFor``, ``IfBranch``, ``TypeRef``, ``Undef``, ``Attribute``,
  ``Multiplicity`` (``lower``, ``upper``: big integers; ``upper`` unset = unbounded),
  ``RelationEnd``.
* A list that may also be absent (an assignment's anonymous block, an ``if``'s ``else``)
  has a flag ``<name>Given``: an empty block and no block differ.

Guarantees: the package is self-contained (only Ecore's data types); nothing is
registered in PyEcore's global registry; every containment is a tree (no node is
shared).
"""

from __future__ import annotations

from typing import Any

from pyecore.ecore import EAttribute, EBigInteger, EBoolean, EInt, EPackage, EString

from cfmodel.metamodel.builder import add_attribute, add_class, add_reference

NS_URI = "http://cfmodel.org/program/cf/1.0"
NS_PREFIX = "program"

PACKAGE = EPackage("program", nsURI=NS_URI, nsPrefix=NS_PREFIX)

# How a node's field is held. Scalars: "text" (EString), "text?" (EString, may be
# unset), "flag" (EBoolean), "number" / "number?" (EBigInteger), "literal" (a literal's
# value: `value` + `valueType`). Children: "one:<Class>", "one?:<Class>" (may be unset),
# "many:<Class>", "many?:<Class>" (may be absent: a `<name>Given` flag), "parts" (text
# and expression parts), "pairs" (a dict literal's key/value pairs), "pragmas" (a file's
# ``#@ecore`` comments: `Pragma`, its ``line`` the line of code it belongs to).
_TABLE: list[tuple[str, str, tuple[tuple[str, str, str], ...]]] = [
    # class, supertype, ((python field, feature, kind), ...)
    ("Name", "Node", (("text", "text", "text"),)),
    ("Literal", "Expression", (("value", "value", "literal"),)),
    ("Interpolation", "Expression", (("parts", "parts", "parts"),)),
    (
        "FormatField",
        "Part",
        (
            ("value", "value", "one:Expression"),
            ("conversion", "conversion", "text?"),
            ("format_spec", "formatSpec", "text"),
        ),
    ),
    ("FString", "Expression", (("parts", "parts", "parts"),)),
    ("Regex", "Expression", (("pattern", "pattern", "text"),)),
    ("Reference", "Expression", (("name", "name", "one:Name"),)),
    ("AttributeAccess", "Expression", (("target", "target", "one:Expression"), ("name", "name", "one:Name"))),
    ("MapLookup", "Expression", (("target", "target", "one:Expression"), ("key", "key", "one:Expression"))),
    ("KeywordArgument", "Node", (("name", "name", "one:Name"), ("value", "value", "one:Expression"))),
    (
        "IndexQuery",
        "Expression",
        (("entity", "entity", "one:Name"), ("arguments", "arguments", "many:KeywordArgument")),
    ),
    (
        "SelectorQuery",
        "Expression",
        (
            ("target", "target", "one:Expression"),
            ("relation", "relation", "one:Name"),
            ("arguments", "arguments", "many:KeywordArgument"),
        ),
    ),
    (
        "Constructor",
        "Expression",
        (
            ("entity", "entity", "one:Name"),
            ("arguments", "arguments", "many:KeywordArgument"),
            ("wrapped_kwargs", "wrappedKwargs", "many:Expression"),
        ),
    ),
    (
        "FunctionCall",
        "Expression",
        (
            ("name", "name", "one:Name"),
            ("positional", "positional", "many:Expression"),
            ("arguments", "arguments", "many:KeywordArgument"),
            ("wrapped_kwargs", "wrappedKwargs", "many:Expression"),
        ),
    ),
    ("ListLiteral", "Expression", (("items", "items", "many:Expression"),)),
    ("DictLiteral", "Expression", (("pairs", "pairs", "pairs"),)),
    (
        "ComprehensionFor",
        "Node",
        (("variable", "variable", "one:Name"), ("iterable", "iterable", "one:Expression")),
    ),
    (
        "ListComprehension",
        "Expression",
        (
            ("value", "value", "one:Expression"),
            ("loops", "loops", "many:ComprehensionFor"),
            ("guards", "guards", "many:Expression"),
        ),
    ),
    (
        "BinaryOperation",
        "Expression",
        (
            ("operator", "operator", "text"),
            ("left", "left", "one:Expression"),
            ("right", "right", "one:Expression"),
        ),
    ),
    ("Not", "Expression", (("operand", "operand", "one:Expression"),)),
    ("IsDefined", "Expression", (("target", "target", "one:Expression"),)),
    (
        "Conditional",
        "Expression",
        (
            ("condition", "condition", "one:Expression"),
            ("then", "then", "one:Expression"),
            ("otherwise", "otherwise", "one:Expression"),
        ),
    ),
    (
        "Assignment",
        "Statement",
        (
            ("target", "target", "one:Expression"),
            ("value", "value", "one:Expression"),
            ("append", "append", "flag"),
            ("anonymous", "anonymous", "many?:Statement"),
        ),
    ),
    (
        "ExpressionStatement",
        "Statement",
        (("value", "value", "one:Expression"), ("anonymous", "anonymous", "many?:Statement")),
    ),
    (
        "For",
        "Statement",
        (
            ("variable", "variable", "one:Name"),
            ("iterable", "iterable", "one:Expression"),
            ("statements", "statements", "many:Statement"),
        ),
    ),
    (
        "IfBranch",
        "Node",
        (("condition", "condition", "one:Expression"), ("statements", "statements", "many:Statement")),
    ),
    (
        "If",
        "Statement",
        (("branches", "branches", "many:IfBranch"), ("else_statements", "elseStatements", "many?:Statement")),
    ),
    ("Include", "Statement", (("implementation", "implementation", "one:Name"),)),
    ("Import", "Definition", (("name", "name", "one:Name"), ("alias", "alias", "one?:Name"))),
    (
        "TypeRef",
        "Node",
        (("name", "name", "one:Name"), ("multi", "multi", "flag"), ("nullable", "nullable", "flag")),
    ),
    ("Undef", "Node", ()),
    (
        "Attribute",
        "Node",
        (("type", "type", "one:TypeRef"), ("name", "name", "one:Name"), ("default", "default", "one?:Node")),
    ),
    (
        "Entity",
        "Definition",
        (
            ("name", "name", "one:Name"),
            ("parents", "parents", "many:Name"),
            ("doc", "doc", "text?"),
            ("attributes", "attributes", "many:Attribute"),
        ),
    ),
    ("Multiplicity", "Node", (("lower", "lower", "number"), ("upper", "upper", "number?"))),
    (
        "RelationEnd",
        "Node",
        (
            ("entity", "entity", "one:Name"),
            ("name", "name", "one?:Name"),
            ("multiplicity", "multiplicity", "one?:Multiplicity"),
        ),
    ),
    (
        "Relation",
        "Definition",
        (
            ("left", "left", "one:RelationEnd"),
            ("right", "right", "one:RelationEnd"),
            ("arrow", "arrow", "text"),
            ("annotations", "annotations", "many:Expression"),
            ("old_syntax", "oldSyntax", "flag"),
            ("doc", "doc", "text?"),
        ),
    ),
    (
        "Implementation",
        "Definition",
        (
            ("name", "name", "one:Name"),
            ("entity", "entity", "one?:Name"),
            ("doc", "doc", "text?"),
            ("statements", "statements", "many:Statement"),
        ),
    ),
    (
        "Implement",
        "Definition",
        (
            ("entity", "entity", "one:Name"),
            ("implementations", "implementations", "many:Name"),
            ("using_parents", "usingParents", "flag"),
            ("condition", "condition", "one?:Expression"),
            ("doc", "doc", "text?"),
        ),
    ),
    (
        "Typedef",
        "Definition",
        (
            ("name", "name", "one:Name"),
            ("base", "base", "one?:Name"),
            ("regex", "regex", "one?:Regex"),
            ("condition", "condition", "one?:Expression"),
            ("constructor", "constructor", "one?:Constructor"),
            ("doc", "doc", "text?"),
        ),
    ),
    ("Index", "Definition", (("entity", "entity", "one:Name"), ("attributes", "attributes", "many:Name"))),
    (
        "Enum",
        "Definition",
        (
            ("name", "name", "one:Name"),
            ("parent", "parent", "one?:Literal"),
            ("values", "values", "many:Literal"),
        ),
    ),
    (
        "Module",
        "Node",
        (
            ("file", "file", "text"),
            ("doc", "doc", "text?"),
            ("statements", "statements", "many:TopStatement"),
            ("pragmas", "pragmas", "pragmas"),
        ),
    ),
]

#: class name -> ((python field, feature, kind), ...) for every concrete node class
FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {name: fields for name, _, fields in _TABLE}
#: the node kinds that have a source range of their own
WITHOUT_SPAN = frozenset({"RelationEnd", "ComprehensionFor", "FormatField", "Module"})

_classes: dict[str, Any] = {}


def _eclass(name: str, supers: tuple[str, ...] = (), abstract: bool = False) -> Any:
    found = add_class(PACKAGE, name, tuple(_classes[s] for s in supers), abstract)
    _classes[name] = found
    return found


def _optional(cls: Any, name: str, etype: Any) -> None:
    cls.eStructuralFeatures.append(EAttribute(name, etype, lower=0, upper=1))


Node = _eclass("Node", abstract=True)
for _name in ("line", "column", "endLine", "endColumn"):
    _optional(Node, _name, EInt)
Expression = _eclass("Expression", ("Node",), abstract=True)
TopStatement = _eclass("TopStatement", ("Node",), abstract=True)
Statement = _eclass("Statement", ("TopStatement",), abstract=True)
Definition = _eclass("Definition", ("TopStatement",), abstract=True)
Part = _eclass("Part", ("Node",), abstract=True)
TextPart = _eclass("TextPart", ("Part",))
add_attribute(TextPart, "text", EString)
ExpressionPart = _eclass("ExpressionPart", ("Part",))
DictPair = _eclass("DictPair", ("Node",))
add_attribute(DictPair, "key", EString)
Pragma = _eclass("Pragma", ("Node",))
add_attribute(Pragma, "text", EString)

for _name, _super, _fields in _TABLE:
    _eclass(_name, (_super,))

add_reference(ExpressionPart, "value", Expression)
add_reference(DictPair, "value", Expression)


def _add_feature(cls: Any, feature: str, kind: str) -> None:
    how, _, type_name = kind.partition(":")
    if how == "literal":
        add_attribute(cls, "value", EString)
        add_attribute(cls, "valueType", EString)
    elif how in ("text", "text?"):
        _optional(cls, feature, EString)
    elif how == "flag":
        add_attribute(cls, feature, EBoolean, default=False)
    elif how in ("number", "number?"):
        _optional(cls, feature, EBigInteger)
    elif how in ("one", "one?"):
        add_reference(cls, feature, _classes[type_name])
    elif how in ("many", "many?"):
        add_reference(cls, feature, _classes[type_name], many=True)
        if how == "many?":
            add_attribute(cls, f"{feature}Given", EBoolean, default=False)
    elif how == "parts":
        add_reference(cls, feature, Part, many=True)
    elif how == "pairs":
        add_reference(cls, feature, DictPair, many=True)
    elif how == "pragmas":
        add_reference(cls, feature, Pragma, many=True)
    else:  # pragma: no cover - a mistake in the table above
        raise AssertionError(f"unknown field kind {kind!r}")


for _name, _super, _fields in _TABLE:
    for _field, _feature, _kind in _fields:
        _add_feature(_classes[_name], _feature, _kind)


def eclass(name: str) -> Any:
    """The EClass of a node kind (``"BinaryOperation"``) or of a helper class."""
    return _classes[name]
