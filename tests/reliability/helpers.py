"""Run the CLI as a user would, in a subprocess with a time limit and its own cache, and
optionally hard limits on its CPU time and address space (a run over them is killed or
fails with exit 3, which the callers' assertions catch); `measure_cli` also reports the
run's peak resident memory and CPU time, as the kernel counted them."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import run_cfmodel


def run_cli(
    *args: str,
    cwd: Path,
    timeout: float = 60,
    env: dict[str, str] | None = None,
    cpu_seconds: int | None = None,
    memory_bytes: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m cfmodel ARGS`` in *cwd* (`tests.conftest.run_cfmodel`); its parse cache
    lives in *cwd*/.cache; a traceback, exit 3 or a kill fails the test.

    With *cpu_seconds* the process is killed (SIGXCPU/SIGKILL) past that much CPU time;
    with *memory_bytes* it cannot map more than that (a ``MemoryError``, exit 3).
    """
    result = run_cfmodel(
        *args,
        cwd=cwd,
        cache=cwd / ".cache",
        env=env,
        timeout=timeout,
        cpu_seconds=cpu_seconds,
        memory_bytes=memory_bytes,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode != 3, result.stderr
    assert result.returncode >= 0, f"killed by signal {-result.returncode} (over a limit?)"
    return result


@dataclass(frozen=True)
class Measured:
    """A finished ``cfmodel`` run: its exit status, output, peak resident memory and CPU time."""

    returncode: int
    stdout: str
    stderr: str
    peak_bytes: int
    cpu_seconds: float


# runs cfmodel's CLI and, at exit, writes this process's own peak resident memory
# (``VmHWM``: ``ru_maxrss`` would count the parent's memory, shared until exec)
_MEASURED_MAIN = """
import atexit, os, runpy, sys

def report():
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
    with open(os.environ["CFMODEL_TEST_PEAK_FILE"], "w") as out:
        out.write(str(peak))

atexit.register(report)
sys.argv = ["cfmodel", *sys.argv[1:]]
runpy.run_module("cfmodel", run_name="__main__", alter_sys=True)
"""


def measure_cli(*args: str, cwd: Path, cpu_seconds: int = 60, memory_bytes: int | None = None) -> Measured:
    """``python -m cfmodel ARGS`` in *cwd*, with its own peak resident memory (``VmHWM``)
    and its CPU time (``wait4``). Killed past *cpu_seconds*; with *memory_bytes*, it
    cannot map more than that (a guard, should a bound fail)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    with tempfile.TemporaryDirectory() as scratch:
        peak_file = Path(scratch) / "peak"
        env = {
            **os.environ,
            "CFMODEL_CACHE_DIR": str(cwd / ".cache"),
            "CFMODEL_TEST_PEAK_FILE": str(peak_file),
        }
        env.pop("CFMODEL_DEBUG", None)
        with (Path(scratch) / "out").open("w+b") as out, (Path(scratch) / "err").open("w+b") as err:
            process = subprocess.Popen(
                [sys.executable, "-c", _MEASURED_MAIN, *args],
                stdout=out, stderr=err, cwd=cwd, env=env, preexec_fn=limit,
            )  # fmt: skip
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            result = Measured(
                process.returncode,
                out.read().decode("utf-8", "replace"),
                err.read().decode("utf-8", "replace"),
                int(peak_file.read_text()) if peak_file.exists() else 0,
                usage.ru_utime + usage.ru_stime,
            )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode not in (3, -signal.SIGXCPU, -signal.SIGKILL), result.stderr
    assert result.peak_bytes > 0, "the run reported no peak memory"
    return result
