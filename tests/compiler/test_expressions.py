"""Expressions and control flow: operators, strings, comprehensions, ``for``, ``if``."""

from __future__ import annotations

import pytest

from tests.compiler.conftest import Project, compile_main, error_of, values

OUT = """
entity Out:
    string v
end
implement Out using std::none
"""


def outputs(project: Project, source: str) -> list[object]:
    return values(compile_main(project, OUT + source), "Out", "v")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("7 / 2", "3.5"),
        ("7 % 3", "1"),
        ("2 ** 10", "1024"),
        ("10 - 2 - 3", "5"),
        ('"a" + "b"', "ab"),
        ("1 < 2 and 2 <= 2 and 3 > 2 and 3 >= 4", "False"),
        ("1 == 1.0", "True"),
        ("1 != 2", "True"),
        ("not false", "True"),
        ("true or 1 / 0", "True"),
        ("false and 1 / 0", "False"),
        ('"b" in ["a", "b"]', "True"),
        ('"c" not in ["a", "b"]', "True"),
        ('"k" in {"k": 1}', "True"),
        ('{"a": {"b": 4}}["a"]["b"]', "4"),
        ("3 > 2 ? 'yes' : 'no'", "yes"),
        ("[x * 2 for x in [1, 2, 3] if x != 2]", "[2, 6]"),
        ("[x + y for x in ['a', 'b'] for y in ['1', '2']]", "['a1', 'a2', 'b1', 'b2']"),
        ("[[1, 2], [3]]", "[1, 2, 3]"),
        ("std::len([1, 2, 3])", "3"),
    ],
)
def test_operators(project: Project, expression: str, expected: str) -> None:
    assert outputs(project, f'x = {expression}\nOut(v="{{{{x}}}}")\n') == [expected]


def test_interpolation_and_fstrings(project: Project) -> None:
    source = """
entity Host:
    string name
    int cpus
end
implement Host using std::none
h = Host(name="web", cpus=4)
n = 3.5
b = true
Out(v="{{h.name}} has {{h.cpus}} cpus, {{n}} {{b}}")
Out(v=f"{h.name:>5}|{n:.2f}|{h.cpus!r}")
Out(v="no {{ interpolation here")
Out(v=r"raw {{h.name}}")
"""
    assert outputs(project, source) == [
        "web has 4 cpus, 3.5 True",
        "  web|3.50|4",
        "no {{ interpolation here",
        "raw {{h.name}}",
    ]


def test_if_elif_else(project: Project) -> None:
    source = """
for x in [1, 5, 20]:
    if x > 10:
        Out(v="big {{x}}")
    elif x > 3:
        Out(v="medium {{x}}")
    else:
        Out(v="small {{x}}")
    end
end
if false:
    Out(v="never")
end
"""
    assert outputs(project, source) == ["small 1", "medium 5", "big 20"]


def test_is_defined(project: Project) -> None:
    source = """
entity A:
    string? maybe
    dict d = {"k": 1}
end
implement A using std::none
A.others [0:] -- A
a = A(maybe=null)
b = A(maybe="x", others=[a])
Out(v="{{r1}} {{r2}} {{r3}} {{r4}} {{r5}}")
r1 = a.maybe is defined
r2 = b.maybe is defined
r3 = a.others is defined
r4 = b.others is defined
r5 = a.d["k"] is defined
"""
    assert outputs(project, source) == ["False True False True True"]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ('1 + "a"', "main.cf:5:5: error: '+' needs numbers, not int 1 and string \"a\"  [type-error]"),
        ('"a" + 1', "main.cf:5:5: error: '+' joins a string only to a string, not to int 1  [type-error]"),
        ("1 / 0", "main.cf:5:5: error: division by zero in 1 / 0  [arithmetic]"),
        ('"a" < 1', "main.cf:5:5: error: '<' compares numbers, not string \"a\" and int 1  [type-error]"),
        ("not 1", "main.cf:5:5: error: 'not' applies to a bool, not int 1  [type-error]"),
        ("1 and true", "main.cf:5:5: error: 'and' needs bools; the left side is int 1  [type-error]"),
        ('{"a": 1}["b"]', 'main.cf:5:5: error: key "b" not found in the dict (keys: "a")  [key-error]'),
        ('[1]["a"]', "main.cf:5:5: error: [...] looks up a key in a dict; [1] is list  [type-error]"),
        ("1 ? 2 : 3", "main.cf:5:5: error: the condition of '? :' must be a bool, not int 1  [type-error]"),
        (
            "1 in 2",
            "main.cf:5:10: error: 'in' looks in a list or a dict, not in int 2  [type-error]",
        ),
        (
            "[x for x in 3]",
            "main.cf:5:17: error: a list comprehension iterates a list or a relation, not int 3  [type-error]",
        ),
        (
            '"a" is "b"',
            'main.cf:5:5: error: no enum has both "a" and "b" as values; \'is\' tests enum values  [type-error]',
        ),
    ],
)
def test_expression_errors(project: Project, expression: str, message: str) -> None:
    assert error_of(project, OUT + f"x = {expression}\n") == message


def test_control_flow_errors(project: Project) -> None:
    assert error_of(project, OUT + "if 1:\nend\n") == (
        "main.cf:5:4: error: the condition of 'if' must be a bool, not int 1  [type-error]"
    )
    assert error_of(project, OUT + "for x in 3:\nend\n") == (
        "main.cf:5:10: error: 'for' iterates a list or a relation, not int 3  [type-error]"
    )
