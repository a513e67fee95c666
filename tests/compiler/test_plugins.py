"""Plugins: the decorator, type checks, the context, Unknown, errors; std's plugins."""

from __future__ import annotations

from typing import Any

import pytest

from cfmodel.errors import CfModelError
from tests.compiler.conftest import Project, compile_main, error_of, values

OUT = """
entity Out:
    string v
end
implement Out using std::none
"""

PLUGINS = """
from typing import Any

from cfmodel.plugins import Context, PluginError, Unknown, plugin


@plugin
def shout(text: str) -> str:
    return text.upper() + "!"


@plugin("add")
def add_numbers(a: int, b: int = 1) -> int:
    return a + b


@plugin
def names(hosts: "lib::Host[]") -> "string[]":
    return [h.name for h in hosts]


@plugin
def first(hosts: "lib::Host[]") -> "lib::Host?":
    return hosts[0] if hosts else None


@plugin
def where(ctx: Context, name: str) -> str:
    return f"{ctx.namespace} {ctx.lookup(name)}"


@plugin
def unknown() -> Any:
    return Unknown()


@plugin
def broken(x: int) -> int:
    return x // 0


@plugin
def refuse() -> str:
    raise PluginError("no, thanks")


@plugin
def lies() -> int:
    return "not an int"


@plugin
def port(p: "lib::port") -> "lib::port":
    return p
"""


def lib(project: Project) -> None:
    project.module(
        "lib",
        {
            "model/_init.cf": (
                "entity Host:\n    string name\nend\nimplement Host using std::none\n"
                "typedef port as int matching self > 0\n"
            ),
            "plugins/__init__.py": PLUGINS,
        },
    )
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})


def test_plugins_are_called_with_checked_arguments(project: Project) -> None:
    lib(project)
    source = (
        "import lib\n"
        + OUT
        + """
hosts = [lib::Host(name="a"), lib::Host(name="b")]
Out(v=lib::shout("hi"))
Out(v="{{x}} {{y}} {{z}}")
x = lib::add(1)
y = lib::add(a=2, b=3)
z = lib::add(**{"a": 10})
Out(v=std::join(lib::names(hosts), ","))
Out(v=lib::first(hosts).name)
greeting = "hello"
Out(v=lib::where("greeting"))
"""
    )
    assert values(compile_main(project, source), "Out", "v") == [
        "HI!",
        "2 5 11",
        "a,b",
        "a",
        "__config__ hello",
    ]


def test_unknown_propagates(project: Project) -> None:
    lib(project)
    source = (
        "import lib\n"
        + OUT
        + """
u = lib::unknown()
x = lib::shout(u)
y = u + 1
if u:
    Out(v="never")
end
Out(v="{{known}}")
known = std::is_unknown(x) and std::is_unknown(y)
"""
    )
    assert values(compile_main(project, source), "Out", "v") == ["True"]


def test_argument_and_result_type_errors(project: Project) -> None:
    lib(project)
    cases = {
        "x = lib::shout(1)": "main.cf:2:5: error: argument 'text' of plugin lib::shout must be a string, not int 1"
        "  [plugin-type]",
        "x = lib::lies()": "main.cf:2:5: error: the result of plugin lib::lies must be an int, not string "
        '"not an int"  [plugin-type]',
        "x = lib::port(0)": "main.cf:2:5: error: argument 'p' of plugin lib::port: 0 does not satisfy typedef "
        "lib::port  [typedef]",
        'x = lib::names(["a"])': "main.cf:2:5: error: argument 'hosts' of plugin lib::names must be a lib::Host, "
        'not string "a"  [plugin-type]',
        "x = lib::add()": "main.cf:2:5: error: wrong arguments for plugin lib::add(a: int, b: int = 1) -> int: "
        "missing a required argument: 'a'  [plugin-arguments]",
        "x = lib::nope()": "main.cf:2:5: error: namespace lib has no plugin 'nope'  [unknown-plugin]",
    }
    for statement, message in cases.items():
        assert error_of(project, f"import lib\n{statement}\n").splitlines()[0] == message, statement


def test_plugin_exceptions_become_errors_with_cause(project: Project) -> None:
    lib(project)
    text = error_of(project, "import lib\nx = lib::broken(1)\n")
    lines = text.splitlines()
    assert lines[0] == (
        "main.cf:2:5: error: plugin lib::broken failed: ZeroDivisionError: integer division or modulo by zero"
        "  [plugin-error]"
    )
    assert lines[1] == "libs/lib/plugins/__init__.py:38:1: note: raised here"
    assert error_of(project, "import lib\nx = lib::refuse()\n") == (
        "main.cf:2:5: error: lib::refuse: no, thanks  [plugin-error]"
    )


def test_a_broken_plugin_file(project: Project) -> None:
    project.module(
        "bad", {"model/_init.cf": "", "plugins/__init__.py": "x = 1\nraise RuntimeError('boom')\n"}
    )
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    assert error_of(project, "import bad\nx = bad::f()\n") == (
        "main.cf:2:5: error: namespace bad has no plugin 'f': its Python code failed to load  [bad-plugin]\n"
        "libs/bad/plugins/__init__.py:2:1: note: loading inmanta_plugins.bad failed: RuntimeError: boom"
    )


def test_std_plugins(project: Project) -> None:
    source = (
        OUT
        + """
Out(v="{{a}}|{{b}}|{{c}}|{{d}}|{{e}}|{{f}}")
a = std::sequence(3)
b = std::sequence(2, start=5)
c = std::count([1, 2])
d = std::familyof("linux", "linux")
e = std::upper("x")
f = std::flatten([[1], [2, 3]])
"""
    )
    assert values(compile_main(project, source), "Out", "v") == ["[0, 1, 2]|[5, 6]|2|True|X|[1, 2, 3]"]


