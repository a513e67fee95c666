"""Compat programs: indexes, queries and selectors, loops over relations, comprehensions,
dict and list operations, string formatting, `is defined` and optional attributes."""

from __future__ import annotations

from tests.compat.cases import Error, case

# ---------------------------------------------------------------- index merges and conflicts

case(
    "index_merge_fills_attributes",
    main="""
entity Host:
    string name
    string os = "linux"
    string? owner = null
end
index Host(name)
implement Host using std::none
Host(name="a")
Host(name="a", os="linux")
Host(name="b", owner="ops")
Host(name="b", owner="ops", os="linux")
""",
)

case(
    "index_merge_from_refinement",
    main="""
entity Host:
    string name
end
index Host(name)
entity Service:
    string name
    string host_name
end
Service.host [1] -- Host.services [0:]
implementation place for Service:
    self.host = Host(name=host_name)
end
implement Host using std::none
implement Service using place
Service(name="web", host_name="h1")
Service(name="db", host_name="h1")
Service(name="cache", host_name="h2")
""",
)

case(
    "index_two_attributes",
    main="""
entity Record:
    string zone
    string name
    string value
end
index Record(zone, name)
implement Record using std::none
Record(zone="a.com", name="www", value="1.1.1.1")
Record(zone="b.com", name="www", value="2.2.2.2")
Record(zone="a.com", name="www", value="1.1.1.1")
x = Record[zone="b.com", name="www"]
Record(zone="a.com", name="mail", value=x.value)
""",
)

case(
    "index_on_relation",
    main="""
entity Host:
    string name
end
index Host(name)
entity Port:
    int number
end
Port.host [1] -- Host.ports [0:]
index Port(host, number)
implement Host using std::none
implement Port using std::none
h = Host(name="h")
Port(host=h, number=22)
Port(host=h, number=22)
Port(host=Host(name="h"), number=80)
p = Port[host=h, number=80]
Port(host=Host(name="other"), number=p.number)
""",
)

case(
    "index_inherited_from_parent",
    main="""
entity Resource:
    string id
end
index Resource(id)
entity File extends Resource:
    string path = "/"
end
implement File using std::none
File(id="f1", path="/a")
File(id="f1", path="/a")
f = Resource[id="f1"]
File(id="f2", path=f.path)
""",
)

case(
    "index_match_then_default_differs",
    main="""
entity Resource:
    string id
end
index Resource(id)
entity File extends Resource:
    string path = "/"
end
implement File using std::none
File(id="f1", path="/a")
File(id="f1")
""",
    expect=Error(("double-assignment",), ("AttributeException", "DoubleSetException")),
)

case(
    "for_over_dict",
    main="""
entity Out:
    string k
end
implement Out using std::none
d = {"a": 1, "b": 2}
for k in d:
    Out(k=k)
end
""",
    expect=Error(("type-error",), ("TypingException",)),
)

case(
    "fstring_with_expression",
    main="""
entity Out:
    string s
end
implement Out using std::none
n = 7
Out(s=f"{n * 2} items")
""",
    expect=Error(("fstring",), ("NotFoundException", "ParserException")),
)

case(
    "index_conflicting_default",
    main="""
entity Host:
    string name
    string os = "linux"
end
index Host(name)
implement Host using std::none
Host(name="a", os="bsd")
Host(name="a")
""",
    expect=Error(("double-assignment",), ("AttributeException", "DoubleSetException")),
)

case(
    "index_key_on_two_entity_types",
    main="""
entity Resource:
    string id
end
index Resource(id)
entity File extends Resource:
end
entity Dir extends Resource:
end
implement File using std::none
implement Dir using std::none
File(id="x")
Dir(id="x")
""",
    expect=Error(("index-conflict", "index-collision"), ("DuplicateException", "RuntimeException")),
)

case(
    "index_lookup_wrong_attribute",
    main="""
entity Host:
    string name
end
index Host(name)
implement Host using std::none
Host(name="a")
x = Host[id="a"]
""",
    expect=Error(("no-index", "bad-query"), ("NotFoundException", "RuntimeException")),
)

case(
    "index_relation_missing_in_constructor",
    main="""
entity Host:
    string name
end
entity Port:
    int number
end
Port.host [1] -- Host.ports [0:]
index Port(host, number)
implement Host using std::none
implement Port using std::none
Port(number=22)
""",
    expect=Error(("index-attribute-missing",), ("IndexAttributeMissingInConstructorException",)),
)

