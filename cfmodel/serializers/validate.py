"""Checks that run before anything is written, so EMF never sees a file it rejects.

Input: metamodels (`EPackage`s) or instance roots with their ids. Output: nothing, or
one `CfSerializationError` (code ``invalid-metamodel`` / ``invalid-model``) whose notes
list every problem found (up to `MAX_REPORTED`), each naming the element by path.
Guarantees after a clean check: names are well formed and unique (classifiers per
package, features per class including inherited ones, also ignoring case, as EMF's
EcoreValidator does); every package has an nsURI and nsPrefix; every typed element has a
type of the right kind with an EMF-faithful data type mapping; bounds and default
literals are valid; opposites pair up; instance objects have values of the right type
and range, references that stay inside the document, paired opposites, and unique ids.
Bound problems (a required feature not set, too few or too many values) do not stop the
writing — EMF saves such models too — and are reported as one `BoundsWarning`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pyecore.ecore import EAttribute, EClass, EDataType, EEnum, EObject, EPackage

from cfmodel.errors import CfSerializationError, Note
from cfmodel.metamodel.runtime import codegen, fastpath
from cfmodel.serializers import datatypes, featuremaps, model
from cfmodel.serializers.base import PROXY_KEY, proxy_uri

MAX_REPORTED = 20
XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace"
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")
_NCNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:\S+\Z")
# An id must be an XML NCName (xmi:id is an xsd:ID). Measured: EMF's reader takes an
# IDREF with ':' for a URI and silently drops the reference; spaces split IDREFS; '#'
# makes an href; a leading '/' makes a positional path. `base.ncname_id` makes any key safe.
_ID = re.compile(r"[^\W\d][\w.\-]*\Z")


def fail(what: str, code: str, problems: list[str]) -> None:
    """Raise one error carrying every problem (the first `MAX_REPORTED`) as notes."""
    if not problems:
        return
    shown = problems[:MAX_REPORTED]
    more = len(problems) - len(shown)
    notes = [Note(None, p) for p in shown] + ([Note(None, f"... and {more} more")] if more else [])
    plural = "s" if len(problems) != 1 else ""
    raise CfSerializationError(f"{what}: {len(problems)} problem{plural}", code=code, notes=notes)


# ---- metamodels -----------------------------------------------------------------------


def check_packages(packages: Iterable[EPackage]) -> None:
    problems: list[str] = []
    uris: dict[str, str] = {}
    for pkg in packages:
        _check_package(pkg, pkg.name or "?", problems, uris)
    fail("metamodel is not valid Ecore", "invalid-metamodel", problems)


def _check_name(name: Any, where: str, problems: list[str]) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        problems.append(f"{where}: name {name!r} is not a well-formed identifier")


def _check_unique(names: Iterable[tuple[str, Any]], where: str, problems: list[str]) -> None:
    seen: dict[str, str] = {}
    for kind_name, name in names:
        if not isinstance(name, str):
            continue
        other = seen.get(name.lower())
        if other is not None:
            same = "the same name" if other == name else "names that differ only in case"
            problems.append(f"{where}: {kind_name} {other!r} and {name!r} have {same}")
        else:
            seen[name.lower()] = name


def _check_package(pkg: EPackage, where: str, problems: list[str], uris: dict[str, str]) -> None:
    _check_name(pkg.name, where, problems)
    if not pkg.nsURI or not _URI.match(pkg.nsURI):
        problems.append(f"{where}: nsURI {pkg.nsURI!r} is missing or not a well-formed URI")
    elif pkg.nsURI in uris:
        problems.append(f"{where}: nsURI {pkg.nsURI!r} is also used by package {uris[pkg.nsURI]}")
    else:
        uris[pkg.nsURI] = where
    reserved = pkg.nsPrefix.lower().startswith("xml") if isinstance(pkg.nsPrefix, str) else False
    if reserved and (pkg.nsPrefix, pkg.nsURI) == ("xml", XML_NAMESPACE):
        reserved = False  # XML's own namespace has its own prefix (EMF's XMLNamespace.ecore)
    if not pkg.nsPrefix or not _NCNAME.match(pkg.nsPrefix) or reserved:
        problems.append(f"{where}: nsPrefix {pkg.nsPrefix!r} is missing or not a well-formed XML prefix")
    _check_unique((("classifier", c.name) for c in pkg.eClassifiers), where, problems)
    _check_unique((("subpackage", s.name) for s in pkg.eSubpackages), where, problems)
    for c in pkg.eClassifiers:
        _check_classifier(c, f"{where}.{c.name}", problems)
    for sub in pkg.eSubpackages:
        _check_package(sub, f"{where}.{sub.name}", problems, uris)


def _check_classifier(c: Any, where: str, problems: list[str]) -> None:
    _check_name(c.name, where, problems)
    if isinstance(c, EClass):
        _check_class(c, where, problems)
    elif isinstance(c, EEnum):
        _check_enum(c, where, problems)


def _check_enum(e: EEnum, where: str, problems: list[str]) -> None:
    if not e.eLiterals:
        problems.append(f"{where}: enum has no literals")
    _check_unique((("literal", lit.name) for lit in e.eLiterals), where, problems)
    for lit in e.eLiterals:
        _check_name(lit.name, f"{where}.{lit.name}", problems)


def _supertypes_acyclic(c: EClass, where: str, problems: list[str]) -> bool:
    seen: set[int] = set()
    todo = list(c.eSuperTypes)
    while todo:
        s = todo.pop()
        if s is c:
            problems.append(f"{where}: the class is its own supertype (cycle in eSuperTypes)")
            return False
        if id(s) not in seen:
            seen.add(id(s))
            todo.extend(s.eSuperTypes)
    return True


def _check_class(c: EClass, where: str, problems: list[str]) -> None:
    if c.interface and not c.abstract:
        problems.append(f"{where}: an interface must also be abstract")
    if not _supertypes_acyclic(c, where, problems):
        return
    feats = model.all_features(c)
    _check_unique((("feature", f.name) for f in feats), where, problems)
    for f in c.eStructuralFeatures:
        _check_feature(f, f"{where}.{f.name}", problems)


def _check_feature(f: Any, where: str, problems: list[str]) -> None:
    _check_name(f.name, where, problems)
    lower, upper = f.lowerBound, f.upperBound
    if lower < 0 or upper == 0 or upper < -2 or (upper > 0 and upper < lower):
        problems.append(f"{where}: bounds [{lower}..{upper}] are not valid")
    if isinstance(f, EAttribute):
        _check_attribute(f, where, problems)
    else:
        _check_reference(f, where, problems)


def _check_attribute(f: EAttribute, where: str, problems: list[str]) -> None:
    t = f.eType
    if t is None and _typed_by_parameter(f):
        return
    if t is None or not isinstance(t, EDataType) or isinstance(t, EClass):
        problems.append(f"{where}: attribute has no data type (eType={t!r})")
        return
    try:
        codec = datatypes.codec_for(t)
    except CfSerializationError:
        return  # no codec: EMF accepts the type; writing a value of it is refused
    try:
        if f.defaultValueLiteral is not None:
            datatypes.parse_literal(codec, f.defaultValueLiteral, "default")
        elif f.default_value is not None and not f.many and not codec.check(f.default_value):
            problems.append(f"{where}: default value {f.default_value!r} is not a valid {codec.name}")
    except CfSerializationError as exc:
        problems.append(f"{where}: {exc.message}")


def _typed_by_parameter(f: Any) -> bool:
    """Whether *f*'s type is a type parameter (``T``) rather than a classifier."""
    generic = getattr(f, "eGenericType", None)
    return generic is not None and generic.eTypeParameter is not None


