"""The environments metamodel: its own EPackage referencing the bindings package; files of it
(the .ecore, catalogs and requests as XMI) load in real Eclipse EMF."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel import environments as em
from cfmodel.serializers import XmiOptions, canonical, ecore, read, write
from cfmodel.transforms.environments.request import catalog_model, model_ids
from tests.conftest import skip_or_fail
from tests.emf.emf import EmfChecker, EmfUnavailableError, build_checker

from .conftest import Project

ENVS = """\
site {
  Environment { modulepath => ['libs', "$confdir/shared"] }
  environment { 'production': envdir => 'prod' }
  dynamic_environments { 'branches': main => 'site.cf' }
}
case $::fqdn {
  /^dev/: { $environment = if $agent_environment { $agent_environment } else { 'production' } }
  default: { $environment = 'production' }
}
"""


@pytest.fixture(scope="module")
def emf() -> EmfChecker:
    try:
        return build_checker()
    except EmfUnavailableError as exc:
        skip_or_fail(f"real EMF unavailable: {exc}")
        raise


def _project(project: Project) -> Project:
    project.env_dir("prod", "branches/b1").write({"branches/b1/site.cf": "x = 1\n"})
    return project.envs(ENVS)


def test_package_identity_and_the_reference_to_bindings() -> None:
    assert (em.PACKAGE.name, em.PACKAGE.nsURI, em.PACKAGE.nsPrefix) == (
        "environments",
        "http://cfmodel.org/environments/1.0",
        "environments",
    )
    names = {c.name for c in em.PACKAGE.eClassifiers}
    assert {
        "EnvironmentsFile",
        "EnvironmentDeclaration",
        "DynamicEnvironments",
        "Environment",
        "Request",
    } <= names
    value = em.Parameter.findEStructuralFeature("value")
    assert value.eType is bm.Expression and value.eType.ePackage is bm.PACKAGE
    for classifier in em.PACKAGE.eClassifiers:
        for feature in getattr(classifier, "eStructuralFeatures", ()):
            assert feature.name not in {"line", "col", "span", "position"}


def test_nothing_is_registered_globally() -> None:
    from pyecore.resources import global_registry

    assert em.NS_URI not in global_registry


def test_ecore_names_the_bindings_package(tmp_path: Path) -> None:
    ecore.write(tmp_path / "environments.ecore", em.PACKAGE)
    text = (tmp_path / "environments.ecore").read_text(encoding="utf-8")
    assert 'eType="ecore:EClass http://cfmodel.org/bindings/1.0#//Expression"' in text


def _write_all(project: Project, tmp_path: Path) -> tuple[list[Path], list[Path], list[object]]:
    result = project.run({"fqdn": "dev1"}, agent="b1")
    request = result.to_model()
    catalog, _ = catalog_model(project.evaluate({"fqdn": "web1"}).catalog)
    ecores = [tmp_path / "bindings.ecore", tmp_path / "environments.ecore"]
    ecore.write(ecores[0], bm.PACKAGE)
    ecore.write(ecores[1], em.PACKAGE)
    xmis = [tmp_path / "request.xmi", tmp_path / "catalog.xmi"]
    write(xmis[0], [request], XmiOptions(id_of=model_ids))
    write(xmis[1], [catalog], XmiOptions(id_of=model_ids))
    return ecores, xmis, [request, catalog]


def test_exports_read_back(project: Project, tmp_path: Path) -> None:
    _, xmis, roots = _write_all(_project(project), tmp_path)
    rset = ResourceSet()
    rset.metamodel_registry[bm.NS_URI] = bm.PACKAGE
    rset.metamodel_registry[em.NS_URI] = em.PACKAGE
    for path, root in zip(xmis, roots, strict=True):
        doc = read(path, rset)
        assert canonical.dump_objects(doc.roots, doc.ids) == canonical.dump_objects(
            [root], {o: i for o in canonical.walk([root]) if (i := model_ids(o))}
        )
    request = read(xmis[0], rset).roots[0]
    assert request.selected.name == "b1" and request.selected.kind.name == "dynamic"


def test_real_emf_loads_the_metamodel_and_the_models(
    emf: EmfChecker, project: Project, tmp_path: Path
) -> None:
    ecores, xmis, roots = _write_all(_project(project), tmp_path)
    report = emf.check(ecores, xmis)
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    assert report.dump("environments.ecore") == canonical.dump_packages([em.PACKAGE])
    for path, root in zip(xmis, roots, strict=True):
        ids = {o: i for o in canonical.walk([root]) if (i := model_ids(o))}
        assert report.dump(path.name) == canonical.dump_objects([root], ids)
