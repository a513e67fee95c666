"""Query planning for Oxigraph: the same answers, a better place to start.

Oxigraph (0.5) plans a basic graph pattern without statistics: it starts from a triple
pattern with a constant object (``?h compute:up true``, ``?h a compute:Host``) whatever
its size, and applies a ``FILTER`` on a variable's value after the joins. For the typical
query, "instances of a class with an attribute filter", that means looking up every
instance of the class, though the filter keeps a few. This module rewrites such a query
before Oxigraph sees it, into one with exactly SPARQL's answers:

* **Equality with a constant**: a ``FILTER`` conjunct ``?v = <iri>``, ``?v = "text"``
  (a plain string; not numbers, booleans or language strings, whose ``=`` compares values
  or tags, not terms) or ``sameTerm(?v, constant)`` adds ``VALUES ?v { constant }`` to the
  group (the ``FILTER`` stays), when ``?v`` is in one of the group's triple patterns (so it
  is always bound there). For those constants ``=`` holds for exactly one term, so the
  join with ``VALUES`` keeps exactly the solutions the filter keeps, and Oxigraph starts
  from the one value through its index.
* **The start**: otherwise, when a scan of one predicate with the filters on its object
  is proven cheaper than Oxigraph's start, the group becomes ``{ { scan FILTER(its
  filters) } LATERAL { the other triple patterns } FILTER(the other filters) }``
  (SEP-0006's ``LATERAL`` fixes the order; for triple patterns it joins as ``.`` does).
  Costs are rows read: a start's rows, and per row it gives one lookup per other pattern
  (`LOOKUP_COST` rows each). A scan reads the predicate's triples (`PlanStatistics`:
  counted once after loading) and gives the share of them that a sample of `SAMPLE`
  values passes; Oxigraph's start with a constant object is counted by Oxigraph with a
  ``LIMIT`` at the count that makes it dearer, so planning reads at most
  1/(1 + `LOOKUP_COST` * the other patterns) of the rows the plan it keeps will. A filter
  whose variables the scan binds is applied to the scan alone (the join cannot change
  their values; ``FILTER(a && b)`` is taken as ``FILTER(a) FILTER(b)``, which keeps the
  same solutions); the others stay on the whole group.

Only a query's main group is planned, and only when it is plain: a ``SELECT`` or ``ASK``
whose ``WHERE`` group holds triple patterns (variables, IRIs, prefixed names, literals;
predicates that are no paths) and ``FILTER``\\ s without ``EXISTS``, nothing else (no
nested group, ``OPTIONAL``, ``UNION``, ``BIND``, ``VALUES``, blank nodes, ``GRAPH``). Any
other query, and any text the tokenizer here does not recognise, is run as written.
A rewritten query projects the variables of the query as written, in the same order
(Oxigraph sorts those of ``SELECT *``, and the rewriting adds none);
`cfmodel.sparql.TripleStore` runs the query as written if the rewritten one fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
#: values of a predicate sampled to estimate the share a filter keeps
SAMPLE = 1000
#: a lookup of a bound subject costs this many rows of a scan (Oxigraph 0.5's memory
#: store, measured: ~1.2 µs against ~0.35 µs per row of a 1M-triple scan)
LOOKUP_COST = 3.5

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|\#[^\n\r]*)
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<string>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*'''
      |"(?:[^"\\\n\r]|\\.)*"|'(?:[^'\\\n\r]|\\.)*')
  | (?P<lang>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
  | (?P<var>[?$]\w+)
  | (?P<bnode>_:)
  | (?P<number>\d*\.\d+(?:[eE][+-]?\d+)?|\d+\.\d*[eE][+-]?\d+|\d+(?:[eE][+-]?\d+)?)
  | (?P<pname>(?:[A-Za-z][\w\-]*(?:\.[\w\-]+)*)?:(?:[\w:%\-]+(?:\.[\w:%\-]+)*)?)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<punct>\^\^|&&|\|\||!=|<=|>=|[{}()\[\].;,*=<>!+\-/^|])
    """,
    re.VERBOSE,
)
_STRUCTURE = frozenset(
    {"OPTIONAL", "UNION", "MINUS", "BIND", "VALUES", "GRAPH", "SERVICE", "EXISTS", "NOT", "LATERAL"}
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    end: int


class NotPlannedError(Exception):
    """The query is not one this planner rewrites; it runs as written."""


def tokenize(text: str) -> list[Token]:
    """The query's tokens (without spaces and comments).

    Raises:
        NotPlannedError: a character no token of this tokenizer starts with, or an IRI token
            that could be comparison operators (``<?x`` …).
    """
    tokens = []
    at = 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise NotPlannedError(f"unrecognised text at {at}")
        kind = match.lastgroup or ""
        if kind != "space":
            token = Token(kind, match.group(), at, match.end())
            if kind == "iri" and (
                token.text[1:2] in ("?", "$", "=") or "&&" in token.text or "||" in token.text
            ):
                raise NotPlannedError("an IRI that may be operators")
            tokens.append(token)
        at = match.end()
    return tokens


@dataclass(frozen=True)
class Term:
    kind: str  # var, iri, pname, a, literal
    text: str  # as written (a literal with its language tag or datatype)
    plain_string: bool = False  # a literal whose `=` is term equality: a string without tag or datatype


@dataclass(frozen=True)
class Pattern:
    subject: Term
    predicate: Term
    object: Term

    @property
    def text(self) -> str:
        return f"{self.subject.text} {self.predicate.text} {self.object.text} ."

    def variables(self) -> set[str]:
        return {t.text[1:] for t in (self.subject, self.predicate, self.object) if t.kind == "var"}


@dataclass(frozen=True)
class Filter:
    text: str  # ``FILTER …`` as written
    variables: frozenset[str]
    equalities: tuple[tuple[str, Term], ...]  # (variable, constant) conjuncts that fix a term


@dataclass
class Group:
    """A query whose main group is plain: the text before and after the group, its triple
    patterns and filters."""

    head: str
    tail: str
    prologue: str
    prefixes: dict[str, str]
    patterns: list[Pattern] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)

    def text(self, body: str) -> str:
        return f"{self.head}{{ {body} }}{self.tail}"


