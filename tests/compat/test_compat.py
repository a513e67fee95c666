"""Differential tests: every case of `cases.py` compiled by cfmodel and by inmanta-core 20.1.

For a case that must succeed, both must succeed with the same instances (entity,
attribute values, relation targets; order of creation and of relation values does
not count). For a case that must fail, both must fail, each with the expected kind
of error. The reference compiler runs in its own cached venv (`inmanta.py`); its
results are cached on disk by case content, so only changed cases run it again.
Locally the suite is skipped when that venv cannot be made; in CI it must run.
"""

from __future__ import annotations

import hashlib
import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cfmodel.errors import CfCompileError, CfModelError
from cfmodel.pipeline import compile_project
from tests.compat import (  # noqa: F401 - register cases
    programs_errors,
    programs_refinement,
    programs_strictness,
    programs_values,
)
from tests.compat.canonical import canonical, describe, records_of
from tests.compat.cases import CASES, OK, Differs, Error
from tests.compat.inmanta import REQUIREMENTS, RUNNER, inmanta_python, run_inmanta
from tests.conftest import skip_or_fail

RESULTS_CACHE = Path.home() / ".cache" / "cfmodel" / "compat-results"


def _write(root: Path, files: dict[str, str]) -> None:
    (root / "project.yml").write_text("name: compat\nmodulepath: libs\n", encoding="utf-8")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _key(files: dict[str, str]) -> str:
    text = json.dumps([REQUIREMENTS, RUNNER, sorted(files.items())])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each case's result from the reference compiler (computed once per session, cached on disk)."""
    results: dict[str, dict[str, Any]] = {}
    todo: dict[str, Path] = {}
    root = tmp_path_factory.mktemp("reference")
    for name, (files, _) in CASES.items():
        cached = RESULTS_CACHE / f"{_key(files)}.json"
        if cached.is_file():
            results[name] = json.loads(cached.read_text(encoding="utf-8"))
            continue
        directory = root / name
        directory.mkdir()
        _write(directory, files)
        todo[name] = directory
    if todo:
        python = inmanta_python(create=True)
        if python is None:
            skip_or_fail(
                "the reference compiler (inmanta-core 20.1, Python >= 3.13) could not be installed in its venv"
            )
            return results
        fresh = run_inmanta(python, list(todo.values()))
        RESULTS_CACHE.mkdir(parents=True, exist_ok=True)
        for name, directory in todo.items():
            result = fresh[str(directory.resolve())]
            results[name] = result
            (RESULTS_CACHE / f"{_key(CASES[name][0])}.json").write_text(json.dumps(result), encoding="utf-8")
    return results


def _cfmodel(root: Path) -> tuple[bool, str, Any]:
    old = os.getcwd()
    os.chdir(root)
    try:
        result = compile_project(".")
    except CfCompileError as error:
        return False, ",".join(sorted({d.code for d in error.items})), error.render()
    except CfModelError as error:
        return False, error.code, error.render()
    finally:
        os.chdir(old)
    return True, "", records_of(result)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_result_as_reference(name: str, tmp_path: Path, reference: dict[str, dict[str, Any]]) -> None:
    files, expect = CASES[name]
    _write(tmp_path, files)
    ok, code, detail = _cfmodel(tmp_path)
    theirs = reference[name]
    if isinstance(expect, Differs):
        assert expect.why in DEVIATIONS, f"docs/compiler.md does not list: {expect.why}"
        _check_theirs(theirs, expect.theirs)
        _check_ours(ok, code, detail, expect.ours)
        return
    _check_theirs(theirs, expect)
    _check_ours(ok, code, detail, expect)
    if expect == OK:
        assert canonical(detail) == canonical(theirs["instances"]), (
            f"instances differ\n--- cfmodel\n{describe(detail)}\n--- inmanta\n{describe(theirs['instances'])}"
        )


def _check_theirs(theirs: dict[str, Any], expect: str | Error) -> None:
    if expect == OK:
        assert theirs["ok"], f"inmanta failed on a case expected to pass:\n{theirs.get('message')}"
        return
    assert isinstance(expect, Error)
    assert not theirs["ok"], "inmanta succeeded on a case expected to fail"
    assert theirs["error"] in expect.classes, f"inmanta: {theirs['error']}: {theirs.get('message')}"


def _check_ours(ok: bool, code: str, detail: Any, expect: str | Error) -> None:
    if expect == OK:
        assert ok, f"cfmodel failed:\n{detail}"
        return
    assert isinstance(expect, Error)
    assert not ok, "cfmodel succeeded on a case expected to fail"
    assert set(code.split(",")) & set(expect.codes), f"cfmodel: [{code}]\n{detail}"


def _deviations() -> str:
    """The text of docs/compiler.md's section of deliberate differences."""
    text = (Path(__file__).parents[2] / "docs" / "compiler.md").read_text(encoding="utf-8")
    start = text.index("## Deviations from inmanta-core")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


DEVIATIONS = _deviations()
