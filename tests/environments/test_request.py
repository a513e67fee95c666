"""The request sequence as one step: facts -> classifier -> environment -> categories ->
injector -> compile target; its explanation, its model and the project it loads."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from cfmodel.errors import Diagnostics, Span
from cfmodel.grammars.bindings import ParsedBindings, parse_str
from cfmodel.metamodel import environments as em
from cfmodel.serializers import JsonOptions, XmiOptions, canonical, read, write
from cfmodel.transforms.bindings.providers import BindingsProvider
from cfmodel.transforms.environments.request import (
    Classification,
    EncClassifier,
    RequestOptions,
    StaticClassifier,
    load_target,
    model_ids,
    project_classifier,
)

from .conftest import Project

ENVS = """\
site {
  Environment { modulepath => ['libs', "$confdir/shared"] }
  environment { 'production': envdir => 'prod' }
  environment { 'staging': envdir => 'stage', bindingsdir => 'data' }
}
if $::fqdn =~ /^stage/ { $environment = 'staging' } else { $environment = 'production' }
"""


def _example(project: Project) -> Project:
    project.env_dir("prod", "stage")
    return project.envs(ENVS).write(
        {
            "prod/site.bind": 'site { categories { node => "$::fqdn", environment => true, rack => "$::rack" } }',
            "prod/bindings/default.bind": 'bindings default {\n  bind "workers" to 4\n  when rack \'r1\' { bind "workers" to 8 }\n}',
            "stage/data/default.bind": 'bindings default { bind "workers" to 1 }',
        }
    )


def test_the_chain_step_by_step(project: Project) -> None:
    _example(project)
    result = project.run({"fqdn": "web1", "rack": "r1"}, agent="staging")
    text = result.explain().replace(str(project.root), "{dir}")
    assert text.splitlines() == [
        "1. facts: 2 given: $fqdn = 'web1', $rack = 'r1'",
        "2. agent environment: $agent_environment = 'staging' (--environment); it selects nothing by itself",
        "3. classifier: none configured",
        "4. environments file: read {dir}/environments.cfenv: production (static), staging (static)",
        "5. $environment: set by the file to 'production'  [{dir}/environments.cfenv:6:60]",
        "6. selected: 'production', static (declared here); envdir {dir}/prod  [{dir}/environments.cfenv:3:3]",
        "7. categories: node = 'web1', environment = 'production', rack = 'r1', common (from {dir}/prod/site.bind)",
        "8. injector: layers site [confdir:/default], modules [module:/*::default]",
        "9. compile: {dir}/prod/main.cf with modulepath {dir}/prod/libs, {dir}/shared",
    ]
    assert result.injector.lookup("workers") == 8
    assert [w.code for w in result.warnings] == ["environment-not-applied"]


def test_categories_and_injector_follow_the_environment(project: Project) -> None:
    _example(project)
    prod = project.run({"fqdn": "web1", "rack": "r2"})
    assert [(c.name, c.value) for c in prod.categories] == [
        ("node", "web1"),
        ("environment", "production"),
        ("rack", "r2"),
        ("common", "true"),
    ]
    assert prod.injector.lookup("workers") == 4
    stage = project.run({"fqdn": "stage1", "rack": "r1"})
    assert stage.environment.name == "staging"
    assert [c.name for c in stage.categories] == ["node", "environment", "common"]  # no site.bind: defaults
    assert stage.injector.lookup("workers") == 1  # confdir: is the environment's bindingsdir ("data")


def test_no_bindings_no_layers(project: Project) -> None:
    result = project.run()
    assert result.steps[7].message == "layers modules [module:/*::default]"
    assert result.injector.lookup("anything", default=None) is None


def test_compile_target(project: Project) -> None:
    _example(project)
    target = project.run({"fqdn": "stage1", "environment": "x"}).target
    assert target.environment == "staging"
    assert (target.project_dir, target.main) == (project.root / "stage", project.root / "stage" / "main.cf")
    assert target.module_path == (project.root / "stage" / "libs", project.root / "shared")
    assert (target.bindings_dir, target.template_dir) == (
        project.root / "stage" / "data",
        project.root / "stage" / "templates",
    )
    assert dict(target.facts) == {"fqdn": "stage1", "environment": "staging"}


def test_load_target_uses_the_main_file_and_module_path(project: Project) -> None:
    project.env_dir("e", main=False).write(
        {
            "e/site.cf": "import m\nx = m::y\n",
            "shared/m/module.yaml": "name: m\n",
            "shared/m/model/_init.cf": "y = 1\n",
        }
    )
    project.envs(
        "site { environment { 'production': envdir => 'e', main => 'site.cf', modulepath => '../shared' } }\n"
    )
    loaded = load_target(project.run().target)
    assert loaded.main == project.root / "e" / "site.cf"
    assert sorted(loaded.namespaces) == ["__config__", "m", "std"]
    assert loaded.modules["m"].root == project.root / "shared" / "m"


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (None, "production"),  # no project.yml: the environment's name
        ("modulepath: libs\n", "production"),  # project.yml without a name
        ("name: 42\n", "production"),  # a name that is not a string
        ("", "production"),  # an empty project.yml
        ("name: shop\n", "shop"),  # the file's name
    ],
)
def test_load_target_names_the_project(project: Project, settings: str | None, expected: str) -> None:
    if settings is not None:
        project.write({"project.yml": settings})
    loaded = load_target(project.run().target)
    assert (loaded.name, loaded.named) == (expected, expected == "shop")


def test_load_target_names_a_project_after_its_selected_environment(project: Project) -> None:
    _example(project)
    staging = project.run({"fqdn": "stage1"}).target
    assert (load_target(staging).name, load_target(project.run({"fqdn": "web1"}).target).name) == (
        "staging",
        "production",
    )
    project.write({"stage/project.yml": "name: shop\n"})
    assert load_target(staging).name == "shop"


def test_warnings_and_notices_of_the_file(project: Project) -> None:
    project.envs("notice('checking', $::fqdn)\nif !$::fqdn { warning('no fqdn fact') }\n")
    result = project.run()
    assert [d.render().replace(str(project.root), "{dir}") for d in result.warnings] == [
        "{dir}/environments.cfenv:1:1: note: checking undef  [notice]",
        "{dir}/environments.cfenv:2:15: warning: no fqdn fact  [warning]",
    ]


def test_classifier_data_reaches_providers(project: Project) -> None:
    seen: list[Classification | None] = []

    class EncProvider:
        scheme = "enc"

        def __init__(self, classification: Classification | None) -> None:
            self.classification = classification

        def load(self, path: str, span: Span | None, diags: Diagnostics) -> list[ParsedBindings]:
            classes = self.classification.classes if self.classification else ()
            body = " ".join(f"include {c}" for c in classes)
            return [parse_str(f"bindings enc {{ {body} }}", "enc")]

    def factory(classification: Classification | None) -> Mapping[str, BindingsProvider]:
        seen.append(classification)
        return {"enc": EncProvider(classification)}

    project.write({"site.bind": "site { bindings => [ layer { 'enc': include => 'enc:' } ] }"})
    enc = StaticClassifier(default=Classification(classes=("ntp", "apache")), name="enc")
    result = project.run({"fqdn": "web1"}, options=RequestOptions(classifier=enc, provider_factory=factory))
    assert seen == [Classification(classes=("ntp", "apache"))]
    assert result.injector.classes() == ["ntp", "apache"]
    assert result.steps[2].message == "'enc' proposes environment undef; classes ntp, apache"


def test_enc_classifier_reads_an_enc_answer(project: Project) -> None:
    script = project.root / "enc.py"
    script.write_text(
        "import sys\nprint('environment: staging\\nclasses:\\n  ntp: {servers: [a]}\\n  apache:\\n"
        "parameters:\\n  tier: ' + sys.argv[1])\n",
        encoding="utf-8",
    )
    classifier = EncClassifier([sys.executable, str(script)])
    assert classifier.name == f"{sys.executable} {script}"
    assert classifier.classify({"fqdn": "web1"}) == Classification(
        "staging", ("ntp", "apache"), {"ntp": {"servers": ["a"]}}, {"tier": "web1"}
    )
    answer = project.root / "node.yaml"
    answer.write_text("environment: qa\nclasses: [base]\n", encoding="utf-8")
    assert EncClassifier(file=answer).classify({}) == Classification("qa", ("base",))


def test_the_project_configures_the_classifier_and_it_runs_once(project: Project) -> None:
    """An ENC named in project.yml (``bindings: {enc: ...}``) is the request's classifier; its
    answer feeds both the environments file and the ``enc:`` layer (it runs once)."""
    runs = project.root / "runs.log"
    script = project.root / "enc.py"
    script.write_text(
        f"open({str(runs)!r}, 'a').write('x')\nprint('environment: staging\\nclasses: [ntp]')\n",
        encoding="utf-8",
    )
    project.env_dir("s").write(
        {
            "project.yml": f"bindings:\n  enc: {{command: {sys.executable} {script}}}\n",
            "s/site.bind": "site { bindings => [ layer { 'enc': include => 'enc:' } ] }",
        }
    )
    project.envs("site { environment { 'staging': envdir => 's' } }\n")
    classifier = project_classifier(project.root)
    assert isinstance(classifier, EncClassifier) and classifier.command == (sys.executable, str(script))
    result = project.run({"fqdn": "web1"})
    assert (result.environment.name, result.origin.kind.value) == ("staging", "classifier")
    assert result.injector.classes() == ["ntp"]
    assert runs.read_text(encoding="utf-8") == "x"
    assert project.run(
        {"fqdn": "web1"}, options=RequestOptions(use_project_classifier=False)
    ).environment.name == ("production")


def test_module_bindings_of_the_environment(project: Project) -> None:
    """Without declared layers an environment gets the seed's two: its bindingsdir's default
    over every module's ``bindings/default.bind`` on its own module path."""
    project.env_dir("s").write(
        {
            "s/libs/web/module.yaml": "name: web\n",
            "s/libs/web/model/_init.cf": "x = 1\n",
            "s/libs/web/bindings/default.bind": 'bindings web::default { bind "port" to 80\n bind "tls" to false }',
            "s/bindings/default.bind": 'bindings default { bind "tls" to true }',
        }
    )
    project.envs("site { environment { 'staging': envdir => 's' } }\n$environment = 'staging'\n")
    injector = project.run().injector
    assert (injector.lookup("port"), injector.lookup("tls")) == (80, True)


