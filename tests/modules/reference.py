"""The reference side of the module corpus: inmanta-core 20.1 with the modules installed.

inmanta-core 20.1 runs in tests/compat's venv (`tests.compat.inmanta`, Python ≥ 3.13);
the pinned modules are pip-installed into it as v2 modules with their dependencies, as
a user of inmanta has them.

`run_reference(projects)` compiles each project directory in a fresh child process of one
runner (inmanta is imported once, then forked per project) and exports its resources as
``inmanta export -j`` does (`Exporter.run(..., no_commit=True)`, then
`resources_to_list()`); per project: ``{"ok", "error", "message", "instances",
"resources"}`` (instances as in `tests.compat.canonical`, every entity's, std's included).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.compat.inmanta import REQUIREMENTS as COMPAT_REQUIREMENTS
from tests.compat.inmanta import inmanta_python
from tests.modules.corpus import MODULES, distribution

MODULES_MARK = ".cfmodel-modules-ready"


def requirements(modules: dict[str, str] | None = None) -> list[str]:
    """What the corpus adds to the compat venv (inmanta-core pinned so that pip keeps it)."""
    modules = modules or MODULES
    core = [r for r in COMPAT_REQUIREMENTS if r.startswith("inmanta-core")]
    return [*core, *(f"{distribution(m)}=={v}" for m, v in sorted(modules.items()))]


def reference_python(modules: dict[str, str] | None = None) -> tuple[Path | None, str]:
    """The reference interpreter with the corpus's modules installed, or None and why not.

    The venv is tests/compat's (`tests.compat.inmanta.inmanta_python`: inmanta-core 20.1
    and std); the other pinned modules are pip-installed into it once (marked in it).
    """
    python = inmanta_python(create=True)
    if python is None:
        return None, "the reference compiler's venv (tests/compat/inmanta.py) could not be made"
    mark = python.parent.parent / MODULES_MARK
    wanted = " ".join(requirements(modules))
    if mark.is_file() and mark.read_text(encoding="utf-8").strip() == wanted:
        return python, ""
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements(modules)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        return None, f"cannot install the corpus's modules with {python}: {done.stderr[-1500:]}"
    mark.write_text(wanted + "\n", encoding="utf-8")
    return python, ""


# Runs inside the reference venv: argv = [out.json, project dir ...].
RUNNER = r"""
import json, os, re, sys, logging, traceback
logging.disable(logging.CRITICAL)
import inmanta.compiler as compiler
from inmanta import module
from inmanta.ast import CompilerException
from inmanta.ast.attribute import RelationAttribute
from inmanta.ast.entity import Entity
from inmanta.execute.runtime import Instance
from inmanta.execute.util import NoneValue, Unknown
from inmanta.config import Config
from inmanta.export import Exporter

VERSION = re.compile(r",v=\d+$")

def convert(value, ids):
    if isinstance(value, Instance):
        return {"$ref": ids.setdefault(id(value), len(ids))}
    if isinstance(value, NoneValue) or value is None:
        return None
    if isinstance(value, Unknown):
        return {"$unknown": True}
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
    entities = [t for t in types.values() if isinstance(t, Entity)]
    for entity in sorted(entities, key=lambda e: e.get_full_name()):
        for instance in entity.get_all_instances():
            if instance.type is not entity:
                continue
            record = {"id": ids.setdefault(id(instance), len(ids)), "entity": entity.get_full_name(), "attrs": {}, "rels": {}}
            for name, slot in instance.slots.items():
                attribute = entity.get_attribute(name)
                if name == "self" or attribute is None:
                    continue
                value = slot.value if slot.hasValue else None
                if isinstance(attribute, RelationAttribute):
                    targets = value if isinstance(value, list) else ([] if value is None else [value])
                    record["rels"][name] = [convert(t, ids)["$ref"] for t in targets if isinstance(t, Instance)]
                else:
                    record["attrs"][name] = convert(value, ids)
            out.append(record)
    return out

def plain(value):
    if isinstance(value, str):
        return VERSION.sub("", value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return repr(value)

def compile_one(path):
    os.chdir(path)
    Config.set("compiler", "cache", "false")
    project = module.Project(path, autostd=True)
    module.Project.set(project)
    project.load()
    try:
        types, scopes = compiler.do_compile()
    except CompilerException as error:
        return {"ok": False, "error": type(error).__name__, "message": error.format_trace()}
    instances = instances_of(types)
    try:
        exporter = Exporter()
        exporter.run(types, scopes, no_commit=True)
        resources = sorted((plain(r) for r in exporter.resources_to_list()), key=lambda r: r["id"])
    except Exception as error:
        return {"ok": True, "instances": instances, "resources": None, "export_error": f"{type(error).__name__}: {error}"}
    return {"ok": True, "instances": instances, "resources": resources}

results = {}
for path in sys.argv[2:]:
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


def run_reference(python: Path, projects: list[Path], timeout: float = 1800) -> dict[str, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="cfmodel-modules-") as tmp:
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
