"""Bindings providers: turn a layer's ``include``/``exclude`` URIs into parsed bindings.

Input: the layers of a site declaration (``Layer`` model objects, or the default layer
``site`` = ``confdir:/default``) and the providers by URI scheme. Only ``confdir:`` is built
in: the project's ``bindings/`` folder, where ``windows::default`` lives in
``bindings/windows/default.bind``; ``*`` matches one path segment, ``**`` any number.
Output: ``LoadedLayers``: one ``LayerInput`` per layer (for ``compose``) and the merged
``SpanTable``. ``create_injector`` chains it all: ``site.bind`` (optional) → layers →
providers → ``compose``.

Guarantees: in a layer every bindings name appears once, in sorted order of the names;
excluded names are removed. Other schemes (``module:``, ``enc:``, ``hiera:``) implement
``BindingsProvider`` and are passed to ``load_layers``.

Error codes: ``unknown-scheme``, ``bindings-not-found``, ``bindings-name-mismatch`` (a file
must hold the bindings it is named after), plus the parser's ``syntax`` and ``load``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cfmodel.errors import Diagnostics, Span
from cfmodel.grammars.bindings import ParsedBindings, parse_file
from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel.bindings import ModelObject, SpanTable
from cfmodel.transforms.compose import ComposeOptions, Injector, LayerInput, Value, compose

SITE_FILE = "site.bind"
BINDINGS_DIR = "bindings"
SUFFIX = ".bind"
DEFAULT_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (("site", ("confdir:/default",)),)


class BindingsProvider(Protocol):
    """Finds the bindings a URI of one scheme names (one call per URI of a layer)."""

    @property
    def scheme(self) -> str:
        """The URI scheme, without the colon."""
        ...

    def load(self, path: str, span: Span | None, diags: Diagnostics) -> list[ParsedBindings]:
        """The parsed files for ``path`` (the URI without ``scheme:``); report, don't raise."""
        ...


@dataclass(frozen=True, slots=True)
class ConfdirProvider:
    """``confdir:/a/b`` → ``<root>/bindings/a/b.bind`` holding ``bindings a::b``."""

    root: Path
    scheme: str = "confdir"

    def load(self, path: str, span: Span | None, diags: Diagnostics) -> list[ParsedBindings]:
        pattern = path.strip("/").replace("::", "/")
        folder = self.root / BINDINGS_DIR
        files = sorted(folder.glob(_glob(pattern))) if folder.is_dir() else []
        if not files and "*" not in pattern:
            message = f'no bindings "{pattern.replace("/", "::")}" (looked for {folder / pattern}{SUFFIX})'
            diags.error(span, message, "bindings-not-found")
        loaded = []
        for file in files:
            parsed = parse_file(file)
            if _named_as_file(parsed, file.relative_to(folder), diags):
                loaded.append(parsed)
        return loaded


def _glob(pattern: str) -> str:
    if pattern.endswith("**"):
        return pattern[:-2] + "**/*" + SUFFIX
    return pattern + SUFFIX


def _named_as_file(parsed: ParsedBindings, relative: Path, diags: Diagnostics) -> bool:
    expected = "::".join(relative.with_suffix("").parts)
    names = [str(n.name) for n in parsed.named_bindings]
    if names == [expected]:
        return True
    message = f'{relative} must hold exactly "bindings {expected}" (found: {", ".join(names) or "nothing"})'
    span = parsed.spans.get(parsed.named_bindings[0]) if names else Span(parsed.file, 1, 1, 1, 1)
    diags.error(span, message, "bindings-name-mismatch")
    return False


@dataclass(frozen=True, slots=True)
class LoadedLayers:
    layers: list[LayerInput]
    spans: SpanTable


def load_layers(
    layers: Sequence[ModelObject], providers: Mapping[str, BindingsProvider], spans: SpanTable
) -> LoadedLayers:
    """Resolve every layer's URIs with the providers; errors are raised together at the end.

    Raises:
        CfCompileError: unknown schemes, missing bindings, misnamed files.
        CfSyntaxError: a bindings file does not parse.
    """
    diags = Diagnostics()
    merged = SpanTable()
    merged.update(spans)
    result = []
    for layer in layers:
        span = spans.get(layer)
        included = _resolve(list(layer.include), providers, span, diags, merged)
        excluded = {str(n.name) for n in _resolve(list(layer.exclude), providers, span, diags, merged)}
        chosen = {str(n.name): n for n in included if str(n.name) not in excluded}
        result.append(LayerInput(str(layer.name), [chosen[k] for k in sorted(chosen)], span))
    diags.raise_if_errors()
    return LoadedLayers(result, merged)


def _resolve(
    uris: list[str],
    providers: Mapping[str, BindingsProvider],
    span: Span | None,
    diags: Diagnostics,
    spans: SpanTable,
) -> list[ModelObject]:
    found: list[ModelObject] = []
    for uri in uris:
        scheme, _, path = uri.partition(":")
        provider = providers.get(scheme)
        if provider is None:
            known = ", ".join(f"{s}:" for s in sorted(providers))
            diags.error(
                span, f'unknown bindings scheme "{scheme}:" in "{uri}" (known: {known})', "unknown-scheme"
            )
            continue
        for parsed in provider.load(path, span, diags):
            spans.update(parsed.spans)
            found.extend(parsed.named_bindings)
    return found


def default_layers() -> list[ModelObject]:
    """The layers used when the site declares none: ``site`` = ``confdir:/default``."""
    return [bm.Layer(name=name, include=list(uris)) for name, uris in DEFAULT_LAYERS]


def create_injector(
    confdir: str | Path,
    facts: Mapping[str, Value],
    options: ComposeOptions | None = None,
    providers: Mapping[str, BindingsProvider] | None = None,
) -> Injector:
    """Load ``<confdir>/site.bind`` (if any) and the layers' bindings, and compose them.

    Args:
        confdir: the project folder holding ``site.bind`` and ``bindings/``.
        facts: the request's facts.
        options: composition options.
        providers: extra providers by scheme (``confdir:`` is always there).

    Raises:
        CfSyntaxError: a file does not parse.
        CfCompileError: provider or composition errors, all together.
    """
    root = Path(confdir)
    all_providers: dict[str, BindingsProvider] = {"confdir": ConfdirProvider(root)}
    all_providers.update(providers or {})
    spans = SpanTable()
    sites: list[ModelObject] = []
    site_file = root / SITE_FILE
    if site_file.is_file():
        parsed = parse_file(site_file)
        spans.update(parsed.spans)
        sites = parsed.sites
    layers = [layer for site in sites for layer in site.layers] or default_layers()
    loaded = load_layers(layers, all_providers, spans)
    return compose(loaded.layers, facts, loaded.spans, sites, options)
