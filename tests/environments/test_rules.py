"""Every rule of the seed about environments (seeds/004: "Request Sequence", "The following
rules apply", "Environment from Agents", "Integration with existing ENC"), one test each.
The seed's text is quoted in each docstring."""

from __future__ import annotations

import os
from pathlib import Path

from cfmodel.transforms.environments.environments import EnvironmentKind, SourceKind
from cfmodel.transforms.environments.request import Classification, RequestOptions, StaticClassifier

from .conftest import Project


def test_no_file_defines_production_automatically(project: Project) -> None:
    """Seed: "If environments.pp is absent, a default "production" environment is automatically
    defined." and "If the entry point manifest is not present, the environment defaults to
    production"; "the execution delegates to the site.pp in the same location as the entry
    point manifest" (here: the project's main.cf)."""
    result = project.run({"fqdn": "web1"})
    assert result.environment.name == "production"
    assert result.environment.kind is EnvironmentKind.AUTOMATIC
    assert result.catalog.names() == ["production"]
    assert result.origin.kind is SourceKind.DEFAULT
    assert result.target.main == project.root / "main.cf"
    assert result.target.project_dir == project.root


def test_file_without_production_gets_one_automatically(project: Project) -> None:
    """Seed: "If environments.pp is present but does not define a "production" environment and an
    environment by the name of "production" is not available (and allowed) as a dynamic
    environment then one is automatically defined." """
    project.env_dir("stage").envs("site { environment { 'staging': envdir => 'stage' } }")
    catalog = project.evaluate().catalog
    assert catalog.names() == ["staging", "production"]
    assert catalog.environments["production"].kind is EnvironmentKind.AUTOMATIC
    assert catalog.environments["production"].envdir == project.root


def test_declared_production_is_not_replaced(project: Project) -> None:
    project.env_dir("prod").envs("site { environment { 'production': envdir => 'prod' } }")
    env = project.run().environment
    assert (env.kind, env.envdir) == (EnvironmentKind.STATIC, project.root / "prod")


def test_dynamic_production_is_used_instead_of_an_automatic_one(project: Project) -> None:
    project.env_dir("branches/production").envs("site { dynamic_environments { 'branches': } }")
    env = project.run().environment
    assert (env.kind, env.envdir) == (EnvironmentKind.DYNAMIC, project.root / "branches" / "production")


def test_environment_not_set_at_the_end_is_production(project: Project) -> None:
    """Seed: "If execution reaches the end of the environments.pp and $environment has not been
    defined, it is set to "production"." (undef counts as not defined)"""
    project.env_dir("stage").envs(
        "site { environment { 'staging': envdir => 'stage' } }\n$tier = 'x'\n"
        "if $::fqdn == 'nobody' { $environment = 'staging' }\n"
    )
    assert project.run({"fqdn": "web1"}).environment.name == "production"
    assert project.run({"fqdn": "nobody"}).environment.name == "staging"
    project.envs("site { environment { 'staging': envdir => 'stage' } }\n$environment = $agent_environment\n")
    result = project.run()
    assert result.environment.name == "production"
    assert result.origin.kind is SourceKind.DEFAULT and result.origin.span is not None


def test_file_sets_environment_from_facts(project: Project) -> None:
    """Seed: "The entry point manifest can set $environment" and "Facts and secure data have been
    bound to variables when evaluation of environments.pp starts" ($::x and $x alike)."""
    project.env_dir("stage").envs(
        "site { environment { 'staging': envdir => 'stage' } }\n"
        "case $::fqdn {\n  /^stage-/: { $environment = 'staging' }\n  default: { $environment = $role }\n}\n"
    )
    assert project.run({"fqdn": "stage-1"}).environment.name == "staging"
    assert project.run({"fqdn": "web1", "role": "production"}).environment.name == "production"
    result = project.run({"fqdn": "stage-2"})
    assert (result.origin.kind, result.origin.span and result.origin.span.line) == (SourceKind.FILE, 3)


