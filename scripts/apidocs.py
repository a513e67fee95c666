"""Build the API reference: HTML from the docstrings of cfmodel's public modules (pdoc).

    python scripts/apidocs.py [OUTPUT_DIR]      (default: build/api)

The reference covers ``cfmodel`` (every name of its ``__all__``) and the modules the docs
tell users to import (`PUBLIC_MODULES`); docstrings are read as Google style (``Args:``,
``Returns:``, ``Raises:``). Warnings are errors: any warning pdoc gives (an annotation it
cannot resolve, a module it cannot import, a module given twice) is printed on stderr and
the exit code is 1, with nothing written; otherwise the reference is written to the output
directory (``index.html`` first) and its path printed. ``tests/test_apidocs.py`` runs it.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

import pdoc
import pdoc.render

#: What the API reference documents, in its order: the package, then the modules the
#: README and docs/*.md import from.
PUBLIC_MODULES = (
    "cfmodel",
    "cfmodel.pipeline",
    "cfmodel.saved",
    "cfmodel.display",
    "cfmodel.errors",
    "cfmodel.errorcodes",
    "cfmodel.project",
    "cfmodel.cache",
    "cfmodel.mcl",
    "cfmodel.sparql",
    "cfmodel.plugins",
    "cfmodel.resources",
    "cfmodel.serializers",
    "cfmodel.serializers.rdf",
    "cfmodel.serializers.dot",
    "cfmodel.metamodel.resource_graph",
    "cfmodel.transforms.cf.lift",
    "cfmodel.transforms.cf.validate_instances",
    "cfmodel.transforms.cf.ecore_import",
    "cfmodel.transforms.cf.export",
    "cfmodel.transforms.bindings.providers",
    "cfmodel.transforms.bindings.compose",
    "cfmodel.transforms.environments.request",
    "cfmodel.transforms.diff",
    "cfmodel.transforms.graph",
)


def build(output: Path) -> list[str]:
    """Write the reference into *output*; the warnings pdoc gave (nothing is written if any)."""
    pdoc.render.configure(docformat="google", footer_text="cfmodel API reference")
    with tempfile.TemporaryDirectory() as scratch, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*PUBLIC_MODULES, output_directory=Path(scratch))
        said = [f"{w.filename}:{w.lineno}: {w.category.__name__}: {w.message}" for w in caught]
        if said:
            return said
        output.mkdir(parents=True, exist_ok=True)
        for path in sorted(Path(scratch).rglob("*")):
            target = output / path.relative_to(scratch)
            if path.is_dir():
                target.mkdir(exist_ok=True)
            else:
                target.write_bytes(path.read_bytes())
    return []


def main(argv: list[str]) -> int:
    output = Path(argv[0]) if argv else Path("build/api")
    problems = build(output)
    for problem in problems:
        print(f"apidocs: warning (an error here): {problem}", file=sys.stderr)
    if problems:
        return 1
    print(output / "index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
