"""The package as users get it: every data file is shipped, the public API is whole and cheap."""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

import cfmodel

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "cfmodel"


def package_data_globs() -> list[str]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return [line.strip() for line in config["options.package_data"]["cfmodel"].splitlines() if line.strip()]


def glob_matches(pattern: str, path: str) -> bool:
    """setuptools' package_data globs: ``*`` within one folder, ``**`` across folders."""
    regex = re.escape(pattern).replace(r"\*\*", "\0").replace(r"\*", "[^/]*").replace("\0", ".*")
    return re.fullmatch(regex, path) is not None


def test_every_data_file_in_the_package_is_listed_in_package_data() -> None:
    globs = package_data_globs()
    data_files = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    ]
    assert data_files, "the package has data files (grammars, std, templates)"
    missing = [path for path in data_files if not any(glob_matches(g, path) for g in globs)]
    assert missing == []


def test_every_public_name_is_importable() -> None:
    for name in cfmodel.__all__:
        assert getattr(cfmodel, name) is not None, name
    assert cfmodel.validate_instances.__module__ == "cfmodel.transforms.cf.validate_instances"


def test_importing_cfmodel_does_not_import_the_pipeline() -> None:
    code = "import sys, cfmodel; print(sorted(m for m in ('pyecore', 'textx', 'jinja2') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_the_license_file_is_the_license_setup_cfg_names() -> None:
    root = PACKAGE.parent
    setup = (root / "setup.cfg").read_text(encoding="utf-8")
    assert "license = Apache-2.0\nlicense_files = LICENSE\n" in setup
    text = (root / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
