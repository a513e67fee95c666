"""Benchmark: RDF export, load and four typical SPARQL queries, rdflib vs Oxigraph.

Run: ``.venv/bin/python benchmarks/rdf.py [N ...] [--rdflib-max M]`` (default 100000
1000000; rdflib is run up to M instances, default 100000: above that its memory store
takes minutes and gigabytes to load, and the line says so).

The model: N instances of two packages (``compute``: ``Host`` with ``name``, ``cpus``
(ELong), ``up`` (EBoolean), ``zone`` and ``peer`` references; ``net``: ``Zone`` with
``name``), N/100 zones and the rest hosts, each host's peer the host before it, ids like
index keys. Timed, each once (the machine is shared; CPU seconds are printed too):

* export: `rdf.write_ntriples` to a file (the model checked, then its N-Triples, with the
  metamodel, streamed as `cfmodel rdf export -o FILE.nt` writes them) — the goal is 1M
  instances in ≤ 30 s; the same with `rdf.write_turtle` (streamed Turtle, ``-o FILE.ttl``);
* load: the N-Triples into the store (rdflib: ``Graph.parse``; Oxigraph:
  ``Store.bulk_load``, then the triples per predicate counted for `cfmodel.sparqlplan`);
* four queries (goal on Oxigraph: ≤ 1 s each): instances of a class with an attribute
  filter (``cpus >= 60``, and up); the same with an equality (the host of a name); a
  two-hop relation join (hosts whose peer is in a given zone); an aggregate per namespace
  (instances per package). On Oxigraph also the filter query as written
  (``plan=False``: Oxigraph's own plan). Every answer, from each engine, must be the one
  the model's construction gives (`expected`).

Prints the machine's load average (the figures are wall-clock on a shared machine; CPU
seconds beside them), a side-by-side table, then one JSON line with every number.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyecore.ecore import EAttribute, EBoolean, EClass, ELong, EPackage, EReference, EString

from cfmodel.serializers import rdf
from cfmodel.sparql import TripleStore

QUERIES = {
    "filter": (
        "SELECT (COUNT(?h) AS ?n) WHERE { ?h a compute:Host ; compute:cpus ?c ; compute:up true "
        "FILTER(?c >= 60) }"
    ),
    "lookup": (
        "SELECT ?h ?c WHERE { ?h a compute:Host ; compute:name ?n ; compute:cpus ?c "
        "FILTER(?n = 'host77.example.com') }"
    ),
    "join": (
        "SELECT (COUNT(?h) AS ?n) WHERE { ?h compute:peer ?p . ?p compute:zone ?z . ?z net:name 'zone7' }"
    ),
    "aggregate": (
        "SELECT ?ns (COUNT(?s) AS ?n) WHERE { ?s a ?c . ?c rdfs:isDefinedBy ?ns } GROUP BY ?ns ORDER BY ?ns"
    ),
}


def packages() -> tuple[EPackage, EPackage]:
    net = EPackage("net", nsURI="http://cfmodel.example/bench/net", nsPrefix="net")
    zone = EClass("Zone")
    zone.eStructuralFeatures.append(EAttribute("name", EString, lower=1))
    net.eClassifiers.append(zone)
    compute = EPackage("compute", nsURI="http://cfmodel.example/bench/compute", nsPrefix="compute")
    host = EClass("Host")
    host.eStructuralFeatures += [
        EAttribute("name", EString, lower=1),
        EAttribute("cpus", ELong),
        EAttribute("up", EBoolean),
        EReference("zone", zone, lower=1),
        EReference("peer", host),
    ]
    compute.eClassifiers.append(host)
    return net, compute


def build(n: int, net: EPackage, compute: EPackage) -> tuple[list[Any], dict[Any, str]]:
    zone_c, host_c = net.getEClassifier("Zone"), compute.getEClassifier("Host")
    zones = [zone_c(name=f"zone{i}") for i in range(max(n // 100, 1))]
    ids = {z: f"net.Zone[{z.name}]" for z in zones}
    objects: list[Any] = list(zones)
    previous = None
    for i in range(n - len(zones)):
        host = host_c(name=f"host{i}.example.com", cpus=i % 64 + 1, up=i % 3 != 0, zone=zones[i % len(zones)])
        if previous is not None:
            host.peer = previous
        previous = host
        ids[host] = f"compute.Host[{host.name}]"
        objects.append(host)
    return objects, ids


def expected(n: int) -> dict[str, Any]:
    """The queries' answers, counted from how `build` makes the model."""
    zones = max(n // 100, 1)
    hosts = n - zones
    return {
        "filter": [[sum(1 for i in range(hosts) if i % 64 + 1 >= 60 and i % 3 != 0)]],
        "lookup": [
            ["http://cfmodel.example/bench/instances#compute.Host%5Bhost77.example.com%5D", 77 % 64 + 1]
        ]
        if hosts > 77
        else [],
        "join": [[sum(1 for i in range(1, hosts) if (i - 1) % zones == 7)]],
        "aggregate": [
            ["http://cfmodel.example/bench/compute", hosts],
            ["http://cfmodel.example/bench/net", zones],
        ],
    }


def timed(step: Any) -> tuple[Any, float, float]:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    value = step()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def run(n: int, rdflib_max: int) -> dict[str, Any]:
    net, compute = packages()
    objects, ids = build(n, net, compute)
    options = rdf.RdfOptions(
        id_of=ids.get, base="http://cfmodel.example/bench/instances#", packages=(net, compute)
    )
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "model.nt"

        def export() -> int:
            with target.open("wb") as out:
                return rdf.write_ntriples(out, objects, options)

        count, t_nt, c_nt = timed(export)
        data = target.read_bytes()
        turtle = Path(tmp) / "model.ttl"

        def export_turtle() -> int:
            with turtle.open("wb") as out:
                return rdf.write_turtle(out, objects, options)

        ttl_count, t_ttl, c_ttl = timed(export_turtle)
        ttl_bytes = turtle.stat().st_size
        turtle.unlink()
    if ttl_count != count:
        raise SystemExit(f"Turtle has {ttl_count} triples, N-Triples {count}")
    prefixes = rdf.prefixes_of([net, compute], [("inst", options.base)])
    row: dict[str, Any] = {
        "instances": n,
        "triples": count,
        "export_nt": t_nt,
        "export_nt_cpu": c_nt,
        "nt_bytes": len(data),
        "export_ttl": t_ttl,
        "export_ttl_cpu": c_ttl,
        "ttl_bytes": ttl_bytes,
    }
    objects.clear()
    ids.clear()
    answers: dict[str, dict[str, Any]] = {}
    for engine in ("oxigraph", "rdflib"):
        if engine == "rdflib" and n > rdflib_max:
            row["rdflib"] = None
            continue
        store, t_load, c_load = timed(lambda e=engine: _load(e, data, prefixes))
        result: dict[str, Any] = {"load": t_load, "load_cpu": c_load}
        for name, query in QUERIES.items():
            answer, t_query, c_query = timed(lambda q=query, s=store: s.query(q).values())
            result[name] = t_query
            result[f"{name}_cpu"] = c_query
            answers.setdefault(name, {})[engine] = answer
        if engine == "oxigraph":  # the filter query as Oxigraph plans it alone, for comparison
            written, t_query, c_query = timed(lambda s=store: s.query(QUERIES["filter"], plan=False).values())
            result["filter_written"], result["filter_written_cpu"] = t_query, c_query
            answers.setdefault("filter as written", {})[engine] = written
        row[engine] = result
        del store
    truth = expected(n)
    truth["filter as written"] = truth["filter"]
    for name, by_engine in answers.items():
        for engine, answer in by_engine.items():
            if json.loads(json.dumps(answer)) != truth[name]:
                raise SystemExit(f"{engine} answers {name} with {answer}, the model says {truth[name]}")
    row["answers"] = {name: next(iter(by_engine.values())) for name, by_engine in answers.items()}
    return row


def _load(engine: str, data: bytes, prefixes: dict[str, str]) -> TripleStore:
    """A store loaded from N-Triples bytes, as a user loading an exported file would."""
    return TripleStore.from_ntriples(data, prefixes, engine)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000, 1_000_000])
    parser.add_argument("--rdflib-max", type=int, default=100_000, help="largest size rdflib is run at")
    args = parser.parse_args()
    load = os.getloadavg()
    rows = [run(n, args.rdflib_max) for n in args.sizes]
    after = os.getloadavg()
    print(f"load average (1 min) {load[0]:.2f} before, {after[0]:.2f} after, on {os.cpu_count()} cores")
    print("each cell: wall seconds (CPU seconds)")
    print(
        f"{'instances':>10} {'triples':>10}  {'engine':<9} {'export nt':>15} {'export ttl':>15} {'load':>15}"
        + "".join(f" {name:>15}" for name in QUERIES)
        + f" {'filter written':>15}"
    )
    for row in rows:
        nt, ttl = (
            _cell(row["export_nt"], row["export_nt_cpu"]),
            _cell(row["export_ttl"], row["export_ttl_cpu"]),
        )
        export = f"{nt:>15} {ttl:>15}"
        for engine in ("rdflib", "oxigraph"):
            r = row[engine]
            head = f"{row['instances']:>10,} {row['triples']:>10,}  {engine:<9} {export}"
            if r is None:
                print(f"{head}  (not run above --rdflib-max)")
                continue
            keys = ("load", *QUERIES, "filter_written")
            cells = [_cell(r[k], r[f"{k}_cpu"]) if k in r else "" for k in keys]
            print(head + "".join(f" {c:>15}" for c in cells))
    print(json.dumps({"load_average": [load[0], after[0]], "rows": rows}, default=str))


def _cell(wall: float, cpu: float) -> str:
    return f"{wall:.3f} ({cpu:.3f})" if wall < 10 else f"{wall:.1f} ({cpu:.1f})"


if __name__ == "__main__":
    main()
