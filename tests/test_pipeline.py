"""The pipeline façade (`cfmodel.pipeline`): named steps, each product printable.

The steps run one by one give what `compile_project` gives; `dump` prints each stage's
product; ``cfmodel compile --dump STAGE`` is the same text; `CompileResult` is data.
"""

from __future__ import annotations

import dataclasses
import shutil
import textwrap
from pathlib import Path

import pytest

from cfmodel import pipeline
from cfmodel.commands import compile as compile_command
from cfmodel.errors import CfUsageError
from cfmodel.transforms.cf.program import dump_program
from cfmodel.transforms.cf.refine.report import dump_instances
from tests.conftest import run_cfmodel

REPO = Path(__file__).resolve().parents[1]
WEBSHOP = REPO / "examples" / "webshop"
ENVIRONMENTS = REPO / "examples" / "environments"


@pytest.fixture(scope="module")
def webshop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("pipeline") / "webshop"
    shutil.copytree(WEBSHOP, target)
    return target


def test_the_steps_one_by_one_give_what_compile_project_gives(webshop: Path) -> None:
    assert pipeline.request(webshop) is None  # no environments.cfenv: compiled as it is
    project = pipeline.load(webshop)
    injector, facts, warnings = pipeline.bindings(project, {})
    program = pipeline.resolve(project)
    text = dump_program(program)
    instances = pipeline.evaluate(program, project, facts=facts, injector=injector)
    dumped = dump_instances(instances)
    metamodel = pipeline.lift(program)
    model = pipeline.to_model(instances, metamodel)
    whole = pipeline.compile_project(webshop)
    assert warnings == ()
    assert "namespace __config__" in text
    assert dumped == whole.dump() and dumped.startswith("#0 web::LoadBalancer\n")
    assert pipeline.xmi_bytes(model) == whole.xmi_bytes()
    assert metamodel.ecore_files() == whole.ecore_files()


def test_writing_is_a_step(webshop: Path, tmp_path: Path) -> None:
    result = pipeline.compile_project(webshop)
    written = pipeline.write_xmi(result.name, result.domain, result.instance_model, tmp_path / "xmi")
    assert sorted(p.name for p in written) == sorted([*result.ecore_files(), "webshop.xmi"])
    assert (tmp_path / "xmi" / "webshop.xmi").read_bytes() == result.xmi_bytes()
    json_file = pipeline.write_json(result.instance_model, tmp_path / "out" / "model.json")
    assert json_file.read_bytes() == result.json_bytes()


def test_compile_result_is_data(webshop: Path) -> None:
    result = pipeline.compile_project(webshop)
    assert dataclasses.is_dataclass(result)
    fields = [f.name for f in dataclasses.fields(result)]
    assert fields[:6] == ["program", "project", "raw_instances", "seconds", "name", "request_warnings"]
    assert result.name == "webshop" and result.project is None  # sources dropped by default
    assert result.counts() == {
        "web::Certificate": 1,
        "web::Database": 1,
        "web::LoadBalancer": 1,
        "web::Server": 2,
        "web::deploy::File": 4,
        "web::deploy::Package": 4,
        "web::deploy::Service": 4,
        "web::services::Vhost": 2,
    }


@pytest.mark.parametrize("stage", pipeline.STAGES)
def test_every_stage_dumps(webshop: Path, stage: str) -> None:
    text = pipeline.dump(stage, webshop)
    expected_start = {
        "request": f"{webshop}: no environments.cfenv",
        "load": "project webshop\n",
        "bindings": "no bindings: no site.bind, bindings/ or bindings: in project.yml, no module with bindings/\n",
        "resolve": "namespace __config__\n",
        "evaluate": "#0 web::LoadBalancer\n",
        "lift": "# __config__.ecore\n<?xml",
        "model": "<?xml",
    }[stage]
    assert text.startswith(expected_start), text[:200]
    assert text == pipeline.dump(stage, webshop)  # deterministic


def test_the_request_stage_of_a_project_with_environments() -> None:
    text = pipeline.dump("request", ENVIRONMENTS, facts={"fqdn": "joe.dev.example.com"}, environment="hotfix")
    lines = text.splitlines()
    assert lines[0] == "1. facts: 1 given: $fqdn = 'joe.dev.example.com'"
    assert lines[5].startswith("6. selected: 'hotfix', dynamic")


