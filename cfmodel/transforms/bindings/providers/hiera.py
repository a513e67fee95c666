"""``hiera:``: Hiera 5 data (``hiera.yaml`` + YAML/JSON files) as bindings, per request.

Input: a Hiera 5 configuration (``hiera:`` is ``<root>/hiera.yaml``, ``hiera:/x/h.yaml`` is
``<root>/x/h.yaml``), the request's facts, and merge behaviours to force for some keys (as
``puppet lookup --merge`` does). Output: one ``bindings hiera`` (``hiera::x::h`` for another
file) binding every key found in the request's data files to the value Hiera 5 would look up:
the hierarchy's paths are interpolated with the facts, each key's value is merged across the
levels with its merge behaviour (``lookup_options``, or ``first``), and ``%{...}`` in the data
is interpolated. The binding's span is where the key is in the highest data file that has it;
its ``provenance`` option lists every data file that contributed and the merge behaviour
(``cfmodel bindings explain`` prints them).

Hiera 5 as read here: ``version: 5``; ``defaults`` and per level ``datadir`` (relative to
the ``hiera.yaml``; default ``data``) and ``data_hash`` (``yaml_data``, ``json_data``);
levels with ``path``, ``paths``, ``glob``, ``globs`` or ``mapped_paths``; missing files are
skipped. Interpolation: ``%{facts.a.b}``, ``%{trusted.x}``, ``%{::x}``/``%{x}`` (a fact),
``%{scope('x')}``, ``%{literal('%')}``, ``%{lookup('k')}``/``%{hiera('k')}`` (the key's value
as text) and ``%{alias('k')}`` (the key's value itself, when it is the whole string); an
unknown fact is ``""``. ``lookup_options`` from every level (higher wins), by exact key or by
``^regex``. Merges: ``merges.py``. Not read: other backends (``lookup_key``, ``data_dig``,
``hocon_data``, ``uri``), ``convert_to``, dotted keys digging into hashes.

Confinement (data, facts and configuration are untrusted): every data file, datadir, path
and glob must stay inside the project root once symlinks are resolved, and a value
interpolated into a path (a fact, ``scope()``) can never change its directory: a value
holding ``/``, ``\\`` or a NUL, or that is ``.`` or ``..``, is refused. Bounds: a nested
``lookup()`` is looked up once per hierarchy (memoized), at most `MAX_LOOKUP_DEPTH` deep,
and an interpolated value is at most `MAX_INTERPOLATED_CHARS` long.

Error codes: ``hiera-config`` (no such file, not version 5, a malformed level, a path
leaving the project),
``hiera-unsupported`` (a backend or location kind not read here), ``hiera-data`` (a data file
is not a YAML/JSON mapping), ``hiera-interpolation``, ``hiera-merge``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from cfmodel.errors import Diagnostics, Span
from cfmodel.grammars.bindings import ParsedBindings
from cfmodel.inputs import load_json, load_yaml, read_text, yaml_problem
from cfmodel.transforms.bindings.compose import Value, show
from cfmodel.transforms.bindings.compose.dotted import DottedKeyError, dig, split
from cfmodel.transforms.bindings.compose.values import MISSING
from cfmodel.transforms.bindings.providers.base import BindingsBuilder, file_span, json_marks, yaml_marks
from cfmodel.transforms.bindings.providers.merges import (
    Merge,
    MergeError,
    deep_merge,
    merge_values,
    parse_merge,
)
from cfmodel.transforms.bindings.trusted import trusted_of

CONFIG = "hiera.yaml"
LOOKUP_OPTIONS = "lookup_options"
BACKENDS = ("yaml_data", "json_data")
LOCATIONS = ("path", "paths", "glob", "globs", "mapped_paths")
UNSUPPORTED = ("lookup_key", "data_dig", "hocon_data", "uri", "uris")
_INTERPOLATION = re.compile(r"%\{([^}]*)\}")
MAX_LOOKUP_DEPTH = 64
MAX_INTERPOLATED_CHARS = 1 << 20
_FUNCTION = re.compile(r"""^\s*(\w+)\(\s*(?:'([^']*)'|"([^"]*)")\s*\)\s*$""")


