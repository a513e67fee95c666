"""No dead code in cfmodel/: what vulture finds at 60 % confidence (its default: unused
imports, variables, functions, methods, classes, attributes, unreachable code), with what it
cannot see used listed, with the reason, in `tests/vulture_whitelist.py`.

Vulture reads the tests, scripts and benchmarks too, so a name they use counts as used;
only what it finds in cfmodel/ is reported (the shim's names are inmanta's API, for
module code: see the whitelist).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import skip_or_fail

REPO = Path(__file__).resolve().parents[1]

#: Methods found by name from a node's rule or class, and the built-in std's plugins.
BY_NAME = "build_*,expr_*,eval_*,stmt_*,element_*,add_*,visit_*"


def vulture(*paths: str, exclude: str = "") -> list[str]:
    """What vulture reports in cfmodel/ (outside the shim), reading *paths* (less *exclude*)."""
    try:
        import vulture  # noqa: F401
    except ImportError:
        skip_or_fail("vulture is not installed (pip install -e .[test])")
    command = [sys.executable, "-m", "vulture", *paths, "--min-confidence", "60"]
    command += ["--ignore-names", BY_NAME, "--ignore-decorators", "@plugin"]
    command += ["--exclude", exclude] if exclude else []
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode in (0, 3), done.stderr  # 3: dead code found
    return [
        line
        for line in done.stdout.splitlines()
        if line.startswith("cfmodel/") and not line.startswith("cfmodel/shim/")
    ]


def test_vulture_finds_no_dead_code() -> None:
    found = vulture("cfmodel", "tests", "scripts", "benchmarks")  # the whitelist is in tests/
    assert found == [], "remove it, or say in tests/vulture_whitelist.py who uses it:\n" + "\n".join(found)


def test_the_whitelist_is_what_keeps_it_quiet() -> None:
    """Without the whitelist vulture reports what it lists (the check sees dead code)."""
    found = vulture("cfmodel", "tests", "scripts", "benchmarks", exclude="*/vulture_whitelist.py")
    assert any("unused method 'save_rdf'" in line for line in found)
    assert any("unused attribute 'StartElementHandler'" in line for line in found)
