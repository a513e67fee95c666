"""The bindings grammar: every construct parses into the metamodel, syntax errors render."""

from __future__ import annotations

import pytest

from cfmodel.errors import CfSyntaxError
from cfmodel.grammars.bindings import parse_str
from cfmodel.metamodel import bindings as bm

SAMPLE = """\
bindings windows::default {
  bind abstract "the meaning of life"
  bind override "the meaning of life" to 42
  bind abstract override "x"
  bind final Integer, "mymodule::size" to 42
  bind Type[Logger] to Type[SpecialLogger]
  bind class ntp to class ntp2
  when virtual true or node 'kermit' and env 'p' { bind "c" to "$::fqdn is ${x}" }
  multibind Array[String], "names" AS "ids"
  bind to 'Mary' in 'ids'
  bind 'Fred' to ['support'] IN 'ids' { producer_args => {} }
  rebind "a"
  bind alias "a" as "b"
  bind renamed "a" as final Integer, "b"
  include ntp
  exclude [a, b::c]
  bind parameters ntp to { autoupdate => false }
  bind parameters Web[one] to optional Sql['one'] { map => { dbuser => user } }
  bind parameters Host['web', 'a,b'] to Sql["it's", 53]
  bind map Web to Sql { a => b }
  bind variables Integer to { a => 10 }
  bind abstract variables to ['must_be_set']
  bind String, "id" to producer "mymodule::uuid"
  bind String, "id2" to producer Type[Uuid] { producer_args => { 'a' => 1 } }
  bind "x" to optional undef
}
"""


def dump(obj: object, indent: str = "") -> list[str]:
    """A canonical, deterministic dump of a model object (features in metamodel order)."""
    lines = [indent + bm.class_name(obj)]
    for feature in obj.eClass.eAllStructuralFeatures():  # type: ignore[attr-defined]
        if getattr(feature, "containment", True) is False:
            continue
        value = obj.eGet(feature)  # type: ignore[attr-defined]
        if feature.many:
            value = list(value)
            if not value:
                continue
            if hasattr(value[0], "eClass"):
                lines.append(f"{indent}  {feature.name}:")
                for item in value:
                    lines.extend(dump(item, indent + "    "))
            else:
                lines.append(f"{indent}  {feature.name}: {value}")
        elif type(value).__name__ == "EEnumLiteral":
            lines.append(f"{indent}  {feature.name}: {value.name!r}")
        elif hasattr(value, "eClass"):
            lines.append(f"{indent}  {feature.name}:")
            lines.extend(dump(value, indent + "    "))
        elif value not in (None, False, ""):
            lines.append(f"{indent}  {feature.name}: {value!r}")
    return lines


def test_every_construct_parses_into_the_metamodel() -> None:
    parsed = parse_str(SAMPLE, "windows/default.bind")
    (named,) = parsed.named_bindings
    assert named.name == "windows::default"
    kinds = [bm.class_name(e) for e in named.elements]
    assert kinds == (
        ["Binding"] * 6
        + ["CategorizedBindings", "Multibinding", "Binding", "Binding", "Rebinding", "Rebinding", "Rebinding"]
        + ["ClassesBinding"] * 2
        + ["ParametersBinding"] * 3
        + ["ParameterMapBinding", "VariablesBinding", "VariablesBinding"]
        + ["Binding"] * 3
    )
    for element in named.elements:
        assert parsed.spans.get(element) is not None


def test_dump_of_bindings() -> None:
    text = """bindings a {
  bind final Integer, "size" to 42
  when virtual true or node 'kermit' and env 'p' { bind "c" to "$::fqdn!" }
  bind renamed "a" as Integer, "b"
  bind parameters Web[one] to optional Sql['one'] { map => { dbuser => user } }
  multibind Hash[String, Data], 'h' { combinator => |$k, $c, $v| { if !$c { $v } else { $c + $v } } }
}"""
    (named,) = parse_str(text, "a.bind").named_bindings
    assert "\n".join(dump(named)) == EXPECTED_DUMP


