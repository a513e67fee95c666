"""Messages that used to mislead (issue 18, item 9): each says what is wrong, where, and
nothing that is not."""

from __future__ import annotations

from tests.compiler.conftest import Project


def _error(project: Project, source: str) -> list[str]:
    project.write({"main.cf": source})
    return project.error().splitlines()


def test_inheritance_cycle_is_one_error(project: Project) -> None:
    assert _error(
        project, "entity A extends B:\nend\nentity B extends A:\nend\nimplement A using std::none\nA()\n"
    ) == [
        "main.cf:1:8: error: inheritance cycle: __config__::A -> __config__::B -> __config__::A  [inheritance-cycle]"
    ]


def test_using_parents_without_parent_implementations(project: Project) -> None:
    assert _error(project, "entity P:\nend\nentity C extends P:\nend\nimplement C using parents\nC()\n") == [
        "main.cf:6:1: error: no implementation refines __config__::C instance (created at main.cf:6:1): "
        "'implement C using parents' inherits nothing, because no parent (__config__::P) has an "
        "'implement … using …'  [no-implementation]"
    ]


def test_missing_end_names_the_open_block(project: Project) -> None:
    assert _error(project, 'entity A:\n    string x\nimplement A using std::none\nA(x="a")\n') == [
        "main.cf:3:1: error: unexpected 'implement' (expected a name, '=' or 'end'): 'entity A' is not closed  "
        "[syntax]",
        "main.cf:1:1: note: 'entity A' opens here; add its 'end' before line 3",
    ]


def test_misspelled_keyword(project: Project) -> None:
    assert _error(project, "entty Host:\n    string name\nend\n") == [
        "main.cf:1:1: error: unknown keyword 'entty' (did you mean 'entity'?)  [syntax]"
    ]


def test_index_key_constructed_twice_with_different_values(project: Project) -> None:
    source = (
        'entity H:\n    string name\n    string os = "linux"\nend\nindex H(name)\nimplement H using std::none\n'
        'H(name="a", os="linux")\nH(name="a", os="windows")\n'
    )
    assert _error(project, source) == [
        'main.cf:8:13: error: two constructors of __config__::H[name="a"] (one instance, same index key) give '
        'attribute \'os\' different values: "linux" and "windows"  [double-assignment]',
        'main.cf:7:1: note: the constructor that made it gave "linux"',
        'main.cf:8:1: note: this constructor gives "windows"',
    ]


def test_index_key_found_again_whose_default_differs(project: Project) -> None:
    source = (
        'entity H:\n    string name\n    string os = "linux"\nend\nindex H(name)\nimplement H using std::none\n'
        'H(name="a", os="bsd")\nH(name="a")\n'
    )
    assert _error(project, source)[0] == (
        'main.cf:8:1: error: two constructors of __config__::H[name="a"] (one instance, same index key) give '
        'attribute \'os\' different values: "bsd" and "linux"  [double-assignment]'
    )


def test_int_attribute_past_64_bits_is_refused_where_it_is_set(project: Project) -> None:
    head = (
        "entity A:\n    int n\n    dict d = {}\nend\nimplement A using std::none\nx = 9223372036854775807\n"
    )
    assert _error(project, head + "A(n=x + 1)\n") == [
        "main.cf:7:3: error: attribute 'n' of __config__::A instance (created at main.cf:7:1) must be a 64-bit int "
        "(-9223372036854775808 to 9223372036854775807: the metamodel's int is a Java long), not "
        "9223372036854775808  [type-error]"
    ]
    assert _error(project, "entity A:\n    int n = -9223372036854775809\nend\n") == [
        "main.cf:2:13: error: bad default for attribute 'n' (int): -9223372036854775809 is not a 64-bit int (the "
        "metamodel's int is a Java long)  [bad-default]"
    ]
    project.write({"main.cf": head + 'A(n=x, d={"big": x * 10})\nA(n=0 - x - 1)\n'})
    result = project.compile()
    assert sorted(o.eGet("n") for o in result.model) == [-(2**63), 2**63 - 1]
