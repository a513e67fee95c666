"""cfmodel's own JSON format of earlier versions, ``cfmodel-instances`` version 1
(docs/serialization.md): written when asked for by name, read when detected.

Input (write): instance roots and `JsonOptions` (id function, indentation). Output: the
UTF-8 bytes of one JSON document, byte-identical for the same model:

    {"format": "cfmodel-instances", "version": 1,
     "packages": {"<prefix>": "<nsURI>", ...},
     "roots": [{"$class": "<prefix>:<Class>", "$id": "<id>", "<feature>": <value>, ...}]}

Features appear in EMF's order and only when set, as in XMI. Values: strings, booleans,
``EInt``/``EShort`` and finite ``EDouble``/``EFloat`` values are JSON scalars; every other
type (``ELong``, big numbers, dates, enums, non-finite floats) is EMF's literal text as a
string, so no reader loses precision. Many-valued features are lists. Containment values
are nested objects; other references are strings naming the target: its ``$id``, else
EMF's positional fragment (``/1/@files.0``).

Input (read): such a document, parsed (`reader` checks its size and nesting first);
metamodels from the caller's `ResourceSet`. Output: a `Document`. Guarantees as for
XMI: validated before writing, bidirectional references set once per side.
"""

from __future__ import annotations

import json as std_json
import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from pyecore.ecore import EAttribute, EObject
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError, Span
from cfmodel.serializers import canonical, datatypes, linking, model, validate
from cfmodel.serializers.base import Document, attach, ids_from, local_registry
from cfmodel.serializers.json.options import JsonOptions

FORMAT = "cfmodel-instances"
VERSION = 1
_NATIVE = frozenset(
    {"EString", "EBoolean", "EBooleanObject", "EInt", "EIntegerObject", "EShort", "EShortObject"}
)
_FLOATS = frozenset({"EDouble", "EDoubleObject", "EFloat", "EFloatObject"})


def to_bytes(roots: Sequence[EObject], options: JsonOptions | None = None) -> bytes:
    opts = options or JsonOptions()
    roots = list(roots)
    cache = model.FeatureCache()
    objects = list(canonical.walk(roots, cache))
    ids = ids_from(opts.id_of, objects)
    validate.check_objects(objects, ids, cache)
    prefixes: dict[str, str] = {}
    names = linking.Fragments(roots, ids)
    body = [_encode(r, ids, names, prefixes) for r in roots]
    packages = {p: u for u, p in prefixes.items()}
    doc = {"format": FORMAT, "version": VERSION, "packages": packages, "roots": body}
    text = std_json.dumps(doc, ensure_ascii=False, indent=opts.indent, allow_nan=False)
    return (text + "\n").encode("utf-8")


def _prefix(pkg: Any, prefixes: dict[str, str]) -> str:
    if pkg.nsURI not in prefixes:
        taken = set(prefixes.values())
        name, n = pkg.nsPrefix, 1
        while name in taken:
            name, n = f"{pkg.nsPrefix}_{n}", n + 1
        prefixes[pkg.nsURI] = name
    return prefixes[pkg.nsURI]


def _encode(
    obj: EObject, ids: dict[EObject, str], names: linking.Fragments, prefixes: dict[str, str]
) -> dict[str, Any]:
    out: dict[str, Any] = {"$class": f"{_prefix(obj.eClass.ePackage, prefixes)}:{obj.eClass.name}"}
    if obj in ids:
        out["$id"] = ids[obj]
    for f in model.persistent_features(obj.eClass):
        if f.name.startswith("$"):
            message = f"feature name {f.name!r} clashes with JSON meta keys"
            raise CfSerializationError(message, code="unsupported")
        if model.is_container_ref(f):
            continue
        if f.many:
            values = list(obj.eGet(f))
            if values:
                out[f.name] = [_encode_value(f, v, ids, names, prefixes) for v in values]
        elif obj.eIsSet(f) and obj.eGet(f) is not None:
            out[f.name] = _encode_value(f, obj.eGet(f), ids, names, prefixes)
    return out


def _encode_value(
    f: Any, v: Any, ids: dict[EObject, str], names: linking.Fragments, prefixes: dict[str, str]
) -> Any:
    if not isinstance(f, EAttribute):
        return _encode(v, ids, names, prefixes) if f.containment else names(v)
    codec = datatypes.codec_for(f.eType)
    if codec.name in _NATIVE or (codec.name in _FLOATS and math.isfinite(v)):
        return v
    return codec.to_literal(v)


# ---- reading --------------------------------------------------------------------------


def is_legacy(doc: Any) -> bool:
    """Does a parsed JSON document say it is in this format (any version)?"""
    return isinstance(doc, dict) and doc.get("format") == FORMAT


