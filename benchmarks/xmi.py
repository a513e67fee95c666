"""Benchmark: XMI save+load of N instances, cfmodel (Python) vs Eclipse EMF (Java); and
cfmodel's JSON (emfjson-jackson's format) against cfmodel's XMI, side by side.

Run: ``.venv/bin/python benchmarks/xmi.py [N ...] [--rounds R]`` (default 10000 100000,
R=5). Both sides build the same model: N root objects of class ``Node`` (name, size,
weight, enabled, and a ``next`` reference to the previous node), each with an ``xmi:id``.

cfmodel is timed in-process, best of R rounds: save is `xmi.to_bytes` (validate + write
bytes, no file), load is `xmi.from_bytes` (parse + build objects + link references; the
document is in cfmodel's flat layout, so its fast lane reads it; the load through expat,
``XmiOptions(scan=False)``, is printed below it),
each with the garbage collector as `cfmodel.serializers` leaves it (paused inside a call;
a read moves what it built to the oldest generation, `cfmodel.collector.promote_young`, so no young
collection scans it; a full collection before each timed step is outside the timing). EMF is timed inside
the JVM by ``tests/emf/EmfChecker.java --bench`` after warm-up, best of R: save is
``XMIResource.save`` to a byte stream, load is ``load`` from it with deferred IDREF
resolution. Both files are byte-for-byte the same model (cfmodel's is checked to load).

JSON: `json.to_bytes` and `json.from_bytes` of the same model with the same ids, timed in
the same rounds as XMI (best of R); the ratio JSON save / XMI save (target: within 1.5x),
and the indented JSON ``cfmodel json export`` writes (``indent=1``).

Prints a side-by-side table (wall seconds; cfmodel's CPU seconds too, since the machine may
be shared), the ratio of the save+load times (target: cfmodel within 2x of EMF), and
memory per instance: Python bytes held by the objects (tracemalloc) built by user code and
as loaded by cfmodel; Java heap growth per instance. Then one JSON line with every number.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyecore.ecore import EAttribute, EBoolean, EClass, EDouble, EInt, EPackage, EReference, EString
from pyecore.resources import ResourceSet

from cfmodel.serializers import ecore, xmi
from cfmodel.serializers import json as json_models
from tests.emf.emf import EmfUnavailableError, build_checker


def bench_package() -> tuple[EPackage, Any]:
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
    return pkg, node


def generate(node: Any, n: int) -> list[Any]:
    out: list[Any] = []
    previous = None
    for i in range(n):
        o = node(name=f"node{i}", size=i, weight=i * 0.5, enabled=i % 2 == 0)
        if previous is not None:
            o.next = previous
        out.append(o)
        previous = o
    return out


def _ids(roots: list[Any]) -> dict[Any, str]:
    return {o: f"n{i}" for i, o in enumerate(roots)}


def _metamodel(pkg: EPackage) -> ResourceSet:
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "bench.ecore", rset)
    return rset


def time_cfmodel(pkg: EPackage, node: Any, n: int, rounds: int) -> dict[str, float]:
    best: dict[str, float] = {}

    def keep(key: str, value: float) -> None:
        best[key] = min(best.get(key, float("inf")), value)

    size = json_size = 0
    for _ in range(rounds):
        roots = generate(node, n)
        options = xmi.XmiOptions(id_of=_ids(roots).get)
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        data = xmi.to_bytes(roots, options)
        w1, c1 = time.perf_counter(), time.process_time()
        rset = _metamodel(pkg)
        gc.collect()
        w2, c2 = time.perf_counter(), time.process_time()
        doc = xmi.from_bytes(data, rset, options=xmi.XmiOptions())
        w3, c3 = time.perf_counter(), time.process_time()
        assert len(doc.roots) == n and doc.ids[doc.roots[-1]] == f"n{n - 1}"
        del doc
        rset = _metamodel(pkg)
        gc.collect()
        w4 = time.perf_counter()
        doc = xmi.from_bytes(data, rset, options=xmi.XmiOptions(scan=False))
        keep("load_streaming_s", time.perf_counter() - w4)
        assert len(doc.roots) == n
        del doc
        json_options = json_models.JsonOptions(id_of=options.id_of)
        gc.collect()
        w5, c5 = time.perf_counter(), time.process_time()
        json_data = json_models.to_bytes(roots, json_options)
        w6, c6 = time.perf_counter(), time.process_time()
        keep("json_save_s", w6 - w5)
        keep("json_save_cpu_s", c6 - c5)
        gc.collect()
        w7 = time.perf_counter()
        json_models.to_bytes(roots, json_models.JsonOptions(id_of=options.id_of, indent=1))
        keep("json_indented_save_s", time.perf_counter() - w7)
        rset = _metamodel(pkg)
        gc.collect()
        w8, c8 = time.perf_counter(), time.process_time()
        doc = json_models.from_bytes(json_data, rset)
        w9, c9 = time.perf_counter(), time.process_time()
        assert len(doc.roots) == n and doc.ids[doc.roots[-1]] == f"n{n - 1}"
        keep("json_load_s", w9 - w8)
        keep("json_load_cpu_s", c9 - c8)
        keep("save_s", w1 - w0)
        keep("load_s", w3 - w2)
        keep("save_cpu_s", c1 - c0)
        keep("load_cpu_s", c3 - c2)
        size = len(data)
        json_size = len(json_data)
        del roots, doc, rset, data, json_data
    gc.collect()
    return {**best, "bytes": size, "json_bytes": json_size}


def memory_per_instance(pkg: EPackage, node: Any, n: int) -> dict[str, float]:
    """Bytes per object: built by user code (PyEcore's setters), and loaded by cfmodel."""
    gc.collect()
    tracemalloc.start()
    roots = generate(node, n)
    built, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=_ids(roots).get))
    del roots
    rset = _metamodel(pkg)
    gc.collect()
    tracemalloc.start()
    doc = xmi.from_bytes(data, rset)
    gc.collect()
    loaded, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(doc.roots) == n
    return {"built_bytes_per_instance": built / n, "loaded_bytes_per_instance": loaded / n}


