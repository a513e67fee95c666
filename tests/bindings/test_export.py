"""Bindings models and effective bindings as XMI and JSON: they read back, and real EMF loads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.grammars.bindings import parse_str
from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel.bindings import ModelObject
from cfmodel.serializers import canonical, ecore, read, write
from cfmodel.transforms.bindings.compose import ComposeOptions, Injector, effective_model
from tests.conftest import skip_or_fail
from tests.emf.emf import EmfChecker, EmfUnavailableError, build_checker

from .conftest import _build
from .test_grammar import SAMPLE

SITE = """site {
  categories { node => "$::fqdn", environment => true, virtual => $::is_virtual }
  bindings => [ layer { 'site': include => 'confdir:/default' }, { 'modules': include => ['module:/*::default'] } ]
}"""
EFFECTIVE = """bindings default {
  bind "the meaning of life" to 42
  bind Float, "ratio" to 0.5
  bind "nothing" to undef
  bind "data" to { 'a' => [1, 'two', true], 'b' => { 'c' => -3 } }
  bind Type[Logger] to Type[SpecialLogger]
  bind class ntp to class ntp2
  when node 'kermit' { bind "x" to "$::fqdn" }
  multibind Array[String], "names" AS "ids"
  bind to 'Mary' in 'ids'
  bind alias "the meaning of life" as "love"
  include [ntp, apache]
  bind parameters Web[one] to Sql[one] { map => { dbuser => user } }
  bind parameters Host['web', 'a,b'] to Sql["it's", 53]
  bind variables to { dc => 'ams' }
  bind String, "uuid" to producer "uuid"
}"""


def effective() -> tuple[Injector, ModelObject]:
    options = ComposeOptions(producers={"uuid": lambda args: "u-1"})
    injector = _build(EFFECTIVE, facts={"fqdn": "kermit"}, options=options)
    return injector, effective_model(injector)


def models() -> list[ModelObject]:
    return [parse_str(SAMPLE, "windows/default.bind").root, parse_str(SITE, "site.bind").root, effective()[1]]


def test_effective_model_holds_every_key_with_its_value_and_origin() -> None:
    injector, root = effective()
    assert list(root.layers) == ["layer0"]
    assert [(c.name, c.value) for c in root.categories] == [
        ("node", "kermit"),
        ("environment", "production"),
        ("common", "true"),
    ]
    assert list(root.classes) == ["ntp", "apache"]
    by_name = {(b.keyType, b.name): b for b in root.bindings}
    assert len(by_name) == len(injector.effective())
    x = by_name[("Data", "x")]
    assert (x.kind, x.origin, x.layer, x.category, x.location) == (
        "bind",
        "default",
        "layer0",
        'category node "kermit"',
        "l0.bind:8:24",
    )
    assert x.value.value == "kermit"
    love = by_name[("Data", "love")]
    assert (love.kind, love.fromKey, love.value.value) == ("alias", 'Data "the meaning of life"', 42)
    logger = by_name[("Type[Logger]", "")].value
    assert bm.class_name(logger) == "TypeLiteral" and logger.type.args[0].name == "SpecialLogger"
    uuid = by_name[("Data", "uuid")]
    assert uuid.lazy and uuid.value is None
    assert bm.class_name(by_name[("ParameterSource", "/params/Web%5Bone%5D/Sql")].value) == "TypeLiteral"
    keyed = by_name[("ParameterSource", "/params/Host%5Bweb,a%2Cb%5D/Sql")].value.type
    assert (keyed.name, keyed.title, list(keyed.titles)) == ("Sql", None, ["it's", "53"])


@pytest.mark.parametrize("suffix", [".xmi", ".json"])
def test_models_read_back(tmp_path: Path, suffix: str) -> None:
    roots = models()
    rset = ResourceSet()
    rset.metamodel_registry[bm.NS_URI] = bm.PACKAGE
    for index, root in enumerate(roots):
        path = tmp_path / f"model{index}{suffix}"
        write(path, [root])
        document = read(path, rset)
        assert canonical.dump_objects(document.roots, document.ids) == canonical.dump_objects([root], {})


@pytest.fixture(scope="module")
def emf() -> EmfChecker:
    try:
        return build_checker()
    except EmfUnavailableError as exc:
        skip_or_fail(f"real EMF unavailable: {exc}")
        raise


def test_real_emf_loads_the_metamodel_the_models_and_the_effective_bindings(
    emf: EmfChecker, tmp_path: Path
) -> None:
    package = tmp_path / "bindings.ecore"
    ecore.write(package, bm.PACKAGE)
    roots = models()
    xmis = [tmp_path / f"model{i}.xmi" for i in range(len(roots))]
    for path, root in zip(xmis, roots, strict=True):
        write(path, [root])
    report = emf.check([package], xmis)
    assert report.problems() == []
    assert report.summary == {"errors": 0, "unresolved": 0, "diagnostics": 0}
    assert report.dump("bindings.ecore") == canonical.dump_packages([bm.PACKAGE])
    for path, root in zip(xmis, roots, strict=True):
        assert report.dump(path.name) == canonical.dump_objects([root], {})
