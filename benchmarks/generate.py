"""Generate a large, realistic `.cf` file for parser benchmarks.

The output resembles real Inmanta modules (std, openstack, podman, fs, ...): a module
docstring with a licence header, imports, comments, typedefs (regex and condition),
entities with docstrings and typed attributes with defaults, relations (bidirectional and
unidirectional), indexes, implementations whose bodies hold constructors with keyword
arguments, assignments, `for` loops, `if/elif/else`, string interpolation, f-strings,
list comprehensions, conditional expressions and plugin calls, and `implement ... using
... when ...` statements.

Every generated name is unique within the file, and only syntax that both cfmodel and the
reference (inmanta-core) parser accept is produced: no old-style relations, no `enum`.
The output is a pure function of (lines, seed).

Usage: python benchmarks/generate.py [--lines N] [--seed S] [-o FILE]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HEADER = '''"""
    Copyright {year} Inmanta

    Licensed under the Apache License, Version 2.0 (the "License");
    you may not use this file except in compliance with the License.
    You may obtain a copy of the License at

        http://www.apache.org/licenses/LICENSE-2.0

    Unless required by applicable law or agreed to in writing, software
    distributed under the License is distributed on an "AS IS" BASIS,
    WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
    See the License for the specific language governing permissions and
    limitations under the License.

    Contact: code@inmanta.com

    Generated benchmark model (seed {seed}); not meant to be compiled.
