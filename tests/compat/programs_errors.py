"""Compat programs: cycles and deadlocks, mistakes real models contain (types, arity,
names, plugins), and the language's corners where the two compilers were seen to differ
(nested list literals, whole floats in strings, integers, literal forms)."""

from __future__ import annotations

from tests.compat.cases import MODULE_YML, OK, Differs, Error, case

# ---------------------------------------------------------------- cycles and deadlocks

case(
    "variable_cycle_three",
    main="""
a = c
b = a
c = b
""",
    expect=Error(("deadlock",), ("RuntimeException",)),
)

case(
    "attribute_reads_itself_through_relation",
    main="""
entity Host:
    string name
end
entity Peer:
    string name
end
Host.peer [1] -- Peer.host [1]
implement Host using std::none
implement Peer using std::none
h = Host(name=p.name)
p = Peer(name=h.name, host=h)
""",
    expect=Error(("not-set",), ("UnsetException", "MultiException")),
)

case(
    "condition_waits_on_what_it_makes",
    main="""
entity Host:
    string name
    string kind
end
implementation set_kind for Host:
    self.kind = "web"
end
implement Host using set_kind when kind == "web"
Host(name="h")
""",
    expect=Error(("not-set", "deadlock", "no-implementation"), ("UnsetException", "MultiException")),
)

case(
    "query_for_instance_never_made",
    main="""
entity Host:
    string name
end
index Host(name)
entity Service:
    string name
end
Service.host [1] -- Host
implement Host using std::none
implement Service using std::none
Service(name="s", host=Host[name="missing"])
Host(name="present")
""",
    expect=Error(("index-not-found",), ("NotFoundException", "MultiException")),
)

case(
    "relation_cycle_of_instances_is_fine",
    main="""
entity Node:
    string name
end
Node.next [1] -- Node.prev [1]
implement Node using std::none
a = Node(name="a")
b = Node(name="b", prev=a)
c = Node(name="c", prev=b, next=a)
""",
)

case(
    "two_variables_from_each_other_via_if",
    main="""
x = y == 1 ? 1 : 2
y = x == 1 ? 1 : 2
""",
    expect=Error(("deadlock",), ("RuntimeException",)),
)

case(
    "is_defined_waits_then_decides",
    main="""
entity Host:
    string name
end
entity Disk:
    string dev
end
Host.disks [0:] -- Disk.host [0:1]
entity Out:
    string s
end
implementation add_disk for Host:
    Disk(host=self, dev="sda")
end
implement Host using add_disk when name == "big"
implement Host using std::none
implement Disk using std::none
implement Out using std::none
a = Host(name="big")
b = Host(name="small")
Out(s="{{a.disks is defined}} {{b.disks is defined}}")
""",
)

# ---------------------------------------------------------------- types and values

case(
    "wrong_type_in_implementation",
    main="""
entity Host:
    string name
    int cpus
end
implementation size for Host:
    self.cpus = "four"
end
implement Host using size
Host(name="h")
""",
    expect=Error(("type-error",), ("AttributeException", "RuntimeException")),
)

case(
    "bool_for_int_attribute",
    main="""
entity Host:
    int cpus
end
implement Host using std::none
Host(cpus=true)
""",
    expect=Differs(Error(("type-error",), ()), OK, "A bool is not an int or a number"),
)

case(
    "float_for_int_attribute",
    main="""
entity Host:
    int cpus
end
implement Host using std::none
Host(cpus=1.5)
""",
    expect=Error(("type-error",), ("AttributeException", "RuntimeException")),
)

case(
    "int_for_number_attribute",
    main="""
entity Host:
    number weight
    float share = 0.5
end
implement Host using std::none
Host(weight=3)
Host(weight=2.5, share=1.0)
""",
)

case(
    "list_for_scalar_attribute",
    main="""
entity Host:
    string name
end
implement Host using std::none
Host(name=["a", "b"])
""",
    expect=Error(("type-error",), ("AttributeException", "RuntimeException")),
)

case(
    "scalar_for_list_attribute",
    main="""
entity Host:
    string[] names
end
implement Host using std::none
Host(names="a")
""",
    expect=Error(("type-error",), ("AttributeException", "RuntimeException")),
)

