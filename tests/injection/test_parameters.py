"""``bind parameters``: attribute values for constructor calls that do not give them (issue 5)."""

from __future__ import annotations

from tests.compiler.conftest import Project

HOST = """
entity Base:
    string owner = "ops"
end
entity Host extends Base:
    string name
    string os = "linux"
    int ram = 2
    string? note = null
end
index Host(name)
implement Host using std::none
"""


def compile_with(project: Project, main: str, bindings: str, **kwargs: object) -> str:
    project.write({"main.cf": main, "bindings/default.bind": bindings})
    return project.compile(**kwargs).dump()


def error_with(project: Project, main: str, bindings: str, **kwargs: object) -> str:
    """The error text, with ``{dir}`` for the project's directory (bindings files are named absolutely)."""
    project.write({"main.cf": main, "bindings/default.bind": bindings})
    return project.error(**kwargs).replace(str(project.root), "{dir}")


def test_bound_values_come_after_the_call_and_before_the_defaults(project: Project) -> None:
    bindings = "bindings default {\n  bind parameters Host to { os => 'bsd', note => 'bound' }\n}\n"
    main = HOST + 'Host(name="a")\nHost(name="b", os="plan9")\n'
    assert compile_with(project, main, bindings) == (
        "#0 __config__::Host\n"
        '  name = "a"\n  note = "bound"\n  os = "bsd"\n  owner = "ops"\n  ram = 2\n'
        "#1 __config__::Host\n"
        '  name = "b"\n  note = "bound"\n  os = "plan9"\n  owner = "ops"\n  ram = 2\n'
    )


def test_an_instance_key_binding_beats_the_entitys(project: Project) -> None:
    bindings = (
        "bindings default {\n"
        "  bind parameters Host to { ram => 4 }\n"
        "  bind parameters Host['db'] to { ram => 64, os => 'bsd' }\n"
        "}\n"
    )
    main = HOST + 'Host(name="web")\nHost(name="db")\nHost(name="db", ram=64)\n'
    assert compile_with(project, main, bindings) == (
        '#0 __config__::Host\n  name = "web"\n  note = null\n  os = "linux"\n  owner = "ops"\n  ram = 4\n'
        '#1 __config__::Host\n  name = "db"\n  note = null\n  os = "bsd"\n  owner = "ops"\n  ram = 64\n'
    )


def test_keys_of_numbers_and_of_inherited_indexes(project: Project) -> None:
    main = """
entity Service:
    int port
    string proto = "tcp"
end
index Service(port)
entity Web extends Service:
    string name = "web"
end
implement Service using std::none
implement Web using std::none
Service(port=53)
Web(port=443)
"""
    bindings = (
        "bindings default {\n"
        "  bind parameters Service[53] to { proto => 'udp' }\n"
        "  bind parameters Web[443] to { name => 'tls' }\n"
        "}\n"
    )
    assert compile_with(project, main, bindings) == (
        '#0 __config__::Service\n  port = 53\n  proto = "udp"\n'
        '#1 __config__::Web\n  name = "tls"\n  port = 443\n  proto = "tcp"\n'
    )


def test_a_parents_bindings_apply_to_its_children_after_their_own(project: Project) -> None:
    bindings = (
        "bindings default {\n"
        "  bind parameters Base to { owner => 'base' }\n"
        "  bind parameters __config__::Host['a'] to { owner => 'a-owner' }\n"
        "}\n"
    )
    main = HOST + 'Host(name="a")\nHost(name="b")\n'
    assert compile_with(project, main, bindings) == (
        '#0 __config__::Host\n  name = "a"\n  note = null\n  os = "linux"\n  owner = "a-owner"\n  ram = 2\n'
        '#1 __config__::Host\n  name = "b"\n  note = null\n  os = "linux"\n  owner = "base"\n  ram = 2\n'
    )


def test_presets_and_dict_arguments_are_given_by_the_call(project: Project) -> None:
    main = HOST + (
        'typedef BigHost as Host(ram=32)\nBigHost(name="big")\nHost(name="d", **{"os": "dict-os"})\n'
    )
    bindings = "bindings default {\n  bind parameters Host to { ram => 4, os => 'bsd' }\n}\n"
    assert compile_with(project, main, bindings) == (
        '#0 __config__::Host\n  name = "big"\n  note = null\n  os = "bsd"\n  owner = "ops"\n  ram = 32\n'
        '#1 __config__::Host\n  name = "d"\n  note = null\n  os = "dict-os"\n  owner = "ops"\n  ram = 4\n'
    )


