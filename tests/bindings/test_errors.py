"""Every composition error, with its full rendered text (``file:line:col: error: ...  [code]``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

CASES: dict[str, tuple[dict[str, Any], str]] = {
    "categories-twice": (
        {
            "layers": ['bindings a { bind "x" to 1 }'],
            "site": 'site {\n  categories { virtual => true }\n}\nsite {\n  categories { rack => "r1" }\n}',
        },
        "\n".join(
            [
                "site.bind:5:3: error: categories may only be declared once  [categories-twice]",
                "site.bind:2:3: note: the first categories declaration is here",
            ]
        ),
    ),
    "category-twice": (
        {
            "layers": ['bindings a { bind "x" to 1 }'],
            "site": 'site { categories {\n  rack => "r1",\n  rack => "r2"\n} }',
        },
        "\n".join(
            [
                'site.bind:3:3: error: the category "rack" is declared twice  [category-twice]',
            ]
        ),
    ),
    "common-declared": (
        {"layers": ['bindings a { bind "x" to 1 }'], "site": "site { categories {\n  common => true\n} }"},
        "\n".join(
            [
                'site.bind:2:3: error: the category "common" is implicit and always lowest; it must not be declared  [common-declared]',
            ]
        ),
    ),
    "environment-not-true": (
        {
            "layers": ['bindings a { bind "x" to 1 }'],
            "site": "site { categories {\n  environment => $::env\n} }",
        },
        "\n".join(
            [
                'site.bind:2:3: error: the category "environment" must be declared as true (its value is always $environment)  [environment-not-true]',
            ]
        ),
    ),
    "node-below-environment": (
        {
            "layers": ['bindings a { bind "x" to 1 }'],
            "site": "site { categories {\n  environment => true,\n  node => $::fqdn\n} }",
        },
        "\n".join(
            [
                'site.bind:3:3: error: the category "node" must have a higher precedence than "environment"  [node-below-environment]',
            ]
        ),
    ),
    "unknown-category": (
        {"layers": ["bindings a {\n  when rack 'r1' { bind \"x\" to 1 }\n}"]},
        "\n".join(
            [
                'l0.bind:2:8: error: unknown category "rack" (bindings a, layer "layer0"; the categories are: node, environment)  [unknown-category]',
            ]
        ),
    ),
    "binding-conflict": (
        {
            "layers": [
                ['bindings a {\n  bind "color" to "blue"\n}', 'bindings b {\n  bind "color" to "red"\n}']
            ]
        },
        "\n".join(
            [
                'l0_1.bind:2:3: error: conflicting bindings of Data "color" in layer "layer0", category common: bindings a and bindings b bind it at the same precedence  [binding-conflict]',
                'l0_0.bind:2:3: note: the other binding of Data "color" (bindings a) is here',
                'note: to resolve, bind Data "color" in a higher layer or a more specific category',
            ]
        ),
    ),
    "binding-conflict-or": (
        {
            "layers": [
                "bindings a {\n  when virtual true or node 'kermit' { bind \"x\" to 1 }\n  when node 'kermit' { bind \"x\" to 2 }\n}"
            ],
            "site": "site { categories { virtual => $::is_virtual } }",
            "facts": {"fqdn": "kermit", "is_virtual": True},
        },
        "\n".join(
            [
                'l0.bind:3:24: error: conflicting bindings of Data "x" in layer "layer0", category node "kermit": bindings a (branch 2 of `when virtual true or node \'kermit\'`) and bindings a bind it at the same precedence  [binding-conflict]',
                "l0.bind:2:40: note: the other binding of Data \"x\" (bindings a, branch 2 of `when virtual true or node 'kermit'`) is here",
                'note: to resolve, bind Data "x" in a higher layer or a more specific category',
            ]
        ),
    ),
    "abstract-not-bound": (
        {"layers": ['bindings default {\n  bind abstract "the meaning of life"\n}']},
        "\n".join(
            [
                'l0.bind:2:3: error: a concrete binding must be provided for Data "the meaning of life": it is abstract (bindings default, layer "layer0", category common)  [abstract-not-bound]',
            ]
        ),
    ),
    "override-nothing": (
        {
            "layers": [
                'bindings default {\n  bind override "the meaning of life" to 42\n}',
                'bindings m {\n  bind abstract "the meaning of love"\n}',
            ]
        },
        "\n".join(
            [
                'l0.bind:2:3: error: Data "the meaning of life" is declared override but overrides nothing (bindings default, layer "layer0", category common)  [override-nothing]',
                'l1.bind:2:3: error: a concrete binding must be provided for Data "the meaning of love": it is abstract (bindings m, layer "layer1", category common)  [abstract-not-bound]',
            ]
        ),
    ),
    "final-overridden": (
        {
            "layers": [
                'bindings site {\n  bind "port" to 8080\n}',
                'bindings m {\n  bind final Integer, "port" to 80\n}',
            ]
        },
        "\n".join(
            [
                'l0.bind:2:3: error: Data "port" is final in layer "layer1" but overridden (bindings site, layer "layer0", category common)  [final-overridden]',
                'l1.bind:2:3: note: the final binding (bindings m, layer "layer1", category common) is here',
            ]
        ),
    ),
    "unknown-multibind": (
        {
            "layers": [
                "bindings a {\n  multibind Array[String], \"names\" AS \"mymodule::list-of-names\"\n  bind to 'Mary' in 'mymodule::list-of-nmes'\n}"
            ]
        },
        "\n".join(
            [
                'l0.bind:3:3: error: no multibind has the id "mymodule::list-of-nmes" (bindings a, layer "layer0", category common)  [unknown-multibind]',
            ]
        ),
    ),
    "duplicate-multibind-id": (
        {
            "layers": [
                'bindings a {\n  multibind Array[String], "a" AS "ids"\n  multibind Array[String], "b" AS "ids"\n}'
            ]
        },
        "\n".join(
            [
                'l0.bind:3:3: error: the multibind id "ids" is used by Data "a" and Data "b" (bindings a, layer "layer0", category common)  [duplicate-multibind-id]',
                'l0.bind:2:3: note: the multibind Data "a" is here',
            ]
        ),
    ),
    "not-a-collection": (
        {"layers": ['bindings a {\n  multibind String, "names"\n}']},
        "\n".join(
            [
                'l0.bind:2:3: error: a multibind must bind an Array or a Hash, not String (bindings a, layer "layer0", category common)  [not-a-collection]',
            ]
        ),
    ),
    "fragment-without-name": (
        {"layers": ['bindings a {\n  multibind Hash[Data], "h" AS "id"\n  bind to 1 in "id"\n}']},
        "\n".join(
            [
                'l0.bind:3:3: error: a fragment of the Hash multibind Data "h" needs a name (bindings a, layer "layer0", category common)  [fragment-without-name]',
            ]
        ),
    ),
    "duplicate-fragment-key": (
        {
            "layers": [
                'bindings a {\n  multibind Hash[Data], "h" AS "id"\n  bind "fruits" to ["apple"] in "id"\n  bind "fruits" to ["pear"] in "id"\n}'
            ]
        },
        "\n".join(
            [
                'l0.bind:4:3: error: duplicate key "fruits" in multibind "id" (bindings a, layer "layer0", category common)  [duplicate-fragment-key]',
                'l0.bind:3:3: note: the first fragment with this key (bindings a, layer "layer0", category common) is here',
                "note: to merge the values, give the multibind a combinator",
            ]
        ),
    ),
    "rebind-missing": (
        {
            "layers": [
                'bindings a {\n  rebind "the meaning of life"\n  bind alias "the meaning of lfe" as "the meaning of love"\n}'
            ]
        },
        "\n".join(
            [
                'l0.bind:2:3: error: rebind of Data "the meaning of life": nothing of lower precedence binds Data "the meaning of life" (bindings a, layer "layer0", category common)  [rebind-missing]',
                'l0.bind:3:3: error: alias of Data "the meaning of lfe" as Data "the meaning of love": Data "the meaning of lfe" is not bound (bindings a, layer "layer0", category common)  [rebind-missing]',
            ]
        ),
    ),
    "rebind-cycle": (
        {"layers": ['bindings a {\n  bind alias "a" as "b"\n  bind alias "b" as "a"\n}']},
        "\n".join(
            [
                'l0.bind:2:3: error: rebinding cycle through Data "b" (bindings a, layer "layer0", category common)  [rebind-cycle]',
            ]
        ),
    ),
    "type-mismatch": (
        {
            "layers": [
                'bindings a {\n  bind Integer, "size" to "big"\n  bind "port" to "eighty"\n  multibind Array[String], "names"\n  bind to 3 in "names"\n}',
                'bindings b {\n  bind abstract Integer, "port"\n}',
            ]
        },
        "\n".join(
            [
                'l0.bind:2:3: error: type mismatch for Data "size": expected Integer, got String \'big\' (bindings a, layer "layer0", category common)  [type-mismatch]',
                'l0.bind:3:3: error: type mismatch for Data "port": expected Integer, got String \'eighty\' (bindings a, layer "layer0", category common)  [type-mismatch]',
                'l1.bind:2:3: note: Data "port" is declared Integer here',
                'l0.bind:5:3: error: type mismatch for a fragment of Data "names": expected String, got Integer 3 (bindings a, layer "layer0", category common)  [type-mismatch]',
            ]
        ),
    ),
    "invalid-binding": (
        {
            "layers": [
                'bindings a {\n  bind abstract "x" to 1\n  bind "y"\n  bind to 3\n  bind variables to [a]\n}'
            ]
        },
        "\n".join(
            [
                'l0.bind:2:3: error: an abstract binding cannot have a producer (remove `to ...`) (bindings a, layer "layer0", category common)  [invalid-binding]',
                'l0.bind:3:3: error: a binding needs a producer (`to <value>`) unless it is abstract (bindings a, layer "layer0", category common)  [invalid-binding]',
                "l0.bind:4:3: error: a binding without a key must contribute to a multibind (`in '<id>'`) (bindings a, layer \"layer0\", category common)  [invalid-binding]",
                'l0.bind:5:3: error: variables must be bound to a hash of names to values (bindings a, layer "layer0", category common)  [invalid-binding]',
            ]
        ),
    ),
    "reserved-name": (
        {"layers": ['bindings a {\n  bind "/classes" to 1\n}']},
        "\n".join(
            [
                'l0.bind:2:3: error: the name "/classes" is reserved: names starting with "/" belong to the injector (bindings a, layer "layer0", category common)  [reserved-name]',
            ]
        ),
    ),
    "unknown-combinator": (
        {"layers": ['bindings a {\n  multibind Array[Data], "x" { combinator => deep_merge }\n}']},
        "\n".join(
            [
                "l0.bind:2:46: error: unknown combinator 'deep_merge' for the Array multibind Data \"x\" "
                '(bindings a, layer "layer0", category common; use a lambda or one of: append, flatten, unique)  '
                "[unknown-combinator]",
            ]
        ),
    ),
    "unknown-producer": (
        {"layers": ['bindings a {\n  bind String, "id" to producer "mymodule::uuid"\n}']},
        "\n".join(
            [
                'l0.bind:2:3: error: unknown producer "mymodule::uuid" for Data "id" (bindings a, layer "layer0", category common)  [unknown-producer]',
            ]
        ),
    ),
    "expression-error": (
        {
            "layers": [
                'bindings a {\n  bind "x" to shout($::fqdn)\n  bind "y" to 1 + "a"\n  multibind Array[Data], "z" { combinator => |$m| { $m } }\n  bind to 1 in "z"\n}'
            ]
        },
        "\n".join(
            [
                'l0.bind:2:15: error: unknown function "shout" (known: deep_merge, downcase, flatten, has_key, join, keys, length, merge, size, sort, unique, upcase, values) (in the binding of Data "x", bindings a, layer "layer0", category common)  [expression-error]',
                'l0.bind:3:15: error: cannot compute Integer 1 + String \'a\' (in the binding of Data "y", bindings a, layer "layer0", category common)  [expression-error]',
                'l0.bind:4:53: error: the combinator takes 1 parameter, 2 given (in the binding of Data "z", bindings a, layer "layer0", category common)  [expression-error]',
            ]
        ),
    ),
    "expression-error-in-names": (
        {
            "layers": [
                "bindings a {\n  bind parameters ntp to { shout(1) => 2 }\n"
                "  when node 'kermit' { bind variables to { $x + 1 => 2 } }\n"
                "  bind abstract variables to [upcase(1, 2)]\n}"
            ],
            "facts": {"fqdn": "kermit"},
        },
        "\n".join(
            [
                'l0.bind:2:28: error: unknown function "shout" (known: deep_merge, downcase, flatten, has_key, join, keys, length, merge, size, sort, unique, upcase, values) (bindings a, layer "layer0", category common)  [expression-error]',
                'l0.bind:3:44: error: cannot compute undef + Integer 1 (bindings a, layer "layer0", category node "kermit")  [expression-error]',
                'l0.bind:4:31: error: upcase() cannot take Integer 1, Integer 2 (bindings a, layer "layer0", category common)  [expression-error]',
            ]
        ),
    ),
    "binding-conflict-or-nested": (
        {
            "layers": [
                "bindings a {\n"
                "  when rack 'r1' { when node 'piggy' or virtual true and node 'kermit' { bind 'y' to 1 } }\n"
                "  when rack 'r1' and virtual true and node 'kermit' { bind 'y' to 2 }\n}"
            ],
            "site": "site { categories { node => $::fqdn, rack => $::rack, virtual => $::is_virtual } }",
            "facts": {"fqdn": "kermit", "is_virtual": "true", "rack": "r1"},
        },
        "\n".join(
            [
                'l0.bind:3:55: error: conflicting bindings of Data "y" in layer "layer0", categories node "kermit" and rack "r1" and virtual "true": bindings a (branch 2 of `when node \'piggy\' or virtual true and node \'kermit\'`) and bindings a bind it at the same precedence  [binding-conflict]',
                "l0.bind:2:74: note: the other binding of Data \"y\" (bindings a, branch 2 of `when node 'piggy' or virtual true and node 'kermit'`) is here",
                'note: to resolve, bind Data "y" in a higher layer or a more specific category',
            ]
        ),
    ),
    "unknown-option": (
        {
            "layers": [
                "bindings a {\n"
                '  multibind Array[String], "names" AS "n" { combinater => flatten }\n'
                '  bind "x" to 1 { singleton => true }\n'
                "  bind parameters Web to Sql { mapp => { a => b } }\n}"
            ],
        },
        "\n".join(
            [
                'l0.bind:2:45: error: unknown option "combinater" (bindings a, layer "layer0", category common): this multibind takes combinator, knockout_prefix  [unknown-option]',
                'l0.bind:3:19: error: unknown option "singleton" (bindings a, layer "layer0", category common): this binding takes no options  [unknown-option]',
                'l0.bind:4:32: error: unknown option "mapp" (bindings a, layer "layer0", category common): this parameters binding takes map  [unknown-option]',
            ]
        ),
    ),
    "many-errors": (
        {
            "layers": [
                'bindings a {\n  bind abstract "x"\n  bind to 1 in "nothing"\n}',
                'bindings b {\n  bind override "y" to 1\n}',
            ]
        },
        "\n".join(
            [
                'l0.bind:2:3: error: a concrete binding must be provided for Data "x": it is abstract (bindings a, layer "layer0", category common)  [abstract-not-bound]',
                'l0.bind:3:3: error: no multibind has the id "nothing" (bindings a, layer "layer0", category common)  [unknown-multibind]',
                'l1.bind:2:3: error: Data "y" is declared override but overrides nothing (bindings b, layer "layer1", category common)  [override-nothing]',
            ]
        ),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_error_renders_in_full(errors_of: Callable[..., str], name: str) -> None:
    case, expected = CASES[name]
    assert errors_of(*case["layers"], site=case.get("site"), facts=case.get("facts")) == expected