def test_restriction_on_names_is_lifted(project: Project) -> None:
    """Seed: "Restriction on environment names is lifted" """
    project.env_dir("a", "branches/feature-2.1+x").envs(
        "site {\n  environment { 'Ünïcode env 1.2/x': envdir => 'a' }\n  dynamic_environments { 'branches': }\n}\n"
        "$environment = $agent_environment\n"
    )
    assert project.run(agent="Ünïcode env 1.2/x").environment.name == "Ünïcode env 1.2/x"
    assert project.run(agent="feature-2.1+x").environment.name == "feature-2.1+x"


def test_any_number_of_environments_static_and_dynamic(project: Project) -> None:
    """Seed: "Any number of environments may be used; statically declared or (if enabled)
    dynamically placed under one directory" """
    names = [f"e{i}" for i in range(12)]
    project.env_dir(*names, "branches/b1", "branches/b2", "branches/.git")
    decls = "\n".join(f"  environment {{ '{n}': envdir => '{n}' }}" for n in names)
    project.envs(f"site {{\n{decls}\n  dynamic_environments {{ 'branches': }}\n}}\n")
    catalog = project.evaluate().catalog
    assert catalog.names() == [*names, "production", "b1", "b2"]  # hidden directories are not environments
    assert catalog.environments["b1"].kind is EnvironmentKind.DYNAMIC


def test_dynamic_environments_are_the_subdirectories(project: Project) -> None:
    """Seed: "A dynamic_environments environments resource may be defined with a title of an
    absolute directory path. This allows dynamic environments to be used and specifies that
    additional environments are available in its sub-directories named after the environment
    they represent." (a branch checked out there becomes an environment)"""
    envs = project.root.parent / "checkouts"
    (envs / "test36").mkdir(parents=True)
    (envs / "test36" / "main.cf").write_text("x = 1\n", encoding="utf-8")
    (envs / "not-a-dir").write_text("", encoding="utf-8")
    project.envs(f"site {{ dynamic_environments {{ '{envs}': }} }}\n$environment = $agent_environment\n")
    env = project.run(agent="test36").environment
    assert (env.name, env.kind, env.envdir) == ("test36", EnvironmentKind.DYNAMIC, envs / "test36")
    assert project.evaluate().catalog.names() == ["production", "test36"]
    (envs / "test37").mkdir()  # a new checkout: the next request sees it
    assert project.evaluate().catalog.names() == ["production", "test36", "test37"]


def test_dynamic_environments_from_confdir_variable(project: Project) -> None:
    """The seed's own example: dynamic_environments { "$confdir/environments": }"""
    project.env_dir("environments/test36").envs(
        "site { dynamic_environments { \"$confdir/environments\": } }\n$environment = 'test36'\n"
    )
    assert project.run().environment.envdir == project.root / "environments" / "test36"


def test_unknown_environment_stops_processing(project: Project) -> None:
    """Seed: "If $environment is set to a value other than one of the statically-defined
    environments in environments.pp, or (if allowed) a subdirectory of
    dynamic_environments, an error is raised ("unknown environment") and processing stops." """
    project.env_dir("branches/a").envs("site { dynamic_environments { 'branches': } }\n$environment = 'b'\n")
    assert project.errors(project.run) == (
        "{dir}/environments.cfenv:2:1: error: unknown environment 'b' ($environment is set here to 'b'; "
        "known: a, production)  [unknown-environment]"
    )


def test_envdir_must_be_set_for_static_or_from_defaults(project: Project) -> None:
    """Seed: "the envdir parameter is determined; it must be explicitly set in a statically
    environment (or set from Environment defaults), and it is automatically set when
    $environment is successfully resolved to a dynamic environment." """
    project.env_dir("shared", "branches/b").envs(
        "site {\n  Environment { envdir => 'shared' }\n  environment { 'a': }\n"
        "  dynamic_environments { 'branches': }\n}\n"
    )
    catalog = project.evaluate().catalog
    assert catalog.environments["a"].envdir == project.root / "shared"
    assert catalog.environments["production"].envdir == project.root / "shared"
    assert catalog.environments["b"].envdir == project.root / "branches" / "b"


