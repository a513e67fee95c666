"""Relations: double binding, gradual lists, bounds, unidirectional and optional ends."""

from __future__ import annotations

from cfmodel.pipeline import CompileResult
from tests.compiler.conftest import Project, compile_main, error_of

FILES = """
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
"""


def related(
    result: CompileResult, entity: str, key: str, relation: str, attribute: str
) -> dict[str, list[str]]:
    """For every instance of *entity*: its *key* → the *attribute* of each target of *relation*."""
    out: dict[str, list[str]] = {}
    for instance in result.raw_instances:
        if instance.info.entity.name != entity:
            continue
        slot = instance.slots.get(relation)
        items = getattr(slot, "items", None)
        if items is None:
            value = getattr(slot, "value", None)
            items = [value] if value is not None else []
        name_slot = instance.slots[key]
        out[str(getattr(name_slot, "value", None))] = [
            str(getattr(t.slots[attribute], "value", None)) for t in items
        ]
    return out


def test_double_binding_and_appending(project: Project) -> None:
    result = compile_main(
        project,
        FILES
        + """
h1 = Host(name="test")
f1 = File(host=h1, path="/opt/1")
f2 = File(host=h1, path="/opt/2")
f3 = File(path="/opt/3")
f3.host = h1
s1 = FileSet(name="s1")
s1.files = [f1, f2]
s1.files = f3
s1.files = f3
s1.files += f1
s2 = FileSet(name="s2", files=h1.files)
""",
    )
    assert related(result, "Host", "name", "files", "path") == {"test": ["/opt/1", "/opt/2", "/opt/3"]}
    assert related(result, "FileSet", "name", "files", "path") == {
        "s1": ["/opt/1", "/opt/2", "/opt/3"],
        "s2": ["/opt/1", "/opt/2", "/opt/3"],
    }
    assert related(result, "File", "path", "sets", "name") == {
        "/opt/1": ["s1", "s2"],
        "/opt/2": ["s1", "s2"],
        "/opt/3": ["s1", "s2"],
    }


def test_a_single_end_is_set_once(project: Project) -> None:
    source = FILES + 'a = Host(name="a")\nb = Host(name="b")\nf = File(path="/f", host=a)\nf.host = b\n'
    assert error_of(project, source) == (
        "main.cf:18:1: error: relation 'host' [1] of __config__::File instance (created at main.cf:17:5) "
        "already holds __config__::Host instance (created at main.cf:15:5); it cannot also hold __config__::Host "
        "instance (created at main.cf:16:5)  [upper-bound]\n"
        "main.cf:17:21: note: the first value, __config__::Host instance (created at main.cf:15:5), was set here"
    )


def test_upper_bound_checked_on_every_add(project: Project) -> None:
    source = """
entity A:
    string name
end
A.friends [0:2] -- A
implement A using std::none
a = A(name="a")
a.friends = [A(name="1"), A(name="2")]
a.friends += A(name="3")
"""
    assert error_of(project, source) == (
        "main.cf:8:1: error: relation 'friends' [0:2] of __config__::A instance (created at main.cf:6:5) allows "
        "at most 2 value(s); __config__::A instance (created at main.cf:8:14) would be one too many  [upper-bound]\n"
        "main.cf:7:14: note: it holds __config__::A instance (created at main.cf:7:14)\n"
        "main.cf:7:27: note: it holds __config__::A instance (created at main.cf:7:27)"
    )


def test_lower_bound_checked_at_the_end(project: Project) -> None:
    source = """
entity A:
    string name
end
entity B:
end
A.bs [2:] -- B.a [0:1]
implement A using std::none
implement B using std::none
a = A(name="a")
a.bs = B()
"""
    assert error_of(project, source) == (
        "main.cf:9:5: error: relation 'bs' [2:] of __config__::A instance (created at main.cf:9:5) needs at "
        "least 2 value(s), it has 1  [lower-bound]\n"
        "main.cf:6:1: note: relation 'bs' [2:] is declared here"
    )


def test_unidirectional_relation(project: Project) -> None:
    result = compile_main(
        project,
        """
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
    assert related(result, "Service", "name", "ports", "number") == {"web": ["80", "443"]}


def test_relation_value_type_is_checked(project: Project) -> None:
    source = FILES + 'FileSet(name="s", files=[Host(name="h")])\n'
    assert error_of(project, source) == (
        "main.cf:15:19: error: a value of relation 'files' of __config__::FileSet instance (created at main.cf:15:1) "
        "must be a __config__::File, not __config__::Host instance (created at main.cf:15:26)  [type-error]"
    )


def test_plus_equals_needs_a_many_valued_relation(project: Project) -> None:
    source = FILES + 'h = Host(name="h")\nf = File(path="p", host=h)\nf.host += h\n'
    assert error_of(project, source) == (
        "main.cf:17:1: error: '+=' adds to a relation with more than one value; 'host' of __config__::File is a "
        "relation [1]  [bad-assignment]"
    )


def test_optional_relation(project: Project) -> None:
    source = """
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
"""
    result = compile_main(project, source)
    kinds = {
        i.slots["name"].value: i.slots["kind"].value  # type: ignore[attr-defined]
        for i in result.raw_instances
    }
    assert kinds == {"root": "root", "leaf": "child of root"}
    assert error_of(project, source + "x = root.parent\n") == (
        "main.cf:16:5: error: relation 'parent' [0:1] of __config__::Node instance (created at main.cf:14:8) has "
        "no value (use 'is defined' to test an optional relation before reading it)  [no-value]"
    )


def test_a_list_is_complete_before_it_is_read(project: Project) -> None:
    result = compile_main(
        project,
        """
entity Group:
    string name
end
entity Member:
    string name
end
Group.members [0:] -- Member.group [1]
implement Group using std::none
implement Member using std::none
g = Group(name="g")
n = std::count(g.members)
Group(name="{{n}} members")
Member(name="a", group=g)
for i in std::sequence(3):
    Member(name="m{{i}}", group=g)
end
""",
    )
    names = [i.slots["name"].value for i in result.raw_instances if i.info.entity.name == "Group"]  # type: ignore[attr-defined]
    assert names == ["g", "4 members"]


def test_adding_after_completion_is_an_error(project: Project) -> None:
    source = """
entity Server:
    string name
end
entity Tag:
    string value
end
Server.tags [0:] -- Tag.server [1]
implementation base for Server:
    Tag(server=self, value="base")
end
implementation big for Server:
    Tag(server=self, value="big")
end
implement Server using base
implement Server using big when std::len(self.tags) > 0
implement Tag using std::none
Server(name="s")
"""
    assert error_of(project, source) == (
        "main.cf:12:9: error: relation 'tags' of __config__::Server instance (created at main.cf:17:1) was "
        "considered complete with 1 value(s) before __config__::Tag instance (created at main.cf:12:5) was "
        "added to it  [modified-after-freeze]"
    )
