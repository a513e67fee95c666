"""Implementations: conditions, several at once, ``using parents``, std::none, anonymous blocks."""

from __future__ import annotations

from cfmodel.pipeline import CompileResult
from tests.compiler.conftest import Project, compile_main, error_of


def notes(result: CompileResult) -> list[str]:
    return sorted(
        str(i.slots["text"].value)  # type: ignore[attr-defined]
        for i in result.raw_instances
        if i.info.entity.name == "Note"
    )


SERVER = """
entity Server:
    string name
    int port = 80
end
entity Note:
    string text
end
Server.notes [0:] -- Note.server [1]
implement Note using std::none
"""


def test_every_implement_whose_condition_holds_applies(project: Project) -> None:
    result = compile_main(
        project,
        SERVER
        + """
implementation base for Server:
    Note(server=self, text="base {{name}}")
end
implementation tls for Server:
    Note(server=self, text="tls {{name}}")
end
implementation twice for Server:
    Note(server=self, text="twice {{name}}")
end
implement Server using base
implement Server using tls when port == 443
implement Server using twice, base when self.name == "b"
Server(name="a")
Server(name="b", port=443)
""",
    )
    assert notes(result) == ["base a", "base b", "tls b", "twice b"]


def test_using_parents_inherits_implements_with_their_conditions(project: Project) -> None:
    result = compile_main(
        project,
        SERVER
        + """
entity Special extends Server:
end
entity Plain extends Server:
end
implementation base for Server:
    Note(server=self, text="base {{name}}")
end
implementation tls for Server:
    Note(server=self, text="tls {{name}}")
end
implement Server using base
implement Server using tls when port == 443
implement Special using parents
implement Plain using std::none
Special(name="s1")
Special(name="s2", port=443)
Plain(name="p", port=443)
""",
    )
    assert notes(result) == ["base s1", "base s2", "tls s2"]


def test_no_implementation(project: Project) -> None:
    source = SERVER + 'Server(name="a")\n'
    assert error_of(project, source) == (
        "main.cf:10:1: error: no implementation refines __config__::Server instance (created at main.cf:10:1): "
        "there is no 'implement Server using …' (write 'implement Server using std::none' if it needs no "
        "refinement)  [no-implementation]"
    )
    source = SERVER + 'implement Server using std::none when port == 443\nServer(name="a")\n'
    assert error_of(project, source) == (
        "main.cf:11:1: error: no implementation refines __config__::Server instance (created at main.cf:11:1): "
        "the conditions of every 'implement __config__::Server' are false  [no-implementation]"
    )


def test_implements_are_not_inherited_without_using_parents(project: Project) -> None:
    source = SERVER + "implement Server using std::none\nentity Sub extends Server:\nend\nSub(name='x')\n"
    assert error_of(project, source).startswith(
        "main.cf:13:1: error: no implementation refines __config__::Sub instance"
    )


def test_self_and_attributes_are_visible_in_an_implementation(project: Project) -> None:
    result = compile_main(
        project,
        SERVER
        + """
implementation show for Server:
    text = "{{name}}:{{port}}"
    Note(server=self, text=text)
    Note(server=self, text="{{self.name}}/{{self.port}}")
    for n in self.notes:
        n.server.port = 80
    end
end
implement Server using show
Server(name="a")
""",
    )
    assert notes(result) == ["a/80", "a:80"]


def test_condition_must_be_a_bool(project: Project) -> None:
    source = SERVER + 'implement Server using std::none when name\nServer(name="a")\n'
    assert error_of(project, source) == (
        "main.cf:10:39: error: the condition of 'implement __config__::Server' must be a bool, not string \"a\" "
        "(for __config__::Server instance (created at main.cf:11:1))  [type-error]\n"
        "main.cf:11:1: note: the instance was created here"
    )


def test_anonymous_implementation_with_include(project: Project) -> None:
    result = compile_main(
        project,
        SERVER
        + """
implementation base for Server:
    Note(server=self, text="base {{name}}")
end
outer = "outer"
s = Server(name="a"):
    Note(server=self, text="anonymous {{name}} {{outer}}")
    include base
end
Server(name="b"):
end
""",
    )
    assert notes(result) == ["anonymous a outer", "base a"]


def test_include_checks_the_entity(project: Project) -> None:
    source = (
        SERVER
        + """
entity Other:
end
implementation other for Other:
end
Server(name="a"):
    include other
end
"""
    )
    assert error_of(project, source) == (
        "main.cf:16:13: error: implementation __config__::other is for __config__::Other; it cannot refine "
        "__config__::Server instance (created at main.cf:15:1)  [implementation-mismatch]"
    )


def test_std_is_always_visible(project: Project) -> None:
    project.module("lib", {"model/_init.cf": "entity Thing:\nend\nimplement Thing using std::none\n"})
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    result = compile_main(project, "import lib\nlib::Thing()\nn = std::len([1])\n")
    assert [i.info.qname for i in result.raw_instances] == ["lib::Thing"]
