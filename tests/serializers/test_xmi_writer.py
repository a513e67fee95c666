"""The XMI writer's fast paths write what its general paths write, and refuse what
`validate` refuses, with `validate`'s own messages.

The checked writer (generated per class, with a fast path per object and per run of
leaf roots) is compared with the unchecked generated heads and with the general
`_ClassPlan.slow_head`, on flat documents of one or several classes, named, partly named
and positional; broken documents must fail with exactly the notes `validate.check_objects`
gives.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any
from xml.etree import ElementTree

import pytest
from pyecore.ecore import (
    EAttribute,
    EBoolean,
    EClass,
    EDouble,
    EInt,
    EObject,
    EPackage,
    EProxy,
    EReference,
    EString,
)
from pyecore.resources import ResourceSet
from pyecore.valuecontainer import EValue

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, ecore, validate, xmi
from cfmodel.serializers.base import XMI_NS
from cfmodel.serializers.xmi import writer
from tests.serializers.samples import infra_ids, infra_model, infra_package, tree_model, tree_packages


def _package() -> tuple[EPackage, EClass, EClass]:
    """``Node`` (the benchmark's shape: four attributes, one reference), ``Pair`` (a
    required name, an opposite pair of references, one many-valued), ``Left`` and
    ``Right`` (single-valued opposites: the fast path checks the pairing), ``Box`` (holds
    ``Item``s: ``Box``es, ``Leaf``s and ``Other``s, many and one)."""
    pkg = EPackage("w", nsURI="http://cfmodel.example/w", nsPrefix="w")
    node = EClass("Node")
    node.eStructuralFeatures += [
        EAttribute("name", EString),
        EAttribute("size", EInt),
        EAttribute("weight", EDouble),
        EAttribute("enabled", EBoolean),
        EReference("next", node),
    ]
    pair = EClass("Pair")
    mate, mate_of = EReference("mate", pair), EReference("mateOf", pair)
    mate.eOpposite = mate_of
    pair.eStructuralFeatures += [EAttribute("name", EString, lower=1), mate, mate_of]
    left, right = EClass("Left"), EClass("Right")
    to_right, to_left = EReference("right", right), EReference("left", left)
    to_right.eOpposite = to_left
    left.eStructuralFeatures += [EAttribute("name", EString), to_right]
    right.eStructuralFeatures += [EAttribute("name", EString), to_left]
    item = EClass("Item", abstract=True)
    item.eStructuralFeatures.append(EAttribute("name", EString))
    box, leaf, other = (
        EClass("Box", superclass=(item,)),
        EClass("Leaf", superclass=(item,)),
        EClass("Other", superclass=(item,)),
    )
    box.eStructuralFeatures += [
        EReference("items", item, upper=-1, containment=True),
        EReference("one", item, containment=True),
        EAttribute("tags", EString, upper=-1),
    ]
    leaf.eStructuralFeatures += [EAttribute("size", EInt), EReference("see", item)]
    other.eStructuralFeatures.append(EAttribute("weight", EDouble))
    pkg.eClassifiers.extend([node, pair, left, right, item, box, leaf, other])
    return pkg, node, pair


_NAMES = ["plain", "a-b c", "x&y", 'q"uote', "line\nbreak", "é", "", "tab\there"]
_SIZES = [0, -1, 2**31 - 1, -(2**31), 7]
_WEIGHTS = [0.0, -0.0, 0.5, 1e300, 5e-324, -2.5, 1e16, math.nan]


def _nodes(node: EClass, n: int) -> list[EObject]:
    """Varied values, some features never set, some set to None, references back."""
    out: list[EObject] = []
    for i in range(n):
        o = node()
        if i % 5 != 1:
            o.name = _NAMES[i % len(_NAMES)] + str(i)
        if i % 7 != 2:
            o.size = _SIZES[i % len(_SIZES)]
        if i % 3 != 0:
            o.weight = _WEIGHTS[i % len(_WEIGHTS)]
        if i % 4:
            o.enabled = i % 2 == 0
        if i % 11 == 3:
            o.name = None  # set, to None: not written
        if out and i % 6:
            o.next = out[i // 2]
        out.append(o)
    return out


def _full_nodes(node: EClass, n: int) -> list[EObject]:
    """As the benchmark builds them: every feature set, valid and plainly written (the
    fast path's case), but the first object's reference."""
    out: list[EObject] = []
    for i in range(n):
        weight = [math.inf, -math.inf, math.nan][i % 3] if i % 13 == 4 else i * 0.25 - 3
        o = node(name=f"node{i}", size=i - n // 2, weight=weight, enabled=i % 2 == 0)
        if out:
            o.next = out[-1]
        out.append(o)
    return out


def _lefts_and_rights(pkg: EPackage, n: int) -> list[EObject]:
    left, right = pkg.getEClassifier("Left"), pkg.getEClassifier("Right")
    lefts = [left(name=f"l{i}") for i in range(n)]
    rights = [right(name=f"r{i}") for i in range(n)]
    for a, b in zip(lefts, rights, strict=True):
        a.right = b
    return lefts + rights


def _boxes(pkg: EPackage, n: int) -> list[EObject]:
    """Boxes holding runs of leaves of one class, of mixed classes, boxes between them,
    a single containment, many-valued attributes; leaves refer to earlier objects."""
    box, leaf, other = (pkg.getEClassifier(c) for c in ("Box", "Leaf", "Other"))
    made: list[EObject] = []

    def fill(b: EObject, depth: int, k: int) -> None:
        for j in range(k):
            kind = (j * 7 + depth) % 5
            if (kind == 4 or j == k - 2) and depth < 3:
                c = box(name=f"b{len(made)}")
                fill(c, depth + 1, k - 1)
            elif kind == 3:
                c = other(name=f"o{len(made)}", weight=j / 4)
            else:
                c = leaf(name=f"l{len(made)}", size=j)
                if made and j % 3:
                    c.see = made[len(made) // 2]
            made.append(c)
            b.items.append(c)
        if depth % 2:
            b.one = leaf(name="single", size=depth)
        if k % 2:
            b.tags.extend(["a", "b & c"])

    roots = []
    for i in range(n):
        b = box(name=f"root{i}")
        fill(b, 0, 6 + i)
        roots.append(b)
    roots.insert(1, leaf(name="flat", size=0))
    return roots


def _pairs(pair: EClass, n: int) -> list[EObject]:
    out = [pair(name=f"p{i}") for i in range(n)]
    for i in range(0, n - 1, 2):
        out[i].mate = out[i + 1]
    return out


def _documents() -> dict[str, Callable[[], tuple[list[EObject], Callable[[EObject], str | None] | None]]]:
    pkg, node, pair = _package()

    def one_class() -> tuple[list[EObject], Any]:
        roots = _nodes(node, 60)
        return roots, {o: f"n{i}" for i, o in enumerate(roots)}.get

    def full() -> tuple[list[EObject], Any]:
        roots = _full_nodes(node, 60)
        return roots, {o: f"n{i}" for i, o in enumerate(roots)}.get

    def full_partly_named() -> tuple[list[EObject], Any]:
        roots = _full_nodes(node, 60)
        return roots, {o: f"n{i}" for i, o in enumerate(roots) if i % 4}.get

    def opposites() -> tuple[list[EObject], Any]:
        roots = _lefts_and_rights(pkg, 10)
        return roots, {o: f"o{i}" for i, o in enumerate(roots)}.get

    def nested() -> tuple[list[EObject], Any]:
        roots = _boxes(pkg, 4)
        return roots, {o: f"x{i}" for i, o in enumerate(canonical.walk(roots)) if i % 5}.get

    def nested_single_root() -> tuple[list[EObject], Any]:
        roots = _boxes(pkg, 1)[:1]
        return roots, {o: f"x{i}" for i, o in enumerate(canonical.walk(roots))}.get

    def nested_positional() -> tuple[list[EObject], Any]:
        return _boxes(pkg, 3), None

    def tree() -> tuple[list[EObject], Any]:
        return tree_model(*tree_packages()), None

    def infra() -> tuple[list[EObject], Any]:
        return infra_model(infra_package()), infra_ids

    def partly_named() -> tuple[list[EObject], Any]:
        roots = _nodes(node, 60)
        return roots, {o: f"n{i}" for i, o in enumerate(roots) if i % 4}.get

    def positional() -> tuple[list[EObject], Any]:
        return _nodes(node, 30), None

    def classes_mixed() -> tuple[list[EObject], Any]:
        a, b, c = _nodes(node, 20), _pairs(pair, 6), _nodes(node, 10)
        roots = a[:10] + b[:3] + a[10:] + c + b[3:]
        return roots, {o: f"o{i}" for i, o in enumerate(roots)}.get

    def pairs() -> tuple[list[EObject], Any]:
        roots = _pairs(pair, 9)
        return roots, {o: f"p{i}" for i, o in enumerate(roots)}.get

    def single() -> tuple[list[EObject], Any]:
        roots = _nodes(node, 1)
        return roots, lambda o: "only"

    return {
        "one-class": one_class,
        "full": full,
        "full-partly-named": full_partly_named,
        "opposites": opposites,
        "nested": nested,
        "nested-single-root": nested_single_root,
        "nested-positional": nested_positional,
        "tree": tree,
        "infra": infra,
        "partly-named": partly_named,
        "positional": positional,
        "classes-mixed": classes_mixed,
        "pairs": pairs,
        "single-root": single,
    }


def _general_bytes(roots: list[EObject], ids: dict[EObject, str]) -> tuple[bytes, bytes]:
    """(generated unchecked heads, `slow_head` everywhere) for the same document."""
    objects = list(canonical.walk(roots))
    document = writer.Writer(roots, ids, objects)
    generated = document.document()
    assert generated is not None
    for plan in document.plans.values():
        plan.head = plan.general_head  # `slow_head`: PyEcore's public API
    return generated, document.write(checked=False)


@pytest.mark.parametrize("name", list(_documents()))
def test_checked_writer_writes_what_the_general_heads_write(name: str) -> None:
    roots, id_of = _documents()[name]()
    data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=id_of))
    objects = list(canonical.walk(roots))
    ids = {o: i for o in objects if id_of is not None and (i := id_of(o)) is not None}
    generated, slow = _general_bytes(roots, ids)
    assert data == generated == slow
    checked = writer.Writer(roots, ids, objects).document(checked=True)
    assert checked == data  # nothing handed over to `validate` for these valid documents


@pytest.mark.parametrize("name", ["nested", "nested-single-root", "nested-positional"])
def test_nested_objects_are_written_in_document_order(name: str) -> None:
    """Independent of the writer's stack: elements in file order are the objects in
    pre-order, each under its containment feature's name."""
    roots, id_of = _documents()[name]()
    root = ElementTree.fromstring(xmi.to_bytes(roots, xmi.XmiOptions(id_of=id_of)))
    elements = [e for e in root.iter() if e.tag != "tags" and e.tag != f"{{{XMI_NS}}}XMI"]
    objects = list(canonical.walk(roots))
    assert [e.get("name") for e in elements] == [o.name for o in objects]
    features = [o.eContainmentFeature() for o in objects]
    assert [e.tag for e in elements] == [
        f.name if f is not None else f"{{{o.eClass.ePackage.nsURI}}}{o.eClass.name}"
        for o, f in zip(objects, features, strict=True)
    ]
    lines = xmi.to_bytes(roots, xmi.XmiOptions(id_of=id_of)).decode().splitlines()
    starts = [
        line
        for line in lines
        if line.lstrip().startswith("<")
        and not line.lstrip().startswith(("</", "<tags>", "<?xml", "<xmi:XMI"))
    ]
    top = 0 if len(roots) == 1 else 1
    assert [len(line) - len(line.lstrip(" ")) for line in starts] == [2 * (_depth(o) + top) for o in objects]


def _depth(obj: EObject) -> int:
    container = obj.eContainer()
    return 0 if not isinstance(container, EObject) else 1 + _depth(container)


def _notes(roots: list[EObject], id_of: Callable[[EObject], str | None]) -> list[str]:
    with pytest.raises(CfSerializationError) as exc:
        xmi.to_bytes(roots, xmi.XmiOptions(id_of=id_of))
    return [n.message for n in exc.value.notes]


def _validate_notes(roots: list[EObject], id_of: Callable[[EObject], str | None]) -> list[str]:
    objects = list(canonical.walk(roots))
    ids = {o: i for o in objects if (i := id_of(o)) is not None}
    with pytest.raises(CfSerializationError) as exc:
        validate.check_objects(objects, ids)
    return [n.message for n in exc.value.notes]


@pytest.mark.parametrize("naming", ["all", "none", "targets-unnamed", "single-root"])
def test_a_target_outside_the_document_is_refused(naming: str) -> None:
    """The fast path takes "the target has an id" as "the target is inside": true because
    only the document's objects get ids, whatever the id function would name (here, also
    the stray object); a target without an id is looked up among the document's objects."""
    _pkg, node, _pair = _package()
    roots = _full_nodes(node, 50)
    stray = node(name="stray")
    roots[31].next = stray
    if naming == "single-root":  # where EMF's fragment of any root is "/"
        roots = [roots[31]]
        roots[0].next = stray

    def id_of(o: EObject) -> str | None:
        if naming in ("none", "single-root") or (
            naming == "targets-unnamed" and o.name in ("node30", "stray")
        ):
            return None
        return f"n{o.name}"

    notes = _notes(roots, id_of)
    assert notes == _validate_notes(roots, id_of)
    where = {"none": "Node #31", "single-root": "Node #0"}.get(naming, "Node nnode31")
    assert notes == [f"{where}.next: target {stray!r} is not an object of this document"]


@pytest.mark.parametrize("naming", ["all", "none"])
@pytest.mark.parametrize("kind", ["fast", "general"])
def test_a_proxy_of_a_document_object_is_not_in_the_document(naming: str, kind: str) -> None:
    """A resolved EProxy hashes and compares as the object it wraps; it is still not that
    object, and `validate` refuses it, so the writers' membership tests must too (in the
    fast path of ``Node``, in the general checked head of ``Pair``)."""
    _pkg, node, pair = _package()
    if kind == "fast":
        roots = _full_nodes(node, 20)
        feature = "next"
    else:
        roots = _pairs(pair, 20)
        feature = "mate"
    roots[6].__dict__[feature]._value = EProxy(wrapped=roots[3])  # around PyEcore
    names = {o: f"n{i}" for i, o in enumerate(roots)}
    id_of = names.get if naming == "all" else (lambda o: None)
    notes = _notes(roots, id_of)
    assert notes == _validate_notes(roots, id_of)
    assert any(
        n.startswith(f"{roots[6].eClass.name} {'n6' if naming == 'all' else '#6'}.{feature}: target <pyecore")
        and n.endswith("is not an object of this document")
        for n in notes
    )


def test_objects_that_hash_by_value_are_checked_by_identity() -> None:
    """A class that hashes and compares its objects by value: an equal object outside the
    document is still outside (the checked writer leaves such documents to `validate`)."""
    _pkg, node, _pair = _package()

    class ByName(node.python_class):  # type: ignore[misc,name-defined]
        def __hash__(self) -> int:
            return hash(self.name)

        def __eq__(self, other: object) -> bool:
            return isinstance(other, ByName) and self.name == other.name

    roots = []
    for i in range(10):
        o = ByName()
        o.name, o.size, o.weight, o.enabled = f"b{i}", i, 0.5, True
        roots.append(o)
    twin = ByName()
    twin.name = "b2"
    roots[5].next = twin
    for id_of in ({o: f"n{i}" for i, o in enumerate(roots)}.get, lambda o: None):
        notes = _notes(roots, id_of)
        assert notes == _validate_notes(roots, id_of)
        assert len(notes) == 1 and ".next: target " in notes[0]


@pytest.mark.parametrize(
    "ident, expected",
    [
        ("n7", "id 'n7' is given to two objects (Node, Node)"),
        ("7n", "id '7n' of a Node is not an XML NCName (use base.ncname_id)"),
        ("a:b", "id 'a:b' of a Node is not an XML NCName (use base.ncname_id)"),
        ("é", None),  # a non-ASCII NCName: valid
    ],
)
def test_bad_ids_in_a_run_are_refused_with_validates_text(ident: str, expected: str | None) -> None:
    _pkg, node, _pair = _package()
    roots = _nodes(node, 40)
    names = {o: f"n{i}" for i, o in enumerate(roots)}
    names[roots[25]] = ident
    if expected is None:
        data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=names.get)).decode()
        assert f'xmi:id="{ident}"' in data
        return
    notes = _notes(roots, names.get)
    assert notes == _validate_notes(roots, names.get) == [expected]


