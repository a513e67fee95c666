"""Lookups on ``data/hiera`` and what ``puppet lookup`` (Puppet 7.23, Hiera 5) answers, as JSON.

Each case is the arguments after the key as ``puppet lookup`` takes them, and its output
with ``--render-as json`` (key order included). ``test_hiera.py`` checks cfmodel against these
recorded answers; ``test_puppet_peer.py`` asks the real ``puppet lookup`` again.
"""

from __future__ import annotations

from pathlib import Path

HIERA = Path(__file__).parent / "data" / "hiera"

CASES: list[tuple[str, str]] = [
    # first (the default): the highest level that has the key
    ("message", '"from the node"'),
    ("users", '["alice",["bob"]]'),
    ("extra_b", "2"),
    ("settings --merge first", '{"port":8080,"tuning":{"workers":8}}'),
    # unique: flattened, highest first, no duplicates; scalars become items
    ("users --merge unique", '["alice","bob","carol","dave","erin","frank","root"]'),
    ("scalar_or_list --merge unique", '["node","common","list"]'),
    # hash: lookup_options of the node level (hash) beat those of common (deep)
    ("settings", '{"port":8080,"tuning":{"workers":8},"log":"info","os_release":12,"tls":true}'),
    ("services_config", '{"ntp":{"servers":["a.pool","b.pool"]}}'),
    # deep: recursive; arrays united, the lower level's items first
    (
        "settings --merge deep",
        '{"port":8080,"tuning":{"workers":8,"backlog":128,"keepalive":true},"log":"info","os_release":12,"tls":true}',
    ),
    (
        "services_config --merge deep",
        '{"ntp":{"servers":["d.pool","c.pool","a.pool","b.pool"]},"ssh":{"port":22}}',
    ),
    ("users --merge deep", '["root","frank","alice","erin","dave","carol",["bob"]]'),
    # deep with a knockout prefix from lookup_options (a regex key and an exact key)
    (
        "packages",
        '["openssh-client","nano","openssh-server","ntp","curl","apt-transport-https","nginx","vim"]',
    ),
    ("limits", '{"cpu":"","memory":"2g","disk":"10g"}'),
    (
        "packages --merge deep --sort-merged-arrays",
        '["--nano","apt-transport-https","curl","nano","nginx","ntp","openssh-client","openssh-server","vim"]',
    ),
    # interpolation in values: facts, top scope, unknown facts, literal(), lookup(), alias()
    ("greeting", '"node kermit.example.com (kermit) in ams, os Debian, none [], %, says from the node"'),
    ("users_alias", '["alice",["bob"]]'),
    # the knockout prefix given on the command line (its value starts with "-")
    (
        "packages --merge deep --knock-out-prefix=--",
        '["openssh-client","nano","openssh-server","ntp","curl","apt-transport-https","nginx","vim"]',
    ),
    # dotted keys: the first segment is looked up (with its merge), then dug into
    ("database.primary.host", '"db1.example.com"'),
    ("database.primary.ports.1", "5433"),
    ('database."dotted.name".inner', '"dotted"'),
    ("database.replicas.1.host", '"r2"'),
    ("users.1.0", '"bob"'),
    ('"literal.dotted"', '"literal"'),
    ("database2.a", "1"),
    ("settings.tuning.backlog --merge deep", "128"),
    ("nested", '"5433 []"'),
    ("aliased", '{"host":"r1"}'),
    # undef is a value
    ("nothing", "null"),
    ("list_with_null", '["a",null]'),
    ("nothing --type Optional[String]", "null"),
    # the trusted hash: the certname is the fact clientcert, or --node
    ("trusted_message", '"certname kermit.example.com, host kermit, domain example.com"'),
    (
        "trusted_message --node kermit.example.com",
        '"certname kermit.example.com, host kermit, domain example.com"',
    ),
]

#: Lookups that find nothing (``puppet lookup`` exits 1): a dotted path that leads nowhere
#: (digging happens after the first level's value is found, so ``database2.b`` is not found),
#: and a key with a dot in its name when it is not quoted.
MISSES: list[str] = [
    "nokey",
    "database.missing",
    "database2.b",
    "literal.dotted",
    "settings.tuning.backlog",
    "database.primary.ports.-1",
    "database.primary.ports.7",
    "nothing.0",
    "message.x",
]


def merge_spec(args: list[str]) -> dict[str, object] | None:
    """The merge behaviour given by ``puppet lookup`` flags, as Hiera writes it."""
    if "--merge" not in args:
        return None
    spec: dict[str, object] = {"strategy": args[args.index("--merge") + 1]}
    if "--knock-out-prefix" in args:
        spec["knockout_prefix"] = args[args.index("--knock-out-prefix") + 1]
    prefixed = [a for a in args if a.startswith("--knock-out-prefix=")]
    if prefixed:
        spec["knockout_prefix"] = prefixed[0].partition("=")[2]
    if "--sort-merged-arrays" in args:
        spec["sort_merged_arrays"] = True
    if "--merge-hash-arrays" in args:
        spec["merge_hash_arrays"] = True
    return spec
