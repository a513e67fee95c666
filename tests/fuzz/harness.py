"""A fuzzing harness for everything a user feeds cfmodel: `.cf`, `.bind`, `.cfenv`, YAML,
whole projects run through the CLI, and Jinja templates rendered in the bounded sandbox.

Inputs are made from seeds (the repository's own examples, golden sources, module
sources, data files and Jinja templates) by structure-aware mutations: tokens of the languages inserted,
spans deleted, duplicated or spliced between seeds, lines repeated many times, blocks
left unclosed, constructs nested deeply, huge numbers, long names, YAML aliases and
non-UTF-8 bytes. Every input is determined by its target and an integer, so any finding
is reproduced by `(target, number)` alone.

Each input runs in a worker process (forked from a parent that has imported and warmed
everything, so imports are paid once) that the parent watches: an input whose handling
raises anything but cfmodel's own errors (or, for the CLI, ends with exit status 3) is a
*crash*; one that takes more than `HANG_SECONDS` of CPU time (or gives no answer for
`WALL_SECONDS`, when the worker is killed) is a *hang*; one after which the worker's peak
memory passed `MEMORY_LIMIT` is *memory*. A worker is replaced after each finding. CPU
time, not wall time, decides: on a busy machine a quick input can wait long for a core. `run` returns the counts and
the findings; `scripts/fuzz.py` runs it at length, `tests/fuzz/test_fuzz.py` briefly in CI.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import multiprocessing.connection
import os
import random
import resource
import shutil
import tempfile
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HANG_SECONDS = 5.0  # CPU seconds for one input
WALL_SECONDS = 120.0  # no answer at all: the worker is stuck
MEMORY_LIMIT = 1 << 30  # bytes of peak resident memory
TARGETS = ("cf", "bind", "cfenv", "yaml", "project", "template")

# ----------------------------------------------------------------------------- seeds


@cache
def seeds(kind: str) -> tuple[str, ...]:
    """The seed texts of one kind, from the repository's own files."""
    if kind == "cf":
        from tests.golden import load_cases

        files = sorted((ROOT / "examples").rglob("*.cf")) + sorted(
            (ROOT / "cfmodel" / "modules").rglob("*.cf")
        )
        texts = [p.read_text(encoding="utf-8") for p in files]
        for case_file in sorted((ROOT / "tests" / "grammar" / "cases").glob("*.test")):
            texts.extend(case.source for case in load_cases(case_file))
        return tuple(t for t in texts if t.strip())
    if kind == "template":
        files = sorted((ROOT / "cfmodel" / "templates").glob("*.j2")) + sorted((ROOT / "tests").rglob("*.j2"))
        return tuple(p.read_text(encoding="utf-8") for p in files) + TEMPLATE_SEEDS
    suffix = {"bind": ".bind", "cfenv": ".cfenv", "yaml": ".yaml"}[kind]
    files = sorted((ROOT / "examples").rglob(f"*{suffix}")) + sorted(
        (ROOT / "tests" / "bindings").rglob(f"*{suffix}")
    )
    texts = [p.read_text(encoding="utf-8") for p in files]
    if kind == "yaml":
        texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").rglob("*.yml"))]
    return tuple(t for t in texts if t.strip())


TEMPLATE_SEEDS = (
    "{% for i in range(3) %}{{ name ~ i }}{% endfor %}\n",
    "{% macro m(n) %}<{{ n }}>{% endmacro %}{% set ns = namespace(s='x') %}{{ m(1) }}{{ ns.s * 3 }}",
    "{{ items | join(', ') }} {{ '%5d' % port }} {{ name | upper | center(9) }} {{ items | sum }}\n",
)

