"""What the statements and conditions of the environments file mean (a table of cases)."""

from __future__ import annotations

import pytest

from .conftest import Project

FACTS = {"fqdn": "web1.dc2.example.com", "roles": ["web", "db"], "tags": {"tier": "gold"}, "n": 3}

# condition -> does it hold for FACTS?
CONDITIONS: dict[str, bool] = {
    "$::fqdn =~ /\\.dc2\\./": True,
    "$::fqdn =~ /^db/": False,
    "$::fqdn !~ /^db/": True,
    "$::n =~ /3/": False,  # =~ needs a String
    "$::missing =~ /.*/": False,
    "'web' in $::roles": True,
    "'mail' in $::roles": False,
    "'tier' in $::tags": True,
    "'dc2' in $::fqdn": True,
    "'x' in $::missing": False,
    "$::n == 3 and $::fqdn =~ /web/": True,
    "$::n == 4 and $::fqdn =~ /web/": False,
    "$::n == 4 or 'db' in $::roles": True,
    "($::n == 4 or $::n == 3) and !$::missing": True,
    "$::missing": False,
    "$::n": True,
    "false": False,
    "0": True,  # Puppet truth: only undef and false are false
    "''": True,
}


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_condition(project: Project, condition: str) -> None:
    project.env_dir("yes").envs(
        f"site {{ environment {{ 'yes': envdir => 'yes' }} }}\nif {condition} {{ $environment = 'yes' }}\n"
    )
    holds = project.run(FACTS).environment.name == "yes"
    assert holds is CONDITIONS[condition]


@pytest.mark.parametrize(
    ("fqdn", "expected"),
    [("db1", "databases"), ("web7", "webs"), ("lb1", "lbs"), ("other", "fallback")],
)
def test_case_order_and_default(project: Project, fqdn: str, expected: str) -> None:
    project.env_dir("databases", "webs", "lbs", "fallback").envs(
        "site {\n"
        + "".join(
            f"  environment {{ '{n}': envdir => '{n}' }}\n" for n in ("databases", "webs", "lbs", "fallback")
        )
        + "}\n"
        "case $::fqdn {\n"
        "  default: { $environment = 'fallback' }\n"  # wherever it stands, default comes last
        "  /^db/: { $environment = 'databases' }\n"
        "  /^web/, 'lb1': { $environment = if $::fqdn == 'lb1' { 'lbs' } else { 'webs' } }\n"
        "  /^web/: { fail('never reached: the first matching option wins') }\n"
        "}\n"
    )
    assert project.run({"fqdn": fqdn}).environment.name == expected


def test_unless_else_and_elsif_chain(project: Project) -> None:
    project.env_dir("a", "b", "c").envs(
        "site { environment { 'a': envdir => 'a' }\n environment { 'b': envdir => 'b' }\n"
        " environment { 'c': envdir => 'c' } }\n"
        "unless $::n == 1 { $x = 'not one' } else { $x = 'one' }\n"
        "if $::n == 1 { $environment = 'a' } elsif $::n == 2 { $environment = 'b' } "
        "elsif $x == 'not one' { $environment = 'c' }\n"
    )
    assert [project.run({"n": n}).environment.name for n in (1, 2, 3)] == ["a", "b", "c"]
