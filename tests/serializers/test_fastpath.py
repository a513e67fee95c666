"""The serializers' fast paths leave exactly what PyEcore's own API leaves.

Objects read from XMI and JSON are built through `fastpath` (direct holders, no
notifications) and per-class generated code; the writers and the validation use
generated per-class functions. Each is compared here with the general path it replaces:
PyEcore's setters (the sample models are built with them), the detailed validation, and
the general attribute writer.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from decimal import Decimal
from enum import IntEnum
from typing import Any

import pytest
from ordered_set import OrderedSet
from pyecore.ecore import EAttribute, EClass, EDouble, EInt, EObject, EPackage, EReference, EString
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers import canonical, ecore, json, linking, model, validate, xmi
from cfmodel.serializers.base import register_packages
from cfmodel.serializers.xmi import heads, reader, writer
from tests.serializers.samples import infra_ids, infra_model, infra_package


def _ids(roots: list[EObject]) -> dict[EObject, str]:
    return {o: i for o in canonical.walk(roots) if (i := infra_ids(o))}


def internal_state(roots: list[EObject], ids: dict[EObject, str]) -> list[str]:
    """Everything PyEcore keeps on the objects that a reader sets, as comparable text."""
    paths = canonical.Paths(roots, ids)
    out: list[str] = []
    for obj in canonical.walk(roots):
        out.append(f"{paths(obj)} isset={sorted(f.name for f in obj._isset)}")
        cont = obj._container
        feature = obj._containment_feature
        out.append(
            f"  container={paths(cont) if isinstance(cont, EObject) else cont}"
            f" via {feature.name if feature is not None else None}"
        )
        out.append(f"  inverse={sorted((paths(o), f.name) for o, f in obj._inverse_rels)}")
        out.append(f"  listeners={len(obj.listeners)} eternal={len(obj._eternal_listener)}")
        for f in model.all_features(obj.eClass):
            holder = obj.__dict__.get(f._name)
            if holder is None:
                continue
            if isinstance(holder, fastpath.HOLDERS):
                assert holder.owner is obj and holder.feature is f
                assert holder.is_ref == (not isinstance(f, EAttribute))
                assert holder.is_cont == bool(getattr(f, "containment", False))
                value = canonical.value(holder._value, paths, {id(o) for o in canonical.walk(roots)})
                out.append(f"  {f.name}: EValue {value}")
            else:
                inside = {id(o) for o in canonical.walk(roots)}
                items = [canonical.value(v, paths, inside) for v in holder]
                out.append(f"  {f.name}: {type(holder).__name__} {items}")
    return out


@pytest.fixture(params=[True, False], ids=["raw", "pyecore-api"])
def raw(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[bool]:
    monkeypatch.setattr(fastpath, "RAW", request.param)
    yield request.param


def test_the_raw_path_is_taken_with_this_pyecore() -> None:
    assert fastpath.RAW


@pytest.mark.parametrize("module", [xmi, json], ids=["xmi", "json"])
@pytest.mark.parametrize("with_ids", [True, False], ids=["ids", "positional"])
def test_read_objects_match_objects_built_through_pyecore(module: Any, with_ids: bool, raw: bool) -> None:
    pkg = infra_package()
    roots = infra_model(pkg)
    ids = _ids(roots) if with_ids else {}
    options = (xmi.XmiOptions if module is xmi else json.JsonOptions)(id_of=ids.get)
    data = module.to_bytes(roots, options)
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    doc = module.from_bytes(data, rset)
    # Holders that PyEcore's setters create and the readers do not need: an attribute
    # accessed but never set, such as `port` below, is simply absent after reading.
    expected = internal_state(roots, ids)
    assert internal_state(doc.roots, doc.ids) == expected


def _edit(roots: list[EObject]) -> list[str]:
    """Edits through PyEcore's API; returns the notifications seen on the first root."""
    web0, web1, cluster = roots[0], roots[1], roots[-1]
    seen: list[str] = []
    listener = type(
        "L", (), {"notifyChanged": lambda self, n: seen.append(f"{n.kind.name} {n.feature.name}")}
    )
    web0.listeners.append(listener())
    web0.name = "renamed"
    web0.peers.remove(web1)  # an opposite: web1.peerOf loses web0
    web0.files[0].host = web1  # the container reference: the file moves to web1.files
    web0.primary = None
    web1.tags.append("new")
    cluster.hosts.remove(web0)
    web1.delete()
    return seen


