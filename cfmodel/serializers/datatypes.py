"""Values of Ecore data types as EMF writes and reads them.

Input: an `EDataType` (an Ecore built-in, an `EEnum`, or one of ours with a Java
``instanceClassName``). Output: a `Codec` that turns a Python value into the literal
text EMF's ``EcoreFactory.convertToString`` would write, back again, and tells the value
EMF assumes when a feature is unset. Guarantees: a literal we write is read by EMF as the
same value (dates carry milliseconds, as EMF's ``EDate`` does; floats use the spellings
Java parses), and a value that Java cannot hold (an ``EInt`` past 32 bits, a string
with characters XML 1.0 cannot carry) is refused with `CfSerializationError` before
anything is written. Unsupported types (``EJavaObject``, ``EByteArray``, ...) are refused
by name rather than written in a form EMF would misread.

Dates: naive `datetime` values are taken as UTC; sub-millisecond digits are truncated;
values read back are timezone-aware UTC `datetime` objects.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation
from typing import Any

from pyecore.ecore import EDataType, EEnum

from cfmodel.errors import CfSerializationError, Span

ECORE_NS = "http://www.eclipse.org/emf/2002/Ecore"

# Characters XML 1.0 cannot carry, not even as character references.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
find_xml_illegal = _XML_ILLEGAL.search  # None: XML 1.0 can carry the string
_DATE = re.compile(r"(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?)?(Z|[+-]\d\d:?\d\d)?$")


@dataclass(frozen=True, slots=True)
class Codec:
    """How one data type's values are checked, written and read."""

    name: str
    check: Callable[[Any], bool]
    to_literal: Callable[[Any], str]
    from_literal: Callable[[str], Any]
    emf_default: Any = None


# The bounded integer types and their width in bits (Java's int, long, short).
INTEGER_BITS: dict[str, int] = {
    "EInt": 32,
    "EIntegerObject": 32,
    "ELong": 64,
    "ELongObject": 64,
    "EShort": 16,
    "EShortObject": 16,
}


def integer_range_test(bits: int) -> str:
    """Python source testing that ``{v}`` is a plain int within `bits` (for generated code)."""
    return f"type({{v}}) is int and {-(2 ** (bits - 1))} <= {{v}} < {2 ** (bits - 1)}"


def _int_codec(name: str, bits: int | None, default: int | None) -> Codec:
    def check(v: Any) -> bool:
        if not isinstance(v, int) or isinstance(v, bool):
            return False
        return bits is None or -(2 ** (bits - 1)) <= v < 2 ** (bits - 1)

    return Codec(name, check, str, lambda s: int(s.strip()), default)


