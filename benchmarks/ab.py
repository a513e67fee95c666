"""A/B timing of two work trees of cfmodel, alternating, on one machine.

Run: ``.venv/bin/python benchmarks/ab.py --anchor TREE [--other TREE] [--rounds R] [--repeat K]
WORKLOAD [N ...]``

``TREE`` is a checkout of cfmodel with its own ``.venv`` (``./dev setup``), e.g. an old
commit made with ``git worktree add /tmp/anchor COMMIT``; ``--other`` defaults to this
tree. Each measurement is a fresh process of that tree's ``.venv/bin/python`` running this
file's worker with the tree first on ``sys.path``, so each side imports its own cfmodel.
The sides alternate (A B, B A, A B, ...) for R rounds each (default 5), so load from
other work on the machine weighs on both alike; a round is one process, which measures
``--repeat`` times (default 3, each on newly built objects) and keeps its best of each
quantity. Reported per side: minimum and median over the rounds of wall time and of the
process's CPU time (``process_time``), and B/A ratios of the minima and medians. Then one
JSON line with every number.

Workloads (the worker uses only APIs both sides have; the inputs are written once by this
tree, from the benchmark named, and read by both sides):

* ``xmi N`` (default 100000): N ``Node`` objects built with PyEcore's constructors, as in
  `xmi.py` (name, size, weight, enabled, a ``next`` reference to the previous node, an
  ``xmi:id`` each). A warm-up save+load of 1,000 objects first (code generation, first
  imports), then per repetition N new objects and, after ``gc.collect()``, save is
  ``xmi.to_bytes`` and load is ``xmi.from_bytes`` (fast lane); the saved bytes of both
  sides are compared by their SHA-256 (same model, same ids: they must be equal).
* ``compile N`` (default 5000): `compile.py`'s generated project of N hosts, compiled by
  ``compile_project(directory)`` (no cache) and made into the PyEcore model
  (``result.model``); ``first_compile`` is the process's first compile (grammar loading
  and other one-time work included), the others the best of the repetitions. Compared:
  the instance counts and the model's size.
* ``bindings``: `bindings.py`'s 10,000 bindings over 5 layers: parse of the 5 files,
  the first ``prepare`` (which flattens them), then the best of at least 5 ``prepare``,
  of ``injector(facts)`` alternating two requests, and of 80,000 ``lookup(name)``.
  Compared: every key's answer.

The numbers move with other work on the machine; run it under ``nice`` and compare only
the two sides of one run.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


# ---- worker (runs inside the measured tree's interpreter) ---------------------------------


def _xmi_worker(n: int, repeat: int, data: str = "-") -> dict[str, Any]:
    from pyecore.ecore import EAttribute, EBoolean, EClass, EDouble, EInt, EPackage, EReference, EString
    from pyecore.resources import ResourceSet

    from cfmodel.serializers import ecore, xmi

    pkg = EPackage("bench", nsURI="http://cfmodel.example/bench", nsPrefix="bench")
    node = EClass("Node")
    node.eStructuralFeatures += [
        EAttribute("name", EString),
        EAttribute("size", EInt),
        EAttribute("weight", EDouble),
        EAttribute("enabled", EBoolean),
        EReference("next", node),
    ]
    pkg.eClassifiers.append(node)
    metamodel = ecore.to_bytes(pkg)

    def generate(count: int) -> list[Any]:
        out: list[Any] = []
        previous = None
        for i in range(count):
            o = node(name=f"node{i}", size=i, weight=i * 0.5, enabled=i % 2 == 0)
            if previous is not None:
                o.next = previous
            out.append(o)
            previous = o
        return out

    def once(count: int) -> dict[str, Any]:
        roots = generate(count)
        options = xmi.XmiOptions(id_of={o: f"n{i}" for i, o in enumerate(roots)}.get)
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        data = xmi.to_bytes(roots, options)
        w1, c1 = time.perf_counter(), time.process_time()
        rset = ResourceSet()
        ecore.from_bytes(metamodel, "bench.ecore", rset)
        gc.collect()
        w2, c2 = time.perf_counter(), time.process_time()
        doc = xmi.from_bytes(data, rset, options=xmi.XmiOptions())
        w3, c3 = time.perf_counter(), time.process_time()
        assert len(doc.roots) == count and doc.ids[doc.roots[-1]] == f"n{count - 1}"
        return {
            "save_s": w1 - w0,
            "load_s": w3 - w2,
            "save_cpu_s": c1 - c0,
            "load_cpu_s": c3 - c2,
            "sha256": hashlib.sha256(data).hexdigest(),
        }

    once(1000)
    runs = [once(n) for _ in range(repeat)]
    best = {key: min(run[key] for run in runs) for key in runs[0] if key.endswith("_s")}
    return {**best, "sha256": runs[0]["sha256"]}


def _timed(function: Any) -> tuple[Any, float, float]:
    """`function()`, its wall and CPU seconds."""
    w0, c0 = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - w0, time.process_time() - c0


def _compile_worker(n: int, repeat: int, data: str) -> dict[str, Any]:
    from cfmodel.pipeline import compile_project

    def once() -> dict[str, Any]:
        gc.collect()
        result, wall, cpu = _timed(lambda: compile_project(data))
        model, model_wall, model_cpu = _timed(lambda: result.model)
        counts = json.dumps(sorted(result.counts().items()))
        digest = hashlib.sha256(f"{counts} {len(model)}".encode()).hexdigest()
        times = {"compile_s": wall, "compile_cpu_s": cpu, "model_s": model_wall, "model_cpu_s": model_cpu}
        return {**times, "sha256": digest}

    runs = [once() for _ in range(repeat)]
    best = {key: min(run[key] for run in runs) for key in runs[0] if key.endswith("_s")}
    first = {"first_compile_s": runs[0]["compile_s"], "first_compile_cpu_s": runs[0]["compile_cpu_s"]}
    return {**first, **best, "sha256": runs[0]["sha256"]}


def _bindings_worker(n: int, repeat: int, data: str) -> dict[str, Any]:
    from cfmodel.grammars.bindings import parse_str
    from cfmodel.metamodel.bindings import SpanTable
    from cfmodel.transforms.bindings.compose import LayerInput, prepare

    folder = Path(data)
    facts = json.loads((folder / "facts.json").read_text(encoding="utf-8"))
    layers_text = [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("layer*.bind"))]
    site_text = (folder / "site.bind").read_text(encoding="utf-8")

    def parse_all() -> tuple[list[Any], Any, Any]:
        spans = SpanTable()
        layers = []
        for stem, text in layers_text:
            parsed = parse_str(text, f"{stem}.bind")
            spans.update(parsed.spans)
            layers.append(LayerInput(stem, parsed.named_bindings))
        site = parse_str(site_text, "site.bind")
        spans.update(site.spans)
        return layers, spans, site.sites

    parse_str("bindings a { }", "warm-up.bind")  # the grammar, once per process
    gc.collect()
    (layers, spans, sites), parse_wall, parse_cpu = _timed(parse_all)
    gc.collect()
    gc.freeze()  # as benchmarks/bindings.py: the parsed models stay
    prepared, first_wall, first_cpu = _timed(lambda: prepare(layers, spans, sites))  # with flattening
    out: dict[str, Any] = {"parse_s": parse_wall, "parse_cpu_s": parse_cpu}
    out |= {"first_prepare_s": first_wall, "first_prepare_cpu_s": first_cpu}
    rounds = max(repeat, 5)
    prepares = [_timed(lambda: prepare(layers, spans, sites))[1:] for _ in range(rounds)]
    requests = [facts["facts"], facts["other"]] * rounds
    injectors = [_timed(lambda f=f: prepared.injector(f))[1:] for f in requests]
    injector = prepared.injector(facts["facts"])
    names = [f"key{i}" for i in range(facts["keys"])]

    def lookups() -> None:
        for _ in range(200):
            for name in names:
                injector.lookup(name)

    looked = [_timed(lookups)[1:] for _ in range(3)]
    for key, times in (("prepare", prepares), ("injector", injectors), ("lookups_80k", looked)):
        out[f"{key}_s"] = min(t[0] for t in times)
        out[f"{key}_cpu_s"] = min(t[1] for t in times)
    answers = json.dumps([injector.lookup(name) for name in [*names, "numbers"]], default=str)
    return {**out, "sha256": hashlib.sha256(answers.encode()).hexdigest()}


WORKERS = {"xmi": _xmi_worker, "compile": _compile_worker, "bindings": _bindings_worker}
DEFAULT_SIZES = {"xmi": [100_000], "compile": [5_000], "bindings": [10_000]}  # bindings: fixed size


def _worker(tree: str, workload: str, n: int, repeat: int, data: str) -> None:
    sys.path.insert(0, tree)
    print(json.dumps(WORKERS[workload](n, repeat, data)))


def _this_trees_benchmark(name: str) -> Any:
    """This tree's benchmarks/NAME.py as a module (the inputs both sides read come from it)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inputs(workload: str, n: int, folder: Path) -> str:
    """Write the inputs of a workload into `folder` (the same files for both sides)."""
    if workload == "compile":  # benchmarks/compile.py's generated project of N hosts
        return str(_this_trees_benchmark("compile").write_project(folder / f"hosts{n}", n))
    if workload == "bindings":  # benchmarks/bindings.py's 10,000 bindings over 5 layers
        bench = _this_trees_benchmark("bindings")
        for layer in range(bench.LAYERS):
            (folder / f"layer{layer}.bind").write_text(bench.layer_source(layer), encoding="utf-8")
        (folder / "site.bind").write_text(bench.SITE, encoding="utf-8")
        facts = {"facts": bench.FACTS, "other": bench.OTHER_FACTS, "keys": bench.KEYS}
        (folder / "facts.json").write_text(json.dumps(facts), encoding="utf-8")
        return str(folder)
    return "-"


