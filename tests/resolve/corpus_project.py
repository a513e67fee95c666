"""The real corpus (tests/corpus: 11 pinned Inmanta modules) as one cfmodel project.

Each wheel's ``inmanta_plugins/<module>/model/**.cf`` becomes ``libs/<module>/model/``
and ``main.cf`` imports every namespace, so resolve (and lift) see the whole corpus
with the modules importing each other. Plugins are Python and are not loaded: resolve
does not evaluate anything.

The pinned set is not closed, and the stand-ins below are the smallest that make it so
(only what the corpus names at the type level; bodies are never checked by resolve):

* ``apache`` imports ``web``, ``aws`` imports ``ssh``, ``podman`` imports ``files`` and
  ``files::systemd_unit``: modules outside the pinned set, given as stubs;
* ``mysql`` 0.6.15 predates std 4 and relates to ``std::Service``, which std 8.5 no
  longer has: the copy of std gets a stub ``entity Service``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from tests.corpus.test_corpus import WHEELS, _wheel_name, fetch_corpus

STUB_MODULES = {
    "web/model/_init.cf": "entity ApplicationContainer:\nend\n\nentity Application:\nend\n",
    "ssh/model/_init.cf": "entity Key:\nend\n",
    "files/model/_init.cf": "entity Directory:\n    string path\nend\n\nentity SystemdUnitFile:\nend\n",
    "files/model/systemd_unit.cf": "",
}
STD_COMPAT = "\n# stand-in (tests/resolve/corpus_project.py): mysql 0.6.15 relates to std::Service\nentity Service:\nend\n"


def build_corpus_project(root: Path) -> list[str]:
    """Write the corpus project under *root*; return the corpus namespaces, sorted."""
    folder = fetch_corpus()
    libs = root / "libs"
    namespaces: list[str] = []
    for package, version in sorted(WHEELS.items()):
        with zipfile.ZipFile(folder / _wheel_name(package, version)) as wheel:
            for name in sorted(wheel.namelist()):
                parts = name.split("/")
                if not name.endswith(".cf") or parts[0] != "inmanta_plugins" or parts[2] != "model":
                    continue
                module, relative = parts[1], parts[3:]
                target = libs / module / "model" / Path(*relative)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(wheel.read(name))
                (libs / module / "module.yaml").write_text(f"name: {module}\n", encoding="utf-8")
                path = relative[:-1] + ([] if relative[-1] == "_init.cf" else [relative[-1][:-3]])
                namespaces.append("::".join([module, *path]))
    for name, text in STUB_MODULES.items():
        target = libs / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        (target.parents[1] / "module.yaml").write_text(f"name: {target.parents[1].name}\n", encoding="utf-8")
    std = libs / "std" / "model" / "_init.cf"
    std.write_text(std.read_text(encoding="utf-8") + STD_COMPAT, encoding="utf-8")
    namespaces.sort()
    (root / "main.cf").write_text("".join(f"import {ns}\n" for ns in namespaces), encoding="utf-8")
    return namespaces
