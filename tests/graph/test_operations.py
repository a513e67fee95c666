"""Graph operations: topological order, cycle reports, transitive reduction, agent subgraphs."""

from __future__ import annotations

import itertools
import random

import pytest

from cfmodel.errors import CfCompileError, CfUsageError
from cfmodel.metamodel.resource_graph import EdgeKind, ResourceGraph
from cfmodel.transforms.graph import GraphBuilder
from cfmodel.transforms.graph.order import find_cycles, topological_order
from cfmodel.transforms.graph.reduce import transitive_reduction
from cfmodel.transforms.graph.subgraph import agent_subgraph

from .conftest import at, webshop_graph


def _chain(*names: str) -> GraphBuilder:
    b = GraphBuilder()
    for name in names:
        b.resource("r", name)
    return b


def _reachable(graph: ResourceGraph) -> set[tuple[str, str]]:
    after = graph.successors()
    pairs: set[tuple[str, str]] = set()
    for start in after:
        todo, seen = list(after[start]), set()
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(after[node])
        pairs.update((start, s) for s in seen)
    return pairs


def test_order_puts_dependencies_first_and_keeps_declaration_order_otherwise() -> None:
    b = _chain("c", "a", "b", "d")
    b.before("r[b]", "r[c]")
    b.requires("r[a]", "r[d]")
    assert [r.name for r in topological_order(b.build())] == ["b", "c", "d", "a"]


def _smallest_free_first(graph: ResourceGraph) -> list[str]:
    """The order's definition, quadratic: the first-made resource whose dependencies are done."""
    done: list[str] = []
    left = list(graph.resources)
    while left:
        free = next(r for r in left if all(e.source in done for e in graph.edges if e.target == r))
        done.append(free)
        left.remove(free)
    return done


@pytest.mark.parametrize("forward_only", [True, False])
def test_order_is_the_smallest_free_resource_first_on_random_dags(forward_only: bool) -> None:
    rng = random.Random(11)
    for _ in range(30):
        names = [f"n{i}" for i in range(25)]
        made = names if forward_only else rng.sample(names, len(names))  # declaration order
        b = _chain(*made)
        for _ in range(rng.randrange(0, 60)):
            i, j = sorted(rng.sample(range(25), 2))  # n_i before n_j: acyclic
            b.before(f"r[{names[i]}]", f"r[{names[j]}]")
        graph = b.build()
        assert [r.id for r in topological_order(graph)] == _smallest_free_first(graph)


def test_order_of_the_webshop() -> None:
    order = [r.id for r in topological_order(webshop_graph())]
    for edge in webshop_graph().edges:
        assert order.index(edge.source) < order.index(edge.target)


def test_a_cycle_names_its_resources_and_each_edge_statement() -> None:
    b = _chain("a", "b", "c", "d")
    b.before("r[a]", "r[b]", at(3, "a -> b"))
    b.requires("r[a]", "r[c]", at(4, "a.requires = c"))
    b.notify("r[b]", "r[c]", at(5, "b notifies c"))
    b.before("r[d]", "r[d]", at(9, "d -> d"))
    with pytest.raises(CfCompileError) as err:
        topological_order(b.build())
    assert err.value.render() == "\n".join(
        [
            "main.cf:3:1: error: dependency cycle: r[a] -> r[b] -> r[c] -> r[a]  [dependency-cycle]",
            "main.cf:3:1: note: r[a] -> r[b] (before): a -> b",
            "main.cf:5:1: note: r[b] -> r[c] (notifies): b notifies c",
            "main.cf:4:1: note: r[c] -> r[a] (requires): a.requires = c",
            "main.cf:9:1: error: dependency cycle: r[d] -> r[d]  [dependency-cycle]",
            "main.cf:9:1: note: r[d] -> r[d] (before): d -> d",
        ]
    )


def test_find_cycles_is_empty_on_a_dag_and_finds_one_per_component() -> None:
    assert find_cycles(webshop_graph()) == []
    b = _chain(*"abcdef")
    for x, y in ("ab", "ba", "cd", "de", "ec", "ef"):
        b.before(f"r[{x}]", f"r[{y}]")
    cycles = find_cycles(b.build())
    assert [[e.source for e in c] for c in cycles] == [["r[a]", "r[b]"], ["r[c]", "r[d]", "r[e]"]]


def test_a_long_chain_needs_no_recursion() -> None:
    names = [f"n{i}" for i in range(5000)]
    b = _chain(*names)
    for x, y in itertools.pairwise(names):
        b.before(f"r[{x}]", f"r[{y}]")
    b.before("r[n4999]", "r[n0]")
    (cycle,) = find_cycles(b.build())
    assert len(cycle) == 5000


def test_reduction_drops_implied_ordering_edges_only() -> None:
    b = _chain("a", "b", "c")
    b.before("r[a]", "r[b]")
    b.before("r[b]", "r[c]")
    b.requires("r[c]", "r[a]")  # implied by a -> b -> c
    b.notify("r[a]", "r[c]")  # implied too, but it notifies: kept
    b.notify("r[a]", "r[b]")  # same pair as a -> b (before): the before edge goes
    reduced = transitive_reduction(b.build())
    assert [(e.kind, e.source, e.target) for e in reduced.edges] == [
        (EdgeKind.BEFORE, "r[b]", "r[c]"),
        (EdgeKind.NOTIFY, "r[a]", "r[c]"),
        (EdgeKind.NOTIFY, "r[a]", "r[b]"),
    ]


def test_reduction_keeps_reachability_on_random_dags() -> None:
    rng = random.Random(7)
    for _ in range(20):
        names = [f"n{i}" for i in range(30)]
        b = _chain(*names)
        for _ in range(80):
            i, j = sorted(rng.sample(range(30), 2))
            if rng.random() < 0.5:
                b.before(f"r[{names[i]}]", f"r[{names[j]}]")
            else:
                b.requires(f"r[{names[j]}]", f"r[{names[i]}]")
        graph = b.build()
        reduced = transitive_reduction(graph)
        assert _reachable(reduced) == _reachable(graph)
        # minimal: removing any remaining edge changes reachability
        for edge in reduced.edges:
            rest = ResourceGraph(
                resources=reduced.resources, edges=[e for e in reduced.edges if e is not edge]
            )
            assert _reachable(rest) != _reachable(graph)


def test_agent_subgraph_with_and_without_neighbours() -> None:
    graph = webshop_graph()
    web = agent_subgraph(graph, "web1")
    assert web.name == "webshop:web1"
    assert all(r.agent == "web1" for r in web) and len(web) == 3
    assert len(web.edges) == 2
    wider = agent_subgraph(graph, "web1", neighbours=True)
    assert list(wider.resources) == [
        "std::Service[db1,name=nginx]",
        "std::Package[web1,name=nginx]",
        "std::File[web1,path=/etc/nginx.conf]",
        "std::Service[web1,name=nginx]",
    ]
    assert [e.kind for e in wider.edges][-1] is EdgeKind.SENDRECV
    with pytest.raises(CfUsageError) as err:
        agent_subgraph(graph, "web9")
    assert err.value.render() == "error: no resource has the agent 'web9'; agents: db1, web1  [unknown-agent]"
