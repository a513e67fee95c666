"""Benchmark the bindings injector: compose 10,000 bindings over 5 layers and 6 categories.

Prints, each the best (and median) CPU time of several runs:

* parse: the 5 generated files (10,000 bindings), not a target; the grammar load is apart.
  The parser builds plain objects and evaluates nothing; each ``NamedBindings``'s flat form
  (``compose.entries.flatten``, also timed on its own) is made by the first ``prepare``
  that collects it, and kept;
* prepare: the facts-independent part of a composition (``prepare``), once per set of files:
  it ranks the flat forms' contexts for the site and makes the entries (no model walk);
* create injector: ``PreparedBindings.injector(facts)``, per request (target <= 100 ms),
  alternating two requests with different facts; and a cold ``compose()`` (prepare + injector);
* injection: ``lookup(name)`` and ``lookup(type, name)`` (target <= 5 µs);
* ``puppet lookup`` per key on the same data as a Hiera 5 hierarchy (a process per key, as
  users run it), and cfmodel's ``hiera:`` provider on that hierarchy, for comparison.

Method: the parsed models are kept, then ``gc.collect()`` and ``gc.freeze()`` run once
outside the timings (a long-running server does the same after loading its configuration;
without it the first collection after a big parse costs seconds, charged to whatever runs
next). Timings are CPU time (``time.process_time``; ``puppet lookup``: wall time of its
process); they still move by tens of percent when other work shares the machine.

Run: ``.venv/bin/python benchmarks/bindings.py`` (``--quick``: fewer rounds; ``--no-puppet``).
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cfmodel.grammars.bindings import parse_str
from cfmodel.metamodel.bindings import ModelObject, SpanTable
from cfmodel.transforms.bindings.compose import LayerInput, compose, prepare
from cfmodel.transforms.bindings.compose.entries import flatten
from cfmodel.transforms.bindings.providers.hiera import Hierarchy

LAYERS = 5
PER_LAYER = 2_000
KEYS = 400
FRAGMENTS = 50
SITE = """site { categories {
  node => $::fqdn, datacenter => $::dc, rack => $::rack, environment => true,
  virtual => $::is_virtual, os => $::os
} }"""
FACTS: dict[str, Any] = {"fqdn": "kermit", "dc": "ams", "rack": "r7", "is_virtual": True, "os": "linux"}
FACTS["environment"] = "production"
OTHER_FACTS: dict[str, Any] = {**FACTS, "fqdn": "piggy", "rack": "r8", "is_virtual": False}
#: One slot per category combination, so that no two bindings of a layer conflict.
SLOTS = ["", "node 'kermit'", "datacenter 'ams' and rack 'r7'", "virtual true", "os 'linux' or node 'piggy'"]
#: The same slots as Hiera hierarchy paths (``or`` becomes two levels).
HIERA_SLOTS = [
    ["common.json"],
    ["node/%{facts.fqdn}.json"],
    ["rack/%{facts.dc}-%{facts.rack}.json"],
    ["virtual/%{facts.environment}-%{facts.is_virtual}.json"],
    ["os/%{facts.os}.json", "node/%{facts.fqdn}.json"],
]
#: The slots in the order of their categories' precedence (node, datacenter, virtual, os, common).
HIERA_ORDER = [1, 2, 3, 4, 0]
HIERA_FILES = [["common.json"], ["node/kermit.json"], ["rack/ams-r7.json"], ["virtual/production-true.json"],
               ["os/linux.json", "node/piggy.json"]]  # fmt: skip


def layer_source(layer: int) -> str:
    """2,000 bindings: 400 keys in 5 category slots (common, plain, and, nested, or)."""
    lines = [f"bindings layer{layer} {{"]
    if layer == LAYERS - 1:
        lines.append("  multibind Array[Integer], 'numbers' AS 'numbers'")
    for i in range(PER_LAYER - FRAGMENTS):
        key, slot = (i + layer * 7) % KEYS, SLOTS[i // KEYS]
        bind = f'bind "key{key}" to {i}' if i % 2 else f'bind "key{key}" to "v{i}-$::fqdn"'
        if not slot:
            lines.append(f"  {bind}")
        elif slot == "virtual true":
            lines.append(f"  when environment 'production' {{ when {slot} {{ {bind} }} }}")
        else:
            lines.append(f"  when {slot} {{ {bind} }}")
    lines.extend(f"  bind to {i} in 'numbers'" for i in range(FRAGMENTS))
    lines.append("}")
    return "\n".join(lines)


def timed(function: Callable[[], Any], rounds: int) -> tuple[float, float, Any]:
    """Best and median CPU seconds of ``rounds`` calls, and the last result.

    CPU time of this process, not wall time: on a machine shared with other work the wall
    time also counts the time the process waited for a core.
    """
    times = []
    result = None
    for _ in range(rounds):
        start = time.process_time()
        result = function()
        times.append(time.process_time() - start)
    return min(times), statistics.median(times), result


def parse_all() -> tuple[list[LayerInput], SpanTable, list[ModelObject]]:
    spans = SpanTable()
    layers = []
    for layer in range(LAYERS):
        parsed = parse_str(layer_source(layer), f"layer{layer}.bind")
        spans.update(parsed.spans)
        layers.append(LayerInput(f"layer{layer}", parsed.named_bindings))
    site = parse_str(SITE, "site.bind")
    spans.update(site.spans)
    return layers, spans, site.sites


def write_hiera(root: Path) -> list[str]:
    """The benchmark's data as a Hiera 5 hierarchy: per layer, its slots (highest first)."""
    hierarchy = []
    for layer in range(LAYERS):
        for slot in HIERA_ORDER:
            for level in HIERA_SLOTS[slot]:
                hierarchy.append(
                    {"name": f"layer{layer} slot{slot} {level}", "path": f"layer{layer}/{level}"}
                )
    config = {"version": 5, "defaults": {"datadir": "data", "data_hash": "json_data"}, "hierarchy": hierarchy}
    (root / "hiera.yaml").write_text(json.dumps(config, indent=1), encoding="utf-8")
    for layer in range(LAYERS):
        files: dict[str, dict[str, Any]] = {}
        for i in range(PER_LAYER - FRAGMENTS):
            key, slot = (i + layer * 7) % KEYS, i // KEYS
            for name in HIERA_FILES[slot]:
                files.setdefault(name, {})[f"key{key}"] = i if i % 2 else f"v{i}-%{{facts.fqdn}}"
        for name, data in files.items():
            path = root / "data" / f"layer{layer}" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data), encoding="utf-8")
    facts = {**FACTS, "hostname": "kermit", "domain": "example.com", "clientcert": "kermit"}
    (root / "facts.json").write_text(json.dumps(facts), encoding="utf-8")
    return [f"key{k}" for k in (0, 1, 2, 199, 399)]


