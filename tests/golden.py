"""Golden case files: ``[case name]`` blocks with an input and the expected ``[out]``.

A file holds many cases::

    [case entity-with-defaults]
    entity Host:
        string name = "x"
    end
    [out]
    Module main.cf
      ...

The runner compares the *full* expected text. ``pytest --update-golden`` rewrites the
``[out]`` sections from what the code produces now; review that diff before committing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_CASE = re.compile(r"^\[case ([\w.-]+)\]\n", re.M)


@dataclass
class Case:
    name: str
    source: str
    expected: str
    file: Path


def load_cases(path: Path) -> list[Case]:
    text = path.read_text(encoding="utf-8")
    cases = []
    starts = list(_CASE.finditer(text))
    for i, match in enumerate(starts):
        body = text[match.end() : starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        source, _, expected = body.partition("[out]\n")
        cases.append(Case(match.group(1), source, expected.rstrip("\n") + "\n" if expected else "", path))
    return cases


def rewrite_case(case: Case, actual: str) -> None:
    """Replace the [out] section of *case* in its file with *actual*."""
    text = case.file.read_text(encoding="utf-8")
    starts = list(_CASE.finditer(text))
    for i, match in enumerate(starts):
        if match.group(1) != case.name:
            continue
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        body = text[match.end() : end]
        source = body.partition("[out]\n")[0]
        tail = "\n" if i + 1 < len(starts) else ""
        new_body = source + "[out]\n" + actual.rstrip("\n") + "\n" + tail
        case.file.write_text(text[: match.end()] + new_body + text[end:], encoding="utf-8")
        return
    raise KeyError(case.name)
