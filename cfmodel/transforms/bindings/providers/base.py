"""The provider interface, and resolving a site's layers with providers.

A ``BindingsProvider`` serves one URI scheme: ``load(path, span, diags)`` returns the
parsed (or built) bindings a URI names, ``path`` being the URI without ``scheme:``. It
reports problems into ``diags`` (with ``span``, the layer's declaration, when it has nothing
better) and returns what it could load. ``load_layers`` resolves every layer's ``include`` and
``exclude`` URIs and raises all errors together.

Guarantees of ``load_layers``: in a layer every bindings name appears once, in sorted order
of the names; excluded names are removed; the span tables of everything loaded are merged.

Error codes: ``unknown-scheme``, plus those of the providers.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import yaml

from cfmodel.errors import Diagnostic, Diagnostics, Span
from cfmodel.grammars.bindings import ParsedBindings
from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel.bindings import ModelObject, SpanTable
from cfmodel.metamodel.runtime.objects import ObjectBuilder
from cfmodel.transforms.bindings.compose import LayerInput, Value
from cfmodel.transforms.bindings.compose.options import KeyTracer


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
class ProviderContext:
    """What a provider may need to know about the request (given to provider factories).

    ``root``: the project folder; ``module_path``: where modules are; ``facts``: the
    request's facts; ``settings``: the ``bindings:`` section of the project settings.
    """

    root: Path
    module_path: tuple[Path, ...] = ()
    facts: Mapping[str, Value] | None = None
    settings: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class LoadedLayers:
    layers: list[LayerInput]
    spans: SpanTable
    problems: tuple[Diagnostic, ...] = ()  # the errors of a lenient load


def load_layers(
    layers: Sequence[ModelObject],
    providers: Mapping[str, BindingsProvider],
    spans: SpanTable,
    lenient: bool = False,
) -> LoadedLayers:
    """Resolve every layer's URIs with the providers; errors are raised together at the end
    (``lenient``: kept in ``problems`` instead, with what could be loaded).

    Raises:
        CfCompileError: unknown schemes, missing bindings, misnamed files, bindings files that
            do not parse, provider errors.
    """
    diags = Diagnostics()
    merged = SpanTable()
    merged.update(spans)
    result = []
    for layer in layers:
        span = spans.get(layer)
        tracers: dict[str, KeyTracer] = {}
        included = _resolve(list(layer.include), providers, span, diags, merged, tracers)
        excluded = {str(n.name) for n in _resolve(list(layer.exclude), providers, span, diags, merged, {})}
        chosen = {str(n.name): n for n in included if str(n.name) not in excluded}
        kept = {name: tracer for name, tracer in tracers.items() if name in chosen}
        result.append(LayerInput(str(layer.name), [chosen[k] for k in sorted(chosen)], span, kept))
    if not lenient:
        diags.raise_if_errors()
    return LoadedLayers(result, merged, tuple(diags.sorted()))


def _resolve(
    uris: list[str],
    providers: Mapping[str, BindingsProvider],
    span: Span | None,
    diags: Diagnostics,
    spans: SpanTable,
    tracers: dict[str, KeyTracer],
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
            if parsed.tracer is not None:
                tracers.update((str(n.name), parsed.tracer) for n in parsed.named_bindings)
    return found


def file_span(file: str | Path, line: int = 1, col: int = 1, length: int = 0) -> Span:
    """A span in a data file (1-based line and column)."""
    return Span(str(file), line, col, line, col + length)


class BindingsBuilder:
    """Builds bindings models from data (for providers that read no ``.bind`` files).

    Every element gets a span (in the data file it came from) in ``spans``. The objects
    are made by the runtime's `ObjectBuilder` (registered as PyEcore instances by `result`).
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.spans = SpanTable()
        self.objects = ObjectBuilder()
        self.root = self.objects.make(bm.BindingsFile)
        self.spans.set(self.root, file_span(file))

    def named(self, name: str, span: Span | None = None) -> ModelObject:
        named = self.objects.make(bm.NamedBindings, name=name)
        self.root.elements.append(named)
        self.spans.set(named, span or file_span(self.file))
        return named

    def _add(self, container: ModelObject, element: ModelObject, span: Span | None) -> ModelObject:
        container.elements.append(element)
        self._span_all(element, span or file_span(self.file))
        return element

    def _span_all(self, element: ModelObject, span: Span) -> None:
        self.spans.set(element, span)
        for child in element.eAllContents():
            self.spans.set(child, span)

    def bind(
        self,
        container: ModelObject,
        name: str,
        value: Value,
        span: Span | None = None,
        options: Mapping[str, Value] | None = None,
    ) -> ModelObject:
        """``bind "name" to <value> { options }``."""
        make, b = self.objects.make, self.objects
        binding = make(
            bm.Binding,
            key=make(bm.Key, name=name),
            producer=make(bm.ConstantProducer, value=bm.literal_of(value, b)),
            options=[
                make(bm.Option, name=option, value=bm.literal_of(option_value, b))
                for option, option_value in (options or {}).items()
            ],
        )
        return self._add(container, binding, span)

    def classes(self, container: ModelObject, names: Sequence[str], span: Span | None = None) -> ModelObject:
        """``include [names]``."""
        element = self.objects.make(bm.ClassesBinding, exclude=False, classes=names)
        return self._add(container, element, span)

    def parameters(
        self, container: ModelObject, target: str, values: Mapping[str, Value], span: Span | None = None
    ) -> ModelObject:
        """``bind parameters <class> to { values }`` (``target``: a class name or a type)."""
        make = self.objects.make
        ref = (
            make(bm.TypeRef, name="Class", title=target)
            if not target[:1].isupper()
            else self._type_ref(target)
        )
        producer = make(bm.ConstantProducer, value=bm.literal_of(dict(values), self.objects))
        return self._add(container, make(bm.ParametersBinding, target=ref, producer=producer), span)

    def variables(
        self, container: ModelObject, values: Mapping[str, Value], span: Span | None = None
    ) -> ModelObject:
        """``bind variables to { values }``."""
        make = self.objects.make
        producer = make(bm.ConstantProducer, value=bm.literal_of(dict(values), self.objects))
        return self._add(container, make(bm.VariablesBinding, producer=producer), span)

    def _type_ref(self, text: str) -> ModelObject:
        name, _, rest = text.partition("[")
        if rest:
            return self.objects.make(bm.TypeRef, name=name, title=rest.rstrip("]").strip("'\""))
        return self.objects.make(bm.TypeRef, name=name)

    def result(self) -> ParsedBindings:
        """The bindings file made (its objects registered as PyEcore instances)."""
        self.objects.finish()
        return ParsedBindings(self.root, self.spans, self.file)


