"""``cfmodel graph``: every output format from graph files, narrowing, and its exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.cli import main
from cfmodel.transforms.graph import GraphBuilder
from cfmodel.transforms.graph.files import read_graph, write_graph
from cfmodel.transforms.graph.picture import graph_picture

from .conftest import at, webshop_graph
from .pictures import need, svg_titles


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "webshop.xmi"
    write_graph(path, webshop_graph())
    return path


def test_dot_on_stdout_by_default(graph_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["graph", str(graph_file)]) == 0
    assert capsys.readouterr().out == graph_picture(webshop_graph()).dot


def test_svg_file_by_extension(graph_file: Path, tmp_path: Path) -> None:
    need("dot", "graphviz")
    out = tmp_path / "g.svg"
    assert main(["graph", str(graph_file), "-o", str(out)]) == 0
    nodes, edges = svg_titles(out.read_text(encoding="utf-8"))
    assert len([n for n in nodes if n != "legend"]) == 6 and len(edges) == 5


def test_agent_reduce_order_and_model_formats(
    graph_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["graph", str(graph_file), "--agent", "web1", "--format", "order"]) == 0
    assert capsys.readouterr().out == (
        "std::Package[web1,name=nginx]\nstd::File[web1,path=/etc/nginx.conf]\nstd::Service[web1,name=nginx]\n"
    )
    out = tmp_path / "web1.json"
    assert main(["graph", str(graph_file), "--agent", "web1", "--neighbours", "-o", str(out)]) == 0
    assert len(read_graph(out)) == 4
    assert main(["graph", str(graph_file), "--reduce", "--format", "dot", "--no-legend"]) == 0
    assert '"legend"' not in capsys.readouterr().out


def test_yamlgraph_in_and_out(graph_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "web1.yaml"
    assert main(["graph", str(graph_file), "--agent", "web1", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert (
        "warning: not carried into the YAML graph: agent: web1 (a YAML graph does not name its host)" in err
    )
    assert main(["graph", str(out), "--format", "order"]) == 0
    assert capsys.readouterr().out == "pkg[nginx]\nfile[/etc/nginx.conf]\nsvc[nginx]\n"
    assert main(["graph", str(graph_file), "--format", "yamlgraph"]) == 1
    assert "[yamlgraph-clash]" in capsys.readouterr().err


def test_a_cycle_is_exit_1_with_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = GraphBuilder()
    x, y = b.resource("r", "x"), b.resource("r", "y")
    b.before(x, y, at(2, "x -> y"))
    b.before(y, x, at(3, "y -> x"))
    path = tmp_path / "cycle.json"
    write_graph(path, b.build())
    assert main(["graph", str(path), "--format", "order"]) == 1
    assert capsys.readouterr().err == (
        "main.cf:2:1: error: dependency cycle: r[x] -> r[y] -> r[x]  [dependency-cycle]\n"
        "main.cf:2:1: note: r[x] -> r[y] (before): x -> y\n"
        "main.cf:3:1: note: r[y] -> r[x] (before): y -> x\n"
    )
    assert main(["graph", str(path)]) == 0  # a cyclic graph can still be drawn


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["graph", "{graph}", "-o", "{tmp}/x.pdf"], "cannot tell the format of"),
        (["graph", "{graph}", "--format", "png"], "a PNG needs an output file"),
        (["graph", "{tmp}/missing.xmi"], "no such file or directory"),
        (["graph", "{graph}", "--agent", "nope"], "no resource has the agent 'nope'; agents: db1, web1"),
    ],
)
def test_usage_errors_exit_2(
    graph_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    args = [a.format(graph=graph_file, tmp=tmp_path) for a in argv]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_without_graphviz_svg_says_how_to_get_it(
    graph_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["graph", str(graph_file), "-o", str(tmp_path / "g.svg")]) == 2
    assert "apt-get install graphviz" in capsys.readouterr().err
    assert not (tmp_path / "g.svg").exists()
    assert main(["graph", str(graph_file), "-o", str(tmp_path / "g.dot")]) == 0


def test_an_mcl_program_is_a_graph_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "main.mcl").write_text(
        'file "/tmp/hello" {\n\tcontent => "hi\\n",\n\tstate => "exists",\n}\n'
        'pkg "cowsay" {\n\tstate => "installed",\n}\n'
        'Pkg["cowsay"] -> File["/tmp/hello"]\n',
        encoding="utf-8",
    )
    assert main(["graph", str(tmp_path / "main.mcl"), "--format", "order"]) == 0
    assert capsys.readouterr().out == "pkg[cowsay]\nfile[/tmp/hello]\n"
    assert main(["graph", str(tmp_path), "--format", "yamlgraph"]) == 0  # a program directory
    text = capsys.readouterr().out
    assert '  file:\n  - name: /tmp/hello\n    content: "hi\\n"\n    state: exists\n' in text
    assert "  from:\n    kind: pkg\n    name: cowsay\n  to:\n    kind: file\n" in text
