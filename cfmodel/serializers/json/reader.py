"""The JSON reader: emfjson-jackson's JSON and PyEcore's, and cfmodel's own older format.

Input: a JSON document (a file or bytes) and the caller's `ResourceSet`, whose registry
holds the metamodels. Output: a `Document` (roots, ids, the resource holding them).

Accepted (what emfjson-jackson writes with its defaults or common options, and what
PyEcore's ``JsonResource`` writes): one object or an array of objects; ``"eClass"`` as a
class URI (``nsURI#//Class``, ``nsURI#//sub/Class``; a package registered under its own
nsURI is found too) or, as emfjson-jackson's ``USE.NAME`` writes it, a class name that
one registered class has; ``"eClass"`` left out where the containing feature's type
says it; ids under ``"@id"`` (emfjson-jackson), ``"_id"`` (a common setting of it),
``"uuid"`` (PyEcore) or the caller's ``id_key`` — unless the class has a feature of that
name, which then wins; references as ``{"$ref": "<id | fragment | #fragment>",
"eClass": …}``, a fragment being EMF's positional one (``//@a.1``, ``/1/@a.0``) or an
object's id or iD attribute, or ``other.json#…``/``other.xmi#…`` in another document
(read into the same resource set, else a proxy, as `crossrefs` says); values as JSON
scalars or as EMF's literals in strings (enums by literal or name, dates in EMF's forms,
ISO 8601 with any fraction, or epoch milliseconds); ``null`` values left unset.
cfmodel's ``cfmodel-instances`` documents are recognised by their header and read by
`legacy`.

Bounds (untrusted input): the file's size (``max_bytes``, checked before reading), the
memory reading it may take (``max_memory``, estimated before parsing from the size and
the count of objects, and of numbers read as `Decimal`), nesting (200 levels, checked
before parsing, at the bracket that goes too deep). Every refusal is a
`CfSerializationError` with a registered code and the line and column of the value
concerned: ``json-syntax`` (not UTF-8 or not JSON),
``too-large``, ``too-deep``, ``bad-json`` (not a model of the metamodel: unknown class or
feature, wrong shape, unresolved reference), ``bad-value``, ``unsupported`` (containment
proxies).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pyecore.ecore import EAttribute, EObject
from pyecore.resources import ResourceSet

from cfmodel.collector import gc_paused
from cfmodel.errors import CfSerializationError, Span
from cfmodel.inputs import check_json_nesting
from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers import crossrefs, datatypes, linking, model, xmi
from cfmodel.serializers.base import IDS_KEY, Document, attach, local_registry
from cfmodel.serializers.json import legacy
from cfmodel.serializers.json.options import JsonOptions
from cfmodel.serializers.json.positions import Path_, kind_of, lines_of, locate

ID_KEYS = ("@id", "_id", "uuid")
# What reading takes, at most, per byte of JSON, per object (each "{") and, when numbers
# with a fraction or exponent are read as Decimal, per ".", "e" or "E" (a Decimal takes
# about 104 bytes). Measured on 20,000 objects of benchmarks/xmi.py (58 MB taken, 99 MB
# estimated) and on 50,000 empty objects (1,149 bytes each, 1,812 estimated).
_BYTES_PER_BYTE = 12
_BYTES_PER_OBJECT = 1200
_BYTES_PER_DECIMAL = 120


def read(source: Path | str, resource_set: ResourceSet, options: JsonOptions) -> Document:
    name = str(source)
    try:
        size = Path(source).stat().st_size
        if size > options.max_bytes:
            raise _too_large(name, f"file is {size:,} bytes, over the limit of {options.max_bytes:,}")
        with Path(source).open("rb") as stream:
            data = stream.read(options.max_bytes + 1)
    except OSError as exc:
        raise CfSerializationError(f"cannot read: {exc.strerror}", _start(name), code="io") from exc
    return from_bytes(data, resource_set, name, options)


def from_bytes(data: bytes, resource_set: ResourceSet, name: str, options: JsonOptions) -> Document:
    if len(data) > options.max_bytes:
        raise _too_large(name, f"document is {len(data):,} bytes, over the limit of {options.max_bytes:,}")
    exact = _has_decimals(resource_set)
    estimate = len(data) * _BYTES_PER_BYTE + data.count(b"{") * _BYTES_PER_OBJECT
    if exact:
        estimate += (data.count(b".") + data.count(b"e") + data.count(b"E")) * _BYTES_PER_DECIMAL
    if estimate > options.max_memory:
        raise _too_large(
            name,
            f"reading the document could take {estimate >> 20:,} MiB (estimated from its size and its"
            f" objects), over the limit of {options.max_memory >> 20:,} MiB",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        message = f"not UTF-8 (byte 0x{data[exc.start]:02x} cannot be decoded)"
        raise CfSerializationError(
            message, Span(name, line, col, line, col + 1), code="json-syntax"
        ) from None
    try:
        check_json_nesting(text)
    except json.JSONDecodeError as exc:
        span = Span(name, exc.lineno, exc.colno, exc.lineno, exc.colno + 1)
        raise CfSerializationError(exc.msg, span, code="too-deep") from None
    with gc_paused(promote=True):  # many new objects, none garbage: no collection scans them
        try:
            doc = json.loads(text, parse_float=_decimal if exact else float)
        except json.JSONDecodeError as exc:
            span = Span(name, exc.lineno, exc.colno, exc.lineno, exc.colno + 1)
            raise CfSerializationError(f"not valid JSON: {exc.msg}", span, code="json-syntax") from None
        except (ValueError, RecursionError) as exc:  # a number out of bounds; depth (checked before)
            raise CfSerializationError(
                f"not valid JSON: {exc}", _number_span(name, text, exc), code="json-syntax"
            ) from None
        if legacy.is_legacy(doc):
            return legacy.document(doc, resource_set, name, text)
        return _Reader(name, text, resource_set, options).document(doc)


class _NumberError(ValueError):
    """A JSON number `Decimal` cannot hold (an exponent out of its range)."""

    def __init__(self, literal: str) -> None:
        super().__init__(f"the number {literal[:40]} is out of range")
        self.literal = literal


def _decimal(literal: str) -> Decimal:
    try:
        return Decimal(literal)
    except InvalidOperation:
        raise _NumberError(literal) from None


def _number_span(name: str, text: str, exc: Exception) -> Span:
    """Where a number json cannot read is: the literal `_decimal` refused, or an integer
    of more digits than Python converts (``sys.get_int_max_str_digits``); else the start."""
    if isinstance(exc, _NumberError):
        at = text.find(exc.literal)
    else:
        found = re.search(rf"\d{{{sys.get_int_max_str_digits() + 1},}}", text)
        at = found.start() if found is not None else -1
    if at < 0:
        return _start(name)
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    return Span(name, line, col, line, col + 1)


def _has_decimals(rset: ResourceSet) -> bool:
    """Does a registered metamodel have an ``EBigDecimal`` attribute? Then JSON numbers
    with a fraction are parsed as `Decimal`, so that its values keep every digit (a float
    feature takes the Decimal's nearest float: the same value as parsing a float)."""
    return any(
        isinstance(f, EAttribute) and _is_decimal(f.eType)
        for c in model.classifiers(local_registry(rset).values())
        for f in getattr(c, "eStructuralFeatures", ())
    )


def _is_decimal(dt: Any) -> bool:
    try:
        return datatypes.codec_for(dt).name == "EBigDecimal"
    except CfSerializationError:
        return False


def _start(name: str) -> Span:
    return Span(name, 1, 1, 1, 2)


def _too_large(name: str, message: str) -> CfSerializationError:
    return CfSerializationError(message, _start(name), code="too-large")


# ---- building objects ---------------------------------------------------------------------


class _Reader:
    def __init__(self, name: str, text: str, rset: ResourceSet, options: JsonOptions) -> None:
        self.name = name
        self.text = text
        self.rset = rset
        self.options = options
        self.registry = local_registry(rset)
        self.id_keys = frozenset((*ID_KEYS, options.id_key))
        self.classes: dict[str, Any] = {}
        self.plans: dict[int, _ClassPlan] = {}
        self.ids: dict[EObject, str] = {}
        self.by_id: dict[str, EObject] = {}
        self.pending: list[tuple[EObject, Any, list[tuple[str, Any, Path_]]]] = []
        self.by_name: dict[str, list[Any]] | None = None
        self.proxies: list[tuple[EObject, Path_]] = []  # made for references: where each is

    def fail(
        self, message: str, path: Path_, code: str = "bad-json", at_key: bool = False
    ) -> CfSerializationError:
        line, col = locate(self.text, path, at_key)
        where = "/".join(map(str, path))
        text = f"{message} (at /{where})" if path else message
        return CfSerializationError(text, Span(self.name, line, col, line, col + 1), code=code)

    def document(self, doc: Any) -> Document:
        if isinstance(doc, dict):
            roots = [self.create(doc, None, ())]
        elif isinstance(doc, list):
            roots = [self.create(item, None, (k,)) for k, item in enumerate(doc)]
        else:
            raise self.fail("expected a model: an object, or an array of objects", ())
        documents = crossrefs.documents(self.rset)
        documents.add(self.name, roots, self.by_id)  # first: documents it reads may refer back
        try:
            self.link(roots)
        finally:
            documents.remove(self.name)
        if self.proxies:  # the line of each reference a proxy stands for, for reports
            lines = lines_of(self.text, [path for _, path in self.proxies])
            for (proxy, _), line in zip(self.proxies, lines, strict=True):
                proxy.__dict__[crossrefs.LINE_KEY] = line
        resource = attach(self.rset, self.name, roots)
        resource.__dict__[IDS_KEY] = self.ids  # EMF's URIs of these objects (base.emf_uri)
        return Document(roots, self.ids, resource)

    def link(self, roots: list[EObject]) -> None:
        targets = linking.Targets(roots, self.by_id)
        links = linking.Linker()
        for obj, f, refs in self.pending:
            found = [self.target(targets, token, eclass, f, path) for token, eclass, path in refs]
            bad = links.set_references(obj, f, found)
            if bad is not None:
                k = next(n for n, t in enumerate(found) if t is bad)
                message = f"{obj.eClass.name}.{f.name}: target {bad.eClass.name} is not a {f.eType.name}"
                raise self.fail(message, refs[k][2])
        links.add_missing_opposites()

    # -- classes and features

    def eclass(self, value: Any, path: Path_) -> Any:
        if not isinstance(value, str):
            raise self.fail(f'"eClass" must be a string, not {kind_of(value)}', path)
        found = self.classes.get(value)
        if found is None:
            found = self.classes[value] = self.find_class(value, path)
        return found

    def find_class(self, uri: str, path: Path_) -> Any:
        base, sep, fragment = uri.partition("#")
        if not sep:
            return self.class_by_name(uri, path)
        pkg = self.registry.get(base)
        steps = fragment.split("/")
        if pkg is None or steps[:2] != ["", ""] or len(steps) < 3:
            known = ", ".join(sorted(self.registry)) or "none"
            raise self.fail(f"unknown class {uri!r} (registered packages: {known})", path)
        current: Any = pkg
        for step in steps[2:-1]:
            current = next((p for p in current.eSubpackages if p.name == step), None)
            if current is None:
                raise self.fail(f"unknown class {uri!r}: no subpackage {step!r}", path)
        found = current.getEClassifier(steps[-1])
        if found is None or not hasattr(found, "eStructuralFeatures"):
            raise self.fail(f"unknown class {uri!r}: package {current.name} has no class {steps[-1]!r}", path)
        return found

    def class_by_name(self, name: str, path: Path_) -> Any:
        if self.by_name is None:
            self.by_name = {}
            for c in model.classifiers(self.registry.values()):
                if hasattr(c, "eStructuralFeatures"):
                    self.by_name.setdefault(str(c.name), []).append(c)
        found = self.by_name.get(name, [])
        if len(found) != 1:
            why = "no registered class has that name" if not found else "several registered classes have it"
            raise self.fail(f"unknown class {name!r} ({why}; write the class URI, nsURI#//Class)", path)
        return found[0]

    def plan_of(self, eclass: Any, path: Path_) -> _ClassPlan:
        found = self.plans.get(id(eclass))
        if found is None or found.eclass is not eclass:
            if eclass.abstract or getattr(eclass, "interface", False):
                raise self.fail(f"class {eclass.name} is abstract: no object can be of it", path)
            found = self.plans[id(eclass)] = _ClassPlan(eclass)
        return found

    # -- objects

    def create(self, item: Any, ftype: Any, path: Path_) -> EObject:
        """A new object from its JSON object: values stored as PyEcore's setters would
        leave them on a new object (`fastpath`), references kept for `document`."""
        if type(item) is not dict:
            raise self.fail(f"expected an object, found {kind_of(item)}", path)
        if "$ref" in item:
            message = "a containment proxy (an object given by $ref) is not supported; give the object"
            raise self.fail(message, path, "unsupported")
        if "eClass" in item:
            eclass = self.eclass(item["eClass"], (*path, "eClass"))
        elif ftype is not None:
            eclass = ftype
        else:
            raise self.fail('a root object needs an "eClass" (its class URI, nsURI#//Class)', path)
        plan = self.plan_of(eclass, path)
        if ftype is not None and eclass is not ftype and not plan.is_a(ftype):
            raise self.fail(f"class {eclass.name} is not a {ftype.name}", path)
        obj: EObject = fastpath.new_object(eclass)
        handlers = plan.handlers
        for key, value in item.items():
            handler = handlers.get(key)
            if handler is None:
                if key == "eClass":
                    continue
                if key in self.id_keys:
                    self.name_object(obj, value, (*path, key))
                    continue
                raise self.fail(f"class {eclass.name} has no feature {key!r}", (*path, key), at_key=True)
            if value is None:
                continue  # null: unset
            kind, f, quick, extra = handler
            if kind == _ATTR:
                if not (type(value) is quick and (quick is not str or _plain_string(value) is None)):
                    value = self.attribute_value(f, value, (*path, key), extra)
                fastpath.set_attribute(obj, f, value)
            elif kind == _CONTAIN:
                child = self.create(value, f.eType, (*path, key))
                fastpath.set_reference(obj, f, child, containment=True)
                if extra is not None:
                    fastpath.set_reference(child, extra, obj)
            elif kind == _REF:
                self.pending.append((obj, f, [self.reference(value, (*path, key))]))
            elif kind != _SKIP:
                self.many(obj, kind, f, extra, value, (*path, key))
        return obj

    def many(self, obj: EObject, kind: int, f: Any, extra: Any, values: Any, path: Path_) -> None:
        """A many-valued feature's values (an array); `extra` as in `_ClassPlan`."""
        if type(values) is not list:
            raise self.fail(f"{obj.eClass.name}.{f.name} is many-valued: expected an array", path)
        if kind == _MANY_REF:
            self.pending.append((obj, f, [self.reference(v, (*path, k)) for k, v in enumerate(values)]))
            return
        coll = fastpath.collection(obj, f)
        if kind == _MANY_ATTR:
            for k, v in enumerate(values):
                fastpath.add_item(obj, f, coll, self.attribute_value(f, v, (*path, k), extra))
            return
        ftype = f.eType
        for k, v in enumerate(values):
            child = self.create(v, ftype, (*path, k))
            fastpath.add_item(obj, f, coll, child, containment=True)
            if extra is not None:
                fastpath.set_reference(child, extra, obj)

    def name_object(self, obj: EObject, ident: Any, path: Path_) -> None:
        if ident is None:
            return
        if isinstance(ident, int) and not isinstance(ident, bool):
            ident = str(ident)
        if not isinstance(ident, str) or not ident:
            raise self.fail(f"an id must be a string, not {kind_of(ident)}", path)
        if ident in self.by_id:
            raise self.fail(f"id {ident!r} is used twice", path)
        self.by_id[ident] = obj
        self.ids[obj] = ident

    def reference(self, value: Any, path: Path_) -> tuple[str, Any, Path_]:
        if type(value) is not dict or type(value.get("$ref")) is not str:
            raise self.fail(f'expected a reference {{"$ref": …}}, found {kind_of(value)}', path)
        eclass = self.eclass(value["eClass"], (*path, "eClass")) if "eClass" in value else None
        return value["$ref"], eclass, path

    def target(self, targets: linking.Targets, token: str, eclass: Any, f: Any, path: Path_) -> EObject:
        base, sep, fragment = token.rpartition("#")
        if sep and base and not crossrefs.same_document(self.name, base):
            found = self.external(base, fragment, eclass or f.eType, path)
        else:
            found = targets.find(fragment) if fragment else None
        if found is None:
            raise self.fail(f"unresolved reference {token!r}", (*path, "$ref"))
        if eclass is not None and found.eClass is not eclass:
            message = (
                f"reference {token!r} says its target is a {eclass.name}, but it is a {found.eClass.name}"
            )
            raise self.fail(message, (*path, "eClass"))
        return found

    def external(self, location: str, fragment: str, eclass: Any, path: Path_) -> EObject:
        """The object ``location#fragment`` names in another document: read (once, into
        the same resource set) when it is a JSON or XMI file on disk and
        `JsonOptions.load_references`, else a proxy of `eclass` that keeps the URI."""
        uri = crossrefs.resolve_uri(self.name, location, self.options.uri_map)
        documents = crossrefs.documents(self.rset)
        file = crossrefs.local_path(uri)
        if file is not None and not crossrefs.confined(file, self.allowed):
            where = ", ".join(str(r) for r in self.allowed)
            message = (
                f"reference to {location!r} leaves the directories the model may be read from ({where});"
                " give JsonOptions.root (--root) to allow more"
            )
            raise self.fail(message, (*path, "$ref"), "outside-root")
        if file is not None and self.options.load_references and not documents.has(file) and file.is_file():
            if documents.depth >= crossrefs.MAX_NESTED_LOADS:
                message = f"more than {crossrefs.MAX_NESTED_LOADS} documents refer on to each other"
                raise self.fail(message, (*path, "$ref"))
            documents.depth += 1
            try:
                self.read_other(file)
            finally:
                documents.depth -= 1
        found = documents.find(file, fragment) if file is not None else None
        if found is not None:
            return found
        if eclass.abstract or getattr(eclass, "interface", False):
            message = (
                f"a proxy for {uri}#{fragment} would be of abstract class {eclass.name} (no eClass given)"
            )
            raise self.fail(message, (*path, "$ref"))
        made = crossrefs.proxy(eclass, f"{uri}#{fragment}")
        self.proxies.append((made, (*path, "$ref")))
        return made

    def read_other(self, file: Path) -> None:
        """Read another document a reference names (JSON with these options, XMI with
        the same URI map), confined as this one; other files stay proxies."""
        suffix = file.suffix.lower()
        root = self.allowed[0]
        if suffix == ".json":
            read(file, self.rset, dataclasses.replace(self.options, root=root))
        elif suffix in (".xmi", ".xml"):
            xmi.read(file, self.rset, xmi.XmiOptions(uri_map=self.options.uri_map, root=root))

    @functools.cached_property
    def allowed(self) -> list[Path]:
        """The directories references may lead into: the root (`JsonOptions.root`, else
        the document's directory), then the URI map's targets."""
        root = self.options.root
        first = Path(root) if root is not None else Path(os.path.abspath(self.name)).parent
        mapped = [
            crossrefs.local_path(crossrefs.resolve_uri(self.name, t)) for t in self.options.uri_map.values()
        ]
        return [first, *(m for m in mapped if m is not None)]

    # -- values

    def attribute_value(self, f: Any, v: Any, path: Path_, codec: datatypes.Codec | None) -> Any:
        """One value of attribute `f` (of data type `codec`; None: a type without an
        EMF-faithful mapping, refused here)."""
        if codec is None:
            try:
                datatypes.codec_for(f.eType)
            except CfSerializationError as exc:
                raise self.fail(exc.message, path, exc.code) from None
            raise AssertionError("codec_for refuses what the plan found no codec for")
        name = codec.name
        if name in _INTEGERS and type(v) is int and codec.check(v):
            return v
        where = f"{f.eContainingClass.name}.{f.name}"
        value: Any = _NOT_READ
        if isinstance(v, str):
            if name == "EString":
                value = v
            elif name == "EDate":
                value = _date(v)
            else:
                try:
                    value = codec.from_literal(v)
                except (ValueError, InvalidOperation, OverflowError) as exc:
                    raise self.fail(f"{where}: bad {name} value {v!r}: {exc}", path, "bad-value") from None
        elif isinstance(v, bool):
            value = v if name in ("EBoolean", "EBooleanObject") else _NOT_READ
        else:
            value = _number(name, v)
        if value is _NOT_READ or value is None or not codec.check(value):
            shown = json.dumps(v, default=str)[:60]
            raise self.fail(f"{where}: {shown} is not a valid {name}", path, "bad-value")
        return value


def _number(name: str, v: Any) -> Any:
    """JSON number `v` as a value of data type `name`; `_NOT_READ` when it cannot be one
    (an integer too large for a float or a date, a list, an object...)."""
    try:
        if isinstance(v, int):
            if name in _INTEGERS:
                return v
            if name in _FLOATS:
                return float(v)
            if name == "EBigDecimal":
                return Decimal(v)
            if name == "EDate":
                return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=v)
        elif isinstance(v, Decimal | float):
            if name in _FLOATS:
                return float(v)
            if name == "EBigDecimal":
                return v if isinstance(v, Decimal) else Decimal(repr(v))
    except (OverflowError, ValueError, InvalidOperation):
        pass
    return _NOT_READ