def _check_reference(f: Any, where: str, problems: list[str]) -> None:
    if f.eType is None and _typed_by_parameter(f):
        return
    if not isinstance(f.eType, EClass):
        problems.append(f"{where}: reference type {f.eType!r} is not a class")
        return
    opp = f.eOpposite
    if opp is None:
        return
    if opp.eOpposite is not f:
        problems.append(f"{where}: opposite {opp.name} does not point back")
    if opp not in model.all_features(f.eType):
        problems.append(f"{where}: opposite {opp.name} is not a feature of {f.eType.name}")
    if f.containment and opp.containment:
        problems.append(f"{where}: a containment and its opposite cannot both be containments")
    if f.containment and opp.upperBound != 1:
        problems.append(f"{where}: the opposite of a containment ({opp.name}) must have upper bound 1")


# ---- instance models ------------------------------------------------------------------


class DuplicateIdWarning(UserWarning):
    """A document read with an ``xmi:id`` given to several objects (EMF reads such files,
    and writes them back so) was written with those ids."""


class BoundsWarning(UserWarning):
    """A model was written although features break their bounds (a required feature not
    set, too few or too many values): EMF saves such models too, and its Diagnostician
    reports the same problems."""


def check_objects(
    objects: list[EObject],
    ids: Mapping[EObject, str],
    cache: model.FeatureCache | None = None,
    *,
    check_ids: bool = True,
    elsewhere: Callable[[EObject], str | None] | None = None,
    outside: list[EObject] | None = None,
    ids_as_read: bool = False,
) -> list[str]:
    """Check a whole document (`objects` in pre-order) before it is written.

    `ids` name objects in messages and, unless `check_ids` is off (a format whose ids
    need not be NCNames, whose caller checked them), are checked to be distinct NCNames.
    Each object is first checked by its class's `_Rules` (no message built; most objects
    pass); one that does not pass is checked again feature by feature to say why.
    Problems that stop the writing raise `CfSerializationError`; bound problems (which
    EMF writes) are returned and reported once as a `BoundsWarning`. A target outside the
    document is a problem unless `elsewhere` names it (an object of another document, or
    a proxy: see `crossrefs.Hrefs`); such targets are appended to `outside`. With
    `ids_as_read` (the ids are those a reader read), an id given to several objects, as
    EMF reads and writes it, is one `DuplicateIdWarning`, not a problem.
    """
    features = cache or model.FeatureCache()
    problems: list[str] = []
    bounds: list[str] = []
    inside = {id(o) for o in objects}
    if check_ids:
        repeated: list[str] = []
        _check_ids(ids, problems, repeated if ids_as_read else None)
        if repeated:
            warnings.warn(
                DuplicateIdWarning(f"written as read: {'; '.join(repeated[:MAX_REPORTED])}"), stacklevel=3
            )
    id_attrs: dict[tuple[int, Any], str] = {}
    rules: dict[type, _Rules] = {}
    pairs = Pairs()
    for index, obj in enumerate(objects):
        r = rules.get(type(obj))
        if r is None:
            r = rules[type(obj)] = _Rules(obj.eClass, features, pairs)
        if not r.slow and r.clean(obj, inside):
            continue
        _check_object(
            obj, index, ids, features, inside, id_attrs, pairs, problems, bounds, (elsewhere, outside)
        )
        if len(problems) > MAX_REPORTED:
            break
    fail("model cannot be written", "invalid-model", problems)
    if bounds:
        shown = "; ".join(bounds[:MAX_REPORTED]) + (
            f"; ... and {len(bounds) - MAX_REPORTED} more" if len(bounds) > MAX_REPORTED else ""
        )
        plural = "s" if len(bounds) != 1 else ""
        warnings.warn(
            BoundsWarning(f"model written with {len(bounds)} bound problem{plural}: {shown}"), stacklevel=3
        )
    return bounds


