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
