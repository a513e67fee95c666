"""Compose layered bindings into an injector (ARM-8 "Composition of Bindings").

Input: the layers (highest precedence first), each a list of ``NamedBindings`` model objects
(``cfmodel.metamodel.bindings``), the ``Site`` declarations (categories), the ``SpanTable`` of
the parsed files, the caller's facts (a plain ``dict``) and ``ComposeOptions``.
Output: an ``Injector``: ``lookup``/``inject`` (by name, by type, with a default),
``instance_parameters()`` (constructor parameters for the compiler), ``variables()``,
``classes()``, ``explain()`` and ``effective()``. ``compose()`` is ``prepare()`` (what facts
cannot change, once per set of bindings) then ``PreparedBindings.injector(facts)`` (per request).

Semantics: a key is ``(type, name)``; every subtype of ``Data`` shares the name space
``Data``. Precedence is the layer first, then the category. A nested or ``and``-ed binding
is ranked by its precedence vector (the seed's "numbered paragraphs": 3.2 < 4);
``NestingRule.HIGHEST`` selects the seed's literal rule. ``or`` expands into one binding per
branch. Multibind fragments are collected in (layer, precedence, declaration order) order.

Guarantees: every composition error is collected and reported together, sorted by position,
in one ``CfCompileError`` raised by ``compose``; each names the key, the bindings, the layer,
the category and the source span.

The package, one concern per module:

* ``values``: keys, types, bound values, ``conforms``/``show``;
* ``functions``, ``expressions``: the expression language;
* ``combinators``: folding multibind fragments;
* ``categories``: the site's categories and their values;
* ``entries``: bind operations flattened per condition;
* ``composer``: checks and resolution;
* ``prepare``: everything facts cannot change, done once for many requests;
* ``injector``, ``explain``: the lookups (and the compiler's API) and their provenance;
* ``export``: effective bindings as a model (XMI/JSON).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cfmodel.errors import Diagnostic
from cfmodel.metamodel.bindings import ModelObject, SpanTable
from cfmodel.transforms.bindings.compose.categories import Category, category_text, resolve_categories
from cfmodel.transforms.bindings.compose.combinators import ARRAY_STRATEGIES, HASH_STRATEGIES, combine
from cfmodel.transforms.bindings.compose.composer import Resolved
from cfmodel.transforms.bindings.compose.entries import Entry, type_spec
from cfmodel.transforms.bindings.compose.explain import Candidate, Explanation, MergeStep
from cfmodel.transforms.bindings.compose.export import effective_model
from cfmodel.transforms.bindings.compose.expressions import ExpressionError, call_lambda, evaluate
from cfmodel.transforms.bindings.compose.functions import FUNCTIONS, deep_merge
from cfmodel.transforms.bindings.compose.injector import (
    CF_TYPES,
    EffectiveBinding,
    Injector,
    InstanceLookup,
    cf_type,
)
from cfmodel.transforms.bindings.compose.options import ComposeOptions, LayerInput, NestingRule
from cfmodel.transforms.bindings.compose.prepare import PreparedBindings, prepare
from cfmodel.transforms.bindings.compose.values import (
    DATA_TYPES,
    Key,
    LambdaValue,
    ParameterSource,
    ProducerFactory,
    TypeSpec,
    TypeValue,
    Value,
    conforms,
    describe,
    json_value,
    key_of,
    parse_type,
    show,
    terminal_text,
    type_name,
)

__all__ = [
    "ARRAY_STRATEGIES",
    "CF_TYPES",
    "DATA_TYPES",
    "FUNCTIONS",
    "HASH_STRATEGIES",
    "Candidate",
    "Category",
    "ComposeOptions",
    "EffectiveBinding",
    "Entry",
    "Explanation",
    "ExpressionError",
    "Injector",
    "InstanceLookup",
    "Key",
    "LambdaValue",
    "LayerInput",
    "MergeStep",
    "NestingRule",
    "ParameterSource",
    "PreparedBindings",
    "ProducerFactory",
    "Resolved",
    "TypeSpec",
    "TypeValue",
    "Value",
    "call_lambda",
    "category_text",
    "cf_type",
    "combine",
    "compose",
    "conforms",
    "deep_merge",
    "describe",
    "effective_model",
    "evaluate",
    "json_value",
    "key_of",
    "parse_type",
    "prepare",
    "resolve_categories",
    "show",
    "terminal_text",
    "type_name",
    "type_spec",
]


def compose(
    layers: Sequence[LayerInput],
    facts: Mapping[str, Value],
    spans: SpanTable,
    sites: Sequence[ModelObject] = (),
    options: ComposeOptions | None = None,
    problems: Sequence[Diagnostic] = (),
) -> Injector:
    """Compose the layers' bindings for these facts into an injector.

    Args:
        layers: highest precedence first.
        facts: the request's facts (``fqdn``, ``environment``, ...), read by category values.
        spans: the span table of every parsed file the bindings came from.
        sites: ``Site`` model objects (at most one may declare categories).
        options: nesting rule, custom producers, leniency.
        problems: errors of a lenient load of the layers.

    Returns:
        The injector.

    Raises:
        CfCompileError: all composition errors, sorted by position.
    """
    return prepare(layers, spans, sites, options, problems).injector(facts)