def _float_to_literal(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(float(v))


def java_float_literal(v: float, single: bool = False) -> str:
    """The literal Java's ``Double.toString`` (``Float.toString`` if `single`) gives, as EMF
    writes it: the shortest digits that read back to the value (as a 32-bit float if
    `single`; whole numbers below 2^63 as `_java_whole_digits`), plain between 10^-3 and
    10^7 (``412.06``, ``1.0``), else ``1.8087E-5``. Equal to Java 17's on 65,000 values
    spread over every magnitude but for 45 of at least 2^63 (Java 17's last digit is then
    sometimes not the nearest: ``2.8030908662464184E25``; both read back to the value)."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if single:  # the 32-bit float Java holds (beyond the largest: infinity)
        packed = _as_float32(repr(float(v)))
        if packed is None:
            return "Infinity" if v > 0 else "-Infinity"
        v = struct.unpack(">f", packed)[0]
    if v == 0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    if abs(v) == (_FLOAT_MIN if single else 5e-324):  # the least subnormal: Java's two digits
        return f"{'-' if v < 0 else ''}{'1.4E-45' if single else '4.9E-324'}"
    minus = "-" if v < 0 else ""
    whole_digits = _java_whole_digits(abs(v), single)
    if whole_digits is not None:
        shown, point = whole_digits
    else:
        text = repr(abs(float(v)))
        if single:  # the fewest significant digits that name the same 32-bit float
            target = struct.pack(">f", abs(v))
            text = next(t for n in range(1, 10) if _as_float32(t := f"{abs(v):.{n}g}") == target)
        _, digits, exponent = Decimal(text).as_tuple()
        shown = "".join(map(str, digits)).rstrip("0") or "0"
        point = len(digits) + int(exponent)  # digits before the decimal point
    if 1e-3 <= abs(v) < 1e7:
        if point <= 0:
            return f"{minus}0.{'0' * -point}{shown}"
        whole, frac = shown[:point].ljust(point, "0"), shown[point:]
        return f"{minus}{whole}.{frac or '0'}"
    return f"{minus}{shown[0]}.{shown[1:] or '0'}E{point - 1}"


_LOG10_2 = math.log10(2)
_FLOAT_MIN = struct.unpack(">f", struct.pack(">I", 1))[0]  # 2^-149


def _java_whole_digits(v: float, single: bool) -> tuple[str, int] | None:
    """Java's digits of a whole number below 2^63: its exact digits, the last
    ``floor(p * log10 2)`` of them rounded off (half up), ``p`` the value's power of two
    beyond 2^54 (2^25 for a 32-bit float); (digits without trailing zeros, digits before
    the point); None for other values. So Java prints ``4.3276706790505338E17`` where the
    shortest digits that read back are one fewer (measured against Java 17's
    ``Double.toString`` and ``Float.toString``)."""
    if v >= 2.0**63 or v < 1 or v != int(v):
        return None
    n = int(v)
    p = n.bit_length() - 1 - (25 if single else 54)
    drop = int(p * _LOG10_2) if p > 1 else 0
    if drop:
        n, rest = divmod(n, 10**drop)
        n += rest >= 10**drop // 2
    digits = str(n)
    return digits.rstrip("0") or "0", len(digits) + drop


def _as_float32(text: str) -> bytes | None:
    """The 32-bit float `text` reads as (None: beyond the largest; Java would round it to
    infinity, so it cannot be the shortest literal of a finite float)."""
    try:
        return struct.pack(">f", float(text))
    except OverflowError:
        return None


def emf_literal(codec: Codec) -> Callable[[Any], str]:
    """The function writing `codec`'s values as EMF writes them (floating point as Java
    prints it, `java_float_literal`; everything else as `codec.to_literal`)."""
    if codec.name in ("EDouble", "EDoubleObject"):
        return java_float_literal
    if codec.name in ("EFloat", "EFloatObject"):
        return lambda v: java_float_literal(v, single=True)
    return codec.to_literal


def _is_float(v: Any) -> bool:
    return isinstance(v, float | int) and not isinstance(v, bool)


def _bool_from(s: str) -> bool:
    low = s.strip().lower()
    if low not in ("true", "false"):
        raise ValueError(f"not a boolean: {s!r}")
    return low == "true"


def _str_ok(v: Any) -> bool:
    return isinstance(v, str) and _XML_ILLEGAL.search(v) is None


def _decimal_ok(v: Any) -> bool:
    return isinstance(v, Decimal) and v.is_finite()


def date_to_literal(v: datetime) -> str:
    """EMF's first EDate format, ``yyyy-MM-dd'T'HH:mm:ss.SSSZ``, in UTC."""
    utc = v.replace(tzinfo=UTC) if v.tzinfo is None else v.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}+0000"


def date_from_literal(text: str) -> datetime:
    """Any of EMF's EDate formats; the fraction must be EMF's three millisecond digits."""
    m = _DATE.match(text.strip())
    if m is None:
        raise ValueError(f"not an EMF date: {text!r}")
    y, mo, d, hh, mm, ss, frac, tz = m.groups()
    if frac is not None and len(frac) != 3:
        raise ValueError(f"date fraction {frac!r} must be 3 digits: EMF reads it as milliseconds")
    ms = int(frac or 0)
    base = datetime(int(y), int(mo), int(d), int(hh or 0), int(mm or 0), int(ss or 0), ms * 1000)
    return base.replace(tzinfo=_zone(tz)).astimezone(UTC)


