"""Benchmark: XMI save+load of N instances, cfmodel (Python) vs Eclipse EMF (Java).

Run: ``.venv/bin/python benchmarks/xmi.py [N ...]`` (default 10000 100000). Both sides
build the same model: N root objects of class ``Node`` (name, size, weight, enabled,
and a ``next`` reference to the previous node), each with an ``xmi:id``. cfmodel is timed
in-process (best of 3 rounds: validate + write bytes, then parse + build objects); EMF
is timed inside the JVM by ``tests/emf/EmfChecker.java --bench`` after warm-up (best
of 5). Prints a side-by-side table with the ratio (target: cfmodel within 2x of EMF)
and memory per instance (Python: tracemalloc of the built model; Java: heap delta).
"""

from __future__ import annotations

import gc
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
from tests.emf.emf import EmfUnavailableError, build_checker


def bench_package() -> tuple[EPackage, Any]:
    pkg = EPackage("bench", nsURI="http://cfmodel.example/bench", nsPrefix="bench")
    node = EClass("Node")
    node.eStructuralFeatures += [
        EAttribute("name", EString), EAttribute("size", EInt), EAttribute("weight", EDouble),
        EAttribute("enabled", EBoolean), EReference("next", node),
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


def time_cfmodel(pkg: EPackage, node: Any, n: int, rounds: int = 3) -> dict[str, float]:
    best_save = best_load = float("inf")
    size = 0
    for _ in range(rounds):
        roots = generate(node, n)
        ids = _ids(roots)
        t0 = time.perf_counter()
        data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
        t1 = time.perf_counter()
        rset = ResourceSet()
        ecore.from_bytes(ecore.to_bytes(pkg), "bench.ecore", rset)
        t2 = time.perf_counter()
        doc = xmi.from_bytes(data, rset, options=xmi.XmiOptions())
        t3 = time.perf_counter()
        assert len(doc.roots) == n
        best_save, best_load, size = min(best_save, t1 - t0), min(best_load, t3 - t2), len(data)
        del roots, doc, rset
        gc.collect()
    return {"save_s": best_save, "load_s": best_load, "bytes": size}


def memory_per_instance(node: Any, n: int) -> float:
    gc.collect()
    tracemalloc.start()
    roots = generate(node, n)
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(roots) == n
    return current / n


def main(sizes: list[int]) -> None:
    pkg, node = bench_package()
    try:
        checker = build_checker()
    except EmfUnavailableError as exc:
        checker = None
        print(f"EMF unavailable ({exc}); timing cfmodel only", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        mm = Path(tmp) / "bench.ecore"
        ecore.write(mm, pkg)
        header = f"{'N':>8} {'side':<8} {'save s':>8} {'load s':>8} {'total s':>8} {'MB':>6} {'B/inst':>7}"
        print(header)
        for n in sizes:
            py = time_cfmodel(pkg, node, n)
            py_mem = memory_per_instance(node, n)
            _row(n, "cfmodel", py["save_s"], py["load_s"], py["bytes"], py_mem)
            if checker is None:
                continue
            emf = checker.bench(mm, n)
            _row(n, "EMF", emf["save_s"], emf["load_s"], emf["bytes"], emf["heap_bytes_per_instance"])
            ratio = (py["save_s"] + py["load_s"]) / (emf["save_s"] + emf["load_s"])
            print(f"{'':>8} ratio cfmodel/EMF save+load = {ratio:.1f}x (target <= 2x)")


def _row(n: int, side: str, save: float, load: float, size: int, mem: float) -> None:
    total = save + load
    print(f"{n:>8} {side:<8} {save:>8.3f} {load:>8.3f} {total:>8.3f} {size / 1e6:>6.1f} {mem:>7.0f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