class HieraError(Exception):
    """A problem in the configuration or the data (``code`` and ``span`` say what and where)."""

    def __init__(self, message: str, code: str, span: Span | None) -> None:
        super().__init__(message)
        self.message, self.code, self.span = message, code, span


@dataclass(frozen=True, slots=True)
class Source:
    """One data file of the hierarchy that exists for this request."""

    level: str
    file: Path
    data: Mapping[Any, Value]
    marks: Mapping[tuple[Any, ...], tuple[int, int]]

    def span(self, key: Any) -> Span:
        line, col = self.marks.get((key,), (1, 1))
        return file_span(self.file, line, col, len(str(key)))

    def where(self, key: Any) -> str:
        return f'{self.span(key).start()} (level "{self.level}")'


@dataclass(frozen=True, slots=True)
class Location:
    """One path a level names for this request: as written, as interpolated, and its data
    (None: no such file)."""

    original: str
    path: Path
    source: Source | None


@dataclass(frozen=True, slots=True)
class Found:
    """A key's value as Hiera looks it up, and where it came from (highest first)."""

    value: Value
    sources: tuple[Source, ...]
    merge: Merge


@dataclass(slots=True)
class Hierarchy:
    """A Hiera 5 configuration, read for one request's facts."""

    config: Path
    facts: Mapping[str, Value]
    root: Path | None = None  # what every file must stay inside (default: the config's directory)
    levels: list[list[Source]] = field(default_factory=list)
    #: per level: its name and every location it names (what ``trace`` shows)
    locations: list[tuple[str, list[Location]]] = field(default_factory=list)
    _options: dict[Any, Value] | None = None
    _looking: list[Any] = field(default_factory=list)
    _nested: dict[Any, Found | None] = field(default_factory=dict)  # nested lookups done
    _resolved_root: Path | None = None  # `root` with its symlinks resolved, once

    @classmethod
    def read(cls, config: Path, facts: Mapping[str, Value], root: Path | None = None) -> Hierarchy:
        """Read the configuration and the data files its paths name for these facts.

        Raises:
            HieraError: the configuration or a data file cannot be used.
        """
        hierarchy = cls(config, facts, root)
        hierarchy._read()
        return hierarchy

    # --- the configuration -----------------------------------------------------------------
    def _read(self) -> None:
        self._confine(self.config, "the hiera configuration", None)
        try:
            text = read_text(self.config)
        except OSError as err:
            raise HieraError(f"cannot read {self.config}: {err.strerror}", "hiera-config", None) from None
        marks = yaml_marks(text)
        try:
            data = load_yaml(text)
        except yaml.YAMLError as err:
            problem, line, col = yaml_problem(err)
            span = file_span(self.config, line, col) if line and col else self._at(marks)
            raise HieraError(
                f"{self.config.name} is not valid YAML: {problem}", "hiera-config", span
            ) from None
        if not isinstance(data, dict) or data.get("version") != 5:
            raise HieraError(f"{self.config.name} must be a Hiera 5 configuration (version: 5)",
                             "hiera-config", self._at(marks, "version"))  # fmt: skip
        defaults = data.get("defaults") or {}
        levels = data.get("hierarchy")
        if levels is None:
            levels = [{"name": "Common", "path": "common.yaml"}]
        if not isinstance(defaults, dict) or not isinstance(levels, list):
            message = "defaults must be a mapping and hierarchy a list of levels"
            raise HieraError(message, "hiera-config", self._at(marks, "hierarchy"))
        for index, level in enumerate(levels):
            span = self._at(marks, "hierarchy", index)
            if not isinstance(level, dict) or not isinstance(level.get("name"), str):
                raise HieraError("a hierarchy level must be a mapping with a name", "hiera-config", span)
            self.levels.append(self._level({**defaults, **level}, span))

    def _at(self, marks: Mapping[tuple[Any, ...], tuple[int, int]], *path: Any) -> Span:
        line, col = marks.get(path, (1, 1))
        return file_span(self.config, line, col)

    def _level(self, level: Mapping[str, Any], span: Span) -> list[Source]:
        name = str(level["name"])
        for key in UNSUPPORTED:
            if key in level:
                message = f'level "{name}": {key} is not supported here (only {", ".join(BACKENDS)} data)'
                raise HieraError(message, "hiera-unsupported", span)
        backend = level.get("data_hash", "yaml_data")
        if backend not in BACKENDS:
            use = " or ".join(BACKENDS)
            message = f'level "{name}": the data_hash {show(backend)} is not supported (use {use})'
            raise HieraError(message, "hiera-unsupported", span)
        kinds = [k for k in LOCATIONS if k in level]
        if len(kinds) != 1:
            message = f'level "{name}" needs exactly one of {", ".join(LOCATIONS)}'
            raise HieraError(message, "hiera-config", span)
        datadir = self.config.parent / self._interpolate_path(str(level.get("datadir", "data")), span)
        self._confine(datadir, f'the datadir of level "{name}"', span)
        named = self._locations(kinds[0], level[kinds[0]], datadir, name, span)
        for _, file in named:
            self._confine(file, f'a data file of level "{name}"', span)
        located = [Location(o, f, self._source(name, f, backend) if _is_file(f) else None) for o, f in named]
        self.locations.append((name, located))
        return [found.source for found in located if found.source is not None]

    def _confine(self, path: Path, what: str, span: Span | None) -> None:
        """Refuse *path* unless it stays inside the root once symlinks are resolved."""
        root = self._resolved_root
        if root is None:
            root = self._resolved_root = (self.root or self.config.parent).resolve()
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError):  # a symlink loop, a name too long
            resolved = None
        if resolved is None or not resolved.is_relative_to(root):
            message = f"{what} is outside the project ({path}); hiera reads only files under {root}"
            raise HieraError(message, "hiera-config", span or file_span(self.config))

    def _locations(
        self, kind: str, spec: Any, datadir: Path, name: str, span: Span
    ) -> list[tuple[str, Path]]:
        """The files a level names for this request, each with the text it was written as."""
        if kind == "mapped_paths":
            if not (isinstance(spec, list) and len(spec) == 3 and all(isinstance(s, str) for s in spec)):
                message = f'level "{name}": mapped_paths is [<fact or variable>, <name>, <path>]'
                raise HieraError(message, "hiera-config", span)
            values = self._variable(spec[0])
            items = list(values) if isinstance(values, list | dict) else [] if values is None else [values]
            pairs = [(spec[2], self._interpolate_path(spec[2], span, {spec[1]: i})) for i in items]
            for _, path in pairs:
                if Path(path).is_absolute() or ".." in Path(path).parts:
                    message = f'level "{name}": the mapped path {path!r} must be relative, inside the datadir'
                    raise HieraError(message, "hiera-config", span)
            return [(original, datadir / path) for original, path in pairs]
        specs = [spec] if kind in ("path", "glob") else spec
        if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
            raise HieraError(f'level "{name}": {kind} must be text or a list of texts', "hiera-config", span)
        paths = [(s, self._interpolate_path(s, span)) for s in specs]
        for _, path in paths:
            if Path(path).is_absolute() or ".." in Path(path).parts:
                message = f'level "{name}": the {kind} {path!r} must be relative, inside the datadir'
                raise HieraError(message, "hiera-config", span)
        if kind in ("glob", "globs"):
            return [(s, f) for s, p in paths for f in sorted(datadir.glob(p))]
        return [(s, datadir / p) for s, p in paths]

    def _source(self, level: str, file: Path, backend: str) -> Source:
        try:
            text = read_text(file)
        except OSError as err:
            raise HieraError(f"cannot read {file}: {err.strerror}", "hiera-data", None) from None
        try:
            data = load_json(text) if backend == "json_data" else load_yaml(text)
        except yaml.YAMLError as err:
            problem, line, col = yaml_problem(err)
            span = file_span(file, line, col) if line and col else file_span(file)
            raise HieraError(f"{file.name} is not valid YAML: {problem}", "hiera-data", span) from None
        except json.JSONDecodeError as err:
            span = file_span(file, err.lineno, err.colno)
            raise HieraError(f"{file.name} is not valid JSON: {err.msg}", "hiera-data", span) from None
        except ValueError as err:  # a number Python will not read (over 4,300 digits)
            raise HieraError(f"{file.name} is not valid JSON: {err}", "hiera-data", file_span(file)) from None
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise HieraError(f"{file} must hold a mapping of keys to values", "hiera-data", file_span(file))
        marks = json_marks(text) if backend == "json_data" else yaml_marks(text)
        return Source(level, file, data, marks)

    # --- interpolation --------------------------------------------------------------------------
    def _variable(self, expr: str, extra: Mapping[str, Value] | None = None) -> Value:
        """A fact or variable: ``facts.os.family``, ``trusted.certname``, ``::fqdn``, ``fqdn``."""
        parts = expr.strip().removeprefix("::").split(".")
        if extra and parts[0] in extra:
            value: Value = extra[parts[0]]
        elif parts[0] == "facts":
            value = dict(self.facts)
        elif parts[0] == "trusted":
            value = dict(trusted_of(self.facts))
        else:
            value = self.facts.get(parts[0])
        for part in parts[1:]:
            value = value.get(part) if isinstance(value, dict) else None
        return value

    def _interpolate_path(self, text: str, span: Span, extra: Mapping[str, Value] | None = None) -> str:
        def replace(expr: str) -> Value:
            function = _FUNCTION.match(expr)
            if function is not None:
                name, argument = function.group(1), function.group(2) or function.group(3) or ""
                if name == "literal":
                    return argument
                if name == "scope":
                    return _path_part(self._variable(argument, extra), argument, span)
                message = f"{name}() cannot be used in a hierarchy path (only facts, scope() and literal())"
                raise HieraError(message, "hiera-interpolation", span)
            return _path_part(self._variable(expr, extra), expr, span)

        return str(_interpolate(text, replace, None))

    def interpolate(self, value: Value, source: Source, key: Any) -> Value:
        """``%{...}`` in a data value (in strings, hash keys, nested arrays and hashes)."""
        if isinstance(value, str):
            return self._interpolate_text(value, source, key)
        if isinstance(value, list):
            return [self.interpolate(v, source, key) for v in value]
        if isinstance(value, dict):
            return {
                self.interpolate(k, source, key): self.interpolate(v, source, key) for k, v in value.items()
            }
        return value

    def _interpolate_text(self, text: str, source: Source, key: Any) -> Value:
        if "%{" not in text:
            return text
        span = source.span(key)

        def replace(expr: str) -> Value:
            function = _FUNCTION.match(expr)
            if function is None:
                return self._variable(expr)
            name, argument = function.group(1), function.group(2) or function.group(3) or ""
            if name == "literal":
                return argument
            if name == "scope":
                return self._variable(argument)
            if name in ("lookup", "hiera", "alias"):
                return self._nested_value(argument, span)
            raise HieraError(
                f"unknown interpolation function {name}() in {text!r}", "hiera-interpolation", span
            )

        alias = _FUNCTION.match(text[2:-1]) if text.startswith("%{") and text.endswith("}") else None
        if alias is not None and alias.group(1) == "alias":
            return replace(text[2:-1])
        if "alias(" in text:
            message = f"alias() must be the whole value, as in '%{{alias(\"key\")}}' (in {text!r})"
            raise HieraError(message, "hiera-interpolation", span)
        result = _interpolate(text, replace, span)
        if isinstance(result, str) and len(result) > MAX_INTERPOLATED_CHARS:
            message = (
                f"interpolation makes the value of {key!r} longer than {MAX_INTERPOLATED_CHARS:,} characters"
            )
            raise HieraError(message, "hiera-interpolation", span)
        return result

    def _nested_value(self, name: str, span: Span) -> Value:
        """``lookup('k')``, ``lookup('a.b.0')`` (digs after the merge, as Puppet), in data."""
        try:
            segments = split(name)
        except DottedKeyError as err:
            raise HieraError(str(err), "hiera-interpolation", span) from None
        found = self._nested_lookup(name if segments is None else str(segments[0]), span)
        if found is None:
            return None
        value = found.value if segments is None else dig(found.value, segments[1:])
        return None if value is MISSING else value

    def _nested_lookup(self, name: str, span: Span) -> Found | None:
        if name in self._looking:
            chain = " -> ".join(repr(k) for k in [*self._looking[self._looking.index(name) :], name])
            raise HieraError(f"endless interpolation: {chain}", "hiera-interpolation", span)
        if name in self._nested:
            return self._nested[name]
        if len(self._looking) >= MAX_LOOKUP_DEPTH:
            message = f"lookups nest more than {MAX_LOOKUP_DEPTH} deep (at {name!r})"
            raise HieraError(message, "hiera-interpolation", span)
        found = self._nested[name] = self.lookup(name)
        return found

    # --- lookups ----------------------------------------------------------------------------------
    def all_keys(self) -> list[Any]:
        """Every key of this request's data files (highest level first, each once)."""
        seen: dict[Any, None] = {}
        for level in self.levels:
            for source in level:
                for key in source.data:
                    if key != LOOKUP_OPTIONS:
                        seen.setdefault(key, None)
        return list(seen)

    def merge_of(self, key: Any) -> Merge:
        """The merge behaviour of ``lookup_options`` for a key (``first`` if none)."""
        found = _options_entry(self._lookup_options(), key)
        if found is None:
            return Merge()
        entry = found[1]
        if not isinstance(entry, dict):
            raise MergeError(f"the lookup_options of {key!r} must be a mapping, not {show(entry)}")
        return parse_merge(entry.get("merge"))

    def _lookup_options(self) -> dict[Any, Value]:
        if self._options is None:
            found = [
                s.data[LOOKUP_OPTIONS] for level in self.levels for s in level if LOOKUP_OPTIONS in s.data
            ]
            merged: dict[Any, Value] = {}
            for options in reversed(found):
                if isinstance(options, dict):
                    merged = deep_merge(options, merged, Merge("deep"))
            self._options = merged
        return self._options

    def lookup(self, key: Any, merge: Merge | None = None) -> Found | None:
        """The key's value for this request (None: no data file has it).

        Raises:
            HieraError, MergeError: interpolation or merge problems.
        """
        self._looking.append(key)
        try:
            return self._lookup(key, merge or self.merge_of(key))
        finally:
            self._looking.pop()

    def _lookup(self, key: Any, merge: Merge) -> Found | None:
        values: list[Value] = []
        sources: list[Source] = []
        for level in self.levels:
            level_values = [self.interpolate(s.data[key], s, key) for s in level if key in s.data]
            if not level_values:
                continue
            sources.extend(s for s in level if key in s.data)
            values.append(merge_values(level_values, merge, single=len(level) == 1))
            if merge.strategy == "first":
                break
        if not values:
            return None
        return Found(merge_values(values, merge, single=len(self.levels) == 1), tuple(sources), merge)


