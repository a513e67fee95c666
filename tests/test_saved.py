"""Loading saved models back (``cfmodel.load_xmi``/``load_json``) and bounded displays."""

from __future__ import annotations

from pathlib import Path

import pytest

import cfmodel
from cfmodel.display import MAX_ROWS, html_table, summary_repr
from cfmodel.errors import CfLoadError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "webshop"


@pytest.fixture(scope="module")
def result() -> cfmodel.CompileResult:
    return cfmodel.compile_project(EXAMPLE)


def test_xmi_and_json_read_back_equal_to_the_compile(result: cfmodel.CompileResult, tmp_path: Path) -> None:
    written = result.save_xmi(tmp_path / "xmi")
    saved = cfmodel.load_xmi(written[-1])
    assert saved.counts() == result.counts()
    servers = saved.instances("web::Server")
    assert [s.name for s in servers] == ["web1.example.com", "web2.example.com"]
    assert saved.instances("Server") == servers  # a plain name when only one namespace has it
    assert len(saved.objects) == sum(result.counts().values())
    result.save_json(tmp_path / "model.json")
    from_json = cfmodel.load_json(tmp_path / "model.json", metamodel=tmp_path / "xmi")
    assert from_json.counts() == result.counts()
    assert [s.name for s in from_json.instances("web::Server")] == ["web1.example.com", "web2.example.com"]


def test_loading_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(CfLoadError) as caught:
        cfmodel.load_xmi(tmp_path / "nothing.xmi")
    assert caught.value.render() == f"error: {tmp_path}/nothing.xmi: no such file  [load]"
    (tmp_path / "lonely.xmi").write_text("<xmi:XMI/>", encoding="utf-8")
    with pytest.raises(CfLoadError) as caught:
        cfmodel.load_xmi(tmp_path / "lonely.xmi")
    assert caught.value.render() == (
        f"error: {tmp_path}/lonely.xmi: no metamodel: no .ecore file in {tmp_path} (give metamodel=...)  [load]"
    )


def test_displays_are_bounded_and_escaped() -> None:
    counts = {f"ns::Class{i}": i for i in range(10_000)}
    text = summary_repr("big", counts)
    assert len(text) < 40 * MAX_ROWS and text.endswith(f"… {10_000 - MAX_ROWS} more classes)>")
    rows = [("<script>alert(1)</script>", "x" * 10_000)] * 5_000
    page = html_table("t & <b>", ("a", "b"), rows)
    assert "<script>" not in page and "&lt;script&gt;" in page and "t &amp; &lt;b&gt;" in page
    assert page.count("<tr>") == MAX_ROWS + 2  # the header, the rows shown, "… more rows"
    assert f"… {5_000 - MAX_ROWS} more rows" in page
    assert len(page) < 300 * MAX_ROWS


def test_ordinary_mistakes_are_said_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Usage mistakes exit 2 with a one-line reason (before any work); a missing project is
    the same error for every command; never "internal error"."""
    from cfmodel.cli import main

    a_file = tmp_path / "a-file"
    a_file.write_text("", encoding="utf-8")
    cases = [
        (
            ["xmi", "export", str(EXAMPLE), "-o", str(a_file)],
            2,
            f"cfmodel: -o {a_file}: this is a file; give the directory to write into\n",
        ),
        (
            ["ecore", "export", str(EXAMPLE), "-o", str(a_file)],
            2,
            f"cfmodel: -o {a_file}: this is a file; give the directory to write into\n",
        ),
        (
            ["json", "export", str(EXAMPLE), "-o", str(tmp_path)],
            2,
            f"cfmodel: -o {tmp_path}: this is a directory; give the file to write\n",
        ),
    ]
    missing = tmp_path / "missing"
    for command in (["compile"], ["bindings", "show"], ["env", "list"], ["env", "which"]):
        cases.append(([*command, str(missing)], 1, f"error: no such project directory: {missing}  [load]\n"))
    for argv, code, err in cases:
        assert main(argv) == code, argv
        assert capsys.readouterr().err == err, argv
    from cfmodel.transforms.bindings.providers import create_injector

    with pytest.raises(CfLoadError):
        create_injector(missing, {})


def test_saving_validates_by_default(result: cfmodel.CompileResult, tmp_path: Path) -> None:
    server = result.instances("web::Server")[0]
    server.port = 70000
    try:
        for save in (lambda: result.save_xmi(tmp_path / "x"), lambda: result.save_json(tmp_path / "m.json")):
            with pytest.raises(cfmodel.CfModelError) as caught:
                save()
            assert caught.value.render().splitlines()[1] == (
                'note: web::Server[name="web1.example.com"]: port: 70000 does not satisfy the condition of '
                "web::port (self > 0 and self < 65536)  [constraint]"
            )
        assert caught.value.render().splitlines()[0] == (
            "error: the model is invalid (1 error): save_json refused (nothing written; validate=False "
            "writes it anyway)  [invalid-model]"
        )
        assert not (tmp_path / "x").exists() and not (tmp_path / "m.json").exists()
        assert len(result.save_xmi(tmp_path / "x", validate=False)) == 5
    finally:
        server.port = 80


def test_reports_and_explanations_display_in_notebooks() -> None:
    metamodel = cfmodel.load_metamodel(EXAMPLE)
    server = metamodel.create("web::Server", name="web3.example.com", port=70000)
    page = cfmodel.validate_instances([server])._repr_html_()
    assert page.startswith('<div class="cfmodel"><strong>1 objects, 1 error, 0 notes</strong>')
    assert "<td>web::Server[name=&quot;web3.example.com&quot;]</td><td>error</td><td>port</td>" in page
    assert "<td>constraint</td>" in page
    from cfmodel.transforms.bindings.providers import create_injector

    explained = create_injector(Path(__file__).parent / "bindings" / "data" / "hiera", {}).explain("nothing")
    html_text = explained._repr_html_()
    assert html_text == (
        '<pre class="cfmodel">Data &quot;nothing&quot; is not bound\n  layers consulted: modules\n'
        "  categories consulted: node (n/a), environment=production, common=true</pre>"
    )
