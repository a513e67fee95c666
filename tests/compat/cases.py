"""Small projects compiled by both compilers.

Each case: the files of a project (``main.cf``, modules under ``libs/``) and what must
happen: ``OK`` (both succeed and give the same instances), an `Error` naming the
cfmodel error code and the reference compiler's exception class(es) for the same
failure, or `Differs` for a difference on purpose (listed in docs/compiler.md). The
``programs_*.py`` modules add more cases with `case`. Cases stay inside what both implement: no std entities (cfmodel's std module
has its own), plugins that both std modules have, no legacy constructs (constructor
typedefs, enums, anonymous implementations: inmanta-core 20.1 no longer parses them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Error:
    """Both compilers must fail: cfmodel with one of *codes*, inmanta with one of *classes*."""

    codes: tuple[str, ...]
    classes: tuple[str, ...]


@dataclass(frozen=True)
class Differs:
    """A difference on purpose: cfmodel gives *ours*, inmanta *theirs* (each `OK` or an `Error`,
    whose codes count for cfmodel and classes for inmanta). *why* is the text of the bullet of
    docs/compiler.md's "Deviations from inmanta-core 20.1" that explains it."""

    ours: str | Error
    theirs: str | Error
    why: str


OK = "ok"
Case = tuple[dict[str, str], "str | Error | Differs"]

CASES: dict[str, Case] = {}


def case(name: str, expect: str | Error | Differs = OK, **files: str) -> None:
    main = files.pop("main")
    CASES[name] = ({"main.cf": main, **{_path(k): v for k, v in files.items()}}, expect)


def _path(key: str) -> str:
    """``libs__lib__model___init__cf`` → ``libs/lib/model/_init.cf`` (``__`` a slash, the last ``__`` a dot)."""
    head, _, ext = key.rpartition("__")
    return head.replace("__", "/") + "." + ext


# ---------------------------------------------------------------- values and expressions

case(
    "literals_and_expressions",
    main="""
entity Out:
    string s
    int i
    float f
    bool b
    string[] l
    dict d
end
implement Out using std::none

name = "world"
n = 7
values = {"a": 1, "b": 2}
Out(
    s="hello {{name}} {{n}}",
    i=n * 3 + 1 - 2 % 2,
    f=n / 2,
    b=n > 3 and not (n == 8) or false,
    l=[x for x in ["a", "b", "c"] if x != "b"],
    d=values,
)
Out(s=f"{name}-{n}", i=values["b"] ** 3, f=1.5, b="a" in ["a"], l=[], d={})
Out(s=n > 5 ? "big" : "small", i=std::len([1, 2, 3]), f=2.0 * 2, b=3 in [1, 2], l=["x"], d={"k": "v"})
""",
)

case(
    "order_is_by_dependencies",
    main="""
entity Out:
    string v
end
implement Out using std::none
Out(v=c)
c = "{{b}}!"
b = "{{a}}-b"
a = "a"
""",
)

case(
    "if_elif_else",
    main="""
entity Out:
    string v
end
implement Out using std::none
x = 5
if x > 10:
    Out(v="big")
elif x > 3:
    Out(v="medium")
else:
    Out(v="small")
end
if x == 1:
    Out(v="one")
end
""",
)

case(
    "for_over_list_and_sequence",
    main="""
entity Out:
    string v
    int i
end
implement Out using std::none
for name in ["a", "b"]:
    for i in std::sequence(2):
        Out(v=name, i=i)
    end
end
""",
)

case(
    "null_and_nullable",
    main="""
entity Out:
    string? maybe
    string? other = null
    int? n
end
implement Out using std::none
Out(maybe=null, n=3)
Out(maybe="set", other="x", n=null)
""",
)

# ---------------------------------------------------------------- entities and defaults

case(
    "defaults_and_inheritance",
    main="""
entity Base:
    string color = "base"
end
entity Left extends Base:
    string color = "left"
    int size = 1
end
entity Right extends Base:
    string color = "right"
    string shape = "round"
end
entity Both extends Left, Right:
    int size = 2
end
entity Other extends Right, Left:
end
implement Other using std::none
entity Undefined extends Left:
    string color = undef
end
implement Both using std::none
implement Undefined using std::none
Both()
Both(shape="square")
Other()
Undefined(color="chosen")
""",
)

case(
    "constructor_kwargs_dict",
    main="""
entity Out:
    string a
    int b = 0
end
implement Out using std::none
args = {"a": "from dict", "b": 4}
Out(**args)
Out(a="x", **{"b": 5})
""",
)

