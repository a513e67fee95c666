"""Bounded text and HTML for what people look at in a terminal or a notebook.

Every repr built here has a size bound whatever the model: tables show at most
``MAX_ROWS`` rows (then one row saying how many more), cells at most ``MAX_CELL``
characters. HTML is escaped: model values are untrusted text.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

MAX_ROWS = 50
MAX_CELL = 200


def clip(text: str, limit: int = MAX_CELL) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis says it was cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary_repr(title: str, counts: Mapping[str, int]) -> str:
    """``title: N objects (a: 1, b: 2, …)``: one line, at most ``MAX_ROWS`` names."""
    total = sum(counts.values())
    shown = [f"{name}: {count}" for name, count in list(counts.items())[:MAX_ROWS]]
    if len(counts) > MAX_ROWS:
        shown.append(f"… {len(counts) - MAX_ROWS} more classes")
    return f"<{title}: {total} object{'s' if total != 1 else ''} ({', '.join(shown)})>"


def html_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A titled HTML table of at most ``MAX_ROWS`` rows, every cell escaped and clipped."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = [
        "<tr>" + "".join(f"<td>{html.escape(clip(str(cell)))}</td>" for cell in row) + "</tr>"
        for row in rows[:MAX_ROWS]
    ]
    if len(rows) > MAX_ROWS:
        more = len(rows) - MAX_ROWS
        body.append(f'<tr><td colspan="{len(headers)}">… {more} more row{"s" if more > 1 else ""}</td></tr>')
    return (
        f'<div class="cfmodel"><strong>{html.escape(clip(title))}</strong>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )
