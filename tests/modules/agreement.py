"""Compile the module corpus with both compilers and compare: verdicts, instances, resources.

`run(cases)` writes every case as a project, compiles them all with inmanta-core 20.1
(`tests.modules.reference`, results cached on disk by case content and reference
requirements) and with cfmodel (`tests.modules.ours`, in a subprocess with the modules
installed as Python packages), and returns one `Outcome` per case. `table(outcomes)` is
the agreement table per group: cases, how many each compiler compiles, same verdict,
compiled by both with identical instances, and also identical exported resources,
tracebacks; `causes(outcomes)` the
first line of cfmodel's error where inmanta compiled, counted.

Instances are compared up to creation order (`tests.compat.canonical`), every entity's
(std's included); resources by id: the whole serialized resource, requires sorted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.compat.canonical import canonical
from tests.compat.inmanta import RUNNER
from tests.modules import corpus
from tests.modules.reference import reference_python, requirements, run_reference

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Outcome:
    case: corpus.Case
    theirs: dict[str, Any]
    ours: dict[str, Any]

    @property
    def same_verdict(self) -> bool:
        return bool(self.theirs["ok"]) == bool(self.ours["ok"])

    @property
    def both_ok(self) -> bool:
        return bool(self.theirs["ok"] and self.ours["ok"])

    @property
    def same_instances(self) -> bool:
        if not self.same_verdict:
            return False
        if not self.both_ok:
            return True
        return canonical(self.theirs["instances"]) == canonical(self.ours["instances"])

    @property
    def same_resources(self) -> bool:
        if not self.same_instances:
            return False
        if not self.both_ok:
            return True
        theirs, ours = self.theirs.get("resources"), self.ours.get("resources")
        return theirs is not None and ours is not None and normal(theirs) == normal(ours)

    @property
    def traceback(self) -> bool:
        return self.ours.get("error") == "traceback"

    @property
    def verdict(self) -> str:
        """One word for the golden list: agree (instances and resources), instances, verdict, differ."""
        if self.traceback:
            return "traceback"
        if self.same_resources:
            return "agree"
        if self.same_instances:
            return "instances"
        if self.same_verdict:
            return "verdict"
        return "differ"


_VERSION = re.compile(r",v=\d+$")


def normal(resources: list[dict[str, Any]]) -> list[str]:
    """Resources comparable whatever the order: ids and requires without their version, requires sorted."""
    out = []
    for resource in resources:
        item = dict(resource)
        item["id"] = _VERSION.sub("", str(item.get("id")))
        item["requires"] = sorted(_VERSION.sub("", str(r)) for r in item.get("requires") or [])
        out.append(json.dumps(item, sort_keys=True))
    return sorted(out)


def _key(case: corpus.Case) -> str:
    files = sorted((k, hashlib.sha256(v).hexdigest()) for k, v in case.files.items())
    text = json.dumps([requirements(), RUNNER, case.main, files])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def results_cache() -> Path:
    return corpus.cache_dir() / "results"


def reference_results(cases: list[corpus.Case], root: Path) -> dict[str, dict[str, Any]]:
    """Each case's result from inmanta-core (cached on disk by content)."""
    results: dict[str, dict[str, Any]] = {}
    todo: dict[str, Path] = {}
    for n, case in enumerate(cases):
        cached = results_cache() / f"{_key(case)}.json"
        if cached.is_file():
            results[case.name] = json.loads(cached.read_text(encoding="utf-8"))
            continue
        todo[case.name] = corpus.write_project(case, root / "reference" / f"p{n}")
    if todo:
        python, why = reference_python()
        if python is None:
            raise corpus.CorpusError(why)
        fresh = run_reference(python, list(todo.values()))
        results_cache().mkdir(parents=True, exist_ok=True)
        by_name = {case.name: case for case in cases}
        for name, directory in todo.items():
            result = fresh[str(directory.resolve())]
            results[name] = result
            (results_cache() / f"{_key(by_name[name])}.json").write_text(json.dumps(result), encoding="utf-8")
    return results


def our_results(cases: list[corpus.Case], root: Path) -> dict[str, dict[str, Any]]:
    python = corpus.cfmodel_python()
    directories = {
        case.name: corpus.write_project(case, root / "ours" / f"p{n}") for n, case in enumerate(cases)
    }
    out = root / "ours.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [str(python), "-m", "tests.modules.ours", str(out), *map(str, directories.values())],
        capture_output=True,
        text=True,
        timeout=3600,
        env=env,
        cwd=REPO,
    )
    if done.returncode != 0:
        raise corpus.CorpusError(f"cfmodel's runner failed:\n{done.stderr[-3000:]}")
    raw: dict[str, dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))
    return {name: raw[str(directory.resolve())] for name, directory in directories.items()}


def run(cases: list[corpus.Case]) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="cfmodel-modules-") as tmp:
        root = Path(tmp)
        theirs = reference_results(cases, root)
        ours = our_results(cases, root)
    return [Outcome(case, theirs[case.name], ours[case.name]) for case in cases]


HEADER = (
    "group",
    "cases",
    "inmanta compiles",
    "cfmodel compiles",
    "same verdict",
    "both compile, same instances",
    "… and same resources",
    "tracebacks",
)


def table(outcomes: list[Outcome]) -> str:
    groups: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.case.group, []).append(outcome)
    rows = [_row(name, items) for name, items in sorted(groups.items())]
    rows.append(_row("**all**", outcomes))
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _row(name: str, items: list[Outcome]) -> list[str]:
    return [
        name,
        str(len(items)),
        str(sum(bool(o.theirs["ok"]) for o in items)),
        str(sum(bool(o.ours["ok"]) for o in items)),
        str(sum(o.same_verdict for o in items)),
        str(sum(o.both_ok and o.same_instances for o in items)),
        str(sum(o.both_ok and o.same_resources for o in items)),
        str(sum(o.traceback for o in items)),
    ]


_SPAN = re.compile(r"^\S+:\d+:\d+: error: ")


def causes(outcomes: list[Outcome], limit: int = 25) -> list[tuple[int, str]]:
    """cfmodel's first error line where inmanta compiled (positions dropped), most frequent first."""
    counter: Counter[str] = Counter()
    for outcome in outcomes:
        if outcome.theirs["ok"] and not outcome.ours["ok"]:
            first = (outcome.ours.get("message") or "").strip().splitlines() or [""]
            line = first[-1] if outcome.traceback else _SPAN.sub("", first[0])
            counter[line[:160]] += 1
        elif outcome.both_ok and not outcome.same_instances:
            counter["(both compile, instances differ)"] += 1
        elif outcome.same_instances and outcome.both_ok and not outcome.same_resources:
            counter["(same instances, resources differ or not exported)"] += 1
    return [(count, text) for text, count in counter.most_common(limit)]