def test_an_unset_required_feature_in_a_run_is_written_with_a_warning() -> None:
    _pkg, _node, pair = _package()
    roots = _pairs(pair, 30)
    roots[17].__dict__["name"]._value = None  # around PyEcore, as a buggy caller might
    roots.insert(21, pair())  # never set
    names = {o: f"p{i}" for i, o in enumerate(roots)}
    with pytest.warns(validate.BoundsWarning) as record:
        data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=names.get)).decode()
    assert [str(w.message) for w in record] == [
        "model written with 2 bound problems: Pair p17.name: required feature is not set; "
        "Pair p21.name: required feature is not set"
    ]
    assert '  <w:Pair xmi:id="p17" mateOf="p16"/>\n  ' in data  # written without the name, as EMF does
    assert '  <w:Pair xmi:id="p21"/>\n' in data


_BAD = [
    ("size", 2**31),
    ("size", -(2**31) - 1),
    ("size", True),
    ("size", 1.0),
    ("weight", "1.5"),
    ("weight", [1.0]),
    ("name", "a\x01b"),
    ("name", b"x"),
    ("enabled", 1),
]


@pytest.mark.parametrize("make", [_nodes, _full_nodes], ids=["varied", "full"])
@pytest.mark.parametrize("feature, value", _BAD, ids=[f"{f}={v!r}" for f, v in _BAD])
def test_a_bad_value_in_a_run_is_refused(
    make: Callable[[EClass, int], list[EObject]], feature: str, value: Any
) -> None:
    """One problem per document: any problem hands the whole document over to `validate`,
    which would report a problem the fast path missed."""
    _pkg, node, _pair = _package()
    roots = make(node, 40)
    obj = roots[17]
    obj.eSet(feature, {"size": 1, "weight": 1.0, "name": "x", "enabled": True}[feature])
    obj.__dict__[feature]._value = value  # around PyEcore, as a buggy caller might
    names = {o: f"n{i}" for i, o in enumerate(roots)}
    notes = _notes(roots, names.get)
    assert notes == _validate_notes(roots, names.get)
    assert [n.split(": ")[0] for n in notes] == [f"Node n17.{feature}"]


