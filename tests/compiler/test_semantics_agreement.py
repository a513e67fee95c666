"""The two expression evaluators agree: the compiler and `conditions` (typedef conditions,
constant defaults without a compile) give the same value or the same error, at the same
place, for every row of the table (both use `cfmodel.transforms.cf.semantics`).

Each row is compiled as ``x = <expression>`` (after its setup lines, e.g. ``y = true``)
and evaluated by `conditions.evaluate` from the same parsed file, with the setup's
values as its variables. Values are compared with their types (``1``, ``1.0`` and
``true`` differ). Rows marked "inmanta:" are where inmanta-core 20.1 differs (docs/compiler.md,
"Deviations"); the rest agree with it as well.
"""

from __future__ import annotations

from typing import Any

import pytest

from cfmodel.errors import CfEvaluationError
from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str
from cfmodel.transforms.cf import conditions
from tests.compiler.conftest import Project, compile_main

HEAD = """entity Out:
    dict v
end
implement Out using std::none
"""


class Fails:
    """An expected error: the compiler's message and code (conditions gives the same message)."""

    def __init__(self, message: str, code: str = "type-error") -> None:
        self.message = message
        self.code = code

    def __repr__(self) -> str:
        return f"Fails({self.message!r})"


# (setup, expression, expected value or Fails)
ROWS: list[tuple[str, str, Any]] = [
    # == and != across kinds
    ("", "1 == true", False),  # inmanta: True (a bool is an int there)
    ("", "true == 1", False),  # inmanta: True
    ("", "0 == false", False),  # inmanta: True
    ("", "1.0 != true", True),  # inmanta: False
    ("", "true == true", True),
    ("", "1 == 1.0", True),
    ("", '"1" == 1', False),
    ("", "null == null", True),
    ("", "null == false", False),
    ("", "null != 0", True),
    ("", '"a" != "a"', False),
    ("", "[1, 2] == [1, 2]", True),
    ("", "[1] == [1.0]", True),
    ("", "[] == {}", False),
    ("", '{"a": 1} == {"a": 1}', True),
    ("", '{"a": 1} != {"a": 2}', True),
    # ordering: numbers only
    ("", "1 < 2", True),
    ("", "2.5 >= 2", True),
    ("", "1 <= 1.0", True),
    ("", "3 > 4", False),
    ("", '"a" < "b"', Fails('\'<\' compares numbers, not string "a" and string "b"')),
    ("", "true < 2", Fails("'<' compares numbers, not bool true and int 2")),  # inmanta: True
    ("", "null >= 1", Fails("'>=' compares numbers, not null null and int 1")),
    ("", "[1] <= [2]", Fails("'<=' compares numbers, not list [1] and list [2]")),
    # arithmetic
    ("", "1 + 2", 3),
    ("", "7 / 2", 3.5),
    ("", "6 / 3", 2.0),
    ("", "7 % 3", 1),
    ("", "-7 % 3", 2),
    ("", "2 ** 10", 1024),
    ("", "2 ** -1", 0.5),
    ("", "1.5 * 2", 3.0),
    ("", "10 - 2.5", 7.5),
    ("", '"a" + "b"', "ab"),
    (
        "",
        "[1] + [2, 3]",
        Fails(
            "'+' does not join lists ([1] and [2, 3]); a list literal does: [a, b] splices lists a and b in"
        ),
    ),
    ("", '"ab" * 2', Fails("'*' needs numbers, not string \"ab\" and int 2")),
    ("", "[1] * 2", Fails("'*' needs numbers, not list [1] and int 2")),
    ("", "true + 1", Fails("'+' needs numbers, not bool true and int 1")),  # inmanta: 2
    ("", "1 - true", Fails("'-' needs numbers, not int 1 and bool true")),  # inmanta: 0
    ("", '"a" + 1', Fails("'+' joins a string only to a string, not to int 1")),
    ("", '1 + "a"', Fails("'+' needs numbers, not int 1 and string \"a\"")),
    ("", '[1] + "a"', Fails("'+' needs numbers, not list [1] and string \"a\"")),
    ("", '{"a": 1} + {"b": 2}', Fails('\'+\' needs numbers, not dict {"a": 1} and dict {"b": 2}')),
    ("", "1 / 0", Fails("division by zero in 1 / 0", "arithmetic")),
    ("", "1.0 / 0", Fails("division by zero in 1.0 / 0", "arithmetic")),
    ("", "5 % 0", Fails("division by zero in 5 % 0", "arithmetic")),
    ("", "0.0 ** -1", Fails("division by zero in 0.0 ** -1", "arithmetic")),
    ("", "10.0 ** 400", Fails("10.0 ** 400 is too large", "arithmetic")),
    # in / not in
    ("", "1 in [1, 2]", True),
    ("", "true in [1]", False),  # inmanta: True
    ("", "1 in [true]", False),  # inmanta: True
    ("", "1 in [1.0]", True),
    ("", "null in [null]", True),
    ("", "[1] in [[1], [2]]", False),  # a list literal splices lists in: [1] in [1, 2]
    ("", "[[1, 2], 3, [4, [5]]]", [1, 2, 3, 4, 5]),
    ("", "1 in [[1], 2]", True),
    ("", '"x" not in ["a"]', True),
    ("", '"a" in {"a": 1}', True),
    ("", '"a" not in {"a": 1}', False),
    ("", '1 in {"1": 2}', False),
    ("", '"ell" in "hello"', Fails("'in' looks in a list or a dict, not in string \"hello\"")),
    ("", '1 in "abc"', Fails("'in' looks in a list or a dict, not in string \"abc\"")),
    ("", '"x" in 3', Fails("'in' looks in a list or a dict, not in int 3")),
    ("", '"x" not in null', Fails("'in' looks in a list or a dict, not in null null")),
    # and / or / not / ? :
    ("", "true and false", False),
    ("", "false and 1", False),
    ("", "true or 1", True),
    ("", "false or true", True),
    ("", "not false", True),
    ("", "true ? 1 : 2", 1),
    ("", "false ? 1 : 2", 2),
    ("", "1 and true", Fails("'and' needs bools; the left side is int 1")),
    ("", "true and 1", Fails("'and' needs bools; the right side is int 1")),
    ("", 'false or "x"', Fails("'or' needs bools; the right side is string \"x\"")),
    ("", "null or true", Fails("'or' needs bools; the left side is null null")),
    ("", "not 1", Fails("'not' applies to a bool, not int 1")),
    ("", "null ? 1 : 2", Fails("the condition of '? :' must be a bool, not null null")),
    # dict lookups and is defined
    ('d = {"a": 1, "n": null}', 'd["a"]', 1),
    ('d = {"a": 1, "n": null}', 'd["n"]', None),
    (
        'd = {"a": 1, "n": null}',
        'd["b"]',
        Fails('key "b" not found in the dict (keys: "a", "n")', "key-error"),
    ),
    ('d = {"a": 1, "n": null}', "d[1]", Fails("dict keys are strings, not int 1")),
    ("l = [1, 2]", "l[0]", Fails("[...] looks up a key in a dict; [1, 2] is list")),
    ('s = "abc"', 's["a"]', Fails('[...] looks up a key in a dict; "abc" is string')),
    ('d = {"a": 1, "n": null}', 'd["a"] is defined', True),
    ('d = {"a": 1, "n": null}', 'd["n"] is defined', False),
    ('d = {"a": 1, "n": null}', 'd["b"] is defined', False),
    ('d = {"a": 1}', "d[[1]] is defined", Fails("dict keys are strings, not list [1]")),
    ('d = {"a": 1}', "d[1] is defined", Fails("dict keys are strings, not int 1")),
    ("l = [1]", 'l["a"] is defined', Fails("'is defined' on [...] needs a dict, not [1]")),
    # attributes exist on entity instances only
    ("y = 1", "y.name", Fails("cannot read 'name' of int 1: it is not an entity instance")),
    (
        "y = [1]",
        "y.name",
        Fails("cannot read 'name' of a list ([1]); iterate it with 'for' or a comprehension"),
    ),
    # interpolation: Python's str()
    ("y = true", '"<{{y}}>"', "<True>"),
    ("y = null", '"<{{y}}>"', "<null>"),  # as inmanta-core
    ("y = 1.0", '"<{{y}}>"', "<1>"),  # as inmanta-core: a whole float shows as an int
    ("y = 1.5", '"<{{y}}>"', "<1.5>"),
    ("y = [2.0]", '"<{{y}}>"', "<[2.0]>"),  # as inmanta-core: not inside a list
    ("y = 2.0", 'f"<{y}|{y!r}|{y:.1f}>"', "<2|2|2.0>"),  # as inmanta-core
    ('y = "s"', '"<{{y}}>"', "<s>"),
    ("y = [1, true, null]", '"<{{y}}>"', "<[1, True, null]>"),  # as inmanta-core
    ('y = {"k": null, "n": [null, "a"]}', 'f"<{y}>"', "<{'k': null, 'n': [null, 'a']}>"),
    ('y = {"a": true}', '"<{{y}}>"', "<{'a': True}>"),
    # f-strings: Python's conversions and format mini-language
    ("y = 1", 'f"<{y:>4}>"', "<   1>"),
    ('y = "s"', 'f"{y!r}"', "'s'"),
    ("y = 2", 'f"{y:.2f}"', "2.00"),
    ("y = false", 'f"{y}"', "False"),
    (
        'y = "s"',
        'f"{y:d}"',
        Fails("cannot format \"s\" in f-string: Unknown format code 'd' for object of type 'str'"),
    ),
]


