"""std::template: Jinja2 in the calling scope, module templates, ``::`` as ``.``, safe paths."""

from __future__ import annotations

from tests.compiler.conftest import Project, compile_main, error_of, values

OUT = """
entity Out:
    string v
end
implement Out using std::none
"""


def setup(project: Project, templates: dict[str, str]) -> None:
    project.module(
        "web",
        {
            "model/_init.cf": 'greeting = "hello"\nentity Host:\n    string name\n    int cpus = 2\nend\n'
            "Host.files [0:] -- File.host [1]\nentity File:\n    string content\nend\n"
            "implement File using std::none\nimplement Host using motd\n"
            'implementation motd for Host:\n    admin = "joe"\n'
            '    File(host=self, content=std::template("web/motd.j2"))\nend\n',
            **{f"templates/{name}": text for name, text in templates.items()},
        },
    )
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})


def test_template_sees_the_calling_scope(project: Project) -> None:
    setup(project, {"motd.j2": "Welcome to {{ name }} ({{ cpus }} cpus), ask {{ admin }}\n"})
    result = compile_main(project, 'import web\nweb::Host(name="www", cpus=4)\n')
    # The template's last newline is dropped, as inmanta's std does (Jinja's keep_trailing_newline=False).
    assert values(result, "File", "content") == ["Welcome to www (4 cpus), ask joe"]


def test_namespaces_and_plugins_with_dots(project: Project) -> None:
    setup(project, {"motd.j2": "{{ web.greeting }} {{ name | std.upper }}"})
    result = compile_main(project, 'import web\nweb::Host(name="www")\n')
    assert values(result, "File", "content") == ["hello WWW"]


def test_template_in_the_main_namespace_waits_for_values(project: Project) -> None:
    setup(project, {"motd.j2": "x", "list.j2": "{% for h in hosts %}{{ h.name }};{% endfor %}{{ late }}"})
    source = (
        "import web\n"
        + OUT
        + """
hosts = [web::Host(name="a"), web::Host(name="b")]
Out(v=std::template("web/list.j2"))
late = "!"
Out(v=std::template("web/list.j2", hosts=[], late="only kwargs"))
"""
    )
    assert values(compile_main(project, source), "Out", "v") == ["a;b;!", "only kwargs"]


def test_template_errors(project: Project) -> None:
    setup(project, {"motd.j2": "{{ nope }}", "bad.j2": "{% for %}"})
    assert error_of(project, 'import web\nweb::Host(name="www")\n') == (
        "libs/web/model/_init.cf:14:29: error: std::template: template web/motd.j2: 'nope' is undefined"
        "  [plugin-error]"
    )
    source = "import web\n" + OUT
    assert error_of(project, source + 'Out(v=std::template("web/../../../main.cf"))\n') == (
        "main.cf:7:7: error: std::template: path 'web/../../../main.cf' leaves the templates/ directory of module "
        "web  [plugin-error]"
    )
    assert error_of(project, source + 'Out(v=std::template("web/none.j2"))\n').startswith(
        "main.cf:7:7: error: std::template: no file 'none.j2' in the templates/ directory of module web"
    )
    assert error_of(project, source + 'Out(v=std::template("web/bad.j2"))\n') == (
        "main.cf:7:7: error: std::template: template web/bad.j2, line 1: Expected an expression, got 'end of "
        "statement block'  [plugin-error]"
    )
