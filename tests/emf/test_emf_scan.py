"""Flat documents EMF writes (its re-saves of cfmodel's) take the XMI reader's fast lane,
whose objects equal the streaming reader's."""

from __future__ import annotations

import random
from pathlib import Path

from cfmodel.serializers import ecore, xmi
from cfmodel.serializers.xmi import scan
from tests.serializers.test_xmiscan import random_model, registry, scan_package, state

from .emf import EmfChecker


def test_emf_resaves_of_flat_documents_take_the_fast_lane(emf: EmfChecker, tmp_path: Path) -> None:
    pkg = scan_package()
    fresh = registry(pkg)
    ecore.write(tmp_path / "scan.ecore", pkg)
    written = []
    for seed in range(4):
        roots, ids = random_model(pkg, random.Random(seed), 60, children=False)
        xmi.write(tmp_path / f"doc{seed}.xmi", roots, xmi.XmiOptions(id_of=ids.get))
        written.append(tmp_path / f"doc{seed}.xmi")
    out = tmp_path / "emf"
    out.mkdir()
    assert emf.check([tmp_path / "scan.ecore"], written, resave_dir=out, dump=False).clean
    for path in written:
        data = (out / path.name).read_bytes()
        assert data != path.read_bytes()  # EMF's own layout: features in order, its escaping
        scanned = scan.scanned(data, "doc.xmi", fresh())
        assert scanned is not None
        assert state(scanned) == state(xmi.from_bytes(data, fresh(), "doc.xmi", xmi.XmiOptions(scan=False)))
