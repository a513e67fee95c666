"""Cases of what inmanta-core 20.1 accepts that real modules rely on (issue 13's strictness items).

* an attribute named like a relation end its entity inherits hides that end (the ``files``
  module declares a ``requires`` attribute on a resource);
* a constructor given as the value of a relation of an enclosing constructor (or as an item
  of a list literal there, or of an assignment ``x.rel = [...]``) may leave out its index
  relation whose other end that relation is (``fs::JsonFile(values=[fs::JsonObject(...)])``);
* an Unknown value in an index attribute: the instance is made and is in no index table, so
  it matches no other instance and no lookup.
"""

from __future__ import annotations

from tests.compat.cases import OK, Differs, Error, case

HIDING = """
entity B:
end
entity A extends B:
    string other
end
B.other [0:] -- B.back [0:]
implement A using std::none
implement B using std::none
"""

case(
    "attribute_hides_inherited_relation_end",
    main=HIDING
    + """
b = B()
a = A(other="x")
b.other = a
c = B(other=b)
""",
)

case(
    "attribute_hiding_a_relation_end_takes_no_instance",
    main=HIDING + 'a = A(other="x")\na.other = B()\n',
    expect=Error(("type-error",), ("AttributeException",)),
)

case(
    "hidden_relation_end_cannot_be_set_from_the_other_side",
    main=HIDING + 'a = A(other="x")\nb = B()\nb.back = a\n',
    expect=Error(("bad-assignment",), ("AttributeException",)),
)

NESTED = """
entity File:
    string path
end
entity Obj:
    string key
    int n = 0
end
Obj.file [1] -- File.values [0:]
index Obj(file, key)
implement File using std::none
implement Obj using std::none
"""

case(
    "index_relation_from_enclosing_constructor_list",
    main=NESTED + 'File(path="a", values=[Obj(key="k"), Obj(key="l", n=1)])\n',
)

case(
    "index_relation_from_enclosing_constructor_same_key_twice",
    main=NESTED + 'File(path="a", values=[Obj(key="k"), Obj(key="k")])\n',
)

case(
    "index_relation_from_enclosing_constructor_single_then_lookup",
    main=NESTED + 'f = File(path="a", values=Obj(key="k", n=2))\nx = Obj[file=f, key="k"]\nx.n = 2\n',
)

case(
    "index_relation_from_assigned_list",
    main=NESTED + 'f = File(path="a")\nf.values = [Obj(key="k"), Obj(key="l")]\n',
)

case(
    "index_relation_missing_without_enclosing_constructor",
    main=NESTED + 'o = Obj(key="k")\n',
    expect=Error(("index-attribute-missing",), ("IndexAttributeMissingInConstructorException",)),
)

UNKNOWN = """
entity A:
    string name
    int n = 0
end
index A(name)
implement A using std::none
"""

case(
    "unknown_index_attribute_makes_an_instance",
    main=UNKNOWN + 'A(name=std::get_env("CFMODEL_SURELY_UNSET_VARIABLE"))\nA(name="b")\n',
)

case(
    "two_unknown_index_keys_are_two_instances",
    main=UNKNOWN
    + 'A(name=std::get_env("CFMODEL_SURELY_UNSET_VARIABLE"))\n'
    + 'A(name=std::get_env("CFMODEL_SURELY_UNSET_VARIABLE"), n=1)\n',
)

case(
    "unknown_index_key_is_found_by_no_lookup",
    main=UNKNOWN + 'A(name=std::get_env("CFMODEL_SURELY_UNSET_VARIABLE"))\nx = A[name="a"]\n',
    expect=Error(("index-not-found",), ("NotFoundException",)),
)

case(
    "attribute_and_relation_end_of_two_parents",
    main="""
entity A:
    string x
end
entity B:
end
B.x [0:] -- B
entity C extends A, B:
end
implement C using std::none
C(x="a")
""",
    expect=Differs(
        ours=Error(("name-clash",), ()),
        theirs=OK,
        why="Still a `name-clash`: two",
    ),
)
