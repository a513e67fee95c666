"""The XMI reader's fast lane (`xmi.scan`: its scanner and `ScanReader`) against its streaming reader.

The lane reads only flat documents in the layout cfmodel writes and hands everything
else to expat. What must hold: for every document it takes, it leaves exactly the objects,
dicts, ids, references, inverse entries and resource the streaming reader leaves; for any
document, the outcome of `xmi.from_bytes` (the objects, or the error with its text and
line) is the streaming reader's; and the lane really is taken for what cfmodel writes.
"""

from __future__ import annotations

import gc
import random
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from pyecore.ecore import (
    EAttribute,
    EBigDecimal,
    EBoolean,
    EClass,
    EDate,
    EDouble,
    EEnum,
    EInt,
    ELong,
    EObject,
    EPackage,
    EReference,
    EString,
)
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers import canonical, ecore, xmi
from cfmodel.serializers.base import local_registry, ncname_id, register_packages
from cfmodel.serializers.xmi import scan as xmiscan

# ---- a metamodel with every kind of value a flat document holds ----------------------------


def scan_package() -> EPackage:
    pkg = EPackage("scan", nsURI="http://cfmodel.example/scan", nsPrefix="scan")
    state = EEnum("State", literals=["up", "down"])
    item = EClass("Item")
    group = EClass("Group")
    wide = EClass("Wide")  # more names than `create` looks up one by one (reader.FEW_NAMES)
    refs_first = EClass("RefsFirst")  # a reference before the attributes in feature order
    items = EReference("items", item, upper=-1)
    member_of = EReference("group", group)
    items.eOpposite = member_of
    item.eStructuralFeatures += [
        EAttribute("name", EString),
        EAttribute("count", EInt),
        EAttribute("big", ELong),
        EAttribute("ratio", EDouble),
        EAttribute("flag", EBoolean),
        EAttribute("state", state),
        EAttribute("when", EDate),
        EAttribute("price", EBigDecimal),
        EAttribute("tags", EString, upper=-1),
        EReference("next", item),
        EReference("peers", item, upper=-1),
        member_of,
    ]
    group.eStructuralFeatures += [EAttribute("name", EString), items]
    wide.eStructuralFeatures += [EAttribute(f"w{k:02}", EInt if k % 2 else EString) for k in range(18)]
    wide.eStructuralFeatures.append(EReference("item", item))
    refs_first.eStructuralFeatures += [EReference("item", item), EAttribute("label", EString)]
    pkg.eClassifiers.extend([state, item, group, wide, refs_first])
    return pkg


_TEXTS = [
    "",
    "plain",
    "quote \" & <amp> 'apos'",
    "line\nbreak\ttab\rcr",
    "ünïcödé ✓ 𝄞",
    "a/>b",
    "  spaced  ",
    "&amp;",
    "]]>",
    "x" * 40,
]


def random_model(
    pkg: EPackage, rng: random.Random, n: int, children: bool = True
) -> tuple[list[EObject], dict[EObject, str]]:
    """`n` roots of every class, in random order, with random values and references (some
    forward, some backward, some to objects without an id); with `children`, a few have
    many-valued attributes (written as child elements)."""
    c = {name: pkg.getEClassifier(name) for name in ("Item", "Group", "Wide", "RefsFirst", "State")}
    roots: list[EObject] = []
    items: list[EObject] = []
    for i in range(n):
        kind = rng.choice(["Item", "Item", "Item", "Group", "Wide", "RefsFirst"])
        obj = c[kind]()
        if kind == "Item":
            if rng.random() < 0.8:
                obj.name = rng.choice(_TEXTS)
            if rng.random() < 0.7:
                obj.count = rng.choice([0, -1, 2**31 - 1, i])
            if rng.random() < 0.3:
                obj.big = rng.choice([2**40, -(2**63)])
            if rng.random() < 0.5:
                obj.ratio = rng.choice([0.0, -0.5, 1e300, float("inf"), float("nan"), 0.1 * i])
            if rng.random() < 0.5:
                obj.flag = rng.random() < 0.5
            if rng.random() < 0.4:
                obj.state = c["State"].getEEnumLiteral(rng.choice(["up", "down"]))
            if rng.random() < 0.2:
                obj.when = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
            if rng.random() < 0.2:
                obj.price = Decimal("12.50")
            if children and rng.random() < 0.05:
                obj.tags.append("child element")  # not flat: the streaming reader's
            items.append(obj)
        elif kind == "Group":
            obj.name = f"g{i}"
        elif kind == "Wide":
            for k in range(18):
                if rng.random() < 0.7:
                    setattr(obj, f"w{k:02}", k if k % 2 else rng.choice(_TEXTS))
        else:
            obj.label = rng.choice(_TEXTS)
        roots.append(obj)
    groups = [o for o in roots if o.eClass.name == "Group"]
    for obj in roots:
        kind = obj.eClass.name
        if kind == "Item" and items:
            if rng.random() < 0.6:
                obj.next = rng.choice(items)
            for _ in range(rng.choice([0, 0, 1, 3])):
                obj.peers.append(rng.choice(items))
            if groups and rng.random() < 0.5:
                rng.choice(groups).items.append(obj)
        elif kind in ("Wide", "RefsFirst") and items and rng.random() < 0.7:
            obj.item = rng.choice(items)
    ids = {o: ncname_id(f"{o.eClass.name}[{k}]") for k, o in enumerate(roots) if rng.random() < 0.9}
    return roots, ids


