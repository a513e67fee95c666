"""The real-module corpus: published Inmanta modules and the projects that use them.

The pinned modules' sdists and wheels are downloaded from PyPI into
``~/.cache/cfmodel/modules`` (``CFMODEL_MODULES_DIR`` overrides it; nothing of them is
committed to this repository); `cfmodel_python()` is a venv where they are installed as
a user installs them (``pip install inmanta-module-fs``), for cfmodel's side; the cases
are:

* the models that the modules' own ``tests/`` compile: each ``project.compile(...)`` call
  of an sdist's test files whose model is a string literal (or a name assigned one in the
  same function), or an f-string of the test's ``@pytest.mark.parametrize`` parameters (one
  case per row of a literal table); other f-strings and computed models are counted as not
  extractable.
  pytest-inmanta's test module ``unittest`` (not published) is a v1 module in the
  project's ``libs/`` with an empty model and the files the test adds to it
  (``add_mock_file``); modules a test makes (``create_module``) are there too;
* projects written for cfmodel in ``tests/modules/projects/<name>/`` (quickstart-style
  use of the published modules: a ``main.cf``, maybe templates or a v1 module in
  ``libs/``).

A case becomes a project directory (`write_project`): ``main.cf``, a ``project.yml`` that
both compilers read, and the case's extra files.
"""

from __future__ import annotations

import ast
import configparser
import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from tests.compat.inmanta import REQUIREMENTS as REFERENCE_REQUIREMENTS
from tests.compat.inmanta import base_interpreter

# The newest release of each module that installs with inmanta-core 20.1 (Python 3.13).
MODULES = {
    "std": "8.7.5",
    "fs": "1.2.0",
    "exec": "2.1.1",
    "mitogen": "0.2.5",
    "apt": "1.1.0",
    "yum": "2.1.1",
    "config": "0.8.0",
}
# What the modules' Python code imports besides inmanta (installed for cfmodel's side).
THIRD_PARTY = ["pydantic>=2,<3", "email_validator>=2,<3", "mitogen==0.3.*"]
# The modules' dependency inmanta-core, pinned to the reference's version (pip keeps it).
CORE = [r for r in REFERENCE_REQUIREMENTS if r.startswith("inmanta-core")]
PROJECTS = Path(__file__).parent / "projects"
REPO = Path(__file__).resolve().parents[2]
PROJECT_YML = "name: {name}\nmodulepath: libs\ndownloadpath: libs\n"


def cache_dir() -> Path:
    explicit = os.environ.get("CFMODEL_MODULES_DIR")
    return Path(explicit) if explicit else Path.home() / ".cache" / "cfmodel" / "modules"


def distribution(module: str) -> str:
    return f"inmanta-module-{module}"


def _artifact(module: str, version: str, kind: str) -> str:
    stem = f"inmanta_module_{module}-{version}"
    return f"{stem}-py3-none-any.whl" if kind == "wheel" else f"{stem}.tar.gz"


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
        capture_output=True,
        text=True,
        timeout=900,
    )


class CorpusError(Exception):
    """The corpus could not be downloaded or unpacked (the message says what pip said)."""


def download(modules: dict[str, str] | None = None) -> Path:
    """The folder with each pinned module's sdist and wheel (downloaded when missing)."""
    modules = modules or MODULES
    folder = cache_dir() / "dist"
    folder.mkdir(parents=True, exist_ok=True)
    for kind, option in (("sdist", "--no-binary=:all:"), ("wheel", "--only-binary=:all:")):
        missing = [
            f"{distribution(m)}=={v}"
            for m, v in modules.items()
            if not (folder / _artifact(m, v, kind)).is_file()
        ]
        if missing:
            done = _pip(
                "download", "--no-deps", option, "--python-version", "3.13", "-d", str(folder), *missing
            )
            if done.returncode != 0:
                raise CorpusError(f"pip download failed: {done.stderr.strip()[-800:]}")
    return folder


def cfmodel_requirements() -> list[str]:
    """cfmodel's own dependencies (``install_requires`` of setup.cfg)."""
    parser = configparser.ConfigParser()
    parser.read(REPO / "setup.cfg", encoding="utf-8")
    lines = parser.get("options", "install_requires", fallback="").splitlines()
    return [line.strip() for line in lines if line.strip()]


