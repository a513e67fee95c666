"""Parse speed: cfmodel (cold and through its parse cache) against inmanta-core's parser.

Inputs: a generated, realistic `.cf` file (`benchmarks/generate.py`, seeded) and, when it
can be had, the real corpus of 25 `.cf` files from 11 published Inmanta modules.

cfmodel runs in this process: "cold" is `cfmodel.grammars.cf.parse_str`; "warm" is
`cfmodel.project.parse_text` through a `ParseCache` on a temporary directory whose
entries were written by the warm-up pass, so every timed call is a hit (hash + unpickle).
inmanta-core runs in a throw-away venv (created on demand) in a subprocess that gets the
file paths and prints JSON timings; its own parse cache is not attached to a project
there, so every call parses.

Timing: one warm-up pass per parser, then N rounds; a round runs one timed pass of each
parser in turn (cfmodel cold, cfmodel warm, inmanta-core), so that other work on the
machine weighs on all of them alike. A pass parses every file of the input once;
`gc.collect()` runs before each pass, outside the timing. Each pass records wall time
(`perf_counter`) and the process's CPU time (`process_time`, which leaves out the time
other processes had the CPU); best and median are reported for both. GC is left as each
tool has it in practice: cfmodel pauses the cyclic collector itself while it parses and
while it unpickles a cache entry; inmanta-core's parser leaves it enabled.

`--verify` first checks, for every input file, that cfmodel's compiled parser builds the
same objects (values and positions) as textX's own parser from the same grammar.

Usage: .venv/bin/python benchmarks/parse.py [--lines N] [--quick] [--repeat N] [--verify]
Output: a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import generate  # a sibling script, not a package

from cfmodel.cache import ParseCache
from cfmodel.errors import CfSyntaxError
from cfmodel.grammars.cf import parse_str
from cfmodel.project import parse_text

INMANTA_CORE = "inmanta-core==14.0.0"
CACHE_ROOT = Path.home() / ".cache" / "cfmodel"
DEFAULT_VENV = CACHE_ROOT / "bench-venv-inmanta"
DEFAULT_CORPUS = CACHE_ROOT / "corpus"
CORPUS_WHEELS = [
    ("inmanta-module-std", "8.5.0"),
    ("inmanta-module-net", "1.1.3"),
    ("inmanta-module-ip", "2.0.3"),
    ("inmanta-module-fs", "1.2.0"),
    ("inmanta-module-exec", "2.1.1"),
    ("inmanta-module-openstack", "6.1.2"),
    ("inmanta-module-aws", "4.0.6"),
    ("inmanta-module-apache", "0.5.8"),
    ("inmanta-module-mysql", "0.6.15"),
    ("inmanta-module-mitogen", "0.2.5"),
    ("inmanta-module-podman", "1.13.4"),
]

# Runs inside the inmanta venv: argv = [path...]; reads one command per line on stdin:
# "pass" runs one pass (the first one untimed, a warm-up) and prints its timings as JSON;
# "quit" prints the run's metadata as JSON and exits.
INMANTA_RUNNER = r"""
import gc, json, platform, sys, time
t0 = time.perf_counter()
import inmanta.compiler  # first, or the parser's imports run in a circle
from inmanta.ast import Namespace
from inmanta.parser.plyInmantaParser import parse
import importlib.metadata
import_seconds = time.perf_counter() - t0
paths = sys.argv[1:]
texts = [open(p, encoding="utf-8").read() for p in paths]
errors = {}

def one_pass():
    for path, text in zip(paths, texts):
        if path in errors:
            continue
        root = Namespace("__root__")
        try:
            parse(Namespace("x", root), path, text)
        except Exception as error:
            errors[path] = f"{type(error).__name__}: {error}"

one_pass()  # warm-up
for command in sys.stdin:
    if command.strip() != "pass":
        break
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    one_pass()
    print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}), flush=True)