def registry(pkg: EPackage) -> Callable[[], ResourceSet]:
    """New resource sets with `pkg` as read from its `.ecore` (read once)."""
    read = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "scan.ecore", read)
    packages = list(local_registry(read).values())

    def fresh() -> ResourceSet:
        rset = ResourceSet()
        register_packages(rset, packages)
        return rset

    return fresh


# ---- comparing what both readers leave ------------------------------------------------------


def state(doc: Any) -> list[str]:
    """Everything a reader leaves on the objects and the document, order included."""
    paths = canonical.Paths(doc.roots, doc.ids)
    inside = {id(o) for o in canonical.walk(doc.roots)}
    out = [
        f"ids {[(paths(o), i) for o, i in doc.ids.items()]}",
        f"resource {doc.resource.uri.plain} {[paths(o) for o in doc.resource.contents]}",
    ]
    for obj in canonical.walk(doc.roots):
        d = obj.__dict__
        out.append(
            f"{paths(obj)} {type(obj).__name__} keys={[k for k in d if k != fastpath.BATCH]}"
            f" resource={d.get('_eresource') is doc.resource}"
        )
        for key, held in d.items():
            if isinstance(held, fastpath.HOLDERS):
                v = held._value
                out.append(
                    f"  {key}: {type(held).__name__} {held.feature.name} {type(v).__name__}"
                    f" {canonical.value(v, paths, inside)}"
                )
            elif key not in (fastpath.BATCH, "_eresource", "_isset", "_inverse_rels"):  # compared below
                items = (
                    [canonical.value(v, paths, inside) for v in held] if hasattr(held, "__iter__") else held
                )
                out.append(f"  {key}: {type(held).__name__} {items}")
        out.append(f"  isset={[f.name for f in obj._isset]}")
        out.append(f"  inverse={sorted((paths(o), f.name) for o, f in obj._inverse_rels)}")
    return out


def read(data: bytes, rset: ResourceSet, lane: str) -> Any:
    """`xmi.from_bytes` with the fast lane (``scan``: it must take the document) or without."""
    if lane == "scan":
        doc = xmiscan.scanned(data, "doc.xmi", rset)
        assert doc is not None, "the fast lane refused the document"
        return doc
    return xmi.from_bytes(data, rset, "doc.xmi", xmi.XmiOptions(scan=False))


def outcome(data: bytes, fresh: Callable[[], ResourceSet], scanning: bool) -> list[str]:
    """What `from_bytes` gives: the state of the document, or the error's text and span."""
    try:
        return state(xmi.from_bytes(data, fresh(), "doc.xmi", xmi.XmiOptions(scan=scanning)))
    except CfSerializationError as exc:
        return [f"error {exc}"]


def _flat(roots: list[EObject]) -> bool:
    return not any(o.eClass.name == "Item" and o.tags for o in roots)


