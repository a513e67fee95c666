"""Run real metamodels and models through cfmodel and the real EMF; print a table.

Usage:
    .venv/bin/python scripts/emf_corpus.py --registry        # the corpus the tests use
    .venv/bin/python scripts/emf_corpus.py DIR [DIR ...]     # a corpus kept anywhere

``--registry`` takes the metamodels and models of `tests/emf/realmetamodels.py` (fetched
from Debian, PyPI and npm into the corpus cache). A DIR is searched for files: each XML
file whose root is an ``ecore:EPackage`` (or an ``xmi:XMI`` of them) is a metamodel;
every other XML file whose namespaces name a metamodel found is a model of it. A
metamodel is read with the files that define the nsURIs it refers to (files it names by
path are followed by both cfmodel and EMF). Each metamodel goes ``ecore import`` →
``check`` → ``ecore export`` and EMF's structural dumps are compared; each model is read
by cfmodel (against the original metamodel and against its re-export) and its dump
compared with EMF's (`tests/emf/corpusrun.py`). Output: a Markdown table, one row per
case; exit 1 when any case is neither equal nor refused by both.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lxml import etree  # type: ignore[import-untyped]  # noqa: E402 - after the path fix

from cfmodel.errors import CfModelError  # noqa: E402
from cfmodel.serializers.base import ECORE_NS, XMI_NS  # noqa: E402
from cfmodel.serializers.ecore import REFERENCE_FEATURES  # noqa: E402
from cfmodel.serializers.xmlsafe import parse_file  # noqa: E402
from tests.emf.corpusfetch import CorpusError  # noqa: E402
from tests.emf.corpusrun import Outcome, emf_reading, export, metamodel_round_trip, model_reading  # noqa: E402
from tests.emf.emf import EmfChecker, build_checker  # noqa: E402

EPACKAGE = f"{{{ECORE_NS}}}EPackage"


@dataclass(frozen=True)
class Row:
    kind: str  # "metamodel" or "model"
    name: str
    source: str
    main: Path
    metamodels: tuple[Path, ...]  # for a metamodel: the files read together, itself first


# ---------------------------------------------------------------------- finding cases


def _xml_files(folder: Path) -> Iterator[tuple[Path, etree._ElementTree]]:
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            yield path, parse_file(path)
        except CfModelError:
            continue  # not XML (or not safe XML): not a case


def _packages(root: etree._Element) -> list[etree._Element]:
    if root.tag == EPACKAGE:
        return [root]
    if root.tag == f"{{{XMI_NS}}}XMI":
        return [child for child in root if child.tag == EPACKAGE]
    return []


def _referenced_uris(tree: etree._ElementTree) -> set[str]:
    found = set()
    for element in tree.getroot().iter():
        if not isinstance(element.tag, str):
            continue
        tokens = [t for key in REFERENCE_FEATURES for t in (element.get(key) or "").split()]
        tokens += [element.get("href") or ""]
        for token in tokens:
            uri = token.partition("#")[0]
            if "://" in uri and uri != ECORE_NS:
                found.add(uri)
    return found


def _with_dependencies(
    first: Path, uses: dict[Path, set[str]], defined_in: dict[str, Path]
) -> tuple[Path, ...]:
    files, index = [first], 0
    while index < len(files):
        for uri in sorted(uses.get(files[index], ())):
            dependency = defined_in.get(uri)
            if dependency is not None and dependency not in files:
                files.append(dependency)
        index += 1
    return tuple(files)


def rows_of_folder(folder: Path) -> list[Row]:
    trees = list(_xml_files(folder))
    defined_in: dict[str, Path] = {}
    uses: dict[Path, set[str]] = {}
    models: list[tuple[Path, set[str]]] = []
    for path, tree in trees:
        packages = _packages(tree.getroot())
        if packages:
            for package in packages:
                for element in package.iter(EPACKAGE, "eSubpackages"):
                    if element.get("nsURI"):
                        defined_in.setdefault(element.get("nsURI"), path)
            uses[path] = _referenced_uris(tree)
        else:
            namespaces = {
                uri for element in tree.getroot().iter() for uri in getattr(element, "nsmap", {}).values()
            }
            models.append((path, namespaces))
    rows = [
        Row(
            "metamodel",
            str(path.relative_to(folder)),
            str(folder),
            path,
            _with_dependencies(path, uses, defined_in),
        )
        for path in sorted(uses)
    ]
    for path, namespaces in models:
        named = sorted({defined_in[uri] for uri in namespaces if uri in defined_in})
        if named:
            metamodels: list[Path] = []
            for first in named:
                metamodels.extend(
                    f for f in _with_dependencies(first, uses, defined_in) if f not in metamodels
                )
            rows.append(Row("model", str(path.relative_to(folder)), str(folder), path, tuple(metamodels)))
    return rows


def rows_of_registry(work: Path) -> list[Row]:
    """The cases of `tests/emf/realmetamodels.py`, laid out in *work*; each says the
    version of the package its file was taken from."""
    from tests.emf.realmetamodels import METAMODELS, MODELS, REFUSED_METAMODELS, REFUSED_MODELS, lay_out

    corpus = work / "corpus"
    versions = lay_out(corpus)
    rows = []
    for name, case in [*METAMODELS.items(), *((n, c) for n, (c, _) in REFUSED_METAMODELS.items())]:
        files = tuple(corpus / f for f in case.files)
        rows.append(Row("metamodel", name, case.source(versions), corpus / case.main, files))
    for name, case in [*MODELS.items(), *((n, c) for n, (c, _) in REFUSED_MODELS.items())]:
        files = tuple(corpus / f for f in case.files[1:])
        rows.append(Row("model", name, case.source(versions), corpus / case.main, files))
    return rows


# ---------------------------------------------------------------------- running


def run_rows(rows: list[Row], emf: EmfChecker, work: Path) -> list[tuple[Row, list[tuple[str, Outcome]]]]:
    results = []
    reexports: dict[tuple[Path, ...], tuple[list[Path], Outcome | None]] = {}
    for index, row in enumerate(rows):
        folder = work / f"case{index}"
        folder.mkdir()
        if row.kind == "metamodel":
            results.append((row, [("round trip", metamodel_round_trip(list(row.metamodels), emf, folder))]))
            continue
        report = emf_reading([row.main], list(row.metamodels), emf)
        outcomes = [("original", model_reading(row.main, list(row.metamodels), report))]
        if row.metamodels not in reexports:
            reexports[row.metamodels] = export(list(row.metamodels), folder, "corpus")
        written, failed = reexports[row.metamodels]
        outcomes.append(("re-export", failed or model_reading(row.main, written, report)))
        results.append((row, outcomes))
    return results


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:160]


def table(results: list[tuple[Row, list[tuple[str, Outcome]]]]) -> list[str]:
    out = [
        "| kind | case | source | size (bytes) | objects | EMF dump lines | result |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for row, outcomes in results:
        lines = max(o.lines for _, o in outcomes)
        objects = max(o.objects for _, o in outcomes)
        said = "; ".join(
            f"{what}: {o.result}" + (f" ({_cell(o.detail)})" if o.detail else "") for what, o in outcomes
        )
        size = row.main.stat().st_size
        numbers = f"{size:,} | {objects:,} | {lines:,}"
        out.append(f"| {row.kind} | {_cell(row.name)} | {_cell(row.source)} | {numbers} | {said} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, metavar="DIR", help="a corpus kept anywhere")
    parser.add_argument("--registry", action="store_true", help="the corpus the tests fetch from registries")
    args = parser.parse_args(argv)
    if not args.registry and not args.folders:
        parser.error("give --registry or at least one DIR")
    emf = build_checker()
    with tempfile.TemporaryDirectory(prefix="emf-corpus-") as temporary:
        work = Path(temporary)
        try:
            rows = rows_of_registry(work) if args.registry else []
        except CorpusError as exc:  # a download failed, or a registry serves other files
            print(f"emf_corpus: {exc}", file=sys.stderr)
            return 2
        for folder in args.folders:
            rows.extend(rows_of_folder(folder.resolve()))
        results = run_rows(rows, emf, work)
        print("\n".join(table(results)))
    failed = [row.name for row, outcomes in results if not all(o.ok for _, o in outcomes)]
    print(f"\n{len(results) - len(failed)} of {len(results)} cases equal or refused by both")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
