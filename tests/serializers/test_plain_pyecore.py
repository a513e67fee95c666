"""Plain PyEcore (its own ``ResourceSet`` and readers, no cfmodel reader) on what cfmodel
writes: the ``.ecore`` files load as they are; the XMI loads once the data types PyEcore
read are given EMF's conversions (`datatypes.make_packages_faithful`, one call), and then
reads the same objects and values as cfmodel's reader. Without that call, stock PyEcore
0.15 refuses every attribute of a data type of its own whose Java class is not
``String`` (its ``EDataType.from_string`` returns the text; its type check then refuses
``"443"`` for ``int``): a PyEcore limitation, stated here so that a change in PyEcore
shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.ecore import EClass
from pyecore.resources import URI, ResourceSet
from pyecore.valuecontainer import BadValueError

from cfmodel.serializers import canonical, datatypes, xmi
from tests.conftest import run_cfmodel
from tests.lift.helpers import WEBSHOP


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("webshop")
    result = run_cfmodel("xmi", "export", str(WEBSHOP), "-o", str(out), cwd=out)
    assert result.returncode == 0, result.stderr
    return out


def _plain(folder: Path, faithful: bool) -> tuple[ResourceSet, list[object]]:
    """The metamodels, read as a PyEcore user does: a file after the ones it refers to
    (PyEcore would fetch an unregistered nsURI over the network), each registered."""
    rset = ResourceSet()
    roots: list[object] = []
    texts = {path: path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.ecore"))}
    uris = {path: text.split('nsURI="', 1)[1].split('"', 1)[0] for path, text in texts.items()}
    while texts:
        ready = [
            p for p, t in texts.items() if all(u not in t for q, u in uris.items() if q in texts and q != p)
        ]
        assert ready, "the metamodels refer to each other in a circle"
        for path in ready:
            del texts[path]
            for package in rset.get_resource(URI(str(path))).contents:
                roots.append(package)
                todo = [package]
                while todo:
                    current = todo.pop()
                    rset.metamodel_registry[current.nsURI] = current
                    todo.extend(current.eSubpackages)
    if faithful:
        datatypes.make_packages_faithful(roots)
    return rset, roots


def test_plain_pyecore_reads_the_metamodels(written: Path) -> None:
    _, roots = _plain(written, faithful=False)
    names = {p.name: p for p in roots}
    assert {"shop", "web", "std"} <= set(names)
    server = next(c for c in names["web"].eClassifiers if isinstance(c, EClass) and c.name == "LoadBalancer")
    assert server.findEStructuralFeature("port") is not None


def test_stock_pyecore_refuses_typed_values_of_its_own_data_types(written: Path) -> None:
    rset, _ = _plain(written, faithful=False)
    uri = URI(str(written / "webshop.xmi"))
    try:
        with pytest.raises(BadValueError, match="got type str with value 443"):
            rset.get_resource(uri)
    finally:
        uri.close_stream()  # PyEcore leaves it open when its reader raises


def test_plain_pyecore_reads_the_model_as_cfmodel_does(written: Path) -> None:
    rset, _ = _plain(written, faithful=True)
    plain = list(rset.get_resource(URI(str(written / "webshop.xmi"))).contents)
    ours_rset = ResourceSet()
    from cfmodel.transforms.cf.ecore_import import read_ecore_files

    read_ecore_files(sorted(written.glob("*.ecore")), ours_rset)
    ours = xmi.read(written / "webshop.xmi", ours_rset)
    assert len(plain) == len(ours.roots) > 10
    assert canonical.dump_objects(plain) == canonical.dump_objects(ours.roots)
