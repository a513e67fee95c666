"""SPARQL over a model's triples: rdflib's memory store, or Oxigraph for large models.

Input: triples (`cfmodel.serializers.rdf` terms), the prefixes to predeclare (one per
namespace of the model, plus ``rdf rdfs owl xsd sh cfm inst``) and a store choice:
``rdflib``, ``oxigraph`` (``pyoxigraph``, installed with the ``oxigraph`` extra) or
``auto`` (Oxigraph from `OXIGRAPH_FROM` triples on, when it is installed). Output: a
`TripleStore` answering queries with a `QueryResult`: the variables and rows of a
``SELECT``, the truth of an ``ASK``, the triples of a ``CONSTRUCT``/``DESCRIBE``; cells are
`Cell`\\ s (the term's kind, text and datatype), the same from both engines, with Python
values (`Cell.value`) and the renderings scripts take (SPARQL 1.1 CSV, TSV and JSON
results; an aligned table with prefixed names for people).

Errors: a query that does not parse or cannot run is a `CfSyntaxError` (``bad-sparql``) at
the query's line and column (in the ``@file.rq`` it came from, else ``<query>``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

from cfmodel import sparqlplan
from cfmodel.display import MAX_CELL, clip
from cfmodel.errors import CfSerializationError, CfSyntaxError, CfUsageError, Span
from cfmodel.serializers import rdf

STORES = ("auto", "rdflib", "oxigraph")
#: from this many triples on, ``auto`` queries with Oxigraph (when installed)
OXIGRAPH_FROM = 200_000
_INTEGERS = frozenset(
    rdf.XSD + t
    for t in (
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "negativeInteger",
        "nonPositiveInteger",
        "unsignedInt",
        "unsignedLong",
        "unsignedShort",
        "unsignedByte",
    )
)
_FLOATS = frozenset({rdf.XSD + "double", rdf.XSD + "float"})


class Cell(NamedTuple):
    """One value of a result: ``kind`` is ``uri``, ``bnode`` or ``literal``."""

    kind: str
    text: str
    datatype: str | None = None
    lang: str | None = None

    @property
    def value(self) -> Any:
        """As Python: IRIs and blank nodes as text, literals as int, float, Decimal, bool,
        datetime or str by their datatype."""
        if self.kind != "literal" or self.datatype is None:
            return self.text
        try:
            if self.datatype in _INTEGERS:
                return int(self.text)
            if self.datatype in _FLOATS:
                return float(self.text.replace("INF", "inf"))
            if self.datatype == rdf.XSD + "decimal":
                return Decimal(self.text)
            if self.datatype == rdf.XSD + "boolean":
                return self.text in ("true", "1")
            if self.datatype == rdf.XSD + "dateTime":
                return datetime.fromisoformat(self.text.replace("Z", "+00:00"))
        except ValueError:
            return self.text
        return self.text

    def ntriples(self) -> str:
        """The term in N-Triples (SPARQL TSV) syntax."""
        if self.kind == "uri":
            return f"<{self.text}>"
        if self.kind == "bnode":
            return f"_:{self.text}"
        text = self.text.translate(_ESCAPES)
        if self.lang:
            return f'"{text}"@{self.lang}'
        if self.datatype and self.datatype != rdf.XSD + "string":
            return f'"{text}"^^<{self.datatype}>'
        return f'"{text}"'


_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"})


@dataclass
class QueryResult:
    """A query's answer: ``variables`` and ``rows`` (``SELECT``; ``subject predicate object``
    for ``CONSTRUCT``/``DESCRIBE``) or ``boolean`` (``ASK``)."""

    variables: list[str]
    rows: list[tuple[Cell | None, ...]] = field(default_factory=list)
    boolean: bool | None = None
    prefixes: dict[str, str] = field(default_factory=dict)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        """Rows of Python values (`Cell.value`; None where a variable is unbound)."""
        for row in self.rows:
            yield tuple(None if c is None else c.value for c in row)

    def __len__(self) -> int:
        return len(self.rows)

    def values(self) -> list[tuple[Any, ...]]:
        return list(self)

    def csv(self) -> str:
        """SPARQL 1.1 Query Results CSV: a header, then each value's text."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        if self.boolean is not None:
            writer.writerow(["boolean"])
            writer.writerow(["true" if self.boolean else "false"])
            return out.getvalue()
        writer.writerow(self.variables)
        for row in self.rows:
            writer.writerow(
                ["" if c is None else (f"_:{c.text}" if c.kind == "bnode" else c.text) for c in row]
            )
        return out.getvalue()

    def tsv(self) -> str:
        """SPARQL 1.1 Query Results TSV: ``?var`` headers, terms in N-Triples syntax."""
        if self.boolean is not None:
            return f"?boolean\n{'true' if self.boolean else 'false'}\n"
        lines = ["\t".join(f"?{v}" for v in self.variables)]
        lines.extend("\t".join("" if c is None else c.ntriples() for c in row) for row in self.rows)
        return "\n".join(lines) + "\n"

    def json(self) -> str:
        """SPARQL 1.1 Query Results JSON."""
        if self.boolean is not None:
            return json.dumps({"head": {}, "boolean": self.boolean}, indent=1) + "\n"
        bindings = []
        for row in self.rows:
            binding: dict[str, Any] = {}
            for name, c in zip(self.variables, row, strict=True):
                if c is None:
                    continue
                item: dict[str, str] = {"type": c.kind, "value": c.text}
                if c.lang:
                    item["xml:lang"] = c.lang
                elif c.datatype and c.datatype != rdf.XSD + "string" and c.kind == "literal":
                    item["datatype"] = c.datatype
                binding[name] = item
            bindings.append(binding)
        doc = {"head": {"vars": self.variables}, "results": {"bindings": bindings}}
        return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"

    def table(self) -> str:
        """An aligned text table, IRIs written with the predeclared prefixes."""
        if self.boolean is not None:
            return ("yes" if self.boolean else "no") + "\n"
        cells = [[self.short(c) for c in row] for row in self.rows]
        widths = [max([len(v), *(len(r[i]) for r in cells)]) for i, v in enumerate(self.variables)]
        lines = ["  ".join(v.ljust(w) for v, w in zip(self.variables, widths, strict=True)).rstrip()]
        lines.append("  ".join("-" * w for w in widths))
        lines.extend("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells)
        lines.append(f"({len(self.rows)} row{'' if len(self.rows) == 1 else 's'})")
        return "\n".join(lines) + "\n"

    def short(self, c: Cell | None) -> str:
        if c is None:
            return ""
        if c.kind == "bnode":
            return f"_:{c.text}"
        if c.kind == "uri":
            best = max(
                ((p, ns) for p, ns in self.prefixes.items() if c.text.startswith(ns)),
                key=lambda item: len(item[1]),
                default=None,
            )
            return f"{best[0]}:{c.text[len(best[1]) :]}" if best else f"<{c.text}>"
        return " ".join(c.text.split("\n")) if "\n" in c.text else c.text

    def __repr__(self) -> str:  # bounded: a result may hold a million rows
        if self.boolean is not None:
            return f"<QueryResult: {'yes' if self.boolean else 'no'}>"
        rows = f"{len(self.rows):,} row{'' if len(self.rows) == 1 else 's'}"
        return clip(f"<QueryResult: {rows} of {', '.join(self.variables)}>", MAX_CELL)

    def _repr_html_(self) -> str:  # Jupyter: a bounded table
        from html import escape

        if self.boolean is not None:
            return f"<p>{'yes' if self.boolean else 'no'}</p>"
        head = "".join(f"<th>{escape(clip(v))}</th>" for v in self.variables)
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(clip(self.short(c)))}</td>" for c in row) + "</tr>"
            for row in self.rows[:200]
        )
        more = f"<p>… {len(self.rows) - 200} more rows</p>" if len(self.rows) > 200 else ""
        return f"<table><tr>{head}</tr>{body}</table>{more}"


