"""Models the RDF tests share: the example, a generated project, and their compiles (cached)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import cfmodel

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "webshop"

GENERATED_LIB = '''"""A generated module: typedefs, an index, relations of every multiplicity."""
typedef small as int matching self >= 0 and self <= 1000
typedef tier as string matching self in ["gold", "silver", "bronze"]
typedef label as string matching /^[a-z][a-z0-9-]*$/
typedef short as string matching std::length(self) <= 12 and std::length(self) > 0

entity Zone:
    label name
    number latitude = 0.5
end
index Zone(name)

entity Node:
    """A node: one per (zone, number)."""
    int number
    small weight = 1
    tier tier = "bronze"
    short nick = "n"
    bool up = true
    float load = 0.25
    string note = ""
    string[] tags = []
    dict facts = {}
    int? spare = null
end
index Node(zone, number)

Node.zone [1] -- Zone.nodes [0:]
Node.peers [0:] -- Node.peers [0:]
Node.parent [0:1] -- Node.children [0:]

implement Zone using std::none
implement Node using std::none
'''

GENERATED_MAIN = """import gen

zones = ["north", "south", "east"]
for z in zones:
    zone = gen::Zone(name=z, latitude={lat})
    for i in std::sequence({per_zone}):
        gen::Node(
            zone=zone, number=i, weight=i * 7 % 1000, tier=i % 3 == 0 ? "gold" : i % 3 == 1 ? "silver" : "bronze",
            nick="n{{{{i}}}}", up=i % 2 == 0, load=i / 8, note="quote \\" back\\\\slash\\nline & <tag> é {{{{z}}}}",
            tags=["t{{{{i % 4}}}}", "all", "t{{{{i % 4}}}}"], facts={{"i": i, "z": z}},
        )
    end
end
for z in zones:
    for i in std::sequence({per_zone}):
        node = gen::Node[zone=gen::Zone[name=z], number=i]
        if i > 0:
            node.parent = gen::Node[zone=gen::Zone[name=z], number=i - 1]
        end
        if i > 1:
            node.peers += [gen::Node[zone=gen::Zone[name=z], number=i - 2]]
        end
    end
end
"""


def write_generated(root: Path, per_zone: int = 40) -> Path:
    """A project with 3 zones and 3 x `per_zone` nodes (strings that need escaping, floats,
    JSON attributes, repeated list items, symmetric and one-to-many relations)."""
    lib = root / "libs" / "gen" / "model"
    lib.mkdir(parents=True, exist_ok=True)
    (root / "libs" / "gen" / "module.yaml").write_text("name: gen\n")
    (lib / "_init.cf").write_text(GENERATED_LIB)
    main = GENERATED_MAIN.format(per_zone=per_zone, lat="z == 'north' ? 1.5 : -2.25")
    (root / "main.cf").write_text(main)
    return root


@functools.cache
def webshop() -> Any:
    return cfmodel.compile_project(str(EXAMPLE))


@functools.cache
def generated(tmp: str) -> Any:
    return cfmodel.compile_project(str(write_generated(Path(tmp))))
