"""Reading what users feed in, with limits: text files and YAML documents.

Input: a path (or text) that a user, a project, a data directory or an external command
supplied. Output: the text, or the Python data of one YAML document.

Guarantees:

* `read_text` refuses a file larger than `MAX_TEXT_BYTES` before reading it, and text
  that is not UTF-8 with a located ``not-utf8`` error (line and column of the first bad
  byte); `decode_text` does the same for bytes read elsewhere (a command's output).
  Errors reading the file (`OSError`) are left to the caller, which knows what the file
  is for.
* `load_yaml` builds only plain data (`yaml.SafeLoader`, with timestamps kept as text,
  sets as mappings and binary values as text: no Python objects), refuses a
  document whose aliases would add more than `MAX_YAML_ALIAS_VALUES` values to it, or
  expand it to more than `MAX_YAML_NODES` nodes (a "billion
  laughs" bomb is small on disk and huge once anything walks it) or that nests deeper
  than `MAX_YAML_DEPTH`, and raises every problem as a `yaml.YAMLError` (limits as
  `YamlLimitError`, with the position of the offending node), so callers report all of
  them the way they already report bad YAML; so are numbers longer than
  `MAX_YAML_NUMBER_CHARS` and values its constructors cannot make (a 30th of February).
  Its cost is linear in the text.
* `load_json` builds the data of a JSON text with the same depth limit, checked on the
  text before any parsing (so the data a caller walks is never deeper than
  `MAX_YAML_DEPTH`), and raises every problem as a `json.JSONDecodeError` whose line and
  column say where it is.
* `memory_allowance` caps what the process may map while a reader (or a template) works
  on untrusted data: past the allowance an allocation raises `MemoryError`, which the
  caller reports as a located error.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from cfmodel.errors import CfLoadError, Span

MAX_TEXT_BYTES = 64 * 1024 * 1024
MAX_YAML_NODES = 1_000_000  # scalars, lists and mappings, counting every alias expansion
MAX_YAML_ALIAS_VALUES = 100_000  # values aliases may add beyond the document's distinct ones
MAX_YAML_DEPTH = 200
MAX_YAML_NUMBER_CHARS = 1000  # a hexadecimal number this long still prints in decimal
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class YamlLimitError(yaml.MarkedYAMLError):
    """A YAML document over one of the limits (size once expanded, depth)."""


class _PlainLoader(yaml.SafeLoader):
    """PyYAML's safe loader, building only plain data (str, int, float, bool, None, list,
    dict): a timestamp stays the text written (``2001-02-03``), a ``!!set`` is a mapping
    to nulls (YAML's definition of a set), and ``!!binary`` is its text when that is
    UTF-8, else an error at the value (found by the fuzzing harness: a date in Hiera data
    was exit 3)."""


def _timestamp_as_text(loader: _PlainLoader, node: yaml.Node) -> str:
    assert isinstance(node, yaml.ScalarNode)  # a timestamp is a scalar by its resolver
    return str(loader.construct_scalar(node))


def _set_as_mapping(loader: _PlainLoader, node: yaml.Node) -> Iterator[dict[Any, Any]]:
    if not isinstance(node, yaml.MappingNode):
        raise yaml.constructor.ConstructorError(None, None, "a !!set must be a mapping", node.start_mark)
    yield from loader.construct_yaml_map(node)


def _binary_as_text(loader: _PlainLoader, node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        message = "a !!binary value must be a scalar"
        raise yaml.constructor.ConstructorError(None, None, message, node.start_mark)
    try:
        return str(loader.construct_yaml_binary(node).decode("utf-8"))
    except UnicodeDecodeError:
        raise yaml.constructor.ConstructorError(
            None, None, "a !!binary value that is not UTF-8 text", node.start_mark
        ) from None


_PlainLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)
_PlainLoader.add_constructor("tag:yaml.org,2002:set", _set_as_mapping)
_PlainLoader.add_constructor("tag:yaml.org,2002:binary", _binary_as_text)


def read_text(path: Path, label: str | None = None) -> str:
    """The UTF-8 text of *path*.

    Raises:
        OSError: the file cannot be read (the caller reports it).
        CfLoadError: ``too-large`` (over `MAX_TEXT_BYTES`), ``not-utf8``.
    """
    label = label or str(path)
    with path.open("rb") as stream:
        size = _size(stream.fileno())
        if size > MAX_TEXT_BYTES:
            raise _too_large(label, size)
        data = stream.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:  # not a regular file (a pipe, a device)
        raise _too_large(label, len(data))
    return decode_text(data, label)


def decode_text(data: bytes, label: str) -> str:
    """*data* decoded as UTF-8, or a ``not-utf8`` error at the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        col = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise CfLoadError(
            f"file is not valid UTF-8 text (byte 0x{data[error.start]:02x} cannot be decoded)",
            Span(label, line, col, line, col + 1),
            "not-utf8",
        ) from None


def load_yaml(text: str) -> Any:
    """The data of the single YAML document in *text* (None if empty).

    Raises:
        yaml.YAMLError: not YAML, more than one document, or over a limit (`YamlLimitError`).
    """
    _check_brackets(text)
    loader = _PlainLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:  # nesting hidden from `_check_brackets` (brackets in quotes)
            problem = f"the document nests deeper than {MAX_YAML_DEPTH} levels"
            raise YamlLimitError(problem=problem, problem_mark=loader.get_mark()) from None
        if node is None:
            return None
        _check_limits(node)
        try:
            return loader.construct_document(node)
        except (ValueError, OverflowError) as error:  # a date that does not exist, ...
            raise YamlLimitError(problem=f"a value cannot be read: {error}") from None
    finally:
        loader.dispose()


def load_json(text: str) -> Any:
    """The data of the JSON document in *text*.

    Raises:
        json.JSONDecodeError: not JSON, or nested deeper than `MAX_YAML_DEPTH` (at the
            bracket that goes too deep).
    """
    check_json_nesting(text)  # measured at C speed first (Hiera's data files, cfmodel's JSON)
    try:
        return json.loads(text)
    except RecursionError:  # not reached after the check; kept as the last line of defence
        message = f"the document nests deeper than {MAX_YAML_DEPTH} levels"
        raise json.JSONDecodeError(message, text, 0) from None


def yaml_problem(error: yaml.YAMLError) -> tuple[str, int | None, int | None]:
    """One line saying what is wrong with a YAML text, and where (1-based line, column)."""
    if isinstance(error, yaml.MarkedYAMLError):
        problem = error.problem or error.context or "not valid YAML"
        mark = error.problem_mark or error.context_mark
        if mark is not None:
            return problem, mark.line + 1, mark.column + 1
        return problem, None, None
    return str(error).splitlines()[0] if str(error) else "not valid YAML", None, None


def yaml_error_span(error: yaml.YAMLError, label: str) -> Span:
    """Where in the file *label* a YAML error is (its start when the error says nothing)."""
    _, line, col = yaml_problem(error)
    return Span(label, line or 1, col or 1, line or 1, (col or 1) + 1)


_BRACKET = re.compile(r"[\[\]{}]")


def check_yaml_nesting(text: str) -> None:
    """Refuse (`YamlLimitError`, at the bracket) a YAML text whose flow collections nest
    deeper than `MAX_YAML_DEPTH`, before PyYAML sees it: for readers that compose nodes
    themselves (`load_yaml` checks this itself)."""
    _check_brackets(text)


def _check_brackets(text: str) -> None:
    """Refuse flow collections nested deeper than the limit before PyYAML's scanner sees
    them (its cost grows with the square of that depth). Brackets inside quoted scalars
    count too: a text with more than `MAX_YAML_DEPTH` unbalanced ones is refused."""
    if text.count("[") + text.count("{") <= MAX_YAML_DEPTH:
        return
    depth = 0
    for match in _BRACKET.finditer(text):
        depth = depth + 1 if match.group() in "[{" else max(depth - 1, 0)
        if depth > MAX_YAML_DEPTH:
            line = text.count("\n", 0, match.start())
            column = match.start() - (text.rfind("\n", 0, match.start()) + 1)
            mark = yaml.Mark("<text>", match.start(), line, column, None, 0)
            raise YamlLimitError(
                problem=f"the document nests deeper than {MAX_YAML_DEPTH} levels", problem_mark=mark
            )


# a JSON string (skipped whole, so brackets inside it do not count) or a bracket
_JSON_DEPTH_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def check_json_nesting(text: str) -> None:
    """Refuse (`json.JSONDecodeError`, at the bracket) a JSON text nested deeper than
    `MAX_YAML_DEPTH`, before a parser sees it: for readers that call ``json`` themselves
    (and for `load_json`). Large documents are first measured at C speed
    (`_within_json_depth`); only a text that measure cannot clear is scanned token by
    token (the same verdict, and the position)."""
    if text.count("[") + text.count("{") <= MAX_YAML_DEPTH or _within_json_depth(text):
        return
    _check_json_depth(text)


# every byte but brackets and quotes (in UTF-8, no byte of another character is one of them)
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_STRING_OF_BRACKETS = re.compile(rb'"[^"]*"')


def _within_json_depth(text: str) -> bool:
    """True when the text's brackets outside strings nest at most `MAX_YAML_DEPTH` deep
    and balance; False when that is not so or cannot be told this way.

    With escaped backslashes and then escaped quotes removed, the quotes left delimit the
    strings; of the text's UTF-8 bytes, only brackets and quotes are kept (C speed). An
    adjacent pair of quotes then encloses no bracket, inside a string or between two, and
    goes; so do the strings left (their brackets are text). What remains is the
    structure: removing innermost pairs empties it in as many passes as it nests deep, if
    it balances.
    """
    data = text.encode("utf-8", "surrogatepass").replace(b"\\\\", b"").replace(b'\\"', b"")
    bare = data.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in bare:
        bare = _STRING_OF_BRACKETS.sub(b"", bare)
        if b'"' in bare:
            return False  # an unterminated string: the scan says where
    bare = bare.replace(b"[", b"{").replace(b"]", b"}")
    for _ in range(MAX_YAML_DEPTH):
        if not bare:
            return True
        shorter = bare.replace(b"{}", b"")
        if len(shorter) == len(bare):
            return False  # unbalanced
        bare = shorter
    return not bare


def _check_json_depth(text: str) -> None:
    """Refuse a JSON text whose arrays and objects nest deeper than `MAX_YAML_DEPTH`."""
    if text.count("[") + text.count("{") <= MAX_YAML_DEPTH:
        return
    depth = 0
    for match in _JSON_DEPTH_TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_YAML_DEPTH:
                message = f"the document nests deeper than {MAX_YAML_DEPTH} levels"
                raise json.JSONDecodeError(message, text, match.start())
        elif token in "]}":
            depth = max(depth - 1, 0)


def _check_limits(root: yaml.Node) -> None:
    """Count the nodes of *root* as if every alias were expanded; check depth."""
    expanded: dict[int, int] = {}  # id(node) -> its expanded size, once known
    # iterative post-order walk over the graph of distinct nodes
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    on_path: set[int] = set()
    while stack:
        node, depth, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            size = 1 + sum(expanded[id(child)] for child in _children(node))
            if size > MAX_YAML_NODES:
                raise YamlLimitError(
                    problem=f"the aliases expand the document past {MAX_YAML_NODES:,} values",
                    problem_mark=node.start_mark,
                )
            # what aliases add beyond the distinct values: everything downstream walks the
            # expansion (a 400-byte bomb of 262,000 values took 8 s to show; the fuzzer)
            if size - len(expanded) > MAX_YAML_ALIAS_VALUES:
                raise YamlLimitError(
                    problem=f"the aliases expand the document by more than {MAX_YAML_ALIAS_VALUES:,} values",
                    problem_mark=node.start_mark,
                )
            expanded[key] = size
            continue
        if key in expanded:
            continue
        if (
            isinstance(node, yaml.ScalarNode)
            and node.tag in _NUMBER_TAGS
            and len(node.value) > MAX_YAML_NUMBER_CHARS
        ):
            raise YamlLimitError(
                problem=f"a number of more than {MAX_YAML_NUMBER_CHARS:,} characters",
                problem_mark=node.start_mark,
            )
        if depth > MAX_YAML_DEPTH:
            raise YamlLimitError(
                problem=f"the document nests deeper than {MAX_YAML_DEPTH} levels",
                problem_mark=node.start_mark,
            )
        if key in on_path:  # a recursive alias: SafeLoader builds a cycle; count it once
            expanded[key] = 1
            continue
        on_path.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in _children(node) if id(child) not in expanded)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _size(fd: int) -> int:
    return os.fstat(fd).st_size


def _too_large(label: str, size: int) -> CfLoadError:
    return CfLoadError(
        f"file is too large ({size:,} bytes; the limit is {MAX_TEXT_BYTES:,})",
        Span(label, 1, 1, 1, 1),
        "too-large",
    )


@contextlib.contextmanager
def memory_allowance(allowance: int) -> Iterator[None]:
    """While inside, the process cannot map more than *allowance* bytes beyond what it
    maps on entry: ``RLIMIT_AS`` is lowered to that (unless it is lower already) and
    restored on exit, so an allocation past it raises `MemoryError` for the caller to
    report. The cap is the whole process's (other threads share it). Where the mapped
    size cannot be read (no ``/proc``), nothing is capped."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            mapped = int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        yield
        return
    cap = mapped + allowance
    lower_already = soft != resource.RLIM_INFINITY and soft <= cap
    if lower_already or (hard != resource.RLIM_INFINITY and hard < cap):
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