def test_print(project: Project, capsys: Any) -> None:
    compile_main(project, 'std::print("hello {{x}}")\nx = 1\n')
    assert capsys.readouterr().out == "hello 1\n"


def test_file_reads_a_modules_files_directory(project: Project) -> None:
    project.module("lib", {"model/_init.cf": "", "files/motd": "welcome\n"})
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    result = compile_main(project, "import lib\n" + OUT + 'Out(v=std::file("lib/motd"))\n')
    assert values(result, "Out", "v") == ["welcome\n"]
    assert error_of(project, "import lib\n" + OUT + 'Out(v=std::file("lib/../../../etc/passwd"))\n') == (
        "main.cf:7:7: error: std::file: path 'lib/../../../etc/passwd' leaves the files/ directory of module lib"
        "  [plugin-error]"
    )


def test_inject_without_bindings(project: Project) -> None:
    """A project without bindings: nothing is bound, defaults work, no classes."""
    assert error_of(project, 'x = std::inject("port")\n') == (
        'main.cf:1:5: error: no binding for Data "port"  [not-bound]'
    )
    source = OUT + 'Out(v="{{p}} {{c}}")\np = std::inject("int", "port", 80)\nc = std::inject("/classes")\n'
    assert values(compile_main(project, source), "Out", "v") == ["80 []"]


def test_inject_needs_an_injector_when_evaluating_directly(project: Project) -> None:
    from cfmodel.project import load_project
    from cfmodel.transforms.cf.refine import evaluate
    from cfmodel.transforms.cf.resolve import resolve

    project.write({"main.cf": 'x = std::inject("port")\n'})
    loaded = load_project(project.root)
    with pytest.raises(CfModelError) as info:
        evaluate(resolve(loaded), loaded)
    assert info.value.render().endswith(
        "main.cf:1:5: error: std::inject: bindings are not configured: std::inject needs an injector (compile "
        "with bindings, or pass injector= to compile_project)  [plugin-error]"
    )

    class Injector:
        def lookup(self, type_or_name: str, name: str | None = None, *, default: Any = None) -> Any:
            return {"port": 8080}.get(type_or_name, default)

    result = compile_main(project, OUT + 'Out(v="{{p}}")\np = std::inject("port")\n', injector=Injector())
    assert values(result, "Out", "v") == ["8080"]


def test_facts_reach_plugins(project: Project) -> None:
    result = compile_main(project, OUT + 'Out(v=std::getfact("site", "none"))\n', facts={"site": "ams"})
    assert values(result, "Out", "v") == ["ams"]


def test_inject_with_the_bindings_injector(project: Project) -> None:
    from cfmodel.grammars.bindings import parse_str
    from cfmodel.metamodel.bindings import SpanTable
    from cfmodel.transforms.bindings.compose import LayerInput, compose

    parsed = parse_str(
        'bindings site {\n  bind Integer, "web::port" to 8080\n  bind "motd" to "hi"\n}', "l.bind"
    )
    spans = SpanTable()
    spans.update(parsed.spans)
    injector = compose([LayerInput("site", parsed.named_bindings)], {}, spans, [], None)
    source = (
        OUT + 'Out(v="{{p}} {{m}} {{d}}")\np = std::inject("int", "web::port")\nm = std::inject("motd")\n'
    )
    source += 'd = std::inject("int", "missing", default=1)\n'
    assert values(compile_main(project, source, injector=injector), "Out", "v") == ["8080 hi 1"]
    assert error_of(project, 'x = std::inject("nothing")\n', injector=injector) == (
        'main.cf:1:5: error: no binding for Data "nothing"  [not-bound]'
    )


def test_plugins_of_a_sub_namespace_and_relative_imports(project: Project) -> None:
    project.module(
        "lib",
        {
            "model/_init.cf": "",
            "model/text.cf": "",
            "plugins/__init__.py": "from .helpers import PREFIX\n",
            "plugins/helpers.py": 'PREFIX = ">"\n',
            "plugins/text.py": (
                "from cfmodel.plugins import plugin\nfrom . import helpers\n\n\n"
                "@plugin\ndef mark(s: str) -> str:\n    return helpers.PREFIX + s\n"
            ),
        },
    )
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    result = compile_main(project, "import lib::text\n" + OUT + 'Out(v=lib::text::mark("x"))\n')
    assert values(result, "Out", "v") == [">x"]


def test_std_behaves_as_inmanta_std(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """json_dumps keeps key order; get_env of an unset variable is Unknown; int()/float() cast;
    a list with an Unknown element reaches a plugin (its length is known, the element is not)."""
    monkeypatch.delenv("CFMODEL_SURELY_UNSET", raising=False)
    source = (
        OUT
        + """
Out(v=std::json_dumps({"b": 1, "a": [2, 1]}))
u = std::get_env("CFMODEL_SURELY_UNSET")
unknown = std::is_unknown(u)
Out(v="{{unknown}}")
i = int("42") + 1
f = float(2)
Out(v="{{i}} {{f}}")
n = std::count([1, u, 2])
flat_unknown = std::is_unknown(std::flatten([1, u]))
Out(v="{{n}} {{flat_unknown}}")
"""
    )
    assert values(compile_main(project, source), "Out", "v") == [
        '{"b": 1, "a": [2, 1]}',
        "True",
        "43 2",  # a whole float shows as an int in a string, as inmanta-core shows it
        "3 True",
    ]


def test_int_refuses_what_is_not_a_number(project: Project) -> None:
    assert error_of(project, "x = int(true)\n") == (
        "main.cf:1:5: error: builtin::int: int() takes a number or a string, not true  [plugin-error]"
    )
