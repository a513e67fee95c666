"""Resolve the real corpus: every namespace of the 11 pinned modules links without errors."""

from __future__ import annotations

import pytest

from cfmodel.project import load_project
from cfmodel.transforms.cf.program import LinkedProgram
from cfmodel.transforms.cf.resolve import resolve
from tests.resolve.corpus_project import build_corpus_project

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus_program(tmp_path_factory: pytest.TempPathFactory) -> LinkedProgram:
    root = tmp_path_factory.mktemp("corpus-project")
    build_corpus_project(root)
    return resolve(load_project(root))


def test_the_corpus_resolves(corpus_program: LinkedProgram) -> None:
    corpus = [ns for ns in corpus_program.namespaces if ns.split("::")[0] not in ("web", "ssh", "files")]
    assert len(corpus) == 26  # 25 files and the project's main.cf
    entities = [e for e in corpus_program.entities() if e.namespace.name in corpus]
    assert len(entities) > 100
    root = corpus_program.entity("std::Entity")
    for entity in entities:
        assert root in entity.mro
        for end in entity.relations.values():
            assert end.opposite is None or end.opposite.opposite is end


def test_inmanta_std_gets_the_builtin_entity(corpus_program: LinkedProgram) -> None:
    entity = corpus_program.entity("std::Entity")
    assert entity.node is None and entity.span.file == "<builtin>"
    assert set(entity.relations) == {"requires", "provides"}
    assert corpus_program.entity("std::Host").is_subtype_of(entity)


def test_every_index_and_implement_is_linked(corpus_program: LinkedProgram) -> None:
    host = corpus_program.entity("std::Host")
    assert [i.attributes for i in host.all_indexes] == [["name"]]
    assert any(rule.implementations for rule in host.implements)