# ---- the lane leaves what the streaming reader leaves --------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_the_lane_reads_random_flat_documents_as_the_streaming_reader(seed: int) -> None:
    pkg = scan_package()
    fresh = registry(pkg)
    rng = random.Random(seed)
    roots, ids = random_model(pkg, rng, rng.choice([1, 2, 5, 30, 200]))
    data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    if len(roots) == 1 or not _flat(roots):  # a single root is the document element; children
        assert xmiscan.scanned(data, "doc.xmi", fresh()) is None
        return
    assert state(read(data, fresh(), "scan")) == state(read(data, fresh(), "expat"))


def test_the_lane_reads_chunk_boundaries_and_runs_of_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = scan_package()
    fresh = registry(pkg)
    roots, ids = random_model(pkg, random.Random(7), 400, children=False)
    data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    expected = state(read(data, fresh(), "expat"))
    for chunk in (1, 100, 1000, 1 << 18):
        monkeypatch.setattr(xmiscan, "_CHUNK", chunk)
        assert state(read(data, fresh(), "scan")) == expected, chunk


def test_what_cfmodel_writes_takes_the_lane_and_reads_back_equal() -> None:
    pkg = scan_package()
    item = pkg.getEClassifier("Item")
    roots = [item(name=f"n{i}", count=i, ratio=i / 3, flag=i % 2 == 0) for i in range(1000)]
    for a, b in zip(roots[1:], roots, strict=False):
        a.next = b
    data = xmi.to_bytes(roots, xmi.XmiOptions(id_of={o: f"i{k}" for k, o in enumerate(roots)}.get))
    doc = read(data, registry(pkg)(), "scan")
    assert [(o.name, o.count, o.ratio, o.flag) for o in doc.roots] == [
        (o.name, o.count, o.ratio, o.flag) for o in roots
    ]
    assert all(a.next is b for a, b in zip(doc.roots[1:], doc.roots, strict=False))
    assert doc.roots[0].next is None and list(doc.ids.values()) == [f"i{k}" for k in range(1000)]
    assert set(doc.roots[0].eClass.allInstances()) >= set(doc.roots)  # registered as PyEcore instances


def test_objects_read_by_the_lane_behave_like_pyecore_objects() -> None:
    pkg = scan_package()
    item, group = pkg.getEClassifier("Item"), pkg.getEClassifier("Group")
    g = group(name="g")
    a, b = item(name="a"), item(name="b")
    g.items.extend([a, b])
    a.next = b
    data = xmi.to_bytes([g, a, b], xmi.XmiOptions(id_of={g: "g", a: "a", b: "b"}.get))
    g2, a2, b2 = read(data, registry(pkg)(), "scan").roots
    assert list(g2.items) == [a2, b2] and a2.group is g2 and a2.next is b2
    assert b2._inverse_rels == {(a2, a2.eClass.eStructuralFeatures[9])}
    a2.name = "renamed"
    a2.group = None
    assert a2.name == "renamed" and list(g2.items) == [b2] and a2.eIsSet("name")
    b2.delete()
    assert a2.next is None and list(g2.items) == []


# ---- whatever the document, the outcome is the streaming reader's ---------------------------

_NOISE = [
    '"',
    "<",
    ">",
    "&",
    "&amp;",
    "&#0;",
    "&#x41;",
    "&bogus;",
    "/",
    "=",
    " ",
    "\n",
    "\t",
    "\r\n",
    ":",
    "x",
    "0",
    "#",
    "<!-- c -->",
    "<![CDATA[x]]>",
    "\ufffe",
    "\x01",
    "é",
    'xmi:id="dup" ',
    "/>",
]


def _mutations(text: str, rng: random.Random, count: int) -> Iterator[str]:
    """Edits anywhere, and edits inside attribute values (which often stay in the layout)."""
    values = [m.end() for m in re.finditer('="', text)]
    for k in range(count):
        at = rng.randrange(len(text)) if k % 2 else rng.choice(values) + rng.choice([0, 0, 1, 2])
        end = at + rng.choice([0, 0, 1, 2, 5])
        yield (
            text[:at]
            + rng.choice([*_NOISE, "", "i1", "1e5", "-0", " 7 ", "1_0", "true", "down"])
            + text[end:]
        )