# ---------------------------------------------------------------- relations

case(
    "double_binding_and_lists",
    main="""
entity Host:
    string name
end
entity File:
    string path
end
entity FileSet:
    string name
end
Host.files [0:] -- File.host [1]
FileSet.files [0:] -- File.sets [0:]
implement Host using std::none
implement File using std::none
implement FileSet using std::none

h1 = Host(name="test")
f1 = File(host=h1, path="/opt/1")
f2 = File(host=h1, path="/opt/2")
f3 = File(path="/opt/3")
f3.host = h1
s1 = FileSet(name="s1")
s1.files = [f1, f2]
s1.files = f3
s1.files = f3
s2 = FileSet(name="s2", files=h1.files)
""",
)

case(
    "unidirectional_relation",
    main="""
entity Service:
    string name
end
entity Port:
    int number
end
Service.ports [1:] -- Port
implement Service using std::none
implement Port using std::none
Service(name="web", ports=[Port(number=80), Port(number=443)])
""",
)

case(
    "relation_complete_before_read",
    main="""
entity Group:
    string name
    int size = 0
end
entity Member:
    string name
end
Group.members [0:] -- Member.group [1]
implement Group using std::none
implement Member using std::none
g = Group(name="g")
n = std::count(g.members)
summary = "{{n}} members"
Member(name="a", group=g)
Member(name="b", group=g)
for i in std::sequence(3):
    Member(name="m{{i}}", group=g)
end
Group(name=summary)
""",
)

case(
    "optional_relation_is_defined",
    main="""
entity Node:
    string name
    string kind = "?"
end
Node.parent [0:1] -- Node.children [0:]
implement Node using std::none
implement Node using describe
implementation describe for Node:
    if parent is defined:
        self.kind = "child"
    else:
        self.kind = "root"
    end
end
root = Node(name="root")
Node(name="leaf", parent=root)
""",
    expect=Error(("double-assignment",), ("DoubleSetException", "AttributeException", "RuntimeException")),
)

case(
    "optional_relation_is_defined_no_default",
    main="""
entity Node:
    string name
    string kind
end
Node.parent [0:1] -- Node.children [0:]
implement Node using describe
implementation describe for Node:
    if parent is defined:
        self.kind = "child of {{parent.name}}"
    else:
        self.kind = "root"
    end
end
root = Node(name="root")
Node(name="leaf", parent=root)
""",
)

# ---------------------------------------------------------------- implementations

case(
    "implement_when_several_apply",
    main="""
entity Server:
    string name
    int port
end
entity Tag:
    string value
end
Server.tags [0:] -- Tag.server [1]
implementation base for Server:
    Tag(server=self, value="server")
end
implementation tls for Server:
    Tag(server=self, value="tls:{{port}}")
end
implementation big for Server:
    Tag(server=self, value="big")
end
implement Server using base
implement Server using tls when port == 443
implement Server using big when port > 100 and name != "c"
implement Tag using std::none
Server(name="a", port=80)
Server(name="b", port=443)
Server(name="c", port=8080)
""",
)

case(
    "implement_when_reads_what_it_adds",
    main="""
entity Server:
    string name
    int port
end
entity Tag:
    string value
end
Server.tags [0:] -- Tag.server [1]
implementation base for Server:
    Tag(server=self, value="server")
end
implementation tls for Server:
    Tag(server=self, value="tls:{{port}}")
end
implementation big for Server:
    Tag(server=self, value="big")
end
implement Server using base
implement Server using tls when port == 443
implement Server using big when std::len(self.tags) > 1
implement Tag using std::none
Server(name="a", port=80)
Server(name="b", port=443)
""",
    expect=Error(("modified-after-freeze",), ("AttributeException", "ModifiedAfterFreezeException")),
)

case(
    "using_parents",
    main="""
entity Base:
    string name
end
entity Child extends Base:
end
entity Note:
    string text
end
Base.notes [0:] -- Note.base [1]
implementation noted for Base:
    Note(base=self, text="noted {{name}}")
end
implementation special for Base:
    Note(base=self, text="special")
end
implement Base using noted
implement Base using special when name == "s"
implement Child using parents
implement Note using std::none
Base(name="b")
Child(name="c")
Child(name="s")
""",
)

case(
    "implementation_sees_attributes",
    main="""
entity Host:
    string name
    string domain = "example.com"
end
entity Record:
    string fqdn
end
Host.records [0:] -- Record.host [1]
implementation dns for Host:
    fqdn = "{{name}}.{{domain}}"
    Record(host=self, fqdn=fqdn)
    Record(host=self, fqdn="www.{{self.name}}.{{domain}}")
end
implement Host using dns
implement Record using std::none
Host(name="web")
""",
)

