#!/usr/bin/env python3
"""Fuzz cfmodel at length: COUNT inputs over `.cf`, `.bind`, `.cfenv`, YAML, projects, templates.

Usage: .venv/bin/python scripts/fuzz.py [COUNT] [--start N] [--jobs J] [--report FILE]

Runs `tests/fuzz/harness.py` (see its docstring for what is made and what counts as a
finding) in J parallel runners, each on its share of the input numbers; prints progress
and a summary (how many inputs accepted, refused with a located error, crashed with exit
3, hung over 5 s, or took more than 1 GiB), and writes the findings (target, number,
kind, detail) as JSON to FILE. Reproduce a finding with
``python -c "from tests.fuzz.harness import reproduce; print(reproduce('cf', 123))"``.
Run it at low priority on a shared machine: ``nice -n 19 .venv/bin/python scripts/fuzz.py``.
Exit status: 0 with no findings, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz import harness


def _runner(arguments: tuple[int, int, int, int]) -> dict[str, object]:
    count, start, jobs, index = arguments
    tasks = [task for position, task in enumerate(harness.schedule(count, start)) if position % jobs == index]

    shown = [0]

    def progress(report: harness.Report) -> None:
        for finding in report.findings[shown[0] :]:
            print(f"[runner {index}] FINDING", *finding[:3], finding[3][:300], flush=True)
        shown[0] = len(report.findings)
        print(f"[runner {index}] {report.summary()}", flush=True)

    report = harness.run(tasks, progress)
    return {
        "counts": dict(report.counts),
        "per_target": dict(report.per_target),
        "findings": report.findings,
        "seconds": report.seconds,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=1_000_000)
    parser.add_argument("--start", type=int, default=0, help="first input number")
    parser.add_argument("--jobs", type=int, default=1, help="parallel runners")
    parser.add_argument("--report", type=Path, default=Path("fuzz-report.json"))
    args = parser.parse_args()
    jobs = max(1, args.jobs)
    # runners are plain (non-daemon) processes: each forks its own watched workers
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    runners = [
        context.Process(target=lambda i=index: results.put(_runner((args.count, args.start, jobs, i))))
        for index in range(jobs)
    ]
    for runner in runners:
        runner.start()
    parts = [results.get() for _ in runners]
    for runner in runners:
        runner.join()
    total = harness.Report()
    for part in parts:
        total.counts.update(part["counts"])  # type: ignore[arg-type]
        total.per_target.update(part["per_target"])  # type: ignore[arg-type]
        total.findings.extend(tuple(f) for f in part["findings"])  # type: ignore[attr-defined]
        total.seconds = max(total.seconds, float(part["seconds"]))  # type: ignore[arg-type]
    print(total.summary())
    for finding in total.findings:
        print("  ", *finding[:3], finding[3][:200])
    args.report.write_text(
        json.dumps(
            {"summary": total.summary(), "counts": dict(total.counts), "findings": total.findings}, indent=1
        )
        + "\n",
        encoding="utf-8",
    )
    return 1 if total.bad() else 0


if __name__ == "__main__":
    sys.exit(main())
