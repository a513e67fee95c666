"""The request through the API: facts, the environment asked for, warnings, an injector given."""

from __future__ import annotations

from typing import Any

from cfmodel.errors import Diagnostic
from tests.compiler.conftest import Project, values

OUT = """
entity Out:
    string v
end
implement Out using std::none
Out(v="{{dc}} {{env}} {{role}}")
env = std::getfact("environment")
role = std::getfact("role", "none")
"""
BINDINGS = "bindings default {\n  bind variables to { dc => 'ams' }\n}\n"


def test_facts_and_the_environment_asked_for(project: Project) -> None:
    project.write({"main.cf": OUT, "bindings/default.bind": BINDINGS})
    seen: list[Diagnostic] = []
    result = project.compile(facts={"role": "db"}, environment="staging", on_warning=seen.append)
    assert values(result, "Out", "v") == ["ams production db"]
    assert [w.render() for w in result.warnings] == [
        "warning: the requested environment 'staging' (--environment) was not selected: there is no "
        "environments.cfenv, so the default is 'production'  [environment-not-applied]"
    ]
    assert seen == result.warnings


def test_an_injector_given_replaces_the_requests(project: Project) -> None:
    class Fixed:
        def lookup(self, type_or_name: str, name: str | None = None, *, default: Any = None) -> Any:
            return {"x": "given"}.get(type_or_name, default)

    main = OUT.replace('"{{dc}} {{env}} {{role}}"', 'std::inject("x")') + 'dc = "cf"\n'
    project.write({"main.cf": main, "bindings/default.bind": BINDINGS})
    assert values(project.compile(injector=Fixed()), "Out", "v") == ["given"]


def test_a_loaded_project_gets_the_bindings_of_its_directory(project: Project) -> None:
    from cfmodel.pipeline import compile_project
    from cfmodel.project import load_project

    project.write({"main.cf": OUT, "bindings/default.bind": BINDINGS})
    result = compile_project(load_project(project.root), facts={"role": "web"})
    assert values(result, "Out", "v") == ["ams production web"]
    assert result.project is not None