# ---------------------------------------------------------------- indexes and queries

case(
    "index_returns_existing",
    main="""
entity Host:
    string name
    string os = "linux"
end
index Host(name)
entity File:
    string path
end
Host.files [0:] -- File.host [1]
index File(host, path)
implement Host using std::none
implement File using std::none
a = Host(name="a")
a2 = Host(name="a")
b = Host(name="b", os="bsd")
f = File(host=a, path="/etc/motd")
f2 = File(host=a2, path="/etc/motd")
same = a == a2
q = Host[name="b"]
s = a.files[path="/etc/motd"]
Host(name="q-{{q.os}}-{{same}}", os=s.path)
""",
)

case(
    "index_query_waits",
    main="""
entity Host:
    string name
    string os = "linux"
end
index Host(name)
implement Host using std::none
late = Host[name="late"]
Host(name="copy-of-{{late.name}}", os=late.os)
Host(name="late", os="bsd")
""",
)

case(
    "booleans_in_strings",
    main="""
entity Out:
    string v
end
implement Out using std::none
t = true
n = 3.5
Out(v="{{t}} {{n}}")
""",
)

# ---------------------------------------------------------------- errors

case(
    "double_assignment",
    main="""
var1 = 1
var1 = "test"
""",
    expect=Error(("double-assignment",), ("DoubleSetException",)),
)

case(
    "attribute_set_twice",
    main="""
entity A:
    string name
end
implement A using std::none
a = A(name="x")
a.name = "y"
""",
    expect=Error(("double-assignment",), ("DoubleSetException", "AttributeException")),
)

case(
    "typedef_condition_fails",
    main="""
typedef tcp_port as int matching self > 0 and self < 65536
entity A:
    tcp_port port
end
implement A using std::none
A(port=70000)
""",
    expect=Error(("typedef",), ("RuntimeException", "AttributeException", "TypingException")),
)

case(
    "typedef_regex_fails",
    main="""
typedef mac_addr as string matching /([0-9a-fA-F]{2})(:[0-9a-fA-F]{2}){5}$/
entity A:
    mac_addr mac
end
implement A using std::none
A(mac="00:11:22:33:44:55")
A(mac="not a mac")
""",
    expect=Error(("typedef",), ("RuntimeException", "AttributeException", "TypingException")),
)

case(
    "wrong_type",
    main="""
entity A:
    int n
end
implement A using std::none
A(n="three")
""",
    expect=Error(("type-error",), ("RuntimeException", "AttributeException", "TypingException")),
)

case(
    "int_is_not_a_float",
    main="""
entity A:
    float f
    number n = 1
end
implement A using std::none
A(f=1.5, n=2.5)
A(f=1)
""",
    expect=Error(("type-error",), ("AttributeException", "RuntimeException", "TypingException")),
)

case(
    "attribute_never_set",
    main="""
entity A:
    string name
    string other
end
implement A using std::none
A(name="x")
""",
    expect=Error(("not-set",), ("UnsetException", "MultiException")),
)

case(
    "upper_bound_exceeded",
    main="""
entity A:
    string name
end
entity B:
    string name
end
A.bs [0:2] -- B.a [0:1]
implement A using std::none
implement B using std::none
a = A(name="a")
a.bs = [B(name="1"), B(name="2"), B(name="3")]
""",
    expect=Error(
        ("upper-bound",), ("RuntimeException", "AttributeException", "ModifiedAfterFreezeException")
    ),
)

case(
    "lower_bound_not_met",
    main="""
entity A:
    string name
end
entity B:
    string name
end
A.bs [2:] -- B.a [0:1]
implement A using std::none
implement B using std::none
a = A(name="a")
a.bs = B(name="1")
""",
    expect=Error(("lower-bound",), ("UnsetException", "MultiException")),
)

case(
    "no_implementation",
    main="""
entity A:
    string name
end
A(name="x")
""",
    expect=Error(("no-implementation",), ("RuntimeException",)),
)

case(
    "index_lookup_never_matches",
    main="""
entity Host:
    string name
end
index Host(name)
implement Host using std::none
h = Host[name="nope"]
""",
    expect=Error(("index-not-found",), ("NotFoundException",)),
)

case(
    "index_conflicting_value",
    main="""
entity Host:
    string name
    string os
end
index Host(name)
implement Host using std::none
Host(name="a", os="linux")
Host(name="a", os="bsd")
""",
    expect=Error(("double-assignment",), ("DoubleSetException", "AttributeException")),
)

