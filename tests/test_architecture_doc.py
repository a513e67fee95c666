"""docs/architecture.md is the map of what exists: every module of the rooms it maps is
named in it, and every file it names exists.

The rooms are the packages the map lists module by module (`ROOMS`); the packages below
them that the map names as a whole (``cf/refine/``, ``bindings/compose/``, ``mcl/``,
``diff/``, ...) have their modules described in their area's page (compiler.md,
bindings.md, mcl.md, diff.md).
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "cfmodel"
DOC = REPO / "docs" / "architecture.md"

#: The packages whose every module the map names.
ROOMS = (
    "",
    "commands",
    "grammars",
    "metamodel",
    "metamodel/runtime",
    "serializers",
    "serializers/xmi",
    "serializers/json",
    "transforms/cf",
    "transforms/bindings",
    "transforms/environments",
    "transforms/graph",
)

# a file name in backquotes: `lift.py`, `cf/lift.py`, `cfmodel/serializers/xmi/`
_NAMED = re.compile(r"`([\w./-]+\.(?:py|tx|ecore)|[\w./-]+/)`")


def named() -> set[str]:
    return set(_NAMED.findall(DOC.read_text(encoding="utf-8")))


def _tails(path: Path) -> list[str]:
    """How the map may name *path*: ``cfmodel/transforms/cf/lift.py``, ``transforms/cf/lift.py``,
    ``cf/lift.py`` or ``lift.py`` (the row or sentence says where)."""
    parts = path.relative_to(REPO).parts
    return ["/".join(parts[i:]) for i in range(len(parts))]


def _is_named(path: Path, names: set[str]) -> bool:
    return any(tail in names for tail in _tails(path))


def _package_is_named(path: Path, names: set[str]) -> bool:
    """``cf/refine/`` itself, or a file in it (``cfmodel/grammars/cf.py``)."""
    tails = [tail + "/" for tail in _tails(path)]
    return any(name.startswith(tail) for name in names for tail in tails)


def unnamed_modules() -> list[str]:
    names = named()
    missing = []
    for room in ROOMS:
        folder = PACKAGE / room
        for path in sorted(folder.glob("*.py")):
            if path.name in ("__init__.py", "__main__.py"):
                continue
            if not _is_named(path, names):
                missing.append(path.relative_to(PACKAGE).as_posix())
        for sub in sorted(p for p in folder.iterdir() if (p / "__init__.py").is_file()):
            if not _package_is_named(sub, names):
                missing.append(sub.relative_to(PACKAGE).as_posix() + "/")
    return missing


def _exists(name: str) -> bool:
    name = name.rstrip("/")
    bases = [REPO, PACKAGE, PACKAGE / "transforms", PACKAGE / "serializers", PACKAGE / "commands"]
    if any((base / name).exists() for base in bases):
        return True
    if "/" not in name:  # a file named alone, where its row or sentence says
        return any(path.name == name for path in PACKAGE.rglob(name))
    return any(str(path).endswith("/" + name) for path in REPO.glob(f"**/{name}"))


def test_every_module_of_the_mapped_rooms_is_on_the_map() -> None:
    assert unnamed_modules() == [], "name these in docs/architecture.md"


def test_every_file_on_the_map_exists() -> None:
    absent = sorted(name for name in named() if not _exists(name))
    assert absent == [], "docs/architecture.md names files that do not exist"


def test_the_map_check_sees_what_it_checks() -> None:
    names = named()
    assert {"cf/lift.py", "writer.py", "cfmodel/pipeline.py", "cf/refine/"} <= names
    assert _is_named(PACKAGE / "transforms" / "cf" / "lift.py", names)
    assert not _is_named(PACKAGE / "transforms" / "cf" / "nowhere.py", names)
    assert _package_is_named(PACKAGE / "grammars", names)  # by its files
    assert not _package_is_named(PACKAGE / "nowhere", names)
    assert _exists("cf/lift.py") and _exists("xmi/") and not _exists("cf/nowhere.py")
