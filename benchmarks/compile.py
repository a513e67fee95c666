"""Compile speed and memory: cfmodel against the reference inmanta-core (tests/compat), side by side.

A generated project with N hosts (seeded by N only, deterministic): entities with single
and multiple inheritance and defaults; typedefs with a condition and a regex;
``Host.files [0:] -- File.host [1]`` with 5 files per host made in an implementation's
``for`` loop with interpolated strings; a conditional ``implement … when`` (a service
for half the hosts); indexes ``Host(name)``, ``File(host, path)``, ``Service(host,
name)``, ``Cluster(name)``; top-level index queries (every host's cluster, a backup of
every tenth host); 6.6 instances per host.

Each compile runs in a fresh process; CPU seconds (user + system) and peak RSS come
from ``wait4`` on that process; each command runs ``--repeat`` times (3) and the table
shows the best CPU time and the best peak RSS (the machine is shared: noise only adds).
cfmodel is measured twice: "compile" is the CLI, ``cfmodel compile PROJECT --no-cache``
(evaluation and checks, a summary printed); "+ model" is ``compile_project(PROJECT)``
followed by the PyEcore instance model (``CompileResult.model``), what the Python API
user receives (the child reports its own stage times through the progress callback;
like the CLI it skips the collector's last pass when it ends).
inmanta-core: ``inmanta compile --no-cache`` in its own venv (see
``tests/compat/inmanta.py``; created on first use). Startup: the CLIs on a project
with an empty ``main.cf``.

Usage: .venv/bin/python benchmarks/compile.py [--sizes 1000,5000,10000] [--no-inmanta]
       [--keep DIR] [--repeat N]
Output: a table, then one JSON line (``"benchmark": "compile"``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.compat.inmanta import inmanta_python  # noqa: E402 - after the path fix

HEADER = '''"""A generated project for benchmarks/compile.py."""
typedef hostname as string matching /^[a-z0-9-]+$/
typedef tcp_port as int matching self > 0 and self < 65536

entity Base:
    string owner = "ops"
end

entity Monitored:
    bool monitored = true
    int interval = 60
end

entity Host extends Base, Monitored:
    hostname name
    string os = "linux"
    int cpus = 2
    tcp_port ssh_port = 22
end
index Host(name)

entity File extends Base:
    string path
    string content
    int mode = 644
end
index File(host, path)
Host.files [0:] -- File.host [1]

entity Service extends Base, Monitored:
    string name
    tcp_port port
end
index Service(host, name)
Host.services [0:] -- Service.host [1]

entity Backup:
    string target
end
Backup.host [1] -- Host.backups [0:]

entity Cluster:
    string name
end
index Cluster(name)
Cluster.hosts [0:] -- Host.cluster [1]

implementation hostFiles for Host:
    for i in std::sequence(5):
        File(host=self, path="/etc/app/{{name}}/conf{{i}}",
             content="host={{name}} os={{os}} cpus={{cpus}} file={{i}}")
    end
end

implementation webService for Host:
    Service(host=self, name="http", port=80)
end

implement Host using hostFiles
implement Host using webService when cpus > 2
implement File using std::none
implement Service using std::none
implement Backup using std::none
implement Cluster using std::none
'''


def generate(hosts: int) -> str:
    """The main.cf of a project with *hosts* hosts (≈6.6 instances per host)."""
    out = [HEADER]
    for cluster in range((hosts + 99) // 100):
        out.append(f'Cluster(name="c{cluster}")')
    for i in range(hosts):
        out.append(f'h{i} = Host(name="host{i}", cpus={i % 4 + 1}, cluster=Cluster[name="c{i // 100}"])')
    for i in range(0, hosts, 10):
        out.append(f'Backup(host=Host[name="host{i}"], target="/backup/{i}")')
    return "\n".join(out) + "\n"


def write_project(root: Path, hosts: int | None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "project.yml").write_text("name: bench\n", encoding="utf-8")
    (root / "main.cf").write_text(generate(hosts) if hosts else "", encoding="utf-8")
    return root


# Runs in a fresh cfmodel process: argv = [project]; prints one JSON object. The project is
# compiled as the API user does it (`compile_project(directory)`); the stage times come from
# the progress callback (loading, linking, evaluating).
CFMODEL_RUNNER = r"""
import json, sys, time
t0 = time.process_time()
from cfmodel.pipeline import compile_project
t1 = time.process_time()
marks = {}
def progress(stage, done, instances):
    marks.setdefault(stage, time.process_time())
result = compile_project(sys.argv[1], progress=progress)
t3 = time.process_time()
model = result.model
t4 = time.process_time()
linked = marks.get("linking", t1)
print(json.dumps({"import": t1 - t0, "load": linked - t1, "compile": t3 - linked, "model": t4 - t3,
                  "instances": sum(result.counts().values()), "objects": len(model)}))