def test_an_unpaired_opposite_in_a_run_is_refused() -> None:
    _pkg, _node, pair = _package()
    roots = _pairs(pair, 10)
    roots[4].__dict__["mate"]._value = roots[7]  # around PyEcore: roots[7] does not list it back
    names = {o: f"p{i}" for i, o in enumerate(roots)}
    notes = _notes(roots, names.get)
    assert notes == _validate_notes(roots, names.get)
    assert notes == [
        "Pair p4.mate: target Pair does not list it back in mateOf",
        "Pair p5.mateOf: target Pair does not list it back in mate",
    ]


def test_an_unpaired_single_opposite_in_a_run_is_refused() -> None:
    pkg, _node, _pair = _package()
    roots = _lefts_and_rights(pkg, 10)
    roots[3].__dict__["right"]._value = roots[15]  # around PyEcore: roots[15] lists roots[5]
    names = {o: f"o{i}" for i, o in enumerate(roots)}
    notes = _notes(roots, names.get)
    assert notes == _validate_notes(roots, names.get)
    assert notes == [
        "Left o3.right: target Right does not list it back in left",
        "Right o13.left: target Left does not list it back in right",
    ]


class _Loud(str):
    def __str__(self) -> str:
        return self.upper()


def test_ids_of_a_str_subclass_are_written_as_their_characters() -> None:
    _pkg, node, _pair = _package()
    roots = _full_nodes(node, 20)
    ids = {o: _Loud(f"n{i}") for i, o in enumerate(roots)}
    data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    assert b'<w:Node xmi:id="n3" name="node3" size="-7" weight="-2.25" enabled="false" next="n2"/>' in data
    assert data == _general_bytes(roots, ids)[0]


