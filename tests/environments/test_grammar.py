"""The environments file's grammar: every construct becomes the right model object, with spans."""

from __future__ import annotations

import gc

from cfmodel.grammars.environments import parse_str
from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel import environments as em

SEED_EXAMPLE = """\
site {
  Environment {
    modulepath => 'modules/dist:modules/site:/opt/puppet/share/puppet/modules',
  }
  dynamic_environments { "$confdir/environments": }
  environment { 'production':
    envdir     => "$confdir/master",
    modulepath => '$confdir/modules:modules/site:modules/dist',
  }
}
$environment = 'production'
"""


def test_the_seeds_example_parses() -> None:
    parsed = parse_str(SEED_EXAMPLE, "environments.cfenv")
    site, assignment = parsed.root.statements
    defaults, dynamic, production = site.declarations
    assert [d.eClass.name for d in site.declarations] == [
        "EnvironmentDefaults",
        "DynamicEnvironments",
        "EnvironmentDeclaration",
    ]
    assert [p.name for p in defaults.parameters] == ["modulepath"]
    assert dynamic.title.eClass is bm.InterpolatedString
    assert production.title.value == "production"
    assert [p.name for p in production.parameters] == ["envdir", "modulepath"]
    # single quotes do not interpolate: '$confdir/modules' stays as written (as in Puppet)
    assert production.parameters[1].value.value == "$confdir/modules:modules/site:modules/dist"
    assert (assignment.variable, assignment.value.value) == ("environment", "production")
    span = parsed.spans.get(production)
    assert (span.line, span.col, span.end_line) == (6, 3, 9)
    assert parsed.spans.get(production.parameters[0]).start() == "environments.cfenv:7:5"


def test_statements() -> None:
    text = """\
$tier = if $::fqdn == 'db1' { 'gold' } else { 'silver' }
if $a =~ /^x\\/y/ and $b in ['q', 'r'] or ($c and !$d) {
  $environment = 'one'
} elsif $e !~ /z/ {
  $environment = 'two'
} else {
  notice('none of them', $e)
}
unless $f { warning('no f') }
case $::fqdn {
  /^stage-/, 'other': { $environment = 'staging' }
  default: { }
}
"""
    root = parse_str(text, "e").root
    tier, if_stmt, unless, case = root.statements
    assert tier.value.eClass is bm.Conditional
    assert if_stmt.condition.eClass is em.AnyCondition
    first, second = if_stmt.condition.operands
    assert [o.eClass.name for o in first.operands] == ["MatchCondition", "InCondition"]
    assert first.operands[0].pattern == "^x/y"
    assert second.eClass is em.AllConditions
    assert [o.eClass.name for o in second.operands] == ["ExpressionCondition", "ExpressionCondition"]
    elsif = if_stmt.otherwise[0]
    assert elsif.eClass is em.IfStatement and elsif.condition.negated
    assert [s.eClass.name for s in elsif.otherwise] == ["CallStatement"]
    assert (elsif.otherwise[0].function, len(elsif.otherwise[0].args)) == ("notice", 2)
    assert unless.unless and unless.then[0].function == "warning"
    values = case.options[0].values
    assert [v.eClass.name for v in values] == ["RegexValue", "ExpressionValue"]
    assert values[0].pattern == "^stage-"
    assert case.options[1].values[0].eClass is em.DefaultValue and not case.options[1].body


def test_comments_are_skipped_but_not_inside_strings_or_regexes() -> None:
    text = "# a comment\n/* a\n block */ $x = '# not a comment' # but this is\ncase $x { /#/: { $y = 1 } }\n"
    root = parse_str(text, "e").root
    assignment, case = root.statements
    assert assignment.value.value == "# not a comment"
    assert case.options[0].values[0].pattern == "#"


def test_every_expression_has_a_span() -> None:
    parsed = parse_str(SEED_EXAMPLE, "e")
    missing = [o.eClass.name for o in parsed.root.eAllContents() if parsed.spans.get(o) is None]
    assert missing == []


def test_the_collector_is_back_on_after_parsing() -> None:
    assert gc.isenabled()
    parse_str(SEED_EXAMPLE, "e")
    assert gc.isenabled()


def test_a_large_file_parses_quickly() -> None:
    decls = "\n".join(
        f"  environment {{ 'e{i}': envdir => 'e{i}', modulepath => ['libs', '../shared'] }}"
        for i in range(500)
    )
    text = f"site {{\n{decls}\n}}\n" + "\n".join(
        f"if $::fqdn == 'n{i}' {{ $v{i} = {i} }}" for i in range(500)
    )
    root = parse_str(text, "e").root
    assert len(root.statements[0].declarations) == 500 and len(root.statements) == 501