def yaml_marks(text: str) -> dict[tuple[Any, ...], tuple[int, int]]:
    """Where the keys of a YAML mapping are (1-based line, column), two levels deep.

    ``{("a",): (1, 1), ("a", "b"): (2, 3)}``; list items are keyed by index. Empty when the
    text does not compose (the caller reports the load error).
    """
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return {}
    marks: dict[tuple[Any, ...], tuple[int, int]] = {}
    _marks(node, (), marks, 2)
    return marks


def _marks(
    node: Any, path: tuple[Any, ...], marks: dict[tuple[Any, ...], tuple[int, int]], depth: int
) -> None:
    if depth == 0 or node is None:
        return
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue  # a list or mapping as a key: the loader reports it
            key = (*path, key_node.value)
            marks[key] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            _marks(value_node, key, marks, depth - 1)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            key = (*path, index)
            marks[key] = (item.start_mark.line + 1, item.start_mark.column + 1)
            _marks(item, key, marks, depth - 1)


def json_marks(text: str) -> dict[tuple[Any, ...], tuple[int, int]]:
    """Where the top-level keys of a JSON object are (first occurrence of ``"key":``)."""
    marks: dict[tuple[Any, ...], tuple[int, int]] = {}
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    for match in re.finditer(r'"((?:\\.|[^"\\])*)"\s*:', text):
        try:
            key = json.loads(f'"{match.group(1)}"')
        except ValueError:
            continue
        line = bisect.bisect_right(starts, match.start())
        marks.setdefault((key,), (line, match.start() - starts[line - 1] + 1))
    return marks
