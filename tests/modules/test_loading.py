"""Modules where Inmanta finds them, their Python code under its real names, inmanta's plugin API.

No download: the modules here are written by the tests (a v2 module is a directory
``inmanta_plugins/<name>/`` put on ``sys.path``, as ``pip install`` leaves it; a v1 module
is in ``libs/``). Plugin code uses ``inmanta.*`` as modules written for inmanta do: cfmodel's
stand-in answers (inmanta-core is not installed in cfmodel's venv; where it is installed, or
was imported before the compile, the last two tests run a process with a package of that
name on its path; the corpus's venv has the real one, ``tests/modules/test_agreement.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cfmodel.transforms.cf.export import export_resources
from tests.compiler.conftest import Project, error_of, values
from tests.conftest import run_cfmodel

V2_PLUGINS = """
from inmanta.plugins import plugin, Context
from inmanta.execute.util import Unknown
import inmanta_plugins.helper

@plugin
def greet(name: "string", *rest: "string", punctuation: "string" = None) -> "string":
    return inmanta_plugins.helper.hello(name) + "".join(rest) + (punctuation or "")

@plugin
def later() -> "string":
    return Unknown(source=None)

@plugin
def first_name(hosts: "list") -> "string":
    return hosts[0].name

@plugin
def bad(x: "not::a::type") -> "string":
    return "never"
"""

V2_RESOURCES = """
from inmanta.resources import resource, PurgeableResource
from inmanta.export import dependency_manager
from inmanta.agent.handler import CRUDHandler, provider

@resource("greeter::File", agent="host.name", id_attribute="path")
class File(PurgeableResource):
    fields = ("path", "content", "size")

    @staticmethod
    def get_size(exporter, obj):
        return len(obj.content)

@provider("greeter::File", name="posix")
class FileHandler(CRUDHandler):
    pass

@dependency_manager
def dirs_first(model, resources):
    by_path = {r.path: r for r in resources.values()}
    for res in resources.values():
        parent = res.path.rsplit("/", 1)[0]
        if parent in by_path and by_path[parent] is not res:
            res.requires.add(by_path[parent])
"""

V2_MODEL = """
entity Host:
    string name
end
index Host(name)
implement Host using std::none

entity File extends std::PurgeableResource:
    string path
    string content
end
File.host [1] -- Host
implement File using std::none
"""


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site directory with the v2 modules ``greeter`` and ``helper`` installed, on sys.path."""
    site = tmp_path / "site"
    package = site / "inmanta_plugins"
    files = {
        "greeter/__init__.py": V2_PLUGINS,
        "greeter/resources.py": V2_RESOURCES,
        "greeter/model/_init.cf": V2_MODEL,
        "greeter/templates/x.j2": "{{ name }}",
        "helper/__init__.py": "def hello(name):\n    return 'hello ' + name\n",
        "helper/model/_init.cf": "",
    }
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    return site


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    return Project(root)


def test_an_installed_v2_module_is_imported_and_its_plugins_run(installed: Path, project: Project) -> None:
    project.write(
        {
            "project.yml": "name: p\nmodulepath: libs\nrepo: https://example.com\ninstall_mode: release\n",
            "main.cf": """
                import greeter
                entity Out:
                    string text
                    string? unknown
                end
                implement Out using std::none
                Out(text=greeter::greet("x", "!", "?", punctuation=null), unknown=greeter::later())
                Out(text=greeter::greet("y", punctuation="."), unknown=null)
            """,
        }
    )
    result = project.compile()
    assert values(result, "Out", "text") == ["hello x!?", "hello y."]
    assert [type(v).__name__ for v in values(result, "Out", "unknown")] == ["Unknown", "NoneType"]


def test_one_bad_plugin_does_not_take_its_module_down(installed: Path, project: Project) -> None:
    project.write({"project.yml": "name: p\n"})
    assert error_of(project, 'import greeter\nx = greeter::bad("a")\n') == (
        "main.cf:2:5: error: plugin greeter::bad: unknown type 'not::a::type' in annotation 'not::a::type'"
        "  [bad-plugin]"
    )
    main = 'import greeter\nh = greeter::Host(name=greeter::greet("a"))\n'
    assert values(project.write({"main.cf": main}).compile(), "greeter::Host", "name") == ["hello a"]


