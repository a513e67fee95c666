"""Shared test options and fixtures (kept small on purpose)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the expected output of golden case files (review the diff!)",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def skip_or_fail(reason: str) -> None:
    """Skip locally; in CI (CI set) a missing real component is an error, never a skip."""
    if os.environ.get("CI"):
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


def run_cfmodel(
    *args: str,
    cwd: Path,
    cache: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    cpu_seconds: int | None = None,
    memory_bytes: int | None = None,
    file_bytes: int | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m cfmodel ARGS`` as a user runs it: text output captured, bounded in time.

    The one way the tests run the CLI in a subprocess (the few that need a terminal, to
    measure its memory or to kill it midway make their own process). ``cache`` becomes
    ``CFMODEL_CACHE_DIR`` (None keeps the caller's setting); ``env`` adds variables (such as
    ``PYTHONPATH``); ``CFMODEL_DEBUG`` is removed so that an internal error looks as it does
    for users. With *cpu_seconds* the process is killed (SIGXCPU, then SIGKILL) past that
    much CPU time; with *memory_bytes* it cannot map more than that (a ``MemoryError``);
    with *file_bytes* no file it writes can grow past that (``EFBIG``: a full disk).
    """
    env = {**{k: v for k, v in os.environ.items() if k != "CFMODEL_DEBUG"}, **(env or {})}
    if cache is not None:
        env["CFMODEL_CACHE_DIR"] = str(cache)

    def limit() -> None:
        if cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        if file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))

    limited = cpu_seconds is not None or memory_bytes is not None or file_bytes is not None
    return subprocess.run(
        [sys.executable, "-m", "cfmodel", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        preexec_fn=limit if limited else None,
    )
