"""The emitter every generated per-class function is written with
(`cfmodel.metamodel.runtime.codegen.Emitter`), and the writer's one way of giving up.

What must hold: values reach generated code as named parameters (the same object under
one name), model text only as literals, blocks indent what is written inside them; the
XMI writer's generated heads never edit text after writing it, and hand over to
`validate` only on an explicit `heads.DoubtError` (a value stored around PyEcore's
holders is one), never because Python itself raised.
"""

from __future__ import annotations

from typing import Any

import pytest
from pyecore.ecore import EAttribute, EClass, EInt, EPackage, EString

from cfmodel.metamodel.runtime import codegen
from cfmodel.serializers import canonical, xmi
from cfmodel.serializers.xmi import heads, writer


def test_bound_values_are_named_parameters_and_reused() -> None:
    em = codegen.Emitter("fixed")
    one, other = object(), object()
    assert em.bind(one, "value") == "value_0"
    assert em.bind(other, "value") == "value_1"
    assert em.bind(one, "another_hint") == "value_0"  # the same object: the same name
    with em.block("def pick(k):"):
        with em.block("if k:"):
            em.line("return value_0")
        em.line("return (fixed, value_1)")
    assert em.source("pick") == (
        "def make(fixed, value_0, value_1):\n"
        "    def pick(k):\n"
        "        if k:\n"
        "            return value_0\n"
        "        return (fixed, value_1)\n"
        "    return pick\n"
    )
    pick = em.build("<test>", "pick", fixed="f")
    assert pick(True) is one and pick(False) == ("f", other)
    with pytest.raises(AssertionError):
        em.build("<test>", "pick")  # every fixed parameter must be given


def test_model_text_enters_only_as_a_literal() -> None:
    em = codegen.Emitter()
    hostile = "x'); import os; ('"
    with em.block("def name():"):
        em.line(f"return {em.literal(hostile)}")
    assert em.build("<test>", "name")() == hostile


def _package() -> tuple[EPackage, Any]:
    pkg = EPackage("cg", nsURI="http://cfmodel.example/cg", nsPrefix="cg")
    c = EClass("C")
    c.eStructuralFeatures += [EAttribute("s", EString), EAttribute("i", EInt)]
    pkg.eClassifiers.append(c)
    return pkg, c


def test_a_value_stored_around_pyecore_is_an_explicit_doubt() -> None:
    _pkg, c = _package()
    obj = c(s="x", i=1)
    obj.__dict__["s"] = "raw"  # no holder: the generated heads do not read it themselves
    objects = list(canonical.walk([obj]))
    assert writer.Writer([obj], {}, objects).document(checked=True) is None
    assert b's="raw" i="1"' in xmi.to_bytes([obj])  # the unchecked heads read it through PyEcore


def test_errors_from_python_are_not_taken_for_doubt(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug (here: a literal function that raises TypeError) surfaces; it is not
    swallowed as a reason to take another path."""
    _pkg, c = _package()
    obj = c(s="x", i=1)

    def broken(*_: Any) -> str:
        raise TypeError("a bug")

    monkeypatch.setattr(heads, "_checked_literal", broken)
    obj.__dict__["i"]._value = 2**40  # out of EInt's range: the checked literal is called
    with pytest.raises(TypeError, match="a bug"):
        writer.Writer([obj], {}, [obj]).document(checked=True)