def test_check_says_which_std_and_notes_ignored_settings(installed: Path, project: Project) -> None:
    project.write(
        {
            "project.yml": "name: p\nmodulepath: libs\nrepo: https://example.com\npip: {}\n",
            "main.cf": "import greeter\n",
        }
    )
    done = run_cfmodel("check", str(project.root), cwd=project.root, env=_python_path(installed))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert (
        lines[1]
        == f"  module greeter (v2 package inmanta_plugins.greeter: {installed}/inmanta_plugins/greeter)"
    )
    assert lines[2] == "  module std (cfmodel's built-in std: none installed nor on the module path)"
    assert done.stderr == f"note: {project.root}/project.yml: ignored (cfmodel installs nothing): pip, repo\n"


def test_resources_are_exported_with_requires_and_dependency_managers(
    installed: Path, project: Project
) -> None:
    project.write(
        {
            "project.yml": "name: p\n",
            "main.cf": """
                import greeter
                h = greeter::Host(name="h1")
                d = greeter::File(host=h, path="/etc", content="")
                f = greeter::File(host=h, path="/etc/motd", content="hi")
                g = greeter::File(host=h, path="/tmp/x", content="abc", requires=f)
            """,
        }
    )
    document = export_resources(project.compile()).document
    assert [(r["id"], r["requires"], r["size"]) for r in document] == [
        ("greeter::File[h1,path=/etc/motd],v=0", ["greeter::File[h1,path=/etc],v=0"], 2),
        ("greeter::File[h1,path=/etc],v=0", [], 0),
        ("greeter::File[h1,path=/tmp/x],v=0", ["greeter::File[h1,path=/etc/motd],v=0"], 3),
    ]
    assert set(document[0]) == {
        "id", "requires", "path", "content", "size", "purged", "purge_on_delete",
        "send_event", "receive_events", "references", "mutators", "report_only",
    }  # fmt: skip
    assert json.loads(json.dumps(document)) == document