# ---------------------------------------------------------------- queries and selectors over relations

case(
    "selector_on_relation",
    main="""
entity Host:
    string name
end
entity Iface:
    string name
    string ip
end
Host.ifaces [0:] -- Iface.host [1]
index Iface(host, name)
entity Out:
    string ip
end
implement Host using std::none
implement Iface using std::none
implement Out using std::none
h = Host(name="h")
Iface(host=h, name="eth0", ip="10.0.0.1")
Iface(host=h, name="eth1", ip="10.0.0.2")
eth1 = h.ifaces[name="eth1"]
Out(ip=eth1.ip)
""",
)

case(
    "index_query_in_implementation",
    main="""
entity Zone:
    string name
end
index Zone(name)
entity Record:
    string zone_name
    string name
end
Record.zone [1] -- Zone.records [0:]
implementation attach for Record:
    self.zone = Zone[name=zone_name]
end
implement Zone using std::none
implement Record using attach
Record(zone_name="a.com", name="www")
Record(zone_name="a.com", name="mail")
Zone(name="a.com")
""",
)

case(
    "query_waits_for_refinement_to_create",
    main="""
entity Host:
    string name
end
index Host(name)
entity Want:
    string name
end
entity Got:
    string name
end
Got.host [1] -- Host
implementation make for Want:
    Host(name=name)
end
implement Host using std::none
implement Want using make
implement Got using std::none
Got(name="x", host=Host[name="later"])
Want(name="later")
""",
)

case(
    "selector_query_not_found",
    main="""
entity Host:
    string name
end
entity Iface:
    string name
end
Host.ifaces [0:] -- Iface.host [1]
index Iface(host, name)
implement Host using std::none
implement Iface using std::none
h = Host(name="h")
Iface(host=h, name="eth0")
x = h.ifaces[name="eth9"]
""",
    expect=Error(("index-not-found",), ("NotFoundException",)),
)

# ---------------------------------------------------------------- for over relations

case(
    "for_over_relation_creates",
    main="""
entity Host:
    string name
end
entity Disk:
    string dev
end
entity Backup:
    string target
end
Host.disks [0:] -- Disk.host [1]
Disk.backup [0:1] -- Backup.disk [1]
implementation backups for Host:
    for d in disks:
        Backup(disk=d, target="/backup/{{name}}/{{d.dev}}")
    end
end
implement Host using backups
implement Disk using std::none
implement Backup using std::none
h = Host(name="h")
Disk(host=h, dev="sda")
Disk(host=h, dev="sdb")
""",
)

case(
    "for_over_relation_filled_later",
    main="""
entity Group:
    string name
end
entity User:
    string name
end
entity Line:
    string text
end
Group.users [0:] -- User.groups [0:]
Group.lines [0:] -- Line
implement Group using std::none
implement User using std::none
implement Line using std::none
g = Group(name="admins")
for u in g.users:
    g.lines += Line(text="{{g.name}}:{{u.name}}")
end
User(name="ann", groups=[g])
User(name="bob", groups=g)
""",
)

case(
    "for_nested_over_relations",
    main="""
entity Dc:
    string name
end
entity Rack:
    int n
end
entity Server:
    string label
end
Dc.racks [0:] -- Rack.dc [1]
Rack.servers [0:] -- Server.rack [1]
implementation fill for Dc:
    for i in [1, 2]:
        Rack(dc=self, n=i)
    end
end
implementation fill_rack for Rack:
    for i in std::sequence(n):
        Server(rack=self, label="{{dc.name}}-r{{n}}-s{{i}}")
    end
end
implement Dc using fill
implement Rack using fill_rack
implement Server using std::none
Dc(name="east")
""",
)

case(
    "for_over_dict_keys_and_list_of_dicts",
    main="""
entity Out:
    string k
    int v
end
implement Out using std::none
d = {"a": 1, "b": 2}
for item in [{"k": "x", "v": 9}, {"k": "y", "v": 8}]:
    Out(k=item["k"], v=item["v"])
end
""",
)

# ---------------------------------------------------------------- comprehensions

case(
    "comprehension_over_relation",
    main="""
entity Host:
    string name
end
entity Iface:
    string name
    bool up
end
Host.ifaces [0:] -- Iface.host [1]
entity Out:
    string[] names
end
implement Host using std::none
implement Iface using std::none
implement Out using std::none
h = Host(name="h")
Iface(host=h, name="lo", up=true)
Iface(host=h, name="eth0", up=true)
Iface(host=h, name="eth1", up=false)
Out(names=[i.name for i in h.ifaces if i.up])
""",
)

