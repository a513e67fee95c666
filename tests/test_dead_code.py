"""No code that vulture is sure is dead (100 % confidence: unused imports, variables, unreachable code)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import skip_or_fail

REPO = Path(__file__).resolve().parents[1]


def test_vulture_finds_no_dead_code() -> None:
    try:
        import vulture  # noqa: F401
    except ImportError:
        skip_or_fail("vulture is not installed (pip install -e .[test])")
    done = subprocess.run(
        [sys.executable, "-m", "vulture", "cfmodel", "--min-confidence", "100"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.stdout == "" and done.returncode == 0, done.stdout
