"""cfmodel's side of the module corpus: compile each project, record instances and resources.

Run as ``python -m tests.modules.ours OUT.json PROJECT...`` by the interpreter of
`tests.modules.corpus.cfmodel_python` (the modules installed as Python packages, as after
``pip install``), with this checkout on ``PYTHONPATH``.
Each project is compiled in a forked child (a crash or a hang costs that project only:
60 s each); per project ``{"ok", "error", "message", "instances", "resources"}``, in the
reference's format (`tests.modules.reference`). Anything but a `CfModelError` is recorded
as ``"error": "traceback"``: the corpus must never show one.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

from cfmodel.errors import CfCompileError, CfModelError
from cfmodel.pipeline import CompileResult, compile_project
from cfmodel.plugins import Unknown
from cfmodel.references import is_reference
from cfmodel.transforms.cf.export import export_resources
from cfmodel.transforms.cf.refine.values import ATTR, Instance, ListVar, OptVar, Var

LIMIT_SECONDS = 60


def records(result: CompileResult) -> list[dict[str, Any]]:
    """Every instance as a record (entity, attribute values, relation targets by record id)."""
    ids = {id(instance): n for n, instance in enumerate(result.raw_instances)}
    out: list[dict[str, Any]] = []
    for instance in result.raw_instances:
        record: dict[str, Any] = {
            "id": ids[id(instance)],
            "entity": instance.info.qname,
            "attrs": {},
            "rels": {},
        }
        for name, field in instance.info.fields.items():
            slot = instance.slots.get(name)
            if field.kind == ATTR:
                ready = isinstance(slot, Var) and slot.ready
                record["attrs"][name] = _plain(slot.value, ids) if ready else None  # type: ignore[union-attr]
                continue
            if isinstance(slot, ListVar):
                targets = list(slot.items)
            else:
                single = slot.value if isinstance(slot, OptVar | Var) and slot.is_ready() else None
                targets = [] if single is None else [single]
            record["rels"][name] = [ids[id(t)] for t in targets if isinstance(t, Instance)]
        out.append(record)
    return out


def _plain(value: Any, ids: dict[int, int]) -> Any:
    if isinstance(value, Instance):
        return {"$ref": ids[id(value)]}
    if isinstance(value, Unknown):
        return {"$unknown": True}
    if is_reference(value):
        return {"$reference": value.serialize().model_dump()}
    if isinstance(value, list):
        return [_plain(v, ids) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, ids) for k, v in value.items()}
    return value


def resources_of(result: CompileResult) -> list[dict[str, Any]]:
    """The exported resources, as ``cfmodel export`` writes them."""
    return json.loads(export_resources(result).json_bytes())  # type: ignore[no-any-return]


def compile_one(path: Path) -> dict[str, Any]:
    os.chdir(path)
    try:
        result = compile_project(".")
        instances = records(result)
        resources = resources_of(result)
    except CfCompileError as error:
        return {
            "ok": False,
            "error": ",".join(sorted({d.code for d in error.items})),
            "message": error.render(),
        }
    except CfModelError as error:
        return {"ok": False, "error": error.code, "message": error.render()}
    return {"ok": True, "instances": instances, "resources": resources}


def _child(path: Path, write: int) -> None:
    signal.alarm(LIMIT_SECONDS)
    try:
        result = compile_one(path)
    except BaseException as error:  # recorded: the table counts tracebacks
        text = "".join(traceback.format_exception(error))
        result = {"ok": False, "error": "traceback", "message": text[-3000:]}
    with os.fdopen(write, "w") as stream:
        json.dump(result, stream, default=repr)


def main(argv: list[str]) -> None:
    results: dict[str, Any] = {}
    for name in argv[1:]:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            _child(Path(name), write)
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as stream:
            data = stream.read()
        _, status = os.waitpid(pid, 0)
        crash = {"ok": False, "error": "traceback", "message": f"crashed or timed out (status {status})"}
        results[str(Path(name).resolve())] = json.loads(data) if data else crash
    Path(argv[0]).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
