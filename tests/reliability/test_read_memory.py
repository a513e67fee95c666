"""Issue 12, item 10: reading an XMI model takes memory in proportion to the file, with a
stated factor, and never more than a fixed limit.

"Peak memory is 5.7x the file, so the 512 MiB cap admits about 3 GB": the byte cap alone
does not bound memory. What is stated (``docs/serialization.md``) and checked here:

* ordinary files (10,000 and 100,000 objects, flat as cfmodel and EMF write them, and
  nested by containment; both readers) grow the reading process's peak resident memory
  by at most `FACTOR` times the file size (measured: 11 to 15 times);
* for every shape, ordinary or not (a million empty elements, a thousand references per
  element, long values, many attributes), the growth stays under
  `xmlsafe.estimated_memory`, the estimate made from counts before parsing;
* a file whose estimate is over ``XmlLimits.max_memory`` (1 GiB) is refused with a
  located ``too-large`` error before anything is built.

Each read runs in a fresh subprocess that has already read a small file of the same
metamodel (imports and generated reader code are not the file's cost); the growth is its
peak resident memory (``VmHWM``) less its resident memory just before the read.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pyecore.ecore import EAttribute, EBoolean, EClass, EDouble, EInt, EPackage, EReference, EString

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import ecore, xmi
from cfmodel.serializers.xmlsafe import XmlLimits, check_memory, estimated_memory, quick_memory_bound

FACTOR = 20  # peak growth per byte of file; measured 11.4 (contained) to 14.9 (10,000 flat)
SLACK = 8 << 20  # allocator granularity: what a small file may cost beyond the factor

READ = """
import gc, json, resource, sys
from pathlib import Path
from pyecore.resources import ResourceSet
from cfmodel.serializers import ecore, xmi
from cfmodel.serializers.xmlsafe import XmlLimits
from cfmodel.errors import CfSerializationError

folder, name, lane, max_memory = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rset = ResourceSet()
ecore.read(Path(folder) / "model.ecore", rset)
options = xmi.XmiOptions(scan=lane == "scan", limits=XmlLimits(max_memory=max_memory))
xmi.read(Path(folder) / "small.xmi", rset, options)  # warm: imports, generated readers
gc.collect()
with open("/proc/self/statm") as statm:
    before = int(statm.read().split()[1]) * resource.getpagesize()
try:
    document = xmi.read(Path(folder) / name, rset, options)
    outcome = {"objects": sum(1 for root in document.roots for _ in [root, *root.eAllContents()])}
except CfSerializationError as error:
    outcome = {"error": error.render(), "code": error.code}
with open("/proc/self/status") as status:  # this process's own high-water mark (ru_maxrss
    # would count the parent's memory, which the child shared until exec)
    peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
