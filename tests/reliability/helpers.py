"""Run the CLI as a user would, in a subprocess with a time limit and its own cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(
    *args: str, cwd: Path, timeout: float = 60, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m cfmodel ARGS`` in *cwd*; its parse cache lives in *cwd*/.cache."""
    full_env = {**os.environ, "CFMODEL_CACHE_DIR": str(cwd / ".cache"), **(env or {})}
    full_env.pop("CFMODEL_DEBUG", None)
    result = subprocess.run(
        [sys.executable, "-m", "cfmodel", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode != 3, result.stderr
    return result