EXPECTED_DUMP = """\
NamedBindings
  name: 'a'
  elements:
    Binding
      key:
        Key
          type:
            TypeRef
              name: 'Integer'
          name: 'size'
      producer:
        ConstantProducer
          value:
            IntegerLiteral
              value: 42
      final: True
    CategorizedBindings
      predicate:
        AnyOf
          operands:
            CategoryTest
              category: 'virtual'
              value:
                BooleanLiteral
                  value: True
            AllOf
              operands:
                CategoryTest
                  category: 'node'
                  value:
                    StringLiteral
                      value: 'kermit'
                CategoryTest
                  category: 'env'
                  value:
                    StringLiteral
                      value: 'p'
      elements:
        Binding
          key:
            Key
              name: 'c'
          producer:
            ConstantProducer
              value:
                InterpolatedString
                  parts:
                    VariableRef
                      name: 'fqdn'
                    StringLiteral
                      value: '!'
    Rebinding
      kind: 'renamed'
      source:
        Key
          name: 'a'
      target:
        Key
          type:
            TypeRef
              name: 'Integer'
          name: 'b'
    ParametersBinding
      target:
        TypeRef
          name: 'Web'
          title: 'one'
      producer:
        TypeProducer
          type:
            TypeRef
              name: 'Sql'
              title: 'one'
      optional: True
      options:
        Option
          name: 'map'
          value:
            HashLiteral
              entries:
                HashEntry
                  key:
                    StringLiteral
                      value: 'dbuser'
                      bare: True
                  value:
                    StringLiteral
                      value: 'user'
                      bare: True
    Multibinding
      key:
        Key
          type:
            TypeRef
              name: 'Hash'
              args:
                TypeRef
                  name: 'String'
                TypeRef
                  name: 'Data'
          name: 'h'
      multibindId: 'h'
      options:
        Option
          name: 'combinator'
          value:
            Lambda
              parameters: ['k', 'c', 'v']
              body:
                Conditional
                  condition:
                    NotOp
                      operand:
                        VariableRef
                          name: 'c'
                  then:
                    VariableRef
                      name: 'v'
                  otherwise:
                    BinaryOp
                      op: '+'
                      left:
                        VariableRef
                          name: 'c'
                      right:
                        VariableRef
                          name: 'v'"""


def test_site_declaration() -> None:
    text = """site {
  categories { node => "$::fqdn", environment => true, virtual => "$::is_virtual", }
  bindings => [
    layer { 'site': include => "confdir:/default" },
    { 'modules': include => ["confdir:/**", 'confdir:/x/*'], exclude => 'confdir:/bad' },
  ]
}"""
    parsed = parse_str(text, "site.bind")
    (site,) = parsed.sites
    assert [c.name for c in site.categories[0].entries] == ["node", "environment", "virtual"]
    layers = [(layer.name, list(layer.include), list(layer.exclude)) for layer in site.layers]
    assert layers == [
        ("site", ["confdir:/default"], []),
        ("modules", ["confdir:/**", "confdir:/x/*"], ["confdir:/bad"]),
    ]
    assert parsed.spans.get(site.layers[1]).start() == "site.bind:5:5"  # type: ignore[union-attr]


def test_spans_are_one_based_with_exclusive_end() -> None:
    parsed = parse_str('bindings a {\n  bind "x" to 42\n}', "a.bind")
    binding = parsed.named_bindings[0].elements[0]
    assert str(parsed.spans.get(binding)) == "a.bind:2:3-2:17"
    assert str(parsed.spans.get(binding.key)) == "a.bind:2:8-2:11"


SYNTAX_ERRORS = [
    (
        "bindings x {\n  bind 3\n}",
        "f.bind:2:8: error: unexpected '3' (expected 'abstract', 'override', 'final', a string, 'class', "
        "a type name, 'to', 'in', '{', 'alias', 'renamed', 'parameters', 'map' or 'variables')  [syntax]",
    ),
    (
        'bindings x { bind "a" to }',
        "f.bind:1:26: error: unexpected '}' (expected 'optional', 'producer', 'class', a type name "
        "or an expression)  [syntax]",
    ),
    (
        "bindings x {",
        "f.bind:1:13: error: unexpected end of file (expected 'bind', 'when', 'multibind', 'rebind', "
        "'include', 'exclude' or '}')  [syntax]",
    ),
    ("bindings X {}", "f.bind:1:10: error: unexpected 'X' (expected a name)  [syntax]"),
    (
        "bindings x { when node 'a' 'b' { } }",
        "f.bind:1:28: error: unexpected \"'b'\" (expected 'and', 'or' or '{')  [syntax]",
    ),
    (
        "site { categories { node => } }",
        "f.bind:1:29: error: unexpected '}' (expected an expression)  [syntax]",
    ),
]


