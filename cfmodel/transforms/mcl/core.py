"""The core function library of mcl: pure functions, plus a few that read facts or files.

Names are dotted by package (``fmt.printf``, ``strings.to_lower``); a program sees a
package's functions after ``import "strings"``; ``len`` and ``contains`` need no import.
``fmt.printf`` infers its signature from its literal format string (``%s`` str, ``%d``
int, ``%f`` float, ``%t`` bool, ``%v`` any, ``%%``); with a format only known when the
program runs, the values keep their own types and the stream checks them against the verbs.
``iter.map`` and ``iter.filter`` call a function value on each item. Functions that read the world say so
in ``reads``: ``sys.hostname`` (fact ``hostname``), ``datetime.now`` (fact ``now``, an int),
``os.readfile`` (a file below the program's directory).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from cfmodel.transforms.mcl.funcs import Function, InferError, Library, StreamError, Value, World, pure
from cfmodel.transforms.mcl.types import FuncOf, ListOf, MapOf

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# The packages a program may import (system imports); "" is the always-visible package.
PACKAGES = ("", "fmt", "strings", "math", "regexp", "list", "map", "iter", "convert", "sys", "datetime", "os")


def go_format(value: Value) -> str:
    """A value as Go's ``%v`` prints it (lists ``[a b]``, maps ``map[k:v]``, structs ``{a b}``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, tuple):
        return "[" + " ".join(go_format(v) for v in value) + "]"
    if isinstance(value, Struct):
        return "{" + " ".join(go_format(v) for v in value.values()) + "}"
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: go_format(kv[0]))
        return "map[" + " ".join(f"{go_format(k)}:{go_format(v)}" for k, v in items) + "]"
    return str(value)


