"""The general writer (`xmi/general.py`, for documents with hrefs, proxies or feature maps)
writes, in cfmodel's layout, exactly the bytes of the fast writer for documents both can
write: a document that gains one href changes only where the href is."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pyecore.ecore import EObject

from cfmodel.serializers import canonical, crossrefs, xmi
from cfmodel.serializers.base import ids_from
from cfmodel.serializers.xmi import general, writer
from tests.serializers.samples import infra_ids, infra_model, infra_package, tree_model, tree_packages


def _general(roots: list[EObject], id_of: Callable[[EObject], str | None] | None) -> bytes:
    objects = canonical.contents(roots)
    ids = ids_from(id_of, objects)
    fast = writer.Writer(roots, ids, objects)
    for obj in canonical.one_per_class(objects):  # the packages' prefixes, as the fast writer fixes them
        fast.plan(obj)
    return general.GeneralWriter(
        roots, objects, ids, crossrefs.Hrefs(None), fast.prefixes, fast.prefix, emf_layout=False
    ).document()


@pytest.mark.parametrize(
    "make, id_of",
    [
        (lambda: infra_model(infra_package()), infra_ids),
        (lambda: infra_model(infra_package()), None),
        (lambda: tree_model(*tree_packages()), None),
    ],
)
def test_the_general_writer_writes_the_fast_writers_bytes(
    make: Callable[[], list[EObject]], id_of: Callable[[EObject], str | None] | None
) -> None:
    roots = make()
    assert _general(roots, id_of) == xmi.to_bytes(roots, xmi.XmiOptions(id_of=id_of))