print(json.dumps({**outcome, "growth": peak - before}))
"""


def _package() -> tuple[EPackage, EClass, EClass]:
    package = EPackage("bench", nsURI="http://cfmodel.example/bench", nsPrefix="bench")
    node = EClass("Node")
    node.eStructuralFeatures += [
        EAttribute("name", EString),
        EAttribute("size", EInt),
        EAttribute("weight", EDouble),
        EAttribute("enabled", EBoolean),
        EReference("next", node),
        EReference("friends", node, upper=-1),
    ]
    group = EClass("Group")
    group.eStructuralFeatures += [
        EAttribute("name", EString),
        EReference("members", node, upper=-1, containment=True),
    ]
    package.eClassifiers.extend([node, group])
    return package, node, group


HEAD = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<xmi:XMI xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" '
    b'xmlns:bench="http://cfmodel.example/bench">\n'
)
TAIL = b"</xmi:XMI>\n"


def _nodes(node: EClass, count: int, start: int = 0) -> list[object]:
    made: list[object] = []
    for i in range(start, start + count):
        made.append(node(name=f"node{i}", size=i, weight=i * 0.5, enabled=i % 2 == 0))
        if len(made) > 1:
            made[-1].next = made[-2]  # type: ignore[attr-defined]
    return made


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("xmi-memory")
    package, node, group = _package()
    (folder / "model.ecore").write_bytes(ecore.to_bytes(package))
    (folder / "small.xmi").write_bytes(xmi.to_bytes(_nodes(node, 10)))
    for count in (10_000, 100_000):
        (folder / f"flat-{count}.xmi").write_bytes(xmi.to_bytes(_nodes(node, count)))
    groups = []
    for g in range(100):  # 100 groups of 1,000 contained nodes
        holder = group(name=f"group{g}")
        holder.members.extend(_nodes(node, 1000, g * 1000))
        groups.append(holder)
    (folder / "contained-100000.xmi").write_bytes(xmi.to_bytes(groups))
    # shapes no one writes, each at the extreme of one of the estimate's counts
    (folder / "empty-100000.xmi").write_bytes(HEAD + b"<bench:Node/>" * 100_000 + TAIL)
    friends = " ".join(f"/{i}" for i in range(1000)).encode()
    (folder / "references-1000.xmi").write_bytes(
        HEAD + (b'<bench:Node friends="' + friends + b'"/>\n') * 1000 + TAIL
    )
    (folder / "values-100.xmi").write_bytes(
        HEAD + (b'<bench:Node name="' + b"x" * 100_000 + b'"/>\n') * 100 + TAIL
    )
    attributes = b'<bench:Node name="a" size="1" weight="1" enabled="true"/>'
    (folder / "attributes-100000.xmi").write_bytes(HEAD + attributes * 100_000 + TAIL)
    return folder


def _read(folder: Path, name: str, lane: str, max_memory: int = 1 << 30) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", READ, str(folder), name, lane, str(max_memory)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


ORDINARY = [
    ("flat-10000.xmi", "scan", 10_000),
    ("flat-100000.xmi", "scan", 100_000),
    ("flat-100000.xmi", "expat", 100_000),
    ("contained-100000.xmi", "expat", 100_100),
]
EXTREME = [
    ("empty-100000.xmi", "scan", 100_000),
    ("empty-100000.xmi", "expat", 100_000),
    ("references-1000.xmi", "scan", 1000),
    ("references-1000.xmi", "expat", 1000),
    ("values-100.xmi", "expat", 100),
    ("attributes-100000.xmi", "expat", 100_000),
]


def _growth(files: Path, name: str, lane: str, objects: int) -> tuple[int, int]:
    result = _read(files, name, lane)
    assert result.get("objects") == objects, result
    return int(str(result["growth"])), (files / name).stat().st_size


@pytest.mark.parametrize(
    ("name", "lane", "objects"), ORDINARY, ids=[f"{n}-{lane}" for n, lane, _ in ORDINARY]
)
def test_reading_an_ordinary_file_takes_memory_in_proportion_to_it(
    files: Path, name: str, lane: str, objects: int
) -> None:
    growth, size = _growth(files, name, lane, objects)
    assert growth <= FACTOR * size + SLACK, f"{growth / size:.1f}x the file ({size:,} bytes)"
    assert growth <= estimated_memory((files / name).read_bytes()) + SLACK


@pytest.mark.parametrize(("name", "lane", "objects"), EXTREME, ids=[f"{n}-{lane}" for n, lane, _ in EXTREME])
def test_the_estimate_bounds_the_memory_of_any_shape(files: Path, name: str, lane: str, objects: int) -> None:
    growth, _ = _growth(files, name, lane, objects)
    estimate = estimated_memory((files / name).read_bytes())
    assert growth <= estimate + SLACK, f"{growth:,} bytes, estimated {estimate:,}"


@pytest.mark.parametrize("lane", ["scan", "expat"])
def test_a_file_over_the_memory_limit_is_refused_before_reading(files: Path, lane: str) -> None:
    name = "flat-100000.xmi"
    result = _read(files, name, lane, max_memory=40 << 20)
    assert result.get("code") == "too-large", result
    error = str(result["error"])
    assert error.startswith(f"{files / name}:1:1: error: reading the file could take "), error
    assert "MiB of memory (estimated from its size and counts), over the limit of 40 MiB" in error
    # nothing was built: the growth is the file's bytes (read before the check) and little else
    assert int(str(result["growth"])) < (files / name).stat().st_size + SLACK


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"<<<<",
        b"<a b=\"1\" c='2'/>",
        b"=" * 64 + b'="' * 9 + b"='" * 7,
        b"  " * 50 + b" x y " + b"<n a='='/>" * 30,
        b"\n".join(b'  <n:Node xmi:id="i%d" name="a = b" next="i0 i1  i2"/>' % i for i in range(500)),
    ],
)
def test_the_quick_bound_is_never_below_the_estimate(text: bytes) -> None:
    estimate = estimated_memory(text)
    assert estimate <= quick_memory_bound(text) <= len(text) * (400 + 3) or not text


@pytest.mark.parametrize("limit_below_estimate", [True, False])
def test_the_cheap_bounds_never_change_the_verdict(limit_below_estimate: bool) -> None:
    # a document whose quick bound is over the limit, but not its estimate: the exact
    # counts decide (spaces in runs and '=' outside attributes count in the quick bound only)
    text = b"<r>" + b"= " * 2_000 + b"    " * 2_000 + b"</r>"
    estimate, quick = estimated_memory(text), quick_memory_bound(text)
    assert estimate < quick
    limit = estimate - 1 if limit_below_estimate else (estimate + quick) // 2
    limits = XmlLimits(max_memory=limit)
    if limit_below_estimate:
        with pytest.raises(CfSerializationError, match=r"doc\.xmi:1:1: error: reading the file could take"):
            check_memory(text, "doc.xmi", limits)
    else:
        check_memory(text, "doc.xmi", limits)  # under the limit by the exact estimate: read