def test_an_index_attribute_may_come_from_the_bindings(project: Project) -> None:
    main = HOST + "Host()\n"
    bindings = (
        "bindings default {\n"
        "  bind parameters Host to { name => 'only' }\n"
        "  bind parameters Host['only'] to { ram => 8 }\n"
        "}\n"
    )
    assert compile_with(project, main, bindings) == (
        '#0 __config__::Host\n  name = "only"\n  note = null\n  os = "linux"\n  owner = "ops"\n  ram = 8\n'
    )


def test_a_modules_entity(project: Project) -> None:
    project.module(
        "web",
        {
            "model/_init.cf": (
                "entity Server:\n    string name\n    int workers = 1\nend\n"
                "implement Server using std::none\n"
            )
        },
    )
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    main = 'import web\nweb::Server(name="s")\n'
    bindings = "bindings default {\n  bind parameters web::Server to { workers => 8 }\n}\n"
    assert compile_with(project, main, bindings) == '#0 web::Server\n  name = "s"\n  workers = 8\n'


def test_categories_from_the_requests_facts(project: Project) -> None:
    project.write({"site.bind": 'site {\n  categories {\n    role => "$::role"\n  }\n}\n'})
    bindings = (
        "bindings default {\n"
        "  bind parameters Host to { ram => 4 }\n"
        "  when role 'db' { bind parameters Host to { ram => 64 } }\n"
        "}\n"
    )
    main = HOST + 'Host(name="h")\n'
    assert "ram = 64" in compile_with(project, main, bindings, facts={"role": "db"})
    assert "ram = 4" in compile_with(project, main, bindings, facts={"role": "web"})
    assert "ram = 4" in compile_with(project, main, bindings)


def test_lists_and_dicts_are_copies(project: Project) -> None:
    main = """
entity Box:
    string name
    string[] tags
    dict meta
end
implement Box using std::none
a = Box(name="a")
b = Box(name="b")
same = a.tags == b.tags
"""
    bindings = "bindings default {\n  bind parameters Box to { tags => ['x'], meta => { 'k' => 1 } }\n}\n"
    project.write({"main.cf": main, "bindings/default.bind": bindings})
    boxes = project.compile().raw_instances
    tags = [getattr(box.slots["tags"], "value", None) for box in boxes]
    assert tags == [["x"], ["x"]] and tags[0] is not tags[1]


# ---------------------------------------------------------------------- errors


def test_a_bound_value_of_the_wrong_type_is_reported_at_the_binding(project: Project) -> None:
    bindings = "bindings default {\n  bind parameters Host to { ram => 'lots' }\n}\n"
    assert error_with(project, HOST + 'Host(name="h")\n', bindings) == (
        "{dir}/bindings/default.bind:2:29: error: attribute 'ram' of __config__::Host instance (created at "
        'main.cf:12:1) must be an int, not string "lots"  [type-error]'
    )


def test_setting_a_bound_attribute_later_is_a_double_assignment(project: Project) -> None:
    bindings = "bindings default {\n  bind parameters Host to { os => 'bsd' }\n}\n"
    assert error_with(project, HOST + 'h = Host(name="h")\nh.os = "linux"\n', bindings) == (
        "main.cf:13:1: error: attribute 'os' of __config__::Host instance (created at main.cf:12:5) is "
        'already "bsd"; it cannot be set to "linux" (a value is assigned once)  [double-assignment]\n'
        '{dir}/bindings/default.bind:2:29: note: the first value, "bsd", was set here'
    )


def test_unknown_attributes_and_entities_are_reported_before_anything_runs(project: Project) -> None:
    bindings = (
        "bindings default {\n"
        "  bind parameters Host to { colour => 'red' }\n"
        "  bind parameters Host['h'] to { size => 1 }\n"
        "  bind parameters Hots to { ram => 1 }\n"
        "  bind parameters std::Nope to { ram => 1 }\n"
        "  bind parameters elsewhere::Thing to { ram => 1 }\n"
        "  bind parameters ntp to { servers => ['a'] }\n"
        "}\n"
    )
    assert error_with(project, HOST, bindings) == "\n".join(
        [
            '{dir}/bindings/default.bind:2:29: error: Host has no attribute "colour" to bind (bound by bindings '
            'default, layer "site", category common)  [unknown-parameter]',
            '{dir}/bindings/default.bind:3:34: error: Host[h] has no attribute "size" to bind (bound by bindings '
            'default, layer "site", category common)  [unknown-parameter]',
            "{dir}/bindings/default.bind:4:29: error: bind parameters Hots: namespace __config__ has no entity "
            'Hots (bindings default, layer "site", category common)  [unknown-entity]',
            "{dir}/bindings/default.bind:5:34: error: bind parameters std::Nope: namespace std has no entity Nope "
            '(bindings default, layer "site", category common)  [unknown-entity]',
        ]
    )


