"""Every .ecore lift produces loads in real EMF with no errors, unresolved proxies or
diagnostics, and EMF sees the same metamodel (canonical dumps match line for line):
the rich fixture, the bundled example and the whole real corpus; and instance models
made through the metamodel API load clean too."""

from __future__ import annotations

from pathlib import Path

import pytest

from cfmodel.serializers import canonical, xmi
from cfmodel.serializers.base import ncname_id
from cfmodel.transforms.cf.lift import DomainMetamodel
from tests.emf.emf import EmfChecker
from tests.resolve.corpus_project import build_corpus_project

from .helpers import RICH, WEBSHOP, lifted


def assert_emf_sees_the_same(emf: EmfChecker, mm: DomainMetamodel, folder: Path) -> None:
    paths = mm.write(folder)
    report = emf.check(paths)
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    for root in mm.packages:
        assert report.dump(f"{root.name}.ecore") == canonical.dump_packages([root]), root.name


@pytest.mark.parametrize("project", [RICH, WEBSHOP], ids=["rich", "webshop"])
def test_emf_loads_the_lifted_metamodel(emf: EmfChecker, tmp_path: Path, project: Path) -> None:
    assert_emf_sees_the_same(emf, lifted(project), tmp_path)


@pytest.mark.corpus
def test_emf_loads_the_lifted_corpus(emf: EmfChecker, tmp_path: Path) -> None:
    build_corpus_project(tmp_path / "corpus")
    mm = lifted(tmp_path / "corpus")
    assert len(mm.packages) == 15 and len(mm.classes()) > 140
    assert_emf_sees_the_same(emf, mm, tmp_path / "ecore")


def test_emf_loads_instances_made_through_the_api(emf: EmfChecker, tmp_path: Path) -> None:
    mm = lifted(RICH)
    site = mm.create("__config__::Site", name="dc1")
    server = mm.create(
        "infra::Server",
        name="web1",
        os="free-bsd",
        tags=["a", "a"],
        load=1,
        weight=2,
        options={"k": [1]},
        extra=[1, "x"],
        labels={"owner": "me"},
        admin_port=8080,
        motd="hi",
        site=site,
    )
    disk = mm.create("infra::Disk", size_gb=10, server=server)
    peer = mm.create("infra::Machine", name="m1", motd="x", peers=[server])
    ids = {site: "site", server: "web1", disk: "disk", peer: ncname_id("m1")}
    roots = [site, server, disk, peer]
    paths = mm.write(tmp_path)
    xmi.write(tmp_path / "model.xmi", roots, xmi.XmiOptions(id_of=ids.get))
    report = emf.check(paths, [tmp_path / "model.xmi"])
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    assert report.dump("model.xmi") == canonical.dump_objects(roots, ids)
