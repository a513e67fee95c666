"""Compat programs: refinement chains, relations filled from several places, conditional
and inherited implementations (the shapes real configuration models have)."""

from __future__ import annotations

from tests.compat.cases import Error, case

# ---------------------------------------------------------------- refinement chains

case(
    "chain_three_levels",
    main="""
entity Service:
    string name
end
entity Process:
    string cmd
end
entity File:
    string path
    string content
end
Service.process [0:1] -- Process.service [1]
Process.files [0:] -- File.process [1]
implementation service_process for Service:
    Process(service=self, cmd="/usr/bin/{{name}}")
end
implementation process_files for Process:
    File(process=self, path="/etc/{{service.name}}.conf", content="cmd={{cmd}}")
    File(process=self, path="/run/{{service.name}}.pid", content="")
end
implement Service using service_process
implement Process using process_files
implement File using std::none
Service(name="web")
Service(name="db")
""",
)

case(
    "chain_five_levels_with_counts",
    main="""
entity L1:
    int n
end
entity L2:
    int n
end
entity L3:
    int n
end
entity L4:
    int n
end
entity L5:
    int n
    string path
end
L1.next [0:] -- L2.prev [1]
L2.next [0:] -- L3.prev [1]
L3.next [0:] -- L4.prev [1]
L4.next [0:] -- L5.prev [1]
implementation i1 for L1:
    L2(prev=self, n=n + 1)
end
implementation i2 for L2:
    L3(prev=self, n=n * 2)
    L3(prev=self, n=n * 2 + 1)
end
implementation i3 for L3:
    L4(prev=self, n=n + 10)
end
implementation i4 for L4:
    L5(prev=self, n=n, path="{{prev.prev.prev.n}}/{{prev.prev.n}}/{{prev.n}}/{{n}}")
end
implement L1 using i1
implement L2 using i2
implement L3 using i3
implement L4 using i4
implement L5 using std::none
L1(n=1)
L1(n=5)
""",
)

case(
    "chain_reads_upstream_relation_sizes",
    main="""
entity Cluster:
    string name
    int size
end
entity Node:
    int idx
    string role = "worker"
end
entity Config:
    string text
end
Cluster.nodes [0:] -- Node.cluster [1]
Cluster.config [0:1] -- Config.cluster [1]
implementation make_nodes for Cluster:
    for i in std::sequence(size):
        Node(cluster=self, idx=i)
    end
end
implementation make_config for Cluster:
    Config(cluster=self, text="{{name}} has {{std::len(nodes)}} nodes")
end
implement Cluster using make_nodes, make_config
implement Node using std::none
implement Config using std::none
Cluster(name="a", size=3)
Cluster(name="b", size=0)
""",
)

case(
    "refinement_adds_to_parent_list",
    main="""
entity Host:
    string name
end
entity Package:
    string name
end
entity Service:
    string name
    string package
end
Host.packages [0:] -- Package.host [1]
Host.services [0:] -- Service.host [1]
implementation service_package for Service:
    Package(host=host, name=package)
end
implement Host using std::none
implement Package using std::none
implement Service using service_package
h = Host(name="h1")
Service(host=h, name="nginx", package="nginx-full")
Service(host=h, name="ssh", package="openssh-server")
Package(host=h, name="vim")
""",
)

case(
    "refinement_reads_value_set_later",
    main="""
entity App:
    string name
    string version
end
entity Artifact:
    string url
end
App.artifact [0:1] -- Artifact.app [1]
implementation fetch for App:
    Artifact(app=self, url="https://repo/{{name}}-{{version}}.tar.gz")
end
implement App using fetch
implement Artifact using std::none
a = App(name="shop")
a.version = v
v = "{{major}}.{{minor}}"
major = 2
minor = 7
""",
)

# ---------------------------------------------------------------- relations filled from several places