@pytest.mark.parametrize("seed", range(4))
def test_mutated_documents_give_the_streaming_readers_outcome(seed: int) -> None:
    pkg = scan_package()
    fresh = registry(pkg)
    rng = random.Random(1000 + seed)
    roots, ids = random_model(pkg, rng, 12, children=False)
    text = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get)).decode("utf-8")
    taken = 0
    for mutated in _mutations(text, rng, 400):
        data = mutated.encode("utf-8", errors="surrogatepass")
        taken += xmiscan.scanned(data, "doc.xmi", fresh()) is not None
        assert outcome(data, fresh, True) == outcome(data, fresh, False), mutated
    assert taken > 30  # many mutations stay in the layout (values changed)


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda t: "\ufeff" + t, id="byte order mark"),
        pytest.param(lambda t: t.replace('encoding="UTF-8"', 'encoding="utf-8"'), id="other declaration"),
        pytest.param(lambda t: t.replace("<xmi:XMI ", '<xmi:XMI foo="1" '), id="attribute on xmi:XMI"),
        pytest.param(lambda t: t.replace("<xmi:XMI ", '<xmi:XMI xmlns="urn:x" '), id="default namespace"),
        pytest.param(lambda t: t.replace("http://www.omg.org/XMI", "urn:not-xmi"), id="xmi prefix elsewhere"),
        pytest.param(lambda t: t.replace("</xmi:XMI>", "</xmi:XMI><!-- end -->"), id="comment after"),
        pytest.param(lambda t: t.replace("\n  <", "\n\t<"), id="tab indentation"),
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="CRLF"),
        pytest.param(lambda t: t.replace("/>\n  <", "/>\n  <!-- c -->\n  <", 1), id="comment between"),
        pytest.param(lambda t: t.replace('count="7"', "count='7'"), id="single quotes"),
        pytest.param(lambda t: t.replace('count="7"', 'count="&#55;"'), id="reference in a token"),
        pytest.param(lambda t: t.replace('name="a"', 'name="&#0;"'), id="reference to NUL"),
        pytest.param(lambda t: t.replace('name="a"', 'name="&nbsp;"'), id="unknown entity"),
        pytest.param(lambda t: t.replace(' name="a" count="7"', ' count="7" name="a"'), id="attribute order"),
        pytest.param(
            lambda t: t.replace('scan:Item xmi:id="a"', 'scan:Item xmi:id="a" name="z"'), id="twice"
        ),
        pytest.param(
            lambda t: t.replace('<scan:Item xmi:id="b"', '<scan:Item xmi:id="a"'), id="duplicate id"
        ),
        pytest.param(lambda t: t.replace('next="b"', 'next="nowhere"'), id="unresolved reference"),
        pytest.param(lambda t: t.replace('count="7"', 'count="seven"'), id="bad literal"),
        pytest.param(lambda t: t.replace("scan:Item", "scan:Nothing", 1), id="unknown class"),
        pytest.param(lambda t: t.replace('name="b"/>', 'name="b"><tags>x</tags></scan:Item>'), id="children"),
    ],
)
def test_documents_outside_the_layout_are_read_by_expat(edit: Callable[[str], str]) -> None:
    pkg = scan_package()
    fresh = registry(pkg)
    item = pkg.getEClassifier("Item")
    a, b = item(name="a", count=7), item(name="b")
    a.next = b
    text = xmi.to_bytes([a, b], xmi.XmiOptions(id_of={a: "a", b: "b"}.get)).decode("utf-8")
    assert xmiscan.scanned(text.encode("utf-8"), "doc.xmi", fresh()) is not None
    data = edit(text).encode("utf-8")
    assert data != text.encode("utf-8")
    assert xmiscan.scanned(data, "doc.xmi", fresh()) is None
    assert outcome(data, fresh, True) == outcome(data, fresh, False)