class Tracer:
    """How Hiera looked one key up for this request, in the words of ``puppet lookup
    --explain``: the ``lookup_options`` search and where the key's merge came from, then every
    level and path searched (as written and as interpolated; "Path not found", "No such key",
    or "Found key" with that level's own value) and the merged result. Paths are relative to
    the project when inside it."""

    def __init__(self, hierarchy: Hierarchy, root: Path, forced: Mapping[str, Merge]) -> None:
        self.hierarchy, self.root, self.forced = hierarchy, root, forced

    def __call__(self, name: str) -> list[str]:
        try:
            segments = split(name)
        except DottedKeyError:
            return [f'Searching for "{name}": not a valid key']
        key = name if segments is None else str(segments[0])
        try:
            merge = self.forced.get(key) or self.hierarchy.merge_of(key)
            lines = [*self._options(key, merge), *self._search(key, merge)]
        except (HieraError, MergeError) as err:
            return [f'Searching for "{key}": {err.message}']
        if segments is not None and len(segments) > 1:
            found = self.hierarchy.lookup(key, merge)
            value = dig(found.value, segments[1:]) if found is not None else MISSING
            dug = f"value: {show(value)}" if value is not MISSING else "not found"
            lines.append(f'Digging into "{name}": {dug}')
        return lines

    def _path(self, path: Path) -> str:
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def _options(self, key: str, merge: Merge) -> list[str]:
        lines = [f'Searching for "{LOOKUP_OPTIONS}"']
        origin = None
        for level, locations in self.hierarchy.locations:
            lines.append(f'  Hierarchy entry "{level}"')
            for location in locations:
                lines.extend(self._path_lines(location, 4))
                source = location.source
                if source is None:
                    continue
                options = source.data.get(LOOKUP_OPTIONS)
                entry = _options_entry(options, key) if isinstance(options, dict) else None
                if entry is None:
                    lines.append(f'      No such key: "{LOOKUP_OPTIONS}" entry for "{key}"')
                    continue
                said = f"entry {show(entry[0])} value: {show(entry[1])}"
                lines.append(f'      Found key: "{LOOKUP_OPTIONS}" {said}')
                origin = origin or f'{self._path(source.file)}, level "{level}"'
        if str(key) in self.forced:
            said = "given on the command line (--merge)"
        else:
            said = f"from {origin}" if origin else "the default: no lookup_options entry"
        lines.append(f'  Merge of "{key}": {merge} ({said})')
        return lines

    def _search(self, key: str, merge: Merge) -> list[str]:
        lines = [f'Searching for "{key}" (merge {merge.strategy})']
        found = False
        for level, locations in self.hierarchy.locations:
            lines.append(f'  Hierarchy entry "{level}"')
            for location in locations:
                lines.extend(self._path_lines(location, 4))
                source = location.source
                if source is None:
                    continue
                if key not in source.data:
                    lines.append(f'      No such key: "{key}"')
                    continue
                value = self.hierarchy.interpolate(source.data[key], source, key)
                lines.append(f'      Found key: "{key}" value: {show(value)}')
                found = True
            if found and merge.strategy == "first":
                return lines
        if not found:
            lines.append(f'  Not found: no data file of this request has "{key}"')
        elif merge.strategy != "first":
            result = self.hierarchy.lookup(key, merge)
            lines.append(f"  Merged result: {show(result.value) if result is not None else 'none'}")
        return lines

    def _path_lines(self, location: Location, indent: int) -> list[str]:
        pad = " " * indent
        lines = [f'{pad}Path "{self._path(location.path)}"', f'{pad}  Original path: "{location.original}"']
        if location.source is None:
            lines.append(f"{pad}  Path not found")
        return lines