def parse(text: str) -> Group:
    """The plain main group of a ``SELECT`` or ``ASK`` query.

    Raises:
        NotPlannedError: anything else.
    """
    tokens = tokenize(text)
    prefixes: dict[str, str] = {}
    at = 0
    while at < len(tokens) and tokens[at].text.upper() in ("PREFIX", "BASE"):
        if tokens[at].text.upper() == "BASE":
            at += 2
            continue
        if at + 2 >= len(tokens) or tokens[at + 1].kind != "pname" or tokens[at + 2].kind != "iri":
            raise NotPlannedError("a PREFIX declaration this planner does not read")
        prefixes[tokens[at + 1].text[:-1]] = tokens[at + 2].text[1:-1]
        at += 3
    if at >= len(tokens) or tokens[at].text.upper() not in ("SELECT", "ASK"):
        raise NotPlannedError("not a SELECT or ASK query")
    prologue = text[: tokens[at].start]
    opening = next((i for i in range(at, len(tokens)) if tokens[i].text == "{"), None)
    if opening is None:
        raise NotPlannedError("no group")
    closing = next((i for i in range(opening + 1, len(tokens)) if tokens[i].text in ("{", "}")), None)
    if closing is None or tokens[closing].text != "}":
        raise NotPlannedError("a nested group")
    group = Group(text[: tokens[opening].start], text[tokens[closing].end :], prologue, prefixes)
    _read_group(tokens[opening + 1 : closing], text, group)
    return group


def _read_group(tokens: list[Token], text: str, group: Group) -> None:
    at = 0
    while at < len(tokens):
        token = tokens[at]
        if token.text == ".":
            at += 1
        elif token.kind == "name" and token.text.upper() == "FILTER":
            at = _read_filter(tokens, at, text, group)
        else:
            at = _read_triples(tokens, at, group)


