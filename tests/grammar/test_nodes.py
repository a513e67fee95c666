"""One child walker for expressions (`nodes.sub_expressions`, `nodes.walk`) and a small visitor."""

from __future__ import annotations

import typing

from cfmodel.grammars import nodes
from cfmodel.grammars.cf import parse_str


def expression(source: str) -> nodes.Expression:
    module = parse_str(f"x = {source}\n", "t.cf")
    statement = module.statements[0]
    assert isinstance(statement, nodes.Assignment)
    return statement.value


def test_every_expression_class_has_its_children_listed() -> None:
    classes = set(typing.get_args(nodes.Expression))
    assert len(classes) == 18
    assert classes == set(nodes._CHILDREN)


def test_walk_is_depth_first_in_source_order() -> None:
    tree = expression('a + f(b, k=c.d[e]) * [g for h in i if j] ? "{{l}}" : m')
    names = [e.name.text for e in nodes.walk(tree) if isinstance(e, nodes.Reference)]
    assert names == ["a", "b", "c", "e", "g", "i", "j", "l", "m"]
    assert next(iter(nodes.walk(tree))) is tree
    assert list(nodes.sub_expressions(expression("1"))) == []


def test_the_visitor_dispatches_on_the_class_name() -> None:
    class Calls(nodes.ExpressionVisitor[None]):
        def __init__(self) -> None:
            self.found: list[str] = []

        def visit_FunctionCall(self, node: nodes.FunctionCall) -> None:  # noqa: N802
            self.found.append(node.name.text)
            self.generic_visit(node)

    visitor = Calls()
    visitor.visit(expression("std::a(std::b(1), [Host(n=std::c())])"))
    assert visitor.found == ["std::a", "std::b", "std::c"]