class Pairs:
    """Does a target list an object back in the opposite feature? O(1) per question."""

    def __init__(self) -> None:
        self.members: dict[tuple[int, int], set[int]] = {}

    def paired(self, target: EObject, opp: Any, opp_many: bool, opp_unique: bool, obj: EObject) -> bool:
        if not opp_many:
            return bool(fastpath.single(target, opp) is obj)
        back = fastpath.items(target, opp)
        if opp_unique:  # an ordered set
            return bool(obj in back)
        key = (id(target), id(opp))
        members = self.members.get(key)
        if members is None:
            members = self.members[key] = {id(x) for x in back}
        return id(obj) in members


class _Rules:
    """What every object of one class must satisfy, as a function generated for the class.

    ``clean(obj, inside)`` is True when the object passes every check `_check_object`
    makes; it builds no message. Abstract classes and classes with iD attributes always
    take the detailed path (``slow``), as every class does when PyEcore's holders are not
    laid out as `fastpath` knows them.
    """

    __slots__ = ("clean", "slow")

    def __init__(self, eclass: Any, features: model.FeatureCache, pairs: Pairs) -> None:
        persistent = features.persistent(eclass)
        # not RAW: holders are not laid out as the generated lines read them
        self.slow = needs_detail(eclass, features) or not fastpath.RAW
        persistent = [f for f in persistent if not featuremaps.is_feature_map(f)]  # (slow: detailed)
        self.clean: Callable[[EObject, set[int]], bool] = _clean_emitter(persistent).build(
            f"<cfmodel.validate {eclass.name}>",
            "clean",
            items=fastpath.items,
            paired=pairs.paired,
            illegal=datatypes.find_xml_illegal,
        )