def oxigraph_available() -> bool:
    try:
        import pyoxigraph  # noqa: F401
    except ImportError:
        return False
    return True


class TripleStore:
    """Triples loaded into one engine, with the prefixes every query may use."""

    def __init__(self, triples: Sequence[rdf.Triple], prefixes: dict[str, str], store: str = "auto") -> None:
        if store not in STORES:
            raise CfUsageError(f"unknown store {store!r}; known: {', '.join(STORES)}")
        if store == "auto":
            store = "oxigraph" if len(triples) >= OXIGRAPH_FROM and oxigraph_available() else "rdflib"
        if store == "oxigraph" and not oxigraph_available():
            raise CfUsageError("the oxigraph store needs pyoxigraph: pip install 'cfmodel[oxigraph]'")
        self.engine = store
        self.prefixes = dict(prefixes)
        self.size = len(triples)
        self._graph: Any = None
        self._store: Any = None
        self._planner: sparqlplan.Planner | None = None
        if store == "oxigraph":
            import pyoxigraph

            self._store = pyoxigraph.Store()
            self._store.bulk_load(input=rdf.ntriples(triples), format=pyoxigraph.RdfFormat.N_TRIPLES)
            self._analyze()
        else:
            self._graph = rdf.to_graph(triples, self.prefixes)

    @classmethod
    def of_model(cls, roots: Sequence[Any], options: rdf.RdfOptions, store: str = "auto") -> TripleStore:
        """The store of a model (what `rdf.document_triples` gives). Oxigraph (chosen, or by
        `auto` from `OXIGRAPH_FROM` triples on) is loaded from the streamed N-Triples, with
        no list of triples made.

        Raises:
            CfSerializationError: the model breaks its metamodel (`rdf.prepare`).
        """
        if store not in STORES:
            raise CfUsageError(f"unknown store {store!r}; known: {', '.join(STORES)}")
        doc = rdf.prepare(roots, options)
        if store == "rdflib" or not oxigraph_available():
            triples, prefixes = rdf.document_triples(roots, options, prepared=doc)
            return cls(triples, prefixes, store)
        buffer = io.BytesIO()
        count = rdf.write_ntriples(buffer, roots, options, prepared=doc)
        if store == "auto" and count < OXIGRAPH_FROM:
            triples, prefixes = rdf.document_triples(roots, options, prepared=doc)
            return cls(triples, prefixes, "rdflib")
        return cls.from_ntriples(buffer.getvalue(), doc.prefixes, "oxigraph")

    @classmethod
    def from_ntriples(cls, data: bytes, prefixes: dict[str, str], store: str = "rdflib") -> TripleStore:
        """A store loaded from an N-Triples document (``rdflib`` or ``oxigraph``: Oxigraph's
        bulk loader when it is installed, as for a large exported file).

        Raises:
            CfSerializationError: the document is not N-Triples.
        """
        made = cls([], prefixes, store)
        if made._store is not None:
            import pyoxigraph

            try:
                made._store.bulk_load(input=data, format=pyoxigraph.RdfFormat.N_TRIPLES)
            except (SyntaxError, ValueError, OSError) as exc:
                raise CfSerializationError(f"not valid N-Triples: {exc}", code="bad-rdf") from None
            made._analyze()
        else:
            made._graph = rdf.parse_graph(data, "nt")
            for prefix, uri in made.prefixes.items():
                made._graph.bind(prefix, uri, override=True, replace=True)
        made.size = len(made._graph) if made._graph is not None else len(made._store)
        return made

    def _analyze(self) -> None:
        """Oxigraph: count the triples per predicate once, for `sparqlplan` (the store is
        not changed after loading)."""
        per_predicate = {
            solution[0].value: int(solution[1].value)
            for solution in self._store.query("SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p")
        }
        self._planner = sparqlplan.Planner(
            sparqlplan.PlanStatistics(per_predicate), self._count, self.prefixes
        )

    def planned(self, text: str) -> str | None:
        """The query as Oxigraph will run it when `sparqlplan` rewrites it, else None (as
        written; always None on rdflib)."""
        return self._plan(text)

    def _plan(self, text: str) -> str | None:
        if self._planner is None:
            return None
        try:
            return self._planner.plan(text)
        except (SyntaxError, OSError, ValueError, TypeError, IndexError, StopIteration):
            return None  # a count the store refused: run the query as written

    def _count(self, text: str) -> int:
        return int(next(iter(self._store.query(text, prefixes=self.prefixes)))[0].value)

    def query(self, text: str, name: str = "<query>", plan: bool = True) -> QueryResult:
        """Run a SPARQL query (`name`: where its text came from, for errors).

        On Oxigraph, `sparqlplan` may rewrite the query to one with the same answers that
        starts where the store's counts say it is cheapest (``plan=False``: as written).

        Raises:
            CfSyntaxError: the query does not parse or cannot be run (``bad-sparql``).
        """
        try:
            if self._store is not None:
                return self._oxigraph(text, plan)
            return self._rdflib(text)
        except _QueryError as error:
            span = Span(name, error.line, error.col, error.line, error.col + 1)
            raise CfSyntaxError(f"SPARQL: {error.message}", span, code="bad-sparql") from None

    def _rdflib(self, text: str) -> QueryResult:
        try:
            answer = self._graph.query(text, initNs=self.prefixes)
            if answer.type == "ASK":
                return QueryResult([], boolean=bool(answer.askAnswer), prefixes=self.prefixes)
            if answer.type == "SELECT":
                names = [str(v) for v in answer.vars]
                rows = [tuple(_rdflib_cell(term) for term in row) for row in answer]
                return QueryResult(names, rows, prefixes=self.prefixes)
            triples = [tuple(_rdflib_cell(term) for term in triple) for triple in answer.graph]
        except Exception as exc:  # rdflib's parser raises pyparsing's and its own kinds
            raise _QueryError.of(exc, getattr(exc, "lineno", 1), getattr(exc, "col", 1)) from None
        return QueryResult(
            ["subject", "predicate", "object"], sorted(triples, key=_row_key), prefixes=self.prefixes
        )

    def _oxigraph(self, text: str, plan: bool) -> QueryResult:
        import pyoxigraph

        planned = self._plan(text) if plan else None
        try:
            answer = None
            if planned is not None:
                try:
                    answer = self._store.query(planned, prefixes=self.prefixes)
                except (SyntaxError, OSError, ValueError, TypeError):
                    answer = None  # run as written, for its own answer or error
            if answer is None:
                answer = self._store.query(text, prefixes=self.prefixes)
                planned = None
            if isinstance(answer, pyoxigraph.QueryBoolean):
                return QueryResult([], boolean=bool(answer), prefixes=self.prefixes)
            if isinstance(answer, pyoxigraph.QuerySolutions):
                # a planned query projects the same variables in the same order (Oxigraph
                # sorts those of SELECT *); making the written one to ask would run it if
                # it aggregates
                names = [v.value for v in answer.variables]
                rows = [tuple(_oxigraph_cell(solution[name]) for name in names) for solution in answer]
                return QueryResult(names, rows, prefixes=self.prefixes)
            triples = [
                (_oxigraph_cell(t.subject), _oxigraph_cell(t.predicate), _oxigraph_cell(t.object))
                for t in answer
            ]
        except (SyntaxError, OSError, ValueError, TypeError) as exc:
            raise _QueryError.of(exc, getattr(exc, "lineno", 1), getattr(exc, "offset", 1)) from None
        return QueryResult(
            ["subject", "predicate", "object"], sorted(triples, key=_row_key), prefixes=self.prefixes
        )