# ---------------------------------------------------------------------- instances as sources

SOURCES = """
entity Db:
    string name
    int memory
    string user
end
index Db(name)
entity Web:
    string name
    int memory = 1
    string dbuser = "nobody"
end
index Web(name)
implement Db using std::none
implement Web using std::none
Web(name="one")
Web(name="two")
Db(name="one", memory=m, user="admin")
m = 128
"""


def test_an_instance_as_a_parameter_source_is_waited_for(project: Project) -> None:
    bindings = (
        "bindings default {\n"
        "  bind parameters Web['one'] to Db['one'] { map => { dbuser => user } }\n"
        "  bind parameters Web['two'] to Db['one']\n"
        "}\n"
    )
    assert compile_with(project, SOURCES, bindings) == (
        '#0 __config__::Db\n  memory = 128\n  name = "one"\n  user = "admin"\n'
        '#1 __config__::Web\n  dbuser = "admin"\n  memory = 1\n  name = "one"\n'
        '#2 __config__::Web\n  dbuser = "nobody"\n  memory = 128\n  name = "two"\n'
    )


def test_an_optional_source_that_never_exists_is_skipped(project: Project) -> None:
    bindings = "bindings default {\n  bind parameters Web['two'] to optional Db['two']\n}\n"
    assert compile_with(project, SOURCES, bindings).endswith(
        '#2 __config__::Web\n  dbuser = "nobody"\n  memory = 1\n  name = "two"\n'
    )


def test_a_source_that_never_exists(project: Project) -> None:
    bindings = "bindings default {\n  bind parameters Web['two'] to Db['two']\n}\n"
    assert error_with(project, SOURCES, bindings) == (
        "{dir}/bindings/default.bind:2:3: error: Db[two] is bound as the parameters of Web[two], but there is "
        "no Db[two]  [parameter-source-missing]"
    )


def test_a_source_created_after_it_was_given_up(project: Project) -> None:
    main = (
        SOURCES
        + """
entity Trigger:
    string name
end
Trigger.items [0:] -- Db
implement Trigger using std::none
t = Trigger(name="t")
if std::count(t.items) == 0:
    Db(name="two", memory=1, user="late")
end
"""
    )
    bindings = "bindings default {\n  bind parameters Web['two'] to optional Db['two']\n}\n"
    assert error_with(project, main, bindings) == (
        "main.cf:27:5: error: __config__::Db instance (created at main.cf:27:5) is __config__::Db[two], "
        "bound as a parameter source; it was created after a constructor that needed it had been run "
        "without it (nothing seemed able to create it then)  [modified-after-freeze]\n"
        "main.cf:16:1: note: the constructor that needed it"
    )


# ---------------------------------------------------------------------- keys of any text, of several values

TITLED = """
entity Host:
    string name
    int ram = 2
end
index Host(name)
implement Host using std::none
"""


def test_keys_are_matched_as_values_whatever_their_text(project: Project) -> None:
    main = TITLED + (
        'Host(name="a,b")\nHost(name="x]")\nHost(name="[y")\nHost(name="it\'s")\nHost(name="\\"q\\"")\n'
        'Host(name="Äpfel")\nHost(name="A b")\nHost(name=" pad ")\nHost(name="")\nHost(name="a")\n'
        'Host(name="b")\n'
    )
    bindings = (
        "bindings default {\n"
        "  bind parameters Host['a,b'] to { ram => 1 }\n"
        "  bind parameters Host['x]'] to { ram => 3 }\n"
        "  bind parameters Host['[y'] to { ram => 4 }\n"
        '  bind parameters Host["it\'s"] to { ram => 5 }\n'
        "  bind parameters Host['\"q\"'] to { ram => 6 }\n"
        "  bind parameters Host['Äpfel'] to { ram => 7 }\n"
        "  bind parameters Host['A b'] to { ram => 8 }\n"
        "  bind parameters Host[' pad '] to { ram => 9 }\n"
        "  bind parameters Host[''] to { ram => 10 }\n"
        "}\n"
    )
    shown = [line for line in compile_with(project, main, bindings).splitlines() if not line.startswith("#")]
    assert shown == [
        '  name = "a,b"', "  ram = 1",
        '  name = "x]"', "  ram = 3",
        '  name = "[y"', "  ram = 4",
        '  name = "it\'s"', "  ram = 5",
        '  name = "\\"q\\""', "  ram = 6",
        '  name = "Äpfel"', "  ram = 7",
        '  name = "A b"', "  ram = 8",
        '  name = " pad "', "  ram = 9",
        '  name = ""', "  ram = 10",
        '  name = "a"', "  ram = 2",  # Host['a,b'] is one key, not Host['a'] and Host['b']
        '  name = "b"', "  ram = 2",
    ]  # fmt: skip


