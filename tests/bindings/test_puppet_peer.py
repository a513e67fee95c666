"""Peer check of ``hiera:``: ``cfmodel bindings inject`` answers as the real ``puppet lookup``.

Debian's ``puppet`` package (7.23, in scripts/system-packages.txt) carries Hiera 5. Both tools
read the same ``hiera.yaml``, data and facts (``data/hiera``); the lookups cover the first,
unique, hash and deep merges, knockout prefixes, ``lookup_options``, JSON data, mapped paths,
globs and interpolation. ``puppet lookup`` runs offline: no server, its own confdir, vardir and
codedir in a temporary folder. Without puppet the tests skip locally and fail in CI.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cfmodel.cli import main
from tests.conftest import skip_or_fail

from .hiera_cases import CASES, HIERA, MISSES
from .test_hiera import expected_output

pytestmark = pytest.mark.slow


#: Keys whose ``explain`` is compared with ``puppet lookup --explain``: a miss, a first-found
#: hit, a merge.
EXPLAINED = ["nokey", "message", "settings"]


def puppet_lookup(work: Path, key: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    """``puppet lookup`` on ``data/hiera``, isolated from the machine's Puppet settings."""
    dirs = [f"--{name}dir={work / name}" for name in ("conf", "var", "code", "log", "run")]
    command = ["puppet", "lookup", *dirs, "--hiera_config", str(HIERA / "hiera.yaml")]
    command += ["--facts", str(HIERA / "facts.yaml"), "--render-as", "json", key, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def puppet_answers(tmp_path_factory: pytest.TempPathFactory) -> Mapping[str, str]:
    """Every case's (and miss's) ``puppet lookup`` output, run two at a time (each run takes seconds)."""
    if shutil.which("puppet") is None:
        skip_or_fail("puppet is not installed (apt-get install puppet; see scripts/system-packages.txt)")
    work = tmp_path_factory.mktemp("puppet")

    def run(numbered: tuple[int, str]) -> tuple[str, str]:
        # Each run gets its own Puppet directories: two runs creating var/bucket at the
        # same moment make one of them fail ("File exists @ dir_s_mkdir").
        number, spec = numbered
        key, *args = spec.split()
        done = puppet_lookup(work / str(number), key, args)
        if done.returncode != 0:
            return spec, f"<puppet lookup failed ({done.returncode}): {done.stderr.strip()[-500:]}>"
        return spec, done.stdout.strip()

    with ThreadPoolExecutor(2) as pool:
        specs = [*(spec for spec, _ in CASES), *MISSES, *(f"{key} --explain" for key in EXPLAINED)]
        return dict(pool.map(run, enumerate(specs)))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``data/hiera`` as a project whose only layer is ``hiera:``."""
    root = tmp_path_factory.mktemp("peer-project")
    shutil.copytree(HIERA, root, dirs_exist_ok=True)
    (root / "site.bind").write_text("site { bindings => [ layer { 'hiera': include => 'hiera:' } ] }\n")
    return root


@pytest.mark.parametrize("spec", [spec for spec, _ in CASES])
def test_inject_equals_puppet_lookup(
    spec: str, puppet_answers: Mapping[str, str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, *args = spec.split()
    answer = puppet_answers[spec]
    assert not answer.startswith("<puppet lookup failed"), answer
    code = main(["bindings", "inject", key, str(project), "--facts", str(project / "facts.yaml"), *args])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out == expected_output(answer) + "\n"


def test_recorded_answers_are_puppets(puppet_answers: Mapping[str, str]) -> None:
    """The answers ``test_hiera.py`` checks without Puppet are what Puppet says (key order too)."""
    for spec, recorded in CASES:
        assert json.loads(puppet_answers[spec]) == json.loads(recorded), spec
        assert puppet_answers[spec] == recorded, spec


@pytest.mark.parametrize("key", MISSES)
def test_misses_are_misses_for_puppet_too(key: str, puppet_answers: Mapping[str, str]) -> None:
    """Where cfmodel finds nothing (tested in test_hiera.py), ``puppet lookup`` finds nothing
    either: it exits 1 and prints nothing but the machine's Facter noise (no "Could not run")."""
    answer = puppet_answers[key]
    assert answer.startswith("<puppet lookup failed (1):") and "Could not run" not in answer, answer


def _puppet_searched(answer: str, key: str, root: Path) -> list[tuple[str, str]]:
    """The paths ``puppet lookup --explain --render-as json`` searched for ``key`` (relative to
    the project) and what each said: ``not found`` (no such file), ``no such key``, ``found``."""
    events = {"location_not_found": "not found", "not_found": "no such key", "found": "found"}

    def leaves(node: dict[str, object]) -> Iterator[tuple[str, str]]:
        if "path" in node and "event" in node:
            yield str(Path(str(node["path"])).relative_to(root)), events[str(node["event"])]
        for branch in node.get("branches", []):  # type: ignore[attr-defined]  # JSON
            yield from leaves(branch)

    (searched,) = [b for b in json.loads(answer)["branches"] if b.get("key") == key]
    return list(leaves(searched))


def _cfmodel_searched(text: str, key: str) -> list[tuple[str, str]]:
    """The same from ``cfmodel bindings explain``'s Hiera section."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f'Searching for "{key}"'))
    found: list[tuple[str, str]] = []
    for line in lines[start:]:
        line = line.strip()
        if line.startswith('Path "'):
            found.append((line[6:-1], ""))
        elif line == "Path not found":
            found[-1] = (found[-1][0], "not found")
        elif line.startswith("No such key:"):
            found[-1] = (found[-1][0], "no such key")
        elif line.startswith("Found key:"):
            found[-1] = (found[-1][0], "found")
    return found


@pytest.mark.parametrize("key", EXPLAINED)
def test_explain_searches_what_puppet_lookup_explain_searches(
    key: str, puppet_answers: Mapping[str, str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``explain`` of a miss, a first-found hit and a merge: the same paths, in the same order,
    with the same outcome per path, as ``puppet lookup --explain``."""
    answer = puppet_answers[f"{key} --explain"]
    assert not answer.startswith("<puppet lookup failed"), answer
    main(["bindings", "explain", key, str(project), "--facts", str(project / "facts.yaml")])
    out = capsys.readouterr().out
    expected = _puppet_searched(answer, key, HIERA.resolve())
    assert expected and any(outcome != "found" for _, outcome in expected)
    assert _cfmodel_searched(out, key) == expected