@pytest.mark.parametrize("layout", ["pyecore", "light", "mixed", "another-feature-set"])
def test_every_holder_layout_writes_what_the_general_heads_write(layout: str) -> None:
    """The fast path tests an object's set features as a whole (by their count when the
    class has no other features), then its holders as all PyEcore's or all light: objects
    built by PyEcore, read back (light holders), with both kinds of holder, or of a class
    with a feature that is not written, set, write the same text."""
    pkg, node, _pair = _package()
    if layout == "another-feature-set":
        node.eStructuralFeatures.append(EAttribute("scratch", EString, transient=True))
    built = _full_nodes(node, 40)
    ids = {o: f"n{i}" for i, o in enumerate(built)}
    data = xmi.to_bytes(built, xmi.XmiOptions(id_of=ids.get))
    if layout == "pyecore":
        roots = built
    else:
        rset = ResourceSet()
        ecore.from_bytes(ecore.to_bytes(pkg), "w.ecore", rset)
        document = xmi.from_bytes(data, rset)
        roots, ids = document.roots, document.ids
        assert type(roots[5].__dict__["name"]) is not EValue  # read back: light holders
    if layout == "mixed":  # the first node had no reference: PyEcore makes an EValue for it
        roots[0].next = roots[7]
        assert type(roots[0].__dict__["next"]) is EValue and type(roots[0].__dict__["name"]) is not EValue
        built[0].next = built[7]
        data = xmi.to_bytes(built, xmi.XmiOptions(id_of={o: f"n{i}" for i, o in enumerate(built)}.get))
    if layout == "another-feature-set":
        for o in roots[::3]:
            o.scratch = "not written"
    written = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    assert written == data
    assert (written, written) == _general_bytes(roots, ids)
    objects = list(canonical.walk(roots))
    assert writer.Writer(roots, ids, objects).document(checked=True) == data  # no doubt


