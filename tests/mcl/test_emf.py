"""Real EMF loads what mcl produces: the resource kinds metamodel and a program's graph."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.mcl import compile_str
from cfmodel.metamodel import graph as gm
from cfmodel.metamodel.mcl_kinds import kinds_package
from cfmodel.serializers import ecore
from cfmodel.transforms.graph.files import write_graph
from tests.conftest import skip_or_fail
from tests.emf.emf import EmfChecker, EmfUnavailableError, build_checker

PROGRAM = """\
import "fmt"
class site($name str, $port int) {
	file ["/srv/${name}/", "/srv/${name}/index.html",] {
		content => fmt.printf("%s on %d", $name, $port),
		Meta:retry => 2,
	}
	svc "web-${name}" { Depend => File["/srv/${name}/index.html"], }
	exec "reload-${name}" { cmd => "true", }
	Exec["reload-${name}"].output -> File["/srv/${name}/"].content
}
include site("a", 80)
include site("b", 81)
test "map" { mapintfloat => {1 => 1.5,}, }
"""


@pytest.fixture(scope="module")
def emf() -> EmfChecker:
    try:
        return build_checker()
    except EmfUnavailableError as exc:
        skip_or_fail(f"real EMF unavailable: {exc}")
        raise


def test_real_emf_loads_an_mcl_graph_and_the_kinds(emf: EmfChecker, tmp_path: Path) -> None:
    graph = compile_str(PROGRAM).graph
    assert len(graph.resources) == 9
    ecore.write(tmp_path / "graph.ecore", gm.PACKAGE)
    ecore.write(tmp_path / "mclkinds.ecore", kinds_package())
    write_graph(tmp_path / "program.xmi", graph)
    report = emf.check([tmp_path / "graph.ecore", tmp_path / "mclkinds.ecore"], [tmp_path / "program.xmi"])
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