def _zone(tz: str | None) -> timezone:
    if tz is None or tz == "Z":
        return UTC
    digits = tz[1:].replace(":", "")
    delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return timezone(-delta if tz[0] == "-" else delta)


_STRING = Codec("EString", _str_ok, str, str)
_BOOL = Codec(
    "EBoolean", lambda v: isinstance(v, bool), lambda v: "true" if v else "false", _bool_from, False
)
_DOUBLE = Codec("EDouble", _is_float, _float_to_literal, float, 0.0)
_DATE_CODEC = Codec("EDate", lambda v: isinstance(v, datetime), date_to_literal, date_from_literal)
_BIGDEC = Codec("EBigDecimal", _decimal_ok, str, Decimal)

_BY_ECORE_NAME: dict[str, Codec] = {
    "EString": _STRING,
    "EBoolean": _BOOL,
    "EBooleanObject": Codec("EBooleanObject", _BOOL.check, _BOOL.to_literal, _bool_from),
    **{n: _int_codec(n, bits, None if n.endswith("Object") else 0) for n, bits in INTEGER_BITS.items()},
    "EBigInteger": _int_codec("EBigInteger", None, None),
    "EDouble": _DOUBLE,
    "EDoubleObject": Codec("EDoubleObject", _is_float, _float_to_literal, float),
    "EFloat": Codec("EFloat", _is_float, _float_to_literal, float, 0.0),
    "EFloatObject": Codec("EFloatObject", _is_float, _float_to_literal, float),
    "EBigDecimal": _BIGDEC,
    "EDate": _DATE_CODEC,
}

# Our own data types (typedefs) name their Java class; map it onto the Ecore built-in.
_BY_JAVA_CLASS: dict[str, str] = {
    "java.lang.String": "EString",
    "boolean": "EBoolean",
    "java.lang.Boolean": "EBooleanObject",
    "int": "EInt",
    "java.lang.Integer": "EIntegerObject",
    "long": "ELong",
    "java.lang.Long": "ELongObject",
    "short": "EShort",
    "java.lang.Short": "EShortObject",
    "java.math.BigInteger": "EBigInteger",
    "double": "EDouble",
    "java.lang.Double": "EDoubleObject",
    "float": "EFloat",
    "java.lang.Float": "EFloatObject",
    "java.math.BigDecimal": "EBigDecimal",
    "java.util.Date": "EDate",
}


def is_ecore_builtin(dt: EDataType) -> bool:
    pkg = dt.ePackage
    return pkg is not None and pkg.nsURI == ECORE_NS


def codec_for(dt: EDataType) -> Codec:
    """The codec of a data type.

    Raises:
        CfSerializationError: the type has no EMF-faithful mapping.
    """
    if isinstance(dt, EEnum):
        return _enum_codec(dt)
    if is_ecore_builtin(dt):
        key: str | None = dt.name
    elif dt.instanceClassName is None:
        key = "EString"  # EMF keeps the values of a data type with no Java class as strings
    else:
        key = _BY_JAVA_CLASS.get(dt.instanceClassName)
    codec = _BY_ECORE_NAME.get(key or "")
    if codec is None:
        raise CfSerializationError(
            f"data type {dt.name!r} (instanceClassName={dt.instanceClassName!r}) has no EMF-faithful "
            f"mapping; use one of {', '.join(sorted(_BY_ECORE_NAME))} or a Java class among "
            f"{', '.join(sorted(_BY_JAVA_CLASS))}",
            code="unsupported-type",
        )
    return codec


def reading_codec(dt: EDataType) -> Codec:
    """`codec_for` *dt*, or for a type without an EMF-faithful mapping (``EJavaObject``,
    ``EByteArray``, ...) a codec that refuses every value: a metamodel may use such types
    (for transient features, as Eclipse's own do), and only a document that holds a value
    of one is refused, at that value (a located ``bad-value``)."""
    try:
        return codec_for(dt)
    except CfSerializationError as exc:
        reason = exc.message

    def refuse(_: Any) -> Any:
        raise ValueError(reason)

    return Codec(str(dt.name), lambda _: False, refuse, refuse)


