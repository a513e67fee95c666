"""Indexes and queries: existing keys, conflicts, required attributes, waiting lookups."""

from __future__ import annotations

from tests.compiler.conftest import Project, compile_main, error_of, values

HOSTS = """
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
"""


def test_existing_key_returns_the_existing_instance(project: Project) -> None:
    result = compile_main(
        project,
        HOSTS
        + """
a = Host(name="a")
a2 = Host(name="a")
f = File(host=a, path="/etc/motd")
f2 = File(host=a2, path="/etc/motd")
same = a == a2 and f == f2
Host(name="same={{same}}")
""",
    )
    assert values(result, "Host", "name") == ["a", "same=True"]
    assert values(result, "File", "path") == ["/etc/motd"]


def test_conflicting_value_for_an_existing_key(project: Project) -> None:
    assert error_of(project, HOSTS + 'Host(name="a", os="bsd")\nHost(name="a")\n') == (
        'main.cf:14:1: error: two constructors of __config__::Host[name="a"] (one instance, same index key) give '
        'attribute \'os\' different values: "bsd" and "linux"  [double-assignment]\n'
        'main.cf:13:1: note: the constructor that made it gave "bsd"\n'
        'main.cf:14:1: note: this constructor gives "linux"'
    )


def test_index_attributes_must_be_set_in_the_constructor(project: Project) -> None:
    assert error_of(project, HOSTS + 'Host(os="bsd")\n') == (
        "main.cf:13:1: error: the constructor of __config__::Host must set attribute 'name': it is part of index "
        "__config__::Host(name)  [index-attribute-missing]\n"
        "main.cf:5:1: note: index __config__::Host(name) is defined here"
    )
    assert error_of(project, HOSTS + 'File(path="/x")\n') == (
        "main.cf:13:1: error: the constructor of __config__::File must set relation 'host': it is part of index "
        "__config__::File(host, path)  [index-attribute-missing]\n"
        "main.cf:10:1: note: index __config__::File(host, path) is defined here"
    )


def test_the_relation_being_assigned_counts_as_set(project: Project) -> None:
    result = compile_main(project, HOSTS + 'h = Host(name="h")\nh.files = File(path="/via-relation")\n')
    assert values(result, "File", "path") == ["/via-relation"]


def test_lookup_waits_until_the_instance_exists(project: Project) -> None:
    result = compile_main(
        project,
        HOSTS
        + """
late = Host[name="late"]
Host(name="copy-of-{{late.name}}", os=late.os)
Host(name="late", os="bsd")
""",
    )
    assert values(result, "Host", "name") == ["late", "copy-of-late"]
    assert values(result, "Host", "os") == ["bsd", "bsd"]


def test_lookup_that_never_matches(project: Project) -> None:
    assert error_of(project, HOSTS + 'h = Host[name="nope"]\nHost(name="yes")\n') == (
        'main.cf:13:1: error: no __config__::Host[name="nope"] exists: this lookup waited until the model was '
        "complete  [index-not-found]"
    )


def test_lookup_needs_a_matching_index(project: Project) -> None:
    assert error_of(project, HOSTS + 'h = Host[os="linux"]\n') == (
        "main.cf:13:5: error: no index of __config__::Host has exactly the attributes os (indexes: "
        "__config__::Host(name))  [no-index]"
    )


def test_selector_query_through_a_relation(project: Project) -> None:
    result = compile_main(
        project,
        HOSTS
        + """
vm1 = Host(name="vm1")
File(host=vm1, path="/etc/passwd")
a = File[host=vm1, path="/etc/passwd"]
b = vm1.files[path="/etc/passwd"]
same = a == b
Host(name="same={{same}}")
""",
    )
    assert values(result, "Host", "name") == ["vm1", "same=True"]


def test_index_on_a_parent_applies_to_children(project: Project) -> None:
    source = (
        HOSTS
        + """
entity Server extends Host:
end
implement Server using std::none
Host(name="a")
Server(name="a")
"""
    )
    assert error_of(project, source) == (
        "main.cf:18:1: error: duplicate key in index __config__::Host(name): __config__::Host instance (created "
        'at main.cf:17:1) already has name="a"  [index-conflict]\n'
        "main.cf:17:1: note: the existing instance was created here\n"
        "main.cf:5:1: note: the index"
    )
    source = (
        HOSTS
        + """
entity Server extends Host:
end
implement Server using std::none
Server(name="a")
Host(name="a")
"""
    )
    assert error_of(project, source) == (
        'main.cf:18:1: error: __config__::Host(name="a") matches an existing __config__::Server instance (created '
        "at main.cf:17:1), which is a __config__::Server, not a __config__::Host  [index-conflict]\n"
        "main.cf:17:1: note: the existing instance was created here"
    )