# A check that settles the common case without a call (False: always ask the codec).
_QUICK_CHECK = {
    "EString": "type(v) is str and illegal(v) is None",
    "EBoolean": "type(v) is bool",
    "EBooleanObject": "type(v) is bool",
    "EDouble": "type(v) is float",
    "EDoubleObject": "type(v) is float",
    "EFloat": "type(v) is float",
    "EFloatObject": "type(v) is float",
    "EBigInteger": "type(v) is int",
    **{n: datatypes.integer_range_test(b).format(v="v") for n, b in datatypes.INTEGER_BITS.items()},
}


def _clean_emitter(persistent: list[Any]) -> codegen.Emitter:
    """``clean(obj, inside)``: False at the first check that fails (`feature_check`)."""
    em = codegen.Emitter("items", "paired", "illegal")
    with em.block("def clean(obj, inside):"):
        em.line("d = obj.__dict__", "s = obj._isset")
        for f in persistent:
            feature_check(f, em, "return False")
        em.line("return True")
    return em


def feature_check(
    f: Any,
    em: codegen.Emitter,
    fail: str,
    values: bool = True,
    outside: str = "id(v) not in inside",
) -> None:
    """Emit lines checking one persistent feature of ``obj`` as `_check_object` does
    (bounds, required, value types and ranges, targets inside and paired), leaving the
    value in ``v`` (single-valued; None when unset) or the values in ``vs``.

    `fail` is the statement run on a problem, and also on a single value that is not in
    one of PyEcore's holders (stored around its descriptors: only the detailed check reads
    it). The lines use ``d`` (the object's ``__dict__``), ``s`` (its ``_isset``), ``obj``,
    ``inside`` (ids of the document's objects), ``items`` (`fastpath.items`), ``paired``
    (`Pairs.paired`), ``illegal`` (`datatypes.find_xml_illegal`), and the values they bind
    in `em`. Without `values`, a single-valued attribute's value is left for the caller to
    check. `outside`: the test that a target ``v`` is not an object of the document (a
    caller may keep ``inside`` in another form).
    """
    attr = isinstance(f, EAttribute)
    feature = em.bind(f, "feature")
    if f.many:
        lower, upper = f.lowerBound, f.upperBound
        em.line(f"vs = items(obj, {feature})")
        tests = [f"len(vs) < {lower}"] if lower > 0 else []
        tests += [f"len(vs) > {upper}"] if upper > 0 else []
        if tests:
            with em.block(f"if {' or '.join(tests)}:"):
                em.line(fail)
        with em.block("for v in vs:"):
            _value_check(f, em, fail, outside)
        return
    read_value(f, em, fail)
    if f.lowerBound > 0 and model.default_of(f) is None:
        with em.block("if v is None:"):
            em.line(fail)
    if not values and attr:
        return
    with em.block("if v is not None:"):
        _value_check(f, em, fail, outside)


def read_value(f: Any, em: codegen.Emitter, doubt: str) -> None:
    """Emit lines leaving single-valued `f`'s value in ``v`` (None when unset), read from
    its holder in ``d``; `doubt` runs when the value is not in one of PyEcore's holders."""
    with em.block(f"if {em.bind(f, 'feature')} in s:"):
        em.line(f"h = d.get({em.literal(f._name)})")
        with em.block(f"if type(h) not in {em.bind(fastpath.holder_types(f), 'holders')}:"):
            em.line(doubt)
        em.line("v = h._value")
    with em.block("else:"):
        em.line("v = None")


