"""Environments: run the environments file, list every environment, select one (ARM-8).

Input: the project directory (``confdir``), the request's facts, the environment the caller
asked for (``$agent_environment``) and what a classifier proposed (``Proposal``).
Output: ``Evaluation``: the ``Catalog`` of every environment known now (static, dynamic and
the automatic ``production``) with resolved paths, the value of ``$environment`` and where it
came from (``Origin``), plus warnings and notices of the file. ``select_environment`` turns
it into the one ``Environment`` the request is for.

The rules (seeds/004 "Request Sequence" and "The following rules apply"; docs/environments.md):

* The file is ``<confdir>/environments.cfenv``; it is read and run again on every call.
* Facts are top-scope variables (``$::fqdn`` = ``$fqdn``), read-only; a fact named
  ``environment`` is not trusted: it becomes ``$agent_environment`` (unless the caller gave
  one), never ``$environment``. ``$confdir`` is the project directory (absolute).
* A classifier's proposal lives in a scope between the facts and the file: its variables,
  ``$classes`` and ``$environment``. The file's own variables live in a local scope that is
  dropped afterwards: only ``$environment`` leaves the file. A variable is assigned once.
* ``$environment`` is the file's value, else the classifier's, else ``production``. No file
  behaves as an empty file.
* ``production`` is defined automatically (``envdir`` = ``$confdir``) unless declared or
  available as a dynamic environment.
* Static environments need an ``envdir`` (their own or ``Environment``'s); a dynamic one's
  ``envdir`` is its directory, and setting it is an error. Relative paths: ``envdir`` and the
  dynamic directory against ``$confdir``; ``modulepath``, ``maindir``, ``bindingsdir``,
  ``templatedir`` against ``envdir``; ``main`` against ``maindir``. Absolute paths stay.

Errors (all of one run together, sorted; codes): ``syntax``, ``bad-regex``,
``assign-top-scope``, ``load`` (from the parser); ``expression-error``, ``assign-read-only``,
``reassigned``, ``unknown-statement``, ``fail`` (``fail()`` was called), ``bad-environment``
(``$environment`` is not a String), ``bad-title``, ``unknown-parameter``,
``duplicate-parameter``, ``bad-parameter``, ``defaults-twice``, ``duplicate-environment``,
``dynamic-twice``, ``envdir-in-dynamic``, ``missing-envdir``, ``envdir-not-found``,
``dynamic-dir-not-found``, ``bad-project``; from ``select_environment``:
``unknown-environment``.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
from collections import ChainMap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from cfmodel.errors import CfCompileError, CfLoadError, Diagnostic, Diagnostics, Note, Severity, Span
from cfmodel.grammars.environments import ParsedEnvironments, parse_file
from cfmodel.inputs import load_yaml, read_text, yaml_error_span, yaml_problem
from cfmodel.metamodel.bindings import ModelObject, SpanTable
from cfmodel.transforms.bindings.compose import ExpressionError, Value, describe, evaluate, show

ENVIRONMENTS_FILE = "environments.cfenv"
DEFAULT_ENVIRONMENT = "production"
MAIN_FILE = "main.cf"
PARAMETERS = ("envdir", "modulepath", "maindir", "main", "bindingsdir", "templatedir")
#: The seed's parameter names, for a helpful message.
_SEED_NAMES = {"manifest": "main", "manifestdir": "maindir"}
_READ_ONLY = ("agent_environment", "confdir")
_STATEMENT_FUNCTIONS = ("fail", "notice", "warning")
_PROJECT_FILES = ("project.yml", "project.yaml")


class EnvironmentKind(enum.Enum):
    STATIC = "static"  # declared with environment { 'name': ... }
    DYNAMIC = "dynamic"  # a sub-directory of the dynamic_environments directory
    AUTOMATIC = "automatic"  # production, when neither declared nor dynamic


class SourceKind(enum.Enum):
    DEFAULT = "default"  # nobody set $environment: production
    FILE = "file"  # the environments file assigned it
    CLASSIFIER = "classifier"  # the classifier proposed it and the file kept it


@dataclass(frozen=True, slots=True)
class Proposal:
    """What a classifier (an ENC) contributes to the file's evaluation."""

    classifier: str
    environment: str | None = None
    variables: Mapping[str, Value] = field(default_factory=dict)
    classes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Environment:
    """One environment with every path resolved (absolute)."""

    name: str
    kind: EnvironmentKind
    envdir: Path
    module_path: tuple[Path, ...]
    maindir: Path
    main: Path
    bindings_dir: Path
    template_dir: Path
    span: Span | None = None  # the declaration (static), the dynamic directory's title
    declaration: ModelObject | None = None
    main_span: Span | None = None  # where `main` was set, if it was

    @property
    def origin(self) -> str:
        if self.kind is EnvironmentKind.STATIC:
            return f"declared at {self.span.start()}" if self.span else "declared"
        if self.kind is EnvironmentKind.DYNAMIC:
            return f"a sub-directory of {self.envdir.parent}"
        return "defined automatically (not declared, not dynamic)"


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every environment known now, in listing order: static, automatic, dynamic (by name)."""

    confdir: Path
    file: Path
    parsed: ParsedEnvironments | None
    environments: Mapping[str, Environment]
    dynamic_dir: Path | None = None
    shadowed: tuple[str, ...] = ()  # dynamic directories hidden by a static declaration

    @property
    def has_file(self) -> bool:
        return self.parsed is not None

    def names(self) -> list[str]:
        return list(self.environments)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where the value of ``$environment`` came from."""

    kind: SourceKind
    span: Span | None = None
    detail: str = ""  # e.g. "the value of $agent_environment (--environment)"
    classifier: str = ""


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The outcome of running the environments file for one request."""

    catalog: Catalog
    environment: str
    origin: Origin
    diagnostics: tuple[Diagnostic, ...] = ()  # warnings and notices (warning(), notice())


@dataclass(frozen=True, slots=True)
class Selection:
    environment: Environment
    origin: Origin


# ============================================================================================
# Entry points
# ============================================================================================


def evaluate_environments(
    confdir: str | Path,
    facts: Mapping[str, Value],
    agent_environment: str | None = None,
    proposal: Proposal | None = None,
    file: str | Path | None = None,
    agent_source: str = "--environment",
) -> Evaluation:
    """Read and run the environments file; build the catalog.

    Args:
        confdir: the project directory.
        facts: the request's facts (a fact ``environment`` is taken as ``$agent_environment``).
        agent_environment: the environment the caller asked for, if any.
        proposal: what a classifier proposed, if one ran.
        file: another environments file (default ``<confdir>/environments.cfenv``).
        agent_source: how the caller asked, for messages (``--environment``).

    Raises:
        CfSyntaxError, CfLoadError: the file does not parse or cannot be read.
        CfCompileError: every other problem of the file, together.
    """
    root = Path(os.path.abspath(confdir))
    path = Path(file) if file is not None else Path(confdir) / ENVIRONMENTS_FILE
    parsed = parse_file(path) if _exists(path) else None
    run = _Run(root, path, parsed, facts, agent_environment, proposal, agent_source)
    return run.evaluation()


def select_environment(evaluation: Evaluation) -> Selection:
    """The environment ``$environment`` names.

    Raises:
        CfCompileError: ``unknown-environment``, naming where the name came from.
    """
    name, origin, catalog = evaluation.environment, evaluation.origin, evaluation.catalog
    found = catalog.environments.get(name)
    if found is not None:
        return Selection(found, origin)
    known = ", ".join(sorted(catalog.names()))
    message = f"unknown environment '{name}' ({describe_origin(origin, catalog)}; known: {known})"
    raise CfCompileError([Diagnostic(origin.span, message, "unknown-environment")])


def describe_origin(origin: Origin, catalog: Catalog) -> str:
    """Where ``$environment`` came from, as words."""
    if origin.kind is SourceKind.FILE:
        return "$environment is set here" + (f" to {origin.detail}" if origin.detail else "")
    if origin.kind is SourceKind.CLASSIFIER:
        kept = f"kept by {catalog.file.name}" if catalog.has_file else f"there is no {catalog.file.name}"
        return f"proposed by the classifier '{origin.classifier}'; {kept}"
    return "the default"


# ============================================================================================
# Running the file
# ============================================================================================


class _FailCalledError(Exception):
    """``fail()`` was called: stop running the file."""


@dataclass(slots=True)
class _Params:
    """Evaluated parameters of one declaration: name -> (value, span)."""

    values: dict[str, tuple[Value, Span | None]] = field(default_factory=dict)

    def get(self, name: str) -> tuple[Value, Span | None] | None:
        return self.values.get(name)


@dataclass(slots=True)
class _Declared:
    name: str
    params: _Params
    span: Span | None
    obj: ModelObject


class _Run:
    """One evaluation of the file: scopes, statements, declarations, then the catalog."""

    def __init__(
        self,
        confdir: Path,
        path: Path,
        parsed: ParsedEnvironments | None,
        facts: Mapping[str, Value],
        agent_environment: str | None,
        proposal: Proposal | None,
        agent_source: str,
    ) -> None:
        self.confdir = confdir
        self.path = path
        self.parsed = parsed
        self.spans = parsed.spans if parsed is not None else SpanTable()
        self.diags = Diagnostics()
        top = {k: v for k, v in facts.items() if k != "environment"}
        if agent_environment is None and isinstance(facts.get("environment"), str):
            agent_environment, agent_source = facts["environment"], "the fact 'environment'"
        top["agent_environment"] = agent_environment
        top["confdir"] = str(confdir)
        self.facts = frozenset(facts) - {"environment"}
        self.agent_source = agent_source
        enc: dict[str, Value] = {}
        if proposal is not None:
            enc.update(proposal.variables)
            enc["classes"] = list(proposal.classes)
            enc["environment"] = proposal.environment
        self.proposal = proposal
        self.local: dict[str, Value] = {}
        self.assigned: dict[str, tuple[Span | None, str]] = {}  # variable -> (span, detail)
        self.scope: ChainMap[str, Value] = ChainMap(self.local, enc, top)
        self.defaults: _Declared | None = None
        self.static: dict[str, _Declared] = {}
        self.dynamic: _Declared | None = None

    # -- the whole run ---------------------------------------------------------------------
    def evaluation(self) -> Evaluation:
        if self.parsed is not None:
            with contextlib.suppress(_FailCalledError):
                self.statements(self.parsed.root.statements)
        name, origin = self.environment()
        catalog = self.catalog()
        errors = [d for d in self.diags.items if d.severity is Severity.ERROR]
        if errors:
            raise CfCompileError(errors)
        others = tuple(d for d in self.diags.sorted() if d.severity is not Severity.ERROR)
        return Evaluation(catalog, name, origin, others)

    def environment(self) -> tuple[str, Origin]:
        if "environment" in self.local:
            span, detail = self.assigned["environment"]
            value = self.local["environment"]
            if isinstance(value, str) and value:
                return value, Origin(SourceKind.FILE, span, detail)
            if value not in (None, ""):
                message = f"$environment must be a String, not {describe(value)}"
                self.diags.error(span, message, "bad-environment")
            return DEFAULT_ENVIRONMENT, Origin(SourceKind.DEFAULT, span, f"$environment is set to {detail}")
        if self.proposal is not None and self.proposal.environment:
            return self.proposal.environment, Origin(
                SourceKind.CLASSIFIER, classifier=self.proposal.classifier
            )
        return DEFAULT_ENVIRONMENT, Origin(SourceKind.DEFAULT)

    # -- statements ---------------------------------------------------------------------------
    def statements(self, statements: Iterable[ModelObject]) -> None:
        for stmt in statements:
            getattr(self, f"stmt_{stmt.eClass.name}")(stmt)

    def stmt_SiteDeclaration(self, stmt: ModelObject) -> None:  # noqa: N802 - dispatch on EClass
        for decl in stmt.declarations:
            self.declaration(decl)

    def stmt_Assignment(self, stmt: ModelObject) -> None:  # noqa: N802
        name, span = str(stmt.variable), self.spans.get(stmt)
        if name in self.facts or name in _READ_ONLY:
            what = "a fact" if name in self.facts else "set by cfmodel"
            self.diags.error(
                span, f"cannot assign ${name}: it is {what} and read-only here", "assign-read-only"
            )
            return
        if name in self.local:
            first = Note(self.assigned[name][0], f"${name} was assigned here")
            self.diags.error(
                span, f"${name} is already assigned (a variable is assigned once)", "reassigned", [first]
            )
            return
        value = self.value(stmt.value)
        self.local[name] = value
        self.assigned[name] = (span, self.provenance(stmt.value, value))

    def provenance(self, expr: ModelObject, value: Value) -> str:
        """How an assigned value reads in an explanation: ``'x'``, plus the variable it is the
        value of when the expression reads one holding it (``$agent_environment``, a fact)."""
        text = show(value)
        if value is None:
            return text
        nodes = [expr, *expr.eAllContents()]
        names = [str(n.name) for n in nodes if n.eClass.name == "VariableRef"]
        for name in dict.fromkeys(names):
            if name in self.local or self.scope.get(name) != value:
                continue
            if name == "agent_environment":
                return f"{text}, the value of $agent_environment ({self.agent_source})"
            kind = "the fact " if name in self.facts else ""
            return f"{text}, the value of {kind}${name}"
        return text

    def stmt_IfStatement(self, stmt: ModelObject) -> None:  # noqa: N802
        holds = self.condition(stmt.condition) != bool(stmt.unless)
        self.statements(stmt.then if holds else stmt.otherwise)

    def stmt_CaseStatement(self, stmt: ModelObject) -> None:  # noqa: N802
        subject = self.value(stmt.subject)
        fallback = None
        for option in stmt.options:
            for case in option.values:
                kind = case.eClass.name
                if kind == "DefaultValue":
                    fallback = fallback or option
                elif kind == "RegexValue":
                    if isinstance(subject, str) and re.search(str(case.pattern), subject):
                        self.statements(option.body)
                        return
                elif self.value(case.expression) == subject:
                    self.statements(option.body)
                    return
        if fallback is not None:
            self.statements(fallback.body)

    def stmt_CallStatement(self, stmt: ModelObject) -> None:  # noqa: N802
        name, span = str(stmt.function), self.spans.get(stmt)
        if name not in _STATEMENT_FUNCTIONS:
            known = ", ".join(f"{f}()" for f in _STATEMENT_FUNCTIONS)
            message = f"{name}() cannot be a statement (only {known} can; values belong in assignments)"
            self.diags.error(span, message, "unknown-statement")
            return
        text = " ".join(v if isinstance(v, str) else show(v) for v in (self.value(a) for a in stmt.args))
        if name == "fail":
            self.diags.error(span, text or "fail() called", "fail")
            raise _FailCalledError
        severity = Severity.WARNING if name == "warning" else Severity.NOTE
        code = "warning" if name == "warning" else "notice"
        self.diags.report(Diagnostic(span, text, code, severity))

    # -- conditions and values ---------------------------------------------------------------
    def condition(self, cond: ModelObject) -> bool:
        kind = cond.eClass.name
        if kind == "AllConditions":
            return all(self.condition(c) for c in cond.operands)
        if kind == "AnyCondition":
            return any(self.condition(c) for c in cond.operands)
        if kind == "MatchCondition":
            subject = self.value(cond.subject)
            found = isinstance(subject, str) and re.search(str(cond.pattern), subject) is not None
            return found != bool(cond.negated)
        if kind == "InCondition":
            return self.contains(cond)
        value = self.value(cond.expression)
        return value is not None and value is not False

    def contains(self, cond: ModelObject) -> bool:
        item, collection = self.value(cond.item), self.value(cond.collection)
        if isinstance(collection, list | dict):
            return item in collection
        if isinstance(collection, str) and isinstance(item, str):
            return item in collection
        if collection is None:
            return False
        message = f"'in' needs an Array, a Hash or a String on the right, not {describe(collection)}"
        self.diags.error(self.spans.get(cond), message, "expression-error")
        return False

    def value(self, expr: ModelObject) -> Value:
        try:
            return evaluate(expr, self.scope)
        except ExpressionError as err:
            self.diags.error(
                self.spans.get(err.element) or self.spans.get(expr), err.message, "expression-error"
            )
            return None

    # -- declarations --------------------------------------------------------------------------
    def declaration(self, decl: ModelObject) -> None:
        kind, span = decl.eClass.name, self.spans.get(decl)
        params = self.parameters(decl)
        if kind == "EnvironmentDefaults":
            if self.defaults is not None:
                note = Note(self.defaults.span, "the first Environment defaults are here")
                self.diags.error(
                    span, "Environment defaults may be declared only once", "defaults-twice", [note]
                )
                return
            self.defaults = _Declared("Environment", params, span, decl)
            return
        title = self.title(decl)
        if title is None:
            return
        if kind == "DynamicEnvironments":
            if self.dynamic is not None:
                note = Note(self.dynamic.span, "the first dynamic_environments is here")
                message = (
                    "dynamic_environments may be declared only once (environments live under one directory)"
                )
                self.diags.error(span, message, "dynamic-twice", [note])
                return
            envdir = params.get("envdir")
            if envdir is not None:
                message = "a dynamic environment's envdir is its own directory; it cannot be set"
                self.diags.error(envdir[1], message, "envdir-in-dynamic")
            self.dynamic = _Declared(title, params, span, decl)
            return
        if title in self.static:
            note = Note(self.static[title].span, f"the first environment '{title}' is here")
            self.diags.error(
                span, f"environment '{title}' is declared twice", "duplicate-environment", [note]
            )
            return
        self.static[title] = _Declared(title, params, span, decl)

    def title(self, decl: ModelObject) -> str | None:
        value = self.value(decl.title)
        if isinstance(value, str) and value:
            return value
        what = "an environment's name" if decl.eClass.name == "EnvironmentDeclaration" else "a directory"
        message = f"the title must be {what} (a non-empty String), not {describe(value)}"
        self.diags.error(self.spans.get(decl.title), message, "bad-title")
        return None

    def parameters(self, decl: ModelObject) -> _Params:
        params = _Params()
        for param in decl.parameters:
            name, span = str(param.name), self.spans.get(param)
            if name not in PARAMETERS:
                hint = (
                    f" (cfmodel calls the seed's '{name}' '{_SEED_NAMES[name]}')"
                    if name in _SEED_NAMES
                    else ""
                )
                message = f"unknown environment parameter '{name}'{hint}; known: {', '.join(PARAMETERS)}"
                self.diags.error(span, message, "unknown-parameter")
                continue
            if name in params.values:
                note = Note(params.values[name][1], f"'{name}' is first set here")
                self.diags.error(span, f"the parameter '{name}' is set twice", "duplicate-parameter", [note])
                continue
            value = self.value(param.value)
            if value is None:
                continue
            if not _valid(name, value):
                wanted = "a String or an Array of Strings" if name == "modulepath" else "a String"
                self.diags.error(
                    span, f"'{name}' must be {wanted} (a path), not {describe(value)}", "bad-parameter"
                )
                continue
            params.values[name] = (value, span)
        return params

    # -- the catalog ---------------------------------------------------------------------------
    def catalog(self) -> Catalog:
        envs: dict[str, Environment] = {}
        for name, declared in self.static.items():
            env = self.static_environment(declared)
            if env is not None:
                envs[name] = env
        dynamic_envs, dynamic_dir = self.dynamic_environments()
        shadowed = tuple(sorted(n for n in dynamic_envs if n in envs))
        if DEFAULT_ENVIRONMENT not in envs and DEFAULT_ENVIRONMENT not in dynamic_envs:
            automatic = self.automatic_production()
            if automatic is not None:
                envs[DEFAULT_ENVIRONMENT] = automatic
        for name in sorted(dynamic_envs):
            envs.setdefault(name, dynamic_envs[name])
        return Catalog(self.confdir, self.path, self.parsed, envs, dynamic_dir, shadowed)

    def layered(self, *levels: _Declared | None) -> Callable[[str], tuple[Value, Span | None] | None]:
        def lookup(name: str) -> tuple[Value, Span | None] | None:
            for level in levels:
                if level is not None and (found := level.params.get(name)) is not None:
                    return found
            return None

        return lookup

    def static_environment(self, declared: _Declared) -> Environment | None:
        lookup = self.layered(declared, self.defaults)
        envdir = lookup("envdir")
        if envdir is None:
            message = (
                f"environment '{declared.name}' has no envdir "
                "(set it in its declaration or in the Environment defaults)"
            )
            self.diags.error(declared.span, message, "missing-envdir")
            return None
        directory = _resolve(self.confdir, str(envdir[0]))
        if not _is_dir(directory):
            message = f"the envdir of environment '{declared.name}' does not exist: {directory}"
            self.diags.error(envdir[1], message, "envdir-not-found")
            return None
        return self.environment_at(declared.name, EnvironmentKind.STATIC, directory, lookup, declared)

    def automatic_production(self) -> Environment | None:
        lookup = self.layered(self.defaults)
        envdir = lookup("envdir")
        directory = _resolve(self.confdir, str(envdir[0])) if envdir is not None else self.confdir
        if envdir is not None and not _is_dir(directory):
            message = f"the envdir of the automatic environment 'production' does not exist: {directory}"
            self.diags.error(envdir[1], message, "envdir-not-found")
            return None
        return self.environment_at(DEFAULT_ENVIRONMENT, EnvironmentKind.AUTOMATIC, directory, lookup, None)

    def dynamic_environments(self) -> tuple[dict[str, Environment], Path | None]:
        if self.dynamic is None:
            return {}, None
        declared = self.dynamic
        directory = _resolve(self.confdir, declared.name)
        if not _is_dir(directory):
            span = self.spans.get(declared.obj.title) or declared.span
            message = f"the dynamic_environments directory does not exist: {directory}"
            self.diags.error(span, message, "dynamic-dir-not-found")
            return {}, directory
        lookup = self.layered(declared, self.defaults)
        found: dict[str, Environment] = {}
        for sub in sorted(directory.iterdir()):
            if _is_dir(sub) and not sub.name.startswith("."):
                found[sub.name] = self.environment_at(
                    sub.name, EnvironmentKind.DYNAMIC, sub, lookup, declared
                )
        return found, directory

    def environment_at(
        self,
        name: str,
        kind: EnvironmentKind,
        envdir: Path,
        lookup: Callable[[str], tuple[Value, Span | None] | None],
        declared: _Declared | None,
    ) -> Environment:
        def path(param: str, default: Path, base: Path) -> Path:
            found = lookup(param)
            return _resolve(base, str(found[0])) if found is not None else default

        modulepath = lookup("modulepath")
        entries = _split_path(modulepath[0]) if modulepath is not None else self.project_modulepath(envdir)
        maindir = path("maindir", envdir, envdir)
        main = lookup("main")
        return Environment(
            name=name,
            kind=kind,
            envdir=envdir,
            module_path=tuple(_resolve(envdir, e) for e in entries),
            maindir=maindir,
            main=path("main", maindir / MAIN_FILE, maindir),
            bindings_dir=path("bindingsdir", envdir / "bindings", envdir),
            template_dir=path("templatedir", envdir / "templates", envdir),
            span=declared.span if declared is not None else None,
            declaration=declared.obj if declared is not None else None,
            main_span=main[1] if main is not None else None,
        )

    def project_modulepath(self, envdir: Path) -> list[str]:
        """The default module path: ``modulepath`` of ``<envdir>/project.yml``, else ``libs``."""
        for file_name in _PROJECT_FILES:
            settings = envdir / file_name
            if not _is_file(settings):
                continue
            try:
                data = load_yaml(read_text(settings)) or {}
            except CfLoadError as error:
                self.diags.error(error.span, error.message, error.code)
                return ["libs"]
            except OSError as error:
                self.diags.error(
                    Span(str(settings), 1, 1, 1, 1), f"cannot read project settings: {error}", "bad-project"
                )
                return ["libs"]
            except yaml.YAMLError as error:
                message = f"cannot read project settings: {yaml_problem(error)[0]}"
                self.diags.error(yaml_error_span(error, str(settings)), message, "bad-project")
                return ["libs"]
            paths = data.get("modulepath", "libs") if isinstance(data, dict) else None
            if isinstance(paths, str):
                return [paths]
            if isinstance(paths, list) and all(isinstance(p, str) for p in paths):
                return list(paths)
            message = "modulepath must be a path or a list of paths"
            self.diags.error(Span(str(settings), 1, 1, 1, 1), message, "bad-project")
            return ["libs"]
        return ["libs"]


def _valid(name: str, value: Value) -> bool:
    if name == "modulepath" and isinstance(value, list):
        return bool(value) and all(isinstance(v, str) and v for v in value)
    return isinstance(value, str) and bool(value)


def _split_path(value: Value) -> list[str]:
    """``modulepath``: an Array of paths, or one String of ``os.pathsep`` (``:``) separated ones."""
    if isinstance(value, list):
        return [str(v) for v in value]
    return [p for p in str(value).split(os.pathsep) if p]


def _resolve(base: Path, text: str) -> Path:
    """``text`` against ``base`` unless absolute; normalized (``..`` folded), symlinks kept."""
    return Path(os.path.normpath(base / text))


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long for the file system: no such directory
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False