def _read_filter(tokens: list[Token], at: int, text: str, group: Group) -> int:
    first = at + 1
    if first < len(tokens) and tokens[first].kind in ("name", "pname"):
        first += 1  # FILTER regex(...), FILTER sameTerm(...): a call without brackets around it
    if first >= len(tokens) or tokens[first].text != "(":
        raise NotPlannedError("a FILTER this planner does not read")
    depth, end = 0, first
    while end < len(tokens):
        depth += {"(": 1, ")": -1}.get(tokens[end].text, 0)
        if depth == 0:
            break
        end += 1
    if end >= len(tokens):
        raise NotPlannedError("unbalanced brackets")
    inner = tokens[at + 1 : end + 1]
    if any(t.kind == "name" and t.text.upper() in _STRUCTURE for t in inner) or any(
        t.text in ("{", "}") for t in inner
    ):
        raise NotPlannedError("EXISTS in a FILTER")
    if first != at + 1:  # a call: one filter as written
        variables = frozenset(t.text[1:] for t in inner if t.kind == "var")
        group.filters.append(Filter(text[tokens[at].start : tokens[end].end], variables, _equalities(inner)))
        return end + 1
    # FILTER(a && b) keeps what FILTER(a) FILTER(b) keeps (&& is true only when both are)
    for conjunct in _conjuncts(inner[1:-1]):
        if not conjunct:
            raise NotPlannedError("an empty operand")
        variables = frozenset(t.text[1:] for t in conjunct if t.kind == "var")
        written = f"FILTER({text[conjunct[0].start : conjunct[-1].end]})"
        group.filters.append(Filter(written, variables, _equalities(conjunct)))
    return end + 1


def _equalities(expression: list[Token]) -> tuple[tuple[str, Term], ...]:
    """The conjuncts ``?v = constant``/``sameTerm(?v, constant)`` of a filter's expression
    that hold for one term only."""
    found = []
    for conjunct in _conjuncts(expression):
        while len(conjunct) >= 2 and conjunct[0].text == "(" and _closes_at(conjunct, 0) == len(conjunct) - 1:
            conjunct = conjunct[1:-1]
        if len(_split(conjunct, "||")) > 1 or len(_split(conjunct, "&&")) > 1:
            continue  # ((a && b)): not split further here
        same_term = (
            len(conjunct) >= 6
            and conjunct[0].kind == "name"
            and conjunct[0].text.lower() == "sameterm"
            and conjunct[1].text == "("
            and conjunct[-1].text == ")"
        )
        if same_term:
            parts = _split(conjunct[2:-1], ",")
            if len(parts) == 2:
                found.extend(_variable_and_constant(parts[0], parts[1], any_constant=True))
            continue
        parts = _split(conjunct, "=")
        if len(parts) == 2:
            found.extend(_variable_and_constant(parts[0], parts[1], any_constant=False))
    return tuple(found)


def _variable_and_constant(
    left: list[Token], right: list[Token], any_constant: bool
) -> list[tuple[str, Term]]:
    for var, const in ((left, right), (right, left)):
        if len(var) == 1 and var[0].kind == "var":
            term, end = _term(const, 0)
            if end != len(const) or term is None or term.kind == "var":
                return []
            if (
                term.kind in ("iri", "pname")
                or term.plain_string
                or (any_constant and term.kind == "literal")
            ):
                return [(var[0].text[1:], term)]
            return []
    return []


def _conjuncts(expression: list[Token]) -> list[list[Token]]:
    """The operands of an expression's outermost ``&&``: the expression itself when an
    ``||`` stands outside brackets (``a || b && c`` is ``a || (b && c)``)."""
    if len(_split(expression, "||")) > 1:
        return [expression]
    return _split(expression, "&&")


def _split(tokens: list[Token], separator: str) -> list[list[Token]]:
    parts: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        depth += {"(": 1, ")": -1}.get(token.text, 0)
        if depth == 0 and token.text == separator:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _closes_at(tokens: list[Token], at: int) -> int:
    depth = 0
    for i in range(at, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[i].text, 0)
        if depth == 0:
            return i
    return -1