def _go_float(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


class Struct(dict):  # type: ignore[type-arg]
    """A struct value: a dict of its fields in declaration order (maps are plain dicts)."""


_VERB = re.compile(r"%(.)")


def _printf_signature(args: list[Value | None]) -> str:
    if not args:
        raise InferError("fmt.printf must have at least one argument (the format)")
    if not isinstance(args[0], str):
        # the format is known when the program runs: the values keep their own types and the
        # stream checks them against the verbs (a mismatch fails the stream, as in mgmt)
        values = "".join(f", a{i} ?{i + 1}" for i in range(len(args) - 1))
        return f"func(format str{values}) str"
    verbs = [verb for verb in _VERB.findall(args[0]) if verb != "%"]
    kinds = {"s": "str", "d": "int", "f": "float", "t": "bool", "v": None, "q": "str"}
    parts = []
    for i, verb in enumerate(verbs):
        if verb not in kinds:
            raise InferError(f"fmt.printf: unknown verb %{verb} in the format string")
        kind = kinds[verb]
        parts.append(f"a{i} {kind if kind else f'?{i + 1}'}")
    if len(args) - 1 != len(verbs):
        raise InferError(
            f"fmt.printf: the format string has {len(verbs)} verbs but {len(args) - 1} values follow"
        )
    return "func(format str" + "".join(", " + p for p in parts) + ") str"


_VERB_TYPES: dict[str, tuple[type, ...]] = {
    "s": (str,),
    "q": (str,),
    "d": (int,),
    "f": (float,),
    "t": (bool,),
}


def _printf(world: World, fmt: str, *args: Value) -> Iterator[Value]:
    verbs = [verb for verb in _VERB.findall(fmt) if verb != "%"]
    if len(verbs) != len(args):
        raise StreamError(f"fmt.printf: the format has {len(verbs)} verbs but {len(args)} values follow")
    for verb_char, value in zip(verbs, args, strict=True):
        wanted = _VERB_TYPES.get(verb_char)
        if verb_char not in _VERB_TYPES and verb_char != "v":
            raise StreamError(f"fmt.printf: unknown verb %{verb_char}")
        if wanted and (not isinstance(value, wanted) or (bool not in wanted and isinstance(value, bool))):
            raise StreamError(f"fmt.printf: %{verb_char} does not take {go_format(value)!r}")
    values = iter(args)

    def verb(match: re.Match[str]) -> str:
        char = match.group(1)
        if char == "%":
            return "%"
        value = next(values)
        if char == "f":
            return _go_float(float(value))  # mgmt prints floats short: 42.0 as 42, 1.5 as 1.5
        if char == "q":
            return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
        return go_format(value)

    yield _VERB.sub(verb, fmt)


def _len_build(sig: FuncOf) -> str | None:
    arg = sig.args[0][1]
    if isinstance(arg, (ListOf, MapOf)) or str(arg) == "str":
        return None
    return f"len takes a str, a list or a map, not {arg}"


def _hostname(world: World) -> Iterator[Value]:
    yield str(world.fact("hostname", "sys.hostname"))


def _now(world: World) -> Iterator[Value]:
    value = world.fact("now", "datetime.now")
    if not isinstance(value, int) or isinstance(value, bool):
        raise StreamError("datetime.now: the fact 'now' must be an integer (seconds since the epoch)")
    yield value


def _readfile(world: World, name: str) -> Iterator[Value]:
    if world.files_dir is None:
        raise StreamError("os.readfile: this program has no directory to read files from")
    base = world.files_dir.resolve()
    path = (base / name.lstrip("/")).resolve()
    if base not in path.parents and path != base:
        raise StreamError(f"os.readfile: {name} is outside the program's directory")
    try:
        yield path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise StreamError(
            f"os.readfile: cannot read {name}: {getattr(err, 'strerror', None) or err}"
        ) from None


def _int_math(fn_name: str, value: int) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise StreamError(f"{fn_name}: the result does not fit in an int")
    return value


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise StreamError("math.mod: division by zero")
    return int(math.fmod(a, b))


def _pow(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError) as err:
        raise StreamError(f"math.pow: {err}") from None


def _sqrt(a: float) -> float:
    if a < 0:
        raise StreamError("math.sqrt: negative argument")
    return math.sqrt(a)


def _regexp_match(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except (re.error, OverflowError, ValueError, RecursionError) as err:
        raise StreamError(f"regexp.match: invalid pattern {pattern!r}: {err}") from None


def _parse_bool(text: str) -> bool:
    if text in ("true", "1", "t", "T", "TRUE", "True"):
        return True
    if text in ("false", "0", "f", "F", "FALSE", "False"):
        return False
    raise StreamError(f"convert.parse_bool: {text!r} is not a boolean")


def _float_to_int(value: float) -> int:
    if math.isnan(value) or math.isinf(value):
        raise StreamError("convert.float_to_int: not a finite number")
    return _int_math("convert.float_to_int", int(value))


def _fn(name: str, signature: str, fn: object, doc: str = "") -> Function:
    return Function(name, signature, pure(fn), doc=doc)  # type: ignore[arg-type]


def _fortytwo(world: World) -> Iterator[Value]:
    yield 42.0 if world.signature is not None and str(world.signature.result) == "float" else 42


def _numeric_result(sig: FuncOf) -> str | None:
    return (
        None
        if str(sig.result) in ("int", "float")
        else f"math.fortytwo is an int or a float, not {sig.result}"
    )


def _iter_map(world: World, inputs: tuple[Value, ...], function: Value) -> Iterator[Value]:
    yield tuple(world.call(function, [item]) for item in inputs)


def _iter_filter(world: World, inputs: tuple[Value, ...], function: Value) -> Iterator[Value]:
    yield tuple(item for item in inputs if world.call(function, [item]))


def core_library() -> Library:
    """A fresh core library (callers may add their own functions to it)."""
    functions = [
        Function(
            "fmt.printf", None, _printf, infer=_printf_signature, doc="format values as Go's fmt.Sprintf"
        ),
        Function("len", "func(x ?1) int", pure(len), build=_len_build, doc="length of a str, list or map"),
        _fn("contains", "func(needle ?1, haystack []?1) bool", lambda a, b: a in b),
        _fn("strings.to_lower", "func(s str) str", str.lower),
        _fn("strings.to_upper", "func(s str) str", str.upper),
        _fn(
            "strings.split",
            "func(s str, sep str) []str",
            lambda s, sep: tuple(s.split(sep)) if sep else tuple(s),
        ),
        _fn("strings.join", "func(items []str, sep str) str", lambda items, sep: sep.join(items)),
        _fn("strings.has_prefix", "func(s str, prefix str) bool", str.startswith),
        _fn("strings.has_suffix", "func(s str, suffix str) bool", str.endswith),
        _fn("strings.contains", "func(s str, sub str) bool", lambda s, sub: sub in s),
        _fn("strings.trim_space", "func(s str) str", str.strip),
        _fn("strings.repeat", "func(s str, count int) str", _repeat),
        _fn("strings.left_pad", "func(s str, pad str, length int) str", _left_pad),
        _fn("strings.right_pad", "func(s str, pad str, length int) str", _right_pad),
        _fn("math.mod", "func(a int, b int) int", _mod),
        _fn("math.pow", "func(a float, b float) float", _pow),
        _fn("math.sqrt", "func(a float) float", _sqrt),
        _fn("math.abs", "func(a int) int", lambda a: _int_math("math.abs", abs(a))),
        _fn("regexp.match", "func(pattern str, s str) bool", _regexp_match),
        _fn("list.concat", "func(a []?1, b []?1) []?1", lambda a, b: a + b),
        _fn("list.reverse", "func(a []?1) []?1", lambda a: tuple(reversed(a))),
        _fn("list.first", "func(a []?1, fallback ?1) ?1", lambda a, fallback: a[0] if a else fallback),
        _fn("map.keys", "func(m map{?1: ?2}) []?1", lambda m: tuple(sorted(m, key=go_format))),
        _fn(
            "map.values", "func(m map{?1: ?2}) []?2", lambda m: tuple(m[k] for k in sorted(m, key=go_format))
        ),
        _fn("map.has_key", "func(m map{?1: ?2}, key ?1) bool", lambda m, k: k in m),
        _fn("convert.format_int", "func(a int) str", str),
        _fn("convert.format_bool", "func(a bool) str", lambda a: "true" if a else "false"),
        _fn("convert.format_float", "func(a float) str", _go_float),
        _fn("convert.parse_bool", "func(a str) bool", _parse_bool),
        _fn("convert.int_to_float", "func(a int) float", float),
        _fn("convert.float_to_int", "func(a float) int", _float_to_int),
        Function(
            "iter.map", "func(inputs []?1, function func(?1) ?2) []?2", _iter_map, doc="apply to each item"
        ),
        Function(
            "iter.filter", "func(inputs []?1, function func(?1) bool) []?1", _iter_filter, doc="keep items"
        ),
        Function(
            "math.fortytwo", "func() ?1", _fortytwo, build=_numeric_result, doc="the answer, int or float"
        ),
        Function("sys.hostname", "func() str", _hostname, reads="fact hostname"),
        Function("datetime.now", "func() int", _now, reads="fact now"),
        Function("os.readfile", "func(name str) str", _readfile, reads="files below the program's directory"),
    ]
    return {function.name: function for function in functions}


def _repeat(s: str, count: int) -> str:
    if count < 0:
        raise StreamError("strings.repeat: negative count")
    if len(s) * count > 1 << 24:
        raise StreamError("strings.repeat: the result would be larger than 16 MiB")
    return s * count


def _left_pad(s: str, pad: str, length: int) -> str:
    if not pad:
        raise StreamError("strings.left_pad: empty pad")
    while len(s) < min(length, 1 << 20):
        s = pad + s
    return s


def _right_pad(s: str, pad: str, length: int) -> str:
    if not pad:
        raise StreamError("strings.right_pad: empty pad")
    while len(s) < min(length, 1 << 20):
        s = s + pad
    return s


def package_of(name: str) -> str:
    """``fmt.printf`` → ``fmt``; ``len`` → ``""``."""
    return name.rpartition(".")[0]