case(
    "relation_filled_from_three_places",
    main="""
entity Firewall:
    string name
end
entity Rule:
    int port
    string source
end
Firewall.rules [0:] -- Rule.firewall [1]
entity Service:
    int port
end
Service.firewall [1] -- Firewall
implementation open_port for Service:
    Rule(firewall=firewall, port=port, source="service")
end
implement Firewall using std::none
implement Rule using std::none
implement Service using open_port
fw = Firewall(name="edge")
Rule(firewall=fw, port=22, source="admin")
fw.rules += Rule(port=80, source="append")
Service(firewall=fw, port=443)
Service(firewall=fw, port=8443)
""",
)

case(
    "relation_set_from_both_ends",
    main="""
entity Team:
    string name
end
entity Person:
    string name
end
Team.members [0:] -- Person.teams [0:]
implement Team using std::none
implement Person using std::none
a = Team(name="a")
b = Team(name="b")
p = Person(name="p", teams=[a])
q = Person(name="q")
a.members += q
b.members = [p, q]
""",
)

case(
    "relation_list_assigned_in_pieces",
    main="""
entity Bag:
    string name
end
entity Item:
    int n
end
Bag.items [0:] -- Item
implement Bag using std::none
implement Item using std::none
b = Bag(name="b")
b.items = [Item(n=1), Item(n=2)]
b.items = Item(n=3)
b.items = [Item(n=4)]
""",
)

case(
    "relation_completed_then_counted_in_other_instance",
    main="""
entity Pool:
    string name
end
entity Member:
    string name
end
entity Report:
    string text
end
Pool.members [0:] -- Member.pool [1]
Pool.report [0:1] -- Report.pool [1]
implementation report for Pool:
    Report(pool=self, text="{{name}}:{{std::len(members)}}")
end
implementation join for Member:
    pool.members += self
end
implement Pool using report
implement Member using join
implement Report using std::none
p = Pool(name="p")
for n in ["a", "b", "c"]:
    Member(name=n, pool=p)
end
""",
)

case(
    "relation_double_binding_one_to_one",
    main="""
entity Disk:
    string name
end
entity Mount:
    string path
end
Disk.mount [0:1] -- Mount.disk [0:1]
implement Disk using std::none
implement Mount using std::none
d = Disk(name="sda")
m = Mount(path="/")
d.mount = m
m.disk = d
""",
)

case(
    "relation_same_value_twice_is_fine",
    main="""
entity A:
    string name
end
entity B:
    string name
end
A.b [1] -- B.owners [0:]
implement A using std::none
implement B using std::none
b = B(name="b")
a = A(name="a", b=b)
a.b = b
""",
)

# ---------------------------------------------------------------- conditional implementations on relation values

case(
    "implement_when_relation_attribute",
    main="""
entity Host:
    string name
    string os
end
entity Agent:
    string config
end
Host.agent [0:1] -- Agent.host [1]
implementation linux_agent for Agent:
    self.config = "/etc/agent.conf"
end
implementation windows_agent for Agent:
    self.config = "C:/agent.ini"
end
implement Host using std::none
implement Agent using linux_agent when host.os == "linux"
implement Agent using windows_agent when host.os == "windows"
Agent(host=Host(name="a", os="linux"))
Agent(host=Host(name="b", os="windows"))
""",
)

case(
    "implement_when_relation_is_defined",
    main="""
entity Vm:
    string name
    string state = "standalone"
end
entity Cluster:
    string name
end
Vm.cluster [0:1] -- Cluster.vms [0:]
entity Note:
    string text
end
Vm.notes [0:] -- Note
implementation clustered for Vm:
    self.notes += Note(text="in {{cluster.name}}")
end
implement Vm using std::none
implement Vm using clustered when cluster is defined
implement Cluster using std::none
implement Note using std::none
c = Cluster(name="c1")
Vm(name="a", cluster=c)
Vm(name="b")
""",
)

