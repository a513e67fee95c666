"""The resource kinds of mcl (the ones mgmt ships) as a metamodel: typed fields, defaults,
what each kind can send, and the meta parameters every resource has.

`Kind` is the Python declaration (users add kinds with their own `Kind` values);
`kinds_package()` declares them as an Ecore package (nsURI
``http://cfmodel.org/mcl/kinds/1.0``): one EClass per kind, subclass of the abstract
``Resource`` (``name``), one typed EAttribute per field (``str`` → EString, ``int`` →
ELong, ``float`` → EDouble, ``bool`` → EBoolean, ``[]T`` many-valued, maps and structs
as their mcl type text), each annotated with its mcl type under ``mcl``.
Field types are mcl type strings (``transforms/mcl/types.parse_type`` reads them).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from pyecore.ecore import EAnnotation, EAttribute, EBoolean, EDouble, ELong, EPackage, EString

from cfmodel.metamodel.builder import add_attribute, add_class

NS_URI = "http://cfmodel.org/mcl/kinds/1.0"


@dataclass(frozen=True)
class Kind:
    """A resource kind: its fields (name → mcl type), defaults, and the fields it sends."""

    name: str
    fields: dict[str, str]
    defaults: dict[str, Any] = field(default_factory=dict)
    sends: dict[str, str] = field(default_factory=dict)
    doc: str = ""

    @property
    def class_name(self) -> str:
        """``file`` → ``File``, ``http:server`` → ``Http:Server`` (the edge spelling)."""
        return ":".join(part[:1].upper() + part[1:] for part in self.name.split(":"))


# The meta parameters (``Meta:name``), in the order of the whole ``Meta`` struct, with mgmt's
# defaults. ``Meta => struct{...}`` takes all of them, or the nine the guide shows
# (`GUIDE_META_FIELDS`, an older layout that mgmt's language guide documents).
META_FIELDS: dict[str, str] = {
    "noop": "bool",
    "retry": "int",
    "retryreset": "bool",
    "delay": "int",
    "poll": "int",
    "limit": "float",
    "burst": "int",
    "reset": "bool",
    "sema": "[]str",
    "rewatch": "bool",
    "realize": "bool",
    "dollar": "bool",
    "reverse": "bool",
    "autoedge": "bool",
    "autogroup": "bool",
}
META_DEFAULTS: dict[str, Any] = {
    "noop": False,
    "retry": 0,
    "retryreset": False,
    "delay": 0,
    "poll": 0,
    "limit": float("inf"),
    "burst": 0,
    "reset": False,
    "sema": (),
    "rewatch": False,
    "realize": False,
    "dollar": False,
    "reverse": False,
    "autoedge": True,
    "autogroup": True,
}
GUIDE_META_FIELDS = ("noop", "retry", "delay", "poll", "limit", "burst", "sema", "autoedge", "autogroup")
META_STRUCT = "struct{" + "; ".join(f"{name} {t}" for name, t in META_FIELDS.items()) + "}"
GUIDE_META_STRUCT = "struct{" + "; ".join(f"{name} {META_FIELDS[name]}" for name in GUIDE_META_FIELDS) + "}"

EDGE_PROPERTIES = ("Before", "Depend", "Notify", "Listen")

_INTS = {f"{sign}int{bits}": "int" for sign in ("", "u") for bits in ("", "8", "16", "32", "64")}


def builtin_kinds() -> dict[str, Kind]:
    """The kinds mgmt ships, by mcl name."""
    kinds = [
        Kind(
            "file",
            {
                "path": "str",
                "dirname": "str",
                "basename": "str",
                "state": "str",
                "content": "str",
                "source": "str",
                "fragments": "[]str",
                "owner": "str",
                "group": "str",
                "mode": "str",
                "recurse": "bool",
                "force": "bool",
                "purge": "bool",
            },
            sends={"content": "str"},
            doc="a file or directory (a name ending in / is a directory)",
        ),
        Kind(
            "exec",
            {
                "cmd": "str",
                "args": "[]str",
                "cwd": "str",
                "shell": "str",
                "timeout": "int",
                "env": "map{str: str}",
                "watchcmd": "str",
                "watchcwd": "str",
                "watchshell": "str",
                "ifcmd": "str",
                "ifcwd": "str",
                "ifshell": "str",
                "creates": "str",
                "donecmd": "str",
                "donecwd": "str",
                "doneshell": "str",
                "user": "str",
                "group": "str",
            },
            sends={"output": "str", "stdout": "str", "stderr": "str"},
            doc="a command",
        ),
        Kind(
            "pkg",
            {"state": "str", "allowuntrusted": "bool", "allownonfree": "bool", "allowunsupported": "bool"},
            defaults={"state": "installed"},
            doc="a package",
        ),
        Kind("svc", {"state": "str", "startup": "str", "session": "bool"}, doc="a service"),
        Kind("print", {"msg": "str", "refresh_only": "bool"}, doc="prints a message"),
        Kind(
            "test",
            {
                "bool": "bool",
                "str": "str",
                **_INTS,
                "byte": "int",
                "rune": "int",
                "float32": "float",
                "float64": "float",
                "boolptr": "bool",
                "stringptr": "str",
                "int64ptr": "int",
                "int8ptr": "int",
                "uint8ptr": "int",
                "int8ptrptrptr": "int",
                "slicestring": "[]str",
                "mapintfloat": "map{int: float}",
                "somebool": "bool",
                "somestr": "str",
                "someint": "int",
                "somefloat": "float",
                "anotherstr": "str",
                "validatebool": "bool",
                "validateerror": "str",
                "alwaysgroup": "bool",
                "comparefail": "bool",
                "sendvalue": "str",
                "expectrecv": "[]str",
                "onlyshow": "[]str",
                "comment": "str",
                "mixedstruct": "struct{somebool bool; somestr str; someint int; somefloat float}",
            },
            sends={"hello": "str", "answer": "int"},
            doc="a resource for testing (every kind of field)",
        ),
        Kind("noop", {"comment": "str"}, doc="does nothing"),
        Kind(
            "msg",
            {
                "body": "str",
                "priority": "str",
                "fields": "map{str: str}",
                "journal": "bool",
                "syslog": "bool",
            },
            doc="a log message",
        ),
        Kind(
            "user",
            {
                "state": "str",
                "uid": "int",
                "gid": "int",
                "group": "str",
                "groups": "[]str",
                "homedir": "str",
                "allowduplicateuid": "bool",
            },
            doc="a user account",
        ),
        Kind("group", {"state": "str", "gid": "int"}, doc="a group"),
        Kind("timer", {"interval": "int"}, doc="a periodic event"),
        Kind(
            "kv",
            {"key": "str", "value": "str", "skiplessthan": "bool", "skipcmpstyle": "int"},
            sends={"value": "str"},
            doc="a key in the cluster's key-value store",
        ),
    ]
    return {kind.name: kind for kind in kinds}


_ETYPES = {"str": EString, "int": ELong, "float": EDouble, "bool": EBoolean}


@functools.cache
def kinds_package() -> Any:
    """The built-in kinds as an Ecore package (built once; treat it as read-only)."""
    return kinds_to_package(builtin_kinds())


def kinds_to_package(kinds: dict[str, Kind]) -> Any:
    """Declare *kinds* as an EPackage (see the module docstring)."""
    package = EPackage("mclkinds", nsURI=NS_URI, nsPrefix="mclkinds")
    base = add_class(package, "Resource", abstract=True)
    add_attribute(base, "name", EString)
    for kind in sorted(kinds.values(), key=lambda k: k.name):
        cls = add_class(package, kind.class_name.replace(":", "_"), (base,))
        for name, mcl_type in kind.fields.items():
            many = mcl_type.startswith("[]") and mcl_type[2:] in _ETYPES
            etype = _ETYPES.get(mcl_type[2:] if many else mcl_type, EString)
            add_attribute(cls, name, etype, many=many, default=kind.defaults.get(name))
            attribute = cls.eStructuralFeatures[-1]
            annotation = EAnnotation(source="mcl")
            annotation.details["type"] = mcl_type
            attribute.eAnnotations.append(annotation)
    return package


_MCL_OF_ETYPE = {
    "EString": "str",
    "ELong": "int",
    "EInt": "int",
    "EDouble": "float",
    "EFloat": "float",
    "EBoolean": "bool",
}


def kinds_from_package(package: Any) -> dict[str, Kind]:
    """The kinds an Ecore package declares (users add kinds this way too): every concrete
    EClass is a kind named by its name in lower case (``Http_Server`` → ``http:server``);
    each attribute a field, typed by its ``mcl`` annotation or else by its EType (EString
    → ``str``, ELong/EInt → ``int``, EDouble/EFloat → ``float``, EBoolean → ``bool``;
    many-valued → ``[]T``); ``name`` (the resource's name) is not a field. An attribute of
    another type without an annotation is left out."""
    kinds: dict[str, Kind] = {}
    for cls in package.eClassifiers:
        if not hasattr(cls, "eAllStructuralFeatures") or cls.abstract:
            continue
        fields: dict[str, str] = {}
        defaults: dict[str, Any] = {}
        for feature in cls.eAllStructuralFeatures():
            if feature.name == "name" or not isinstance(feature, EAttribute):
                continue
            annotation = feature.getEAnnotation("mcl")
            mcl_type = annotation.details.get("type") if annotation is not None else None
            if mcl_type is None:
                base = _MCL_OF_ETYPE.get(feature.eType.name)
                if base is None:
                    continue
                mcl_type = f"[]{base}" if feature.many else base
            fields[feature.name] = mcl_type
            default = feature.default_value
            if default is not None and default != feature.eType.default_value and not feature.many:
                defaults[feature.name] = default
        name = ":".join(part.lower() for part in cls.name.split("_"))
        kinds[name] = Kind(name, fields, defaults)
    return kinds
