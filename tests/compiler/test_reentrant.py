"""Compiles are reentrant: every table and cache belongs to one compile's `Evaluator`.

Two compiles interleaved step by step in one thread, and compiles in several threads at
once, give exactly what each gives alone. The programs use everything that is cached per
compile: blocks' declared variables, ``for`` scopes, promise targets of ``if``/``for``,
constructor plans, pure expressions, the enum of ``is``, and index tables; templates
whose plugin filters are their own compile's; and module code each compile imports while
another activates other modules.
"""

from __future__ import annotations

import threading
from pathlib import Path

from cfmodel.project import load_project
from cfmodel.transforms.cf.refine import evaluate
from cfmodel.transforms.cf.refine.errors import Blocked
from cfmodel.transforms.cf.refine.evaluator import Evaluator
from cfmodel.transforms.cf.refine.finish import finish
from cfmodel.transforms.cf.refine.report import dump_instances
from cfmodel.transforms.cf.resolve import resolve

SOURCE = """
typedef port as int matching self > 0 and self < 65536
entity Host:
    string name
    int cpus = {cpus}
    port ssh = 22
end
entity Service:
    string name
    bool exposed = false
end
entity Cluster:
    string name
end
Host.services [0:] -- Service.host [1]
Cluster.hosts [0:] -- Host.cluster [0:1]
index Host(name)
index Service(host, name)
index Cluster(name)
implementation web for Host:
    for n in ["http", "https", "{extra}"]:
        Service(host=self, name=n, exposed=n != "{extra}")
    end
    if self.cpus > 2:
        self.services += Service(host=self, name="big")
    end
end
implement Host using web
implement Service using std::none
implement Cluster using std::none
c = Cluster(name="{cluster}")
for i in [{hosts}]:
    h = Host(name="host{{{{i}}}}", cluster=c)
end
first = Host[name="host1"]
"""


def write(root: Path, cpus: int, extra: str, cluster: str, hosts: int) -> Path:
    root.mkdir()
    source = SOURCE.format(
        cpus=cpus, extra=extra, cluster=cluster, hosts=", ".join(map(str, range(1, hosts + 1)))
    )
    (root / "main.cf").write_text(source, encoding="utf-8")
    return root


def step(ev: Evaluator) -> bool:
    """One step of `Scheduler.run`: run one task, or complete one relation; False when done."""
    sched = ev.sched
    if sched.queue:
        task = sched.queue.popleft()
        task.pos = 0
        try:
            task.run(ev)
        except Blocked as blocked:
            blocked.slot.add_waiter(sched, task)
        return True
    return sched.freeze_one()


def dump_alone(root: Path) -> str:
    project = load_project(root)
    ev = evaluate(resolve(project), project)
    return dump_instances(ev.instances)


def test_two_compiles_interleaved(tmp_path: Path) -> None:
    roots = [write(tmp_path / "a", 4, "ssh", "east", 3), write(tmp_path / "b", 1, "ftp", "west", 5)]
    expected = [dump_alone(root) for root in roots]
    assert expected[0] != expected[1]
    projects = [load_project(root) for root in roots]
    evs = [Evaluator(resolve(project), project) for project in projects]
    for ev in evs:
        ev.start()
    # one step of each in turn, until both are done
    running = list(evs)
    while running:
        for ev in list(running):
            if not step(ev):
                running.remove(ev)
    for ev, want in zip(evs, expected, strict=True):
        assert finish(ev) == []
        assert dump_instances(ev.instances) == want


def test_compiles_in_threads(tmp_path: Path) -> None:
    roots = [write(tmp_path / f"p{n}", n, f"x{n}", f"c{n}", 20 + n) for n in range(4)]
    expected = [dump_alone(root) for root in roots]
    found: dict[int, str] = {}
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            for _ in range(3):
                found[n] = dump_alone(roots[n])
                assert found[n] == expected[n]
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(roots))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    assert [found[n] for n in range(len(roots))] == expected


def write_templating(root: Path, module: str, suffix: str) -> Path:
    """A project whose module *module* has a plugin ``shout`` (adds *suffix*) and a template
    calling it as a filter many times (long enough for threads to switch while rendering)."""
    files = {
        "project.yml": "name: p\nmodulepath: libs\n",
        "main.cf": f"import {module}\n{module}::Host(name='h')\n",
        f"libs/{module}/module.yaml": f"name: {module}\n",
        f"libs/{module}/model/_init.cf": (
            "entity Host:\n    string name\n    string motd\nend\n"
            "implement Host using motd\n"
            f"implementation motd for Host:\n    self.motd = std::template('{module}/motd.j2')\nend\n"
        ),
        f"libs/{module}/plugins/__init__.py": (
            "from inmanta.plugins import plugin\n\n\n"
            f"@plugin\ndef shout(value: 'string') -> 'string':\n    return value + {suffix!r}\n"
        ),
        f"libs/{module}/templates/motd.j2": (
            f"{{% for i in range(3000) %}}{{{{ name | {module}.shout }}}}{{% endfor %}}"
        ),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_templates_rendered_in_threads_call_their_own_compiles_plugins(tmp_path: Path) -> None:
    """A template's plugin filters are the rendering compile's, in each thread (the stack of
    contexts rendering is per thread, not one for the process)."""
    roots = [write_templating(tmp_path / m, m, s) for m, s in (("alpha", "!"), ("beta", "?"))]
    expected = [dump_alone(root) for root in roots]
    assert "h!h!h!" in expected[0] and "h?h?h?" in expected[1]
    found: dict[int, list[str]] = {0: [], 1: []}
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            for _ in range(4):
                found[n].append(dump_alone(roots[n]))
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert found == {0: [expected[0]] * 4, 1: [expected[1]] * 4}


def write_plugins(root: Path, modules: list[str]) -> Path:
    """A project importing *modules*, each with a plugin ``mark`` naming its module."""
    main = "".join(f"import {m}\n" for m in modules)
    main += "entity Out:\n    string v\nend\nimplement Out using std::none\n"
    main += "".join(f"Out(v={m}::mark())\n" for m in modules)
    files = {"project.yml": "name: p\nmodulepath: libs\n", "main.cf": main}
    for m in modules:
        files[f"libs/{m}/module.yaml"] = f"name: {m}\n"
        files[f"libs/{m}/model/_init.cf"] = ""
        files[f"libs/{m}/plugins/__init__.py"] = (
            f"from inmanta.plugins import plugin\n\n\n@plugin\ndef mark() -> 'string':\n    return {m!r}\n"
        )
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_module_code_loaded_by_compiles_in_threads_is_each_ones_own(tmp_path: Path) -> None:
    """Each compile imports its own modules' code (``inmanta_plugins.<name>``) while another
    compile in another thread activates a different set of modules."""
    sets = [[f"left{n}" for n in range(8)], [f"right{n}" for n in range(8)]]
    roots = [write_plugins(tmp_path / f"p{i}", modules) for i, modules in enumerate(sets)]
    start = threading.Barrier(2)
    found: dict[int, str] = {}
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            start.wait(timeout=60)
            found[n] = dump_alone(roots[n])
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    for n, modules in enumerate(sets):
        assert [line for line in found[n].splitlines() if line.startswith("  v = ")] == [
            f'  v = "{m}"' for m in modules
        ]
