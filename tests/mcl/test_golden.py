"""Golden tests of mcl: each case is a program (``main.mcl``) and the graph it produces
(``Vertex:``/``Edge:`` lines, sorted) or the full rendered diagnostics of the stage that
refuses it. ``pytest --update-golden`` rewrites the ``[out]`` sections (review the diff).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cfmodel.errors import CfModelError
from cfmodel.mcl import compile_str
from cfmodel.metamodel.mcl_kinds import META_DEFAULTS
from cfmodel.metamodel.resource_graph import normalize_value, values_equal
from cfmodel.transforms.mcl.to_graph import graph_text
from tests.golden import Case, load_cases, rewrite_case

CASES_DIR = Path(__file__).parent / "cases"
CASES = [case for path in sorted(CASES_DIR.glob("*.test")) for case in load_cases(path)]
FACTS = {"hostname": "h1", "now": 1700000000}


def render(source: str) -> str:
    """The graph's text, then each resource's set fields (``kind[name].field = value``) and
    its meta parameters that are not mgmt's defaults (``kind[name].Meta:name = value``)."""
    try:
        graph = compile_str(source, FACTS, name="main.mcl").graph
    except CfModelError as error:
        return error.render() + "\n"
    lines = [graph_text(graph) or "(empty graph)\n"]
    for resource in sorted(graph.resources.values(), key=lambda r: (r.kind, r.name)):
        for field, value in sorted(resource.attributes.items()):
            lines.append(f"{resource.kind}[{resource.name}].{field} = {json.dumps(value, sort_keys=True)}\n")
        for name, value in sorted(resource.meta.items()):
            if not values_equal(value, normalize_value(META_DEFAULTS[name])):
                lines.append(f"{resource.kind}[{resource.name}].Meta:{name} = {json.dumps(value)}\n")
    return "".join(lines)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.file.stem}::{c.name}" for c in CASES])
def test_case(case: Case, update_golden: bool) -> None:
    actual = render(case.source)
    if update_golden and actual != case.expected:
        rewrite_case(case, actual)
        pytest.skip("golden output rewritten")
    assert actual == case.expected


def test_case_names_are_unique() -> None:
    names = [(c.file.stem, c.name) for c in CASES]
    assert len(names) == len(set(names))


def test_corpus_size() -> None:
    assert len(CASES) >= 300