TOKENS = {
    "cf": [
        "entity",
        "end",
        "implementation",
        "implement",
        "using",
        "for",
        "in",
        "if",
        "elif",
        "else",
        "when",
        "typedef",
        "as",
        "matching",
        "index",
        "import",
        "include",
        "and",
        "or",
        "not",
        "is defined",
        "true",
        "false",
        "null",
        "undef",
        ":",
        "::",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "=",
        "+=",
        "==",
        "!=",
        ",",
        ".",
        "--",
        "->",
        "<-",
        "?",
        "*",
        "**",
        "+",
        "-",
        "/",
        "%",
        '"',
        "'",
        '"""',
        'f"{{x}}"',
        "/re(/",
        "\n",
        "    ",
        "std::",
        "Host",
        "x",
        "0",
        "1.5",
        "-1",
        "[0:]",
        "[1]",
        "\\",
        "#",
        "//",
    ],
    "bind": [
        "bindings",
        "bind",
        "to",
        "when",
        "site",
        "layer",
        "include",
        "categories",
        "=>",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ",",
        ":",
        "'",
        '"',
        "$x",
        "${x}",
        "/re(/",
        "\n",
        "x",
        "1",
        "-1",
        "true",
        "undef",
        "lambda",
        "|",
        "#",
        "/*",
        "*/",
    ],
    "cfenv": [
        "site",
        "environment",
        "envdir",
        "=>",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "case",
        "default",
        "if",
        "else",
        "$environment",
        "$::fqdn",
        "=",
        "==",
        "=~",
        "/x(/",
        "'",
        '"',
        ",",
        ":",
        "\n",
        "and",
        "or",
        "dynamic_environments",
        "#",
    ],
    "template": [
        "{{",
        "}}",
        "{%",
        "%}",
        "{% for i in range(100000) %}",
        "{% endfor %}",
        "{% if x %}",
        "{% endif %}",
        "{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}",
        "{{ m(0) }}",
        "{% set ns = namespace(s='ab') %}",
        "{% set ns.s = ns.s ~ ns.s %}",
        "{% set ns.s = ns.s + ns.s %}",
        "~",
        "*",
        "**",
        "%",
        "10 ** 9",
        "'x' * 10 ** 7",
        "| join('x' * 1000)",
        "| center(10 ** 8)",
        "| replace('', 'yy')",
        "| sum(start=[])",
        "| list",
        "| batch(3)",
        "| wordwrap(2)",
        "| indent(1000)",
        "loop.index",
        "lipsum(100)",
        "range(",
        "cycler.__init__.__globals__",
        "name.__class__",
        "'%0999d' % 1",
        "'{:>99999}'.format(1)",
        "items",
        "[items] * 1000",
        "(",
        ")",
        "[",
        "]",
        "'",
        '"',
        "\n",
        "{#",
        "#}",
    ],
    "yaml": [
        ": ",
        "- ",
        "&a ",
        "*a",
        "[",
        "]",
        "{",
        "}",
        "? ",
        "!!python/object:os.system",
        "!!binary",
        "'",
        '"',
        "%{facts.fqdn}",
        "%{lookup('k')}",
        "%{alias('k')}",
        "\n",
        "  ",
        "---\n",
        "...\n",
        "|\n",
        ">\n",
        "lookup_options",
        "version: 5",
        "~",
        "null",
        "1e9999",
        "0x",
        "<<: *a",
    ],
}


# ----------------------------------------------------------------------------- mutations


def mutate(kind: str, rng: random.Random) -> str:
    """One input of *kind*: a seed, mutated one to four times."""
    pool = seeds(kind if kind != "project" else "cf")
    text = rng.choice(pool)
    for _ in range(rng.randrange(1, 5)):
        text = rng.choice(_MUTATIONS)(text, kind, rng)
    return text[:200_000]


def _at(text: str, rng: random.Random) -> int:
    return rng.randrange(len(text) + 1)


def _insert_token(text: str, kind: str, rng: random.Random) -> str:
    at = _at(text, rng)
    token = rng.choice(TOKENS.get(kind, TOKENS["cf"]))
    return text[:at] + rng.choice(["", " "]) + token + rng.choice(["", " "]) + text[at:]


def _delete(text: str, kind: str, rng: random.Random) -> str:
    at = _at(text, rng)
    return text[:at] + text[at + rng.randrange(1, 12) :]


def _duplicate(text: str, kind: str, rng: random.Random) -> str:
    at, other = _at(text, rng), _at(text, rng)
    return text[:at] + text[other : other + rng.randrange(1, 40)] + text[at:]


def _splice(text: str, kind: str, rng: random.Random) -> str:
    other = rng.choice(seeds(kind if kind != "project" else "cf"))
    return text[: _at(text, rng)] + other[_at(other, rng) :]