case(
    "implement_when_relation_count",
    main="""
entity Service:
    string name
end
entity Backend:
    string addr
end
entity Lb:
    string mode
end
Service.backends [0:] -- Backend.service [1]
Service.lb [0:1] -- Lb.service [1]
implementation balanced for Service:
    Lb(service=self, mode="roundrobin")
end
implement Service using std::none
implement Service using balanced when std::len(backends) > 1
implement Backend using std::none
implement Lb using std::none
s1 = Service(name="one")
Backend(service=s1, addr="10.0.0.1")
s2 = Service(name="two")
Backend(service=s2, addr="10.0.0.2")
Backend(service=s2, addr="10.0.0.3")
""",
)

case(
    "implement_when_boolean_attribute_chain",
    main="""
entity Site:
    string name
    bool tls
end
entity Vhost:
    string name
    int port = 80
end
Site.vhosts [0:] -- Vhost.site [1]
entity Cert:
    string cn
end
Vhost.cert [0:1] -- Cert
implementation with_cert for Vhost:
    self.cert = Cert(cn=name)
end
implement Site using std::none
implement Vhost using std::none
implement Vhost using with_cert when site.tls
implement Cert using std::none
a = Site(name="a", tls=true)
b = Site(name="b", tls=false)
Vhost(site=a, name="a.example.com", port=443)
Vhost(site=b, name="b.example.com")
""",
)

case(
    "implement_when_in_list",
    main="""
entity Host:
    string name
    string[] roles
end
entity Tag:
    string v
end
Host.tags [0:] -- Tag
implementation db_tag for Host:
    self.tags += Tag(v="db")
end
implementation web_tag for Host:
    self.tags += Tag(v="web")
end
implement Host using std::none
implement Host using db_tag when "db" in roles
implement Host using web_tag when "web" in roles
implement Tag using std::none
Host(name="a", roles=["db", "web"])
Host(name="b", roles=["web"])
Host(name="c", roles=[])
""",
)

case(
    "implement_when_not_and_or",
    main="""
entity Server:
    string name
    bool public
    int port
end
entity Rule:
    string text
end
Server.rules [0:] -- Rule
implementation allow for Server:
    self.rules += Rule(text="allow {{port}}")
end
implementation deny for Server:
    self.rules += Rule(text="deny all")
end
implement Server using std::none
implement Server using allow when public and (port == 80 or port == 443)
implement Server using deny when not public
implement Rule using std::none
Server(name="a", public=true, port=443)
Server(name="b", public=true, port=22)
Server(name="c", public=false, port=80)
""",
)

# ---------------------------------------------------------------- using parents

case(
    "using_parents_two_levels",
    main="""
entity Base:
    string name
end
entity Mid extends Base:
end
entity Leaf extends Mid:
end
entity Log:
    string line
end
Base.logs [0:] -- Log
implementation base_log for Base:
    self.logs += Log(line="base {{name}}")
end
implementation mid_log for Mid:
    self.logs += Log(line="mid {{name}}")
end
implement Base using base_log
implement Mid using mid_log
implement Mid using parents
implement Leaf using parents
implement Log using std::none
Leaf(name="x")
Mid(name="y")
""",
)

case(
    "using_parents_keeps_conditions",
    main="""
entity Base:
    string name
    bool special
end
entity Child extends Base:
end
entity Log:
    string line
end
Base.logs [0:] -- Log
implementation always for Base:
    self.logs += Log(line="always")
end
implementation special_only for Base:
    self.logs += Log(line="special")
end
implement Base using always
implement Base using special_only when special
implement Child using parents
implement Log using std::none
Child(name="a", special=true)
Child(name="b", special=false)
""",
)

case(
    "using_parents_plus_own",
    main="""
entity Base:
    string name
end
entity Child extends Base:
    int extra
end
entity Log:
    string line
end
Base.logs [0:] -- Log
implementation base_log for Base:
    self.logs += Log(line="base")
end
implementation child_log for Child:
    self.logs += Log(line="child {{extra}}")
end
implement Base using base_log
implement Child using parents, child_log
implement Log using std::none
Child(name="a", extra=3)
""",
)