@pytest.mark.parametrize("missing", ["name", "weight", "next"])
def test_a_holder_missing_in_a_run_is_a_doubt_not_the_previous_objects_value(missing: str) -> None:
    """The fast path reads the holders by subscript: a set feature whose holder is not in
    the object's ``__dict__`` (kept around PyEcore) gives the general lines the object,
    never values left over from the object before it in the run."""
    _pkg, node, _pair = _package()
    roots = _full_nodes(node, 40)
    del roots[17].__dict__[missing]
    assert node.findEStructuralFeature(missing) in roots[17]._isset
    ids = {o: f"n{i}" for i, o in enumerate(roots)}
    objects = list(canonical.walk(roots))
    assert writer.Writer(roots, ids, objects).document(checked=True) is None  # an explicit doubt
    written = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    assert (written, written) == _general_bytes(roots, ids)
    assert b'<w:Node xmi:id="n16" name="node16" size="-4" weight="1.0" enabled="true" next="n15"/>' in written


def test_feature_names_are_data_in_the_fast_path() -> None:
    """Names are never source text: braces and quotes stay what they are (a metamodel
    `validate` would refuse, but the writer alone must not break on it); in a positional
    fragment, they are escaped."""
    pkg = EPackage("q", nsURI="http://cfmodel.example/q", nsPrefix="q")
    c, holder = EClass("C"), EClass("Holder")
    c.eStructuralFeatures += [EAttribute("a{0}", EString), EAttribute('b"}', EInt), EReference("r", c)]
    holder.eStructuralFeatures.append(EReference('in"&', c, upper=-1, containment=True))
    pkg.eClassifiers.extend([c, holder])
    box = holder()
    box.eGet('in"&').append(c())
    roots = [box]
    for i in range(3):
        o = c()
        o.eSet("a{0}", f"v{i}")
        o.eSet('b"}', i)
        o.eSet("r", box.eGet('in"&')[0])
        roots.append(o)
    ids = {o: f"c{i}" for i, o in enumerate(roots) if i}
    data = xmi.to_bytes(roots, xmi.XmiOptions(id_of=ids.get))
    assert b'<q:C xmi:id="c1" a{0}="v0" b"}="0" r="/0/@in&quot;&amp;.0"/>' in data
    assert (data, data) == _general_bytes(roots, ids)


@pytest.mark.parametrize("shape", ["flat", "nested", "boxes", "infra", "repeated-root"])
def test_contents_is_the_walk(shape: str) -> None:
    pkg, node, _pair = _package()
    if shape == "flat":
        roots = _nodes(node, 10)
    elif shape == "boxes":
        roots = _boxes(pkg, 3)
    elif shape == "nested":
        base, app = tree_packages()
        roots = tree_model(base, app)
    elif shape == "infra":
        roots = infra_model(infra_package())
    else:
        flat = _nodes(node, 3)
        roots = [*flat, flat[0]]
    assert canonical.contents(roots) == list(canonical.walk(roots))
