"""docs/graph.md: its Python example runs and builds the graph it describes."""

from __future__ import annotations

import re
from pathlib import Path

from cfmodel.metamodel.resource_graph import EdgeKind, ResourceGraph

DOC = (Path(__file__).resolve().parents[2] / "docs" / "graph.md").read_text(encoding="utf-8")


def test_the_builder_example_runs() -> None:
    (block,) = re.findall(r"```python\n(.*?)```", DOC, re.DOTALL)
    namespace: dict[str, object] = {}
    exec(block, namespace)  # the documentation's own example
    graph = namespace["graph"]
    assert isinstance(graph, ResourceGraph)
    assert list(graph.resources) == [
        "std::Package[web1,name=nginx]",
        "std::File[web1,path=/etc/nginx.conf]",
        "std::Service[web1,name=nginx]",
    ]
    assert [e.kind for e in graph.edges] == [
        EdgeKind.REQUIRES,
        EdgeKind.NOTIFY,
        EdgeKind.BEFORE,
        EdgeKind.LISTEN,
        EdgeKind.SENDRECV,
    ]
    assert graph.edges[0].source == "std::Package[web1,name=nginx]"


def test_every_metamodel_class_is_documented() -> None:
    from cfmodel.metamodel import graph as gm

    for classifier in gm.PACKAGE.eClassifiers:
        assert f"`{classifier.name}`" in DOC, classifier.name