def test_read_objects_behave_like_built_ones_under_edits(raw: bool) -> None:
    pkg = infra_package()
    built = infra_model(pkg)
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    doc = xmi.from_bytes(xmi.to_bytes(built, xmi.XmiOptions(id_of=infra_ids)), rset)
    read = doc.roots
    host = rset.metamodel_registry["http://cfmodel.example/infra"].getEClassifier("Host")
    assert set(host.allInstances()) >= set(read[:3])  # PyEcore's registry of instances
    assert read[0].files[1].eResource is doc.resource and read[0].files[1].eURIFragment() == "/0/@files.1"
    assert _edit(read) == _edit(built)
    assert internal_state(read, {}) == internal_state(built, {})


# ---- the generated attribute writer against the general one ------------------------------


class Level(IntEnum):
    LOW = 1


class Shout(str):
    def __str__(self) -> str:
        return self.upper()


def _odd_package() -> tuple[EPackage, EClass]:
    pkg = EPackage("o", nsURI="http://cfmodel.example/o", nsPrefix="o")
    c = EClass("Odd")
    c.eStructuralFeatures += [EAttribute("s", EString), EAttribute("i", EInt), EAttribute("d", EDouble)]
    pkg.eClassifiers.append(c)
    return pkg, c


@pytest.mark.parametrize(
    "s, i, d",
    [
        ('<&>"\n\r\t', 0, 0.0),
        (Shout("a&b"), Level.LOW, math.nan),
        ("plain", 2**31 - 1, -math.inf),
        ("é ü 𝄞", -(2**31), 1e300),
    ],
)
def test_generated_head_equals_general_head(s: str, i: int, d: float) -> None:
    _pkg, c = _odd_package()
    obj = c(s=s, i=i, d=d)
    plan = writer.ClassPlan(c, "o")
    names = linking.Fragments([obj], {})
    assert plan.head(obj, {}, names, "", "") == plan.slow_head(obj, {}, names)
    assert plan.head(obj, {obj: "x1"}, names, "<", ">") == f"<{plan.slow_head(obj, {obj: 'x1'}, names)}>"


@pytest.mark.parametrize("with_ids", [True, False], ids=["ids", "positional"])
def test_generated_heads_equal_general_heads_on_the_sample(with_ids: bool) -> None:
    pkg = infra_package()
    roots = infra_model(pkg)
    ids = _ids(roots) if with_ids else {}
    names = linking.Fragments(roots, ids)
    plans: dict[type, writer.ClassPlan] = {}
    for obj in canonical.walk(roots):
        plan = plans.setdefault(type(obj), writer.ClassPlan(obj.eClass, "infra"))
        assert plan.head(obj, ids, names, "", "") == plan.slow_head(obj, ids, names)


def test_values_stored_around_pyecore_are_written_by_the_general_head() -> None:
    _pkg, c = _odd_package()
    obj = c(s="x", i=1)
    obj.__dict__["s"] = "raw"  # no holder: the generated head cannot read it
    data = xmi.to_bytes([obj]).decode()
    assert '<o:Odd xmi:version="2.0"' in data and 's="raw" i="1"' in data


# ---- generated validation against the detailed one --------------------------------------