class _QueryError(Exception):
    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message, self.line, self.col = message, line, col

    @classmethod
    def of(cls, exc: Exception, line: Any, col: Any) -> _QueryError:
        text = str(exc).strip()
        message = text.splitlines()[0] if text else type(exc).__name__
        ok_line = line if isinstance(line, int) and line > 0 else 1
        ok_col = col if isinstance(col, int) and col > 0 else 1
        return cls(message, ok_line, ok_col)


def _row_key(row: tuple[Cell | None, ...]) -> tuple[str, ...]:
    return tuple("" if c is None else c.ntriples() for c in row)


def _rdflib_cell(term: Any) -> Cell | None:
    import rdflib

    if term is None:
        return None
    if isinstance(term, rdflib.URIRef):
        return Cell("uri", str(term))
    if isinstance(term, rdflib.BNode):
        return Cell("bnode", str(term))
    if isinstance(term, rdflib.Literal):
        datatype = str(term.datatype) if term.datatype is not None else None
        if datatype is None and term.language is None:
            datatype = rdf.XSD + "string"
        return Cell("literal", str(term), datatype, term.language)
    return Cell("literal", str(term))


def _oxigraph_cell(term: Any) -> Cell | None:
    import pyoxigraph

    if term is None:
        return None
    if isinstance(term, pyoxigraph.NamedNode):
        return Cell("uri", term.value)
    if isinstance(term, pyoxigraph.BlankNode):
        return Cell("bnode", term.value)
    if isinstance(term, pyoxigraph.Literal):
        if term.language:
            return Cell("literal", term.value, None, term.language)
        return Cell("literal", term.value, term.datatype.value)
    return Cell("literal", str(term))