def cfmodel_python(modules: dict[str, str] | None = None) -> Path:
    """A Python 3.13 venv with cfmodel's dependencies and the modules installed (cfmodel itself
    runs from this checkout, on ``PYTHONPATH``).

    The modules are pip-installed from their wheels with their dependencies, as a user
    installs them: inmanta-core (pinned to the reference's version) is then importable, and
    cfmodel must still serve module code its own ``inmanta`` API (`cfmodel.moduleimport`);
    the path without inmanta-core is cfmodel's own test venv (``tests/modules/test_loading.py``).
    Python 3.13 because the newest modules (std 8.7.5) are written for Python >= 3.12, as
    inmanta-core 20.1 is.
    """
    modules = modules or MODULES
    folder = download(modules)
    wheels = [str(folder / _artifact(m, v, "wheel")) for m, v in sorted(modules.items())]
    wanted = " ".join([*cfmodel_requirements(), *THIRD_PARTY, *CORE, "with-deps", *wheels])
    root = cache_dir() / "cfmodel-venv"
    python = root / "bin" / "python"
    mark = root / ".cfmodel-ready"
    if python.exists() and mark.is_file() and mark.read_text(encoding="utf-8").strip() == wanted:
        return python
    base = base_interpreter()
    if base is None:
        raise CorpusError("no Python >= 3.13 found (pyenv versions, PATH) for the modules' code")
    shutil.rmtree(root, ignore_errors=True)
    steps = [
        [str(base), "-m", "venv", str(root)],
        [str(python), "-m", "pip", "install", "-q", *cfmodel_requirements(), *THIRD_PARTY, *CORE, *wheels],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise CorpusError(f"{' '.join(step[:5])} ... failed: {done.stderr.strip()[-800:]}")
    mark.write_text(wanted + "\n", encoding="utf-8")
    return python


def sources(modules: dict[str, str] | None = None) -> dict[str, Path]:
    """Each module's unpacked sdist (its ``tests/`` are the cases)."""
    modules = modules or MODULES
    folder = download(modules)
    out: dict[str, Path] = {}
    for module, version in sorted(modules.items()):
        target = cache_dir() / "src" / f"inmanta_module_{module}-{version}"
        if not (target / "tests").is_dir():
            with tarfile.open(folder / _artifact(module, version, "sdist")) as archive:
                archive.extractall(target.parent, filter="data")
        out[module] = target
    return out


@dataclass(frozen=True)
class Case:
    """One project to compile with both compilers."""

    name: str
    group: str
    main: str
    files: dict[str, bytes] = field(default_factory=dict)


@dataclass
class Collected:
    cases: list[Case]
    skipped: dict[str, int]  # group -> compile calls whose model is not a literal


Row = dict[str, object]  # a test's parameters (``@pytest.mark.parametrize``), by name


def _string_of(node: ast.expr | None, assigned: dict[str, str], row: Row | None = None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and row is not None:
        return _formatted(node, row)
    if isinstance(node, ast.Name):
        return assigned.get(node.id)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "strip"
        and not node.args
    ):
        inner = _string_of(node.func.value, assigned, row)
        return None if inner is None else inner.strip()
    return None


_CONVERSIONS = {-1: lambda v: v, ord("s"): str, ord("r"): repr, ord("a"): ascii}


def _formatted(node: ast.JoinedStr, row: Row) -> str | None:
    """An f-string whose fields are names of the test's parameters, with this row's values."""
    out: list[str] = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            out.append(part.value)
            continue
        if not isinstance(part, ast.FormattedValue) or not isinstance(part.value, ast.Name):
            return None
        if part.value.id not in row or part.conversion not in _CONVERSIONS:
            return None
        spec = "" if part.format_spec is None else _formatted(part.format_spec, row)
        if spec is None:
            return None
        out.append(format(_CONVERSIONS[part.conversion](row[part.value.id]), spec))
    return "".join(out)


def _rows(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Row] | None:
    """The parameter rows of ``@pytest.mark.parametrize("a,b", [(1, 2), ...])`` decorators (their
    product), ``[{}]`` without one, None when a table is not literal."""
    rows: list[Row] = [{}]
    for decorator in function.decorator_list:
        if not (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "parametrize"
            and len(decorator.args) >= 2
        ):
            continue
        try:
            names = ast.literal_eval(decorator.args[0])
            table = ast.literal_eval(decorator.args[1])
        except ValueError:
            return None
        keys = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        values = [item if len(keys) > 1 else (item,) for item in table]
        if any(not isinstance(v, tuple | list) or len(v) != len(keys) for v in values):
            return None
        rows = [{**row, **dict(zip(keys, value, strict=True))} for row in rows for value in values]
    return rows


def _project_call(node: ast.AST, method: str) -> ast.Call | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "project"
    ):
        return node
    return None


def _argument(
    call: ast.Call, index: int, name: str, assigned: dict[str, str], row: Row | None = None
) -> str | None:
    if len(call.args) > index:
        return _string_of(call.args[index], assigned, row)
    for keyword in call.keywords:
        if keyword.arg == name:
            return _string_of(keyword.value, assigned, row)
    return None


def _test_module(mocks: list[tuple[int, dict[str, bytes]]], line: int) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for at, made in mocks:
        if at < line:
            files.update(made)
    return files


