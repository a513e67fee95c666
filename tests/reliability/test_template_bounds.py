"""Templates are untrusted data with a bound on time and memory (issue 12, "bounded
resources everywhere"): a sandboxed template with a huge loop, ``range(10**9)``, a
string multiplied or doubled past every size, a power, a runaway macro, or a value
printed a million times is refused with a located error (the ``std::template`` call,
then the template's own line), fast, and within bounded memory — while ordinary
templates render exactly as before. The bounds are `cfmodel.modules.std.plugins.bounded`'s
and are listed in ``docs/security.md``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cfmodel.modules.std.plugins import bounded
from tests.compiler.conftest import Project, compile_main, error_of, project, values
from tests.reliability.helpers import measure_cli

__all__ = ["project"]  # the fixture

OUT = "entity Out:\n    string v\nend\nimplement Out using std::none\n"
CALL = "import web\n" + OUT + 'name = "x"\nOut(v=std::template("web/t.j2"))\n'


def _template(project: Project, text: str) -> None:
    project.module("web", {"model/_init.cf": "", "templates/t.j2": text})
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})


def test_ordinary_templates_render_as_before(project: Project) -> None:
    text = (
        "{% macro item(x) %}<{{ x }}>{% endmacro %}"
        "{% set ns = namespace(total=0) %}"
        "{% for i in range(3) %}{{ item(i ~ '/' ~ loop.length) }}{% set ns.total = ns.total + i %}{% endfor %}\n"
        "{{ ns.total * 2 }} {{ 2 ** 10 }} {{ '%05.1f' % 3.14159 }} {{ '{}-{}'.format('a', 'b') }}\n"
        "{{ name | upper | center(5) }}|{{ ['b', 'a'] | sort | join(',') }}|{{ 'a,b' | replace(',', ';') }}"
        "|{{ 'ab' * 3 }}|{{ [1, 2][1:] }}|{{ name | std.upper }}|{{ [1, 2, 3] | sum }}|{{ 'x\ny' | indent(2) }}"
    )
    _template(project, text)
    result = compile_main(project, CALL)
    assert values(result, "Out", "v") == [
        "<0/3><1/3><2/3>\n6 1024 003.1 a-b\n  X  |a,b|a;b|ababab|[2]|X|6|x\n  y"
    ]


HOSTILE = {
    "nested-loops": (
        "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
        "line 1: the template ran more than 1,000,000 steps (loop iterations and calls)",
    ),
    "range-1e9": ("{{ range(10**9) | list | length }}", "line 1: Range too big."),
    "string-multiplication": ('{{ "x" * 10**10 }}', "line 1: the repetition would be longer than 10,000,000"),
    "list-multiplication": ("{{ [1, 2] * 10**9 }}", "line 1: the repetition would be longer than 10,000,000"),
    "doubling": (
        '{% set ns = namespace(s="x") %}\n{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}',
        "line 2: the concatenated text would be longer than 10,000,000",
    ),
    "doubling-with-plus": (
        '{% set ns = namespace(s="x") %}\n\n{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}',
        "line 3: the template made a value longer than 10,000,000",
    ),
    "power": ("{{ 10 ** 100000 }}", "line 1: the power would have more than 14,000 bits"),
    "runaway-macro": (
        "{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}",
        "the template's macros or recursive loops nest too deeply",
    ),
    "padding": ('{{ "x" | center(10**9) }}{{ "x".ljust(10**9) }}', "line 1: an argument of 1,000,000,000"),
    "format-width": ('{{ "%0999999999d" % 1 }}', "line 1: a formatted value would be longer than 10,000,000"),
    "replace": ('{{ ("x" * 100000) | replace("", "y" * 1000) }}', "line 1: the replacement would be longer"),
    "join": ('{{ range(100000) | join("x" * 1000) }}', "line 1: the joined text would be longer"),
    "expandtabs": ('{{ ("\t" * 1000).expandtabs(10000000) }}', "line 1: the expanded text would be longer"),
    "quadratic-sum": (
        "{% set l = [[1] * 100000] * 10000 %}{{ l | sum(start=[]) | length }}",
        "line 1: the sum would be longer than 10,000,000",
    ),
    "print-shared-string": (
        '{% set s = "x" * 10000000 %}{% set l = [s] * 1000 %}{{ l }}',
        "line 1: the printed value would be longer than 10,000,000",
    ),
    "long-output": (
        '{% for i in range(100000) %}{{ "x" * 1000 }}{% endfor %}',
        "web/t.j2: the rendered text is longer than 10,000,000 characters",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_runaway_template_is_a_located_error_within_bounds(project: Project, case: str) -> None:
    text, expected = HOSTILE[case]
    _template(project, text)
    start = time.process_time()
    message = error_of(project, CALL)
    assert time.process_time() - start < bounded.MAX_CPU_SECONDS
    assert message.startswith("main.cf:7:7: error: std::template: template web/t.j2: "), message
    assert expected in message, message
    assert message.endswith("[plugin-error]"), message


def test_cpu_time_is_bounded_inside_one_long_operation(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # wordwrap is one filter call (one step) that runs for long in Python code: only the
    # CPU-time bound stops it; it is lowered here so that the test is quick
    monkeypatch.setattr(bounded, "MAX_CPU_SECONDS", 0.5)
    _template(project, '{% for i in range(1000) %}{{ ("ab " * 3000000) | wordwrap(2) | length }}{% endfor %}')
    start = time.process_time()
    message = error_of(project, CALL)
    assert time.process_time() - start < 5
    assert "the template ran longer than 0.5 s of CPU time" in message, message


def test_memory_is_bounded_where_no_size_check_foresees_it(tmp_path: Path) -> None:
    # a thousand distinct 9.5 MB strings: each is under the size limit, together they are
    # over the memory the template may take (512 MiB over what the process had)
    root = tmp_path / "p"
    project = Project(root)
    _template(
        project,
        "{% set ns = namespace(l=[]) %}{% for i in range(1000) %}"
        '{% set ns.l = ns.l + [("x" * 9500000) ~ i] %}{% endfor %}{{ ns.l | length }}',
    )
    (root / "main.cf").write_text(CALL, encoding="utf-8")
    result = measure_cli("compile", ".", "--no-cache", cwd=root, cpu_seconds=60, memory_bytes=4 << 30)
    assert result.returncode == 1, result.stderr
    assert "line 1: the template needs more than 512 MiB of memory" in result.stderr
    # the CLI holds about 100 MiB before rendering; the template may add 512 MiB
    assert (256 << 20) < result.peak_bytes < (512 << 20) + (250 << 20), result.peak_bytes
