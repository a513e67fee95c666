"""The request sequence (ARM-8): what a compile is for, decided before anything compiles.

Input: the project directory (``confdir``), the request's facts (``--fact``, ``--facts FILE``
or the API), the environment the caller asked for (``--environment``: ``$agent_environment``)
and ``RequestOptions`` (a classifier, extra bindings providers, compose options).
Output: ``RequestResult``: the selected ``Environment``, the categories, the ``Injector`` and,
for the compiler, a ``CompileTarget`` (project dir, main file, module path, bindings dir,
template dir, facts), plus every step of the chain (``steps``) for explanations and an
Ecore model of it all (``to_model()``, package ``cfmodel.metamodel.environments``).

The sequence, one step each (docs/environments.md):

1. **facts**: copied; a fact ``environment`` is not trusted (it becomes
   ``$agent_environment`` unless ``--environment`` was given).
2. **classifier** (optional, an ENC; by default the one ``project.yml`` configures under
   ``bindings: {enc: ...}``): ``classify(facts)`` may propose an environment, classes, class
   parameters and variables (``Classification``).
3. **environments file**: ``<confdir>/environments.cfenv`` is read and run
   (``cfmodel.transforms.environments.environments``); it computes ``$environment``.
4. **selection**: ``$environment`` must name a static, dynamic or the automatic
   ``production`` environment; else ``unknown-environment`` and nothing else happens.
5. **categorization**: the selected environment's ``site.bind`` (in its ``envdir``) gives
   the categories (``site { categories }``), evaluated over the facts with
   ``$environment`` set to the selected one.
6. **injector**: the layers of that ``site.bind``, else the seed's defaults (``site`` =
   ``confdir:/default`` when ``<bindingsdir>/default.bind`` exists, over ``modules`` =
   ``module:/*::default``); the providers of the bindings engine configured for the
   environment (its ``project.yml``, its module path), ``confdir:`` meaning its
   ``bindingsdir`` and ``enc:`` the classifier's answer; composed for the facts.
7. **compile target**: the environment's main file (it must exist) and module path.

Guarantees: nothing is cached between calls (the file is read, the dynamic directory listed
again each time); the file's own variables never reach the facts the compiler gets (only
``environment`` is added); every error of a step is raised before the next step starts.

Errors: those of ``cfmodel.transforms.environments.environments``, the bindings parser/providers/compose
(``bad-project``, ``enc-failed`` from an ``EncClassifier``, ...) and ``main-not-found``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from cfmodel.cache import ParseCache
from cfmodel.display import html_table
from cfmodel.errors import CfCompileError, CfLoadError, Diagnostic, Diagnostics, Severity, Span
from cfmodel.grammars.bindings import ParsedBindings
from cfmodel.grammars.bindings import parse_file as parse_bindings_file
from cfmodel.metamodel import environments as em
from cfmodel.metamodel.bindings import ModelObject, SpanTable
from cfmodel.metamodel.runtime.objects import ObjectBuilder
from cfmodel.project import Project, load_project
from cfmodel.serializers import ncname_id
from cfmodel.transforms.bindings.compose import (
    Category,
    ComposeOptions,
    Injector,
    Value,
    compose,
    resolve_categories,
    show,
)
from cfmodel.transforms.bindings.providers import (
    BINDINGS_DIR,
    SITE_FILE,
    BindingsProvider,
    ConfdirProvider,
    EncData,
    EncProvider,
    load_layers,
    project_default_layers,
    providers_for,
    read_settings,
)
from cfmodel.transforms.bindings.providers.folders import load_folder
from cfmodel.transforms.environments.environments import (
    Catalog,
    Environment,
    EnvironmentKind,
    Evaluation,
    Origin,
    Proposal,
    SourceKind,
    evaluate_environments,
    select_environment,
)

# ============================================================================================
# The classifier interface (an ENC)
# ============================================================================================


@dataclass(frozen=True, slots=True)
class Classification:
    """What a classifier says about a request (the data of a Puppet ENC).

    ``environment`` is a proposal: the environments file sees it as ``$environment`` and may
    change it. ``variables`` (the ENC's "parameters") and ``classes`` are visible to the file
    as ``$name`` and ``$classes``; ``parameters`` are class parameters. The request hands it
    all to the ``enc:`` bindings provider, so an ENC runs once per request.
    """

    environment: str | None = None
    classes: tuple[str, ...] = ()
    parameters: Mapping[str, Mapping[str, Value]] = field(default_factory=dict)
    variables: Mapping[str, Value] = field(default_factory=dict)
    answer: EncData | None = field(default=None, compare=False)  # the ENC's answer, with positions

    def enc_data(self, source: str) -> EncData:
        """The answer as the ``enc:`` provider's data."""
        if self.answer is not None:
            return self.answer
        return EncData(self.classes, self.parameters, self.variables, self.environment, source)


class Classifier(Protocol):
    """Classifies a request from its facts; ``None``: nothing to say about it."""

    @property
    def name(self) -> str:
        """A label for explanations and messages (``enc``, the command)."""
        ...

    def classify(self, facts: Mapping[str, Value]) -> Classification | None:
        """Raise a ``CfModelError`` if classifying fails: no request goes on without it."""
        ...


@dataclass(frozen=True, slots=True)
class StaticClassifier:
    """A classifier with a fixed answer per node (``facts[node_fact]``) or for every node."""

    by_node: Mapping[str, Classification] = field(default_factory=dict)
    default: Classification | None = None
    name: str = "static"
    node_fact: str = "fqdn"

    def classify(self, facts: Mapping[str, Value]) -> Classification | None:
        return self.by_node.get(str(facts.get(self.node_fact)), self.default)


@dataclass(frozen=True, slots=True)
class EncClassifier:
    """A Puppet-style external node classifier: a command run with the node's name (the fact
    ``clientcert``, ``certname`` or ``fqdn``) printing YAML, or a YAML/JSON file; read by the
    bindings engine's ``EncProvider`` (errors: ``enc-failed``). The YAML may hold
    ``environment``, ``classes`` (a list, or a mapping of class to parameters) and
    ``parameters`` (variables)."""

    command: Sequence[str] = ()
    file: Path | None = None

    @property
    def name(self) -> str:
        return " ".join(self.command) if self.command else str(self.file)

    def classify(self, facts: Mapping[str, Value]) -> Classification | None:
        if self.file is not None:
            provider = EncProvider.from_file(self.file)
        else:
            provider = EncProvider.from_command(self.command, facts)
        answer = provider.answer()
        return Classification(answer.environment, answer.classes, answer.parameters, answer.variables, answer)


def project_classifier(confdir: str | Path) -> Classifier | None:
    """The ENC configured in the project's ``project.yml`` (``bindings: {enc: ...}``), if any.

    Raises:
        CfLoadError: ``bad-project``.
    """
    settings = read_settings(confdir)
    if settings.enc_file is not None:
        return EncClassifier(file=settings.enc_file)
    if settings.enc_command:
        return EncClassifier(command=settings.enc_command)
    return None


# ============================================================================================
# Options and results
# ============================================================================================

#: Makes extra bindings providers for a request (e.g. ``{"enc": EncProvider(classification)}``).
ClassifiedProviders = Callable[[Classification | None], Mapping[str, BindingsProvider]]


@dataclass(frozen=True, slots=True)
class RequestOptions:
    """``classifier``: default, the ENC of the project's ``project.yml`` (``bindings.enc``);
    ``use_project_classifier=False`` runs none unless one is given."""

    classifier: Classifier | None = None
    use_project_classifier: bool = True
    providers: Mapping[str, BindingsProvider] = field(default_factory=dict)
    provider_factory: ClassifiedProviders | None = None
    compose: ComposeOptions | None = None
    environments_file: Path | None = None  # default: <confdir>/environments.cfenv
    agent_source: str = "--environment"  # how the caller asked, for messages
    lenient: bool = False  # the injector despite bindings errors (ComposeOptions.lenient)


@dataclass(frozen=True, slots=True)
class CompileTarget:
    """What the compiler needs: which files, which modules, which facts."""

    environment: str
    project_dir: Path  # the environment's envdir
    main: Path
    module_path: tuple[Path, ...]
    bindings_dir: Path
    template_dir: Path
    facts: Mapping[str, Value]  # the request's facts, ``environment`` = the selected one


@dataclass(frozen=True, slots=True)
class Step:
    """One link of the chain, for ``cfmodel env which`` and the model."""

    name: str
    message: str
    span: Span | None = None

    def render(self, number: int) -> str:
        where = f"  [{self.span.start()}]" if self.span is not None else ""
        return f"{number}. {self.name}: {self.message}{where}"


@dataclass(frozen=True, slots=True)
class RequestResult:
    confdir: Path
    facts: Mapping[str, Value]  # as given
    agent_environment: str | None
    classifier: str | None
    classification: Classification | None
    evaluation: Evaluation
    environment: Environment
    categories: tuple[Category, ...]
    injector: Injector
    target: CompileTarget
    steps: tuple[Step, ...]
    warnings: tuple[Diagnostic, ...]

    @property
    def catalog(self) -> Catalog:
        return self.evaluation.catalog

    @property
    def origin(self) -> Origin:
        return self.evaluation.origin

    def explain(self) -> str:
        """The chain, one numbered step per line."""
        return "\n".join(step.render(i) for i, step in enumerate(self.steps, 1))

    def __repr__(self) -> str:  # bounded: the fields hold the whole catalog and injector
        facts = f"{len(self.facts)} fact{'' if len(self.facts) == 1 else 's'}"
        return f"<RequestResult: environment {self.environment.name!r} ({facts}, {len(self.steps)} steps)>"

    def _repr_html_(self) -> str:  # Jupyter: the chain as a table (bounded, escaped)
        rows = [
            (number, step.name, step.message, step.span.start() if step.span is not None else "")
            for number, step in enumerate(self.steps, 1)
        ]
        title = f"request: environment {self.environment.name}"
        return html_table(title, ("#", "step", "what", "where"), rows)

    def to_model(self) -> ModelObject:
        """The request as an ``environments`` ``Request`` (exportable as XMI or JSON), made by
        the runtime's `ObjectBuilder`."""
        b = ObjectBuilder()
        catalog, by_name = catalog_model(self.catalog, b)
        values: dict[str, Any] = {
            "catalog": catalog,
            "environmentName": self.environment.name,
            "source": em.EnvironmentSource.getEEnumLiteral(self.origin.kind.value),
            "selected": by_name[self.environment.name],
        }
        if self.agent_environment is not None:
            values["agentEnvironment"] = self.agent_environment
        if self.classifier is not None:
            values["classifier"] = self.classifier
        if self.classification is not None and self.classification.environment is not None:
            values["proposedEnvironment"] = self.classification.environment
        values["facts"] = [
            b.make(em.Fact, name=name, value=json.dumps(self.facts[name], sort_keys=True, default=str))
            for name in sorted(self.facts)
        ]
        values["categories"] = [
            b.make(
                em.CategoryValue,
                name=category.name,
                rank=category.rank,
                **({"value": category.value} if category.value is not None else {}),
            )
            for category in self.categories
        ]
        values["steps"] = [
            b.make(
                em.Step,
                name=step.name,
                message=step.message,
                **({"location": step.span.start()} if step.span is not None else {}),
            )
            for step in self.steps
        ]
        request = b.make(em.Request, **values)
        b.finish()
        return request


def catalog_model(
    catalog: Catalog, builder: ObjectBuilder | None = None
) -> tuple[ModelObject, dict[str, ModelObject]]:
    """The catalog as an ``environments`` ``Catalog`` (and its ``Environment``s by name), made
    by *builder* (which the caller finishes; else one of its own, finished here)."""
    b = builder if builder is not None else ObjectBuilder()
    by_name: dict[str, ModelObject] = {}
    for env in catalog.environments.values():
        by_name[env.name] = b.make(
            em.Environment,
            name=env.name,
            kind=em.EnvironmentKind.getEEnumLiteral(env.kind.value),
            envdir=str(env.envdir),
            maindir=str(env.maindir),
            main=str(env.main),
            bindingsdir=str(env.bindings_dir),
            templatedir=str(env.template_dir),
            modulepath=[str(p) for p in env.module_path],
            **({"declaration": env.declaration} if env.declaration is not None else {}),
        )
    root = b.make(em.Catalog, fileName=str(catalog.file), confdir=str(catalog.confdir))
    if catalog.parsed is not None:
        # PyEcore's setter: the parsed file is an existing object, moved into this catalog
        # (out of one made before for the same catalog), as PyEcore moves a contained object
        root.file = catalog.parsed.root
    if catalog.dynamic_dir is not None:
        root.dynamicDirectory = str(catalog.dynamic_dir)
    root.environments.extend(by_name.values())
    if builder is None:
        b.finish()
    return root, by_name


def model_ids(obj: ModelObject) -> str | None:
    """Ids for exports: environments by name (``env.production``, made an NCName), nothing else."""
    if obj.eClass is em.Environment:
        return ncname_id(f"env.{obj.name}")
    return None


# ============================================================================================
# The pipeline
# ============================================================================================


def run_request(
    confdir: str | Path,
    facts: Mapping[str, Value] | None = None,
    agent_environment: str | None = None,
    options: RequestOptions | None = None,
) -> RequestResult:
    """Run the request sequence up to the compile target (see the module docstring).

    Raises:
        CfModelError: the first step that fails, with all of its errors.
    """
    opts = options or RequestOptions()
    given = dict(facts or {})
    steps: list[Step] = [Step("facts", _facts_text(given))]
    agent_source = opts.agent_source
    if agent_environment is None and isinstance(given.get("environment"), str):
        agent_environment, agent_source = given["environment"], "the fact 'environment'"
    steps.append(Step("agent environment", _agent_text(agent_environment, agent_source)))

    classification: Classification | None = None
    classifier = opts.classifier
    if classifier is None and opts.use_project_classifier:
        classifier = project_classifier(confdir)
    classifier_name = classifier.name if classifier is not None else None
    if classifier is not None:
        classification = classifier.classify({k: v for k, v in given.items() if k != "environment"})
    steps.append(Step("classifier", _classifier_text(classifier_name, classification)))
    proposal = None
    if classification is not None:
        proposal = Proposal(
            classifier_name or "classifier",
            classification.environment,
            classification.variables,
            classification.classes,
        )

    evaluation = evaluate_environments(
        confdir, given, agent_environment, proposal, opts.environments_file, agent_source
    )
    catalog = evaluation.catalog
    steps.append(Step("environments file", _file_text(catalog)))
    steps.append(Step("$environment", _origin_text(evaluation), evaluation.origin.span))
    selection = select_environment(evaluation)
    env = selection.environment
    steps.append(
        Step("selected", _selected_text(env), env.span if env.kind is EnvironmentKind.STATIC else None)
    )

    compile_facts = {k: v for k, v in given.items() if k != "environment"}
    compile_facts["environment"] = env.name
    sites, spans = _site(env)
    diags = Diagnostics()
    categories = tuple(resolve_categories(sites, compile_facts, spans, diags).values())
    diags.raise_if_errors()
    steps.append(Step("categories", _categories_text(categories, env)))

    settings = replace(read_settings(env.envdir), module_path=env.module_path)
    compose_options = opts.compose or ComposeOptions(nesting=settings.nesting)
    if opts.lenient:
        compose_options = replace(compose_options, lenient=True)
    diags = Diagnostics()
    providers = providers_for(settings, compile_facts, diags=diags)
    if not compose_options.lenient:
        diags.raise_if_errors()
    providers["confdir"] = bindings_dir_provider(env.bindings_dir)
    if classification is not None:
        providers["enc"] = EncProvider(classification.enc_data(f"<classifier {classifier_name}>"))
    providers.update(opts.providers)
    if opts.provider_factory is not None:
        providers.update(opts.provider_factory(classification))
    layers = [layer for site in sites for layer in site.layers] or default_layers_of(env)
    loaded = load_layers(layers, providers, spans, compose_options.lenient)
    problems = (*diags.sorted(), *loaded.problems)
    injector = compose(loaded.layers, compile_facts, loaded.spans, sites, compose_options, problems)
    steps.append(Step("injector", _layers_text(layers)))

    if not env.main.is_file():
        message = f"the main file of environment '{env.name}' does not exist: {env.main}"
        raise CfCompileError([Diagnostic(env.main_span or env.span, message, "main-not-found")])
    target = CompileTarget(
        env.name, env.envdir, env.main, env.module_path, env.bindings_dir, env.template_dir, compile_facts
    )
    steps.append(Step("compile", f"{env.main} with modulepath {_paths(env.module_path)}"))

    warnings = list(evaluation.diagnostics)
    if agent_environment is not None and agent_environment != env.name:
        message = (
            f"the requested environment '{agent_environment}' ({agent_source}) was not selected: "
            f"{_decided_by(selection.origin, catalog)} '{env.name}'"
        )
        warnings.append(
            Diagnostic(selection.origin.span, message, "environment-not-applied", Severity.WARNING)
        )
    return RequestResult(
        Path(catalog.confdir),
        given,
        agent_environment,
        classifier_name,
        classification,
        evaluation,
        env,
        categories,
        injector,
        target,
        tuple(steps),
        tuple(warnings),
    )


def _site(env: Environment) -> tuple[list[ModelObject], SpanTable]:
    spans = SpanTable()
    site_file = env.envdir / SITE_FILE
    if not site_file.is_file():
        return [], spans
    parsed: ParsedBindings = parse_bindings_file(site_file)
    spans.update(parsed.spans)
    return list(parsed.sites), spans


def default_layers_of(env: Environment) -> list[ModelObject]:
    """The seed's default layers for an environment without declared ones: ``site``
    (``confdir:/default``, when ``<bindingsdir>/default.bind`` exists) over ``modules``
    (``module:/*::default`` on the environment's module path)."""
    return project_default_layers(env.envdir, env.bindings_dir)


def bindings_dir_provider(folder: Path) -> BindingsProvider:
    """``confdir:`` over an environment's ``bindingsdir`` (any name, not only ``bindings``)."""
    if folder.name == BINDINGS_DIR:
        return ConfdirProvider(folder.parent)
    return _BindingsFolder(folder)


@dataclass(frozen=True, slots=True)
class _BindingsFolder:
    """``confdir:/a/b`` -> ``<folder>/a/b.bind`` holding ``bindings a::b``; ``*``, ``**`` as usual."""

    folder: Path
    scheme: str = "confdir"

    def load(self, path: str, span: Span | None, diags: Diagnostics) -> list[ParsedBindings]:
        return load_folder(self.folder, path.strip("/").replace("::", "/"), "", span, diags)


# ============================================================================================
# Explanations
# ============================================================================================


def _facts_text(facts: Mapping[str, Value]) -> str:
    if not facts:
        return "none given"
    shown = ", ".join(f"${k} = {show(v)}" for k, v in sorted(facts.items()))
    return f"{len(facts)} given: {shown}"


def _agent_text(agent: str | None, source: str) -> str:
    if agent is None:
        return "$agent_environment is undef (no environment was asked for)"
    return f"$agent_environment = {show(agent)} ({source}); it selects nothing by itself"


def _classifier_text(name: str | None, classification: Classification | None) -> str:
    if name is None:
        return "none configured"
    if classification is None:
        return f"'{name}' has nothing for this request"
    parts = [f"environment {show(classification.environment)}"]
    if classification.classes:
        parts.append(f"classes {', '.join(classification.classes)}")
    if classification.variables:
        parts.append(f"variables {', '.join('$' + v for v in sorted(classification.variables))}")
    return f"'{name}' proposes " + "; ".join(parts)


def _file_text(catalog: Catalog) -> str:
    envs = catalog.environments.values()
    listing = ", ".join(f"{e.name} ({e.kind.value})" for e in envs)
    if not catalog.has_file:
        return f"{catalog.file} does not exist (an empty file): {listing}"
    dynamic = f"; dynamic environments in {catalog.dynamic_dir}" if catalog.dynamic_dir is not None else ""
    return f"read {catalog.file}: {listing}{dynamic}"


def _decided_by(origin: Origin, catalog: Catalog) -> str:
    if origin.kind is SourceKind.FILE:
        return f"{catalog.file.name} sets $environment here to"
    if origin.kind is SourceKind.CLASSIFIER:
        return f"the classifier '{origin.classifier}' proposed (and {catalog.file.name} kept)"
    if origin.span is not None:
        return f"{catalog.file.name} sets $environment to undef here, so the default is"
    if not catalog.has_file:
        return f"there is no {catalog.file.name}, so the default is"
    return f"{catalog.file.name} does not set $environment, so the default is"


def _origin_text(evaluation: Evaluation) -> str:
    origin, name = evaluation.origin, evaluation.environment
    if origin.kind is SourceKind.FILE:
        return f"set by the file to {origin.detail}"
    if origin.kind is SourceKind.CLASSIFIER:
        return f"'{name}' as proposed by the classifier '{origin.classifier}' (the file did not change it)"
    if origin.detail:
        return f"{origin.detail}: the default '{name}'"
    return f"not set: the default '{name}'"


def _selected_text(env: Environment) -> str:
    if env.kind is EnvironmentKind.STATIC:
        return f"'{env.name}', static (declared here); envdir {env.envdir}"
    return f"'{env.name}', {env.kind.value}: {env.origin}; envdir {env.envdir}"


def _categories_text(categories: Sequence[Category], env: Environment) -> str:
    site = env.envdir / SITE_FILE
    source = f"from {site}" if site.is_file() else f"the defaults: there is no {site}"
    shown = ", ".join(_category_text(c) for c in categories)
    return f"{shown} ({source})"


def _category_text(category: Category) -> str:
    if category.name == "common":
        return "common"
    if category.value is None:
        return f"{category.name} (does not apply)"
    return f"{category.name} = {show(category.value)}"


def _layers_text(layers: Sequence[ModelObject]) -> str:
    return "layers " + ", ".join(f"{layer.name} [{', '.join(layer.include)}]" for layer in layers)


def _paths(paths: Sequence[Path]) -> str:
    return ", ".join(str(p) for p in paths) or "(none)"


# ============================================================================================
# Loading the target (a thin wrapper over cfmodel.project)
# ============================================================================================


def load_target(
    target: CompileTarget,
    cache: ParseCache | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Project:
    """Load the target's main file and every namespace it imports, with its module path
    (*progress* as `load_project` takes it).

    Raises:
        CfLoadError: the main file is missing.
        CfCompileError: files that cannot be loaded or parsed (all of them).
    """
    if not target.main.is_file():
        raise CfLoadError(f"no such main file: {target.main}", None, "main-not-found")
    project = load_project(
        target.project_dir, cache, main=target.main, module_path=target.module_path, progress=progress
    )
    if not project.named:  # project.yml gives no name: the project is named after its environment
        project.name = target.environment
    return project


__all__ = [
    "Classification",
    "Classifier",
    "CompileTarget",
    "EncClassifier",
    "EnvironmentKind",
    "RequestOptions",
    "RequestResult",
    "StaticClassifier",
    "Step",
    "catalog_model",
    "default_layers_of",
    "load_target",
    "model_ids",
    "project_classifier",
    "run_request",
]
