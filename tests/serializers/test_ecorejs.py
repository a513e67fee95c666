"""A real reader and writer of emfjson's JSON: ecore.js (npm's ``ecore`` 0.12.0, the
JavaScript EMF by the author of emfjson, whose ``Ecore.JSON`` is emfjson's format), run
under Node.js (`scripts/system-packages.txt`) with its two dependencies from npm.

ecore.js reads cfmodel's ``.ecore`` (its XMI reader) and cfmodel's JSON (its JSON reader)
to the same model cfmodel holds: every object of the same class in the same place, every
set attribute with the value cfmodel wrote, every reference to the same object
(`ecorejs_harness.js` dumps what it holds); and what ecore.js writes of it, cfmodel reads
back to an equal model (canonical dumps), ids included. In CI a missing Node.js or a
failed download is an error (`skip_or_fail`).

What ecore.js cannot do, said here so that a change shows: it has no subpackages (its
EPackage feature is ``eSubPackages``), numbers are JavaScript doubles (integers beyond
2**53 and ``EBigDecimal`` digits are not exact), and it resolves a ``$ref`` only as it
names objects itself — by its iD attribute's value when the class has one (even
without a value, and before an ``_id``), else by ``_id``, else by a positional fragment
below the nearest named object (``web0/@files.1``) — so a reference EMF writes as
``/0/@files.1`` to an unnamed object below a named one is dropped by ecore.js without a
word. Its XMI reader keeps ``iD="true"`` as a string, which the harness makes a boolean.
"""

from __future__ import annotations

import json as std_json
import os
import shutil
import subprocess
import tarfile
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pyecore.ecore import EAttribute, EClass, EEnumLiteral, EInt, EObject, EPackage, EReference, EString
from pyecore.resources import ResourceSet

from cfmodel.serializers import canonical, datatypes, ecore, json, model
from cfmodel.serializers.json.writer import class_uri
from tests.conftest import skip_or_fail
from tests.corpus.test_corpus import corpus_dir
from tests.emf.corpusfetch import Archive, Registries, fetch
from tests.emf.realmetamodels import ECORE_JS, for_tests
from tests.serializers.samples import infra_ids, infra_model, infra_package, tree_model, tree_packages

HARNESS = Path(__file__).with_name("ecorejs_harness.js")
# ecore.js's dependencies (package.json: underscore ^1.8.3, sax ^1.2.1), pinned
UNDERSCORE = Archive(
    "npm", "underscore", "1.13.7", "a252090ea284c52edc7c8a90e05cf97fb56e2d151a1e70c203e8ec27eb50cd66"
)
SAX = Archive("npm", "sax", "1.4.1", "ce758b585dd0f6e010bb375db1c081be70fddea7f1af129404e6f07db2ed9309")