def _value_check(f: Any, em: codegen.Emitter, fail: str, outside: str) -> None:
    """Lines checking one value ``v`` of `f` (its type and range, or its target)."""
    if isinstance(f, EAttribute):
        codec = datatypes.codec_for(f.eType)
        check = em.bind(codec.check, "check")
        quick = _QUICK_CHECK.get(codec.name)
        ok = f"({quick} or {check}(v))" if quick else f"{check}(v)"
        with em.block(f"if not {ok}:"):
            em.line(fail)
        return
    with em.block(f"if {outside}:"):
        em.line(fail)
    opp = f.eOpposite
    if opp is not None:
        call = f"paired(v, {em.bind(opp, 'opposite')}, {bool(opp.many)}, {bool(opp.unique)}, obj)"
        with em.block(f"if not {call}:"):
            em.line(fail)


def needs_detail(eclass: Any, features: model.FeatureCache) -> bool:
    """Objects of this class are always checked in detail (abstract, with iD attributes, or
    with feature maps)."""
    persistent = features.persistent(eclass)
    return bool(eclass.abstract) or any(
        isinstance(f, EAttribute) and (f.iD or featuremaps.is_feature_map(f)) for f in persistent
    )


def id_problems(ids: Mapping[EObject, str]) -> list[str]:
    """What `check_objects` says about the ids alone (syntax, uniqueness)."""
    problems: list[str] = []
    _check_ids(ids, problems)
    return problems


def _check_object(
    obj: EObject,
    index: int,
    ids: Mapping[EObject, str],
    features: model.FeatureCache,
    inside: set[int],
    id_attrs: dict[tuple[int, Any], str],
    pairs: Pairs,
    problems: list[str],
    bounds: list[str] | None = None,
    external: _External = (None, None),
) -> None:
    if PROXY_KEY in obj.__dict__:  # a child kept in another document: nothing of it is written
        return
    where = f"{obj.eClass.name} {ids.get(obj) or f'#{index}'}"
    if obj.eClass.abstract:
        problems.append(f"{where}: class {obj.eClass.name} is abstract")
    for f in features.persistent(obj.eClass):
        _check_value(
            obj,
            f,
            f"{where}.{f.name}",
            inside,
            pairs,
            problems,
            problems if bounds is None else bounds,
            external,
        )
        if isinstance(f, EAttribute) and f.iD:
            _check_id_attribute(obj, f, where, id_attrs, problems)


def _check_ids(ids: Mapping[EObject, str], problems: list[str], repeated: list[str] | None = None) -> None:
    values = list(ids.values())
    try:  # the common case at C speed: distinct ASCII identifiers (NCNames); else say what is wrong
        if (
            len(set(values)) == len(values)
            and "".join(values).isascii()
            and all(map(str.isidentifier, values))
        ):
            return
    except TypeError:  # an id that is not a string
        pass
    owner: dict[str, EObject] = {}
    for obj, ident in ids.items():
        # An ASCII identifier is an NCName: the regular expression only for the rest.
        if type(ident) is str and ident.isascii() and ident.isidentifier():
            pass
        elif not isinstance(ident, str) or not _ID.match(ident):
            problems.append(f"id {ident!r} of a {obj.eClass.name} is not an XML NCName (use base.ncname_id)")
            continue
        if ident in owner:
            both = f"{owner[ident].eClass.name}, {obj.eClass.name}"
            (problems if repeated is None else repeated).append(
                f"id {ident!r} is given to two objects ({both})"
            )
        else:
            owner[ident] = obj


def _check_id_attribute(
    obj: EObject, f: Any, where: str, seen: dict[tuple[int, Any], str], problems: list[str]
) -> None:
    v = obj.eGet(f)
    if v is None:
        return
    key = (id(f), v)
    if key in seen:
        problems.append(f"{where}: iD attribute {f.name}={v!r} is also used by {seen[key]}")
    else:
        seen[key] = where