def _options_entry(options: Mapping[Any, Value], key: Any) -> tuple[Any, Value] | None:
    """The ``lookup_options`` entry that applies to a key: exact, else the first ``^regex``."""
    if key in options:
        return key, options[key]
    for name, value in options.items():
        if isinstance(name, str) and name.startswith("^") and _search(name, key):
            return name, value
    return None


def _search(pattern: str, key: Any) -> bool:
    try:
        return re.search(pattern, str(key)) is not None
    except (re.error, RecursionError, OverflowError, ValueError) as err:
        raise MergeError(
            f"the lookup_options key {pattern!r} is not a valid regular expression: {err}"
        ) from None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name too long, a loop: no such data file
        return False


def _path_part(value: Value, expr: str, span: Span) -> Value:
    """A value interpolated into a path, refused if it could change the path's directory."""
    text = "" if value is None else str(value)
    if any(c in text for c in "/\\\0") or text in (".", ".."):
        message = f"the value of {expr.strip()!r} cannot be used in a hierarchy path ({show(text)[:60]})"
        raise HieraError(message, "hiera-interpolation", span)
    return value


def _interpolate(text: str, replace: Callable[[str], Value], span: Span | None) -> Value:
    def one(match: re.Match[str]) -> str:
        value = replace(match.group(1))
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            return str(value)
        return json.dumps(value)

    return _INTERPOLATION.sub(one, text)


