"""``bind variables`` (the main namespace's variables) and ``include``/``exclude`` (``/classes``)."""

from __future__ import annotations

import pytest

from tests.compiler.conftest import Project, values

OUT = """
entity Out:
    string v
end
implement Out using std::none
"""


def compile_with(project: Project, main: str, bindings: str, **kwargs: object) -> list[object]:
    project.write({"main.cf": OUT + main, "bindings/default.bind": bindings})
    return values(project.compile(**kwargs), "Out", "v")


def error_with(project: Project, main: str, bindings: str) -> str:
    project.write({"main.cf": OUT + main, "bindings/default.bind": bindings})
    return project.error().replace(str(project.root), "{dir}")


VARIABLES = "bindings default {\n  bind variables to { dc => 'ams', racks => [1, 2] }\n}\n"


def test_bound_variables_are_the_main_namespaces(project: Project) -> None:
    main = """
Out(v="{{dc}} {{racks}}")
entity Rack:
    int number
end
implementation show for Rack:
    Out(v="rack {{number}} in {{dc}}")
end
implement Rack using show
for r in racks:
    Rack(number=r)
end
"""
    assert compile_with(project, main, VARIABLES) == ["ams [1, 2]", "rack 1 in ams", "rack 2 in ams"]


def test_a_local_variable_of_the_same_name_shadows_it(project: Project) -> None:
    main = """
entity Box:
    string dc
end
implementation show for Box:
    Out(v="box {{dc}}")
end
implement Box using show
Box(dc="local")
"""
    assert compile_with(project, main, VARIABLES) == ["box local"]


def test_assigning_the_bound_value_again_is_fine(project: Project) -> None:
    assert compile_with(project, 'dc = "ams"\nOut(v=dc)\n', VARIABLES) == ["ams"]


def test_assigning_another_value_is_an_error_naming_both(project: Project) -> None:
    assert error_with(project, 'dc = "fra"\n', VARIABLES) == (
        "main.cf:5:1: error: variable 'dc' is bound to \"ams\" by the bindings (bindings default, layer "
        '"site", category common); it cannot also be set to "fra" (a value is assigned once)  '
        "[double-assignment]\n"
        "{dir}/bindings/default.bind:2:23: note: the binding of 'dc' is here"
    )


def test_only_model_values_are_injected() -> None:
    from cfmodel.errors import CfEvaluationError, Span
    from cfmodel.transforms.bindings.compose import TypeValue, cf_type
    from cfmodel.transforms.cf.refine.injection import model_value

    bound = {"k": [1, "a", None, True, 1.5]}
    copied = model_value(bound, None, "variable 'x'")
    assert copied == bound and copied is not bound and copied["k"] is not bound["k"]
    with pytest.raises(CfEvaluationError) as error:
        model_value([TypeValue(cf_type("std::Host[web1]")[0])], Span("b.bind", 2, 3, 2, 9), "variable 'x'")
    assert error.value.render() == (
        "b.bind:2:3: error: variable 'x' is bound to std::Host[web1], a type or instance reference: the model "
        "takes strings, numbers, booleans, lists and dicts  [type-error]"
    )


def test_variables_follow_the_categories(project: Project) -> None:
    project.write({"site.bind": 'site {\n  categories {\n    node => "$::fqdn"\n  }\n}\n'})
    bindings = (
        "bindings default {\n"
        "  bind variables to { dc => 'ams' }\n"
        "  when node 'kermit' { bind variables to { dc => 'fra' } }\n"
        "}\n"
    )
    assert compile_with(project, "Out(v=dc)\n", bindings, facts={"fqdn": "kermit"}) == ["fra"]
    assert compile_with(project, "Out(v=dc)\n", bindings, facts={"fqdn": "piggy"}) == ["ams"]


def test_include_and_exclude_give_the_classes(project: Project) -> None:
    bindings = (
        "bindings default {\n  include [ntp, ssh, apache]\n  exclude apache\n}\n"
        "bindings more {\n  include web\n}\n"
    )
    project.write({"bindings/more.bind": "bindings more {\n  include web\n}\n"})
    project.write(
        {"site.bind": "site {\n  bindings => [ layer { 'site': include => ['confdir:/**'] } ]\n}\n"}
    )
    main = 'Out(v="{{c}}")\nc = std::inject("/classes")\nfor n in std::inject("string[]", "/classes"):\n'
    main += "    Out(v=n)\nend\n"
    assert compile_with(project, main, bindings.split("bindings more")[0]) == [
        "['ntp', 'ssh', 'web']",
        "ntp",
        "ssh",
        "web",
    ]


def test_a_project_without_bindings_has_no_classes(project: Project) -> None:
    project.write({"main.cf": OUT + 'Out(v="{{c}}")\nc = std::inject("/classes")\n'})
    assert values(project.compile(), "Out", "v") == ["[]"]
