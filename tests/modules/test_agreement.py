"""The CI part of the real-module corpus: a representative set of cases, both compilers.

The cases (`CI_CASES`): the projects of ``tests/modules/projects/`` and, from each pinned
module's own tests, a few models (std's plugins, templates, types and references; fs,
apt, yum, config). Each is compiled by inmanta-core 20.1 and by cfmodel (`tests.modules.agreement`);
the verdict per case (``agree``: same instances and same exported resources;
``instances``: same instances only; ``verdict``: both fail, or both compile with other
instances; ``differ``; ``traceback``) must be the one recorded in ``expected.txt``, so
progress shows as a reviewed change of that file (``pytest --update-golden`` rewrites it)
and a regression fails. No case may show a traceback. The whole corpus:
``scripts/modules_agreement.py``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail
from tests.modules import agreement, corpus

EXPECTED = Path(__file__).parent / "expected.txt"
CI_CASES = (
    "apt/test_model::test_repository",
    "config/test_basics::test_json",
    "exec/test_exec::test_return_codes",
    "fs/test_model::test_resources",
    "fs/test_file::test_list_files",
    "std/test_plugins::test_select_attr",
    "std/test_plugins::test_prefixlen",
    "std/test_plugins::test_json",
    "std/test_template::test_template",
    "std/test_types::test_attribute_types[6]",
    "std/test_types::test_attribute_types[7]",
    "std/test_types::test_attribute_types[50]",
    "std/test_types::test_attribute_types[51]",
    "std/test_plugins::test_ipindex[2]",
    "std/test_mutables::test_mutable_string",
    "std/test_agentconfig::test_agent_config_uri",
    "std/test_unknown::test_is_unknown_should_be_true",
    "std/test_get_attribute::test_get_attribute",
    "std/test_reference::test_references_resource",
    "std/test_reference::test_fact_references",
    "std/test_reference::test_references_in_plugins",
    "std/test_reference::test_references_in_jinja",
    "yum/test_model::test_packages",
)


@pytest.fixture(scope="module")
def outcomes() -> list[agreement.Outcome]:
    try:
        cases = [c for c in corpus.module_cases().cases if c.name in CI_CASES] + corpus.project_cases()
        return agreement.run(cases)
    except corpus.CorpusError as error:
        skip_or_fail(f"the module corpus could not be set up: {error}")
        raise


def test_every_ci_case_exists(outcomes: list[agreement.Outcome]) -> None:
    names = {o.case.name for o in outcomes}
    assert sorted(set(CI_CASES) - names) == []


def test_no_traceback(outcomes: list[agreement.Outcome]) -> None:
    assert [o.case.name for o in outcomes if o.traceback] == []


def test_verdicts_are_the_recorded_ones(outcomes: list[agreement.Outcome], update_golden: bool) -> None:
    got = "".join(f"{o.verdict:10} {o.case.name}\n" for o in sorted(outcomes, key=lambda o: o.case.name))
    if update_golden:
        EXPECTED.write_text(got, encoding="utf-8")
    print(agreement.table(outcomes))
    assert got == EXPECTED.read_text(encoding="utf-8")


def test_the_corpus_runs_where_inmanta_core_is_installed(outcomes: list[agreement.Outcome]) -> None:
    """cfmodel's side has the modules pip-installed with their dependencies: inmanta-core is
    importable there, and module code still runs on cfmodel's own ``inmanta`` API."""
    python = corpus.cfmodel_python()
    where = "import importlib.util; print(importlib.util.find_spec('inmanta').origin)"
    done = subprocess.run([str(python), "-c", where], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().endswith("site-packages/inmanta/__init__.py"), done.stderr
    assert [o.case.name for o in outcomes if o.theirs["ok"] and o.verdict != "agree"] == []