case(
    "typedef_chain_checked",
    main="""
typedef port as int matching self > 0 and self < 65536
typedef high_port as port matching self >= 1024
entity Svc:
    high_port p
end
implement Svc using std::none
Svc(p=8080)
Svc(p=80)
""",
    expect=Error(("typedef",), ("AttributeException", "RuntimeException")),
)

case(
    "typedef_with_plugin_condition",
    main="""
typedef short_name as string matching std::len(std::split(self, ".")) == 1
entity Host:
    short_name name
end
implement Host using std::none
Host(name="web")
Host(name="db")
""",
)

case(
    "typedef_regex_ok",
    main="""
typedef hostname as string matching /^[a-z][a-z0-9-]*$/
entity Host:
    hostname name
    hostname[] aliases = []
end
implement Host using std::none
Host(name="web-1", aliases=["w1", "www"])
""",
)

case(
    "typedef_in_list_fails",
    main="""
typedef hostname as string matching /^[a-z][a-z0-9-]*$/
entity Host:
    hostname[] aliases
end
implement Host using std::none
Host(aliases=["ok", "Not-OK"])
""",
    expect=Error(("typedef",), ("AttributeException", "RuntimeException")),
)

case(
    "arithmetic_on_string",
    main="""
x = "a" - "b"
""",
    expect=Error(("type-error",), ("TypingException", "RuntimeException")),
)

case(
    "comparison_of_string_and_int",
    main="""
x = "a" < 1
""",
    expect=Error(("type-error",), ("TypingException", "RuntimeException")),
)

case(
    "division_by_zero",
    main="""
x = 1 / 0
""",
    # inmanta stops with Python's ZeroDivisionError (no compiler error); cfmodel reports it at the '/'
    expect=Error(("type-error", "arithmetic", "zero-division"), ("ZeroDivisionError",)),
)

case(
    "arithmetic_results",
    main="""
entity Out:
    number n
end
implement Out using std::none
Out(n=7 / 2)
Out(n=8 / 2)
Out(n=-7 % 3)
Out(n=2 ** 10)
Out(n=1.5 * 2)
Out(n=10 - 2.5)
""",
)

case(
    "if_on_non_bool",
    main="""
x = 1
if x:
end
""",
    expect=Error(("type-error",), ("TypingException", "RuntimeException")),
)

case(
    "not_on_non_bool",
    main="""
x = not "a"
""",
    expect=Error(("type-error",), ("TypingException", "RuntimeException")),
)

# ---------------------------------------------------------------- names, arity and plugins

case(
    "unknown_attribute_in_constructor",
    main="""
entity Host:
    string name
end
implement Host using std::none
Host(name="a", nmae="b")
""",
    expect=Error(("unknown-attribute",), ("TypingException", "NotFoundException", "RuntimeException")),
)

case(
    "unknown_attribute_read",
    main="""
entity Host:
    string name
end
implement Host using std::none
h = Host(name="a")
x = h.nmae
""",
    expect=Error(("unknown-attribute",), ("NotFoundException", "RuntimeException")),
)

case(
    "unknown_entity",
    main="""
x = Hots(name="a")
""",
    expect=Error(("unknown-entity",), ("TypeNotFoundException",)),
)

case(
    "unknown_type_of_attribute",
    main="""
entity Host:
    strnig name
end
""",
    expect=Error(("unknown-type",), ("TypeNotFoundException",)),
)

case(
    "duplicate_entity",
    main="""
entity Host:
end
entity Host:
end
""",
    expect=Error(("duplicate-definition",), ("DuplicateException",)),
)

case(
    "duplicate_attribute",
    main="""
entity Host:
    string name
    int name
end
""",
    expect=Error(("duplicate-attribute", "name-clash"), ("DuplicateException",)),
)

case(
    "duplicate_argument_in_constructor",
    main="""
entity Host:
    string name
end
implement Host using std::none
Host(name="a", name="b")
""",
    expect=Error(("duplicate-argument",), ("RuntimeException", "ParserException")),
)

case(
    "unknown_plugin",
    main="""
x = std::nope(1)
""",
    expect=Error(("unknown-plugin",), ("TypeNotFoundException",)),
)

