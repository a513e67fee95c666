"""``cfmodel xmi check|dump|copy`` on a model of two documents and a proxy, as users run them:
exact outputs, located warnings and errors, exit codes, and copies that read back the same."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import run_cfmodel
from tests.emf.test_emf_crossrefs import _write


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cfmodel(*args, cwd=cwd, cache=cwd / ".test-cache")


def test_check_reads_the_set_and_says_what_it_holds(tmp_path: Path) -> None:
    _write(tmp_path)
    result = run(tmp_path, "xmi", "check", "a.xmi", "--ecore", "net.ecore")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "a.xmi: 1 root(s), 4 object(s), 5 reference(s) to other documents, 1 proxy(ies)\n"
        f"{tmp_path}/b.xmi: 1 root(s), 2 object(s), 3 reference(s) to other documents, 0 proxy(ies)\n"
    )
    assert result.stderr == (
        f"a.xmi:7:1: warning: Router.peers: file:{tmp_path}/missing.xmi#r9 is not read (a proxy)  [unresolved-proxy]\n"
    )
    lazy = run(tmp_path, "xmi", "check", "a.xmi", "--ecore", "net.ecore", "--lazy", "--format", "json")
    assert lazy.returncode == 0, lazy.stderr
    (document,) = json.loads(lazy.stdout)["documents"]  # b.xmi is not read
    assert document["proxies"] == [
        f"file:{tmp_path}/b.xmi#netB",
        f"file:{tmp_path}/b.xmi#b1",
        f"file:{tmp_path}/b.xmi#//@nodes.0",
        f"file:{tmp_path}/b.xmi#b1",
        f"file:{tmp_path}/missing.xmi#r9",
        f"file:{tmp_path}/b.xmi#/",
    ]


def test_references_out_of_the_root_are_located_errors(tmp_path: Path) -> None:
    _write(tmp_path / "proj")
    text = (
        (tmp_path / "proj" / "a.xmi").read_text(encoding="utf-8").replace('"b.xmi#netB"', '"/etc/passwd#x"')
    )
    (tmp_path / "proj" / "a.xmi").write_text(text, encoding="utf-8")
    result = run(tmp_path / "proj", "xmi", "check", "a.xmi", "--ecore", "net.ecore")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("a.xmi:2:1: error: reference to '/etc/passwd' leaves the directories")
    assert result.stderr.endswith("  [outside-root]\n") and "Traceback" not in result.stderr


def test_copy_writes_the_set_elsewhere_and_it_reads_back_the_same(tmp_path: Path) -> None:
    _write(tmp_path / "proj")
    proj = tmp_path / "proj"
    copied = run(proj, "xmi", "copy", "a.xmi", "--ecore", "net.ecore", "-o", "../out", "--emf-layout")
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout == "../out/a.xmi\n../out/b.xmi\n"
    # the proxy to the absent document now leads out of out/: give the root
    before = run(proj, "xmi", "dump", "a.xmi", "--ecore", "net.ecore", "--all")
    after = run(
        tmp_path / "out", "xmi", "dump", "a.xmi", "--ecore", "../proj/net.ecore", "--all", "--root", ".."
    )
    assert before.returncode == after.returncode == 0, after.stderr
    assert after.stdout.replace("/out/", "/proj/") == before.stdout
    assert '<peers href="../proj/missing.xmi#r9"/>' in (tmp_path / "out" / "a.xmi").read_text(
        encoding="utf-8"
    )


def test_platform_uris_and_the_metamodel_through_the_uri_map(tmp_path: Path) -> None:
    """An Eclipse workspace: the metamodel in a plug-in, named only by the documents'
    ``xsi:schemaLocation`` (``platform:/plugin/…``), the other document in another project
    (``platform:/resource/…``); ``--uri-map`` maps both, and the set reads as in one
    folder. Without the map the metamodel cannot be found: a located error that says so."""
    _write(tmp_path / "flat")
    ws, plugin = tmp_path / "ws", tmp_path / "plugins" / "net.model" / "model"
    (ws / "proj").mkdir(parents=True)
    (ws / "other").mkdir()
    plugin.mkdir(parents=True)
    (tmp_path / "flat" / "net.ecore").rename(plugin / "net.ecore")
    located = "http://example.org/net platform:/plugin/net.model/model/net.ecore"
    for name, folder, other, to in (
        ("a", "proj", "b", "platform:/resource/other/b"),
        ("b", "other", "a", "../proj/a"),
    ):
        text = (tmp_path / "flat" / f"{name}.xmi").read_text(encoding="utf-8")
        text = text.replace("http://example.org/net net.ecore", located).replace(
            f"{other}.xmi#", f"{to}.xmi#"
        )
        (ws / folder / f"{name}.xmi").write_text(text, encoding="utf-8")
    maps = ["--uri-map", f"platform:/plugin/={tmp_path}/plugins/", "--uri-map", f"platform:/resource/={ws}/"]
    result = run(ws / "proj", "xmi", "check", "a.xmi", *maps)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "a.xmi: 1 root(s), 4 object(s), 5 reference(s) to other documents, 1 proxy(ies)\n"
        f"{ws}/other/b.xmi: 1 root(s), 2 object(s), 3 reference(s) to other documents, 0 proxy(ies)\n"
    )
    unmapped = run(ws / "proj", "xmi", "check", "a.xmi")
    assert unmapped.returncode == 1 and unmapped.stdout == ""
    assert unmapped.stderr == (
        "a.xmi:2:1: error: no metamodel registered for namespace 'http://example.org/net', and its"
        " xsi:schemaLocation 'platform:/plugin/net.model/model/net.ecore' is no file here (read its"
        " .ecore first, or give --uri-map)  [bad-xmi]\n"
        "note: no .ecore file beside a.xmi and none given with --ecore\n"
    )