case(
    "comprehension_nested_loops_and_guards",
    main="""
entity Out:
    string[] pairs
    int[] squares
end
implement Out using std::none
Out(
    pairs=["{{a}}{{b}}" for a in ["x", "y"] for b in ["1", "2"] if a != "y" or b != "2"],
    squares=[n * n for n in std::sequence(6) if n % 2 == 0],
)
""",
)

case(
    "comprehension_feeds_constructor_loop",
    main="""
entity Port:
    int n
end
implement Port using std::none
wanted = [p + 8000 for p in [80, 443, 22] if p != 22]
for p in wanted:
    Port(n=p)
end
""",
)

case(
    "comprehension_guard_not_bool",
    main="""
entity Out:
    int[] v
end
implement Out using std::none
Out(v=[n for n in [1, 2] if n])
""",
    expect=Error(("type-error",), ("TypingException", "RuntimeException")),
)

# ---------------------------------------------------------------- dict and list operations

case(
    "dict_lookup_and_nested",
    main="""
entity Out:
    string s
    int n
    dict d
end
implement Out using std::none
cfg = {"db": {"host": "pg", "port": 5432}, "name": "shop"}
Out(s=cfg["db"]["host"], n=cfg["db"]["port"], d=cfg["db"])
Out(s=cfg["name"], n=std::len(["a", "b"]), d={"nested": {"list": [1, 2]}})
""",
)

case(
    "dict_missing_key",
    main="""
entity Out:
    string s
end
implement Out using std::none
cfg = {"a": "x"}
Out(s=cfg["b"])
""",
    expect=Error(("key-error",), ("KeyException", "NotFoundException", "AttributeException")),
)

case(
    "dict_key_is_defined",
    main="""
entity Out:
    bool a
    bool b
end
implement Out using std::none
cfg = {"a": 1}
Out(a=cfg["a"] is defined, b=cfg["b"] is defined)
""",
)

case(
    "list_in_and_not_in",
    main="""
entity Out:
    bool a
    bool b
    bool c
    bool d
end
implement Out using std::none
l = ["web", "db"]
Out(a="web" in l, b="x" in l, c="x" not in l, d="a" in {"a": 1})
""",
)

case(
    "list_attribute_from_relation_values",
    main="""
entity Host:
    string name
end
entity Summary:
    string[] hosts
    int count
end
implement Host using std::none
implement Summary using std::none
entity Env:
    string name
end
Env.hosts [0:] -- Host.env [1]
implement Env using std::none
e = Env(name="prod")
Host(env=e, name="a")
Host(env=e, name="b")
Summary(hosts=[h.name for h in e.hosts], count=std::len(e.hosts))
""",
)

case(
    "list_of_numbers_typed",
    main="""
entity Out:
    int[] ports
    float[] weights
    number[] mixed
end
implement Out using std::none
Out(ports=[80, 443], weights=[0.5, 1.5], mixed=[1, 2.5])
""",
)

case(
    "list_wrong_element_type",
    main="""
entity Out:
    int[] ports
end
implement Out using std::none
Out(ports=[80, "443"])
""",
    expect=Error(("type-error",), ("AttributeException", "RuntimeException", "TypingException")),
)

case(
    "empty_list_and_dict_attributes",
    main="""
entity Out:
    string[] l = []
    dict d = {}
end
implement Out using std::none
Out()
Out(l=["x"])
""",
)

case(
    "std_plugins_on_values",
    main="""
entity Out:
    string s
    string[] parts
    int n
    bool b
end
implement Out using std::none
Out(
    s=std::upper("ab") + "-" + std::lower("CD") + "-" + std::capitalize("ef"),
    parts=std::split("a,b,c", ","),
    n=std::len([1, 2, 3]),
    b=std::unique([1, 1, 2]),
)
Out(s=std::replace("x y", " ", "/"), parts=std::flatten([["a"], ["b", "c"]]), n=std::len(["four"]), b=false)
Out(s=std::replace("a.b.c", ".", "-"), parts=[], n=std::count([true, false, true]), b=std::contains({"k": 1}, "k"))
""",
)

# ---------------------------------------------------------------- string formatting

