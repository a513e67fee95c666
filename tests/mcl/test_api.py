"""The Python API: ``cfmodel.mcl.compile``, unified types per expression, the function API
(signatures with unification variables, BuildableFunc, InferableFunc, streams) and user kinds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyecore.ecore import EAttribute, EClass, ELong, EPackage, EString

from cfmodel.errors import CfModelError
from cfmodel.grammars import mcl_nodes as n
from cfmodel.mcl import compile_str
from cfmodel.metamodel.mcl_kinds import Kind, builtin_kinds, kinds_from_package, kinds_package
from cfmodel.transforms.mcl.core import core_library
from cfmodel.transforms.mcl.funcs import Function, InferError, World, pure
from cfmodel.transforms.mcl.to_graph import graph_text
from cfmodel.transforms.mcl.types import FuncOf, parse_type


def test_types_are_inspectable_per_expression() -> None:
    compiled = compile_str('$l = ["a",]\n$m = {"k" => $l,}\ntest "t" { slicestring => $m["k"], }\n')
    bind = compiled.program.statements[1]
    assert isinstance(bind, n.Bind)
    assert str(compiled.type_of(bind.value)) == "map{str: []str}"


def test_signature_strings_with_unification_variables() -> None:
    sig = parse_type("func(a ?1, b ?2, foo []?3) ?1", {})
    assert isinstance(sig, FuncOf)
    assert str(sig.args[0][1]) == str(sig.result)
    assert str(parse_type("func(x map{str: []int}, s struct{a int; b str}) bool")) == (
        "func(x map{str: []int}, s struct{a int; b str}) bool"
    )


def _library_with(*functions: Function) -> dict[str, Function]:
    library = core_library()
    library.update({f.name: f for f in functions})
    return library


def test_user_function_with_unification_variables_and_build_step() -> None:
    seen: list[str] = []

    def build(sig: FuncOf) -> str | None:
        seen.append(str(sig))
        return None if str(sig.result) in ("int", "float") else f"twice works on numbers, not {sig.result}"

    twice = Function("twice", "func(x ?1) ?1", pure(lambda x: x * 2), build=build)
    compiled = compile_str('test "t" { int => twice(21), }\n', library=_library_with(twice))
    assert compiled.graph.resources["test[t]"].attributes["int"] == 42
    assert seen == ["func(x int) int"]
    with pytest.raises(CfModelError) as info:
        compile_str('test "t" { str => twice("a"), }\n', library=_library_with(twice))
    assert info.value.code == "mcl-unify-build"
    assert info.value.message == "twice works on numbers, not str"


def test_inferable_function_makes_its_signature_from_the_call() -> None:
    def infer(values: list[object]) -> str:
        if not values:
            raise InferError("count needs arguments")
        return "func(" + ", ".join(f"a{i} ?{i + 1}" for i in range(len(values))) + ") int"

    count = Function("count", None, pure(lambda *args: len(args)), infer=infer)
    compiled = compile_str('test "t" { int => count(1, "a", true), }\n', library=_library_with(count))
    assert compiled.graph.resources["test[t]"].attributes["int"] == 3
    with pytest.raises(CfModelError) as info:
        compile_str('test "t" { int => count(), }\n', library=_library_with(count))
    assert (info.value.code, info.value.message) == ("mcl-unify-infer", "count needs arguments")


def test_streams_give_their_first_value() -> None:
    def ticks(world: World) -> Iterator[int]:
        yield 1
        yield 2  # later values of the stream: the engine would update; the graph takes the first

    compiled = compile_str(
        'test "t" { int => ticks(), }\n', library=_library_with(Function("ticks", "func() int", ticks))
    )
    assert compiled.graph.resources["test[t]"].attributes["int"] == 1


def test_a_stream_without_values_is_a_runtime_error() -> None:
    def empty(world: World) -> Iterator[int]:
        yield from ()

    with pytest.raises(CfModelError) as info:
        compile_str(
            'test "t" { int => none(), }\n', library=_library_with(Function("none", "func() int", empty))
        )
    assert (info.value.code, info.value.message) == ("mcl-runtime", "none produced no value")


def test_user_kinds_are_checked_like_builtin_ones() -> None:
    kinds = {"web:site": Kind("web:site", {"port": "int"})}
    compiled = compile_str(
        'web:site "w" { port => 80, }\nWeb:Site["w"] -> Test["t"]\ntest "t" {}\n', kinds=kinds
    )
    assert (
        graph_text(compiled.graph) == "Edge: web:site[w] -> test[t]\nVertex: test[t]\nVertex: web:site[w]\n"
    )
    with pytest.raises(CfModelError) as info:
        compile_str('web:site "w" { port => "80", }\n', kinds=kinds)
    assert info.value.code == "mcl-unify-conflict"


def test_kinds_metamodel_declares_each_kind_with_typed_fields() -> None:
    package = kinds_package()
    names = {c.name for c in package.eClassifiers}
    assert {
        "Resource",
        "File",
        "Exec",
        "Pkg",
        "Svc",
        "Print",
        "Test",
        "Noop",
        "Msg",
        "User",
        "Group",
        "Timer",
        "Kv",
    } <= names
    file_class = next(c for c in package.eClassifiers if c.name == "File")
    features = {f.name: f for f in file_class.eStructuralFeatures}
    assert features["content"].eType.name == "EString"
    assert features["fragments"].upperBound == -1
    assert features["mode"].eAnnotations[0].details["type"] == "str"
    assert set(builtin_kinds()) >= {
        "file",
        "exec",
        "pkg",
        "svc",
        "print",
        "test",
        "noop",
        "msg",
        "user",
        "group",
        "timer",
        "kv",
    }


def test_kinds_read_back_from_their_package() -> None:
    kinds = kinds_from_package(kinds_package())
    builtin = builtin_kinds()
    assert sorted(kinds) == sorted(builtin)
    assert all(
        kinds[n].fields == builtin[n].fields and kinds[n].defaults == builtin[n].defaults for n in builtin
    )


def test_user_kinds_from_an_ecore_package() -> None:
    package = EPackage("mine", nsURI="http://example.org/mine", nsPrefix="mine")
    site = EClass("Web_Site")
    site.eStructuralFeatures.append(EAttribute("port", ELong))
    site.eStructuralFeatures.append(EAttribute("aliases", EString, upper=-1))
    package.eClassifiers.append(site)
    kinds = kinds_from_package(package)
    assert kinds["web:site"].fields == {"port": "int", "aliases": "[]str"}
    compiled = compile_str('web:site "w" { port => 8080, aliases => ["x",], }\n', kinds=kinds)
    assert compiled.graph.resources["web:site[w]"].attributes == {"port": 8080, "aliases": ["x"]}
