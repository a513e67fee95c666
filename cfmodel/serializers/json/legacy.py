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
from cfmodel.serializers.json.positions import Path_, kind_of, locate

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


def document(doc: dict[str, Any], resource_set: ResourceSet, name: str, text: str) -> Document:
    """The objects of a parsed document in this format (`is_legacy`); `text` is the
    document's text, where errors are located.

    Raises:
        CfSerializationError: another version, or not matching the metamodel (at the
            line and column of the value concerned).
    """
    reader = _Reader(name, text, resource_set)
    if doc.get("version") != VERSION:
        raise reader.fail(f"not a {FORMAT} version {VERSION} document", path=("version",))
    packages = doc.get("packages", {})
    roots = doc.get("roots", [])
    if not isinstance(packages, dict) or not all(isinstance(u, str) for u in packages.values()):
        raise reader.fail('"packages" must be an object of prefixes and nsURIs (strings)', path=("packages",))
    if not isinstance(roots, list):
        raise reader.fail('"roots" must be an array of objects', path=("roots",))
    reader.packages = packages
    return reader.document(roots)


class _Reader:
    def __init__(self, name: str, text: str, rset: ResourceSet) -> None:
        self.name = name
        self.text = text
        self.rset = rset
        self.packages: dict[str, str] = {}
        self.registry = local_registry(rset)
        self.ids: dict[EObject, str] = {}
        self.by_id: dict[str, EObject] = {}
        self.pending: list[tuple[EObject, Any, list[tuple[Any, Path_]]]] = []

    def fail(
        self, message: str, path: Path_, code: str = "bad-json", at_key: bool = False
    ) -> CfSerializationError:
        line, col = locate(self.text, path, at_key)
        where = "/".join(map(str, path))
        return CfSerializationError(
            f"{message} (at /{where})", Span(self.name, line, col, line, col + 1), code=code
        )

    def document(self, items: list[Any]) -> Document:
        roots = [self.create(item, ("roots", k)) for k, item in enumerate(items)]
        targets = linking.Targets(roots, self.by_id)
        links = linking.Linker()
        for obj, f, tokens in self.pending:
            found = [self.find(targets, token, path) for token, path in tokens]
            bad = links.set_references(obj, f, found)
            if bad is not None:
                k = next(n for n, t in enumerate(found) if t is bad)
                message = f"{obj.eClass.name}.{f.name}: target {bad.eClass.name} is not a {f.eType.name}"
                raise self.fail(message, tokens[k][1])
        links.add_missing_opposites()
        return Document(roots, self.ids, attach(self.rset, self.name, roots))

    def find(self, targets: linking.Targets, token: Any, path: Path_) -> EObject:
        if not isinstance(token, str):
            raise self.fail(f"a reference is a string (an id or a fragment), not {kind_of(token)}", path)
        found = targets.find(token)
        if found is None:
            raise self.fail(f"unresolved reference {token!r}", path)
        return found

    def eclass(self, item: Any, path: Path_) -> Any:
        if not isinstance(item, dict) or not isinstance(item.get("$class"), str):
            raise self.fail(f'expected an object with a "$class" (a string), found {kind_of(item)}', path)
        prefix, _, local = item["$class"].rpartition(":")
        pkg = self.registry.get(self.packages.get(prefix, ""))
        eclass = pkg.getEClassifier(local) if pkg is not None else None
        if eclass is None or not hasattr(eclass, "eStructuralFeatures") or eclass.abstract:
            raise self.fail(f"unknown or abstract class {item['$class']!r}", (*path, "$class"))
        return eclass

    def create(self, item: Any, path: Path_, ftype: Any = None) -> EObject:
        eclass = self.eclass(item, path)
        if ftype is not None and eclass is not ftype and ftype not in eclass.eAllSuperTypes():
            raise self.fail(f"class {eclass.name} is not a {ftype.name}", path)
        obj: EObject = eclass()
        features = {f.name: f for f in model.all_features(eclass)}
        for key, value in item.items():
            if key == "$id":
                self.name_object(obj, value, (*path, key))
            elif key != "$class":
                f = features.get(key)
                if f is None:
                    raise self.fail(f"class {eclass.name} has no feature {key!r}", (*path, key), at_key=True)
                self.feature(obj, f, value, (*path, key))
        return obj

    def name_object(self, obj: EObject, ident: Any, path: Path_) -> None:
        if not isinstance(ident, str) or ident in self.by_id:
            raise self.fail(f"$id {ident!r} is not a string or used twice", path)
        self.by_id[ident] = obj
        self.ids[obj] = ident

    def feature(self, obj: EObject, f: Any, value: Any, path: Path_) -> None:
        if f.many and not isinstance(value, list):
            raise self.fail(f"{obj.eClass.name}.{f.name}: expected a list", path)
        values = value if f.many else [value]
        paths = [(*path, k) for k in range(len(values))] if f.many else [path]
        if isinstance(f, EAttribute):
            decoded = [self.attribute_value(f, v, at) for v, at in zip(values, paths, strict=True)]
            if f.many:
                obj.eGet(f).extend(decoded)
            else:
                obj.eSet(f, decoded[0])
        elif f.containment:
            for v, at in zip(values, paths, strict=True):
                linking.contain(obj, f, self.create(v, at, f.eType))
        else:
            self.pending.append((obj, f, list(zip(values, paths, strict=True))))

    def attribute_value(self, f: Any, v: Any, path: Path_) -> Any:
        try:
            codec = datatypes.codec_for(f.eType)
        except CfSerializationError as exc:
            raise self.fail(exc.message, path, exc.code) from None
        where = f"{f.eContainingClass.name}.{f.name}"
        if isinstance(v, str) and codec.name != "EString":
            try:
                return datatypes.parse_literal(codec, v, where)
            except CfSerializationError as exc:
                raise self.fail(exc.message, path, exc.code) from None
        if isinstance(v, Decimal | int) and not isinstance(v, bool) and codec.name in _FLOATS:
            v = float(v)  # `reader` parses JSON numbers with a fraction as Decimal
        if not codec.check(v):
            shown = std_json.dumps(v, default=str)[:60]
            raise self.fail(f"{where}: {shown} is not a valid {codec.name}", path, "bad-value")
        return v