def document(doc: dict[str, Any], resource_set: ResourceSet, name: str) -> Document:
    """The objects of a parsed document in this format (`is_legacy`).

    Raises:
        CfSerializationError: another version, or not matching the metamodel.
    """
    if doc.get("version") != VERSION:
        raise _fail(name, f"not a {FORMAT} version {VERSION} document")
    packages = doc.get("packages") or {}
    roots = doc.get("roots") or []
    if not isinstance(packages, dict) or not isinstance(roots, list):
        raise _fail(name, f'a {FORMAT} document has a "packages" object and a "roots" array')
    return _Reader(name, resource_set, packages).document(roots)


def _fail(name: str, message: str) -> CfSerializationError:
    return CfSerializationError(message, Span(name, 1, 1, 1, 2), code="bad-json")


class _Reader:
    def __init__(self, name: str, rset: ResourceSet, packages: dict[str, str]) -> None:
        self.name = name
        self.rset = rset
        self.packages = packages
        self.registry = local_registry(rset)
        self.ids: dict[EObject, str] = {}
        self.by_id: dict[str, EObject] = {}
        self.pending: list[tuple[EObject, Any, list[str]]] = []

    def document(self, items: list[Any]) -> Document:
        roots = [self.create(item, None) for item in items]
        targets = linking.Targets(roots, self.by_id)
        links = linking.Linker()
        for obj, f, tokens in self.pending:
            found = [self.find(targets, t) for t in tokens]
            bad = links.set_references(obj, f, found)
            if bad is not None:
                message = f"{obj.eClass.name}.{f.name}: target {bad.eClass.name} is not a {f.eType.name}"
                raise _fail(self.name, message)
        links.add_missing_opposites()
        return Document(roots, self.ids, attach(self.rset, self.name, roots))

    def find(self, targets: linking.Targets, token: Any) -> EObject:
        found = targets.find(token) if isinstance(token, str) else None
        if found is None:
            raise _fail(self.name, f"unresolved reference {token!r}")
        return found

    def eclass(self, item: Any) -> Any:
        if not isinstance(item, dict) or not isinstance(item.get("$class"), str):
            raise _fail(self.name, f'expected an object with a "$class", found {str(item)[:60]!r}')
        prefix, _, local = item["$class"].rpartition(":")
        pkg = self.registry.get(self.packages.get(prefix, ""))
        eclass = pkg.getEClassifier(local) if pkg is not None else None
        if eclass is None or not hasattr(eclass, "eStructuralFeatures") or eclass.abstract:
            raise _fail(self.name, f"unknown or abstract class {item['$class']!r}")
        return eclass

    def create(self, item: Any, default: Any) -> EObject:
        eclass = self.eclass(item)
        obj: EObject = eclass()
        features = {f.name: f for f in model.all_features(eclass)}
        for key, value in item.items():
            if key == "$id":
                self.name_object(obj, value)
            elif key != "$class":
                f = features.get(key)
                if f is None:
                    raise _fail(self.name, f"class {eclass.name} has no feature {key!r}")
                self.feature(obj, f, value)
        return obj

    def name_object(self, obj: EObject, ident: Any) -> None:
        if not isinstance(ident, str) or ident in self.by_id:
            raise _fail(self.name, f"$id {ident!r} is not a string or used twice")
        self.by_id[ident] = obj
        self.ids[obj] = ident

    def feature(self, obj: EObject, f: Any, value: Any) -> None:
        values = value if f.many else [value]
        if f.many and not isinstance(value, list):
            raise _fail(self.name, f"{obj.eClass.name}.{f.name}: expected a list")
        if isinstance(f, EAttribute):
            decoded = [self.attribute_value(f, v) for v in values]
            if f.many:
                obj.eGet(f).extend(decoded)
            else:
                obj.eSet(f, decoded[0])
        elif f.containment:
            for v in values:
                linking.contain(obj, f, self.create(v, f.eType))
        else:
            self.pending.append((obj, f, values))

    def attribute_value(self, f: Any, v: Any) -> Any:
        codec = datatypes.codec_for(f.eType)
        where = f"{self.name}: {f.name}"
        if isinstance(v, str) and codec.name != "EString":
            return datatypes.parse_literal(codec, v, where)
        if isinstance(v, Decimal | int) and not isinstance(v, bool) and codec.name in _FLOATS:
            v = float(v)  # `reader` parses JSON numbers with a fraction as Decimal
        if not codec.check(v):
            raise _fail(self.name, f"{where}: {v!r} is not a valid {codec.name}")
        return v
