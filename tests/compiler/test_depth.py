"""Depth of any kind is not limited by Python's recursion limit: long operator chains,
`not` chains, attribute paths, relations copied along a chain of instances, deep
hierarchies; each compiles to the right values (with and without the parse cache) and
exports, and what is too deep is a clear error, never a traceback (docs/compiler.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from cfmodel.cache import ParseCache
from cfmodel.errors import CfModelError
from cfmodel.grammars.cf import parse_str
from cfmodel.transforms.cf import conditions
from cfmodel.transforms.cf.resolve import MAX_INHERITANCE_DEPTH
from tests.compiler.conftest import Project, compile_main, values

HEAD = """entity Out:
    int i = 0
    bool b = false
    string s = ""
end
implement Out using std::none
"""


def test_the_recursion_limit_is_the_default() -> None:
    assert sys.getrecursionlimit() <= 1000  # the tests below mean something only then


@pytest.mark.parametrize(
    ("text", "attribute", "expected"),
    [
        ("Out(i=" + " + ".join(["1"] * 10_000) + ")", "i", 10_000),
        ("Out(i=" + " - ".join(["1"] * 10_000) + ")", "i", 2 - 10_000),
        ("Out(i=" + " * ".join(["1"] * 5_000) + " + 1)", "i", 2),
        ("Out(b=" + " and ".join(["true"] * 10_000) + ")", "b", True),
        ("Out(b=" + " or ".join(["false"] * 9_999 + ["true"]) + ")", "b", True),
        ("Out(b=" + " and ".join(["1 < 2"] * 3_000) + " and false)", "b", False),
        ("Out(b=" + "not " * 2_001 + "true)", "b", False),
        ("Out(s=" + " + ".join(['"ab"'] * 10_000) + ")", "s", "ab" * 10_000),
    ],
    ids=["plus", "minus", "times-then-plus", "and", "or", "comparisons", "not", "strings"],
)
def test_long_chains(project: Project, text: str, attribute: str, expected: object) -> None:
    assert values(compile_main(project, HEAD + text + "\n"), "Out", attribute) == [expected]


def test_long_chain_through_the_parse_cache(project: Project, tmp_path: Path) -> None:
    """The parse cache pickles trees: one too deep for pickle is parsed again instead."""
    text = HEAD + "Out(i=" + " + ".join(["2"] * 10_000) + ")\n"
    cache = ParseCache(tmp_path / "cache")
    for _ in range(2):
        assert values(compile_main(project, text, cache=cache), "Out", "i") == [20_000]


def test_attribute_path_of_2000_steps(project: Project) -> None:
    text = (
        "entity Node:\n    int k\nend\nNode.next [0:1] -- Node\nimplement Node using std::none\n"
        + HEAD
        + "n = Node(k=7)\nn.next = n\n"
        + "Out(i=n"
        + ".next" * 2_000
        + ".k)\n"
    )
    assert values(compile_main(project, text), "Out", "i") == [7]


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_relation_copied_along_5000_instances(project: Project, order: str) -> None:
    n = 5_000
    copies = [f"n{k + 1}.items = n{k}.items" for k in range(n)]
    lines = [
        "entity Item:\n    int n\nend\nimplement Item using std::none",
        "entity Node:\n    int k\nend\nimplement Node using std::none",
        "Node.items [0:] -- Item",
        *(f"n{k} = Node(k={k})" for k in range(n + 1)),
        *(copies if order == "forward" else reversed(copies)),
        "n0.items = [Item(n=1), Item(n=2)]",
    ]
    result = compile_main(project, "\n".join(lines) + "\n")
    nodes = [i for i in result.raw_instances if i.info.qname == "__config__::Node"]
    assert len(nodes) == n + 1
    assert {tuple(item.slots["n"].value for item in node.slots["items"].items) for node in nodes} == {(1, 2)}  # type: ignore[union-attr]


def test_long_typedef_condition_compiles_and_lifts(project: Project) -> None:
    condition = " and ".join(["self > 0"] * 3_000)
    text = f"typedef positive as int matching {condition}\n" + HEAD + "entity P:\n    positive p\nend\n"
    text += "implement P using std::none\nP(p=3)\n"
    result = compile_main(project, text)
    datatype = result.domain.edatatype("__config__::positive")
    assert _annotations(datatype)["http://cfmodel.org/typedef"]["condition"] == condition
    assert len(result.model) >= 1


def test_hierarchy_of_the_supported_depth(project: Project) -> None:
    depth = MAX_INHERITANCE_DEPTH - 1  # std::Entity is the first level
    text = "entity E0:\n    int n = 5\nend\nimplement E0 using std::none\n"
    text += "".join(
        f"entity E{k} extends E{k - 1}:\nend\nimplement E{k} using parents\n" for k in range(1, depth)
    )
    text += f"E{depth - 1}()\n"
    result = compile_main(project, text)
    assert values(result, f"E{depth - 1}", "n") == [5]
    assert len(result.model) == 1


def test_deeper_hierarchy_is_refused(project: Project) -> None:
    text = "entity E0:\nend\n" + "".join(f"entity E{k} extends E{k - 1}:\nend\n" for k in range(1, 2_000))
    project.write({"main.cf": text})
    message = project.error()
    assert message.splitlines() == [
        f"main.cf:{2 * MAX_INHERITANCE_DEPTH - 1}:8: error: __config__::E{MAX_INHERITANCE_DEPTH - 1} is "
        f"{MAX_INHERITANCE_DEPTH + 1} levels deep in its hierarchy; at most {MAX_INHERITANCE_DEPTH} are supported  "
        "[inheritance-depth]"
    ]


@pytest.mark.parametrize("opening", ["(", "["])
def test_brackets_nested_past_the_parser_are_a_syntax_error(project: Project, opening: str) -> None:
    closing = {"(": ")", "[": "]"}[opening]
    project.write({"main.cf": "x = " + opening * 1_000 + "1" + closing * 1_000 + "\n"})
    with pytest.raises(CfModelError) as caught:
        project.compile()
    assert caught.value.render().endswith("the file nests too deeply to parse  [syntax]")


def test_constant_evaluation_of_long_chains() -> None:
    """`conditions` (typedef conditions and defaults without a compile) walks chains too."""
    module = parse_str(
        "a = "
        + " and ".join(["1 < 2"] * 5_000)
        + "\nb = "
        + " + ".join(["1"] * 5_000)
        + "\nc = "
        + "not " * 3_001
        + "true\n",
        "main.cf",
    )
    assert [conditions.evaluate(s.value, {}) for s in module.statements] == [True, 5_000, False]  # type: ignore[attr-defined]


def _annotations(element: Any) -> dict[str, dict[str, str]]:
    """Each annotation of *element*: source -> its details."""
    return {str(a.source): {str(k): str(v) for k, v in a.details.items()} for a in element.eAnnotations}