def _typed(value: Any) -> Any:
    """*value* with the type of every part, so that 1, 1.0 and true differ."""
    if isinstance(value, list):
        return ["list", [_typed(v) for v in value]]
    if isinstance(value, dict):
        return ["dict", {k: _typed(v) for k, v in value.items()}]
    return [type(value).__name__, value]


def _by_conditions(text: str) -> tuple[str, Any]:
    """``x``'s value from `conditions.evaluate`, or ``file:line:col: error: message``."""
    module = parse_str(text, "main.cf")
    variables: dict[str, Any] = {}
    for statement in module.statements:
        if isinstance(statement, nodes.Assignment):
            name = statement.target.name.text  # type: ignore[union-attr]
            try:
                variables[name] = conditions.evaluate(statement.value, variables)
            except conditions.ConstantError as error:
                assert error.span is not None
                return "error", f"{error.span.start()}: error: {error.message}"
    return "value", variables["x"]


def _by_compiler(project: Project, text: str) -> tuple[str, Any]:
    """``x``'s value from a compile, or the error without its code; and the code."""
    try:
        result = compile_main(project, text)
    except CfEvaluationError as error:
        rendered = error.render()
        message, _, code = rendered.rpartition("  [")
        return "error", (message, code.rstrip("]"))
    (out,) = [i for i in result.raw_instances if i.info.qname == "__config__::Out"]
    return "value", out.slots["v"].value["x"]  # type: ignore[union-attr]