def test_main_resolved_against_maindir_then_envdir(project: Project) -> None:
    """Seed: "Then $manifest is resolved against the selected environment resource (relative paths
    resolved against envdir)" and "A relative path in manifest is however first resolved
    against manifestdir which in turn is resolved against envdir if relative." """
    project.env_dir("e1", "e2", "e3", main=False).write(
        {"e1/main.cf": "", "e2/manifests/site.cf": "", "e3/other.cf": ""}
    )
    project.envs(
        "site {\n  environment { 'e1': envdir => 'e1' }\n"
        "  environment { 'e2': envdir => 'e2', maindir => 'manifests', main => 'site.cf' }\n"
        "  environment { 'e3': envdir => 'e3', main => 'other.cf' }\n}\n"
        "$environment = $agent_environment\n"
    )
    assert project.run(agent="e1").target.main == project.root / "e1" / "main.cf"
    assert project.run(agent="e2").target.main == project.root / "e2" / "manifests" / "site.cf"
    assert project.run(agent="e3").target.main == project.root / "e3" / "other.cf"


def test_modulepath_resolved_against_envdir(project: Project) -> None:
    """Seed: "The $modulepath is resolved against the selected environment resource (relative paths
    resolved against envdir)"; several entries, as an Array or a colon-separated String."""
    project.env_dir("e1", "e2").envs(
        "site {\n  environment { 'e1': envdir => 'e1', modulepath => ['libs', '../shared'] }\n"
        f"  environment {{ 'e2': envdir => 'e2', modulepath => 'libs{os.pathsep}vendor' }}\n}}\n"
        "$environment = $agent_environment\n"
    )
    assert project.run(agent="e1").target.module_path == (
        project.root / "e1" / "libs",
        project.root / "shared",
    )
    assert project.run(agent="e2").target.module_path == (
        project.root / "e2" / "libs",
        project.root / "e2" / "vendor",
    )


def test_absolute_paths_remain_absolute(project: Project, tmp_path: Path) -> None:
    """Seed: "(Absolute paths remain absolute)." """
    outside = tmp_path / "elsewhere"
    (outside / "manifests").mkdir(parents=True)
    (outside / "manifests" / "main.cf").write_text("", encoding="utf-8")
    project.envs(
        f"site {{ environment {{ 'production': envdir => '{outside}', modulepath => ['/opt/modules', 'libs'],\n"
        f"  maindir => '{outside}/manifests', bindingsdir => '/srv/bindings', templatedir => '/srv/t' }} }}\n"
    )
    env = project.run().environment
    assert env.envdir == outside
    assert env.module_path == (Path("/opt/modules"), outside / "libs")
    assert (env.main, env.bindings_dir, env.template_dir) == (
        outside / "manifests" / "main.cf",
        Path("/srv/bindings"),
        Path("/srv/t"),
    )


def test_defaults_and_derived_values(project: Project) -> None:
    """Seed: "Environments incorporate Environment resource-defaults from environments.pp in
    addition to default puppet values for all parameters derived from puppet.conf" (here:
    the environment's project.yml gives the default module path)."""
    project.env_dir("e1", "e2", "branches/b").write(
        {"e2/project.yml": "name: two\nmodulepath: [mods, ../common]\n"}
    )
    project.envs(
        "site {\n  Environment { templatedir => 'tpl' }\n"
        "  environment { 'e1': envdir => 'e1', templatedir => 'own' }\n"
        "  environment { 'e2': envdir => 'e2' }\n"
        "  dynamic_environments { 'branches': bindingsdir => 'binds' }\n}\n"
    )
    envs = project.evaluate().catalog.environments
    e1, e2, b = envs["e1"], envs["e2"], envs["b"]
    assert (e1.template_dir, e2.template_dir, b.template_dir) == (
        project.root / "e1" / "own",
        project.root / "e2" / "tpl",
        project.root / "branches" / "b" / "tpl",
    )
    assert e1.module_path == (project.root / "e1" / "libs",)  # no project.yml: cfmodel's default
    assert e2.module_path == (project.root / "e2" / "mods", project.root / "common")
    assert (e1.bindings_dir, b.bindings_dir) == (
        project.root / "e1" / "bindings",
        project.root / "branches" / "b" / "binds",
    )
    assert e1.main == project.root / "e1" / "main.cf"