case(
    "index_attribute_missing",
    main="""
entity Host:
    string name
    string os
end
index Host(name)
implement Host using std::none
Host(os="linux")
""",
    expect=Error(("index-attribute-missing",), ("IndexAttributeMissingInConstructorException",)),
)

case(
    "undefined_variable",
    main="""
x = y
""",
    expect=Error(("undefined",), ("NotFoundException",)),
)

case(
    "cycle_deadlock",
    main="""
a = b
b = a
""",
    expect=Error(("deadlock",), ("RuntimeException",)),
)

# ---------------------------------------------------------------- modules and namespaces

MODULE_YML = "name: lib\nlicense: ASL\nversion: 1.0.0\n"
case(
    "modules_and_namespaces",
    main="""
import lib
import lib::sub as s
entity Out:
    string v
end
implement Out using std::none
Out(v=lib::greeting + " " + s::name + " " + lib::sized)
lib::Thing(name="t", size=s::size)
""",
    libs__lib__module__yml=MODULE_YML,
    libs__lib__model___init__cf="""
greeting = "hi"
entity Thing:
    string name
    int size = 1
end
implement Thing using std::none
sized = "{{greeting}}!"
""",
    libs__lib__model__sub__cf="""
name = "sub"
size = 3
""",
)

# ---------------------------------------------------------------- more interplay

case(
    "conditional_implement_reads_a_complete_relation",
    main="""
entity Group:
    string name
end
entity Member:
    string name
end
entity Badge:
    string text
end
Group.members [0:] -- Member.group [1]
Group.badges [0:] -- Badge.group [1]
implementation big for Group:
    Badge(group=self, text="big {{name}}")
end
implement Group using std::none
implement Group using big when std::count(self.members) > 2
implement Member using std::none
implement Badge using std::none
small = Group(name="small")
large = Group(name="large")
Member(group=small, name="s1")
for i in std::sequence(4):
    Member(group=large, name="l{{i}}")
end
""",
)

case(
    "if_in_implementation_assigns_relations",
    main="""
entity Server:
    string name
    bool public = false
end
entity Rule:
    string port
end
Server.rules [0:] -- Rule
implementation firewall for Server:
    if public:
        self.rules += Rule(port="443")
        self.rules += Rule(port="80")
    else:
        self.rules = Rule(port="22")
    end
    n = std::count(self.rules)
    self.rules += Rule(port="count-{{n}}")
end
implement Server using firewall
implement Rule using std::none
Server(name="a", public=true)
Server(name="b")
""",
)

case(
    "relation_count_after_conditional_adds",
    main="""
entity Server:
    string name
    bool public = false
    int rule_count
end
entity Rule:
    string port
end
Server.rules [0:] -- Rule
implementation firewall for Server:
    if public:
        self.rules += Rule(port="443")
        self.rules += Rule(port="80")
    else:
        self.rules = Rule(port="22")
    end
    self.rule_count = std::count(self.rules)
end
implement Server using firewall
implement Rule using std::none
Server(name="a", public=true)
Server(name="b")
""",
)

case(
    "string_lists_dicts_and_comprehensions",
    main="""
entity Config:
    string name
    string[] lines
    dict settings
end
implement Config using std::none
base = {"port": 80, "tls": false}
names = ["alpha", "beta", "gamma"]
Config(name="all", lines=["{{n}}!" for n in names], settings=base)
Config(name="some", lines=[n for n in names if n != "beta"], settings={"nested": {"a": [1, 2]}})
""",
)

case(
    "assignment_to_relation_of_other_instance",
    main="""
entity Host:
    string name
end
entity Service:
    string name
end
Host.services [0:] -- Service.hosts [0:]
implement Host using std::none
implement Service using std::none
web = Service(name="web")
db = Service(name="db")
for name in ["h1", "h2", "h3"]:
    h = Host(name=name)
    web.hosts += h
    if name != "h2":
        h.services = db
    end
end
n_web = std::count(web.hosts)
n_db = std::count(db.hosts)
Service(name="web has {{n_web}}, db has {{n_db}}")
""",
)

case(
    "null_in_interpolation",
    main="""
entity Text:
    string s
end
implement Text using std::none
x = null
l = [null, "a", 1, true, 1.5]
d = {"k": null, "n": [null]}
Text(s="{{x}}")
Text(s="{{l}}")
Text(s="{{d}}")
Text(s="{{x}}-{{l}}")
Text(s=f"{x}|{d}")
""",
)