@pytest.mark.parametrize(("setup", "expression", "expected"), ROWS, ids=[r[1] for r in ROWS])
def test_both_evaluators_agree(project: Project, setup: str, expression: str, expected: Any) -> None:
    text = HEAD + (setup + "\n" if setup else "") + f'x = {expression}\nOut(v={{"x": x}})\n'
    kind, compiled = _by_compiler(project, text)
    ckind, evaluated = _by_conditions(text)
    if isinstance(expected, Fails):
        assert kind == "error" and ckind == "error"
        message, code = compiled
        assert (message.split(": error: ", 1)[1], code) == (expected.message, expected.code)
        assert evaluated == message  # same message at the same place
    else:
        assert (kind, ckind) == ("value", "value")
        assert _typed(compiled) == _typed(evaluated) == _typed(expected)


def test_every_operator_and_kind_of_expression_is_in_the_table() -> None:
    text = "\n".join(f"x{n} = {expression}" for n, (_, expression, _) in enumerate(ROWS)) + "\n"
    seen: set[str] = set()
    kinds: set[str] = set()
    stack: list[Any] = [s.value for s in parse_str(text).statements]  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        kinds.add(type(node).__name__)
        if isinstance(node, nodes.BinaryOperation):
            seen.add(node.operator)
        for name in getattr(node, "__slots__", ()):
            child = getattr(node, name)
            for item in child if isinstance(child, list) else [child]:
                if isinstance(item, nodes.FormatField):
                    item = item.value
                if type(item).__module__ == nodes.__name__ and hasattr(item, "span"):
                    stack.append(item)
    assert seen == {
        "==",
        "!=",
        "<",
        ">",
        "<=",
        ">=",
        "+",
        "-",
        "*",
        "/",
        "%",
        "**",
        "in",
        "not in",
        "and",
        "or",
    }
    assert {
        "Not",
        "Conditional",
        "MapLookup",
        "IsDefined",
        "AttributeAccess",
        "Interpolation",
        "FString",
    } <= kinds