# ---- driver -------------------------------------------------------------------------------


def _measure(tree: Path, workload: str, n: int, repeat: int, data: str) -> dict[str, Any]:
    python = tree / ".venv" / "bin" / "python"
    # -P: the script's own folder is not put first on sys.path (the worker puts `tree` there)
    cmd = [str(python), "-P", __file__, "--worker", str(tree), workload, str(n), str(repeat), data]
    done = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, env={**os.environ}, check=False)
    if done.returncode != 0:
        sys.exit(f"ab: {' '.join(cmd)} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _summary(runs: list[dict[str, Any]], key: str) -> tuple[float, float]:
    values = [r[key] for r in runs]
    return min(values), statistics.median(values)


def main(anchor: Path, other: Path, workload: str, sizes: list[int], rounds: int, repeat: int) -> None:
    sides = {"A": anchor, "B": other}
    print(f"A = {anchor}\nB = {other}")
    print(
        f"{workload}: {rounds} rounds per side, alternating A B, B A, ...;"
        f" a round is a process, best of {repeat}"
    )
    results: list[dict[str, Any]] = []
    for n in sizes:
        runs: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
        with tempfile.TemporaryDirectory(prefix="cfmodel-ab-") as folder:
            data = _inputs(workload, n, Path(folder))
            for r in range(rounds):
                for side in "AB" if r % 2 == 0 else "BA":
                    runs[side].append(_measure(sides[side], workload, n, repeat, data))
        digests = {run["sha256"] for side in runs.values() for run in side}
        keys = [k for k in runs["A"][0] if k.endswith("_s")]
        print(f"\nN = {n}   output {'identical' if len(digests) == 1 else 'DIFFERS'} on both sides")
        print(f"{'':<20} {'A min':>8} {'A med':>8} {'B min':>8} {'B med':>8} {'B/A min':>8} {'B/A med':>8}")
        row: dict[str, Any] = {"n": n, "same_output": len(digests) == 1}
        for key in keys:
            (a_min, a_med), (b_min, b_med) = _summary(runs["A"], key), _summary(runs["B"], key)
            print(
                f"{key:<20} {a_min:>8.4f} {a_med:>8.4f} {b_min:>8.4f} {b_med:>8.4f}"
                f" {b_min / a_min:>8.3f} {b_med / a_med:>8.3f}"
            )
            row[key] = {"A": [r[key] for r in runs["A"]], "B": [r[key] for r in runs["B"]]}
        results.append(row)
    print(
        json.dumps(
            {
                "benchmark": "ab",
                "workload": workload,
                "anchor": str(anchor),
                "other": str(other),
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor", type=Path, required=True, help="tree A (with its own .venv)")
    parser.add_argument("--other", type=Path, default=HERE, help="tree B (default: this tree)")
    parser.add_argument("--rounds", type=int, default=5, help="processes per side")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per process (its best is kept)")
    parser.add_argument("workload", choices=sorted(WORKERS))
    parser.add_argument("sizes", nargs="*", type=int, help=f"N (default: {DEFAULT_SIZES})")
    args = parser.parse_args()
    sizes = args.sizes or DEFAULT_SIZES[args.workload]
    main(args.anchor.resolve(), args.other.resolve(), args.workload, sizes, args.rounds, args.repeat)