def _check_value(
    obj: EObject,
    f: Any,
    where: str,
    inside: set[int],
    pairs: Pairs,
    problems: list[str],
    bounds: list[str],
    external: _External = (None, None),
) -> None:
    if featuremaps.is_feature_map(f):
        _check_entries(obj, f, where, inside, pairs, problems, external)
        return
    if f.many:
        values = list(obj.eGet(f))
        n = len(values)
        if n < f.lowerBound or (f.upperBound > 0 and n > f.upperBound):
            bounds.append(f"{where}: {n} values, expected [{f.lowerBound}..{f.upperBound}]")
    else:
        v = obj.eGet(f) if obj.eIsSet(f) else None
        values = [] if v is None else [v]
        if not values and f.lowerBound > 0 and model.default_of(f) is None:
            bounds.append(f"{where}: required feature is not set")
    if isinstance(f, EAttribute):
        codec = datatypes.codec_for(f.eType)
        bad = [v for v in values if not codec.check(v)]
        problems.extend(f"{where}: value {v!r} is not a valid {codec.name}" for v in bad)
    else:
        _check_targets(obj, f, values, where, inside, pairs, problems, external)


def _check_entries(
    obj: EObject, f: Any, where: str, inside: set[int], pairs: Pairs, problems: list[str], external: _External
) -> None:
    """A feature map's entries: each names a member of this map, and its value is one
    the member may hold (a valid literal, a contained object, a target)."""
    groups = featuremaps.groups_of(obj.eClass)
    wildcard = next((w for w in featuremaps.attribute_wildcards(obj.eClass) if w.feature is f), None)
    for e in featuremaps.entries(obj, f):
        member = e.feature if type(e) is featuremaps.Entry else None
        if wildcard is not None:  # an XML attribute of a namespace the wildcard admits
            if not isinstance(member, EAttribute) or member.many:
                problems.append(f"{where}: {e!r} is not an entry of a single-valued attribute")
            elif not wildcard.admits(featuremaps.attribute_namespace(member)):
                problems.append(f"{where}: {f.name} does not admit the namespace of {member.name}")
            elif not datatypes.codec_for(member.eType).check(e.value):
                valid = member.eType.name
                problems.append(f"{where}: {member.name} value {e.value!r} is not a valid {valid}")
        elif member is None or groups.get(member.name) != (f, member):
            problems.append(f"{where}: {e!r} is not an entry of a member of {f.name}")
        elif isinstance(member, EAttribute):
            if not datatypes.codec_for(member.eType).check(e.value):
                problems.append(
                    f"{where}: {member.name} value {e.value!r} is not a valid {member.eType.name}"
                )
        elif member.containment:
            if not isinstance(e.value, EObject) or id(e.value) not in inside:
                problems.append(f"{where}: {member.name} holds {e.value!r}, not a contained object")
        else:
            _check_targets(
                obj, member, [e.value], f"{where}.{member.name}", inside, pairs, problems, external
            )


# (names objects of other documents, collects the targets it named) or (None, None)
_External = tuple[Callable[[EObject], str | None] | None, list[EObject] | None]


def _check_targets(
    obj: EObject,
    f: Any,
    values: list[Any],
    where: str,
    inside: set[int],
    pairs: Pairs,
    problems: list[str],
    external: _External = (None, None),
) -> None:
    opp = f.eOpposite
    elsewhere, outside = external
    for v in values:
        if isinstance(v, EObject) and (id(v) not in inside or proxy_uri(v) is not None) and elsewhere:
            if elsewhere(v) is None:  # in no resource: nothing names it
                problems.append(f"{where}: target {v!r} is not an object of this document")
                continue
            if outside is not None:
                outside.append(v)
            if (
                opp is not None
                and proxy_uri(v) is None
                and not pairs.paired(v, opp, bool(opp.many), bool(opp.unique), obj)
            ):
                problems.append(f"{where}: target {v.eClass.name} does not list it back in {opp.name}")
        elif not isinstance(v, EObject) or id(v) not in inside:
            problems.append(f"{where}: target {v!r} is not an object of this document")
        elif opp is not None and not pairs.paired(v, opp, bool(opp.many), bool(opp.unique), obj):
            problems.append(f"{where}: target {v.eClass.name} does not list it back in {opp.name}")