def _compile_calls(tree: ast.Module) -> list[tuple[str, int, str | None, dict[str, bytes]]]:
    """(test, line, model text or None, extra files) for every ``project.compile(model)``.

    The extra files are what the test gave pytest-inmanta's test module before the call
    (``project.add_mock_file(kind, name, text)``: ``libs/unittest/<kind>/<name>``) and the
    modules it made (``project.create_module(name, initcf=..., initpy=...)``), when literal.
    A model that is an f-string of the test's parameters (``@pytest.mark.parametrize`` with a
    literal table) is one model per row, the test named ``function[row]``; a model that two
    calls of one row share (``if valid: compile(m) else: with raises: compile(m)``) counts once.
    """
    found: list[tuple[str, int, str | None, dict[str, bytes]]] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        plain = _calls_in(function, None)
        rows = _rows(function)
        if rows is None or rows == [{}] or all(model is not None for _, model, _ in plain):
            found.extend((function.name, line, model, files) for line, model, files in plain)
            continue
        per_row = [_calls_in(function, row) for row in rows]
        for k, (line, model, files) in enumerate(plain):
            if model is not None:
                found.append((function.name, line, model, files))
                continue
            texts = [calls[k][1] for calls in per_row]
            if any(text is None for text in texts):
                found.append((function.name, line, None, files))
                continue
            for n, calls in enumerate(per_row):
                if any(calls[j][1] == calls[k][1] and calls[j][2] == calls[k][2] for j in range(k)):
                    continue
                found.append((f"{function.name}[{n}]", line, calls[k][1], calls[k][2]))
    return sorted(found, key=lambda item: item[1])


def _calls_in(
    function: ast.FunctionDef | ast.AsyncFunctionDef, row: Row | None
) -> list[tuple[int, str | None, dict[str, bytes]]]:
    """(line, model or None, extra files) of each ``project.compile`` in *function*, f-strings
    rendered with *row* (None: only literal models)."""
    assigned: dict[str, str] = {}
    mocks: list[tuple[int, dict[str, bytes]]] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            text = _string_of(node.value, assigned, row)
            if text is not None:
                assigned[node.targets[0].id] = text
    for node in ast.walk(function):
        mock = _project_call(node, "add_mock_file")
        if mock is not None:
            kind, name = (
                _argument(mock, 0, "subdir", assigned, row),
                _argument(mock, 1, "name", assigned, row),
            )
            content = _argument(mock, 2, "content", assigned, row)
            if kind and name and content is not None:
                mocks.append((mock.lineno, {f"libs/unittest/{kind}/{name}": content.encode("utf-8")}))
        create = _project_call(node, "create_module")
        if create is not None:
            module = _argument(create, 0, "name", assigned, row)
            initcf = _argument(create, 1, "initcf", assigned, row) or ""
            initpy = _argument(create, 2, "initpy", assigned, row) or ""
            if module:
                made = {
                    f"libs/{module}/module.yml": f"name: {module}\nlicense: ASL\nversion: 0.1\n".encode(),
                    f"libs/{module}/model/_init.cf": textwrap.dedent(initcf).encode("utf-8"),
                    f"libs/{module}/plugins/__init__.py": textwrap.dedent(initpy).encode("utf-8"),
                }
                mocks.append((create.lineno, made))
    calls: list[tuple[int, str | None, dict[str, bytes]]] = []
    for node in ast.walk(function):
        call = _project_call(node, "compile")
        if call is not None and call.args:
            model = _string_of(call.args[0], assigned, row)
            calls.append((call.lineno, model, _test_module(mocks, call.lineno)))
    return calls


# pytest-inmanta's test module, as the tests see it (its model is ours: empty).
UNITTEST_MODULE = {
    "libs/unittest/module.yml": b"name: unittest\nlicense: ASL\nversion: 0.1\n",
    "libs/unittest/model/_init.cf": b"",
}


def _clean(model: str) -> str:
    return textwrap.dedent(model).strip("\n") + "\n"


def module_cases(modules: dict[str, str] | None = None) -> Collected:
    cases: list[Case] = []
    skipped: dict[str, int] = {}
    for module, root in sources(modules).items():
        for test_file in sorted((root / "tests").glob("test_*.py")):
            tree = ast.parse(test_file.read_text(encoding="utf-8"))
            seen: dict[str, int] = {}
            for function, _line, model, files in _compile_calls(tree):
                if model is None:
                    skipped[module] = skipped.get(module, 0) + 1
                    continue
                seen[function] = seen.get(function, 0) + 1
                suffix = "" if seen[function] == 1 else f"#{seen[function]}"
                name = f"{module}/{test_file.stem}::{function}{suffix}"
                cases.append(Case(name, module, _clean(model), {**UNITTEST_MODULE, **files}))
    return Collected(cases, skipped)


def project_cases() -> list[Case]:
    cases: list[Case] = []
    for directory in sorted(p for p in PROJECTS.iterdir() if (p / "main.cf").is_file()):
        files = {
            str(path.relative_to(directory)): path.read_bytes()
            for path in sorted(directory.rglob("*"))
            if path.is_file() and path.name != "main.cf" and "__pycache__" not in path.parts
        }
        main = (directory / "main.cf").read_text(encoding="utf-8")
        cases.append(Case(f"projects/{directory.name}", "projects", main, files))
    return cases


def write_project(case: Case, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "main.cf").write_text(case.main, encoding="utf-8")
    if "project.yml" not in case.files:
        name = "".join(c if c.isalnum() else "_" for c in case.name).strip("_").lower()
        (directory / "project.yml").write_text(PROJECT_YML.format(name=name), encoding="utf-8")
    for relative, data in case.files.items():
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return directory
