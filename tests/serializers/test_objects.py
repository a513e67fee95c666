"""The runtime's one object builder (`cfmodel.metamodel.runtime.objects.ObjectBuilder`)
against PyEcore's own setters.

What must hold: an object the builder makes reads, reports ``eIsSet``, orders ``_isset``,
knows its container and lists inverse references exactly as the same object built through
PyEcore's setters does; with ``pair`` the opposite ends are set as PyEcore sets them; the
compiler's model and the fixed metamodels' plain objects are made by it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyecore.ecore import EAttribute, EClass, EInt, EObject, EPackage, EReference, EString
from pyecore.valuecontainer import EValue

from cfmodel.metamodel.runtime import fastpath
from cfmodel.metamodel.runtime.objects import Maker, ObjectBuilder, build


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


def test_make_is_the_constructor_on_the_builder() -> None:
    """``make(eclass, **values)`` leaves the objects as ``eclass(**values)`` does: every value
    given is set (None too), in that order; containers, opposites and inverse index too."""
    host, disk = _package()

    def by(make: Any) -> list[EObject]:
        d = make(disk, size=3)
        b = make(host, name=None)
        a = make(host, name="a", tags=["x", "y"], disks=[d], peers=[b], primary=d)
        return [a, b, d]

    builder = ObjectBuilder()
    built = by(builder.make)
    builder.finish()
    assert _state(built) == _state(by(lambda eclass, **values: eclass(**values)))
    assert built[2].host is built[0] and list(built[1].peerOf) == [built[0]]  # the opposite ends
    with pytest.raises(AttributeError, match="Host has no feature 'colour'"):
        ObjectBuilder().make(host, colour="red")
    one = build(disk, size=4)
    assert one in disk.allInstances() and one.size == 4 and one.eIsSet("size")
    if fastpath.LIGHT:
        assert type(one) is fastpath.light_class(disk)


def test_a_maker_is_the_packages_classes_on_one_builder() -> None:
    host, _ = _package()
    builder = ObjectBuilder()
    maker = Maker(builder, host.ePackage)
    a = maker.Host(name="a", disks=[maker.Disk(size=1)])
    builder.finish()
    assert a.eClass is host and a.disks[0].size == 1 and a.disks[0].host is a
    assert maker.Host is maker.Host  # looked up once
    with pytest.raises(AttributeError):
        maker.Nothing  # noqa: B018 - the attribute access is the test


def test_the_small_models_are_made_of_the_runtimes_objects() -> None:
    """The resource graph's model, the differences model, literals, effective bindings, the
    environments parser's tree and catalog, and a syntax tree as a model: each is made by
    the builder (light objects when the runtime has them), every object registered."""
    from cfmodel.grammars import cf, environments
    from cfmodel.metamodel import bindings as bm
    from cfmodel.metamodel.resource_graph import Resource, ResourceGraph, to_ecore
    from cfmodel.transforms.cf.program_model import to_model
    from cfmodel.transforms.diff.model import Comparison, EdgeDiff
    from cfmodel.transforms.environments.environments import evaluate_environments
    from cfmodel.transforms.environments.request import catalog_model

    graph = ResourceGraph("g")
    graph.resources["f[a]"] = Resource("f[a]", "f", "a", attributes={"n": [1, {"k": None}]})
    comparison = Comparison("a", "b", edges=[EdgeDiff("added", "requires", "x", "y")])
    examples = Path(__file__).resolve().parents[2] / "examples" / "environments"
    catalog = evaluate_environments(examples, {}, None).catalog
    roots = [
        to_ecore(graph),
        comparison.to_ecore(),
        bm.literal_of({"a": [1, 2.5, True, None]}),
        environments.parse_str(
            "site {\n  environment { 'prod': envdir => 'p' }\n}\n$x = 1\n", "e.cfenv"
        ).root,
        catalog_model(catalog)[0],
        to_model(cf.parse_str('entity A:\n  string x = "{{y}}"\nend\n', "m.cf")),
    ]
    for root in roots:
        objects = [root, *root.eAllContents()]
        assert len(objects) >= 2
        for obj in objects:
            assert obj in type(obj).allInstances()
            if fastpath.LIGHT:
                assert type(obj) is fastpath.light_class(obj.eClass), obj


def _constructor_calls() -> list[str]:
    """Calls of a fixed metamodel's EClass as a constructor (``bm.Binding(...)``,
    ``Graph(...)``) anywhere in ``cfmodel/``, found in the source."""
    import ast
    import importlib

    package = Path(__file__).resolve().parents[2] / "cfmodel"
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        names: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attribute or None)
        if module.startswith("cfmodel.metamodel."):
            names.update({n.id: (module, n.id) for n in ast.walk(tree) if isinstance(n, ast.Name)})
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cfmodel.metamodel"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    try:
                        importlib.import_module(full)
                        names[alias.asname or alias.name] = (full, None)
                    except ImportError:
                        names[alias.asname or alias.name] = (str(node.module), alias.name)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                owner = names.get(func.value.id)
                target = (owner[0], func.attr) if owner is not None and owner[1] is None else None
            elif isinstance(func, ast.Name) and func.id in names and names[func.id][1] is not None:
                target = (names[func.id][0], names[func.id][1])
            else:
                target = None
            if target is not None:
                value = getattr(importlib.import_module(target[0]), str(target[1]), None)
                if isinstance(value, EClass) and not isinstance(value, type):
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno} {target[1]}(...)")
    return found


def test_no_model_object_is_made_by_pyecores_constructor() -> None:
    """Every object of a fixed metamodel is made by the runtime (`ObjectBuilder.make`,
    `build`, a `Maker`, or plain objects turned into the builder's): no call of one of their
    EClasses as a constructor is left in ``cfmodel/``."""
    assert _constructor_calls() == []
