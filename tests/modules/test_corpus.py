"""How the corpus reads the models the modules' own tests compile (no download: a test file here).

A literal model is one case; an f-string of the test's ``@pytest.mark.parametrize``
parameters is one case per row (``function[row]``), the same model compiled twice in one
row (``if valid: ... else: with raises: ...``) once; anything else is counted as not
extractable.
"""

from __future__ import annotations

import ast
import textwrap

from tests.modules.corpus import _compile_calls

TEST_FILE = '''
import pytest

def test_literal(project):
    project.compile("x = 1")

@pytest.mark.parametrize("kind, value, valid", [("string", '"a"', True), ("int", "1.5", False)])
def test_rows(project, kind, value, valid):
    model = f"""
        entity T:
            {kind} attr
        end
        T(attr={value!s})
    """
    if valid:
        project.compile(model)
    else:
        with pytest.raises(Exception):
            project.compile(model)

@pytest.mark.parametrize("n", [1, 2])
def test_literal_in_parametrized(project, n):
    project.compile("y = 2")

def test_computed(project, tmp_path):
    project.compile(f"p = '{tmp_path}'")

@pytest.mark.parametrize("n", [pytest.param(1, id="one")])
def test_not_a_literal_table(project, n):
    project.compile(f"z = {n}")
'''


def test_models_are_read_from_literals_and_parametrized_fstrings() -> None:
    found = [(name, model) for name, _, model, _ in _compile_calls(ast.parse(textwrap.dedent(TEST_FILE)))]
    entity = "\n        entity T:\n            {} attr\n        end\n        T(attr={})\n    "
    assert found == [
        ("test_literal", "x = 1"),
        ("test_rows[0]", entity.format("string", '"a"')),
        ("test_rows[1]", entity.format("int", "1.5")),
        ("test_literal_in_parametrized", "y = 2"),
        ("test_computed", None),
        ("test_not_a_literal_table", None),
    ]