def _repeat_line(text: str, kind: str, rng: random.Random) -> str:
    lines = text.split("\n")
    index = rng.randrange(len(lines))
    lines[index:index] = [lines[index]] * rng.choice([2, 10, 40, 200])
    return "\n".join(lines)


def _unclosed_blocks(text: str, kind: str, rng: random.Random) -> str:
    heads = {"cf": ["if a:\nx:\n", "for a in b:\n", "entity A:\n", "implementation i for A:\n", "x = ["],
             "bind": ["bindings b {\n", "bind 'x' to [\n"], "cfenv": ["site {\n", "case $::x {\n"],
             "yaml": ["- ", "a: [", "b: {"]}  # fmt: skip
    block = rng.choice(heads.get(kind, heads["cf"]))
    at = _at(text, rng)
    return text[:at] + block * rng.choice([5, 20, 60, 300]) + text[at:]


def _nest(text: str, kind: str, rng: random.Random) -> str:
    depth = rng.choice([10, 50, 150, 400, 2000])
    opener, closer = rng.choice([("(", ")"), ("[", "]"), ("{", "}")])
    core = "1" if kind != "yaml" else "x"
    at = _at(text, rng)
    prefix = {"cf": "\nx = ", "bind": "\nbind 'x' to ", "cfenv": "\n$environment = ", "yaml": "\nk: "}
    return text[:at] + prefix.get(kind, "\nx = ") + opener * depth + core + closer * depth + "\n" + text[at:]


def _huge(text: str, kind: str, rng: random.Random) -> str:
    piece = rng.choice(["9" * rng.choice([19, 4301, 20000]), "a" * rng.choice([300, 5000]), "1" + "0" * 400 + ".5",
                        "10 ** 5000", "2 ** 4294967296", '"' + "x" * 100_000 + '"'])  # fmt: skip
    at = _at(text, rng)
    return text[:at] + piece + text[at:]


def _yaml_bomb(text: str, kind: str, rng: random.Random) -> str:
    width, depth = rng.choice([(9, 9), (4, 20), (2, 40)])
    bomb = f"b0: &b0 [{', '.join(['x'] * width)}]\n" + "".join(
        f"b{i}: &b{i} [{', '.join([f'*b{i - 1}'] * width)}]\n" for i in range(1, depth)
    )
    return bomb + text if kind in ("yaml", "project") else text + "\n" + bomb


_MUTATIONS: list[Callable[[str, str, random.Random], str]] = [
    _insert_token, _insert_token, _insert_token, _delete, _delete, _duplicate, _duplicate, _splice,
    _repeat_line, _unclosed_blocks, _nest, _huge, _yaml_bomb,
]  # fmt: skip


# ----------------------------------------------------------------------------- targets


class CrashError(Exception):
    """Handling the input failed in a way a user must never see."""


def _expect_cf_errors(call: Callable[[], object]) -> str:
    from cfmodel.errors import CfModelError

    try:
        call()
    except CfModelError:
        return "error"
    except Exception as error:
        raise CrashError(f"{type(error).__name__}: {error}"[:500]) from error
    return "ok"


def run_parser(kind: str, text: str) -> str:
    if kind == "cf":
        from cfmodel.grammars import cf

        return _expect_cf_errors(lambda: cf.parse_str(text, "main.cf"))
    if kind == "bind":
        from cfmodel.grammars import bindings

        return _expect_cf_errors(lambda: bindings.parse_str(text, "x.bind"))
    if kind == "cfenv":
        from cfmodel.grammars import environments

        return _expect_cf_errors(lambda: environments.parse_str(text, "environments.cfenv"))
    import yaml

    from cfmodel.inputs import load_yaml

    try:
        load_yaml(text)
    except yaml.YAMLError:
        return "error"
    except Exception as error:
        raise CrashError(f"{type(error).__name__}: {error}"[:500]) from error
    return "ok"


_PROJECT_COMMANDS = (
    ("check", "."),
    ("compile", "."),
    ("xmi", "export", ".", "-o", "out"),
    ("bindings", "show", ".", "--fact", "fqdn=n1"),
    ("env", "which", "."),
)