def test_a_lane_that_gives_up_leaves_no_instances_behind() -> None:
    pkg = scan_package()
    item = pkg.getEClassifier("Item")
    roots = [item(name=f"n{i}") for i in range(50)]
    roots[-1].next = roots[0]
    text = xmi.to_bytes(roots, xmi.XmiOptions(id_of={o: f"i{k}" for k, o in enumerate(roots)}.get)).decode()
    data = text.replace('next="i0"', 'next="i999"').encode()  # found only after every object is made
    rset = registry(pkg)()
    read_item = rset.metamodel_registry["http://cfmodel.example/scan"].getEClassifier("Item")
    gc.collect()  # instances other tests read and dropped
    before = len(list(read_item.allInstances()))
    resources = dict(rset.resources)
    assert xmiscan.scanned(data, "doc.xmi", rset) is None
    gc.collect()  # what the lane made and dropped is garbage, not kept: only kept ones count
    assert len(list(read_item.allInstances())) == before and rset.resources == resources
    with pytest.raises(CfSerializationError, match=r"doc.xmi:52:1: .*unresolved reference 'i999'"):
        xmi.from_bytes(data, rset, "doc.xmi")


# ---- the scanner's own rules ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("escaped", "text"),
    [
        ("&lt;&gt;&amp;&quot;&apos;", "<>&\"'"),
        ("&#65;&#x42;&#x1F600;", "AB\U0001f600"),
        ("&#9;&#10;&#13;", "\t\n\r"),
        ("no references", "no references"),
        ("&#0000065;", "A"),
    ],
)
def test_unescape_replaces_exactly_xml_references(escaped: str, text: str) -> None:
    assert xmiscan.unescape(escaped) == text


@pytest.mark.parametrize(
    "bad", ["&", "a & b", "&nbsp;", "&#0;", "&#xD800;", "&#xFFFE;", "&#x110000;", "&#;", "&#00000065;", "&lt"]
)
def test_unescape_refuses_what_the_lane_leaves_to_expat(bad: str) -> None:
    with pytest.raises(xmiscan.NotScannableError):
        xmiscan.unescape(bad)


def test_names_the_patterns_hold_are_ascii_ncnames() -> None:
    assert xmiscan.is_name("w01") and xmiscan.is_name("_a.b-c")
    assert not any(map(xmiscan.is_name, ["", "1a", "a b", "a:b", "é", "-a"]))


def test_the_header_gives_prefixes_and_where_the_elements_are() -> None:
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<xmi:XMI xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
        ' xmlns:a="urn:a">\n  <a:B/>\n</xmi:XMI>\n'
    )
    head = xmiscan.header(text)
    assert head.prefixes == {"xmi": "http://www.omg.org/XMI", "a": "urn:a"}
    assert text[head.start : head.end] == "\n  <a:B/>"
    runs = list(xmiscan.Scanner(text, lambda uri, name: [xmiscan.Layout(("x",), (False,))]).runs())
    assert runs == [("a:B", 0, [("",)])]


def test_the_layout_that_accounts_for_every_element_is_taken() -> None:
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmlns:a="urn:a">'
        '\n  <a:B y="2" x="1"/>\n  <a:B x="3"/>\n  <a:C x="4"/>\n</xmi:XMI>\n'
    )
    layouts = [xmiscan.Layout(("x", "y"), (False, False)), xmiscan.Layout(("y", "x"), (False, False))]
    runs = list(xmiscan.Scanner(text, lambda uri, name: layouts).runs())
    assert runs == [("a:B", 1, [("2", "1"), ("", "3")]), ("a:C", 0, [("4", "")])]
    mixed = text.replace('<a:B x="3"/>', '<a:B x="3" y="5"/>')  # one of each: neither accounts for both
    with pytest.raises(xmiscan.NotScannableError):
        list(xmiscan.Scanner(mixed, lambda uri, name: layouts).runs())


def test_a_compiled_model_takes_the_lane() -> None:
    from cfmodel.pipeline import compile_project

    result = compile_project("examples/webshop")
    data = result.xmi_bytes()

    def fresh() -> ResourceSet:
        rset = ResourceSet()
        for name, content in sorted(result.ecore_files().items()):
            ecore.from_bytes(content, name, rset)
        return rset

    assert len({type(o) for o in result.model}) > 3 and b"&quot;" in data  # classes interleaved, JSON text
    scanned = read(data, fresh(), "scan")
    assert len(scanned.roots) == len(result.model)
    assert state(scanned) == state(read(data, fresh(), "expat"))