def puppet_per_key(root: Path, keys: list[str], rounds: int) -> tuple[float, float, str] | None:
    if shutil.which("puppet") is None:
        return None
    dirs = [f"--{name}dir={root / 'puppet' / name}" for name in ("conf", "var", "code", "log", "run")]
    base = ["puppet", "lookup", *dirs, "--hiera_config", str(root / "hiera.yaml")]
    base += ["--facts", str(root / "facts.json"), "--render-as", "json"]
    times = []
    answer = ""
    for _ in range(rounds):
        for key in keys:
            start = time.perf_counter()
            done = subprocess.run([*base, key], capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - start)
            answer = done.stdout.strip() if key == keys[0] else answer
    return min(times), statistics.median(times), answer


def main(argv: list[str] | None = None) -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--quick", action="store_true", help="fewer rounds")
    args.add_argument("--no-puppet", action="store_true", help="do not time puppet lookup")
    options = args.parse_args(argv)
    rounds = 3 if options.quick else 10

    start = time.perf_counter()
    parse_str("bindings a { }", "warm-up.bind")
    grammar_ms = (time.perf_counter() - start) * 1000
    parse_best, parse_median, (layers, spans, sites) = timed(parse_all, 1 if options.quick else 3)
    gc.collect()
    gc.freeze()
    count = sum(_count(n.elements) for layer in layers for n in layer.bindings)

    named = [n for layer in layers for n in layer.bindings]
    flat_best, flat_median, _ = timed(lambda: [flatten(n, spans) for n in named], rounds)
    prep_best, prep_median, prepared = timed(lambda: prepare(layers, spans, sites), rounds)
    requests = iter([FACTS, OTHER_FACTS] * rounds)
    inj_best, inj_median, _ = timed(lambda: prepared.injector(next(requests)), 2 * rounds)
    cold_best, cold_median, _ = timed(lambda: compose(layers, FACTS, spans, sites), max(3, rounds // 2))
    injector = prepared.injector(FACTS)

    names = [f"key{i}" for i in range(KEYS)]
    lookups = 200

    def lookup_all() -> None:
        for _ in range(lookups):
            for name in names:
                injector.lookup(name)

    def lookup_typed() -> None:
        for _ in range(lookups // 10):
            for name in names:
                injector.lookup("Data", name)

    lookup_us = timed(lookup_all, 3)[0] / (lookups * len(names)) * 1e6
    typed_us = timed(lookup_typed, 3)[0] / (lookups // 10 * len(names)) * 1e6

    print(f"bindings: {count} over {LAYERS} layers and 6 categories (+ common)")
    print(f"grammar load (once per process): {grammar_ms:.0f} ms")
    print(f"parse (not a target): {parse_best * 1000:.0f} ms best, {parse_median * 1000:.0f} ms median")
    print(
        f"flattening (every file's flat form, made by the first prepare): {flat_best * 1000:.1f} ms best, "
        f"{flat_median * 1000:.1f} ms median"
    )
    print(
        f"prepare (once per set of files): {prep_best * 1000:.1f} ms best, {prep_median * 1000:.1f} ms median"
    )
    print(
        f"create injector (per request): {inj_best * 1000:.1f} ms best, {inj_median * 1000:.1f} ms median"
        " (target <= 100 ms)"
    )
    cold = f"{cold_best * 1000:.1f} ms best, {cold_median * 1000:.1f} ms median"
    print(f"cold compose (prepare + injector): {cold}")
    print(f"injection lookup(name): {lookup_us:.2f} µs (target <= 5 µs)")
    print(f"injection lookup('Data', name): {typed_us:.2f} µs")
    print(f"check: key0 = {injector.lookup('key0')!r}, numbers = {len(injector.lookup('numbers'))} items")
    hiera(options, rounds, injector)


def hiera(options: argparse.Namespace, rounds: int, injector: Any) -> None:
    with tempfile.TemporaryDirectory(prefix="cfmodel-bench-hiera-") as folder:
        root = Path(folder)
        keys = write_hiera(root)
        facts = json.loads((root / "facts.json").read_text(encoding="utf-8"))

        def all_keys() -> dict[str, Any]:
            hierarchy = Hierarchy.read(root / "hiera.yaml", facts)
            return {k: hierarchy.lookup(k) for k in hierarchy.all_keys()}

        best, _, found = timed(all_keys, max(3, rounds // 2))
        print(f"hiera data: {len(found)} keys in {sum(1 for _ in (root / 'data').rglob('*.json'))} files, "
              f"{LAYERS * 6} levels")  # fmt: skip
        per_key = best / len(found) * 1e6
        print(f"cfmodel hiera: all keys read and merged in {best * 1000:.1f} ms ({per_key:.0f} µs per key)")
        same = all(found[k].value == injector.lookup(k) for k in found)
        print(f"  key0 = {json.dumps(found['key0'].value)}; every key as the injector answers: {same}")
        if options.no_puppet:
            return
        timing = puppet_per_key(root, keys, 1 if options.quick else 2)
        if timing is None:
            print("puppet lookup: puppet is not installed")
            return
        p_best, p_median, answer = timing
        print(f"puppet lookup: {p_best * 1000:.0f} ms best, {p_median * 1000:.0f} ms median per key "
              f"(one process per key, as users run it); key0 = {answer}")  # fmt: skip


def _count(elements: Any) -> int:
    total = 0
    for element in elements:
        if element.eClass.name == "CategorizedBindings":
            total += _count(element.elements)
        else:
            total += 1
    return total


if __name__ == "__main__":
    main()
    sys.exit(0)