def test_parameter_values_are_expressions_without_injection(project: Project) -> None:
    """Seed: "The RHS parameter values may be any non top level puppet expression (just as for
    regular resources), but may not use injection" and "Only functionality available in
    puppet core may be used": expressions work, no lookup function exists."""
    project.env_dir("dc-ams").envs(
        "site { environment { 'production': envdir => \"dc-${::dc}\",\n"
        "  modulepath => if $::dc == 'ams' { ['libs'] + ['extra'] } else { 'libs' } } }\n"
    )
    env = project.run({"dc": "ams"}).environment
    assert env.module_path == (project.root / "dc-ams" / "libs", project.root / "dc-ams" / "extra")
    project.envs("site { environment { 'production': envdir => lookup('dir') } }\n")
    assert 'unknown function "lookup"' in project.errors(project.evaluate)


def test_variables_other_than_environment_stay_local(project: Project) -> None:
    """Seed: "With the exception of $environment, any variables set in environments.pp are set in a
    local scope not visible to the rest of the system." """
    project.write({"site.bind": 'site { categories { tier => "$tier", role => "$::role" } }'})
    project.envs("$tier = 'gold'\n$environment = 'production'\n")
    result = project.run({"role": "web"})
    assert "tier" not in result.target.facts
    assert dict(result.target.facts) == {"role": "web", "environment": "production"}
    values = {c.name: c.value for c in result.categories}
    assert (values["tier"], values["role"]) == (None, "web")


def test_other_expressions_for_common_definitions(project: Project) -> None:
    """Seed: "The environments.pp may contain other puppet expressions - the use case is to support
    data manipulation, common definitions reused in several environment specifications" """
    project.env_dir("e/a", "e/b").envs(
        '$base = "$confdir/e"\n$mods = [\'libs\', "$confdir/shared"]\n'
        "site {\n  environment { 'a': envdir => \"$base/a\", modulepath => $mods }\n"
        "  environment { 'b': envdir => \"$base/b\", modulepath => $mods + ['more'] }\n}\n"
    )
    envs = project.evaluate().catalog.environments
    assert envs["a"].module_path == (project.root / "e" / "a" / "libs", project.root / "shared")
    assert envs["b"].module_path[-1] == project.root / "e" / "b" / "more"


def test_file_is_reread_on_every_request(project: Project) -> None:
    """Seed: "environments.pp is reevaluated on each request (if changed) as the master would
    otherwise need to be restarted." """
    project.env_dir("s").envs("site { environment { 'staging': envdir => 's' } }\n$environment = 'staging'\n")
    assert project.run().environment.name == "staging"
    project.envs("site { environment { 'staging': envdir => 's' } }\n")
    assert project.run().environment.name == "production"
    (project.root / "environments.cfenv").unlink()
    assert project.run().catalog.names() == ["production"]


def test_agent_environment_is_ignored_by_default(project: Project) -> None:
    """Seed: "The --environment flag is by default ignored from agents." and "the environment set
    on an agent does not automatically become the $environment that will be used" """
    project.env_dir("s").envs("site { environment { 'staging': envdir => 's' } }\n")
    result = project.run(agent="staging")
    assert result.environment.name == "production"
    assert [w.render() for w in result.warnings] == [
        "warning: the requested environment 'staging' (--environment) was not selected: "
        "environments.cfenv does not set $environment, so the default is 'production'  [environment-not-applied]"
    ]
    (project.root / "environments.cfenv").unlink()
    assert project.run(agent="staging").environment.name == "production"


