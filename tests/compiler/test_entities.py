"""Constructors, defaults, undef, constructor typedefs and ``**dict`` arguments."""

from __future__ import annotations

from tests.compiler.conftest import Project, compile_main, error_of, values

DEFAULTS = """
entity Base:
    string color = "base"
    string finish = "matte"
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
entity Flipped extends Right, Left:
end
entity NoColor extends Left:
    string color = undef
end
implement Both using std::none
implement Flipped using std::none
implement NoColor using std::none
"""


def test_defaults_own_beats_parent_left_beats_right(project: Project) -> None:
    result = compile_main(project, DEFAULTS + 'Both()\nFlipped()\nBoth(color="given", shape="square")\n')
    assert values(result, "Both", "color") == ["left", "given"]
    assert values(result, "Both", "size") == [2, 2]
    assert values(result, "Both", "shape") == ["round", "square"]
    assert values(result, "Both", "finish") == ["matte", "matte"]
    assert values(result, "Flipped", "color") == ["right"]
    assert values(result, "Flipped", "size") == [1]


def test_undef_removes_a_default(project: Project) -> None:
    result = compile_main(project, DEFAULTS + 'NoColor(color="set")\n')
    assert values(result, "NoColor", "color") == ["set"]
    assert error_of(project, DEFAULTS + "NoColor()\n") == (
        "main.cf:24:1: error: attribute 'color' of __config__::NoColor instance (created at main.cf:24:1) is "
        "never set and has no default  [not-set]\n"
        "main.cf:19:5: note: attribute 'color' is declared here"
    )


def test_a_default_cannot_be_overwritten_after_construction(project: Project) -> None:
    source = """
entity A:
    string v = "default"
end
implement A using std::none
a = A()
a.v = "later"
"""
    assert error_of(project, source) == (
        "main.cf:6:1: error: attribute 'v' of __config__::A instance (created at main.cf:5:5) is already "
        '"default"; it cannot be set to "later" (a value is assigned once)  [double-assignment]\n'
        'main.cf:5:5: note: the first value, "default", was set here'
    )


def test_attributes_set_after_construction(project: Project) -> None:
    result = compile_main(
        project,
        """
entity A:
    string name
    string v
end
implement A using std::none
a = A(name="a")
a.v = "{{a.name}}!"
""",
    )
    assert values(result, "A", "v") == ["a!"]


def test_constructor_typedef(project: Project) -> None:
    result = compile_main(
        project,
        """
entity File:
    string path
    int mode = 640
    string owner = "root"
end
implement File using std::none
typedef PublicFile as File(mode=644, owner="www")
PublicFile(path="/a")
PublicFile(path="/b", mode=600)
File(path="/c")
""",
    )
    assert values(result, "File", "mode") == [644, 600, 640]
    assert values(result, "File", "owner") == ["www", "www", "root"]


def test_kwargs_dict(project: Project) -> None:
    source = """
entity A:
    string a
    int b = 0
end
implement A using std::none
args = {"a": "from dict", "b": 4}
"""
    result = compile_main(project, source + 'A(**args)\nA(a="x", **{"b": 5})\n')
    assert values(result, "A", "b") == [4, 5]
    assert error_of(project, source + 'A(a="x", **args)\n') == (
        "main.cf:7:12: error: attribute 'a' is set twice in the constructor of __config__::A  [duplicate-argument]"
    )
    assert error_of(project, source + 'A(**{"a": "x", "c": 1})\n') == (
        "main.cf:7:5: error: entity __config__::A has no attribute or relation 'c'  [unknown-attribute]\n"
        "note: __config__::A has: a, b, provides, requires"
    )
    assert error_of(project, source + "A(**[1])\n") == (
        "main.cf:7:5: error: ** needs a dict of attribute values, not list [1]  [type-error]"
    )


def test_unknown_and_duplicate_constructor_arguments(project: Project) -> None:
    source = """
entity A:
    string a
end
implement A using std::none
"""
    assert error_of(project, source + 'A(a="x", nope=1)\n') == (
        "main.cf:5:10: error: entity __config__::A has no attribute or relation 'nope'  [unknown-attribute]\n"
        "note: __config__::A has: a, provides, requires"
    )
    assert error_of(project, source + 'A(a="x", a="y")\n') == (
        "main.cf:5:10: error: 'a' is given twice in the constructor of __config__::A  [duplicate-argument]"
    )


def test_unknown_entity(project: Project) -> None:
    assert error_of(project, "x = Nope()\n") == (
        "main.cf:1:5: error: no entity named 'Nope' is visible in namespace __config__  [unknown-entity]"
    )


def test_reading_an_attribute_that_is_never_set_is_reported_with_its_readers(project: Project) -> None:
    source = """
entity A:
    string name
    string other
end
implement A using std::none
a = A(name="x")
b = a.other
"""
    assert error_of(project, source) == (
        "main.cf:6:5: error: attribute 'other' of __config__::A instance (created at main.cf:6:5) is never set "
        "and has no default  [not-set]\n"
        "main.cf:3:5: note: attribute 'other' is declared here\n"
        "main.cf:7:1: note: the assignment to 'b' waits for it"
    )


def test_reading_an_attribute_of_something_that_is_not_an_instance(project: Project) -> None:
    assert error_of(project, 'x = "text"\ny = x.length\n') == (
        "main.cf:2:5: error: cannot read 'length' of string \"text\": it is not an entity instance  [type-error]"
    )