def project_files(rng: random.Random) -> dict[str, bytes]:
    """A small project: a mutated main file, and sometimes a module, hiera data, bindings,
    an environments file or a malformed project.yml."""
    files = {"project.yml": b"name: p\nmodulepath: libs\n", "main.cf": mutate("cf", rng).encode("utf-8")}
    if rng.random() < 0.3:
        files["libs/m/module.yaml"] = b"name: m\n"
        files["libs/m/model/_init.cf"] = mutate("cf", rng).encode("utf-8")
        files["main.cf"] = b"import m\n" + files["main.cf"]
    if rng.random() < 0.3:
        files["site.bind"] = b"site {\n  bindings => [ layer { 'h': include => 'hiera:' } ]\n}\n"
        files["hiera.yaml"] = rng.choice(
            [b"version: 5\nhierarchy:\n  - {name: n, path: 'nodes/%{facts.fqdn}.yaml'}\n  - {name: c, path: c.yaml}\n",
             mutate("yaml", rng).encode("utf-8")]
        )  # fmt: skip
        files["data/c.yaml"] = mutate("yaml", rng).encode("utf-8")
    if rng.random() < 0.2:
        files["bindings/default.bind"] = mutate("bind", rng).encode("utf-8")
    if rng.random() < 0.15:
        files["environments.cfenv"] = mutate("cfenv", rng).encode("utf-8")
    if rng.random() < 0.1:
        files["project.yml"] = mutate("yaml", rng).encode("utf-8")
    if rng.random() < 0.05:
        name = rng.choice(list(files))
        files[name] = files[name] + b"\n# caf\xe9\n"
    return files


def run_project(rng: random.Random) -> str:
    from cfmodel.cli import main

    files = project_files(rng)
    command = rng.choice(_PROJECT_COMMANDS)
    root = Path(tempfile.mkdtemp(prefix="cfmodel-fuzz-"))
    try:
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        old = os.getcwd()
        os.chdir(root)
        try:
            sink = io.StringIO()
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                code = main([*command, "--no-cache"] if command[0] != "env" else list(command))
        finally:
            os.chdir(old)
        if code == 3:
            raise CrashError(f"exit 3 from cfmodel {' '.join(command)}: {sink.getvalue()[-500:]}")
        return "ok" if code == 0 else "error"
    finally:
        shutil.rmtree(root, ignore_errors=True)


@cache
def _template_environment() -> object:
    import jinja2

    from cfmodel.modules.std.plugins import bounded

    return bounded.environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False
    )


def run_template(text: str) -> str:
    """Render *text* as `std::template` renders a sandboxed template (without a model:
    names come from a small fixed scope). An exception of any kind is a located
    ``plugin-error`` in cfmodel, so only the bounds can fail: time (a hang) and memory."""
    from cfmodel.modules.std.plugins import bounded

    env = _template_environment()
    try:
        template = bounded.compile(env, text)  # type: ignore[arg-type]
        bounded.render(template, {"name": "web1", "items": [1, 2, 3], "port": 443})
    except Exception:
        return "error"
    return "ok"


def run_one(target: str, number: int) -> str:
    """Handle input *number* of *target*: "ok", "error" (a located refusal) or raise CrashError."""
    rng = random.Random(f"{target}:{number}")
    if target == "project":
        return run_project(rng)
    if target == "template":
        return run_template(mutate(target, rng))
    return run_parser(target, mutate(target, rng))


def reproduce(target: str, number: int) -> str | dict[str, bytes]:
    """The input of *(target, number)*: a text, or a project's files."""
    rng = random.Random(f"{target}:{number}")
    return project_files(rng) if target == "project" else mutate(target, rng)


# ----------------------------------------------------------------------------- running


@dataclass
class Report:
    counts: Counter[str] = field(default_factory=Counter)  # outcome -> how many
    per_target: Counter[str] = field(default_factory=Counter)
    findings: list[tuple[str, int, str, str]] = field(default_factory=list)  # target, number, kind, detail
    seconds: float = 0.0

    @property
    def total(self) -> int:
        return sum(self.per_target.values())

    def bad(self) -> int:
        return self.counts["crash"] + self.counts["hang"] + self.counts["memory"]

    def summary(self) -> str:
        targets = ", ".join(f"{t} {n:,}" for t, n in sorted(self.per_target.items()))
        return (
            f"{self.total:,} inputs ({targets}) in {self.seconds:,.0f} s: "
            f"{self.counts['ok']:,} accepted, {self.counts['error']:,} refused with a located error, "
            f"{self.counts['crash']} crashes (exit 3), {self.counts['hang']} hangs (>{HANG_SECONDS:g} s), "
            f"{self.counts['memory']} over {MEMORY_LIMIT >> 30} GiB"
        )