case(
    "interpolation_of_attributes_and_relations",
    main="""
entity Host:
    string name
    string domain
end
entity Vhost:
    string fqdn
    int port
end
Vhost.host [1] -- Host
entity Out:
    string line
end
implement Host using std::none
implement Vhost using std::none
implement Out using std::none
h = Host(name="web", domain="example.com")
v = Vhost(host=h, fqdn="{{h.name}}.{{h.domain}}", port=8080)
Out(line="server {{v.fqdn}}:{{v.port}} on {{v.host.name}}")
""",
)

case(
    "fstrings_with_format_specs",
    main="""
entity Out:
    string s
end
implement Out using std::none
n = 7
f = 2.5
name = "db"
Out(s=f"{name}-{n:03d}")
Out(s=f"{f:.2f}|{n:>4}|{name!r}")
""",
)

case(
    "interpolation_of_numbers_and_bools",
    main="""
entity Out:
    string s
end
implement Out using std::none
i = 3
f = 2.5
b = true
Out(s="{{i}} {{f}} {{b}}")
""",
)

case(
    "string_concatenation_and_comparison",
    main="""
entity Out:
    string s
    bool lt
end
implement Out using std::none
a = "abc"
Out(s=a + "-" + "def", lt=a == "abc")
""",
)

case(
    "multiline_string",
    main='''
entity Out:
    string s
end
implement Out using std::none
name = "x"
Out(s="""line one
line {{name}}
""")
''',
)

case(
    "interpolation_unknown_variable",
    main="""
entity Out:
    string s
end
implement Out using std::none
Out(s="value: {{nothing}}")
""",
    expect=Error(("undefined",), ("NotFoundException",)),
)

case(
    "string_plus_int",
    main="""
entity Out:
    string s
end
implement Out using std::none
Out(s="port " + 80)
""",
    expect=Error(("type-error",), ("TypingException", "RuntimeException", "AttributeException")),
)

# ---------------------------------------------------------------- is defined and optional attributes

case(
    "optional_attributes_never_set",
    main="""
entity Host:
    string name
    string? description = null
    int? port = null
    string[]? tags = null
end
implement Host using std::none
Host(name="a")
Host(name="b", description="x", port=22, tags=["t"])
""",
)

case(
    "optional_without_default_is_required",
    main="""
entity Host:
    string name
    string? description
end
implement Host using std::none
Host(name="a")
""",
    expect=Error(("not-set",), ("UnsetException", "MultiException")),
)

case(
    "is_defined_on_optional_attribute",
    main="""
entity Host:
    string name
    string? owner = null
    string label = ""
end
implementation describe for Host:
end
implement Host using describe
entity Out:
    string s
end
implement Out using std::none
a = Host(name="a")
b = Host(name="b", owner="ops")
Out(s=a.owner is defined ? "yes" : "no")
Out(s=b.owner is defined ? "yes" : "no")
""",
)

case(
    "is_defined_on_empty_relation",
    main="""
entity Host:
    string name
end
entity Disk:
    string dev
end
Host.disks [0:] -- Disk
entity Out:
    string s
end
implement Host using std::none
implement Disk using std::none
implement Out using std::none
a = Host(name="a")
b = Host(name="b", disks=[Disk(dev="sda")])
Out(s="a:{{a.disks is defined}} b:{{b.disks is defined}}")
""",
)

case(
    "null_to_non_optional",
    main="""
entity Host:
    string name
end
implement Host using std::none
Host(name=null)
""",
    expect=Error(("type-error",), ("AttributeException", "RuntimeException", "TypingException")),
)

case(
    "optional_relation_left_empty",
    main="""
entity Host:
    string name
end
entity Owner:
    string name
end
Host.owner [0:1] -- Owner
entity Out:
    string s
end
implement Host using std::none
implement Owner using std::none
implement Out using std::none
h = Host(name="h")
o = Host(name="o", owner=Owner(name="ops"))
Out(s=h.owner is defined ? h.owner.name : "none")
Out(s=o.owner is defined ? o.owner.name : "none")
""",
)

case(
    "read_null_optional_attribute_of_it",
    main="""
entity Host:
    string name
end
entity Owner:
    string name
end
Host.owner [0:1] -- Owner
implement Host using std::none
implement Owner using std::none
h = Host(name="h")
x = h.owner.name
""",
    expect=Error(("type-error", "no-value", "not-set"), ("OptionalValueException", "RuntimeException")),
)

case(
    "std_len_of_string",
    main="""
entity Out:
    int n
end
implement Out using std::none
Out(n=std::len("four"))
""",
    expect=Error(("plugin-type",), ("PluginTypeException",)),
)