def test_a_v1_module_imports_a_v2_module_by_its_real_name(
    installed: Path, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.module(
        "local",
        {
            "model/_init.cf": "",
            "plugins/__init__.py": """
                from inmanta.plugins import plugin
                from inmanta_plugins.helper import hello

                @plugin
                def twice(name: "string") -> "string":
                    return hello(name) + " " + hello(name)
            """,
        },
    )
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    project.write({"main.cf": 'import local\nx = local::twice("a")\nstd::print(x)\n'}).compile()
    assert capsys.readouterr().out == "hello a hello a\n"


def test_cfmodel_export_writes_the_resources(installed: Path, project: Project) -> None:
    project.write(
        {
            "project.yml": "name: p\n",
            "main.cf": 'import greeter\nh = greeter::Host(name="h1")\ngreeter::File(host=h, path="/a", content="x")\n',
        }
    )
    output = project.root / "out" / "resources.json"
    output.parent.mkdir()
    command = ("export", str(project.root), "-o", str(output))
    env = _python_path(installed)
    done = run_cfmodel(*command, cwd=project.root, env=env)
    assert (done.returncode, done.stderr) == (0, "p: 1 resources\n")
    first = output.read_bytes()
    assert [r["id"] for r in json.loads(first)] == ["greeter::File[h1,path=/a],v=0"]
    assert run_cfmodel(*command, cwd=project.root, env=env).returncode == 0
    assert output.read_bytes() == first  # byte-identical on a second run
    broken = {"main.cf": 'import greeter\nh = greeter::Host(name="h1")\nx = greeter::nothere()\n'}
    failed = run_cfmodel(*command, cwd=project.write(broken).root, env=env)
    assert failed.returncode == 1 and "[unknown-plugin]" in failed.stderr
    assert output.read_bytes() == first  # a failed export leaves the file as it was


def test_the_export_fills_the_resource_graph(installed: Path, project: Project) -> None:
    project.write(
        {
            "project.yml": "name: p\n",
            "main.cf": """
                import greeter
                h = greeter::Host(name="h1")
                d = greeter::File(host=h, path="/etc", content="")
                f = greeter::File(host=h, path="/etc/motd", content="hi")
            """,
        }
    )
    graph = export_resources(project.compile()).graph("p")
    motd = graph.resources["greeter::File[h1,path=/etc/motd]"]
    assert (motd.kind, motd.agent, motd.name) == ("greeter::File", "h1", "/etc/motd")
    [origin] = motd.provenance
    assert origin.span is not None
    assert (origin.span.line, origin.producer) == (4, "greeter::File instance")  # f = greeter::File(...)
    # the graph's edges run from the required resource to the one that requires it
    assert sorted((e.source, e.target) for e in graph.edges) == [
        ("greeter::File[h1,path=/etc]", "greeter::File[h1,path=/etc/motd]")
    ]
    done = run_cfmodel(
        "graph", str(project.root), "--format", "order", cwd=project.root, env=_python_path(installed)
    )
    assert (done.returncode, done.stdout) == (
        0,
        "greeter::File[h1,path=/etc]\ngreeter::File[h1,path=/etc/motd]\n",
    )


FAKE_CORE = {
    # an installed package named inmanta, as inmanta-core is once a module is pip-installed
    # with its dependencies; cfmodel must not import it while compiling
    "inmanta/__init__.py": "import os\nif os.environ.get('FAKE_CORE_REFUSES'):\n"
    "    raise ImportError('the installed inmanta-core was imported')\nWHO = 'inmanta-core'\n",
    "inmanta/plugins.py": "def plugin(f):\n    return f  # registers nowhere cfmodel looks\n",
}
V1_PLUGIN = {
    "model/_init.cf": "",
    "plugins/__init__.py": """
        from inmanta.plugins import plugin
        import inmanta

        @plugin
        def who() -> "string":
            return getattr(inmanta, "WHO", "cfmodel's stand-in")
    """,
}
COMPILE = (
    "import sys\n"
    "from cfmodel.errors import CfModelError\n"
    "from cfmodel.pipeline import compile_project\n"
    "{before}"
    "try:\n"
    "    compile_project(sys.argv[1])\n"
    "except CfModelError as error:\n"
    "    print(error.render())\n"
)


def _compile_with_core_installed(project: Project, tmp_path: Path, before: str, refuses: bool) -> str:
    site = tmp_path / "core-site"
    for name, text in FAKE_CORE.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text, encoding="utf-8")
    project.module("local", V1_PLUGIN)
    project.write(
        {"project.yml": "name: p\nmodulepath: libs\n", "main.cf": "import local\nstd::print(local::who())\n"}
    )
    env = {
        "PYTHONPATH": f"{site}:{Path(__file__).resolve().parents[2]}",
        **({"FAKE_CORE_REFUSES": "1"} if refuses else {}),
    }
    done = subprocess.run(
        [sys.executable, "-c", COMPILE.format(before=before), "."],
        capture_output=True,
        text=True,
        env=env,
        cwd=project.root,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_module_code_gets_cfmodels_inmanta_api_even_when_inmanta_core_is_installed(
    project: Project, tmp_path: Path
) -> None:
    assert _compile_with_core_installed(project, tmp_path, "", refuses=True) == "cfmodel's stand-in\n"


def test_inmanta_core_imported_before_the_compile_is_refused_with_the_reason(
    project: Project, tmp_path: Path
) -> None:
    out = _compile_with_core_installed(project, tmp_path, "import inmanta\n", refuses=False)
    assert out.startswith(
        "main.cf:2:12: error: namespace local has no plugin 'who': its Python code failed to load  [bad-plugin]\n"
        "libs/local/plugins/__init__.py:1:1: note: loading inmanta_plugins.local failed: ImportError: this "
        f"process imported inmanta-core ({tmp_path}/core-site/inmanta/__init__.py) before cfmodel loaded module "
        "code: its plugins would register with inmanta-core's compiler, not cfmodel's;"
    ), out


def _python_path(installed: Path) -> dict[str, str]:
    """The environment a subprocess needs to import the installed package and cfmodel."""
    return {"PYTHONPATH": f"{installed}:{Path(__file__).resolve().parents[2]}"}
