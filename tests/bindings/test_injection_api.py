"""The injector's API for the compiler: ``std::inject``, constructor parameters, variables, classes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from cfmodel.errors import CfEvaluationError
from cfmodel.transforms.bindings.compose import ComposeOptions, Injector, TypeValue, Value, cf_type

Build = Callable[..., Injector]

BINDINGS = """bindings default {
  bind "port" to 8080
  bind "names" to ['a', 'b']
  bind "settings" to { 'tls' => true }
  bind String, "greeting" to "hello"
  bind std::Host, "primary" to std::Host['web1']
  bind parameters std::Host to { os => 'linux', ram => 4 }
  bind parameters std::Host['web1'] to { ram => 16 }
  bind parameters std::Host['db1'] to Db::Server['db1']
  bind parameters std::Host['db2'] to optional Db::Server['db2']
  bind parameters std::Host['db3'] to Db::Server['db3'] { map => { ram => memory } }
  bind map std::Host to Db::Config { os => system }
  bind parameters std::Host['db4'] to Db::Config['c']
  bind parameters std::File to { mode => 420 }
  bind variables to { dc => 'ams', racks => [1, 2] }
  include [ntp, ssh]
}"""


@pytest.fixture
def injector(build: Build) -> Injector:
    return build(BINDINGS)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("port",), 8080),
        (("Integer", "port"), 8080),
        (("int", "port"), 8080),
        (("number", "port"), 8080),
        (("string[]", "names"), ["a", "b"]),
        (("list", "names"), ["a", "b"]),
        (("dict", "settings"), {"tls": True}),
        (("string", "greeting"), "hello"),
        (("string?", "nothing"), None),
    ],
)
def test_inject_by_name_and_by_type(injector: Injector, args: tuple[str, ...], expected: Value) -> None:
    assert injector.inject(*args) == expected


def test_inject_with_a_default_and_errors(injector: Injector) -> None:
    assert injector.inject("string", "nothing", default="fallback") == "fallback"
    assert injector.inject("nothing", default=None) is None
    with pytest.raises(CfEvaluationError) as missing:
        injector.inject("int", "nothing")
    assert missing.value.render() == 'error: no binding for Data "nothing"  [not-bound]'
    with pytest.raises(CfEvaluationError) as wrong:
        injector.inject("string[]", "port")
    assert wrong.value.render() == 'error: Data "port" is Integer 8080, not Array[String]  [type-mismatch]'


def test_inject_an_entity_reference(injector: Injector) -> None:
    assert injector.inject("std::Host", "primary") == TypeValue(cf_type("std::Host[web1]")[0])


def test_cf_types() -> None:
    assert [str(cf_type(t)[0]) for t in ("int[]", "string?", "dict", "Hash[String, Data]")] == [
        "Array[Integer]",
        "String",
        "Hash",
        "Hash[String, Data]",
    ]
    assert cf_type("string?")[1] and not cf_type("string")[1]


HOST = ["name", "os", "ram", "memory", "system"]
INSTANCES: Mapping[str, Mapping[str, Value]] = {
    "Db::Server[db1]": {"ram": 64, "os": "bsd", "cores": 8},
    "Db::Server[db3]": {"memory": 128},
    "Db::Config[c]": {"system": "solaris", "ram": 1},
}


def find(ref: TypeValue) -> Mapping[str, Value] | None:
    return INSTANCES.get(str(ref))


@pytest.mark.parametrize(
    ("keys", "given", "expected"),
    [
        ((), (), {"os": "linux", "ram": 4}),  # the entity's own bindings
        (("web1",), (), {"ram": 16, "os": "linux"}),  # the instance's binding first
        (("web1",), ("ram",), {"os": "linux"}),  # what the constructor gave is never injected
        (("nope", "web1"), (), {"ram": 16, "os": "linux"}),  # the first key with a binding
        (("db1",), (), {"ram": 64, "os": "bsd"}),  # a source: attributes of the same name
        (("db2",), (), {"os": "linux", "ram": 4}),  # an optional source that is not there
        (("db3",), (), {"ram": 128, "os": "linux"}),  # the binding's own map
        (("db4",), (), {"os": "solaris", "ram": 4}),  # the map bound for the two types
    ],
)
def test_instance_parameters(
    injector: Injector, keys: tuple[str, ...], given: tuple[str, ...], expected: dict[str, Value]
) -> None:
    assert injector.instance_parameters("std::Host", HOST, given=given, keys=keys, instance=find) == expected


def test_instance_parameter_errors(build: Build) -> None:
    injector = build(BINDINGS)
    with pytest.raises(CfEvaluationError) as unknown:
        injector.instance_parameters("std::File", ["path", "owner"])
    assert unknown.value.render() == (
        'l0.bind:14:34: error: std::File has no attribute "mode" to bind '
        '(bound by bindings default, layer "layer0", category common)  [unknown-parameter]'
    )
    with pytest.raises(CfEvaluationError) as missing:
        injector.instance_parameters("std::Host", HOST, keys=["db1"], instance=lambda ref: None)
    assert missing.value.render() == (
        "l0.bind:9:3: error: Db::Server[db1] is bound as the parameters of std::Host[db1], "
        "but there is no Db::Server[db1]  [parameter-source-missing]"
    )
    with pytest.raises(CfEvaluationError) as unmapped:
        injector.instance_parameters("std::Host", ["name"], keys=["db1"], instance=find)
    assert unmapped.value.render() == (
        "l0.bind:9:3: error: the parameters of std::Host[db1] are bound to Db::Server[db1], but no "
        "attribute has the same name in both: bind a map (bind map std::Host to Db::Server { ... }) "
        "or give one ({ map => { ... } })  [map-required]"
    )


def test_variables_and_classes(injector: Injector) -> None:
    assert injector.variables() == {"dc": "ams", "racks": [1, 2]}
    assert injector.variable("dc") == "ams"
    assert injector.classes() == ["ntp", "ssh"]
    assert injector.inject("/classes") == ["ntp", "ssh"]


def test_abstract_and_typed_variables(errors_of: Callable[..., str]) -> None:
    text = """bindings a {
  bind abstract variables Array[String] to ['admins', 'must_be_set']
  bind variables Integer to { a => 10, b => 'bananas' }
}"""
    value = 'bindings b {\n  bind variables to { admins => "root" }\n}'
    assert errors_of(value, text) == "\n".join(
        [
            'l0.bind:2:23: error: type mismatch for Data "/var/admins": expected Array[String], got String '
            "'root' (bindings b, layer \"layer0\", category common)  [type-mismatch]",
            'l1.bind:2:45: note: Data "/var/admins" is declared Array[String] here',
            'l1.bind:2:55: error: a concrete binding must be provided for Data "/var/must_be_set": it is '
            'abstract (bindings a, layer "layer1", category common)  [abstract-not-bound]',
            "l1.bind:3:40: error: type mismatch for Data \"/var/b\": expected Integer, got String 'bananas' "
            '(bindings a, layer "layer1", category common)  [type-mismatch]',
        ]
    )


def test_std_inject_through_the_compiler(tmp_path: Path) -> None:
    """``std::inject`` in a ``.cf`` model, answered by a project's injector (the compiler's hook)."""
    from cfmodel.pipeline import compile_project
    from cfmodel.transforms.bindings.providers import create_injector

    (tmp_path / "bindings").mkdir()
    (tmp_path / "bindings" / "default.bind").write_text(
        'bindings default {\n  bind "size" to 42\n  bind "ports" to [80, 443]\n}\n', encoding="utf-8"
    )
    (tmp_path / "main.cf").write_text(
        "entity Box:\n  string label\n  int size\nend\nimplement Box using std::none\n"
        'Box(label="{{p}}-{{g}}", size=s)\n'
        's = std::inject("size")\np = std::inject("int[]", "ports")\n'
        'g = std::inject("string", "greeting", "fallback")\n',
        encoding="utf-8",
    )
    result = compile_project(tmp_path, injector=create_injector(tmp_path, {}))
    assert result.dump() == '#0 __config__::Box\n  label = "[80, 443]-fallback"\n  size = 42\n'


# ---------------------------------------------------------------------- Entity[key]: keys as values

KEYED = """bindings default {
  bind parameters std::Host['a,b'] to { ram => 1 }
  bind parameters std::Host['a', 'b'] to { ram => 2 }
  bind parameters std::Host['x]'] to { ram => 3 }
  bind parameters std::Host["it's"] to { ram => 4 }
  bind parameters std::Host['"q"'] to { ram => 5 }
  bind parameters std::Host['web', 'example.com'] to { ram => 6, os => 'bsd' }
  bind parameters std::Host[web] to { ram => 7, os => 'linux', name => 'w' }
  bind parameters std::Host['a, b'] to { ram => 8 }
  bind parameters std::Host['Äpfel', 53] to { ram => 9 }
  bind parameters std::Host['%2C', '/'] to { ram => 10 }
}"""


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["a,b"], {"ram": 1}),  # one value with a comma
        ([("a", "b")], {"ram": 2}),  # two values
        (["a, b"], {"ram": 8}),
        (["x]"], {"ram": 3}),
        (["it's"], {"ram": 4}),
        (['"q"'], {"ram": 5}),
        ([("Äpfel", "53")], {"ram": 9}),
        ([("%2C", "/")], {"ram": 10}),
        ([("a,b",)], {"ram": 1}),  # a tuple of one title is that title
        (["a", "b", ("b", "a"), ("a,b", ""), "'a,b'", "%2C", "Host[web]"], {}),  # no such key
        ([("web", "example.com"), "web"], {"ram": 6, "os": "bsd", "name": "w"}),  # first key first
        (["web", ("web", "example.com")], {"ram": 7, "os": "linux", "name": "w"}),  # in the order given
        ([["web", "example.com"]], {"ram": 6, "os": "bsd"}),  # any sequence of titles
    ],
)
def test_instance_keys_match_titles_one_for_one(
    build: Build, keys: list[str | tuple[str, ...]], expected: dict[str, Value]
) -> None:
    assert build(KEYED).instance_parameters("std::Host", HOST, keys=keys) == expected


def test_keyed_targets_by_text_and_their_injector_names(build: Build) -> None:
    injector = build(KEYED)
    assert injector.parameters("std::Host['a,b']") == {"ram": 1}
    assert injector.parameters("std::Host['a', 'b']") == {"ram": 2}
    assert injector.parameters("std::Host[a, b]") == {"ram": 2}
    assert injector.parameters('std::Host["it\'s"]') == {"ram": 4}
    assert injector.parameters("std::Host['it\\'s']") == {"ram": 4}
    assert injector.parameters("std::Host[web, 'example.com']") == {"ram": 6, "os": "bsd"}
    assert injector.parameters("std::Host") == {}
    assert [b.key.name for b in injector.effective()] == [
        '/param/std::Host%5B"q"%5D/ram',
        "/param/std::Host%5B%252C,%2F%5D/ram",
        "/param/std::Host%5Ba%2C b%5D/ram",
        "/param/std::Host%5Ba%2Cb%5D/ram",
        "/param/std::Host%5Ba,b%5D/ram",
        "/param/std::Host%5Bit's%5D/ram",
        "/param/std::Host%5Bweb%5D/name",
        "/param/std::Host%5Bweb%5D/os",
        "/param/std::Host%5Bweb%5D/ram",
        "/param/std::Host%5Bweb,example.com%5D/os",
        "/param/std::Host%5Bweb,example.com%5D/ram",
        "/param/std::Host%5Bx%5D%5D/ram",
        "/param/std::Host%5BÄpfel,53%5D/ram",
    ]


def test_an_unknown_attribute_of_a_keyed_target(build: Build) -> None:
    injector = build(KEYED)
    with pytest.raises(CfEvaluationError) as unknown:
        injector.instance_parameters("std::Host", ["name"], keys=[("web", "example.com")])
    assert unknown.value.render() == (
        'l0.bind:7:56: error: std::Host[web, example.com] has no attribute "ram" to bind '
        '(bound by bindings default, layer "layer0", category common)  [unknown-parameter]'
    )
    with pytest.raises(CfEvaluationError) as quoted:
        injector.instance_parameters("std::Host", ["name"], keys=["x]"])
    assert quoted.value.render() == (
        "l0.bind:4:40: error: std::Host['x]'] has no attribute \"ram\" to bind "
        '(bound by bindings default, layer "layer0", category common)  [unknown-parameter]'
    )


# ---------------------------------------------------------------------- custom producers as parameter sources

PRODUCED = """bindings default {
  bind parameters std::Host['p1'] to producer 'hostparams' { producer_args => { 'ram' => 12 } }
  bind parameters std::Host['p2'] to producer 'config'
  bind parameters std::Host['p3'] to optional producer 'nothing'
  bind parameters std::Host['p4'] to producer 'nothing'
  bind parameters std::Host['p5'] to producer 'text'
  bind parameters std::Host['p6'] to producer 'colours'
  bind parameters std::Host['p7'] to producer 'colours' { map => { os => colour } }
  bind parameters std::Host['p8'] to producer 'empty'
  bind map std::Host to Db::Config { os => system }
}"""


def _producers(calls: list[Mapping[str, Value]]) -> ComposeOptions:
    def hostparams(args: Mapping[str, Value]) -> Value:
        calls.append(args)
        return {"ram": args["ram"] + len(calls) - 1, "colour": "red"}  # a new value at each call

    return ComposeOptions(
        producers={
            "hostparams": hostparams,
            "config": lambda args: TypeValue(cf_type("Db::Config[c]")[0]),
            "nothing": lambda args: None,
            "text": lambda args: "linux",
            "colours": lambda args: {"colour": "blue"},
            "empty": lambda args: {},
        }
    )


def test_a_custom_producer_gives_parameters_at_each_lookup(build: Build) -> None:
    calls: list[Mapping[str, Value]] = []
    injector = build(PRODUCED, options=_producers(calls))
    assert injector.instance_parameters("std::Host", HOST, keys=["p1"]) == {"ram": 12}
    assert injector.instance_parameters("std::Host", HOST, keys=["p1"]) == {"ram": 13}
    assert calls == [{"ram": 12}, {"ram": 12}]
    # an instance reference: found and mapped like a bound one (`bind map` of the two types)
    assert injector.instance_parameters("std::Host", HOST, keys=["p2"], instance=find) == {"os": "solaris"}
    assert injector.instance_parameters("std::Host", HOST, keys=["p3"]) == {}  # undef, to optional
    assert injector.instance_parameters("std::Host", HOST, keys=["p7"]) == {"os": "blue"}  # the binding's map
    assert injector.instance_parameters("std::Host", HOST, keys=["p8"]) == {}  # an empty hash gives nothing
    source = next(b for b in injector.effective() if b.key.name == "/params/std::Host%5Bp1%5D/value")
    assert (source.kind, source.lazy, source.value) == ("param-source", True, None)
    assert calls == [{"ram": 12}, {"ram": 12}]  # effective() does not run producers


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            "p4",
            "l0.bind:5:3: error: the parameters of std::Host[p4] are bound to a producer that gave undef  "
            "[parameter-source-missing]",
        ),
        (
            "p5",
            "l0.bind:6:3: error: the parameters of std::Host[p5] are bound to String 'linux': a hash or an "
            "instance reference is needed  [type-mismatch]",
        ),
        (
            "p6",
            "l0.bind:7:3: error: the parameters of std::Host[p6] are bound to {'colour' => 'blue'}, but none of "
            "its names is an attribute: give a map ({ map => { ... } })  [map-required]",
        ),
    ],
)
def test_what_a_custom_producer_cannot_give(build: Build, key: str, expected: str) -> None:
    injector = build(PRODUCED, options=_producers([]))
    with pytest.raises(CfEvaluationError) as caught:
        injector.instance_parameters("std::Host", HOST, keys=[key])
    assert caught.value.render() == expected


def test_an_unknown_producer_of_parameters(errors_of: Callable[..., str]) -> None:
    assert errors_of("bindings a {\n  bind parameters std::Host to producer 'nope'\n}") == (
        'l0.bind:2:3: error: unknown producer "nope" for ParameterSource "/params/std::Host/value" '
        '(bindings a, layer "layer0", category common)  [unknown-producer]'
    )
