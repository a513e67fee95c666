"""Shared fixtures of the bindings tests: compose bindings given as source text."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from cfmodel.errors import CfModelError
from cfmodel.grammars.bindings import parse_str
from cfmodel.metamodel.bindings import SpanTable
from cfmodel.transforms.bindings.compose import ComposeOptions, Injector, LayerInput, compose

Build = Callable[..., Injector]


def _build(
    *layers: str | Sequence[str],
    facts: Mapping[str, Any] | None = None,
    site: str | None = None,
    options: ComposeOptions | None = None,
) -> Injector:
    """Each layer is one source text (or several); layer i is named ``layer<i>`` and its
    files ``l<i>.bind`` (``l<i>_<j>.bind`` for several). The site text is ``site.bind``."""
    spans = SpanTable()
    inputs = []
    for i, layer in enumerate(layers):
        texts = [layer] if isinstance(layer, str) else list(layer)
        named = []
        for j, text in enumerate(texts):
            parsed = parse_str(text, f"l{i}.bind" if len(texts) == 1 else f"l{i}_{j}.bind")
            spans.update(parsed.spans)
            named.extend(parsed.named_bindings)
        inputs.append(LayerInput(f"layer{i}", named))
    sites = []
    if site is not None:
        parsed = parse_str(site, "site.bind")
        spans.update(parsed.spans)
        sites = parsed.sites
    return compose(inputs, facts or {}, spans, sites, options)


@pytest.fixture
def build() -> Build:
    return _build


def rendered(err: CfModelError) -> str:
    return "\n".join(d.render() for d in err.diagnostics())


@pytest.fixture
def errors_of() -> Callable[..., str]:
    """The full rendered diagnostics of a composition that must fail."""

    def run(*layers: str | Sequence[str], **kwargs: Any) -> str:
        with pytest.raises(CfModelError) as caught:
            _build(*layers, **kwargs)
        return rendered(caught.value)

    return run