"""
import std
import ip
import fs
import exec
import mitogen

'''

NOUNS = [
    "host",
    "service",
    "volume",
    "network",
    "router",
    "port",
    "subnet",
    "user",
    "group",
    "project",
    "image",
    "flavor",
    "container",
    "pod",
    "secret",
    "route",
    "listener",
    "backend",
    "pool",
    "member",
    "record",
    "zone",
    "bucket",
    "queue",
    "topic",
    "agent",
]
ATTR_WORDS = [
    "name",
    "description",
    "path",
    "owner",
    "mode",
    "enabled",
    "address",
    "port",
    "timeout",
    "retries",
    "labels",
    "tags",
    "comment",
    "region",
    "zone_name",
    "content",
    "template",
    "command",
    "cwd",
    "environment",
    "purge_on_delete",
    "checksum",
    "priority",
    "weight",
    "protocol",
    "mtu",
    "gateway",
    "dns_servers",
    "hostname",
    "domain",
    "image_ref",
    "flavor_ref",
    "size",
    "replicas",
    "memory",
    "cpu",
    "restart_policy",
    "log_level",
]
DOC_LINES = [
    "The configuration of a {noun} managed by the orchestrator.",
    "A {noun} as seen by the {other} handler; the handler is loaded by the agents.",
    "Base entity for every {noun} that can be purged from the {other}.",
    "This entity models a {noun}. Its identity is formed by its name and its {other}.",
    "Deploys a {noun} on a host and keeps it in sync with the desired state.",
]
PARAM_DOCS = [
    "The name of the {what}. It has to be unique within its {other}.",
    "Whether the {what} is managed; when false the handler leaves it alone.",
    "Extra labels that are added to the {what} on creation.",
    "The {what} to use when none is given explicitly.",
    "Timeout in seconds before the {what} is considered failed.",
]
COMMENTS = [
    "# Make sure the {noun} exists before anything that depends on it",
    "# TODO: drop this once the {noun} handler supports partial updates",
    "# The {noun} is only created when the feature is enabled",
    "# Keep in sync with the {other} module",
    "## {Noun} configuration",
    "# Wire up the dependencies between the {noun} and the {other}",
]
BASES = [
    "std::PurgeableResource",
    "std::ManagedResource",
    "std::Entity",
    "std::Resource",
    "std::ResourceSet",
    "ip::services::Server",
]
PLUGINS = [
    "std::template",
    "std::replace",
    "std::generate_password",
    "std::password",
    "std::key_sort",
    "std::getfact",
    "std::environment_name",
    "std::unique_file",
    "std::dict_get",
]


_FIXED_ATTRS = {"name", "enabled", "purged", "replicas"}


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, text: str = "", indent: int = 0) -> None:
        for line in text.split("\n"):
            self.lines.append(("    " * indent + line) if line else "")


class Generator:
    """Writes one "unit" (a small module section: typedefs, entities, implementations) at a time."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed

    def pick(self, items: list[str]) -> str:
        return self.rng.choice(items)

    def unit(self, u: int) -> list[str]:
        rng = self.rng
        out = _Writer()
        noun = NOUNS[u % len(NOUNS)]
        other = self.pick(NOUNS)
        cap = noun.capitalize()
        sfx = f"{u}"

        out.add(self.pick(COMMENTS).format(noun=noun, other=other, Noun=cap))
        # typedefs: one regex, one condition (sometimes a plugin condition)
        out.add(f"typedef {noun}_name_{sfx} as string matching /^[a-z][a-z0-9_-]{{0,{30 + u % 30}}}$/")
        choice = u % 3
        if choice == 0:
            out.add(f"typedef {noun}_port_{sfx} as int matching self >= {u % 1024} and self < 65536")
        elif choice == 1:
            out.add(f'typedef {noun}_mode_{sfx} as string matching self in ["present", "absent", "{noun}"]')
        else:
            out.add(f"typedef {noun}_cidr_{sfx} as string matching ip::is_valid_cidr(self) == true")
        out.add()

        # the entities of this unit
        base_name = f"{cap}Base{sfx}"
        main_name = f"{cap}{sfx}"
        child_name = f"{cap}Member{sfx}"
        self.entity(out, base_name, [self.pick(BASES)], noun, other, sfx, small=True)
        self.entity(out, main_name, [base_name, self.pick(BASES)], noun, other, sfx, small=False)
        self.entity(out, child_name, [base_name], noun, other, sfx, small=True)

        # indexes
        out.add(f"index {main_name}(name)")
        out.add(f"index {child_name}(parent_{sfx}, name)")
        out.add()

        # relations: new syntax, bidirectional with docstring and unidirectional ones
        out.add(f"{child_name}.parent_{sfx} [1] -- {main_name}.members_{sfx} [0:]")
        out.add('"""')
        out.add(f"    Every {noun} member belongs to exactly one {noun}.")
        out.add('"""')
        out.add()
        out.add(f"{main_name}.host [1] -- std::Host")
        out.add(f"{main_name}.requires_{sfx} [0:] -- std::Resource")
        out.add('"""')
        out.add(f"Resources that have to be deployed before this {noun} is started.")
        out.add(f"The {noun} is reloaded when one of them changes.")
        out.add('"""')
        if rng.random() < 0.5:
            out.add(f"{main_name}.peer_{sfx} [0:1] -- {main_name}.peer_of_{sfx} [0:{1 + u % 4}]")
        out.add(f"{base_name}.config_{sfx} [0:1] -- fs::File")
        out.add()

        # implementations
        self.impl_main(out, main_name, child_name, noun, other, sfx)
        self.impl_members(out, main_name, child_name, noun, sfx)
        self.impl_small(out, base_name, noun, sfx)

        # implement statements
        out.add(f"implement {base_name} using std::none")
        out.add(f"implement {main_name} using {noun}_config_{sfx}, {noun}_members_{sfx}")
        out.add(f"implement {main_name} using {noun}_extra_{sfx} when self.enabled and not self.purged")
        out.add(f"implement {child_name} using parents, {noun}_extra_{sfx}")
        out.add(f"implement {child_name} using std::none when self.parent_{sfx}.replicas > {u % 5}")
        out.add()
        return out.lines

    def entity(
        self, out: _Writer, name: str, parents: list[str], noun: str, other: str, sfx: str, small: bool
    ) -> None:
        rng = self.rng
        out.add(f"entity {name} extends {', '.join(parents)}:")
        out.add('"""', 1)
        out.add(self.pick(DOC_LINES).format(noun=noun, other=other), 2)
        attrs: list[tuple[str, str, str | None]] = []
        attrs.append(("string", "name", None))
        count = rng.randint(2, 4) if small else rng.randint(6, 12)
        words = rng.sample([w for w in ATTR_WORDS if w not in _FIXED_ATTRS], count)
        for i, word in enumerate(words):
            kind = (i + len(name)) % 7
            if kind == 0:
                attrs.append((f"{noun}_name_{sfx}", word, None))
            elif kind == 1:
                attrs.append(("int?", word, "null" if rng.random() < 0.5 else str(rng.randint(1, 9000))))
            elif kind == 2:
                attrs.append(("string[]", word, '["a", "b"]' if rng.random() < 0.3 else "[]"))
            elif kind == 3:
                attrs.append(("dict", word, "{}" if rng.random() < 0.6 else '{"key": "value", "n": 1}'))
            elif kind == 4:
                attrs.append(("bool", word, self.pick(["true", "false"])))
            elif kind == 5:
                attrs.append(("string", word, f'"{noun}-{word}"'))
            else:
                attrs.append(("string?", word, "null"))
        if not small:
            attrs.append(("bool", "enabled", "true"))
            attrs.append(("bool", "purged", "false"))
            attrs.append(("int", "replicas", str(1 + int(sfx) % 3)))
        # keep names unique within the entity
        seen: set[str] = set()
        unique = []
        for attr in attrs:
            if attr[1] not in seen:
                seen.add(attr[1])
                unique.append(attr)
        out.add()
        # real modules document most attributes, often over more than one line
        for _, word, _ in unique[: max(1, len(unique) - rng.randint(0, 3))]:
            out.add(f":attr {word}: " + self.pick(PARAM_DOCS).format(what=noun, other=other), 2)
            if rng.random() < 0.4:
                out.add("       " + self.pick(PARAM_DOCS).format(what=word, other=noun), 2)
        out.add('"""', 1)
        for type_, word, default in unique:
            if default is None:
                out.add(f"{type_} {word}", 1)
            else:
                out.add(f"{type_} {word} = {default}", 1)
        out.add("end")
        out.add()

    def impl_main(self, out: _Writer, main: str, child: str, noun: str, other: str, sfx: str) -> None:
        rng = self.rng
        out.add(f"implementation {noun}_config_{sfx} for {main}:")
        out.add('"""', 1)
        out.add(f"Deploy the configuration files of the {noun} and the services that use them.", 1)
        out.add('"""', 1)
        out.add(f'path_{sfx} = "/etc/{noun}/{{{{ self.name }}}}-{sfx}.conf"', 1)
        out.add(f'header = f"# managed by inmanta for {{self.name}} ({noun} {sfx})"', 1)
        out.add(
            f"self.config_{sfx} = fs::File(\n"
            f"    host=self.host,\n"
            f"    path=path_{sfx},\n"
            f'    content=header + "\\n" + {self.pick(PLUGINS[:2])}("{noun}/{noun}.conf.j2"),\n'
            f'    owner=self.owner is defined ? self.owner : "root",\n'
            f'    group="root",\n'
            f"    mode={rng.choice(['644', '640', '600'])},\n"
            f"    purged=self.purged,\n"
            f"    requires=self.requires,  # keep the order of the resources\n"
            f")",
            1,
        )
        out.add(f"self.requires += self.config_{sfx}", 1)
        out.add()
        out.add("# one service per member, with a unique unit name", 1)
        out.add(f"for member in self.members_{sfx}:", 1)
        out.add(f'unit = "{noun}-{{{{ member.name }}}}.service"', 2)
        out.add(
            f"exec::Run(\n"
            f"    host=self.host,\n"
            f'    command=f"systemctl restart {{unit}}",\n'
            f'    onlyif="/usr/bin/test -f /etc/{noun}/{{{{ member.name }}}}",\n'
            f"    reload_only=true,\n"
            f"    requires=[self.config_{sfx}, member],\n"
            f")",
            2,
        )
        out.add("member.requires += self", 2)
        out.add("end", 1)
        out.add()
        out.add(f"if self.replicas > {int(sfx) % 4 + 1}:", 1)
        out.add('level = "debug"', 2)
        out.add(f"elif self.replicas == {int(sfx) % 4 + 1}:", 1)
        out.add('level = "info"', 2)
        out.add("else:", 1)
        out.add('level = "warning"', 2)
        out.add("end", 1)
        out.add(f'labels = {{"app": self.name, "tier": "{other}", "level": level, "unit": "{sfx}"}}', 1)
        out.add(
            f'names = [m.name for m in self.members_{sfx} if m.name != "{noun}-{sfx}"]',
            1,
        )
        out.add(
            f"std::print(std::{rng.choice(['count', 'len'])}(names) > 0 ? "
            f'"{{{{ self.name }}}} has members" : "{{{{ self.name }}}} is empty")',
            1,
        )
        out.add(f'password = std::password("{noun}-{sfx}-secret")', 1)
        out.add(f'fact = std::getfact(self, "{noun}_state", default="unknown")', 1)
        if rng.random() < 0.5:
            out.add("if fact == \"ready\" and (self.enabled or not self.purged) and labels['app'] != '':", 1)
            out.add(
                f'std::AgentConfig(autostart=true, agentname=f"{noun}-{{self.name}}", '
                f'uri="local:", provides=self)',
                2,
            )
            out.add("end", 1)
        out.add("end")
        out.add()

    def impl_members(self, out: _Writer, main: str, child: str, noun: str, sfx: str) -> None:
        rng = self.rng
        n = rng.randint(2, 4)
        out.add(f"implementation {noun}_members_{sfx} for {main}:")
        out.add(f"for i in std::sequence({n}, start=1):", 1)
        out.add(
            f"{child}(\n"
            f'    name=f"{noun}-{{self.name}}-{{i}}",\n'
            f"    parent_{sfx}=self,\n"
            f"    purged=self.purged,\n"
            f"    purge_on_delete=false,\n"
            f")",
            2,
        )
        out.add("end", 1)
        out.add(f'first = {child}[parent_{sfx}=self, name=f"{noun}-{{self.name}}-1"]', 1)
        out.add(f"first.requires = [r for r in self.requires_{sfx} if r is defined]", 1)
        out.add(f"weights = [m.weight * 2 + 1 for m in self.members_{sfx}]", 1)
        out.add(f'self.description = self.description is defined ? self.description : "{noun} {sfx}"', 1)
        out.add("end")
        out.add()

    def impl_small(self, out: _Writer, base: str, noun: str, sfx: str) -> None:
        out.add(f"implementation {noun}_extra_{sfx} for {base}:")
        out.add('"""', 1)
        out.add(f"Extra configuration for every {noun}: a state file under /var/lib/{noun}", 1)
        out.add("and the mode of the configuration file.", 1)
        out.add('"""', 1)
        out.add(f'attrs = {{"name": self.name, "kind": "{noun}"}}', 1)
        out.add(f'std::ConfigFile(host=self.host, path="/var/lib/{noun}/{sfx}", content="", **attrs)', 1)
        out.add('if not (self.name in ["default", "system"]) or self.name not in ["x"]:', 1)
        out.add(f"self.config_{sfx}.mode = 0 - 1 + {int(sfx) % 7} * 2", 2)
        out.add("end", 1)
        out.add("end")
        out.add()

    def generate(self, lines: int) -> str:
        out = HEADER.format(year=2019 + self.seed % 7, seed=self.seed).split("\n")
        u = 0
        while True:
            block = self.unit(u)
            if len(out) + len(block) > lines:
                break
            out.extend(block)
            u += 1
        # pad with comments to exactly the requested number of lines
        while len(out) < lines:
            out.append(f"# padding line {len(out) + 1}")
        return "\n".join(out[:lines]) + "\n"


def generate(lines: int = 50_000, seed: int = 0) -> str:
    """Return a `.cf` text of exactly *lines* lines (for *lines* >= 30), deterministic in *seed*."""
    return Generator(seed).generate(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, help="write here instead of stdout")
    args = parser.parse_args(argv)
    text = generate(args.lines, args.seed)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