def main(sizes: list[int], rounds: int) -> None:
    pkg, node = bench_package()
    try:
        checker = build_checker()
    except EmfUnavailableError as exc:
        checker = None
        print(f"EMF unavailable ({exc}); timing cfmodel only", file=sys.stderr)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        mm = Path(tmp) / "bench.ecore"
        ecore.write(mm, pkg)
        print(
            f"{'N':>8} {'side':<8} {'save s':>8} {'load s':>8} {'total s':>8} {'cpu s':>7} {'MB':>6}"
            f" {'B/inst':>13}"
        )
        for n in sizes:
            py = time_cfmodel(pkg, node, n, rounds)
            mem = memory_per_instance(pkg, node, n)
            row: dict[str, Any] = {"n": n, "rounds": rounds, "cfmodel": {**py, **mem}}
            cpu = py["save_cpu_s"] + py["load_cpu_s"]
            memory = f"{mem['built_bytes_per_instance']:.0f}/{mem['loaded_bytes_per_instance']:.0f}"
            _row(n, "cfmodel", py["save_s"], py["load_s"], f"{cpu:7.3f}", py["bytes"], memory)
            print(
                f"{'':>8} {'':<8} {'':>8} {py['load_streaming_s']:>8.3f}  load without the fast lane"
                " (what a document outside cfmodel's layout takes)"
            )
            json_cpu = f"{py['json_save_cpu_s'] + py['json_load_cpu_s']:7.3f}"
            _row(n, "JSON", py["json_save_s"], py["json_load_s"], json_cpu, py["json_bytes"], "")
            json_ratio = py["json_save_s"] / py["save_s"]
            json_cpu_ratio = py["json_save_cpu_s"] / py["save_cpu_s"]
            print(
                f"{'':>8} ratio cfmodel JSON/XMI save = {json_ratio:.2f}x wall, {json_cpu_ratio:.2f}x CPU"
                f" (target <= 1.5x); indented (json export) {py['json_indented_save_s']:.3f} s"
            )
            row |= {"json_ratio": json_ratio, "json_cpu_ratio": json_cpu_ratio}
            if checker is not None:
                emf = checker.bench(mm, n, rounds=rounds)
                _row(
                    n,
                    "EMF",
                    emf["save_s"],
                    emf["load_s"],
                    f"{'':>7}",
                    emf["bytes"],
                    f"{emf['heap_bytes_per_instance']:.0f}",
                )
                ratio = (py["save_s"] + py["load_s"]) / (emf["save_s"] + emf["load_s"])
                print(f"{'':>8} ratio cfmodel/EMF save+load = {ratio:.2f}x (target <= 2x)")
                row |= {"emf": emf, "ratio": ratio}
            results.append(row)
    print("memory: B/inst for cfmodel = built by PyEcore's setters / as loaded by cfmodel")
    print(json.dumps({"benchmark": "xmi", "results": results}))


def _row(n: int, side: str, save: float, load: float, cpu: str, size: int, mem: str) -> None:
    total = save + load
    print(f"{n:>8} {side:<8} {save:>8.3f} {load:>8.3f} {total:>8.3f} {cpu} {size / 1e6:>6.1f} {mem:>13}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per side (best is kept)")
    args = parser.parse_args()
    main(args.sizes, args.rounds)