case(
    "plugin_wrong_argument_count",
    main="""
x = std::len([1], [2])
""",
    expect=Error(("plugin-arguments",), ("RuntimeException", "PluginTypeException", "TypingException")),
)

case(
    "missing_import",
    main="""
x = lib::value
""",
    libs__lib__module__yml=MODULE_YML,
    libs__lib__model___init__cf="""
value = 1
""",
    expect=Error(("missing-import",), ("TypeNotFoundException", "NotFoundException")),
)

case(
    "variable_of_imported_module",
    main="""
import lib
import lib::sub
entity Out:
    string s
end
implement Out using std::none
Out(s=lib::value + "-" + lib::sub::other)
""",
    libs__lib__module__yml=MODULE_YML,
    libs__lib__model___init__cf="""
value = "root"
""",
    libs__lib__model__sub__cf="""
other = "sub"
""",
)

case(
    "qualified_name_in_interpolation",
    main="""
import lib
entity Out:
    string s
end
implement Out using std::none
Out(s="{{lib::value}}")
""",
    libs__lib__module__yml=MODULE_YML,
    libs__lib__model___init__cf="""
value = "root"
""",
    expect=Differs(OK, OK, "`{{ns::x}}` interpolates"),
)

case(
    "entity_from_module_refined_there",
    main="""
import web
web::Site(name="shop")
""",
    libs__web__module__yml=MODULE_YML.replace("lib", "web"),
    libs__web__model___init__cf="""
entity Site:
    string name
end
entity Page:
    string path
end
Site.pages [0:] -- Page.site [1]
implementation pages for Site:
    Page(site=self, path="/{{name}}/index.html")
    Page(site=self, path="/{{name}}/about.html")
end
implement Site using pages
implement Page using std::none
""",
)

case(
    "relation_to_entity_in_other_module",
    main="""
import net
entity Host:
    string name
end
Host.ifaces [0:] -- net::Iface.host [1]
implement Host using std::none
h = Host(name="h")
net::Iface(host=h, name="eth0")
""",
    libs__net__module__yml=MODULE_YML.replace("lib", "net"),
    libs__net__model___init__cf="""
entity Iface:
    string name
end
implement Iface using std::none
""",
)

case(
    "upper_bound_via_refinements",
    main="""
entity Host:
    string name
end
entity Ip:
    string addr
end
Host.ips [0:2] -- Ip.host [1]
implementation addrs for Host:
    for i in std::sequence(3):
        Ip(host=self, addr="10.0.0.{{i}}")
    end
end
implement Host using addrs
implement Ip using std::none
Host(name="h")
""",
    expect=Error(("upper-bound",), ("RuntimeException", "AttributeException")),
)

case(
    "lower_bound_by_refinement_met",
    main="""
entity Host:
    string name
end
entity Ip:
    string addr
end
Host.ips [2:] -- Ip.host [1]
implementation addrs for Host:
    for i in std::sequence(2):
        Ip(host=self, addr="10.0.0.{{i}}")
    end
end
implement Host using addrs
implement Ip using std::none
Host(name="h")
""",
)

case(
    "assign_to_attribute_of_non_instance",
    main="""
x = "text"
x.y = 1
""",
    expect=Error(("type-error", "not-an-instance"), ("RuntimeException", "TypingException")),
)

case(
    "constructor_with_wrong_relation_type",
    main="""
entity Host:
    string name
end
entity Disk:
    string dev
end
entity Other:
end
Host.disks [0:] -- Disk
implement Host using std::none
implement Disk using std::none
implement Other using std::none
Host(name="h", disks=[Other()])
""",
    expect=Error(("type-error",), ("AttributeException", "TypingException")),
)

# ---------------------------------------------------------------- corners where the two were seen to differ

case(
    "nested_list_literals_flatten",
    main="""
entity Out:
    int[] v
    bool b
end
implement Out using std::none
inner = [2, 3]
Out(v=[1, inner, [4, [5]]], b=false)
Out(v=[[n for n in [6, 7]], 8], b=1 in [[1], 2])
Out(v=[], b=[1] in [[1], 2])
""",
)

