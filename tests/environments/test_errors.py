"""Every error of the environments file and the request sequence, with its full rendered text
(``file:line:col: error: ...  [code]``); ``{dir}`` is the project directory."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cfmodel.transforms.environments.request import EncClassifier, RequestOptions

from .conftest import Project

F = "{dir}/environments.cfenv"

# name -> (environments.cfenv text, directories to create, expected text)
CASES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "unknown-environment (from the file)": (
        "site { environment { 'staging': envdir => 's' } }\n$environment = 'qa'\n",
        ("s",),
        f"{F}:2:1: error: unknown environment 'qa' ($environment is set here to 'qa'; "
        "known: production, staging)  [unknown-environment]",
    ),
    "unknown-environment (via a fact)": (
        "$environment = $::stage\n",
        (),
        f"{F}:1:1: error: unknown environment 'blue' ($environment is set here to 'blue', "
        "the value of the fact $stage; known: production)  [unknown-environment]",
    ),
    "missing-envdir": (
        "site {\n  environment { 'staging': modulepath => 'libs' }\n}\n",
        (),
        f"{F}:2:3: error: environment 'staging' has no envdir (set it in its declaration or in the "
        "Environment defaults)  [missing-envdir]",
    ),
    "envdir-not-found": (
        "site { environment { 'staging': envdir => 'nowhere' } }\n",
        (),
        f"{F}:1:33: error: the envdir of environment 'staging' does not exist: {{dir}}/nowhere  [envdir-not-found]",
    ),
    "envdir-not-found (automatic production, from the defaults)": (
        "site { Environment { envdir => 'gone' } }\n",
        (),
        f"{F}:1:22: error: the envdir of the automatic environment 'production' does not exist: "
        "{dir}/gone  [envdir-not-found]",
    ),
    "dynamic-dir-not-found": (
        "site {\n  dynamic_environments { 'branches': }\n}\n",
        (),
        f"{F}:2:26: error: the dynamic_environments directory does not exist: {{dir}}/branches  "
        "[dynamic-dir-not-found]",
    ),
    "duplicate-environment": (
        "site {\n  environment { 'a': envdir => 'x' }\n  environment { 'a': envdir => 'y' }\n}\n",
        ("x", "y"),
        f"{F}:3:3: error: environment 'a' is declared twice  [duplicate-environment]\n"
        f"{F}:2:3: note: the first environment 'a' is here",
    ),
    "duplicate-environment (across site blocks)": (
        "site { environment { 'a': envdir => 'x' } }\nsite { environment { \"a\": envdir => 'x' } }\n",
        ("x",),
        f"{F}:2:8: error: environment 'a' is declared twice  [duplicate-environment]\n"
        f"{F}:1:8: note: the first environment 'a' is here",
    ),
    "dynamic-twice": (
        "site {\n  dynamic_environments { 'a': }\n  dynamic_environments { 'b': }\n}\n",
        ("a", "b"),
        f"{F}:3:3: error: dynamic_environments may be declared only once (environments live under one "
        "directory)  [dynamic-twice]\n"
        f"{F}:2:3: note: the first dynamic_environments is here",
    ),
    "envdir-in-dynamic": (
        "site { dynamic_environments { 'b': envdir => 'x' } }\n",
        ("b",),
        f"{F}:1:36: error: a dynamic environment's envdir is its own directory; it cannot be set  "
        "[envdir-in-dynamic]",
    ),
    "defaults-twice": (
        "site {\n  Environment { main => 'a.cf' }\n  Environment { main => 'b.cf' }\n}\n",
        (),
        f"{F}:3:3: error: Environment defaults may be declared only once  [defaults-twice]\n"
        f"{F}:2:3: note: the first Environment defaults are here",
    ),
    "unknown-parameter (the seed's name)": (
        "site { Environment { manifest => 'site.pp' } }\n",
        (),
        f"{F}:1:22: error: unknown environment parameter 'manifest' (cfmodel calls the seed's 'manifest' "
        "'main'); known: envdir, modulepath, maindir, main, bindingsdir, templatedir  [unknown-parameter]",
    ),
    "unknown-parameter": (
        "site { Environment { colour => 'red' } }\n",
        (),
        f"{F}:1:22: error: unknown environment parameter 'colour'; known: envdir, modulepath, maindir, "
        "main, bindingsdir, templatedir  [unknown-parameter]",
    ),
    "duplicate-parameter": (
        "site { Environment {\n  main => 'a.cf',\n  main => 'b.cf'\n} }\n",
        (),
        f"{F}:3:3: error: the parameter 'main' is set twice  [duplicate-parameter]\n"
        f"{F}:2:3: note: 'main' is first set here",
    ),
    "bad-parameter": (
        "site { Environment { modulepath => [1, 'libs'], main => true } }\n",
        (),
        f"{F}:1:22: error: 'modulepath' must be a String or an Array of Strings (a path), not Array "
        "[1, 'libs']  [bad-parameter]\n"
        f"{F}:1:49: error: 'main' must be a String (a path), not Boolean true  [bad-parameter]",
    ),
    "bad-title": (
        "site { environment { '': envdir => 'x' } }\nsite { dynamic_environments { 3: } }\n",
        ("x",),
        f"{F}:1:22: error: the title must be an environment's name (a non-empty String), not String ''  "
        "[bad-title]\n"
        f"{F}:2:31: error: the title must be a directory (a non-empty String), not Integer 3  [bad-title]",
    ),
    "bad-environment": (
        "$environment = ['a']\n",
        (),
        f"{F}:1:1: error: $environment must be a String, not Array ['a']  [bad-environment]",
    ),
    "assign-read-only": (
        "$fqdn = 'x'\n$agent_environment = 'y'\n$confdir = '/'\n",
        (),
        f"{F}:1:1: error: cannot assign $fqdn: it is a fact and read-only here  [assign-read-only]\n"
        f"{F}:2:1: error: cannot assign $agent_environment: it is set by cfmodel and read-only here  "
        "[assign-read-only]\n"
        f"{F}:3:1: error: cannot assign $confdir: it is set by cfmodel and read-only here  [assign-read-only]",
    ),
    "reassigned": (
        "$environment = 'production'\nif true { $environment = 'staging' }\n",
        (),
        f"{F}:2:11: error: $environment is already assigned (a variable is assigned once)  [reassigned]\n"
        f"{F}:1:1: note: $environment was assigned here",
    ),
    "unknown-statement": (
        "join(['a'], ',')\n",
        (),
        f"{F}:1:1: error: join() cannot be a statement (only fail(), notice(), warning() can; values "
        "belong in assignments)  [unknown-statement]",
    ),
    "fail": (
        "if $::fqdn =~ /^test/ { fail('test machines have no environment:', $::fqdn) }\n$environment = 'x'\n",
        (),
        f"{F}:1:25: error: test machines have no environment: test1  [fail]",
    ),
    "expression-error": (
        "$x = 1 + 'a'\n$y = 'a'\nif $y in 3 { }\n",
        (),
        f"{F}:1:6: error: cannot compute Integer 1 + String 'a'  [expression-error]\n"
        f"{F}:3:4: error: 'in' needs an Array, a Hash or a String on the right, not Integer 3  "
        "[expression-error]",
    ),
    "several errors at once, sorted": (
        "site {\n  environment { 'b': }\n  environment { 'a': envdir => 'nowhere' }\n}\n$fqdn = 1\n",
        (),
        f"{F}:2:3: error: environment 'b' has no envdir (set it in its declaration or in the Environment "
        "defaults)  [missing-envdir]\n"
        f"{F}:3:22: error: the envdir of environment 'a' does not exist: {{dir}}/nowhere  [envdir-not-found]\n"
        f"{F}:5:1: error: cannot assign $fqdn: it is a fact and read-only here  [assign-read-only]",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_error_text(project: Project, name: str) -> None:
    text, dirs, expected = CASES[name]
    project.env_dir(*dirs).envs(text)
    facts = {"fqdn": "test1", "stage": "blue"}
    assert project.errors(lambda: project.run(facts)) == expected


SYNTAX: dict[str, tuple[str, str]] = {
    "syntax (missing value)": (
        "site { environment { 'a': envdir => } }\n",
        f"{F}:1:37: error: unexpected '}}' (expected an expression)  [syntax]",
    ),
    "syntax (unknown declaration)": (
        "site { categories { node => true } }\n",
        f"{F}:1:8: error: unexpected 'categories' (expected 'Environment', 'environment', "
        "'dynamic_environments' or '}}')  [syntax]",
    ),
    "syntax (end of file)": (
        "if $x { $y = 1 }\nelsif",
        f"{F}:2:6: error: unexpected end of file (expected an expression)  [syntax]",
    ),
    "bad-regex": (
        "case $x {\n  /(unclosed/: { }\n}\n",
        f"{F}:2:3: error: invalid regular expression /(unclosed/: missing ), unterminated subpattern at "
        "position 0  [bad-regex]",
    ),
    "assign-top-scope": (
        "$::environment = 'x'\n",
        f"{F}:1:1: error: cannot assign $::environment: top-scope variables (facts) are read-only here  "
        "[assign-top-scope]",
    ),
}


@pytest.mark.parametrize("name", list(SYNTAX))
def test_syntax_error_text(project: Project, name: str) -> None:
    text, expected = SYNTAX[name]
    project.envs(text)
    assert project.errors(project.evaluate) == expected.replace("{{", "{").replace("}}", "}")


def test_unreadable_file(project: Project) -> None:
    """Read as every grammar reads its files (`grammars.frontend.read_source`)."""
    (project.root / "environments.cfenv").write_bytes(b"$x = '\xff'\n")
    assert project.errors(project.evaluate) == (
        f"{F}:1:7: error: file is not valid UTF-8 text (byte 0xff cannot be decoded)  [not-utf8]"
    )
    (project.root / "environments.cfenv").unlink()
    (project.root / "environments.cfenv").mkdir()
    assert project.errors(project.evaluate) == (
        f"{F}:1:1: error: {F} is a directory, expected an environments file  [load]"
    )


def test_main_not_found(project: Project) -> None:
    project.env_dir("s", main=False).envs(
        "site { environment { 'staging': envdir => 's', main => 'site.cf' } }\n$environment = 'staging'\n"
    )
    assert project.errors(project.run) == (
        f"{F}:1:48: error: the main file of environment 'staging' does not exist: {{dir}}/s/site.cf  "
        "[main-not-found]"
    )
    (project.root / "main.cf").unlink()
    project.envs("")
    assert project.errors(project.run) == (
        "error: the main file of environment 'production' does not exist: {dir}/main.cf  [main-not-found]"
    )


def test_bad_project_settings(project: Project) -> None:
    project.env_dir("s").write({"s/project.yml": "modulepath: 3\n"})
    project.envs("site { environment { 'staging': envdir => 's' } }\n")
    assert project.errors(project.evaluate) == (
        "{dir}/s/project.yml:1:1: error: modulepath must be a path or a list of paths  [bad-project]"
    )


def test_unknown_environment_from_the_classifier(project: Project, tmp_path: object) -> None:
    enc = project.root / "enc.sh"
    enc.write_text("#!/bin/sh\necho 'environment: qa'\n", encoding="utf-8")
    enc.chmod(0o755)
    options = RequestOptions(classifier=EncClassifier([str(enc)]))
    run: Callable[[], object] = lambda: project.run({"fqdn": "web1"}, options=options)  # noqa: E731
    assert project.errors(run) == (
        "error: unknown environment 'qa' (proposed by the classifier '{dir}/enc.sh'; "
        "there is no environments.cfenv; known: production)  [unknown-environment]"
    )
    project.envs("$x = 1\n")
    assert project.errors(run) == (
        "error: unknown environment 'qa' (proposed by the classifier '{dir}/enc.sh'; "
        "kept by environments.cfenv; known: production)  [unknown-environment]"
    )


def test_classifier_failures(project: Project) -> None:
    enc = project.root / "enc.sh"
    enc.write_text("#!/bin/sh\necho 'no such node' >&2\nexit 1\n", encoding="utf-8")
    enc.chmod(0o755)
    options = RequestOptions(classifier=EncClassifier([str(enc)]))
    assert project.errors(lambda: project.run({"fqdn": "web1"}, options=options)) == (
        "error: the classifier '{dir}/enc.sh' failed: no such node  [enc-failed]"
    )
    assert project.errors(lambda: project.run({}, options=options)) == (
        "error: the classifier '{dir}/enc.sh' needs the node's name: give a fact clientcert, certname, fqdn  "
        "[enc-failed]"
    )
    enc.write_text("#!/bin/sh\necho '[a, b]'\n", encoding="utf-8")
    assert project.errors(lambda: project.run({"fqdn": "web1"}, options=options)) == (
        "<enc: {dir}/enc.sh web1>:1:1: error: the classifier's answer must be a mapping  [enc-failed]"
    )