def _term(tokens: list[Token], at: int) -> tuple[Term | None, int]:
    """The RDF term (or variable) at ``at`` and where it ends; None if there is none."""
    if at >= len(tokens):
        return None, at
    token = tokens[at]
    if token.kind in ("var", "iri", "pname"):
        return Term(token.kind, token.text), at + 1
    if token.kind == "number" or (token.kind == "name" and token.text in ("true", "false")):
        return Term("literal", token.text), at + 1
    if token.kind != "string":
        return None, at
    end = at + 1
    if end < len(tokens) and tokens[end].kind == "lang":
        return Term("literal", token.text + tokens[end].text), end + 1
    if end + 1 < len(tokens) and tokens[end].text == "^^" and tokens[end + 1].kind in ("iri", "pname"):
        datatype = tokens[end + 1]
        plain = datatype.text == f"<{XSD_STRING}>"  # a prefixed name: its prefix may be anything
        return Term("literal", f"{token.text}^^{datatype.text}", plain), end + 2
    return Term("literal", token.text, True), end


def _read_triples(tokens: list[Token], at: int, group: Group) -> int:
    subject, at = _term(tokens, at)
    if subject is None or subject.kind == "literal":
        raise NotPlannedError("a subject this planner does not read")
    while True:
        token = tokens[at] if at < len(tokens) else None
        if token is None:
            raise NotPlannedError("a triple without predicate")
        if token.kind == "name" and token.text == "a":
            predicate: Term | None = Term("a", "a")
            at += 1
        else:
            predicate, at = _term(tokens, at)
        if predicate is None or predicate.kind == "literal":
            raise NotPlannedError("a predicate this planner does not read (a path?)")
        while True:
            obj, at = _term(tokens, at)
            if obj is None:
                raise NotPlannedError("an object this planner does not read")
            group.patterns.append(Pattern(subject, predicate, obj))
            if at < len(tokens) and tokens[at].text == ",":
                at += 1
                continue
            break
        while at < len(tokens) and tokens[at].text == ";":
            at += 1
        if (
            at >= len(tokens)
            or tokens[at].text == "."
            or (tokens[at].kind == "name" and tokens[at].text.upper() == "FILTER")
        ):
            return at
        if tokens[at - 1].text != ";":
            raise NotPlannedError("text after a triple this planner does not read")


@dataclass
class PlanStatistics:
    """The store's triples per predicate IRI (counted once, after loading)."""

    per_predicate: dict[str, int]


#: runs a query that answers one integer (a count)
CountQuery = Callable[[str], int]


