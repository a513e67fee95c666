"""Write → read round trips, determinism, and the format registry."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfUsageError
from cfmodel.serializers import canonical, ecore, get_format, json, read, write, xmi
from tests.serializers.samples import infra_ids, infra_model, infra_package


def _ids(roots: list) -> dict:  # type: ignore[type-arg]
    return {o: i for o in canonical.walk(roots) if (i := infra_ids(o))}


def test_ecore_round_trip_and_determinism(tmp_path: Path) -> None:
    pkg = infra_package()
    data = ecore.to_bytes(pkg)
    assert data == ecore.to_bytes(infra_package())
    doc = ecore.from_bytes(data, "m.ecore", ResourceSet())
    assert canonical.dump_packages(doc.roots) == canonical.dump_packages([pkg])
    assert ecore.to_bytes(doc.roots[0]) == data


@pytest.mark.parametrize("module", [xmi, json], ids=["xmi", "json"])
@pytest.mark.parametrize("with_ids", [True, False], ids=["ids", "positional"])
def test_instance_round_trip_and_determinism(module: object, with_ids: bool) -> None:
    pkg = infra_package()
    roots = infra_model(pkg)
    opts_cls = xmi.XmiOptions if module is xmi else json.JsonOptions
    opts = opts_cls(id_of=infra_ids if with_ids else None)
    data = module.to_bytes(roots, opts)  # type: ignore[attr-defined]
    assert data == module.to_bytes(infra_model(pkg), opts)  # type: ignore[attr-defined]
    rset = ResourceSet()
    ecore.from_bytes(ecore.to_bytes(pkg), "m.ecore", rset)
    doc = module.from_bytes(data, rset)  # type: ignore[attr-defined]
    expected = canonical.dump_objects(roots, _ids(roots) if with_ids else {})
    assert canonical.dump_objects(doc.roots, doc.ids) == expected
    again = module.to_bytes(doc.roots, opts_cls(id_of=doc.ids.get))  # type: ignore[attr-defined]
    assert again == data


def test_single_root_is_the_document_element() -> None:
    pkg = infra_package()
    host = infra_model(pkg, hosts=1)[0]  # peers itself: a one-host ring
    text = xmi.to_bytes([host]).decode()
    assert '<infra:Host xmi:version="2.0"' in text and "xmi:XMI" not in text
    assert 'primary="//@files.0"' in text


def test_registry_by_name_and_extension(tmp_path: Path) -> None:
    assert get_format("x/model.ecore").name == "ecore"
    assert get_format("xmi").name == "xmi"
    assert get_format("a.JSON").name == "json"
    with pytest.raises(CfUsageError, match="no serializer"):
        get_format("a.txt")
    pkg = infra_package()
    write(tmp_path / "m.ecore", pkg)
    write(tmp_path / "m.json", infra_model(pkg), json.JsonOptions(indent=1))
    rset = ResourceSet()
    read(tmp_path / "m.ecore", rset)
    doc = read(tmp_path / "m.json", rset)
    assert len(doc.roots) == 4
    with pytest.raises(CfUsageError, match="takes XmiOptions"):
        write(tmp_path / "m.xmi", infra_model(pkg), json.JsonOptions())
