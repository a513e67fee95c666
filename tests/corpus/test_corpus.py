"""Real-world corpus: every `.cf` file of widely used Inmanta modules must parse.

The wheels are fetched at test time with ``pip download --no-deps`` into a cache
(``$CFMODEL_CORPUS_DIR``, default ``~/.cache/cfmodel/corpus``); nothing of them is
committed. Versions are pinned so that the file and line counts are exact. In CI
(``CI`` set) a failed download fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cfmodel.project import parse_file
from tests.conftest import skip_or_fail

WHEELS = {
    "inmanta-module-std": "8.5.0",
    "inmanta-module-net": "1.1.3",
    "inmanta-module-ip": "2.0.3",
    "inmanta-module-fs": "1.2.0",
    "inmanta-module-exec": "2.1.1",
    "inmanta-module-openstack": "6.1.2",
    "inmanta-module-aws": "4.0.6",
    "inmanta-module-apache": "0.5.8",
    "inmanta-module-mysql": "0.6.15",
    "inmanta-module-mitogen": "0.2.5",
    "inmanta-module-podman": "1.13.4",
}
EXPECTED_FILES = 25
EXPECTED_LINES = 5016


def corpus_dir() -> Path:
    explicit = os.environ.get("CFMODEL_CORPUS_DIR")
    if explicit:
        return Path(explicit)
    return Path.home() / ".cache" / "cfmodel" / "corpus"


def _wheel_name(package: str, version: str) -> str:
    return f"{package.replace('-', '_')}-{version}-py3-none-any.whl"


def fetch_corpus() -> Path:
    """Download the missing wheels; return the folder they are in."""
    folder = corpus_dir()
    folder.mkdir(parents=True, exist_ok=True)
    missing = [f"{p}=={v}" for p, v in WHEELS.items() if not (folder / _wheel_name(p, v)).is_file()]
    if missing:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder), *missing],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if result.returncode != 0:
            skip_or_fail(f"could not download the corpus wheels: {result.stderr.strip()[-500:]}")
    return folder


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = fetch_corpus()
    unpacked = tmp_path_factory.mktemp("corpus")
    files: list[Path] = []
    for package, version in sorted(WHEELS.items()):
        with zipfile.ZipFile(folder / _wheel_name(package, version)) as wheel:
            for name in sorted(wheel.namelist()):
                if name.endswith(".cf"):
                    target = unpacked / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(wheel.read(name))
                    files.append(target)
    return files


def test_corpus_is_complete(corpus_files: list[Path]) -> None:
    lines = sum(f.read_bytes().count(b"\n") for f in corpus_files)  # as `wc -l` counts
    assert (len(corpus_files), lines) == (EXPECTED_FILES, EXPECTED_LINES)


def test_every_corpus_file_parses(corpus_files: list[Path]) -> None:
    failures = []
    statements = 0
    for path in corpus_files:
        try:
            statements += len(parse_file(path).statements)
        except Exception as error:  # collect them all, then report
            failures.append(f"{path.name}: {error}")
    assert failures == []
    assert statements == 748  # every top-level statement of the corpus made it into the trees