class Planner:
    """Rewrites queries for one loaded store (`count` runs a counting query on it); the
    counts it makes are kept, the store does not change."""

    def __init__(self, statistics: PlanStatistics, count: CountQuery, prefixes: dict[str, str]) -> None:
        self.statistics = statistics
        self._count = count
        self._prefixes = prefixes
        self._counts: dict[str, int] = {}  # counting query → its answer
        self._most: dict[
            str, tuple[int, int]
        ] = {}  # pattern → (matches counted, the cap they were counted to)

    def plan(self, text: str) -> str | None:
        """The query rewritten, or None when it runs best (or only) as written."""
        try:
            group = parse(text)
        except NotPlannedError:
            return None
        values = _values_for_equalities(group)
        if values:
            body = " ".join([*values, *(p.text for p in group.patterns), *(f.text for f in group.filters)])
            return group.text(body)
        if len(group.patterns) < 2:
            return None
        return self._reorder(group)

    def _reorder(self, group: Group) -> str | None:
        """Start from a scan of a predicate when it is proven cheaper than Oxigraph's start.

        Costs are in rows of a scan: a start's rows, and for each row it gives, a lookup
        (`LOOKUP_COST`) per other pattern. A scan's rows are the predicate's triples; what it
        gives, those times the sampled share its filters keep. Oxigraph's start, when it has
        a constant object, is counted only up to the count that would make it dearer than
        the cheapest scan, so planning reads at most an eighth of what the query will.
        """
        patterns = group.patterns
        if any(p.subject.kind != "var" or p.predicate.kind == "var" for p in patterns):
            return None  # Oxigraph starts from a known subject itself; no statistics for a variable predicate
        prefixes = {**self._prefixes, **group.prefixes}
        per_row = 1 + LOOKUP_COST * (len(patterns) - 1)
        scans: dict[int, float] = {}
        for i, p in enumerate(patterns):
            if p.object.kind != "var":
                continue
            n = self.statistics.per_predicate.get(self._iri(p.predicate, prefixes) or "")
            if n is None:
                return None  # an IRI this planner cannot resolve
            own = [f for f in group.filters if f.variables and f.variables <= {p.object.text[1:]}]
            share = self._share(group, p, own) if own and n else 1.0
            scans[i] = n * (1 + LOOKUP_COST * (len(patterns) - 1) * share)
        if not scans:
            return None
        pick = min(scans, key=lambda i: (scans[i], i))
        oxigraph_pick = _oxigraph_start(patterns)
        if pick == oxigraph_pick:
            return None
        if oxigraph_pick in scans:
            if scans[oxigraph_pick] <= scans[pick]:
                return None
        else:
            cap = int(scans[pick] / per_row) + 1
            if self._matches(group, patterns[oxigraph_pick], cap) < cap:
                return None  # Oxigraph's start is no dearer
        start = patterns[pick]
        mine = [f for f in group.filters if f.variables and f.variables <= start.variables()]
        others = [f for f in group.filters if f not in mine]
        left = " ".join([start.text, *(f.text for f in mine)])
        right = " ".join(p.text for j, p in enumerate(patterns) if j != pick)
        body = " ".join([f"{{ {left} }} LATERAL {{ {right} }}", *(f.text for f in others)])
        return group.text(body)

    def _iri(self, term: Term, prefixes: dict[str, str]) -> str | None:
        if term.kind == "a":
            return RDF_TYPE
        if term.kind == "iri":
            return term.text[1:-1]
        prefix, _, local = term.text.partition(":")
        namespace = prefixes.get(prefix)
        return namespace + local if namespace is not None and "\\" not in local else None

    def _share(self, group: Group, pattern: Pattern, filters: list[Filter]) -> float:
        """The share of a sample of the predicate's values that pass the filters."""
        var = pattern.object.text
        sample = (
            f"{{ SELECT {var} WHERE {{ ?cfmodel_plan_s {pattern.predicate.text} {var} }} LIMIT {SAMPLE} }}"
        )
        size = self._counted(f"{group.prologue}SELECT (COUNT(*) AS ?n) WHERE {{ {sample} }}")
        if size == 0:
            return 1.0
        kept_by = " ".join(f.text for f in filters)
        kept = self._counted(f"{group.prologue}SELECT (COUNT(*) AS ?n) WHERE {{ {sample} {kept_by} }}")
        return kept / size

    def _matches(self, group: Group, pattern: Pattern, cap: int) -> int:
        """How many triples match the pattern, counted up to ``cap``."""
        key = group.prologue + pattern.text
        known = self._most.get(key)
        if known is not None and (known[0] < known[1] or known[1] >= cap):
            return min(known[0], cap)
        matches = f"{{ SELECT * WHERE {{ {pattern.text} }} LIMIT {cap} }}"
        query = f"{group.prologue}SELECT (COUNT(*) AS ?n) WHERE {{ {matches} }}"
        n = self._count(query)
        self._most[key] = (n, cap)
        return n

    def _counted(self, query: str) -> int:
        known = self._counts.get(query)
        if known is None:
            known = self._counts[query] = self._count(query)
        return known


def _oxigraph_start(patterns: list[Pattern]) -> int:
    """The pattern Oxigraph 0.5 starts from: the first of the smallest by its estimate (a
    constant object makes 1,000, one more for ``rdf:type``; a variable object 1,000,000)."""

    def estimate(p: Pattern) -> int:
        size = 1000 if p.object.kind != "var" else 1_000_000
        return size + (1 if p.predicate.kind == "a" or p.predicate.text == f"<{RDF_TYPE}>" else 0)

    sizes = [estimate(p) for p in patterns]
    return sizes.index(min(sizes))


def _values_for_equalities(group: Group) -> list[str]:
    bound = set().union(*(p.variables() for p in group.patterns)) if group.patterns else set()
    values = []
    for f in group.filters:
        for var, constant in f.equalities:
            if var in bound:
                values.append(f"VALUES ?{var} {{ {constant.text} }}")
    return values