def test_agent_environment_is_available_to_the_logic(project: Project) -> None:
    """Seed: "the environment set using --environment on an agent should be made available when
    evaluating environments.pp under a different name e.g. $agent_environment. If
    --environment has not been specified, the value of $agent_environment is undef." """
    project.env_dir("s").envs(
        "site { environment { 'staging': envdir => 's' } }\n"
        "$environment = if $agent_environment { $agent_environment } else { 'staging' }\n"
        "unless $agent_environment in ['staging', 'production'] { fail('no such environment:', $agent_environment) }\n"
    )
    assert project.run(agent="production").environment.name == "production"
    assert project.errors(lambda: project.run(agent="qa")) == (
        "{dir}/environments.cfenv:3:58: error: no such environment: qa  [fail]"
    )
    project.envs(
        "site { environment { 'staging': envdir => 's' } }\n"
        "$environment = if $agent_environment { $agent_environment } else { 'staging' }\n"
    )
    assert project.run().environment.name == "staging"


def test_environment_fact_is_renamed_to_agent_environment(project: Project) -> None:
    """Seed: "The $environment variable if set is renamed to $agent_environment (it is unsafe in
    its current form)" """
    project.env_dir("s").envs(
        "site { environment { 'staging': envdir => 's' } }\n$seen = $agent_environment\n"
    )
    result = project.run({"environment": "staging"})
    assert result.environment.name == "production"
    assert result.agent_environment == "staging"
    assert result.target.facts["environment"] == "production"
    assert result.warnings[0].message.startswith(
        "the requested environment 'staging' (the fact 'environment')"
    )


def test_classifier_proposes_and_the_file_decides(project: Project) -> None:
    """ENC: "the ENC provided data that are of value during the evaluation of environments.pp
    are bound to corresponding variables (e.g. any given top scope variables, $classes, and
    $environment)... It is thus possible to refer to the ENC set top scope variables and
    $environment or set them to a new value." """
    project.env_dir("s", "q")
    enc = StaticClassifier({"web1": Classification("staging", ("ntp",), {}, {"tier": "qa"})}, name="enc")
    options = RequestOptions(classifier=enc)
    project.envs("site { environment { 'staging': envdir => 's' }\n  environment { 'qa': envdir => 'q' } }\n")
    result = project.run({"fqdn": "web1"}, options=options)
    assert (result.environment.name, result.origin.kind) == ("staging", SourceKind.CLASSIFIER)
    project.envs(
        "site { environment { 'staging': envdir => 's' }\n  environment { 'qa': envdir => 'q' } }\n"
        "if 'ntp' in $classes and $environment == 'staging' { $environment = $tier }\n"
    )
    result = project.run({"fqdn": "web1"}, options=options)
    assert (result.environment.name, result.origin.kind) == ("qa", SourceKind.FILE)
    assert "tier" not in result.target.facts  # the ENC's variables are the enc: provider's business
    assert project.run({"fqdn": "web2"}, options=options).environment.name == "production"


def test_environment_category_is_always_the_selected_environment(project: Project) -> None:
    """Categories: "The environment category always evaluates to $environment (this can not
    be changed)." - the selected one, never the agent's or a fact's."""
    project.env_dir("s").envs("site { environment { 'staging': envdir => 's' } }\n$environment = 'staging'\n")
    result = project.run({"environment": "production", "fqdn": "web1"})
    values = {c.name: c.value for c in result.categories}
    assert values == {"node": "web1", "environment": "staging", "common": "true"}


def test_environment_declarations_are_not_in_the_catalog(project: Project) -> None:
    """Seed: "Environment resources are not placed in the catalog." - nothing of the declarations
    reaches the compiler's facts or the injector."""
    project.env_dir("s").write({"s/bindings/default.bind": 'bindings default { bind "x" to 1 }'})
    project.envs("site { environment { 'staging': envdir => 's' } }\n$environment = 'staging'\n")
    result = project.run()
    assert dict(result.target.facts) == {"environment": "staging"}
    assert result.injector.lookup("x") == 1
    assert "staging" not in result.injector and "envdir" not in result.injector