DOMAINS = """
entity Host:
    string name
    string domain
    int ram = 2
    string os = "linux"
    string owner = "ops"
end
index Host(name)
index Host(name, domain)
implement Host using std::none
"""


def test_keys_of_several_attributes_in_the_indexs_order(project: Project) -> None:
    main = DOMAINS.replace("index Host(name)\n", "") + (
        'Host(name="web", domain="example.com")\nHost(name="web", domain="example.org")\n'
        'Host(name="example.com", domain="web")\nHost(name="a,b", domain="c")\n'
    )
    bindings = (
        "bindings default {\n"
        "  bind parameters Host['web', 'example.com'] to { ram => 16 }\n"
        "  bind parameters Host['a', 'b,c'] to { ram => 32 }\n"
        "  bind parameters Host['a,b', 'c'] to { ram => 64 }\n"
        "}\n"
    )
    assert compile_with(project, main, bindings) == (
        '#0 __config__::Host\n  domain = "example.com"\n  name = "web"\n  os = "linux"\n  owner = "ops"\n  ram = 16\n'
        '#1 __config__::Host\n  domain = "example.org"\n  name = "web"\n  os = "linux"\n  owner = "ops"\n  ram = 2\n'
        '#2 __config__::Host\n  domain = "web"\n  name = "example.com"\n  os = "linux"\n  owner = "ops"\n  ram = 2\n'
        '#3 __config__::Host\n  domain = "c"\n  name = "a,b"\n  os = "linux"\n  owner = "ops"\n  ram = 64\n'
    )


def test_numbers_and_booleans_in_a_key_of_several_attributes(project: Project) -> None:
    main = """
entity Port:
    string proto
    int number
    bool open
    string service = "?"
end
index Port(proto, number, open)
implement Port using std::none
Port(proto="udp", number=53, open=true)
Port(proto="tcp", number=53, open=true)
Port(proto="udp", number=53, open=false)
"""
    bindings = "bindings default {\n  bind parameters Port[udp, 53, true] to { service => 'dns' }\n}\n"
    assert [line for line in compile_with(project, main, bindings).splitlines() if "service" in line] == [
        '  service = "dns"',
        '  service = "?"',
        '  service = "?"',
    ]


def test_the_key_of_the_most_attributes_comes_first(project: Project) -> None:
    """Per attribute: Host[name, domain], then Host[name], then Host (the first with a binding)."""
    bindings = (
        "bindings default {\n"
        "  bind parameters Host to { ram => 1, os => 'entity', owner => 'entity' }\n"
        "  bind parameters Host['web'] to { ram => 2, os => 'name' }\n"
        "  bind parameters Host['web', 'example.com'] to { ram => 3 }\n"
        "}\n"
    )
    main = DOMAINS + 'Host(name="web", domain="example.com")\nHost(name="web2", domain="example.com")\n'
    assert compile_with(project, main, bindings) == (
        '#0 __config__::Host\n  domain = "example.com"\n  name = "web"\n  os = "name"\n  owner = "entity"\n'
        "  ram = 3\n"
        '#1 __config__::Host\n  domain = "example.com"\n  name = "web2"\n  os = "entity"\n  owner = "entity"\n'
        "  ram = 1\n"
    )
    # the same with the indexes declared the other way round
    flipped = main.replace(
        "index Host(name)\nindex Host(name, domain)\n", "index Host(name, domain)\nindex Host(name)\n"
    )
    assert compile_with(project, flipped, bindings).startswith(
        '#0 __config__::Host\n  domain = "example.com"\n  name = "web"\n  os = "name"\n  owner = "entity"\n'
        "  ram = 3\n"
    )


def test_keys_of_as_many_attributes_in_the_order_the_indexes_are_declared(project: Project) -> None:
    main = """
entity Host:
    string name
    string ip
    int ram = 2
end
index Host(ip)
index Host(name)
implement Host using std::none
Host(name="h1", ip="10.0.0.1")
"""
    bindings = (
        "bindings default {\n"
        "  bind parameters Host['h1'] to { ram => 1 }\n"
        "  bind parameters Host['10.0.0.1'] to { ram => 8 }\n"
        "}\n"
    )
    assert compile_with(project, main, bindings).endswith("  ram = 8\n")


