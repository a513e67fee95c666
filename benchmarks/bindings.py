"""Benchmark the bindings injector: compose 10,000 bindings over 5 layers and 6 categories.

Prints: parse time (not part of the targets), ms to create the injector (target <= 100 ms)
and µs per injection (target <= 5 µs). Run: ``.venv/bin/python benchmarks/bindings.py``.
"""

from __future__ import annotations

import statistics
import time

from cfmodel.grammars.bindings import parse_str
from cfmodel.metamodel.bindings import SpanTable
from cfmodel.transforms.compose import LayerInput, compose

LAYERS = 5
PER_LAYER = 2_000
KEYS = 400
FRAGMENTS = 50
SITE = """site { categories {
  node => $::fqdn, datacenter => $::dc, rack => $::rack, environment => true,
  virtual => $::is_virtual, os => $::os
} }"""
FACTS = {"fqdn": "kermit", "dc": "ams", "rack": "r7", "is_virtual": True, "os": "linux"}
FACTS["environment"] = "production"
#: One slot per category combination, so that no two bindings of a layer conflict.
SLOTS = ["", "node 'kermit'", "datacenter 'ams' and rack 'r7'", "virtual true", "os 'linux' or node 'piggy'"]


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


def main() -> None:
    start = time.perf_counter()
    spans = SpanTable()
    layers = []
    for layer in range(LAYERS):
        parsed = parse_str(layer_source(layer), f"layer{layer}.bind")
        spans.update(parsed.spans)
        layers.append(LayerInput(f"layer{layer}", parsed.named_bindings))
    site = parse_str(SITE, "site.bind")
    spans.update(site.spans)
    parse_ms = (time.perf_counter() - start) * 1000
    count = sum(_count(n.elements) for layer in layers for n in layer.bindings)

    timings = []
    for _ in range(5):
        start = time.perf_counter()
        injector = compose(layers, FACTS, spans, site.sites)
        timings.append((time.perf_counter() - start) * 1000)

    names = [f"key{i}" for i in range(KEYS)]
    rounds = 200
    start = time.perf_counter()
    for _ in range(rounds):
        for name in names:
            injector.lookup(name)
    lookup_us = (time.perf_counter() - start) / (rounds * len(names)) * 1e6
    start = time.perf_counter()
    for _ in range(rounds // 10):
        for name in names:
            injector.lookup("Data", name)
    typed_us = (time.perf_counter() - start) / (rounds // 10 * len(names)) * 1e6

    print(f"bindings: {count} over {LAYERS} layers and 6 categories (+ common)")
    print(f"parse (not a target): {parse_ms:.0f} ms")
    median, best = statistics.median(timings), min(timings)
    print(f"create injector: {median:.1f} ms median, {best:.1f} ms best (target <= 100 ms)")
    print(f"injection lookup(name): {lookup_us:.2f} µs (target <= 5 µs)")
    print(f"injection lookup('Data', name): {typed_us:.2f} µs")
    print(f"check: key0 = {injector.lookup('key0')!r}, numbers = {len(injector.lookup('numbers'))} items")


def _count(elements: object) -> int:
    total = 0
    for element in elements:  # type: ignore[attr-defined]
        if element.eClass.name == "CategorizedBindings":
            total += _count(element.elements)
        else:
            total += 1
    return total


if __name__ == "__main__":
    main()
