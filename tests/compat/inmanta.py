"""The reference compiler (inmanta-core 20.1 + inmanta-module-std 8.7.5) in its own venv.

inmanta-core cannot share cfmodel's venv: it needs Python >= 3.13 (cfmodel's venv is
the machine's python3, 3.11), it pins packages to other versions than cfmodel's test
tools use, and it installs and manages Python packages in the venv it runs in. So it
lives in a cached venv of its own, made from a Python 3.13 interpreter
(`base_interpreter`: ``CFMODEL_INMANTA_BASE_PYTHON``, else the newest 3.13+ of pyenv's
versions, else ``python3.13``/``python3.14`` on the PATH that really runs) on first use
at ``~/.cache/cfmodel/inmanta-core-20.1`` (``CFMODEL_INMANTA_VENV`` overrides the place).
Once made it works offline.

`run_inmanta(projects)` compiles each project directory in a fresh child process of
one runner (inmanta is imported once, then forked per project) and returns, per
project, ``{"ok": bool, "error": class name, "message": str, "instances": [...]}``
where an instance is ``{"id": n, "entity": "ns::E", "attrs": {...}, "rels": {...}}``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REQUIREMENTS = ["inmanta-core==20.1.0", "inmanta-module-std==8.7.5"]
MINIMUM_PYTHON = (3, 13)
READY_MARK = ".cfmodel-ready"


def venv_dir() -> Path:
    override = os.environ.get("CFMODEL_INMANTA_VENV")
    if override:
        return Path(override)
    return Path.home() / ".cache" / "cfmodel" / "inmanta-core-20.1"


def _version(python: Path) -> tuple[int, int] | None:
    """The (major, minor) of *python* when it runs (a pyenv shim of a version not selected does not)."""
    try:
        done = subprocess.run(
            [str(python), "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
            env={k: v for k, v in os.environ.items() if not k.startswith("PYTHON")},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    parts = done.stdout.split()
    if done.returncode != 0 or len(parts) != 2:
        return None
    return int(parts[0]), int(parts[1])


def base_interpreter() -> Path | None:
    """A Python >= 3.13 to make the venv from, or None (see the module docstring for the order)."""
    override = os.environ.get("CFMODEL_INMANTA_BASE_PYTHON")
    if override:
        return Path(override)
    candidates: list[Path] = []
    pyenv_root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    versions = pyenv_root / "versions"
    if versions.is_dir():
        found = []
        for entry in versions.iterdir():
            numbers = entry.name.split(".")
            if len(numbers) == 3 and all(n.isdigit() for n in numbers):
                found.append((tuple(int(n) for n in numbers), entry / "bin" / "python3"))
        candidates += [python for _, python in sorted(found, reverse=True)]
    for name in ("python3.14", "python3.13"):
        on_path = shutil.which(name)
        if on_path:
            candidates.append(Path(on_path))
    for python in candidates:
        version = _version(python)
        if version is not None and version >= MINIMUM_PYTHON:
            return python
    return None


def inmanta_python(create: bool = True) -> Path | None:
    """The interpreter of the reference compiler's venv (created when missing and *create*)."""
    root = venv_dir()
    python = root / "bin" / "python"
    mark = root / READY_MARK
    wanted = " ".join(REQUIREMENTS)
    if python.exists() and mark.exists() and mark.read_text(encoding="utf-8").strip() == wanted:
        return python
    if not create:
        return None
    try:
        if not python.exists():
            base = base_interpreter()
            if base is None:
                raise OSError(
                    f"no Python >= {'.'.join(map(str, MINIMUM_PYTHON))} found (pyenv versions, PATH)"
                )
            subprocess.run([str(base), "-m", "venv", "--without-pip", str(root)], check=True)
            subprocess.run([str(python), "-m", "ensurepip"], check=True, capture_output=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *REQUIREMENTS],
            check=True,
            capture_output=True,
            timeout=1800,
        )
    except (subprocess.SubprocessError, OSError) as error:
        # Say why: the caller (./dev setup in CI, or a skipped/failed test) only sees None.
        detail = getattr(error, "stderr", None) or ""
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        print(f"cfmodel: cannot set up inmanta-core at {root}: {error}\n{detail[-2000:]}", file=sys.stderr)
        return None
    mark.write_text(wanted + "\n", encoding="utf-8")
    return python


# Runs inside the inmanta venv: argv = [out.json, project dir ...]; one JSON object per project.
RUNNER = r"""
import json, os, sys, logging, traceback
logging.disable(logging.CRITICAL)
import inmanta.compiler as compiler
from inmanta import module
from inmanta.ast import CompilerException
from inmanta.ast.entity import Entity
from inmanta.execute.runtime import Instance
from inmanta.execute.util import NoneValue, Unknown
from inmanta.config import Config

def convert(value, ids):
    if isinstance(value, Instance):
        return {"$ref": ids.setdefault(id(value), len(ids))}
    if isinstance(value, NoneValue) or value is None:
        return None
    if isinstance(value, Unknown):
        return {"$unknown": True}
    if isinstance(value, list):
        return [convert(v, ids) for v in value]
    if isinstance(value, dict):
        return {str(k): convert(v, ids) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)):
        return value
    return {"$python": repr(value)}

def compile_one(path):
    os.chdir(path)
    Config.set("compiler", "cache", "false")
    project = module.Project(path, autostd=True)
    module.Project.set(project)
    try:
        project.load()
        types, _ = compiler.do_compile()
    except CompilerException as error:
        return {"ok": False, "error": type(error).__name__, "message": error.format_trace() if hasattr(error, "format_trace") else str(error)}
    ids = {}
    out = []
    entities = [t for name, t in types.items() if isinstance(t, Entity) and not name.startswith("std::")]
    for entity in sorted(entities, key=lambda e: e.get_full_name()):
        for instance in entity.get_all_instances():
            if instance.type is not entity:
                continue
            record = {"id": ids.setdefault(id(instance), len(ids)), "entity": entity.get_full_name(), "attrs": {}, "rels": {}}
            for name, slot in instance.slots.items():
                if name == "self":
                    continue
                attribute = entity.get_attribute(name)
                if attribute is None or attribute.get_entity().get_full_name() == "std::Entity":
                    continue
                value = slot.value if slot.hasValue else None
                from inmanta.ast.attribute import RelationAttribute
                if isinstance(attribute, RelationAttribute):
                    targets = value if isinstance(value, list) else ([] if value is None else [value])
                    record["rels"][name] = [convert(t, ids)["$ref"] for t in targets if isinstance(t, Instance)]
                else:
                    record["attrs"][name] = convert(value, ids)
            out.append(record)
    return {"ok": True, "instances": out}

results = {}
for path in sys.argv[2:]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            result = compile_one(path)
        except BaseException as error:
            result = {"ok": False, "error": type(error).__name__, "message": "".join(traceback.format_exception(error))}
        with os.fdopen(write, "w") as stream:
            json.dump(result, stream)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as stream:
        data = stream.read()
    os.waitpid(pid, 0)
    results[path] = json.loads(data) if data else {"ok": False, "error": "crash", "message": ""}
with open(sys.argv[1], "w") as stream:
    json.dump(results, stream)
"""


def run_inmanta(python: Path, projects: list[Path], timeout: float = 1200) -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="cfmodel-compat-") as tmp:
        out = Path(tmp) / "out.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        subprocess.run(
            [str(python), "-c", RUNNER, str(out), *[str(p.resolve()) for p in projects]],
            check=True,
            capture_output=True,
            timeout=timeout,
            env=env,
        )
        results: dict[str, dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))
    return {str(Path(k)): v for k, v in results.items()}
