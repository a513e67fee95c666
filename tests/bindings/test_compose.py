"""Composition: the seed's examples, precedence of layers and categories, the injector API."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cfmodel.errors import CfEvaluationError, CfModelError
from cfmodel.transforms.bindings.compose import ComposeOptions, Injector, NestingRule, TypeValue, parse_type

Build = Callable[..., Injector]

SITE = """site {
  categories {
    node        => "$::fqdn",
    environment => true,
    virtual     => "$::is_virtual"
  }
}"""
KERMIT = {"fqdn": "kermit", "is_virtual": True, "environment": "production"}


def test_the_meaning_of_life(build: Build) -> None:
    modules = 'bindings mymodule::default {\n  bind abstract "the meaning of life"\n}'
    site = 'bindings default {\n  bind override "the meaning of life" to 42\n}'
    injector = build(site, modules)
    assert injector.lookup("the meaning of life") == 42
    assert injector.lookup("Integer", "the meaning of life") == 42
    assert injector.lookup("Data", "the meaning of life") == 42


def test_abstract_override_is_made_concrete_higher_up(build: Build) -> None:
    low = 'bindings low { bind "the meaning of life" to 43 }'
    middle = 'bindings middle { bind abstract override "the meaning of life" }'
    high = 'bindings high { bind "the meaning of life" to 42 }'
    assert build(high, middle, low).lookup("the meaning of life") == 42


def test_typed_and_anonymous_bindings(build: Build) -> None:
    injector = build(
        """bindings a {
  bind Integer, "mymodule::size" to 42
  bind Hash, "mymodule::stuff" to {'a' => 10, 'b' => [1,2,3]}
  bind Type[Logger] to Type[SpecialLogger]
  bind class ntp to class ntp2
  bind Type[SyntaxChecker], "xml" to Type[MyXmlSyntaxChecker]
}"""
    )
    assert injector.lookup("mymodule::size") == 42
    assert injector.lookup("Hash", "mymodule::stuff") == {"a": 10, "b": [1, 2, 3]}
    assert injector.lookup("Type[Logger]", "") == TypeValue(parse_type("Type[SpecialLogger]"))
    assert str(injector.lookup("class ntp", "")) == "Class[ntp2]"
    assert str(injector.lookup("Type[SyntaxChecker]", "xml")) == "Type[MyXmlSyntaxChecker]"


def test_lookup_not_bound_default_and_type_mismatch(build: Build) -> None:
    injector = build('bindings a { bind "x" to 42 }')
    assert injector.lookup("y", default=None) is None
    assert injector.lookup("String", "y", default="d") == "d"
    assert "x" in injector and "y" not in injector
    with pytest.raises(CfEvaluationError) as missing:
        injector.lookup("y")
    assert missing.value.render() == 'error: no binding for Data "y"  [not-bound]'
    with pytest.raises(CfEvaluationError) as wrong:
        injector.lookup("String", "x")
    assert wrong.value.render() == 'error: Data "x" is Integer 42, not String  [type-mismatch]'


def test_higher_layer_shadows_any_category_of_lower_layers(build: Build) -> None:
    site = 'bindings default { bind "color" to "green" }'
    modules = 'bindings m { when node \'kermit\' { bind "color" to "red" } }'
    assert build(site, modules, facts=KERMIT).lookup("color") == "green"


def test_category_precedence_follows_the_site_declaration(build: Build) -> None:
    text = """bindings a {
  bind "x" to "common"
  when environment 'production' { bind "x" to "environment" }
  when virtual true { bind "x" to "virtual" }
  when node 'kermit' { bind "x" to "node" }
  bind "y" to "common"
  when environment 'production' { bind "y" to "environment" }
  when virtual true { bind "y" to "virtual" }
}"""
    injector = build(text, site=SITE, facts=KERMIT)
    assert injector.lookup("x") == "node"
    assert injector.lookup("y") == "environment"  # virtual is declared below environment
    other = build(text, site=SITE, facts={"fqdn": "piggy", "is_virtual": False})
    assert other.lookup("x") == "environment"


def test_nesting_is_more_specific_but_never_reaches_the_next_category(build: Build) -> None:
    text = """bindings a {
  when virtual true { bind "x" to "virtual" when environment 'production' { bind "x" to "virtual+env" } }
  when node 'kermit' { bind "y" to "node" }
  when virtual true and environment 'production' { bind "y" to "virtual+env" }
}"""
    site = "site { categories { node => $::fqdn, virtual => $::is_virtual, environment => true } }"
    injector = build(text, site=site, facts=KERMIT)
    assert injector.lookup("x") == "virtual+env"
    assert injector.lookup("y") == "node"


def test_literal_nesting_rule_takes_the_highest_category_only(errors_of, build: Build) -> None:  # type: ignore[no-untyped-def]
    text = """bindings a {
  when virtual true { bind "x" to 1 }
  when virtual true and environment 'production' { bind "x" to 2 }
}"""
    site = "site { categories { virtual => $::is_virtual, environment => true } }"
    options = ComposeOptions(nesting=NestingRule.HIGHEST)
    assert build(text, site=site, facts=KERMIT).lookup("x") == 2
    assert errors_of(text, site=site, facts=KERMIT, options=options) == (
        'l0.bind:3:52: error: conflicting bindings of Data "x" in layer "layer0", category virtual "true": '
        "bindings a and bindings a bind it at the same precedence  [binding-conflict]\n"
        'l0.bind:2:23: note: the other binding of Data "x" (bindings a) is here\n'
        'note: to resolve, bind Data "x" in a higher layer or a more specific category'
    )


def test_or_expands_into_one_binding_per_branch(build: Build) -> None:
    text = """bindings a {
  bind "x" to "common"
  when virtual true or node 'kermit' { bind "x" to "either" }
  when environment 'production' { bind "x" to "environment" }
}"""
    assert build(text, site=SITE, facts={"fqdn": "kermit"}).lookup("x") == "either"
    assert build(text, site=SITE, facts={"is_virtual": True}).lookup("x") == "environment"
    explanation = build(text, site=SITE, facts={"is_virtual": True}).explain("x")
    assert [c.status for c in explanation.candidates] == ["not applicable", "winner", "shadowed", "shadowed"]


def test_facts_in_values_and_categories(build: Build) -> None:
    text = """bindings a {
  bind "url" to "http://$::fqdn/${path}"
  bind "env" to $environment
}"""
    injector = build(text, facts={"fqdn": "kermit", "path": "blog"})
    assert injector.lookup("url") == "http://kermit/blog"
    # ARM-8: a producer must give a value unless its binding is optional; the lookup names it
    for lookup in (lambda: injector.lookup("env"), lambda: injector.lookup("env", default="x")):
        with pytest.raises(CfEvaluationError) as caught:
            lookup()
        assert caught.value.render() == (
            'l0.bind:3:3: error: Data "env" has no value: its binding produced undef (bindings a, layer '
            '"layer0", category common); a binding must produce a value unless it is optional '
            "(bind ... to optional ...)  [produced-undef]"
        )


def test_names_multibind(build: Build) -> None:
    text = """bindings mymodule::default {
  multibind Array[String], "names" AS "mymodule::list-of-names"
  bind to 'Mary' in 'mymodule::list-of-names'
  bind to 'John' in 'mymodule::list-of-names'
  multibind Array[String], 'users' AS 'included_users'
  bind to 'anna' in 'included_users'
  bind to ['akuna', 'ries'] in 'included_users'
}"""
    injector = build(text)
    assert injector.lookup("names") == ["Mary", "John"]
    assert injector.lookup("users") == ["anna", "akuna", "ries"]


def test_names_with_data_multibind(build: Build) -> None:
    text = """bindings mymodule::default {
  multibind Hash[Data], 'names-with-data' AS 'mymodule::names-with-data'
  bind 'Mary' to 'engineering' in 'mymodule::names-with-data'
  bind 'John' to 'support' in 'mymodule::names-with-data'
  bind 'Fred' to ['support', 'sales'] in 'mymodule::names-with-data'
}"""
    assert build(text).lookup("names-with-data") == {
        "Mary": "engineering",
        "John": "support",
        "Fred": ["support", "sales"],
    }


def test_flatten_combinator_lambda(build: Build) -> None:
    text = """bindings a {
  multibind Array[Data], 'flattened-data' AS 'example' {
    combinator => |$memo, $x| { $memo + flatten($x) }
  }
  bind to [1,2,[3]] in 'example'
  bind to [4,[[5,6]]] in 'example'
}"""
    assert build(text).lookup("flattened-data") == [1, 2, 3, 4, 5, 6]


def test_merged_hash_combinator_lambda(build: Build) -> None:
    # The seed's lambda reads `unless !$current { $value } { $current + $value }`; written
    # with `if ... else` here, which is what it means.
    text = """bindings a {
  multibind Hash[Data], 'merged-hash' AS 'example' {
    combinator => | $key, $current, $value| {
      if $current { $current + $value } else { $value }
    }
  }
  bind 'fruits' to ['apple', 'orange'] in 'example'
  bind 'fruits' to ['pear', 'mango'] in 'example'
  bind 'berries' to ['strawberry', 'blueberry'] in 'example'
}"""
    injector = build(text)
    assert injector.lookup("merged-hash") == {
        "fruits": ["apple", "orange", "pear", "mango"],
        "berries": ["strawberry", "blueberry"],
    }
    assert injector.explain("merged-hash").render() == (
        "Data \"merged-hash\" = {'fruits' => ['apple', 'orange', 'pear', 'mango'], "
        "'berries' => ['strawberry', 'blueberry']}\n"
        "  layers consulted: layer0\n"
        "  categories consulted: node (n/a), environment=production, common=true\n"
        '  winner: l0.bind:2:3 multibind id "example" (bindings a, layer "layer0", category common)\n'
        "  merged: l0.bind:7:3 ['apple', 'orange'] -> {'fruits' => ['apple', 'orange']} "
        '(bindings a, layer "layer0", category common)\n'
        "  merged: l0.bind:8:3 ['pear', 'mango'] -> {'fruits' => ['apple', 'orange', 'pear', 'mango']} "
        '(bindings a, layer "layer0", category common)\n'
        "  merged: l0.bind:9:3 ['strawberry', 'blueberry'] -> {'fruits' => ['apple', 'orange', 'pear', 'mango'], "
        "'berries' => ['strawberry', 'blueberry']} (bindings a, layer \"layer0\", category common)"
    )


ARRAY = """bindings a {{
  multibind Array[Data], 'r' AS 'id' {{ combinator => {strategy} }}
  bind to [1, [2]] in 'id'
  bind to [2, 3] in 'id'
}}"""


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("append", [1, [2], 2, 3]),
        ("flatten", [1, 2, 2, 3]),
        ("unique", [1, [2], 2, 3]),
        ("'unique'", [1, [2], 2, 3]),
    ],
)
def test_named_array_strategies(build: Build, strategy: str, expected: list[object]) -> None:
    assert build(ARRAY.format(strategy=strategy)).lookup("r") == expected


HASH = """bindings a {{
  multibind Hash[Data], 'r' AS 'id' {{ combinator => {strategy}, knockout_prefix => '--' }}
  when node 'kermit' {{ bind 'k' to {{ 'a' => 1, 'n' => {{ 'x' => [1, 2] }}, '--gone' => 0 }} in 'id' }}
  bind 'k' to {{ 'b' => 2, 'gone' => 3, 'n' => {{ 'x' => [3, '--9'], 'y' => 1 }} }} in 'id'
  bind 'other' to 5 in 'id'
}}"""


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("first", {"k": {"a": 1, "n": {"x": [1, 2]}, "--gone": 0}, "other": 5}),
        ("merge", {"k": {"b": 2, "gone": 3, "n": {"x": [1, 2]}, "a": 1, "--gone": 0}, "other": 5}),
        ("deep_merge", {"k": {"b": 2, "n": {"x": [1, 2, 3, "--9"], "y": 1}, "a": 1}, "other": 5}),
    ],
)
def test_named_hash_strategies(build: Build, strategy: str, expected: dict[str, object]) -> None:
    assert build(HASH.format(strategy=strategy), facts={"fqdn": "kermit"}).lookup("r") == expected


def test_multibind_collection_order_is_layer_precedence_declaration(build: Build) -> None:
    high = "bindings h { bind to 'h1' in 'id' when node 'kermit' { bind to 'h-node' in 'id' } }"
    low = """bindings l {
  multibind Array[String], 'all' AS 'id'
  bind to 'l1' in 'id'
  when node 'kermit' { bind to 'l-node' in 'id' }
  bind to 'l2' in 'id'
}"""
    assert build(high, low, facts={"fqdn": "kermit"}).lookup("all") == ["h-node", "h1", "l-node", "l1", "l2"]


def test_overriding_a_multibind_without_its_id_drops_the_fragments(build: Build) -> None:
    high = "bindings h { multibind override Hash[Type[TypeValidatorService]], 'syntax' }"
    low = """bindings l {
  multibind Hash[Type[TypeValidatorService]], 'syntax' AS 'syntax-validators'
  bind "xml" to Type[MyXmlValidator] IN 'syntax-validators'
}"""
    assert build(high, low).lookup("syntax") == {}
    assert str(build(low).lookup("syntax")["xml"]) == "Type[MyXmlValidator]"


def test_rebind_alias_and_renamed(build: Build) -> None:
    low = 'bindings low { bind "the meaning of life" to 42 }'
    high = """bindings high {
  when node 'kermit' { rebind "the meaning of life" }
  bind alias "the meaning of life" as "the meaning of love"
  bind renamed "the meaning of life" as "the meaning of everything"
}"""
    injector = build(high, low, facts={"fqdn": "kermit"})
    assert injector.lookup("the meaning of love") == 42
    assert injector.lookup("the meaning of everything") == 42
    assert injector.lookup("the meaning of life", default="erased") == 42  # rebound higher: stays
    plain = build('bindings h { bind renamed "the meaning of life" as "new" }', low)
    assert plain.lookup("new") == 42
    assert plain.lookup("the meaning of life", default="erased") == "erased"


def test_rebind_rebinds_what_the_layers_below_produce_on_their_own(build: Build) -> None:
    """The decided reading of ARM-8's rebind (docs/bindings.md): the layers below the
    rebind's layer, composed on their own, give the value; the rebind's own layer's weaker
    bindings are not what it rebinds while a lower layer binds the key."""
    site = """bindings site {
  bind "x" to 'site common'
  when node 'kermit' { rebind "x" }
}"""
    modules = """bindings modules {
  bind "x" to 'module common'
  when node 'kermit' { bind "x" to 'module kermit' }
  when node 'piggy' { bind "x" to optional $nothing }
}"""
    assert build(site, modules, facts={"fqdn": "kermit"}).lookup("x") == "module kermit"
    assert build(site, modules, facts={"fqdn": "piggy"}).lookup("x") == "site common"  # no rebind for piggy
    # the layers below on their own: their optional binding falls through to their common one
    assert build(site.replace("'kermit'", "'piggy'"), modules, facts={"fqdn": "piggy"}).lookup("x") == (
        "module common"
    )
    # rebinds compose: a rebind over a rebind reaches the bottom layer
    top = "bindings top { when node 'kermit' { rebind \"x\" } }"
    assert build(top, site, modules, facts={"fqdn": "kermit"}).lookup("x") == "module kermit"
    # no lower layer binds it: the next weaker binding of its own layer (a lower category)
    assert build(site, facts={"fqdn": "kermit"}).lookup("x") == "site common"


def test_optional_producer_falls_through(build: Build) -> None:
    text = """bindings a {
  bind "x" to 1
  when node 'kermit' { bind "x" to optional $missing }
}"""
    assert build(text, facts={"fqdn": "kermit"}).lookup("x") == 1


def test_include_and_exclude_classes(build: Build) -> None:
    high = "bindings h { include mysql  exclude apache }"
    low = "bindings l { include [ntp, apache, mysql]  exclude [mysql, nothing] }"
    assert build(high, low).classes() == ["mysql", "ntp"]
    assert build(high, low).lookup("/classes") == ["mysql", "ntp"]


def test_parameters_maps_and_variables(build: Build) -> None:
    text = """bindings a {
  bind parameters ntp to { autoupdate => false, enable => true }
  when node 'kermit' { bind parameters ntp to { enable => false } }
  bind parameters Web[one] to Sql[one] { map => { dbuser => user } }
  bind parameters Web[two] to DbUserInfo[general]
  bind map Web to DbUserInfo { a => b }
  bind variables to { myvar => 42, my_other_var => 44 }
}"""
    declared = "bindings d { bind abstract variables Integer to ['myvar'] }"
    injector = build(text, declared, facts={"fqdn": "kermit"})
    assert injector.parameters("ntp") == {"autoupdate": False, "enable": False}
    (one,) = injector.parameter_sources("Web[one]")
    assert (str(one.source), one.map) == ("Sql[one]", {"dbuser": "user"})
    (two,) = injector.parameter_sources("Web[two]")
    assert (str(two.source), two.map) == ("DbUserInfo[general]", {"a": "b"})
    assert injector.variable("myvar") == 42
    assert injector.variable("nope", default=0) == 0


def test_custom_producers(build: Build) -> None:
    text = """bindings a {
  multibind Hash[Type], 'producers' AS 'producers'
  bind Type[Producer[String]], "mymodule::uuid" to Type[MyUUIDProducer] in "producers"
  bind String, "request-id" to producer "mymodule::uuid"
  bind String, "other-id" to producer Type[MyUUIDProducer] { producer_args => { 'prefix' => 'x-' } }
}"""
    counter = iter(range(100))
    options = ComposeOptions(
        producers={"MyUUIDProducer": lambda args: f"{args.get('prefix', '')}{next(counter)}"}
    )
    injector = build(text, options=options)
    assert injector.lookup("request-id") == "0"
    assert injector.lookup("request-id") == "1"
    assert injector.lookup("String", "other-id") == "x-2"


def test_explain_names_layers_categories_winner_and_shadowed(build: Build) -> None:
    high = "bindings h {\n  when node 'kermit' { bind \"x\" to 2 }\n}"
    low = 'bindings l {\n  bind "x" to 1\n  when node \'piggy\' { bind "x" to 3 }\n}'
    explanation = build(high, low, facts={"fqdn": "kermit"}).explain("x")
    assert explanation.winner is not None and explanation.winner.value == "2"
    assert explanation.render() == (
        'Data "x" = 2\n'
        "  layers consulted: layer0, layer1\n"
        "  categories consulted: node=kermit, environment=production, common=true\n"
        '  winner: l0.bind:2:24 bind 2 (bindings h, layer "layer0", category node "kermit")\n'
        '  not applicable: l1.bind:3:23 bind 3 (bindings l, layer "layer1", category node "piggy")\n'
        '  shadowed: l1.bind:2:3 bind 1 (bindings l, layer "layer1", category common)'
    )


@pytest.mark.parametrize(
    ("categories", "order"),
    [
        ("", ["node", "environment", "common"]),
        ("virtual => $::v", ["node", "virtual", "environment", "common"]),
        ("environment => true, virtual => $::v", ["node", "environment", "virtual", "common"]),
        ("rack => $::r, node => $::certname", ["rack", "node", "environment", "common"]),
        ("node => $::certname, environment => true, rack => $::r", ["node", "environment", "rack", "common"]),
    ],
)
def test_implicit_categories_node_first_environment_above_common(
    build: Build, categories: str, order: list[str]
) -> None:
    site = f"site {{ categories {{ {categories} }} }}" if categories else None
    injector = build('bindings a { bind "x" to 1 }', site=site, facts={"fqdn": "f", "certname": "c"})
    assert [name for name, _, _ in injector.category_values()] == order
    ranks = [rank for _, rank, _ in injector.category_values()]
    assert ranks == sorted(ranks, reverse=True) and ranks[-1] == 0
    values = {name: value for name, _, value in injector.category_values()}
    assert values["node"] == ("c" if "certname" in categories else "f")
    assert (values["environment"], values["common"]) == ("production", "true")


def test_one_preparation_serves_many_requests(build: Build) -> None:
    from cfmodel.grammars.bindings import parse_str
    from cfmodel.transforms.bindings.compose import LayerInput, prepare

    parsed = parse_str(
        "bindings a {\n  bind 'x' to 'common'\n  when node 'kermit' { bind 'x' to \"node $::fqdn\" }\n}",
        "a.bind",
    )
    prepared = prepare([LayerInput("site", parsed.named_bindings)], parsed.spans)
    kermit, piggy = prepared.injector({"fqdn": "kermit"}), prepared.injector({"fqdn": "piggy"})
    assert (kermit.lookup("x"), piggy.lookup("x")) == ("node kermit", "common")
    assert prepared.size == 2
    broken = parse_str("bindings a {\n  when rack 'r1' { bind 'x' to 1 }\n}", "b.bind")
    prepared = prepare([LayerInput("site", broken.named_bindings)], broken.spans)
    for facts in ({}, {"fqdn": "kermit"}):
        with pytest.raises(CfModelError) as caught:
            prepared.injector(facts)
        assert caught.value.render() == (
            'b.bind:2:8: error: unknown category "rack" (bindings a, layer "site"; the categories are: '
            "node, environment)  [unknown-category]"
        )


def test_operators_and_functions_in_values(build: Build) -> None:
    text = """bindings a {
  bind "sum" to 1 + 2 - 1 == 2
  bind "concat" to [1] + [2, 3] - [2]
  bind "merged" to merge({ 'a' => 1 }, { 'b' => 2 }) + { 'c' => 3 }
  bind "text" to join(sort(unique(['b', 'a', 'b'])), '-') + upcase("!x")
  bind "keys" to keys(deep_merge({ 'a' => { 'b' => 1 } }, { 'a' => { 'c' => 2 }, '--a' => 0 }, '--'))
  bind "cond" to unless $::missing { 'no fact' } else { 'fact' }
  bind "not" to !($::missing == undef)
  bind "len" to length([1, 2, 3]) + size('ab')
}"""
    injector = build(text)
    assert injector.lookup("sum") is True
    assert injector.lookup("concat") == [1, 3]
    assert injector.lookup("merged") == {"a": 1, "b": 2, "c": 3}
    assert injector.lookup("text") == "a-b!X"
    assert injector.lookup("keys") == []
    assert injector.lookup("cond") == "no fact"
    assert injector.lookup("not") is False
    assert injector.lookup("len") == 5


def test_models_built_in_code_compose_as_parsed_ones() -> None:
    """Parsed bindings are flattened when first prepared and keep it (``_flat``); PyEcore models
    (from providers, or ``ParsedBindings.root``) each time: both give the same injector and errors."""
    from cfmodel.grammars.bindings import parse_str
    from cfmodel.metamodel.bindings import SpanTable
    from cfmodel.transforms.bindings.compose import LayerInput, prepare

    text = (
        "bindings a {\n  bind 'x' to 'common'\n  when node 'kermit' or rack 'r1' { bind 'x' to \"node $::fqdn\" }\n"
        "  when node 'kermit' { when environment 'production' { bind parameters ntp to { servers => [1] } } }\n"
        "  include [ntp]\n  multibind Array[Integer], 'n'\n  bind to 2 in 'n'\n  bind abstract 'nothing' to 1\n}"
    )
    renders = []
    for ecore in (False, True):
        parsed = parse_str(text, "a.bind")
        named = parsed.root.elements if ecore else parsed.named_bindings
        spans = SpanTable()
        spans.update(parsed.spans)
        assert not hasattr(named[0], "_flat")  # parsing evaluates nothing
        prepared = prepare([LayerInput("one", named), LayerInput("two", named)], spans)
        assert hasattr(named[0], "_flat") is not ecore  # a parsed model keeps its flat form
        with pytest.raises(CfModelError) as caught:
            prepared.injector({"fqdn": "kermit"})
        entries = sorted(
            (e.key, e.kind, e.layer, e.conditions, e.score, e.order, str(e.span), e.valid, e.condition)
            for group in prepared.groups.values()
            for e in group
        )
        renders.append((caught.value.render(), entries, prepared.conditions, prepared.size))
    assert renders[0] == renders[1]
    assert 'unknown category "rack"' in renders[0][0] and "[invalid-binding]" in renders[0][0]


@pytest.mark.parametrize(
    ("text", "titles", "shown"),
    [
        ("Web[one]", ("one",), "Web[one]"),
        ("Host['a,b']", ("a,b",), "Host['a,b']"),
        ("Host['a', 'b']", ("a", "b"), "Host[a, b]"),
        ("Host[ a ,b ]", ("a", "b"), "Host[a, b]"),
        ("Host['x]']", ("x]",), "Host['x]']"),
        ('Host["it\'s"]', ("it's",), "Host['it\\'s']"),
        ('Host[\'it\\\'s\', "\\"q\\""]', ("it's", '"q"'), "Host['it\\'s', '\"q\"']"),
        ("Host['Äpfel', 53, true]", ("Äpfel", "53", "true"), "Host[Äpfel, 53, true]"),
        ("Host['A b', '']", ("A b", ""), "Host['A b', '']"),
        ("Host['Web', web]", ("Web", "web"), "Host['Web', web]"),  # Host[Web] has a type argument
        ("Array[String]", (), "Array[String]"),
        ("class ntp", ("ntp",), "Class[ntp]"),
    ],
)
def test_type_references_with_titles(text: str, titles: tuple[str, ...], shown: str) -> None:
    from cfmodel.transforms.bindings.compose.values import decode_target, encode_target

    spec = parse_type(text)
    assert (spec.titles, str(spec)) == (titles, shown)
    assert parse_type(shown) == spec  # what is shown reads back
    if not spec.args:  # a parameter target: its name and key read back from the injector's name
        assert decode_target(encode_target(spec)) == (spec.name, titles)


def test_type_references_that_cannot_be_read() -> None:
    for text in ("Host['a'", "Host[a b]", "Host['a' 'b']", "Host[]x", "[a]"):
        with pytest.raises(CfEvaluationError) as caught:
            parse_type(text)
        assert caught.value.render() == f"error: cannot read the type {text!r}  [type-syntax]"