CATEGORY_TESTS_WITHOUT_VALUE = [
    (
        "bindings x { when node { } }",
        "f.bind:1:19: error: the category test 'node' needs a value, as in: when node 'value' { … }  [syntax]",
    ),
    (
        "bindings x { when common { } }",
        "f.bind:1:19: error: 'common' cannot be used in 'when': it is the implicit category of every binding "
        "outside a 'when' (the lowest precedence); write those bindings directly in the bindings block  "
        "[common-in-when]",
    ),
    (
        "bindings x { when virtual true and common { } }",
        "f.bind:1:36: error: 'common' cannot be used in 'when': it is the implicit category of every binding "
        "outside a 'when' (the lowest precedence); write those bindings directly in the bindings block  "
        "[common-in-when]",
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), CATEGORY_TESTS_WITHOUT_VALUE, ids=["node", "common", "and-common"]
)
def test_a_category_test_without_value_says_why(text: str, expected: str) -> None:
    with pytest.raises(CfSyntaxError) as caught:
        parse_str(text, "f.bind")
    assert caught.value.render() == expected


@pytest.mark.parametrize(
    ("text", "expected"), SYNTAX_ERRORS, ids=[f"syntax-{i}" for i in range(len(SYNTAX_ERRORS))]
)
def test_syntax_errors_render_with_position_and_expectation(text: str, expected: str) -> None:
    with pytest.raises(CfSyntaxError) as caught:
        parse_str(text, "f.bind")
    assert caught.value.render() == expected
    assert caught.value.__cause__ is not None


def test_comments_are_blanked_and_positions_stay_exact() -> None:
    text = "# a comment with 'quotes' and bind\nbindings a { /* block\n comment */ bind \"x#y\" to '/*z*/' # tail\n}"
    parsed = parse_str(text, "c.bind")
    binding = parsed.named_bindings[0].elements[0]
    assert (binding.key.name, binding.producer.value.value) == ("x#y", "/*z*/")
    assert str(parsed.spans.get(binding)) == "c.bind:3:13-3:34"


def test_namespaced_entity_types_and_instances() -> None:
    text = """bindings a {
  bind parameters std::Host to { os => 'linux' }
  bind parameters my::mod::Web['w 1'] to Db::Server['one']
  bind std::Host, "primary" to std::Host['web1']
  bind parameters apache::server to { port => 80 }
}"""
    elements = parse_str(text, "a.bind").named_bindings[0].elements
    targets = [(e.target.name, e.target.title) for e in elements if bm.class_name(e) == "ParametersBinding"]
    assert targets == [("std::Host", None), ("my::mod::Web", "w 1"), ("Class", "apache::server")]
    assert (elements[2].key.type.name, elements[2].producer.type.title) == ("std::Host", "web1")


def test_instance_titles_one_or_several() -> None:
    text = """bindings a {
  bind parameters Host['a,b'] to Db['x]']
  bind parameters Host['web', "it's", 53, bare] to Db['"q"', 'Äpfel']
  bind parameters Host[Web] to { a => 1 }
}"""
    elements = parse_str(text, "a.bind").named_bindings[0].elements
    refs = [ref for e in elements for ref in (e.target, getattr(e.producer, "type", None)) if ref is not None]
    assert [(r.name, r.title, list(r.titles), [a.name for a in r.args]) for r in refs] == [
        ("Host", "a,b", [], []),
        ("Db", "x]", [], []),
        ("Host", None, ["web", "it's", "53", "bare"], []),
        ("Db", None, ['"q"', "Äpfel"], []),
        ("Host", None, [], ["Web"]),  # a capital name is a type argument, not a title
    ]


def test_operators_bind_as_usual() -> None:
    value = parse_str('bindings a { bind "x" to 1 + 2 == 3 - !$y }', "a.bind").named_bindings[0].elements[0]
    expr = value.producer.value
    assert (expr.op, expr.left.op, expr.right.op, bm.class_name(expr.right.right)) == (
        "==",
        "+",
        "-",
        "NotOp",
    )


def test_only_names_can_be_called() -> None:
    with pytest.raises(CfSyntaxError) as caught:
        parse_str('bindings a {\n  bind "x" to "f"(1)\n}', "a.bind")
    assert (
        caught.value.render()
        == 'a.bind:2:15: error: "f" cannot be called (only a function name can)  [syntax]'
    )


def test_the_docs_list_the_grammar_verbatim() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    docs = (root / "docs" / "bindings.md").read_text(encoding="utf-8")
    grammar = (root / "cfmodel" / "grammars" / "bindings.tx").read_text(encoding="utf-8")
    listed = docs.split("## The grammar (`cfmodel/grammars/bindings.tx`, verbatim)\n\n```\n", 1)[1]
    assert listed.rsplit("```", 1)[0] == grammar
