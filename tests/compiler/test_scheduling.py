"""When relations are complete, what the scheduler freezes when stuck, and deadlock reports."""

from __future__ import annotations

from tests.compiler.conftest import Project, compile_main, error_of, values

BOXES = """
entity Box:
    string name
end
entity Item:
    string name
end
Box.items [0:] -- Item.boxes [0:]
implement Box using std::none
implement Item using std::none
entity Out:
    string v
end
implement Out using std::none
a = Box(name="a")
b = Box(name="b")
"""


def test_an_if_holds_back_the_relations_its_branches_assign(project: Project) -> None:
    # `nb` waits on b.items first, but the `if` may still add to it: a.items is completed first.
    source = (
        BOXES
        + """
nb = std::count(b.items)
Out(v="b has {{nb}}")
if std::count(a.items) > 0:
    b.items = Item(name="added by the if")
end
a.items = Item(name="x")
"""
    )
    assert values(compile_main(project, source), "Out", "v") == ["b has 1"]


def test_a_for_over_a_relation_runs_as_values_arrive(project: Project) -> None:
    source = (
        BOXES
        + """
for item in a.items:
    b.items = Item(name="copy of {{item.name}}")
end
n = std::count(b.items)
Out(v="b has {{n}}")
a.items = [Item(name="1"), Item(name="2")]
"""
    )
    assert values(compile_main(project, source), "Out", "v") == ["b has 2"]


def test_assigning_a_relation_to_a_relation_is_gradual(project: Project) -> None:
    source = (
        BOXES
        + """
c = Box(name="c")
c.items = a.items
c.items = b.items
n = std::count(c.items)
Out(v="c has {{n}}")
a.items = Item(name="1")
b.items = Item(name="2")
"""
    )
    assert values(compile_main(project, source), "Out", "v") == ["c has 2"]


def test_wait_cycle_is_broken_deterministically(project: Project) -> None:
    source = (
        BOXES
        + """
if std::count(a.items) > 0:
    b.items = Item(name="from a")
end
if std::count(b.items) > 0:
    a.items = Item(name="from b")
end
Out(v="{{na}} {{nb}}")
na = std::count(a.items)
nb = std::count(b.items)
"""
    )
    for _ in range(3):
        assert values(compile_main(project, source), "Out", "v") == ["0 0"]


def test_deadlock_names_every_waiting_statement(project: Project) -> None:
    assert error_of(project, "a = b\nb = c\nc = a\nd = 1\n") == (
        "main.cf:1:1: error: deadlock: the assignment to 'a' waits for variable 'b', which is never set (what "
        "would set it waits too, or nothing does)  [deadlock]\n"
        "main.cf:2:1: error: deadlock: the assignment to 'b' waits for variable 'c', which is never set (what "
        "would set it waits too, or nothing does)  [deadlock]\n"
        "main.cf:3:1: error: deadlock: the assignment to 'c' waits for variable 'a', which is never set (what "
        "would set it waits too, or nothing does)  [deadlock]"
    )


def test_deadlock_inside_an_implementation_condition(project: Project) -> None:
    source = """
entity A:
    string name
end
implement A using std::none when x == "yes"
x = y
y = x
A(name="a")
"""
    assert error_of(project, source) == (
        "main.cf:4:34: error: deadlock: the condition of 'implement A using none' for __config__::A instance "
        "(created at main.cf:7:1) waits for variable 'x', which is never set (what would set it waits too, or "
        "nothing does)  [deadlock]\n"
        "main.cf:5:1: error: deadlock: the assignment to 'x' waits for variable 'y', which is never set (what "
        "would set it waits too, or nothing does)  [deadlock]\n"
        "main.cf:6:1: error: deadlock: the assignment to 'y' waits for variable 'x', which is never set (what "
        "would set it waits too, or nothing does)  [deadlock]\n"
        "main.cf:7:1: error: no implementation refines __config__::A instance (created at main.cf:7:1): the "
        "condition of an 'implement' never became known  [no-implementation]"
    )


def test_a_required_relation_read_below_its_lower_bound(project: Project) -> None:
    source = """
entity A:
    string name
end
entity B:
end
A.bs [1:] -- B.a [0:1]
implement A using std::none
implement B using std::none
a = A(name="a")
n = std::count(a.bs)
"""
    assert error_of(project, source) == (
        "main.cf:9:5: error: relation 'bs' [1:] of __config__::A instance (created at main.cf:9:5) needs at "
        "least 1 value(s), it has 0  [lower-bound]\n"
        "main.cf:6:1: note: relation 'bs' [1:] is declared here\n"
        "main.cf:10:1: note: the assignment to 'n' waits for it"
    )