case(
    "using_parents_without_parent_implementation",
    main="""
entity Base:
    string name
end
entity Child extends Base:
end
implement Child using parents
Child(name="x")
""",
    expect=Error(("no-implementation",), ("RuntimeException",)),
)

# ---------------------------------------------------------------- inheritance and defaults

case(
    "defaults_overridden_down_a_chain",
    main="""
entity A:
    int port = 1
    string proto = "tcp"
    string? label = null
end
entity B extends A:
    int port = 2
end
entity C extends B:
    string proto = "udp"
end
implement A using std::none
implement B using std::none
implement C using std::none
A()
B()
C()
C(port=9, label="x")
""",
)

case(
    "multiple_inheritance_disjoint_attributes",
    main="""
entity Named:
    string name
end
entity Ported:
    int port = 80
end
entity Server extends Named, Ported:
    bool up = true
end
implement Server using std::none
Server(name="a")
Server(name="b", port=8080, up=false)
""",
)

case(
    "multiple_inheritance_incompatible_types",
    main="""
entity Left:
    string mode = "a"
end
entity Right:
    int mode = 1
end
entity Both extends Left, Right:
end
implement Both using std::none
Both()
""",
    expect=Error(("incompatible-attribute", "name-clash"), ("DuplicateException",)),
)

case(
    "multiple_inheritance_diamond_default",
    main="""
entity Base:
    int n = 0
end
entity P1 extends Base:
    int n = 1
end
entity P2 extends Base:
    int n = 2
end
entity C21 extends P2, P1:
end
entity C12 extends P1, P2:
end
entity Own extends P1, P2:
    int n = 3
end
implement C21 using std::none
implement C12 using std::none
implement Own using std::none
C21()
C12()
Own()
""",
)

case(
    "inherited_relation_used_by_child",
    main="""
entity Resource:
    string name
end
entity Requires:
    string what
end
Resource.needs [0:] -- Requires
entity File extends Resource:
    string path
end
entity Service extends Resource:
end
implementation needs_file for Service:
    self.needs += Requires(what="file")
end
implement File using std::none
implement Service using needs_file
implement Requires using std::none
f = File(name="f", path="/x")
s = Service(name="s")
f.needs += Requires(what="dir")
""",
)

case(
    "inheritance_cycle",
    main="""
entity A extends B:
end
entity B extends A:
end
""",
    expect=Error(("inheritance-cycle",), ("CycleException",)),
)

case(
    "undef_removes_parent_default",
    main="""
entity A:
    string mode = "a"
end
entity B extends A:
    string mode = undef
end
implement B using std::none
B()
""",
    expect=Error(("not-set",), ("UnsetException", "MultiException")),
)

case(
    "child_default_used_by_parent_implementation",
    main="""
entity Base:
    string greeting = "hello"
    string out = ""
end
entity Child extends Base:
    string greeting = "hi"
end
entity Line:
    string text
end
Base.lines [0:] -- Line
implementation speak for Base:
    self.lines += Line(text="{{greeting}}!")
end
implement Base using speak
implement Child using parents
implement Line using std::none
Base()
Child()
""",
)

# ---------------------------------------------------------------- errors in refinement

case(
    "implementation_sets_default_attribute",
    main="""
entity Vhost:
    string name
    int port = 80
end
implementation tls for Vhost:
    self.port = 443
end
implement Vhost using tls
Vhost(name="a")
""",
    expect=Error(("double-assignment",), ("AttributeException", "DoubleSetException")),
)

case(
    "two_implementations_set_one_attribute",
    main="""
entity Host:
    string name
    string os
end
implementation a for Host:
    self.os = "linux"
end
implementation b for Host:
    self.os = "bsd"
end
implement Host using a, b
Host(name="h")
""",
    expect=Error(("double-assignment",), ("AttributeException", "DoubleSetException")),
)

case(
    "required_relation_never_set_in_chain",
    main="""
entity Service:
    string name
end
entity Process:
    string cmd
end
Service.process [1] -- Process.service [0:1]
implementation nothing for Service:
end
implement Service using nothing
implement Process using std::none
Service(name="web")
""",
    expect=Error(("not-set", "lower-bound"), ("UnsetException", "MultiException")),
)

