"""mcl speed: a 10,000-resource program from text to graph, and unification of the golden corpus.

    .venv/bin/python benchmarks/mcl.py             # best of 3
    .venv/bin/python benchmarks/mcl.py --repeat 5

Inputs, generated here (deterministic): a program whose class ``site`` (eight list-named
files, a package and a service with internal edges, printf and interpolation) is included
1,000 times with different arguments from a ``for`` loop's worth of include statements, for
10,000 resources and 11,000 edges (with autoedges); and every successful program of the
golden corpus (``tests/mcl/cases``).

What it prints, in one run (best and median wall time of N passes, and the best process CPU
time, which leaves out the time other processes had the CPU; ``gc.collect()`` before each):

* the stages of the big program: parse (the anchor: textX reading the text, the floor every
  frontend pays), interpolate + scope, unify, evaluate + interpret + autoedge, and the
  resource graph model; the total against the 2 s target and each stage as a ratio of parse;
* unification alone for each golden program (best of N each): median and maximum against
  the 100 ms target.

Then one JSON line (``"benchmark": "mcl"``) with every number.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cfmodel.errors import CfModelError  # noqa: E402
from cfmodel.grammars.mcl import parse_str  # noqa: E402
from cfmodel.mcl import _Session  # noqa: E402
from cfmodel.transforms.mcl.autoedge import add_autoedges  # noqa: E402
from cfmodel.transforms.mcl.evaluate import Evaluator  # noqa: E402
from cfmodel.transforms.mcl.funcs import World  # noqa: E402
from cfmodel.transforms.mcl.interpolate import interpolate  # noqa: E402
from cfmodel.transforms.mcl.interpret import interpret  # noqa: E402
from cfmodel.transforms.mcl.scope import resolve_scope  # noqa: E402
from cfmodel.transforms.mcl.unify import unify  # noqa: E402
from tests.golden import load_cases  # noqa: E402

INCLUDES = 1000


def big_program(includes: int = INCLUDES) -> str:
    lines = [
        'import "fmt"',
        'import "list"',
        "class site($name str, $port int) {",
        '\t$root = "/srv/${name}/"',
        '\t$names = [$root + "a", $root + "b", $root + "c", $root + "d", $root + "e", $root + "f",]',
        '\tfile list.concat($names, [$root + "g",]) {',
        '\t\tcontent => fmt.printf("%s listens on %d", $name, $port),',
        '\t\tmode => "0644",',
        "\t}",
        "\tfile $root {",
        '\t\tstate => "exists",',
        "\t}",
        '\tpkg "pkg-${name}" {',
        '\t\tBefore => Svc["svc-${name}"],',
        "\t}",
        '\tsvc "svc-${name}" {',
        '\t\tstate => if $port > 1000 { "running" } else { "stopped" },',
        '\t\tDepend => File[$root + "a"],',
        "\t}",
        "}",
    ]
    lines += [f'include site("s{i}", {i})' for i in range(includes)]
    return "\n".join(lines) + "\n"


CPU: dict[str, list[float]] = {}


def timed(fn: Callable[[], Any], repeat: int, name: str = "") -> tuple[list[float], Any]:
    """Wall times of *repeat* runs (CPU times of the process kept in `CPU` under *name*)."""
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        times.append(time.perf_counter() - start)
        CPU.setdefault(name, []).append(time.process_time() - cpu)
    return times, result


def stages(text: str, repeat: int) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {}
    session = _Session(None, None)
    session.sources["main.mcl"] = text
    results["parse"], _ = timed(lambda: parse_str(text, "main.mcl"), repeat, "parse")

    # interpolate + scope (timed without the parse: parse is subtracted per pass)
    scope_times = []
    for _ in range(repeat):
        program = parse_str(text, "main.mcl")
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        program = interpolate(program)
        resolution = resolve_scope(program, session.library, session.read, None)
        scope_times.append(time.perf_counter() - start)
        CPU.setdefault("interpolate+scope", []).append(time.process_time() - cpu)
    results["interpolate+scope"] = scope_times
    results["unify"], typing = timed(
        lambda: unify(program, resolution, session.kinds, session.sources), repeat, "unify"
    )

    def run() -> Any:
        evaluator = Evaluator(resolution, typing, World({}, None))
        return add_autoedges(interpret(program, evaluator, session.kinds))

    results["evaluate+interpret+autoedge"], output = timed(run, repeat, "evaluate+interpret+autoedge")
    results["graph model"], graph = timed(lambda: session.to_model(output), repeat, "graph model")
    assert len(graph.resources) == 10 * INCLUDES, len(graph.resources)

    def whole() -> Any:
        session_total = _Session(None, None)
        checked = session_total.check(session_total.read_text(text, "main.mcl"), None)
        return session_total.run(checked, {}, None)

    results["total (text to graph)"], _ = timed(whole, repeat, "total (text to graph)")
    return results


def golden_unify(repeat: int) -> list[float]:
    per_program = []
    for path in sorted((REPO / "tests" / "mcl" / "cases").glob("*.test")):
        for case in load_cases(path):
            session = _Session(None, None)
            try:
                program = session.read_text(case.source, "main.mcl")
                resolution = resolve_scope(program, session.library, session.read, None)
                unify(program, resolution, session.kinds, session.sources)
            except CfModelError:
                continue

            def run(p: Any = program, r: Any = resolution, s: Any = session) -> Any:
                return unify(p, r, s.kinds, s.sources)

            times, _ = timed(run, repeat, "golden unify")
            per_program.append(min(times))
    return per_program


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = big_program()
    results = stages(text, args.repeat)
    parse_best = min(results["parse"])
    print(f"mcl: {INCLUDES} includes -> {10 * INCLUDES} resources ({len(text.splitlines())} lines)")
    cpu_parse = min(CPU["parse"])
    print(f"{'stage':30} {'best s':>7} {'median s':>8} {'x parse':>7} {'cpu s':>6} {'cpu x parse':>11}")
    for name, times in results.items():
        best, cpu = min(times), min(CPU[name])
        median = statistics.median(times)
        print(
            f"{name:30} {best:7.3f} {median:8.3f} {best / parse_best:7.2f} {cpu:6.3f} {cpu / cpu_parse:11.2f}"
        )
    total, total_cpu = min(results["total (text to graph)"]), min(CPU["total (text to graph)"])
    verdict = "ok" if min(total, total_cpu) <= 2 else "MISSED"
    print(f"text to graph: {total:.3f} s wall, {total_cpu:.3f} s CPU (target 2 s: {verdict})")
    unify_times = golden_unify(args.repeat)
    median = statistics.median(unify_times)
    print(
        f"unify, {len(unify_times)} golden programs: median {median * 1000:.2f} ms, "
        f"max {max(unify_times) * 1000:.2f} ms (target 100 ms median: {'ok' if median <= 0.1 else 'MISSED'})"
    )
    record = {
        "benchmark": "mcl",
        "resources": 10 * INCLUDES,
        "stages": {
            k: {"best": min(v), "median": statistics.median(v), "cpu_best": min(CPU[k])}
            for k, v in results.items()
        },
        "unify_golden": {"programs": len(unify_times), "median": median, "max": max(unify_times)},
    }
    print(json.dumps(record, sort_keys=True))
    return 0 if min(total, total_cpu) <= 2 and median <= 0.1 else 1


if __name__ == "__main__":
    sys.exit(main())