def test_the_bindings_stage_prints_what_the_compile_injects(tmp_path: Path) -> None:
    """A project compiled as it is, with a site.bind: the effective bindings the compile gets
    (the facts reach its categories), printed as ``cfmodel bindings show`` prints them."""
    (tmp_path / "main.cf").write_text(
        "import std\nentity A:\n    string greeting\nend\nimplement A using std::none\n"
        'A(greeting=std::inject("greeting"))\n',
        encoding="utf-8",
    )
    (tmp_path / "site.bind").write_text("site { categories { node => $fqdn } }\n", encoding="utf-8")
    (tmp_path / "bindings").mkdir()
    (tmp_path / "bindings" / "default.bind").write_text(
        "bindings default {\n  when node 'kermit' { bind 'greeting' to 'hello kermit' }\n  bind 'greeting' to 'hi'\n}\n",
        encoding="utf-8",
    )
    text = pipeline.dump("bindings", tmp_path, facts={"fqdn": "kermit"})
    assert text.splitlines() == [
        "environment: production",
        "layers: site, modules",
        "categories: node=kermit, environment=production, common=true",
        "classes: (none)",
        f"""Data "greeting" = 'hello kermit'  # {tmp_path}/bindings/default.bind:2:24 """
        """(bindings default, layer "site", category node "kermit")""",
    ]
    shown = run_cfmodel(
        "bindings", "show", str(tmp_path), "--fact", "fqdn=kermit", "--no-cache", cwd=tmp_path
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == text
    compiled = pipeline.compile_project(tmp_path, facts={"fqdn": "kermit"})
    assert '  greeting = "hello kermit"\n' in compiled.dump()


def test_an_unknown_stage_is_a_usage_error(webshop: Path) -> None:
    with pytest.raises(CfUsageError, match="the stages are request, load, bindings, resolve"):
        pipeline.dump("parse", webshop)


def test_the_cli_knows_the_same_stages() -> None:
    assert compile_command.STAGES == pipeline.STAGES


def test_compile_dump_from_the_cli(webshop: Path) -> None:
    done = run_cfmodel("compile", str(webshop), "--dump", "evaluate", "--no-cache", cwd=webshop)
    assert done.returncode == 0, done.stderr
    assert done.stdout == pipeline.dump("evaluate", webshop)
    wrong = run_cfmodel("compile", str(webshop), "--dump", "parse", cwd=webshop)
    assert wrong.returncode == 2 and "invalid choice: 'parse'" in wrong.stderr


def test_the_architecture_picture_is_the_code() -> None:
    source = (REPO / "cfmodel" / "pipeline.py").read_text(encoding="utf-8")
    start = source.index("\n", source.index("# --- the pipeline (docs/architecture.md")) + 1
    end = source.index("    # --- end of the pipeline")
    code = textwrap.dedent(source[start:end]).rstrip() + "\n"
    assert code.count("\n") > 15
    docs = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert f"```python\n{code}```" in docs


def test_the_other_commands_steps_print_their_products(webshop: Path, tmp_path: Path) -> None:
    """The steps of ``export``, ``graph``, ``diff``, ``diagram``, ``rdf`` and ``mcl``, one by
    one: each product prints (``str``: the text the command writes; ``repr``: bounded)."""
    result = pipeline.compile_project(webshop)
    exported = pipeline.export(result)
    assert str(exported) == exported.json_bytes().decode("utf-8") and '"id":' in str(exported)
    assert (
        repr(exported) == f"<Export: {len(exported.resources)} resources>" and len(exported.resources) == 12
    )
    graph = exported.graph(result.name)
    order = pipeline.graph_order(graph)
    assert str(order).splitlines() == [r.id for r in order.resources]
    assert sorted(r.id for r in order.resources) == sorted(r.id for r in graph.resources.values())
    model = pipeline.graph_model(graph)
    assert str(model) == model.xmi_bytes().decode("utf-8")
    (tmp_path / "graph.xmi").write_bytes(model.xmi_bytes())
    assert (
        pipeline.graph_model(pipeline.read_graph(tmp_path / "graph.xmi")).json_bytes() == model.json_bytes()
    )
    (tmp_path / "export.json").write_bytes(exported.json_bytes())
    again = pipeline.read_export_graph(tmp_path / "export.json")
    assert sorted(again.resources) == sorted(graph.resources)
    agent = next(iter(graph.resources.values())).agent
    assert {r.agent for r in pipeline.agent_subgraph(graph, agent).resources.values()} == {agent}
    assert len(pipeline.transitive_reduction(graph).edges) <= len(graph.edges)
    assert pipeline.graph_picture(graph).dot.startswith("digraph")
    assert "cluster" in pipeline.class_diagram(result.metamodel, title="shop").dot
    assert pipeline.instance_diagram(result.model, result.id_of, 100).dot.startswith("digraph")

    side = pipeline.diff_side(result.model, result.id_of, "shop", graph)
    assert repr(side) == f"<Objects shop: {len(result.model)} objects, 12 resources>"
    comparison = pipeline.diff(side, side)
    assert comparison.equal and str(comparison) == pipeline.comparison_text(comparison, "text")
    assert pipeline.comparison_text(comparison, "json").startswith("{")

    compiled = pipeline.mcl_compile(REPO / "examples" / "mcl")
    assert pipeline.mcl_graph_text(compiled.graph).startswith(("Edge: ", "Vertex: "))
    assert pipeline.mcl_output_json(compiled).startswith('{\n  "edges": [')