@pytest.fixture(scope="module")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ecore.js and its dependencies, unpacked from their npm tarballs."""
    if shutil.which("node") is None:
        skip_or_fail("Node.js is not installed (scripts/system-packages.txt: nodejs)")
    folder = tmp_path_factory.mktemp("ecorejs") / "node_modules"
    for name, archive in (("ecore", ECORE_JS), ("underscore", UNDERSCORE), ("sax", SAX)):
        fetched = for_tests(lambda archive=archive: fetch(archive, Registries(), corpus_dir()))
        with tarfile.open(fetched.path) as tgz:
            for member in tgz.getmembers():
                if member.isfile() and member.name.startswith("package/"):
                    member.name = member.name.removeprefix("package/")
                    tgz.extract(member, folder / name, filter="data")
    return folder


def _ecorejs(modules: Path, folder: Path, packages: list[EPackage], document: bytes) -> dict[str, Any]:
    """Run ecore.js on the metamodels and the JSON document; what it holds and writes."""
    ecores = []
    for pkg in packages:
        path = folder / f"{pkg.name}.ecore"
        path.write_bytes(ecore.to_bytes(pkg))
        ecores.append(str(path))
    (folder / "model.json").write_bytes(document)
    done = subprocess.run(
        ["node", str(HARNESS), "model.json", "out.json", *ecores],
        cwd=folder,
        env={**os.environ, "NODE_PATH": str(modules)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = std_json.loads((folder / "out.json").read_text(encoding="utf-8"))
    return result


def _held(roots: list[EObject], ids: dict[EObject, str]) -> list[dict[str, Any]]:
    """cfmodel's model in the harness's dump form: values as the JSON values cfmodel
    writes them (dates and enums as EMF's literals), references as containment paths."""
    paths: dict[EObject, str] = {}

    def place(obj: EObject, path: str) -> None:
        paths[obj] = path
        for f in model.persistent_features(obj.eClass):
            if not isinstance(f, EAttribute) and f.containment:
                for k, child in enumerate(_items(obj, f)):
                    place(child, f"{path}/{f.name}.{k}")

    def value(f: Any, v: Any) -> Any:
        if isinstance(v, EEnumLiteral):
            return v.literal or v.name  # EMF: a literal not given is the name
        if isinstance(v, datetime):
            return datatypes.codec_for(f.eType).to_literal(v)
        return float(v) if isinstance(v, Decimal) else v

    def dump(obj: EObject) -> dict[str, Any]:
        entry: dict[str, Any] = {"eClass": class_uri(obj.eClass), "id": ids.get(obj)}
        entry.update(attributes={}, references={}, contents={})
        for f in model.persistent_features(obj.eClass):
            found = _items(obj, f)
            if not found or model.is_container_ref(f):
                continue
            if isinstance(f, EAttribute):
                values = [value(f, v) for v in found]
                entry["attributes"][f.name] = values if f.many else values[0]
            elif f.containment:
                entry["contents"][f.name] = [dump(child) for child in found]
            else:
                entry["references"][f.name] = [paths[t] for t in found]
        return entry

    for k, root in enumerate(roots):
        place(root, f"r{k}")
    return [dump(root) for root in roots]


def _items(obj: EObject, f: Any) -> list[Any]:
    if f.many:
        return list(obj.eGet(f))
    return [obj.eGet(f)] if obj.eIsSet(f) and obj.eGet(f) is not None else []


def _without_empty_lists(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ecore.js holds a many-valued attribute never set as ``[]`` (and says it is set)."""
    for entry in entries:
        entry["attributes"] = {k: v for k, v in entry["attributes"].items() if v != []}
        for children in entry["contents"].values():
            _without_empty_lists(children)
    return entries


def _infra() -> tuple[list[EPackage], list[EObject]]:
    """The infra model with numbers a JavaScript double holds exactly."""
    pkg = infra_package()
    roots = infra_model(pkg)
    for k, host in enumerate(roots[:3]):
        host.serial = 10**15 + k
        host.price = Decimal("12.5")
    return [pkg], roots


def _tree() -> tuple[list[EPackage], list[EObject]]:
    base, app = tree_packages()
    return [base, app], tree_model(base, app)


def _named() -> tuple[list[EPackage], list[EObject]]:
    """Shapes with an iD attribute (EMF's ``eIDAttribute``): references name them by its
    value, as EMF and emfjson-jackson write them and as ecore.js resolves them; scenes
    (no iD attribute) by their positional fragments."""
    pkg = EPackage("scene", nsURI="http://example.org/scene", nsPrefix="scene")
    shape = EClass("Shape")
    scene = EClass("Scene")
    shape.eStructuralFeatures += [
        EAttribute("label", EString, iD=True),
        EAttribute("side", EInt),
        EReference("next", shape),
        EReference("friends", shape, upper=-1),
        EReference("scene", scene),
    ]
    scene.eStructuralFeatures += [
        EAttribute("name", EString),
        EReference("shapes", shape, upper=-1, containment=True),
    ]
    pkg.eClassifiers.extend([shape, scene])
    first, second = scene(name="s1"), scene(name="s2")
    first.shapes.extend([shape(label="b1", side=1), shape(label="b2"), shape(label="b3", side=3)])
    second.shapes.append(shape(label="c1"))
    first.shapes[0].next = second.shapes[0]
    first.shapes[0].friends.extend([first.shapes[2], first.shapes[1]])
    second.shapes[0].scene = first
    first.shapes[2].next = first.shapes[0]
    return [pkg], [first, second]


MODELS = {"infra": _infra, "tree": _tree, "named": _named}


def _ours(packages: list[EPackage]) -> ResourceSet:
    rset = ResourceSet()
    for pkg in packages:
        ecore.from_bytes(ecore.to_bytes(pkg), f"{pkg.name}.ecore", rset)
    return rset


@pytest.mark.parametrize("case", sorted(MODELS))
def test_ecorejs_reads_cfmodel_json_and_cfmodel_reads_what_it_writes(
    case: str, node_modules: Path, tmp_path: Path
) -> None:
    """Objects referred to by EMF's positional fragments (``//@kids.0/@kids.0``, ``/2``),
    or by their iD attribute's value."""
    packages, roots = MODELS[case]()
    document = json.to_bytes(roots)
    if case == "named":  # by the iD attribute's value where there is one
        assert b'"next": {"eClass": "http://example.org/scene#//Shape", "$ref": "c1"}' in document
        assert b'"scene": {"eClass": "http://example.org/scene#//Scene", "$ref": "/0"}' in document
    ran = _ecorejs(node_modules, tmp_path, packages, document)
    assert _without_empty_lists(ran["dump"]) == _without_empty_lists(_held(roots, {}))
    written = std_json.dumps(ran["written"]).encode()
    back = json.from_bytes(written, _ours(packages), "ecorejs.json")
    assert canonical.dump_objects(back.roots) == canonical.dump_objects(roots)


@pytest.mark.parametrize("case", ["infra", "tree"])  # "named": ecore.js prefers iD values to _ids
def test_every_object_named_by_its_id(case: str, node_modules: Path, tmp_path: Path) -> None:
    """Every object named (as ``_id``, the key ecore.js reads and writes): ecore.js keeps
    the ids, refers by them, and cfmodel reads its document back with the same ids."""
    packages, roots = MODELS[case]()
    ids = {obj: f"o{k}" for k, obj in enumerate(canonical.walk(roots))}
    document = json.to_bytes(roots, json.JsonOptions(id_of=ids.get, id_key="_id"))
    ran = _ecorejs(node_modules, tmp_path, packages, document)
    assert _without_empty_lists(ran["dump"]) == _without_empty_lists(_held(roots, ids))
    back = json.from_bytes(std_json.dumps(ran["written"]).encode(), _ours(packages), "ecorejs.json")
    assert canonical.dump_objects(back.roots, back.ids) == canonical.dump_objects(roots, ids)


def test_references_below_named_objects_as_ecorejs_writes_them(node_modules: Path, tmp_path: Path) -> None:
    """Hosts named, files not: ecore.js names a file ``<host id>/@files.0`` and writes
    ``primary`` so; cfmodel reads that form. The reference cfmodel (and EMF) writes to such
    a file, ``/0/@files.0``, ecore.js drops (the limitation the module says)."""
    packages, roots = _infra()
    document = json.to_bytes(roots, json.JsonOptions(id_of=infra_ids, id_key="_id"))
    ran = _ecorejs(node_modules, tmp_path, packages, document)
    assert [entry["references"].get("primary") for entry in ran["dump"][:3]] == [None, None, None]
    theirs = ran["written"]
    theirs[0]["primary"] = {"$ref": "Host_3a_web0/@files.1", "eClass": "http://cfmodel.example/infra#//File"}
    back = json.from_bytes(std_json.dumps(theirs).encode(), _ours(packages), "ecorejs.json")
    assert back.roots[0].primary is back.roots[0].files[1]
