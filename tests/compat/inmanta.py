"""The reference compiler (inmanta-core 20.1 + inmanta-module-std 8.7.5) in its own venv.

inmanta-core cannot share cfmodel's venv: it needs Python >= 3.13 (cfmodel's venv is
the machine's python3, 3.11), it pins packages to other versions than cfmodel's test
tools use, and it installs and manages Python packages in the venv it runs in. So it
lives in a cached venv of its own, made from a Python 3.13 interpreter
(`base_interpreter`: ``CFMODEL_INMANTA_BASE_PYTHON``, else the newest 3.13+ of pyenv's
versions, else ``python3.13``/``python3.14`` on the PATH that really runs) on first use
at ``~/.cache/cfmodel/inmanta-core-20.1`` (``CFMODEL_INMANTA_VENV`` overrides the place).
Once made it works offline.

`run_inmanta(python, projects)` compiles each project directory in a fresh child process
of one runner (inmanta is imported once, then forked per project) and returns, per
project, ``{"ok": bool, "error": class name, "message": str, "instances": [...]}``
where an instance is ``{"id": n, "entity": "ns::E", "attrs": {...}, "rels": {...}}``
(a reference as ``{"$reference": its serialized form}``). The one runner serves both
peer suites: ``tests/compat`` (the project's own entities) and the real-module corpus
``tests/modules`` (``with_std=True, export=True``: every entity, and the resources as
``inmanta export -j`` writes them, ``"resources"``).
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


# Runs inside the inmanta venv: argv = [out.json, options (JSON), project dir ...]; one JSON object
# per project. Options: "std" (also std's entities and std::Entity's relations, as the corpus
# compares them) and "export" (then the resources, as `inmanta export -j` writes them).
RUNNER = r"""
import json, os, re, sys, logging, traceback
logging.disable(logging.CRITICAL)
import inmanta.compiler as compiler
from inmanta import module, protocol
from inmanta.ast import CompilerException
from inmanta.ast.attribute import RelationAttribute
from inmanta.ast.entity import Entity
from inmanta.execute.runtime import Instance
from inmanta.execute.util import NoneValue, Unknown
from inmanta.config import Config
from inmanta.references import Reference

OPTIONS = json.loads(sys.argv[2])
VERSION = re.compile(r",v=\d+$")

def as_json(value):
    return json.loads(protocol.json_encode(value))

def convert(value, ids):
    if isinstance(value, Instance):
        return {"$ref": ids.setdefault(id(value), len(ids))}
    if isinstance(value, NoneValue) or value is None:
        return None
    if isinstance(value, Unknown):
        return {"$unknown": True}
    if isinstance(value, Reference):
        return {"$reference": as_json(value.serialize())}
    if isinstance(value, (list, tuple)):
        return [convert(v, ids) for v in value]
    if isinstance(value, dict):
        return {str(k): convert(v, ids) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)):
        return value
    return {"$python": type(value).__name__}

def instances_of(types):
    ids = {}
    out = []
    entities = [t for name, t in types.items() if isinstance(t, Entity) and (OPTIONS["std"] or not name.startswith("std::"))]
    for entity in sorted(entities, key=lambda e: e.get_full_name()):
        for instance in entity.get_all_instances():
            if instance.type is not entity:
                continue
            record = {"id": ids.setdefault(id(instance), len(ids)), "entity": entity.get_full_name(), "attrs": {}, "rels": {}}
            for name, slot in instance.slots.items():
                attribute = entity.get_attribute(name)
                if name == "self" or attribute is None:
                    continue
                if not OPTIONS["std"] and attribute.get_entity().get_full_name() == "std::Entity":
                    continue
                value = slot.value if slot.hasValue else None
                if isinstance(attribute, RelationAttribute):
                    targets = value if isinstance(value, list) else ([] if value is None else [value])
                    record["rels"][name] = [convert(t, ids)["$ref"] for t in targets if isinstance(t, Instance)]
                else:
                    record["attrs"][name] = convert(value, ids)
            out.append(record)
    return out

def without_version(value):
    if isinstance(value, str):
        return VERSION.sub("", value)
    if isinstance(value, list):
        return [without_version(v) for v in value]
    if isinstance(value, dict):
        return {k: without_version(v) for k, v in value.items()}
    return value

def resources_of(types, scopes):
    from inmanta.export import Exporter
    exporter = Exporter()
    exporter.run(types, scopes, no_commit=True)
    document = as_json(exporter.resources_to_list())
    return sorted((without_version(r) for r in document), key=lambda r: r["id"])

def compile_one(path):
    os.chdir(path)
    Config.set("compiler", "cache", "false")
    project = module.Project(path, autostd=True)
    module.Project.set(project)
    try:
        project.load()
        types, scopes = compiler.do_compile()
    except CompilerException as error:
        message = error.format_trace() if hasattr(error, "format_trace") else str(error)
        return {"ok": False, "error": type(error).__name__, "message": message}
    result = {"ok": True, "instances": instances_of(types)}
    if OPTIONS["export"]:
        try:
            result["resources"] = resources_of(types, scopes)
        except Exception as error:
            result["resources"] = None
            result["export_error"] = f"{type(error).__name__}: {error}"
    return result

results = {}
for path in sys.argv[3:]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            result = compile_one(path)
        except BaseException as error:
            result = {"ok": False, "error": type(error).__name__, "message": "".join(traceback.format_exception(error))[-3000:]}
        with os.fdopen(write, "w") as stream:
            json.dump(result, stream, default=repr)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as stream:
        data = stream.read()
    os.waitpid(pid, 0)
    results[path] = json.loads(data) if data else {"ok": False, "error": "crash", "message": ""}
with open(sys.argv[1], "w") as stream:
    json.dump(results, stream)
"""


def run_inmanta(
    python: Path,
    projects: list[Path],
    *,
    with_std: bool = False,
    export: bool = False,
    timeout: float = 1800,
) -> dict[str, dict[str, Any]]:
    """Compile *projects* with the reference compiler (`RUNNER`), per project directory its result.

    *with_std*: also std's entities and std::Entity's relations; *export*: also ``resources``,
    the document ``inmanta export -j`` writes (versions taken out of the ids).
    """
    options = json.dumps({"std": with_std, "export": export})
    with tempfile.TemporaryDirectory(prefix="cfmodel-inmanta-") as tmp:
        out = Path(tmp) / "out.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        subprocess.run(
            [str(python), "-c", RUNNER, str(out), options, *[str(p.resolve()) for p in projects]],
            check=True,
            capture_output=True,
            timeout=timeout,
            env=env,
        )
        results: dict[str, dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))
    return {str(Path(k)): v for k, v in results.items()}