@dataclass(frozen=True, slots=True)
class HieraProvider:
    """``hiera:`` for one request: the facts choose the data files."""

    root: Path
    facts: Mapping[str, Value]
    merges: Mapping[str, Merge] = field(default_factory=dict)
    scheme: str = "hiera"

    def config(self, path: str) -> Path:
        relative = path.strip("/") or CONFIG
        return self.root / relative

    def load(self, path: str, span: Span | None, diags: Diagnostics) -> list[ParsedBindings]:
        config = self.config(path)
        try:
            hierarchy = Hierarchy.read(config, self.facts, self.root)
        except HieraError as err:
            diags.error(err.span or span, err.message, err.code)
            return []
        relative = config.relative_to(self.root) if config.is_relative_to(self.root) else config
        name = "hiera" if str(relative) == CONFIG else "hiera::" + "::".join(relative.with_suffix("").parts)
        builder = BindingsBuilder(str(config))
        named = builder.named(re.sub(r"[^A-Za-z0-9_:]", "_", name))
        for key in hierarchy.all_keys():
            found = self._lookup(hierarchy, key, diags)
            if found is None:
                continue
            builder.bind(named, str(key), found.value, self._bound_at(config, found, key))
        return [replace(builder.result(), tracer=Tracer(hierarchy, self.root, self.merges))]

    @staticmethod
    def _bound_at(config: Path, found: Found, key: Any) -> Span:
        """Where a key is bound: its data file when one file gave the value, else (a merge of
        several) the configuration: the value is no one file's."""
        return found.sources[0].span(key) if len(found.sources) == 1 else file_span(config)

    def _lookup(self, hierarchy: Hierarchy, key: Any, diags: Diagnostics) -> Found | None:
        try:
            return hierarchy.lookup(key, self.merges.get(str(key)))
        except HieraError as err:
            diags.error(err.span, err.message, err.code)
        except MergeError as err:
            where = next((s.span(key) for level in hierarchy.levels for s in level if key in s.data), None)
            diags.error(where, f"cannot merge the values of {key!r}: {err.message}", err.code)
        return None


def lookup(config: Path, facts: Mapping[str, Value], key: str, merge: Merge | None = None) -> Found | None:
    """Look one key up the way ``puppet lookup`` does (for tests and the CLI): a dotted key
    (``a.b.0``) looks its first segment up, with its merge, and digs into the value.

    Raises:
        HieraError, MergeError: see ``Hierarchy``; HieraError also for a malformed dotted key.
    """
    try:
        segments = split(key)
    except DottedKeyError as err:
        raise HieraError(str(err), "hiera-interpolation", None) from None
    hierarchy = Hierarchy.read(config, facts)
    if segments is None:
        return hierarchy.lookup(key, merge)
    found = hierarchy.lookup(str(segments[0]), merge)
    value = dig(found.value, segments[1:]) if found is not None else MISSING
    return None if found is None or value is MISSING else Found(value, found.sources, found.merge)
