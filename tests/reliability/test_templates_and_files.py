"""Issue 12, item 11: templates are sandboxed unless the user trusts their module, and
`std::file` never reads through a `files/` directory linked out of its module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compiler.conftest import Project, compile_main, error_of, project, values

__all__ = ["project"]  # the fixture

OUT = "entity Out:\n    string v\nend\nimplement Out using std::none\n"
ESCAPE = "{{ cycler.__init__.__globals__.os.getcwd() }}"


def _module(project: Project, files: dict[str, str]) -> None:
    project.module("web", {"model/_init.cf": "", **files})
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})


def test_a_template_cannot_reach_python_internals(project: Project) -> None:
    _module(project, {"templates/evil.j2": ESCAPE})
    message = error_of(project, "import web\n" + OUT + 'Out(v=std::template("web/evil.j2"))\n')
    assert "unsafe" in message
    assert message.startswith("main.cf:6:"), message


def test_a_trusted_module_renders_unsandboxed(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    _module(project, {"templates/evil.j2": ESCAPE})
    monkeypatch.setenv("CFMODEL_TRUSTED_TEMPLATES", "other, web")
    result = compile_main(project, "import web\n" + OUT + 'Out(v=std::template("web/evil.j2"))\n')
    assert values(result, "Out", "v") == [str(project.root)]


def test_ordinary_templates_still_render_in_the_sandbox(project: Project) -> None:
    _module(project, {"templates/ok.j2": "{% for i in [1, 2] %}{{ i }}{{ name | upper }}{% endfor %}"})
    result = compile_main(project, "import web\n" + OUT + 'name = "x"\nOut(v=std::template("web/ok.j2"))\n')
    assert values(result, "Out", "v") == ["1X2X"]


def test_std_file_refuses_a_files_directory_linked_out_of_the_module(
    project: Project, tmp_path: Path
) -> None:
    _module(project, {})
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "secret").write_text("leaked", encoding="utf-8")
    (project.root / "libs" / "web" / "files").symlink_to(outside)
    message = error_of(project, "import web\n" + OUT + 'Out(v=std::file("web/secret"))\n')
    assert "leads out of the module" in message
    assert "leaked" not in message
