"""The README's first command, ``./dev example``, needs only Python: no apt, no root.

A clean clone runs it with ``apt-get``, ``dpkg``, ``dpkg-query`` and ``sudo`` replaced by
commands that fail loudly, as on a machine without them (macOS, Fedora, no root): it must
set up, compile the example and export it, saying what it does in a line each.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def test_dev_example_needs_only_python(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    shims = tmp_path / "shims"
    shims.mkdir()
    for command in ("apt-get", "apt", "dpkg", "dpkg-query", "sudo"):
        shim = shims / command
        shim.write_text(f"#!/bin/sh\necho 'SHIM: {command} was called' >&2\nexit 97\n", encoding="utf-8")
        shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["./dev", "example"], cwd=clone, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "SHIM" not in said
    assert done.stderr.splitlines() == [
        "dev: creating .venv",
        "dev: installing cfmodel into .venv (pip; details in .venv/setup.log)",
        "dev: compiling examples/webshop",
        "dev: exporting its metamodel and instances to build/webshop",
    ]
    assert done.stdout.splitlines()[0].startswith("webshop: ok — 19 instances of 8 entities")
    exported = sorted(p.name for p in (clone / "build" / "webshop").iterdir())
    assert exported == [
        ".cfmodel-manifest.json",
        "__config__.ecore",
        "shop.ecore",
        "std.ecore",
        "web.ecore",
        "webshop.xmi",
    ]
    # a second run does only what is not done yet: no setup lines
    again = subprocess.run(
        ["./dev", "example"], cwd=clone, env=env, capture_output=True, text=True, check=False
    )
    assert again.returncode == 0
    assert again.stderr.splitlines() == [
        "dev: compiling examples/webshop",
        "dev: exporting its metamodel and instances to build/webshop",
    ]
    shutil.rmtree(clone / ".venv")
