"""The runtime's one object builder (`cfmodel.metamodel.runtime.objects.ObjectBuilder`)
against PyEcore's own setters.

What must hold: an object the builder makes reads, reports ``eIsSet``, orders ``_isset``,
knows its container and lists inverse references exactly as the same object built through
PyEcore's setters does; with ``pair`` the opposite ends are set as PyEcore sets them; the
compiler's model and the fixed metamodels' plain objects are made by it.
"""

from __future__ import annotations

from typing import Any

import pytest
from pyecore.ecore import EAttribute, EClass, EInt, EObject, EPackage, EReference, EString
from pyecore.valuecontainer import EValue

from cfmodel.metamodel.runtime import fastpath
from cfmodel.metamodel.runtime.objects import ObjectBuilder


def _package() -> tuple[EClass, EClass]:
    pkg = EPackage("ob", nsURI="http://cfmodel.example/ob", nsPrefix="ob")
    host, disk = EClass("Host"), EClass("Disk")
    disks = EReference("disks", disk, upper=-1, containment=True)
    host_of = EReference("host", host)
    disks.eOpposite = host_of
    peers = EReference("peers", host, upper=-1)
    peer_of = EReference("peerOf", host, upper=-1)
    peers.eOpposite = peer_of
    host.eStructuralFeatures += [
        EAttribute("name", EString),
        EAttribute("tags", EString, upper=-1),
        EAttribute("cpus", EInt),
        disks,
        peers,
        peer_of,
        EReference("primary", disk),  # one-way
    ]
    disk.eStructuralFeatures += [EAttribute("size", EInt), host_of]
    pkg.eClassifiers += [host, disk]
    return host, disk


def _state(objects: list[EObject]) -> list[Any]:
    """Everything PyEcore reports of the objects, with objects named by position."""
    index = {id(o): k for k, o in enumerate(objects)}

    def name(v: Any) -> Any:
        return f"#{index[id(v)]}" if isinstance(v, EObject) else v

    out = []
    for obj in objects:
        features = obj.eClass.eAllStructuralFeatures()
        values = {f.name: [name(v) for v in obj.eGet(f)] if f.many else name(obj.eGet(f)) for f in features}
        out.append(
            (
                obj.eClass.name,
                values,
                [f.name for f in obj._isset],
                name(obj.eContainer()),
                sorted((name(o), f.name) for o, f in obj._inverse_rels),
            )
        )
    return out


def _by_setters(host: EClass, disk: EClass) -> list[EObject]:
    a, b, d = host(), host(), disk()
    a.name = "a"
    a.tags.extend(["x", "y"])
    a.disks.append(d)
    a.peers.append(b)
    a.primary = d
    d.size = 3
    b.name = None
    return [a, b, d]


def _by_builder(host: EClass, disk: EClass) -> list[EObject]:
    build = ObjectBuilder()
    a, b, d = build.new(host), build.new(host), build.new(disk)
    feature = {
        f.name: build.feature(f) for f in [*host.eAllStructuralFeatures(), *disk.eAllStructuralFeatures()]
    }
    build.set(a, feature["name"], "a", pair=True)
    build.extend(a, feature["tags"], ["x", "y"], pair=True)
    build.extend(a, feature["disks"], [d], pair=True)
    build.extend(a, feature["peers"], [b], pair=True)
    build.set(a, feature["primary"], d, pair=True)
    build.set(d, feature["size"], 3, pair=True)
    build.set(b, feature["name"], None, pair=True)
    build.finish()
    return [a, b, d]


def test_built_objects_are_what_pyecores_setters_make() -> None:
    host, disk = _package()
    built = _by_builder(host, disk)
    assert _state(built) == _state(_by_setters(host, disk))
    assert all(o in host.allInstances() or o in disk.allInstances() for o in built)
    if fastpath.LIGHT:  # the runtime's light objects and holders
        assert type(built[0].__dict__["name"]) is fastpath.holder_class(host.findEStructuralFeature("name"))


def test_without_pair_the_caller_sets_both_ends() -> None:
    host, disk = _package()
    build = ObjectBuilder()
    a, d = build.new(host), build.new(disk)
    build.extend(a, build.feature(host.findEStructuralFeature("disks")), [d])
    assert d.host is None and d.eContainer() is a  # the opposite is the caller's, the container is not
    build.set(d, build.feature(disk.findEStructuralFeature("host")), a)
    assert d.host is a and list(a.disks) == [d]


@pytest.mark.parametrize("light", [True, False], ids=["light", "pyecore"])
def test_plain_objects_become_the_builders_objects(light: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """`plain_to_ecore` builds through the builder: light objects when the runtime has
    them, PyEcore's constructor otherwise, the same model either way."""
    from cfmodel.metamodel import bindings as bm
    from cfmodel.serializers import xmi

    if not light:
        monkeypatch.setattr(fastpath, "LIGHT", False)
    from cfmodel.grammars.bindings import parse_str

    parsed = parse_str('bindings b {\n  bind "x" to "y"\n  bind "n" to [1, 2]\n}', "b.bind")
    root = bm.to_ecore(parsed.model)
    named = root.elements[0]
    name = named.eClass.findEStructuralFeature("name")
    holder = type(named.__dict__[name._name])  # the runtime's light holders, or PyEcore's own
    assert holder is (fastpath.holder_class(name) if light and fastpath.LIGHT else EValue)
    assert [b.key.name for b in root.eAllContents() if b.eClass.name == "Binding"] == ["x", "n"]
    assert all(c.eContainer() is not None for c in root.eAllContents())
    assert b'name="b"' in xmi.to_bytes([root])