# What a key of an object stands for (`_ClassPlan.handlers`).
_ATTR, _MANY_ATTR, _CONTAIN, _MANY_CONTAIN, _REF, _MANY_REF, _SKIP = range(7)
# A string value of an EString attribute taken as it is (else `_Reader.attribute_value`).
_plain_string = datatypes.find_xml_illegal
# The Python type of a value taken as it is for a data type (a checked value of that type).
_QUICK: dict[str, type] = {"EString": str, "EBoolean": bool, "EBooleanObject": bool, "EDouble": float}


class _ClassPlan:
    """Per class: for every persistent feature's name, (kind, feature, the Python type of
    a value taken as it is or None, extra): extra is an attribute's codec (None for a
    type without an EMF-faithful mapping), a containment's opposite, or None. Container
    references are skipped (implied by nesting), as PyEcore's reader skips them."""

    __slots__ = ("eclass", "handlers", "supertypes")

    def __init__(self, eclass: Any) -> None:
        self.eclass = eclass
        self.supertypes = {id(c) for c in eclass.eAllSuperTypes()}
        self.handlers: dict[str, tuple[int, Any, Any, Any]] = {}
        for f in model.persistent_features(eclass):
            if isinstance(f, EAttribute):
                try:
                    codec: datatypes.Codec | None = datatypes.codec_for(f.eType)
                except CfSerializationError:
                    codec = None  # `attribute_value` says why, where a value is given
                quick = _QUICK.get(codec.name) if codec is not None else None
                self.handlers[f.name] = (_MANY_ATTR if f.many else _ATTR, f, quick, codec)
            elif model.is_container_ref(f):
                self.handlers[f.name] = (_SKIP, f, None, None)
            elif f.containment:
                self.handlers[f.name] = (_MANY_CONTAIN if f.many else _CONTAIN, f, None, f.eOpposite)
            else:
                self.handlers[f.name] = (_MANY_REF if f.many else _REF, f, None, None)

    def is_a(self, eclass: Any) -> bool:
        return id(eclass) in self.supertypes


_NOT_READ: Any = object()
_INTEGERS = frozenset(
    {"EInt", "EIntegerObject", "ELong", "ELongObject", "EShort", "EShortObject", "EBigInteger"}
)
_FLOATS = frozenset({"EDouble", "EDoubleObject", "EFloat", "EFloatObject"})


def _date(text: str) -> Any:
    """A date in any of EMF's forms, else ISO 8601 (PyEcore writes microseconds, and
    nothing for the zone of a naive date: taken as UTC); sub-milliseconds are dropped, as
    EMF's ``EDate`` holds milliseconds. `_NOT_READ` when it is none of these."""
    try:
        return datatypes.date_from_literal(text)
    except ValueError:
        pass
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        return _NOT_READ
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value.replace(microsecond=value.microsecond // 1000 * 1000)
