"""Every error code cfmodel emits is registered in `cfmodel.errorcodes`, and the reverse.

The source of `cfmodel/` is read (not run): a code is a string literal in a code position —
the ``code=`` keyword, a parameter named ``code`` of any function or class of cfmodel (by
position too), the third argument of ``Diagnostic(...)`` and of the ``Cf*Error(...)`` classes,
an assignment to ``code`` or ``x.code``, and a ``code`` parameter's default. Conditional
expressions count both branches; only kebab-case literals are codes. A new code needs a line in ``cfmodel/errorcodes.py``.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cfmodel import errorcodes
from cfmodel.cli import main

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "cfmodel"
KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def _literals(node: ast.expr | None) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if KEBAB.match(node.value):  # a message given where another helper takes its code
            yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _literals(node.body)
        yield from _literals(node.orelse)
    elif isinstance(node, ast.Tuple):
        for element in node.elts:
            yield from _literals(element)


def _code_positions(trees: dict[Path, ast.Module]) -> dict[str, set[int]]:
    """Callable name → the positional indexes of its ``code`` parameter (self excluded)."""
    positions: dict[str, set[int]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        names = [a.arg for a in item.args.posonlyargs + item.args.args][1:]
                        if "code" in names:
                            positions.setdefault(node.name, set()).add(names.index("code"))
            elif isinstance(node, ast.FunctionDef) and node.name != "__init__":
                names = [a.arg for a in node.args.posonlyargs + node.args.args]
                if names[:1] in (["self"], ["cls"]):
                    names = names[1:]
                if "code" in names:
                    positions.setdefault(node.name, set()).add(names.index("code"))
    return positions


def _codes_in(tree: ast.Module, positions: dict[str, set[int]]) -> Iterator[tuple[str, int]]:
    for node in ast.walk(tree):
        found: list[str] = []
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            for keyword in node.keywords:
                if keyword.arg == "code":
                    found += _literals(keyword.value)
            indexes = set(positions.get(name, ()))
            if name == "Diagnostic" or (name.startswith("Cf") and name.endswith("Error")):
                indexes.add(2)
            for index in indexes:
                if index < len(node.args):
                    found += _literals(node.args[index])
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                named = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
                if named == "code":
                    found += _literals(node.value)
        elif isinstance(node, ast.arguments):
            positional = node.posonlyargs + node.args
            defaults = [None] * (len(positional) - len(node.defaults)) + list(node.defaults)
            for argument, default in zip(
                positional + node.kwonlyargs, defaults + list(node.kw_defaults), strict=True
            ):
                if argument.arg == "code":
                    found += _literals(default)
        for code in found:
            yield code, getattr(node, "lineno", 0)


@functools.cache
def emitted_codes() -> dict[str, str]:
    """Every code found in cfmodel's source → one place that emits it."""
    sources = [path for path in sorted(PACKAGE.rglob("*.py")) if path.name != "errorcodes.py"]
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sources}
    positions = _code_positions(trees)
    emitted: dict[str, str] = {}
    for path, tree in trees.items():
        for code, line in _codes_in(tree, positions):
            emitted.setdefault(code, f"{path.relative_to(REPO)}:{line}")
    return emitted


def test_every_emitted_code_is_registered() -> None:
    emitted = emitted_codes()
    missing = {code: where for code, where in emitted.items() if code not in errorcodes.CODES}
    assert not missing, f"register these codes in cfmodel/errorcodes.py: {missing}"


def test_every_registered_code_is_emitted() -> None:
    stale = sorted(set(errorcodes.CODES) - set(emitted_codes()))
    assert not stale, f"registered but emitted nowhere (remove them from cfmodel/errorcodes.py): {stale}"


def test_the_scan_sees_every_kind_of_code_position() -> None:
    emitted = emitted_codes()
    # a class default, a code= keyword, Diagnostic(), a helper's code parameter, a conditional
    for code in ("syntax", "unknown-format", "unknown-key", "double-assignment", "reserved-name", "notice"):
        assert code in emitted
    assert len(emitted) >= 150


def test_codes_are_kebab_case_with_one_line_descriptions() -> None:
    for entry in errorcodes.CODES.values():
        assert entry.code == entry.code.lower() and " " not in entry.code and "_" not in entry.code
        assert entry.description and "\n" not in entry.description and len(entry.description) < 110


def test_docs_are_generated_from_the_registry() -> None:
    text = (REPO / "docs" / "error-codes.md").read_text(encoding="utf-8")
    assert text == errorcodes.markdown(), "regenerate: cfmodel explain-code --markdown > docs/error-codes.md"


def test_explain_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-code", "double-assignment"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("double-assignment  [evaluation]\n")
    assert "second, different value" in out
    assert main(["explain-code", "[not-set]"]) == 0  # pasted with its brackets
    assert capsys.readouterr().out.startswith("not-set  [evaluation]")


def test_explain_code_of_an_unknown_code_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-code", "double-asignment"]) == 2
    assert "did you mean double-assignment" in capsys.readouterr().err


def test_explain_code_lists_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain-code", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(errorcodes.CODES)
    assert [line.split()[0] for line in lines] == sorted(errorcodes.CODES)
