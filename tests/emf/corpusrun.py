"""One real metamodel or model through cfmodel and the real EMF, with the outcome said in
a word: what the corpus tests assert and what ``scripts/emf_corpus.py`` tabulates for a
corpus kept anywhere.

* A metamodel: ``ecore import`` → ``cfmodel check`` → ``cfmodel ecore export``; EMF's
  structural dump (``EmfChecker --structure``) of the export against that of the
  original, line for line. ``equal`` when they are the same; ``refused by both`` when
  EMF reports a load error and the importer a located error at the same line.
* A model: cfmodel's XMI reader against the original metamodel and against its re-export
  (import + export), each reading's canonical dump against EMF's dump of the model read
  with the original metamodel. ``equal``, or ``refused by both`` (a located error at
  the line of EMF's load error).

Every other outcome names what went wrong (``differs`` with the first differing lines,
``cfmodel refuses`` with the error, ``EMF refuses`` with EMF's error, ``check fails``,
``export fails``).
"""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass
from pathlib import Path

from pyecore.resources import ResourceSet

from cfmodel.errors import CfModelError
from cfmodel.serializers import canonical, xmi
from cfmodel.transforms.cf.ecore_import import import_ecore, read_ecore_files
from tests.conftest import run_cfmodel
from tests.emf.emf import EmfChecker, EmfReport

EQUAL = "equal"
REFUSED_BY_BOTH = "refused by both"


@dataclass(frozen=True)
class Outcome:
    """What happened to one case: the result in a word, its detail, EMF's dump lines and
    the objects in them."""

    result: str
    detail: str = ""
    lines: int = 0
    seconds: float = 0.0
    objects: int = 0

    @property
    def ok(self) -> bool:
        return self.result in (EQUAL, REFUSED_BY_BOTH)


def _difference(expected: list[str], actual: list[str]) -> str:
    diff = difflib.unified_diff(
        expected, actual, "EMF's reading of the original", "cfmodel", n=1, lineterm=""
    )
    return "\n".join(list(diff)[:60])


def _objects(dump: list[str]) -> int:
    """The objects of one of EMF's dumps (each starts a line; its features are indented)."""
    return sum(1 for line in dump if not line.startswith(" "))


def _load_error_line(report: EmfReport, file_name: str | None = None) -> tuple[int, str] | None:
    """The line of EMF's first load error (in *file_name*, when given), and its message."""
    errors = [e for e in report.of_kind("error") if file_name is None or e["file"] == file_name]
    if not errors:
        return None
    message = str(errors[0]["message"])
    where = message.rpartition(" at ")[2].split(":")[0]
    return (int(where) if where.isdigit() else 0), message


def _refusals(emf_error: tuple[int, str], error: CfModelError, source: Path) -> Outcome:
    span = error.span
    if span is not None and Path(span.file).resolve() == source.resolve() and span.line == emf_error[0]:
        return Outcome(REFUSED_BY_BOTH, error.message)
    return Outcome("refused elsewhere", f"EMF: {emf_error[1]}\ncfmodel: {error.render()}")


def export(sources: list[Path], work: Path, name: str) -> tuple[list[Path], Outcome | None]:
    """``ecore import`` of *sources* into *work* and ``ecore export`` of the project: the
    written ``.ecore`` files, or the outcome that stopped it."""
    project, out = work / "project", work / "out"
    try:
        import_ecore(sources, project, name=name)
    except CfModelError as error:
        return [], Outcome("cfmodel refuses", error.render())
    checked = run_cfmodel("check", str(project), cwd=work, cache=work / ".cache")
    if checked.returncode != 0:
        return [], Outcome("check fails", checked.stderr.strip())
    exported = run_cfmodel("ecore", "export", str(project), "-o", str(out), cwd=work, cache=work / ".cache")
    if exported.returncode != 0:
        return [], Outcome("export fails", exported.stderr.strip())
    return sorted(out.glob("*.ecore")), None


def metamodel_round_trip(sources: list[Path], emf: EmfChecker, work: Path, name: str = "corpus") -> Outcome:
    """The round trip of *sources* (read together; the first is the case's), as EMF sees it."""
    start = time.perf_counter()
    originals = emf.check(ecores=sources, structure=True)
    emf_error = _load_error_line(originals)
    if emf_error is not None:
        try:
            import_ecore(sources, work / "project", name=name)
        except CfModelError as error:
            return _refusals(emf_error, error, sources[0])
        return Outcome("EMF refuses", emf_error[1])
    if not originals.clean:
        return Outcome("EMF problems", "\n".join(originals.problems()[:10]))
    written, failed = export(sources, work, name)
    if failed is not None:
        return failed
    report = emf.check(ecores=written, structure=True)
    if not report.clean:
        return Outcome("EMF problems in the export", "\n".join(report.problems()[:10]))
    by_uri = {}
    for path in written:
        lines = report.structure(path.name)
        by_uri[lines[0].partition("#")[0]] = lines
    total = objects = 0
    for source in sources:
        expected = originals.structure(source.name)
        actual = by_uri.get(expected[0].partition("#")[0], [])
        total += len(expected)
        objects += _objects(expected)
        if actual != expected:
            return Outcome("differs", _difference(expected, actual), total, objects=objects)
    return Outcome(EQUAL, "", total, time.perf_counter() - start, objects)


def emf_reading(models: list[Path], metamodels: list[Path], emf: EmfChecker) -> EmfReport:
    """EMF's reading of *models* with *metamodels*, in one run (dumps included)."""
    return emf.check(ecores=metamodels, xmis=models)


def model_reading(model: Path, metamodels: list[Path], emf_report: EmfReport) -> Outcome:
    """cfmodel's reading of *model* with *metamodels*, against EMF's (*emf_report*, the
    reading of the model with the original metamodels)."""
    start = time.perf_counter()
    rset = ResourceSet()
    emf_error = _load_error_line(emf_report, model.name)
    try:
        read_ecore_files(metamodels, rset)
        doc = xmi.read(model, rset)
    except CfModelError as error:
        if emf_error is not None:
            return _refusals(emf_error, error, model)
        return Outcome("cfmodel refuses", error.render())
    if emf_error is not None:
        return Outcome("EMF refuses", emf_error[1])
    problems = [p for p in emf_report.problems() if f" in {model.name}:" in p]
    if problems:
        return Outcome("EMF problems", "\n".join(problems[:10]))
    expected = emf_report.dump(model.name)
    actual = canonical.dump_objects(doc.roots, doc.ids)
    if actual != expected:
        return Outcome("differs", _difference(expected, actual), len(expected), objects=_objects(expected))
    return Outcome(EQUAL, "", len(expected), time.perf_counter() - start, _objects(expected))
