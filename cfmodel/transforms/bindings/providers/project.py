"""A project's bindings: where its site, layers and data are, and the injector for a request.

The layout (docs/bindings.md, "Projects")::

    <project>/site.bind             optional: site { categories {...} bindings => [layers] }
    <project>/bindings/**.bind      confdir: bindings, one file per bindings (default.bind ...)
    <project>/hiera.yaml            hiera: (only when a layer includes it)
    <modulepath>/<module>/bindings/ module: bindings (<module>::default ...)
    <project>/project.yml           modulepath (as for .cf modules) and a `bindings:` section:

        bindings:
          nesting: vector        # or `highest`: the seed's literal rule for nested `when`
          enc: enc.yaml          # enc: from a file, or { command: "bin/enc --yaml" }
                                 # (a relative command path is relative to the project)

Without layers in ``site.bind`` the project has the seed's two: ``site`` (``confdir:/default``,
when ``bindings/default.bind`` exists) over ``modules`` (``module:/*::default``).

Providers: ``confdir:``, ``module:``, ``hiera:``, ``enc:`` (when configured), and one per entry
point of the group ``cfmodel.bindings_providers``: the entry point's name is the scheme and
its object a factory ``(ProviderContext) -> BindingsProvider``.

Error codes: ``bad-project`` (project.yml), ``provider-failed`` (an entry point), plus those
of the providers, the parser and composition.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from importlib.metadata import entry_points
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from cfmodel.errors import CfLoadError, Diagnostics
from cfmodel.grammars.bindings import parse_file
from cfmodel.inputs import load_yaml, read_text, yaml_error_span, yaml_problem
from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel.bindings import ModelObject, SpanTable
from cfmodel.metamodel.runtime.objects import build
from cfmodel.transforms.bindings.compose import (
    ComposeOptions,
    Injector,
    NestingRule,
    PreparedBindings,
    Value,
    prepare,
)
from cfmodel.transforms.bindings.providers.base import (
    BindingsProvider,
    LoadedLayers,
    ProviderContext,
    file_span,
    load_layers,
)
from cfmodel.transforms.bindings.providers.enc import EncProvider
from cfmodel.transforms.bindings.providers.folders import (
    BINDINGS_DIR,
    SUFFIX,
    ConfdirProvider,
    ModuleProvider,
)
from cfmodel.transforms.bindings.providers.hiera import HieraProvider
from cfmodel.transforms.bindings.providers.merges import Merge
from cfmodel.transforms.bindings.trusted import request_facts

SITE_FILE = "site.bind"
PROJECT_FILES = ("project.yml", "project.yaml")
ENTRY_POINT_GROUP = "cfmodel.bindings_providers"
DEFAULT_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (("site", ("confdir:/default",)),)

#: Makes a provider for a request (what entry points of ``cfmodel.bindings_providers`` hold).
ProviderFactory = Callable[[ProviderContext], BindingsProvider]


@dataclass(frozen=True, slots=True)
class ProjectSettings:
    """What ``project.yml`` says about bindings (and the module path)."""

    root: Path
    module_path: tuple[Path, ...]
    nesting: NestingRule = NestingRule.VECTOR
    enc_file: Path | None = None
    enc_command: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict)


def read_settings(root: str | Path) -> ProjectSettings:
    """The bindings settings of a project (defaults when there is no ``project.yml``).

    Raises:
        CfLoadError: ``load``: no such directory; ``bad-project``: the file or its ``bindings``
            section is malformed.
    """
    root = Path(root)
    if not root.is_dir():
        raise CfLoadError(f"no such project directory: {root}", None, "load")
    file = next((root / name for name in PROJECT_FILES if (root / name).is_file()), None)
    if file is None:
        return ProjectSettings(root, (root / "libs",))
    try:
        data = load_yaml(read_text(file)) or {}
    except OSError as err:
        raise CfLoadError(f"cannot read project settings: {err}", file_span(file), "bad-project") from None
    except yaml.YAMLError as err:
        message = f"cannot read project settings: {yaml_problem(err)[0]}"
        raise CfLoadError(message, yaml_error_span(err, str(file)), "bad-project") from None
    if not isinstance(data, dict):
        raise CfLoadError("project settings must be a mapping", file_span(file), "bad-project")
    paths = data.get("modulepath", "libs")
    paths = [paths] if isinstance(paths, str) else paths
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise CfLoadError("modulepath must be a path or a list of paths", file_span(file), "bad-project")
    section = data.get("bindings") or {}
    if not isinstance(section, dict):
        raise CfLoadError("the bindings section must be a mapping", file_span(file), "bad-project")
    nesting = section.get("nesting", "vector")
    if nesting not in ("vector", "highest"):
        message = f"bindings.nesting must be vector or highest, not {nesting!r}"
        raise CfLoadError(message, file_span(file), "bad-project")
    enc_file, enc_command = _enc_settings(root, section.get("enc"), file)
    return ProjectSettings(
        root, tuple(root / p for p in paths), NestingRule(nesting), enc_file, enc_command, section
    )


def _enc_settings(root: Path, enc: Any, file: Path) -> tuple[Path | None, tuple[str, ...]]:
    if enc is None:
        return None, ()
    if isinstance(enc, str):
        return root / enc, ()
    if isinstance(enc, dict) and isinstance(enc.get("command"), str | list):
        command = enc["command"]
        words = list(shlex.split(command) if isinstance(command, str) else map(str, command))
        if words and "/" in words[0] and not Path(words[0]).is_absolute():
            # a relative program is the project's, wherever cfmodel runs from
            words[0] = str(root / words[0])
        return None, tuple(words)
    if isinstance(enc, dict) and isinstance(enc.get("file"), str):
        return root / enc["file"], ()
    message = "bindings.enc must be a file name, {file: <name>} or {command: <command>}"
    raise CfLoadError(message, file_span(file), "bad-project")


def default_layers() -> list[ModelObject]:
    """The layer used when a site declares none and only ``confdir:`` exists: ``site``."""
    return [build(bm.Layer, name=name, include=list(uris)) for name, uris in DEFAULT_LAYERS]


def project_default_layers(root: Path, bindings_dir: Path | None = None) -> list[ModelObject]:
    """The seed's two default layers: ``site`` (``confdir:/default``, if ``default.bind`` exists
    in ``bindings_dir``, by default ``<root>/bindings``) over ``modules`` (``module:/*::default``)."""
    folder = bindings_dir if bindings_dir is not None else root / BINDINGS_DIR
    layers = []
    if (folder / f"default{SUFFIX}").is_file():
        layers.append(build(bm.Layer, name="site", include=["confdir:/default"]))
    layers.append(build(bm.Layer, name="modules", include=["module:/*::default"]))
    return layers


@dataclass(frozen=True, slots=True)
class ProjectBindings:
    """A project's bindings loaded for one request, ready to compose."""

    settings: ProjectSettings
    sites: list[ModelObject]
    layers: LoadedLayers
    providers: Mapping[str, BindingsProvider]

    def prepare(self, options: ComposeOptions | None = None) -> PreparedBindings:
        options = options or ComposeOptions(nesting=self.settings.nesting)
        return prepare(self.layers.layers, self.layers.spans, self.sites, options, self.layers.problems)


#: Merge behaviours forced for some ``hiera:`` keys while ``forcing_merges`` is active.
_FORCED_MERGES: ContextVar[Mapping[str, Merge]] = ContextVar(
    "cfmodel_forced_merges", default=MappingProxyType({})
)


@contextmanager
def forcing_merges(merges: Mapping[str, Merge]) -> Iterator[None]:
    """Force merge behaviours for some ``hiera:`` keys (as ``puppet lookup --merge`` does) in
    every ``providers_for`` call made inside, e.g. by the request sequence
    (``cfmodel bindings inject KEY --merge deep``); merges given to ``providers_for`` win."""
    token = _FORCED_MERGES.set(merges)
    try:
        yield
    finally:
        _FORCED_MERGES.reset(token)


def providers_for(
    settings: ProjectSettings,
    facts: Mapping[str, Value],
    merges: Mapping[str, Merge] | None = None,
    diags: Diagnostics | None = None,
) -> dict[str, BindingsProvider]:
    """The built-in providers, configured for this project and request, and the plugged-in ones.

    ``merges``: merge behaviours forced for some ``hiera:`` keys (with those of an active
    ``forcing_merges``)."""
    root = settings.root
    forced = {**_FORCED_MERGES.get(), **(merges or {})}
    providers: dict[str, BindingsProvider] = {
        "confdir": ConfdirProvider(root),
        "module": ModuleProvider(settings.module_path),
        "hiera": HieraProvider(root, facts, forced),
    }
    if settings.enc_file is not None:
        providers["enc"] = EncProvider.from_file(settings.enc_file)
    elif settings.enc_command:
        providers["enc"] = EncProvider.from_command(settings.enc_command, facts)
    context = ProviderContext(root, settings.module_path, facts, settings.raw)
    for scheme, factory in plugged_in_providers(diags).items():
        provider = _made(scheme, factory, context, diags)
        if provider is not None:
            providers.setdefault(scheme, provider)
    return providers


def plugged_in_providers(diags: Diagnostics | None = None) -> dict[str, ProviderFactory]:
    """Provider factories registered as entry points (``cfmodel.bindings_providers``)."""
    found: dict[str, ProviderFactory] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found[point.name] = point.load()
        except Exception as err:  # a plug-in's import may fail in any way
            if diags is not None:
                message = f'the bindings provider "{point.name}:" ({point.value}) cannot be loaded: {err}'
                diags.error(None, message, "provider-failed")
    return found


def _made(
    scheme: str, factory: ProviderFactory, context: ProviderContext, diags: Diagnostics | None
) -> BindingsProvider | None:
    try:
        return factory(context)
    except Exception as err:  # a plug-in's factory may fail in any way
        if diags is not None:
            diags.error(None, f'the bindings provider "{scheme}:" failed to start: {err}', "provider-failed")
        return None


def load_project(
    root: str | Path,
    facts: Mapping[str, Value],
    providers: Mapping[str, BindingsProvider] | None = None,
    merges: Mapping[str, Merge] | None = None,
    lenient: bool = False,
) -> ProjectBindings:
    """Read ``site.bind`` and load every layer's bindings for this request.

    ``lenient``: bindings files that do not parse and provider errors are kept (the
    ``problems`` of the layers, for a lenient composition) instead of raised.

    Raises:
        CfSyntaxError: ``site.bind`` does not parse.
        CfCompileError: provider errors and bindings files that do not parse, all together.
        CfLoadError: ``bad-project``.
    """
    settings = read_settings(root)
    diags = Diagnostics()
    all_providers = providers_for(settings, request_facts(facts), merges, diags)
    all_providers.update(providers or {})
    if not lenient:
        diags.raise_if_errors()
    spans = SpanTable()
    sites: list[ModelObject] = []
    site_file = settings.root / SITE_FILE
    if site_file.is_file():
        parsed = parse_file(site_file)
        spans.update(parsed.spans)
        sites = parsed.sites
    layers = [layer for site in sites for layer in site.layers] or project_default_layers(settings.root)
    loaded = load_layers(layers, all_providers, spans, lenient)
    if diags.has_errors:
        loaded = replace(loaded, problems=(*diags.sorted(), *loaded.problems))
    return ProjectBindings(settings, sites, loaded, all_providers)


def create_injector(
    confdir: str | Path,
    facts: Mapping[str, Value],
    options: ComposeOptions | None = None,
    providers: Mapping[str, BindingsProvider] | None = None,
    merges: Mapping[str, Merge] | None = None,
) -> Injector:
    """Load a project's bindings (``load_project``) and compose them for these facts.

    Args:
        confdir: the project folder holding ``site.bind`` and ``bindings/``.
        facts: the request's facts.
        options: composition options (default: the project's nesting rule).
        providers: extra providers by scheme (they replace built-in ones of the same scheme).
        merges: merge behaviours forced for some ``hiera:`` keys.

    Raises:
        CfSyntaxError: a file does not parse.
        CfCompileError: provider or composition errors, all together.
    """
    return load_project(confdir, facts, providers, merges).prepare(options).injector(facts)