def _problems(
    roots: list[EObject], ids: dict[EObject, str], fast: bool, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(validate._Rules, "__init__", _always_slow)
        objects = list(canonical.walk(roots))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", validate.BoundsWarning)
                bounds = validate.check_objects(objects, ids)
        except CfSerializationError as exc:
            return [n.message for n in exc.notes]
    return [f"warning: {b}" for b in bounds]


def _always_slow(self: Any, eclass: Any, features: Any, pairs: Any) -> None:
    self.slow = True
    self.clean = None


def _breakages() -> Iterator[tuple[str, Any]]:
    yield "valid", lambda roots: None
    yield "required unset", lambda roots: roots[0].__dict__["name"].__setattr__("_value", None)
    yield "EInt overflow", lambda roots: _force(roots[0], "cpus", 2**31)
    yield "EShort overflow", lambda roots: _force(roots[1], "weight", 40000)
    yield "bool as int", lambda roots: _force(roots[1], "cpus", True)
    yield "illegal character", lambda roots: _force(roots[2], "name", "a\x01b")
    yield "bad float", lambda roots: _force(roots[0], "load", "1.5")
    yield "bad list item", lambda roots: roots[0].tags.append("\x00")
    yield (
        "outside target",
        lambda roots: _force(
            roots[0], "primary", roots[0].eClass.ePackage.getEClassifier("File")(name="stray")
        ),
    )
    yield "unpaired opposite", lambda roots: OrderedSet.clear(roots[1].__dict__["peerOf"])  # around PyEcore
    yield "container missing", lambda roots: _force(roots[0].files[0], "host", None)


def _force(obj: EObject, name: str, value: Any) -> None:
    obj.__dict__[name]._value = value  # around PyEcore's type check, as a buggy caller might


@pytest.mark.parametrize("name, breakage", list(_breakages()), ids=[n for n, _ in _breakages()])
def test_generated_validation_reports_what_the_detailed_one_does(
    name: str, breakage: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = infra_package()
    roots = infra_model(pkg)
    roots[0].port = 8080
    roots[0].load = 0.5
    breakage(roots)
    ids = _ids(roots)
    fast = _problems(roots, ids, True, monkeypatch)
    slow = _problems(roots, ids, False, monkeypatch)
    assert fast == slow
    assert bool(fast) == (name != "valid")


@pytest.mark.parametrize("name, breakage", list(_breakages()), ids=[n for n, _ in _breakages()])
def test_the_checked_writer_refuses_exactly_what_validation_refuses(
    name: str, breakage: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """XMI checks while writing (generated heads); any doubt hands over to `validate`."""
    pkg = infra_package()
    roots = infra_model(pkg)
    roots[0].port = 8080
    roots[0].load = 0.5
    breakage(roots)
    ids = _ids(roots)
    objects = list(canonical.walk(roots))
    checked = writer.Writer(roots, ids, objects).document(checked=True)
    assert (checked is None) == (name != "valid")
    expected = _problems(roots, ids, False, monkeypatch)
    if not expected:
        assert xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get)) == checked
        return
    if all(e.startswith("warning: ") for e in expected):  # bound problems: written, as EMF does
        with pytest.warns(validate.BoundsWarning) as record:
            data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
        assert [str(w.message) for w in record] == [
            f"model written with 1 bound problem: {expected[0].removeprefix('warning: ')}"
        ]
        rset = ResourceSet()
        register_packages(rset, [pkg])
        back = xmi.from_bytes(data, rset).roots
        assert back[0].name is None and [r.name for r in back[1:]] == [r.name for r in roots[1:]]
        return
    with pytest.raises(CfSerializationError) as exc:
        xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    assert [n.message for n in exc.value.notes] == expected


@pytest.mark.parametrize(
    "value",
    [Shout("x"), Level.LOW, True, 2**31, math.inf, "a\x00", "&<>"],
    ids=["str-subclass", "int-subclass", "bool", "int-overflow", "inf", "nul", "escapes"],
)
def test_checked_literals_agree_with_codec_checks(value: Any) -> None:
    _pkg, c = _odd_package()
    obj = c()
    feature = "s" if isinstance(value, str) else "d" if isinstance(value, float) else "i"
    obj.eSet(feature, 0 if feature == "i" else 0.0 if feature == "d" else "")
    obj.__dict__[feature]._value = value  # around PyEcore's type check
    ok = not (value is True or value == 2**31 or value == "a\x00")
    checked = writer.Writer([obj], {}, [obj]).document(checked=True)
    assert (checked is not None) == ok
    if ok:
        assert checked == writer.Writer([obj], {}, [obj]).document()


def test_validation_of_many_values_and_bounds() -> None:
    pkg = EPackage("b", nsURI="http://cfmodel.example/b", nsPrefix="b")
    c = EClass("C")
    c.eStructuralFeatures.append(EAttribute("xs", EInt, lower=1, upper=2))
    pkg.eClassifiers.append(c)
    for values, ok in (([1], True), ([1, 2], True), ([], False), ([1, 2, 3], False)):
        obj = c()
        obj.xs.extend(values)
        if ok:
            assert validate.check_objects([obj], {}) == []
        else:  # EMF writes such a model too: a warning, not a refusal
            with pytest.warns(validate.BoundsWarning, match=r"values, expected \[1\.\.2\]"):
                bounds = validate.check_objects([obj], {})
            assert bounds == [f"C #0.xs: {len(values)} values, expected [1..2]"]


def test_big_decimal_and_enum_values_use_the_codec() -> None:
    pkg = infra_package()
    host = pkg.getEClassifier("Host")(name="h", price=Decimal("1.5"))
    host.__dict__["price"]._value = Decimal("NaN")
    with pytest.raises(CfSerializationError, match="is not a valid EBigDecimal"):
        validate.check_objects([host], {})


# ---- references set while reading against the deferred pass ------------------------------


def _linked_package() -> tuple[EPackage, EClass]:
    pkg = EPackage("l", nsURI="http://cfmodel.example/l", nsPrefix="l")
    c = EClass("N")
    c.eStructuralFeatures += [EAttribute("name", EString), EReference("next", c), EReference("other", c)]
    pkg.eClassifiers.append(c)
    return pkg, c


ODD_XMI = """<?xml version="1.0" encoding="UTF-8"?>
<xmi:XMI xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" xmlns:l="http://cfmodel.example/l">
  <l:N xmi:id="a" name="a" next="c"/>
  <l:N xmi:id="b" name="b" next="a" other="/0"/>
  <l:N xmi:id="c" name="c" next="b" other="a&#9;b"/>
  <l:N xmi:id="a&#9;b" name="tab" next="a b"/>
  <l:N xmi:id="/0" name="slash" next="c"/>
  <l:N xmi:id="e" name="e" next="e"/>
</xmi:XMI>
"""


def test_references_set_while_reading_equal_the_deferred_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Backward, forward and self references, ids with a tab or a leading slash, a list
    where one reference is expected: the same objects and the same PyEcore state."""
    pkg, _ = _linked_package()
    results = []
    for raw in (True, False):  # without RAW every reference waits for the deferred pass
        monkeypatch.setattr(fastpath, "RAW", raw)
        rset = ResourceSet()
        ecore.from_bytes(ecore.to_bytes(pkg), "l.ecore", rset)
        doc = xmi.from_bytes(ODD_XMI.encode(), rset)
        results.append((canonical.dump_objects(doc.roots, doc.ids), internal_state(doc.roots, doc.ids)))
    assert results[0] == results[1]
    dump = results[0][0]
    assert dump[dump.index("b : http://cfmodel.example/l#//N") + 3] == "  other = @a"  # /0: the first root
    assert (
        dump[dump.index("a\tb : http://cfmodel.example/l#//N") + 2] == "  next = @b"
    )  # "a b": the last token


def test_printable_strings_without_spaces_are_single_tokens() -> None:
    """What lets the reader skip `str.split` for a reference (see `_create_source`)."""
    odd = [
        chr(c)
        for c in range(0x110000)
        if chr(c).isprintable() and chr(c) != " " and chr(c).split() != [chr(c)]
    ]
    assert odd == []


def test_read_objects_skip_the_young_collections_and_are_still_freed() -> None:
    import gc
    import weakref

    pkg = infra_package()
    data = xmi.to_bytes(infra_model(pkg), xmi.XmiOptions(id_of=infra_ids))
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    gc.collect()
    doc = xmi.from_bytes(data, rset)
    tracked = {id(o) for o in gc.get_objects(generation=2)}
    assert gc.get_freeze_count() == 0 and id(doc.roots[0]) in tracked and id(doc.roots[0].__dict__) in tracked
    first = weakref.ref(doc.roots[0])
    del doc, tracked
    rset.resources.clear()
    gc.collect()
    assert first() is None  # cycles among read objects are freed by a full collection


def test_objects_frozen_by_the_caller_stay_frozen() -> None:
    import gc

    pkg = infra_package()
    data = xmi.to_bytes(infra_model(pkg), xmi.XmiOptions(id_of=infra_ids))
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        xmi.from_bytes(data, rset)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_read_objects_are_light_with_this_pyecore() -> None:
    assert fastpath.LIGHT
    pkg = infra_package()
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    doc = xmi.from_bytes(xmi.to_bytes(infra_model(pkg), xmi.XmiOptions(id_of=infra_ids)), rset)
    web0 = doc.roots[0]
    assert "listeners" not in vars(web0) and "_eternal_listener" not in vars(web0)
    assert type(vars(web0)["name"]) is fastpath.holder_class(web0.eClass.findEStructuralFeature("name"))
    assert web0.listeners == [] and "listeners" in vars(web0)  # made on first read, as PyEcore has it
    assert web0.dyn_inst is web0 and web0.eClass.python_class.dyn_inst is web0.eClass


def _chain(n: int) -> tuple[EPackage, bytes]:
    pkg = EPackage("chain", nsURI="http://cfmodel.example/chain", nsPrefix="chain")
    node = EClass("Node")
    node.eStructuralFeatures += [EAttribute("name", EString), EReference("next", node)]
    pkg.eClassifiers.append(node)
    roots: list[Any] = []
    for i in range(n):
        o = node(name=f"n{i}")
        if roots:
            o.next = roots[-1]
        roots.append(o)
    ids = {o: f"n{i}" for i, o in enumerate(roots)}
    return pkg, xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))


@pytest.mark.parametrize("first", ["delete", "set", "unset", "inverse"])
def test_the_inverse_index_is_made_when_first_read(first: str) -> None:
    pkg, data = _chain(4)
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    n0, n1, n2, n3 = xmi.from_bytes(data, rset).roots
    nxt = n1.eClass.findEStructuralFeature("next")
    assert not any("_inverse_rels" in vars(o) for o in (n0, n1, n2, n3))  # not made yet
    if first == "delete":
        n1.delete()  # PyEcore clears n2.next through n1's inverse index
        assert n2.next is None and n1._inverse_rels == set()
    elif first == "set":
        n2.next = n0  # n1 loses n2, n0 gains it
        assert n1._inverse_rels == set() and n0._inverse_rels == {(n1, nxt), (n2, nxt)}
    elif first == "unset":
        n3.next = None
        assert n2._inverse_rels == set() and n1._inverse_rels == {(n2, nxt)}
    else:
        assert n3._inverse_rels == set() and n0._inverse_rels == {(n1, nxt)}
    assert all("_inverse_rels" in vars(o) for o in (n0, n1, n2))  # all made at the first read


def test_the_fast_head_writes_what_the_general_lines_write(monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = EPackage("fast", nsURI="http://cfmodel.example/fast", nsPrefix="fast")
    node = EClass("Node")
    node.eStructuralFeatures += [
        EAttribute("name", EString),
        EAttribute("size", EInt),
        EAttribute("weight", EDouble),
        EReference("next", node),
    ]
    pkg.eClassifiers.append(node)
    names = ["plain", "a b", "x&y", 'quo"te', "tab\t", "ünï", ""]
    values: list[Any] = [0, -5, 2**31 - 1, 7]
    weights = [0.5, 1e16, float("inf"), float("nan"), -0.0]
    roots: list[Any] = []
    for i in range(30):
        o = node(name=names[i % len(names)], size=values[i % len(values)], weight=weights[i % len(weights)])
        if roots and i % 4:
            o.next = roots[(i * 7) % len(roots)]
        roots.append(o)
    ids = {o: f"n{i}" for i, o in enumerate(roots) if i % 5}
    has_fast_path = heads.has_fast_path
    assert has_fast_path([], [(node.findEStructuralFeature("next"), "next", "next", False)], [])
    fast = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    assert b'next="/' in fast and b'weight="NaN"' in fast  # positional targets and the other literals
    monkeypatch.setattr(heads, "has_fast_path", lambda *args: False)
    assert xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get)) == fast
    roots[3].size = 2**40  # out of EInt's range: refused by both
    for fast_path in (lambda *args: False, has_fast_path):
        monkeypatch.setattr(heads, "has_fast_path", fast_path)
        with pytest.raises(CfSerializationError):
            xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))


@pytest.mark.parametrize("few", [16, 0], ids=["lookups", "dispatch"])
def test_isset_of_read_objects_is_made_from_their_holders(few: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "FEW_NAMES", few)
    pkg = EPackage("lazy", nsURI="http://cfmodel.example/lazy", nsPrefix="lazy")
    node = EClass("Node")
    tags = EAttribute("tags", EString, upper=-1)
    node.eStructuralFeatures += [
        EAttribute("name", EString),
        EAttribute("size", EInt),
        tags,
        EReference("next", node),
    ]
    pkg.eClassifiers.append(node)
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<xmi:XMI xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
        ' xmlns:lazy="http://cfmodel.example/lazy">\n  <lazy:Node xmi:id="a" tags="t u" name="x"/>\n'
        '  <lazy:Node xmi:id="b" next="a" size="3"/>\n</xmi:XMI>\n'
    )
    a, b = xmi.from_bytes(text.encode(), rset).roots
    f = {x.name: x for x in a.eClass.eStructuralFeatures}
    assert "_isset" in vars(a) and "_isset" not in vars(b)  # a's made while reading (tags)
    assert b.size == 3 and b.name is None and b.tags == []  # reads of unset features make holders
    assert sorted(x.name for x in b._isset) == ["next", "size"] and not b.eIsSet(f["name"])
    assert sorted(x.name for x in a._isset) == ["name", "tags"] and list(a.tags) == ["t", "u"]
    b.name = "y"
    assert b.eIsSet(f["name"]) and sorted(x.name for x in b._isset) == ["name", "next", "size"]


def test_a_class_without_features_is_written_by_the_fast_head() -> None:
    pkg = EPackage("bare", nsURI="http://cfmodel.example/bare", nsPrefix="bare")
    empty = EClass("Empty")
    pkg.eClassifiers.append(empty)
    roots = [empty(), empty(), empty()]
    ids = {roots[0]: "e0", roots[2]: "e2"}
    data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    assert data.count(b"<bare:Empty") == 3 and b'xmi:id="e0"' in data and b'xmi:id="e2"' in data
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    assert len(xmi.from_bytes(data, rset).roots) == 3