def test_the_request_as_a_model(project: Project, tmp_path: Path) -> None:
    _example(project)
    result = project.run({"fqdn": "web1", "rack": "r1"}, agent="staging")
    request = result.to_model()
    assert request.eClass is em.Request
    assert request.selected is request.catalog.environments[0]
    assert (request.environmentName, request.source.name, request.agentEnvironment) == (
        "production",
        "file",
        "staging",
    )
    assert request.selected.declaration is request.catalog.file.statements[0].declarations[1]
    assert [f.name for f in request.facts] == ["fqdn", "rack"]
    assert [(c.name, c.rank) for c in request.categories] == [
        ("node", 3),
        ("environment", 2),
        ("rack", 1),
        ("common", 0),
    ]
    assert len(request.steps) == 9
    for name, options in (("r.xmi", XmiOptions(id_of=model_ids)), ("r.json", JsonOptions(id_of=model_ids))):
        write(tmp_path / name, [request], options)
        doc = read(tmp_path / name, _registry())
        assert canonical.dump_objects(doc.roots) == canonical.dump_objects([request])


def _registry() -> object:
    from pyecore.resources import ResourceSet

    from cfmodel.metamodel import bindings as bm

    rset = ResourceSet()
    rset.metamodel_registry[bm.NS_URI] = bm.PACKAGE
    rset.metamodel_registry[em.NS_URI] = em.PACKAGE
    return rset


def test_declared_names_hide_dynamic_directories(project: Project) -> None:
    project.env_dir("s", "branches/staging", "branches/b").envs(
        "site { environment { 'staging': envdir => 's' }\n  dynamic_environments { 'branches': } }\n"
        "$environment = 'staging'\n"
    )
    result = project.run()
    assert result.environment.envdir == project.root / "s"
    assert result.catalog.shadowed == ("staging",)
    assert result.catalog.names() == ["staging", "production", "b"]


def test_another_environments_file(project: Project, tmp_path: Path) -> None:
    other = tmp_path / "test-environments.cfenv"
    other.write_text("site { environment { 'qa': envdir => 'q' } }\n$environment = 'qa'\n", encoding="utf-8")
    project.env_dir("q").envs("$environment = 'production'\n")
    result = project.run(options=RequestOptions(environments_file=other))
    assert (result.environment.name, result.catalog.file) == ("qa", other)
