"""The general writer (`xmi/general.py`, for documents with hrefs, proxies or feature maps)
writes, in cfmodel's layout, exactly the bytes of the fast writer for documents both can
write: a document that gains one href changes only where the href is."""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest
from pyecore.ecore import EObject

from cfmodel.serializers import canonical, crossrefs, datatypes, xmi
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


# (value, what Java 17's Double.toString prints: EMF's literal of an EDouble)
JAVA_DOUBLES = [
    (0.1, "0.1"),
    (-2.5, "-2.5"),
    (100.0, "100.0"),
    (1e7, "1.0E7"),
    (9999999.0, "9999999.0"),
    (0.001, "0.001"),
    (0.000999, "9.99E-4"),
    (1.808711061828523e-05, "1.808711061828523E-5"),
    (2.0**53 + 2, "9.007199254740994E15"),
    (28610013976524752.0, "2.8610013976524752E16"),  # whole numbers: Java's digits, not the fewest
    (902020158350036736.0, "9.0202015835003674E17"),
    (200688517837707904.0, "2.00688517837707904E17"),
    (2.0**62, "4.6116860184273879E18"),
    (5e-324, "4.9E-324"),
    (1e-310, "1.0E-310"),
    (1.7976931348623157e308, "1.7976931348623157E308"),
    (-0.0, "-0.0"),
    (float("nan"), "NaN"),
    (float("-inf"), "-Infinity"),
]
# (value of a 32-bit float, Java 17's Float.toString)
JAVA_FLOATS = [
    (0.1, "0.1"),
    (412.06528, "412.06528"),
    (85829120.0, "8.582912E7"),
    (102457475072.0, "1.02457475E11"),
    (2.0**53, "9.0071993E15"),
    (2.0**62, "4.611686E18"),
    (123456792.0, "1.23456792E8"),
    (16777216.0, "1.6777216E7"),
    (2.0**-149, "1.4E-45"),
    (3.4028234663852886e38, "3.4028235E38"),
]


def test_emfs_layout_writes_floating_point_as_java_prints_it() -> None:
    """EMF writes a double as Java's Double.toString (and a float as Float.toString): the
    table is Java 17's own output (the EMF re-save tests hold 24,000 doubles to it too)."""
    assert [datatypes.java_float_literal(v) for v, _ in JAVA_DOUBLES] == [j for _, j in JAVA_DOUBLES]
    f32 = [struct.unpack(">f", struct.pack(">f", v))[0] for v, _ in JAVA_FLOATS]
    assert [datatypes.java_float_literal(v, single=True) for v in f32] == [j for _, j in JAVA_FLOATS]
    # a double held by a float attribute: what Java's (float) cast keeps
    assert [datatypes.java_float_literal(v, single=True) for v in (16777217.0, 1e39, -1e39)] == [
        "1.6777216E7",
        "Infinity",
        "-Infinity",
    ]
