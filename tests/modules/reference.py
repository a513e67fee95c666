"""The reference side of the module corpus: inmanta-core 20.1 with the modules installed.

inmanta-core 20.1 runs in tests/compat's venv (`tests.compat.inmanta`, Python ≥ 3.13);
the pinned modules are pip-installed into it as v2 modules with their dependencies, as
a user of inmanta has them.

`run_reference(python, projects)` compiles each project directory with the one reference
runner of ``tests/compat/inmanta.py`` (`run_inmanta` with ``with_std=True, export=True``)
and exports its resources as ``inmanta export -j`` does (`Exporter.run(...,
no_commit=True)`, the document `protocol.json_encode` writes); per project: ``{"ok",
"error", "message", "instances", "resources"}`` (instances as in
`tests.compat.canonical`, every entity's, std's included).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.compat.inmanta import REQUIREMENTS as COMPAT_REQUIREMENTS
from tests.compat.inmanta import inmanta_python, run_inmanta
from tests.modules.corpus import MODULES, distribution

MODULES_MARK = ".cfmodel-modules-ready"


def requirements(modules: dict[str, str] | None = None) -> list[str]:
    """What the corpus adds to the compat venv (inmanta-core pinned so that pip keeps it)."""
    modules = modules or MODULES
    core = [r for r in COMPAT_REQUIREMENTS if r.startswith("inmanta-core")]
    return [*core, *(f"{distribution(m)}=={v}" for m, v in sorted(modules.items()))]


def reference_python(modules: dict[str, str] | None = None) -> tuple[Path | None, str]:
    """The reference interpreter with the corpus's modules installed, or None and why not.

    The venv is tests/compat's (`tests.compat.inmanta.inmanta_python`: inmanta-core 20.1
    and std); the other pinned modules are pip-installed into it once (marked in it).
    """
    python = inmanta_python(create=True)
    if python is None:
        return None, "the reference compiler's venv (tests/compat/inmanta.py) could not be made"
    mark = python.parent.parent / MODULES_MARK
    wanted = " ".join(requirements(modules))
    if mark.is_file() and mark.read_text(encoding="utf-8").strip() == wanted:
        return python, ""
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements(modules)],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        return None, f"cannot install the corpus's modules with {python}: {done.stderr[-1500:]}"
    mark.write_text(wanted + "\n", encoding="utf-8")
    return python, ""


def run_reference(python: Path, projects: list[Path], timeout: float = 1800) -> dict[str, dict[str, Any]]:
    """The corpus's compile step on the one reference runner (`tests.compat.inmanta.run_inmanta`):
    every entity's instances (std's included) and the exported resources."""
    return run_inmanta(python, projects, with_std=True, export=True, timeout=timeout)