def _worker(connection: multiprocessing.connection.Connection) -> None:
    # a warning (Python's FutureWarning on a user's regex, ...) is no crash, even where the
    # tests turn warnings into errors
    warnings.simplefilter("ignore")
    with contextlib.suppress(ValueError, OSError):  # a hard cap well above the limit watched
        resource.setrlimit(resource.RLIMIT_AS, (4 * MEMORY_LIMIT, resource.RLIM_INFINITY))
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            return
        target, number = task
        before = _cpu_seconds()
        try:
            outcome, detail = run_one(target, number), ""
        except CrashError as crash:
            outcome, detail = "crash", str(crash)
        except BaseException as error:  # the harness's own view: anything else is a crash too
            outcome, detail = "crash", "".join(traceback.format_exception_only(error))[-500:]
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        spent = _cpu_seconds() - before
        if outcome != "crash" and spent > HANG_SECONDS:
            outcome, detail = "hang", f"{spent:.1f} s of CPU time"
        connection.send((outcome, detail, peak))


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def warm_up(targets: Iterable[str] = TARGETS) -> None:
    """Import and build everything *targets* use, so that forked workers start warm."""
    for target in sorted(set(targets)):
        for number in range(4 if target == "project" else 1):
            with contextlib.suppress(BaseException):
                run_one(target, number)


class _Worker:
    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child,), daemon=True)
        self.process.start()
        child.close()

    def run(self, target: str, number: int) -> tuple[str, str, int]:
        self.connection.send((target, number))
        if not self.connection.poll(WALL_SECONDS):
            return "hang", f"no answer after {WALL_SECONDS:g} s", 0
        try:
            outcome, detail, peak = self.connection.recv()
        except EOFError:
            return "crash", f"the worker died (exit code {self.process.exitcode})", 0
        return outcome, detail, peak

    def stop(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.connection.close()


def run(
    tasks: Iterable[tuple[str, int]],
    on_progress: Callable[[Report], None] | None = None,
    progress_every: int = 10_000,
) -> Report:
    """Run every (target, number) in one worker at a time (replaced after a finding);
    *on_progress* is called every *progress_every* inputs and after each finding."""
    report = Report()
    started = time.monotonic()
    tasks = list(tasks)
    warm_up(target for target, _ in tasks)
    worker = _Worker()
    try:
        for target, number in tasks:
            outcome, detail, peak = worker.run(target, number)
            if outcome not in ("hang", "crash") and peak > MEMORY_LIMIT:
                outcome, detail = "memory", f"peak resident memory {peak >> 20} MiB"
            report.counts[outcome] += 1
            report.per_target[target] += 1
            if outcome in ("crash", "hang", "memory"):
                report.findings.append((target, number, outcome, detail))
                worker.stop()
                worker = _Worker()
                if on_progress is not None:
                    on_progress(report)
            if on_progress is not None and report.total % progress_every == 0:
                report.seconds = time.monotonic() - started
                on_progress(report)
    finally:
        worker.stop()
    report.seconds = time.monotonic() - started
    return report


def schedule(
    count: int, start: int = 0, weights: Sequence[tuple[str, int]] | None = None
) -> list[tuple[str, int]]:
    """*count* tasks, numbered from *start*, spread over the targets by *weights*."""
    weights = weights or (
        ("cf", 45),
        ("bind", 15),
        ("cfenv", 10),
        ("yaml", 15),
        ("project", 15),
        ("template", 5),
    )
    # interleaved: each target's turns spread evenly over a cycle of sum(weights)
    cycle = [
        target
        for _, target in sorted((k / weight, target) for target, weight in weights for k in range(weight))
    ]
    return [(cycle[i % len(cycle)], start + i) for i in range(count)]
