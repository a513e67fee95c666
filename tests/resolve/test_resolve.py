"""Resolve, golden style: each case is a small project; the expected output is either
the canonical dump of the linked program or the full text of every error.

A case's source is ``main.cf``, or several files separated by ``--- path`` lines
(``libs/<module>/model/...``; each module gets its module.yaml). Run
``pytest tests/resolve --update-golden`` to rewrite the expected texts (review the diff).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.errors import CfCompileError
from cfmodel.project import load_project
from cfmodel.transforms.cf.program import LinkedProgram, dump_program
from cfmodel.transforms.cf.resolve import resolve
from tests.golden import Case, load_cases, rewrite_case

CASES = sorted(Path(__file__).with_name("cases").glob("*.test"))
ALL = [case for path in CASES for case in load_cases(path)]


def write_project(root: Path, source: str) -> None:
    """Write a case's files under *root* (``--- path`` separated; plain text is main.cf)."""
    files: dict[str, list[str]] = {}
    current = "main.cf"
    for line in source.splitlines(keepends=True):
        if line.startswith("--- "):
            current = line[4:].strip()
            files.setdefault(current, [])
            continue
        files.setdefault(current, []).append(line)
    files.setdefault("main.cf", [])
    for name, lines in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(lines), encoding="utf-8")
        parts = Path(name).parts
        if parts[0] == "libs" and len(parts) > 2:
            (root / "libs" / parts[1] / "module.yaml").write_text(f"name: {parts[1]}\n", encoding="utf-8")


def resolve_case(
    root: Path, source: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[LinkedProgram | None, str]:
    write_project(root, source)
    monkeypatch.chdir(root)
    try:
        program = resolve(load_project("."))
    except CfCompileError as error:
        return None, error.render() + "\n"
    warnings = "".join(w.render() + "\n" for w in program.warnings)
    return program, warnings + dump_program(program)


@pytest.mark.parametrize("case", ALL, ids=[f"{c.file.stem}:{c.name}" for c in ALL])
def test_resolve_case(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_golden: bool
) -> None:
    _, actual = resolve_case(tmp_path, case.source, monkeypatch)
    if update_golden:
        rewrite_case(case, actual)
        return
    assert actual == case.expected