print(json.dumps({
    "version": importlib.metadata.version("inmanta-core"),
    "python": platform.python_version(),
    "import_seconds": import_seconds,
    "gc_enabled": gc.isenabled(),
    "errors": errors,
}), flush=True)
"""


@dataclass
class Result:
    """Timings of one parser over one input (a list of files)."""

    parser: str
    times: list[float] = field(default_factory=list)  # wall seconds per pass
    cpu_times: list[float] = field(default_factory=list)  # CPU seconds of this process per pass
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu_times)

    def add(self, wall: float, cpu: float) -> None:
        self.times.append(wall)
        self.cpu_times.append(cpu)


# ---------------------------------------------------------------- inmanta venv


def ensure_inmanta_python(venv: Path) -> Path:
    """Return the interpreter of a venv with inmanta-core installed, creating it if needed."""
    python = venv / "bin" / "python"
    stamp = venv / ".cfmodel-bench-ok"
    if python.exists() and stamp.exists() and stamp.read_text() == INMANTA_CORE:
        return python
    print(f"creating {venv} with {INMANTA_CORE} (one time, takes a minute) ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            INMANTA_CORE,
            "importlib_metadata",
        ],
        check=True,
    )
    subprocess.run([str(python), "-c", "import inmanta.compiler"], check=True)
    stamp.write_text(INMANTA_CORE)
    return python


class InmantaSession:
    """inmanta-core's parser in its own venv, running one timed pass per request."""

    def __init__(self, python: Path, paths: list[Path]) -> None:
        self.proc = subprocess.Popen(
            [str(python), "-c", INMANTA_RUNNER, *map(str, paths)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.result = Result("inmanta-core")

    def _reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            stderr = self.proc.stderr.read() if self.proc.stderr else ""
            raise SystemExit(f"the inmanta-core runner failed:\n{stderr[-4000:]}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def timed_pass(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("pass\n")
        self.proc.stdin.flush()
        reply = self._reply()
        self.result.add(reply["wall"], reply["cpu"])

    def close(self) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        meta = self._reply()
        self.proc.wait()
        self.result.parser = f"inmanta-core {meta['version']}"
        self.result.errors = meta["errors"]
        return meta


# ---------------------------------------------------------------- corpus


def ensure_corpus(directory: Path, quiet: bool = False) -> list[Path]:
    """Return the `.cf` files of the corpus wheels, downloading and unpacking what is missing."""
    directory.mkdir(parents=True, exist_ok=True)

    def wheel(name: str, version: str) -> Path | None:
        found = sorted(directory.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
        return found[0] if found else None

    missing = [f"{name}=={version}" for name, version in CORPUS_WHEELS if wheel(name, version) is None]
    if missing:
        if not quiet:
            print(f"downloading {len(missing)} corpus wheel(s) into {directory} ...", file=sys.stderr)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--disable-pip-version-check",
                "--no-deps",
                "-d",
                str(directory),
                *missing,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            print(f"corpus download failed, skipping the corpus:\n{proc.stderr[-2000:]}", file=sys.stderr)
            return []
    files: list[Path] = []
    for name, version in CORPUS_WHEELS:
        path = wheel(name, version)
        if path is None:
            return []
        target = directory / "extracted" / path.stem
        with zipfile.ZipFile(path) as archive:
            for member in sorted(archive.namelist()):
                if not member.endswith(".cf") or "/model/" not in member:
                    continue
                out = target / member
                if not out.exists():
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(archive.read(member))
                files.append(out)
    return files


# ---------------------------------------------------------------- cfmodel


class CfmodelPasses:
    """One parser of cfmodel over one input, a timed pass at a time."""

    def __init__(self, parser: str, paths: list[Path], parse_one: Callable[[str, str], object]) -> None:
        self.texts = [(str(path), path.read_text(encoding="utf-8")) for path in paths]
        self.parse_one = parse_one
        self.result = Result(parser)
        self.one_pass()  # warm-up (for the cache: fills it)

    def one_pass(self) -> None:
        for label, text in self.texts:
            if label in self.result.errors:
                continue
            try:
                self.parse_one(text, label)
            except CfSyntaxError as error:
                self.result.errors[label] = str(error)

    def timed_pass(self) -> None:
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        self.one_pass()
        self.result.add(time.perf_counter() - wall, time.process_time() - cpu)


def run_input(inmanta_python: Path, paths: list[Path], repeat: int) -> tuple[list[Result], dict[str, Any]]:
    """Time cfmodel cold, cfmodel warm and inmanta-core on *paths*, in interleaved rounds."""
    inmanta = InmantaSession(inmanta_python, paths)
    try:
        with tempfile.TemporaryDirectory(prefix="cfmodel-bench-cache-") as tmp:
            cache = ParseCache(Path(tmp))

            def cached(text: str, label: str) -> object:
                return parse_text(text, label, cache)

            cold = CfmodelPasses("cfmodel cold", paths, parse_str)
            warm = CfmodelPasses("cfmodel warm (cache)", paths, cached)
            for _ in range(repeat):
                cold.timed_pass()
                warm.timed_pass()
                inmanta.timed_pass()
            good = len(paths) - len(warm.result.errors)
            if cache.hits != good * repeat:
                raise SystemExit(f"cache: {good * repeat} hits expected, got {cache.hits}")
    finally:
        meta = inmanta.close()
    return [cold.result, warm.result, inmanta.result], meta


def verify(paths: list[Path]) -> list[str]:
    """Files where cfmodel's compiled parser and textX's parser disagree (objects or verdict)."""
    from textx import TextXSyntaxError

    from cfmodel.grammars import cf

    problems = []
    for path in paths:
        text = cf.blank_comments(path.read_text(encoding="utf-8"))
        try:
            textx_model = cf._metamodel().model_from_str(text)
            # textX gives '' for a file without statements
            expected = "<empty>" if textx_model == "" else _comparable(textx_model)
        except TextXSyntaxError:
            expected = None
        model = cf._fast_parser()(text)
        actual = None if model is None else "<empty>" if not model.statements else _comparable(model)
        if actual != expected:
            problems.append(str(path))
    return problems


def _comparable(value: object) -> object:
    """A model object as nested tuples: class name, positions, attribute values."""
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    cls = type(value)
    names = getattr(cls, "_tx_attrs", None) or [
        n for n in getattr(cls, "__slots__", ()) if not n.startswith("_")
    ]
    return (
        cls.__name__,
        getattr(value, "_tx_position", None),
        getattr(value, "_tx_position_end", None),
        tuple((name, _comparable(getattr(value, name))) for name in names),
    )


# ---------------------------------------------------------------- report


def count_lines(paths: list[Path]) -> int:
    return sum(len(path.read_text(encoding="utf-8").splitlines()) for path in paths)


def summarize(name: str, paths: list[Path], results: list[Result]) -> dict[str, object]:
    lines = count_lines(paths)
    reference = results[-1]
    out: dict[str, object] = {"input": name, "files": len(paths), "lines": lines, "parsers": {}}
    for result in results:
        entry: dict[str, object] = {"best_s": None, "median_s": None, "lines_per_s": None}
        if result.times and not result.errors:
            entry = {
                "best_s": round(result.best, 6),
                "median_s": round(result.median, 6),
                "lines_per_s": round(lines / result.best),
                "best_cpu_s": round(result.best_cpu, 6),
                "cpu_lines_per_s": round(lines / result.best_cpu),
            }
            if reference.times and not reference.errors and result is not reference:
                entry["speed_vs_inmanta"] = round(reference.best / result.best, 3)
                entry["cpu_speed_vs_inmanta"] = round(reference.best_cpu / result.best_cpu, 3)
        if result.errors:
            entry["errors"] = result.errors
        out["parsers"][result.parser] = entry  # type: ignore[index]
    return out


def print_table(summaries: list[dict[str, object]]) -> None:
    header = (
        f"{'input':<34} {'lines':>7}  {'parser':<22} {'best s':>8} {'median s':>9} "
        f"{'lines/s':>10} {'vs inmanta':>11} {'cpu s':>8} {'cpu lines/s':>12} {'vs inmanta':>11}"
    )
    print(header)
    print("-" * len(header))
    for summary in summaries:
        first = True
        label = f"{summary['input']} ({summary['files']} files)"
        for parser, entry in summary["parsers"].items():  # type: ignore[union-attr]
            left = f"{label:<34} {summary['lines']:>7}" if first else " " * 42
            first = False
            if entry["best_s"] is None:
                rejected = len(entry.get("errors", {}))
                print(f"{left}  {parser:<22} {'FAILED':>8}  ({rejected} file(s) rejected)")
                continue
            ratio = entry.get("speed_vs_inmanta")
            ratio_text = f"{ratio:.2f}x" if ratio is not None else "1.00x" if "inmanta" in parser else "-"
            cpu_ratio = entry.get("cpu_speed_vs_inmanta")
            cpu_text = (
                f"{cpu_ratio:.2f}x" if cpu_ratio is not None else "1.00x" if "inmanta" in parser else "-"
            )
            print(
                f"{left}  {parser:<22} {entry['best_s']:>8.4f} {entry['median_s']:>9.4f} "
                f"{entry['lines_per_s']:>10,} {ratio_text:>11} {entry['best_cpu_s']:>8.4f} "
                f"{entry['cpu_lines_per_s']:>12,} {cpu_text:>11}"
            )
        print()
    for summary in summaries:
        for parser, entry in summary["parsers"].items():  # type: ignore[union-attr]
            for path, error in entry.get("errors", {}).items():
                print(f"REJECTED by {parser}: {path}\n    {error.splitlines()[0] if error else ''}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, help="generated file size (default 50000, 10000 with --quick)")
    parser.add_argument("--quick", action="store_true", help="1 timed pass and a 10000-line file by default")
    parser.add_argument("--repeat", type=int, help="timed passes per parser (default 3; 1 with --quick)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated file")
    parser.add_argument("--keep", type=Path, help="also write the generated file here")
    parser.add_argument("--no-corpus", action="store_true", help="skip the real-module corpus")
    parser.add_argument("--corpus-dir", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--inmanta-venv", type=Path, default=DEFAULT_VENV, help="created on demand")
    parser.add_argument("--inmanta-python", type=Path, help="an interpreter with inmanta-core to use")
    parser.add_argument(
        "--verify", action="store_true", help="first check that the compiled parser agrees with textX's"
    )
    args = parser.parse_args(argv)
    lines = args.lines or (10_000 if args.quick else 50_000)
    repeat = args.repeat or (1 if args.quick else 3)

    inmanta_python = args.inmanta_python or ensure_inmanta_python(args.inmanta_venv)
    corpus = [] if args.no_corpus else ensure_corpus(args.corpus_dir)

    # one-time cost of loading the grammar, outside every timing below
    start = time.perf_counter()
    parse_str("", "<warm-up>")
    grammar_seconds = time.perf_counter() - start

    summaries = []
    meta: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="cfmodel-bench-") as tmp:
        generated = Path(tmp) / f"generated_{lines}.cf"
        text = generate(lines, args.seed)
        generated.write_text(text, encoding="utf-8")
        if args.keep:
            args.keep.write_text(text, encoding="utf-8")
        inputs = [(f"generated (seed {args.seed})", [generated])]
        if corpus:
            inputs.append((f"corpus ({len(CORPUS_WHEELS)} modules)", corpus))
        if args.verify:
            disagree = [path for _, paths in inputs for path in verify(paths)]
            if disagree:
                print("the compiled parser and textX disagree on:", *disagree, sep="\n  ")
                return 1
            print(f"verified: the compiled parser and textX agree on {sum(len(p) for _, p in inputs)} files")
        for name, paths in inputs:
            results, meta = run_input(inmanta_python, paths, repeat)
            summaries.append(summarize(name, paths, results))

    gc_note_cfmodel = "cfmodel pauses the cyclic GC while it parses and while it unpickles a cache hit"
    gc_note_inmanta = f"GC left as inmanta has it (enabled: {meta.get('gc_enabled')}); it does not pause it"
    print(
        f"cfmodel {importlib.metadata.version('cfmodel')} (textX {importlib.metadata.version('textX')}, "
        f"Python {platform.python_version()}) vs inmanta-core {meta.get('version')} "
        f"(Python {meta.get('python')}, {inmanta_python})"
    )
    print(
        f"timing: {repeat} round(s) after 1 warm-up pass each; a round times one pass of every parser "
        "in turn; gc.collect() before each pass"
    )
    print(f"GC: cfmodel: {gc_note_cfmodel}; inmanta: {gc_note_inmanta}")
    print(
        f"one-time costs (not in the timings): cfmodel grammar load {grammar_seconds:.3f} s, "
        f"inmanta-core import + parser tables {meta.get('import_seconds', 0):.3f} s"
    )
    print(
        "'vs inmanta' = inmanta best time / this parser's best time (above 1 = faster than inmanta); "
        "'cpu' columns: the same with process CPU time"
    )
    print()
    print_table(summaries)
    record = {
        "benchmark": "parse",
        "cfmodel": importlib.metadata.version("cfmodel"),
        "inmanta_core": meta.get("version"),
        "python": platform.python_version(),
        "repeat": repeat,
        "seed": args.seed,
        "gc": {"cfmodel": gc_note_cfmodel, "inmanta": gc_note_inmanta},
        "grammar_load_s": round(grammar_seconds, 4),
        "inmanta_import_s": round(float(meta.get("import_seconds", 0)), 4),  # type: ignore[arg-type]
        "results": summaries,
        "host": platform.node() or os.uname().nodename,
    }
    print(json.dumps(record, sort_keys=False))
    failed = any(entry.get("errors") for s in summaries for entry in s["parsers"].values())  # type: ignore[union-attr]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