def test_unknown_attributes_and_keys_of_any_text(project: Project) -> None:
    bindings = (
        "bindings default {\n"
        "  bind parameters Host['a,b'] to { size => 1 }\n"
        "  bind parameters Host[\"it's\", 'x]'] to { colour => 'red' }\n"
        "  bind parameters Host['web', 'example.com'] to { ram => 4, disk => 1 }\n"
        "  bind parameters Host[a, b, c] to { ram => 1 }\n"
        "  bind parameters Host[a, b, c] to Host[d]\n"
        "}\n"
    )
    assert error_with(project, DOMAINS, bindings) == "\n".join(
        [
            "{dir}/bindings/default.bind:2:36: error: Host['a,b'] has no attribute \"size\" to bind (bound by "
            'bindings default, layer "site", category common)  [unknown-parameter]',
            "{dir}/bindings/default.bind:3:43: error: Host['it\\'s', 'x]'] has no attribute \"colour\" to bind "
            '(bound by bindings default, layer "site", category common)  [unknown-parameter]',
            '{dir}/bindings/default.bind:4:61: error: Host[web, example.com] has no attribute "disk" to bind '
            '(bound by bindings default, layer "site", category common)  [unknown-parameter]',
            "{dir}/bindings/default.bind:5:38: error: bind parameters Host[a, b, c]: Host has no index of 3 "
            "attributes, so no instance has this key (its indexes: Host(name), Host(name, domain)) (bindings "
            'default, layer "site", category common)  [unknown-key]',
            "{dir}/bindings/default.bind:6:3: error: bind parameters Host[a, b, c]: Host has no index of 3 "
            "attributes, so no instance has this key (its indexes: Host(name), Host(name, domain)) (bindings "
            'default, layer "site", category common)  [unknown-key]',
        ]
    )


def test_a_source_with_a_key_of_several_values(project: Project) -> None:
    main = """
entity Db:
    string name
    string site
    int memory
end
index Db(name, site)
entity Web:
    string name
    string site
    int memory = 1
end
index Web(name, site)
implement Db using std::none
implement Web using std::none
Web(name="one", site="a,b")
Db(name="db", site="a,b", memory=m)
m = 128
"""
    bindings = "bindings default {\n  bind parameters Web['one', 'a,b'] to Db[db, 'a,b']\n}\n"
    assert compile_with(project, main, bindings) == (
        '#0 __config__::Db\n  memory = 128\n  name = "db"\n  site = "a,b"\n'
        '#1 __config__::Web\n  memory = 128\n  name = "one"\n  site = "a,b"\n'
    )
    missing = "bindings default {\n  bind parameters Web['one', 'a,b'] to Db[db, 'a']\n}\n"
    assert error_with(project, main, missing) == (
        "{dir}/bindings/default.bind:2:3: error: Db[db, a] is bound as the parameters of Web[one, 'a,b'], but "
        "there is no Db[db, a]  [parameter-source-missing]"
    )


def test_a_custom_producer_as_a_parameter_source(project: Project) -> None:
    """``bind parameters X to producer '...'`` (the seed's fourth kind of parameter producer)."""
    from cfmodel.transforms.bindings.compose import ComposeOptions
    from cfmodel.transforms.bindings.providers import create_injector

    bindings = (
        "bindings default {\n"
        "  bind parameters Host to producer 'sizes' { producer_args => { 'base' => 4 } }\n"
        "  bind parameters Host['b'] to { ram => 1 }\n"
        "}\n"
    )
    project.write({"main.cf": HOST + 'Host(name="a")\nHost(name="b")\nHost(name="c", ram=3)\n'})
    project.write({"bindings/default.bind": bindings})
    calls: list[object] = []

    def sizes(args: object) -> dict[str, object]:
        calls.append(args)
        return {"ram": 4 * len(calls), "os": "bsd", "colour": "red"}  # colour: no such attribute

    injector = create_injector(project.root, {}, ComposeOptions(producers={"sizes": sizes}))
    assert project.compile(injector=injector).dump() == (
        '#0 __config__::Host\n  name = "a"\n  note = null\n  os = "bsd"\n  owner = "ops"\n  ram = 4\n'
        '#1 __config__::Host\n  name = "b"\n  note = null\n  os = "bsd"\n  owner = "ops"\n  ram = 1\n'
        '#2 __config__::Host\n  name = "c"\n  note = null\n  os = "bsd"\n  owner = "ops"\n  ram = 3\n'
    )
    assert calls == [{"base": 4}] * 3  # once per constructor call