def make_faithful(dt: EDataType) -> EDataType:
    """Give one of our own data types (or enums) EMF's conversions inside PyEcore.

    PyEcore's ``EDataType.from_string`` returns the text unchanged and its default for
    ``java.lang.Boolean`` is ``False``, so an unset attribute of such a type read
    ``"443"`` where EMF reads ``443``, and ``False`` where EMF reads null. After this,
    PyEcore's ``eGet`` of an unset attribute, its ``from_string`` and ``to_string`` of
    *dt* give EMF's values and literals. Ecore's own built-ins (shared, process-global
    PyEcore objects) are never changed; types without an EMF-faithful codec are left as
    they are (validation reports them).
    """
    if is_ecore_builtin(dt):
        return dt
    try:
        codec = codec_for(dt)
    except CfSerializationError:
        return dt

    def from_string(text: Any) -> Any:
        if not isinstance(text, str):
            return text
        try:
            return codec.from_literal(text)
        except (ValueError, InvalidOperation, OverflowError):
            return text  # as PyEcore did; validation reports the literal

    dt.from_string = from_string
    dt.to_string = codec.to_literal
    if not isinstance(dt, EEnum):
        python_type = _PYTHON_TYPES.get(codec.name)
        if dt.eType is None and dt.instanceClassName is None:  # no Java class: strings, as EMF keeps
            dt.eType = str  # (PyEcore's setters refused every value: isinstance(v, None))
        elif python_type is not None and dt.eType is object:  # PyEcore knows no Java class for it
            dt.eType = python_type
        dt.type_as_factory = False
        dt.default_value = codec.emf_default
    return dt


_PYTHON_TYPES: dict[str, type] = {"EBigDecimal": Decimal, "EBigInteger": int, "EDate": datetime}


def _enum_codec(enum: EEnum) -> Codec:
    literals = list(enum.eLiterals)
    by_text = {literal_text(lit): lit for lit in literals}
    by_name = {lit.name: lit for lit in literals}

    def from_literal(text: str) -> Any:
        lit = by_text.get(text) or by_name.get(text)
        if lit is None:
            raise ValueError(f"{text!r} is not a literal of enum {enum.name}")
        return lit

    default = literals[0] if literals else None
    return Codec(enum.name, lambda v: v in literals, literal_text, from_literal, default)


def literal_text(lit: Any) -> str:
    """The text EMF writes for an enum literal: its ``literal``, else its name."""
    text = lit.literal
    return str(text) if text is not None else str(lit.name)


def parse_literal(codec: Codec, text: str, where: str, span: Span | None = None) -> Any:
    """Read a literal, turning any failure into a located `CfSerializationError` (at
    *span* when given: then *where* names only the feature)."""
    try:
        return codec.from_literal(text)
    except (ValueError, InvalidOperation, OverflowError) as exc:
        message = f"{where}: bad {codec.name} value {text!r}: {exc}"
        raise CfSerializationError(message, span, code="bad-value") from exc


def make_packages_faithful(packages: Any) -> None:
    """`make_faithful` for every data type of *packages* and their subpackages.

    For plain PyEcore: PyEcore's own ``.ecore`` reader makes data types whose
    ``from_string`` returns the text unchanged, so its XMI reader refuses ``port="443"``
    for a ``java.lang.Long`` data type ("Expected type port(int), but got type str").
    After this call on the packages PyEcore read (``resource.contents``), PyEcore's own
    ``ResourceSet`` loads cfmodel's XMI with EMF's values.
    """
    todo = list(packages)
    while todo:
        package = todo.pop()
        for classifier in getattr(package, "eClassifiers", ()):
            if isinstance(classifier, EDataType):
                make_faithful(classifier)
        todo.extend(getattr(package, "eSubpackages", ()))