case(
    "implementation_for_wrong_entity",
    main="""
entity A:
end
entity B:
end
implementation for_a for A:
end
implement B using for_a
B()
""",
    expect=Error(("implementation-mismatch",), ("TypingException", "Exception", "CompilerException")),
)

case(
    "unknown_implementation",
    main="""
entity A:
end
implement A using nothing_here
A()
""",
    expect=Error(("unknown-implementation",), ("TypeNotFoundException", "NotFoundException")),
)

case(
    "relation_arity_exceeded_by_refinement",
    main="""
entity Host:
    string name
end
entity Ip:
    string addr
end
Host.ip [1] -- Ip.host [0:1]
implementation primary for Host:
    self.ip = Ip(addr="10.0.0.1")
end
implementation secondary for Host:
    self.ip = Ip(addr="10.0.0.2")
end
implement Host using primary, secondary
implement Ip using std::none
Host(name="h")
""",
    expect=Error(
        ("double-assignment", "upper-bound"),
        ("AttributeException", "DoubleSetException", "RuntimeException"),
    ),
)

case(
    "condition_on_unset_attribute",
    main="""
entity Host:
    string name
    string os
end
implementation linux for Host:
end
implement Host using linux when os == "linux"
Host(name="h")
""",
    expect=Error(("not-set",), ("UnsetException", "MultiException", "OptionalValueException")),
)

case(
    "multiple_inheritance_left_default_wins",
    main="""
entity Left:
    string mode = "left"
end
entity Right:
    string mode = "right"
end
entity Both extends Left, Right:
end
entity Other extends Right, Left:
end
implement Both using std::none
implement Other using std::none
Both()
Other()
Both(mode="given")
""",
)

case(
    "multiple_inheritance_left_without_default",
    main="""
entity Left:
    string mode
end
entity Right:
    string mode = "right"
end
entity Both extends Left, Right:
end
implement Both using std::none
Both()
""",
    expect=Error(("not-set",), ("UnsetException", "MultiException")),
)

case(
    "using_parents_multiple_parents",
    main="""
entity Monitored:
    string name
end
entity Backed:
    string name
end
entity Db extends Monitored, Backed:
end
entity Log:
    string line
end
Monitored.logs [0:] -- Log
implementation monitor for Monitored:
    self.logs += Log(line="monitor {{name}}")
end
implementation backup for Backed:
    Log(line="backup {{name}}")
end
implement Monitored using monitor
implement Backed using backup
implement Db using parents
implement Log using std::none
Db(name="pg")
""",
)

case(
    "multiple_inheritance_rule_of_declarations",
    main="""
entity Base:
    string mode = "base"
    int n = 0
end
entity Left extends Base:
end
entity Right:
    string mode = "right"
    int n = 2
end
entity C extends Left, Right:
end
entity A:
    string mode = "a"
end
entity B extends A:
    string mode = "b"
end
entity D extends A, B:
end
entity R:
    string mode = "r"
end
entity E extends R, B:
end
implement C using std::none
implement D using std::none
implement E using std::none
C()
D()
E()
""",
)

case(
    "multiple_inheritance_redeclared_without_default",
    main="""
entity A:
    string mode = "a"
end
entity B extends A:
    string mode
end
implement B using std::none
B()
""",
    expect=Error(("not-set",), ("UnsetException", "MultiException")),
)

case(
    "multiple_inheritance_shared_attribute_in_index_and_relation",
    main="""
entity Named:
    string name
end
entity Labelled:
    string name
    string label = "none"
end
entity Host extends Named, Labelled:
end
index Host(name)
entity Disk:
    string dev
end
Host.disks [0:] -- Disk.host [1]
implementation disk for Host:
    Disk(host=self, dev="{{name}}-sda")
end
implement Host using disk
implement Disk using std::none
Host(name="a")
Host(name="a", label="none")
Host(name="b", label="x")
""",
)
