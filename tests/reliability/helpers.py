"""Run the CLI as a user would, in a subprocess with a time limit and its own cache, and
optionally hard limits on its CPU time and address space (a run over them is killed or
fails with exit 3, which the callers' assertions catch)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path


def run_cli(
    *args: str,
    cwd: Path,
    timeout: float = 60,
    env: dict[str, str] | None = None,
    cpu_seconds: int | None = None,
    memory_bytes: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m cfmodel ARGS`` in *cwd*; its parse cache lives in *cwd*/.cache.

    With *cpu_seconds* the process is killed (SIGXCPU/SIGKILL) past that much CPU time;
    with *memory_bytes* it cannot map more than that (a ``MemoryError``, exit 3).
    """

    def limit() -> None:
        if cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    full_env = {**os.environ, "CFMODEL_CACHE_DIR": str(cwd / ".cache"), **(env or {})}
    full_env.pop("CFMODEL_DEBUG", None)
    result = subprocess.run(
        [sys.executable, "-m", "cfmodel", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
        preexec_fn=limit if cpu_seconds is not None or memory_bytes is not None else None,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode != 3, result.stderr
    assert result.returncode >= 0, f"killed by signal {-result.returncode} (over a limit?)"
    return result