case(
    "nested_list_literal_type_error",
    main="""
entity Out:
    string[] v
end
implement Out using std::none
Out(v=["a", ["b", 1]])
""",
    expect=Error(("type-error",), ("AttributeException", "RuntimeException")),
)

case(
    "whole_floats_in_strings",
    main="""
entity Out:
    string s
end
implement Out using std::none
x = 2.0 * 3
y = 2.5
Out(s="{{x}} {{y}}")
Out(s=f"{x} {y}")
Out(s=f"{x:.1f}")
""",
)

case(
    "integers_past_64_bits",
    main="""
entity Out:
    int n
end
implement Out using std::none
Out(n=9223372036854775807)
Out(n=-9223372036854775807 - 1)
""",
)

case(
    "float_literal_with_exponent",
    main="""
entity Out:
    float f
end
implement Out using std::none
Out(f=1e3)
""",
    expect=Error(("syntax",), ("ParserException",)),
)

case(
    "expression_default",
    main="""
entity Out:
    int n = 1 + 1
end
implement Out using std::none
Out()
""",
    expect=Error(("syntax", "not-constant", "bad-default"), ("ParserException",)),
)

case(
    "typedef_on_dict",
    main="""
typedef config as dict matching self != null
entity Out:
    config c
end
implement Out using std::none
Out(c={"a": 1})
""",
    expect=Differs(OK, Error((), ("ParserException",)), "A typedef may constrain `dict` and `list`"),
)

case(
    "triple_quoted_fstring",
    main='''
entity Out:
    string s
end
implement Out using std::none
n = 1
Out(s=f"""n={n}""")
''',
    expect=Error(("syntax", "fstring"), ("ParserException",)),
)

case(
    "long_expression_chains",
    main="\n".join(
        [
            "entity Out:\n    int n\n    bool b\n    string s\nend\nimplement Out using std::none",
            "Out(n=" + " + ".join(["1"] * 150) + ", b=" + " and ".join(["true"] * 150) + ', s="")',
            "Out(n=0, b="
            + " or ".join(["false"] * 149 + ["true"])
            + ", s="
            + " + ".join(['"a"'] * 150)
            + ")",
        ]
    ),
)
case(
    "relation_copy_chain",
    main="\n".join(
        [
            "entity Item:\n    int n\nend\nimplement Item using std::none",
            "entity Node:\n    int k\nend\nimplement Node using std::none",
            "Node.items [0:] -- Item",
            *(f"n{k} = Node(k={k})" for k in range(401)),
            *(f"n{k + 1}.items = n{k}.items" for k in reversed(range(400))),
            "n0.items = [Item(n=1), Item(n=2)]",
        ]
    ),
)


case(
    "expression_chain_of_1000_terms",
    main="\n".join(
        [
            "entity Out:\n    int n\n    bool b\nend\nimplement Out using std::none",
            "Out(n=" + " + ".join(["1"] * 1000) + ", b=" + " and ".join(["true"] * 1000) + ")",
        ]
    ),
    expect=Differs(OK, Error((), ("RecursionError",)), "Depth is not limited by Python's recursion limit"),
)

case(
    "integer_past_64_bits_in_an_attribute",
    main="""
entity Out:
    int n
end
implement Out using std::none
Out(n=9223372036854775807 + 1)
""",
    expect=Differs(Error(("type-error",), ()), OK, "An `int` attribute holds a 64-bit integer"),
)

case(
    "large_integers_in_expressions_and_strings",
    main="""
entity Out:
    string s
    int n
end
implement Out using std::none
big = 99999999999999999999 * 10
Out(s="{{big}}", n=big - 999999999999999999000)
""",
)

case(
    "plus_on_two_lists",
    main="""
x = [1] + [2]
""",
    expect=Error(("type-error",), ("TypingException",)),
)

case(
    "in_on_a_string",
    main="""
x = "a" in "abc"
""",
    expect=Error(("type-error",), ("TypingException",)),
)

case(
    "lists_joined_by_a_list_literal",
    main="""
entity Out:
    string[] v
end
implement Out using std::none
a = ["x", "y"]
b = ["z"]
Out(v=[a, b, "w"])
""",
)
