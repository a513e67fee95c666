"""Options and inputs of a composition."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from cfmodel.errors import Span
from cfmodel.metamodel.bindings import ModelObject
from cfmodel.transforms.bindings.compose.values import ProducerFactory


class NestingRule(enum.Enum):
    """How a nested (``and``-ed) binding is ranked."""

    VECTOR = "vector"  # numbered paragraphs: more specific, never above the next category
    HIGHEST = "highest"  # the seed's literal rule: the precedence of its highest category


@dataclass(frozen=True, slots=True)
class ComposeOptions:
    """Settings of a composition; ``producers`` maps producer type names (or names) to factories.

    ``lenient``: make the injector despite errors (for ``cfmodel bindings inject/explain``):
    a key that an error concerns fails at lookup with its errors, every other key answers,
    and ``Injector.problems`` lists them all. The compiler composes strictly (ARM-8: an
    error stops the compile), as does the default.
    """

    nesting: NestingRule = NestingRule.VECTOR
    producers: Mapping[str, ProducerFactory] = field(default_factory=dict)
    lenient: bool = False


#: A provider's account of how it looked a key up (lines of text; ``explain`` shows them).
KeyTracer = Callable[[str], list[str]]


@dataclass(frozen=True, slots=True)
class LayerInput:
    """One layer: a label, its bindings (``NamedBindings``), where it was declared, and the
    tracers of the providers that made some of them (by bindings name: ``hiera``)."""

    name: str
    bindings: Sequence[ModelObject]
    span: Span | None = None
    tracers: Mapping[str, KeyTracer] = field(default_factory=dict)