import gc
gc.freeze()  # the process ends here: no last collector pass over the model (as the CLI does)
"""


def measure(command: list[str], cwd: Path) -> dict[str, Any]:
    """Run *command*; its CPU seconds, peak RSS (MB), wall time, exit status and stdout."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
        "wall": wall,
        "status": process.returncode,
        "stdout": stdout,
        "stderr": stderr[-2000:],
    }


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The best of several runs of one command: least CPU and least peak RSS (each its own minimum)."""
    failed = [r for r in runs if r["status"] != 0]
    if failed:
        return failed[0]
    result = dict(min(runs, key=lambda r: r["cpu"]))
    result["rss_mb"] = min(r["rss_mb"] for r in runs)
    result["runs"] = len(runs)
    return result


def run_cfmodel(project: Path, repeat: int = 1) -> dict[str, Any]:
    runs = []
    for _ in range(repeat):
        run = measure([sys.executable, "-c", CFMODEL_RUNNER, str(project)], REPO)
        if run["status"] == 0:
            run["stages"] = json.loads(run["stdout"].strip().splitlines()[-1])
        runs.append(run)
    return best(runs)


def run_cfmodel_cli(project: Path, repeat: int = 1) -> dict[str, Any]:
    command = [sys.executable, "-m", "cfmodel", "compile", str(project), "--no-cache"]
    return best([measure(command, REPO) for _ in range(repeat)])


def run_inmanta(python: Path, project: Path, repeat: int = 1) -> dict[str, Any]:
    inmanta = python.parent / "inmanta"
    return best([measure([str(inmanta), "compile", "--no-cache"], project) for _ in range(repeat)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,5000,10000", help="numbers of hosts (comma separated)")
    parser.add_argument("--no-inmanta", action="store_true", help="only cfmodel")
    parser.add_argument("--keep", metavar="DIR", help="write the generated projects here and keep them")
    parser.add_argument(
        "--repeat", type=int, default=3, metavar="N", help="runs per command and size; the best counts (3)"
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    python = None if args.no_inmanta else inmanta_python(create=True)
    if python is None and not args.no_inmanta:
        print("inmanta-core could not be installed; measuring cfmodel only", file=sys.stderr)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cfmodel-bench-compile-"))
    rows: list[dict[str, Any]] = []
    failures = 0
    for size in [0, *sizes]:
        project = write_project(base / f"hosts-{size}", size)
        row: dict[str, Any] = {"hosts": size}
        row["cli"] = run_cfmodel_cli(project, args.repeat)
        row["cfmodel"] = run_cfmodel(project, args.repeat)
        if python is not None:
            row["inmanta"] = run_inmanta(python, project, args.repeat)
        for tool in ("cli", "cfmodel", "inmanta"):
            if tool in row and row[tool]["status"] != 0:
                failures += 1
                print(f"{tool} failed on {size} hosts:\n{row[tool]['stderr']}", file=sys.stderr)
        rows.append(row)
        print(f"measured {size} hosts", file=sys.stderr, flush=True)
    print_table(rows)
    summary = {
        "benchmark": "compile",
        "python": platform.python_version(),
        "rows": [
            {
                "hosts": r["hosts"],
                **{
                    f"{tool}_{k}": r[tool][k]
                    for tool in ("cli", "cfmodel", "inmanta")
                    if tool in r
                    for k in ("cpu", "rss_mb", "wall", "status")
                },
                **({"cfmodel_stages": r["cfmodel"].get("stages")} if "stages" in r["cfmodel"] else {}),
            }
            for r in rows
        ],
    }
    print(json.dumps(summary))
    return 1 if failures else 0


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'hosts':>6} {'instances':>9} | {'compile CPU s':>13} {'RSS MB':>6} | "
        f"{'+model CPU s':>12} {'RSS MB':>6} {'µs/inst':>7} | "
        f"{'inmanta CPU s':>13} {'RSS MB':>6} {'µs/inst':>7} | "
        f"{'CPU ratio':>9} {'RSS ratio':>9}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        cli, cf = r["cli"], r["cfmodel"]
        instances = cf.get("stages", {}).get("instances", 0)

        def per(cpu: float, n: int = instances) -> str:
            return f"{cpu / n * 1e6:7.0f}" if n else f"{'-':>7}"

        line = (
            f"{r['hosts']:>6} {instances:>9} | {cli['cpu']:>13.2f} {cli['rss_mb']:>6.0f} | "
            f"{cf['cpu']:>12.2f} {cf['rss_mb']:>6.0f} {per(cf['cpu'])} | "
        )
        if "inmanta" in r:
            im = r["inmanta"]
            line += (
                f"{im['cpu']:>13.2f} {im['rss_mb']:>6.0f} {per(im['cpu'])} | "
                f"{cf['cpu'] / im['cpu']:>9.2f} {cf['rss_mb'] / im['rss_mb']:>9.2f}"
            )
        print(line)
    print()
    print("compile: `cfmodel compile --no-cache` (the CLI). +model: compile_project + CompileResult.model")
    print("(the PyEcore instance model). Ratios: +model / inmanta (below 1: cfmodel uses less).")
    print("hosts 0: an empty main.cf (startup).")
    for r in rows:
        stages = r["cfmodel"].get("stages")
        if stages and r["hosts"]:
            print(
                f"cfmodel stages, {r['hosts']} hosts: imports {stages['import']:.2f} s, load+parse "
                f"{stages['load']:.2f} s, compile {stages['compile']:.2f} s, "
                f"PyEcore model {stages['model']:.2f} s"
            )


if __name__ == "__main__":
    sys.exit(main())
