"""A ``Comparison`` as text (optionally coloured), JSON and a self-contained HTML page.

Input: a ``Comparison``. Output: ``to_text`` (``+`` added, ``-`` removed, ``~`` changed, one
indented line per attribute ``name: left → right`` or relation ``name: +target -target``;
then resources and edges; a summary line; ANSI colours only when ``color``), ``to_json``
(sorted keys, two-space indent), ``to_html`` (one page with its own style sheet, no scripts,
every text escaped; ``fragment`` for a notebook cell).

Guarantees: byte-identical output for equal comparisons; values shown as JSON.
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: model imports this module for its display methods
    from cfmodel.transforms.diff.model import Comparison, ObjectDiff

MARK = {"added": "+", "removed": "-", "changed": "~"}
COLOUR = {"added": "\x1b[32m", "removed": "\x1b[31m", "changed": "\x1b[33m"}
RESET = "\x1b[0m"
MAX_SHOWN = 200  # characters of one value in text and HTML


def show(value: Any) -> str:
    """A value as JSON text (shortened past ``MAX_SHOWN`` characters)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


def summary(comparison: Comparison) -> str:
    if comparison.equal:
        return "no differences"
    counts = comparison.counts()
    return ", ".join(f"{n} {what}" for what, n in counts.items())


def to_text(comparison: Comparison, color: bool = False) -> str:
    lines = [f"--- {comparison.left}", f"+++ {comparison.right}"]

    def paint(change: str, text: str) -> str:
        return f"{COLOUR[change]}{text}{RESET}" if color else text

    for title, items in (("instances", comparison.objects), ("resources", comparison.resources)):
        if items:
            lines.append(f"{title}:")
            for item in items:
                lines.extend(_item_lines(item, paint))
    if comparison.edges:
        lines.append("edges:")
        for edge in comparison.edges:
            lines.append(
                paint(edge.change, f"{MARK[edge.change]} {edge.kind} {edge.source} -> {edge.target}")
            )
    lines.append(summary(comparison))
    return "\n".join(lines) + "\n"


def _item_lines(item: ObjectDiff, paint: Any) -> list[str]:
    lines = [paint(item.change, f"{MARK[item.change]} {item.class_name} {item.identity}")]
    for change in item.attributes:
        lines.append(f"    {change.feature}: {show(change.left)} → {show(change.right)}")
    for ref in item.references:
        moved = [*(f"+{t}" for t in ref.added), *(f"-{t}" for t in ref.removed)]
        lines.append(f"    {ref.feature}: {' '.join(moved) or '(order)'}")
    return lines


def to_data(comparison: Comparison) -> dict[str, Any]:
    def item(d: ObjectDiff) -> dict[str, Any]:
        out: dict[str, Any] = {"change": d.change, "id": d.identity, "class": d.class_name}
        if d.attributes:
            out["attributes"] = [{"name": c.feature, "left": c.left, "right": c.right} for c in d.attributes]
        if d.references:
            out["references"] = [
                {"name": r.feature, "added": list(r.added), "removed": list(r.removed)} for r in d.references
            ]
        if d.values:
            out["values"] = d.values
        return out

    return {
        "left": comparison.left,
        "right": comparison.right,
        "equal": comparison.equal,
        "summary": comparison.counts(),
        "instances": [item(d) for d in comparison.objects],
        "resources": [item(d) for d in comparison.resources],
        "edges": [
            {"change": e.change, "kind": e.kind, "source": e.source, "target": e.target}
            for e in comparison.edges
        ],
    }


def to_json(comparison: Comparison) -> str:
    return json.dumps(to_data(comparison), indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.5em; }
table { border-collapse: collapse; width: 100%; margin-bottom: 0.5em; }
td, th { border: 1px solid #ddd; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }
code { font-family: ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; }
tr.added td.mark { background: #e6ffec; } tr.removed td.mark { background: #ffebe9; }
tr.changed td.mark { background: #fff8c5; }
.old { color: #b31d28; } .new { color: #22863a; } .summary { font-weight: bold; }
"""


def to_html(comparison: Comparison, fragment: bool = False) -> str:
    e = html.escape
    parts = [
        f"<h1>Differences: <code>{e(comparison.left)}</code> → <code>{e(comparison.right)}</code></h1>",
        f'<p class="summary">{e(summary(comparison))}</p>',
    ]
    for title, items in (("Instances", comparison.objects), ("Resources", comparison.resources)):
        if not items:
            continue
        parts.append(f"<h2>{title}</h2><table><tr><th></th><th>class</th><th>id</th><th>what</th></tr>")
        for item in items:
            parts.append(
                f'<tr class="{item.change}"><td class="mark">{MARK[item.change]}</td>'
                f"<td><code>{e(item.class_name)}</code></td><td><code>{e(item.identity)}</code></td>"
                f"<td>{_html_details(item)}</td></tr>"
            )
        parts.append("</table>")
    if comparison.edges:
        parts.append("<h2>Edges</h2><table><tr><th></th><th>kind</th><th>from</th><th>to</th></tr>")
        for edge in comparison.edges:
            parts.append(
                f'<tr class="{edge.change}"><td class="mark">{MARK[edge.change]}</td><td>{e(edge.kind)}</td>'
                f"<td><code>{e(edge.source)}</code></td><td><code>{e(edge.target)}</code></td></tr>"
            )
        parts.append("</table>")
    body = "\n".join(parts)
    if fragment:
        return f"<div>{body}</div>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>cfmodel diff</title><style>{_STYLE}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


def _html_details(item: ObjectDiff) -> str:
    e = html.escape
    rows: list[str] = []
    for change in item.attributes:
        rows.append(
            f'<code>{e(change.feature)}</code>: <code class="old">{e(show(change.left))}</code> → '
            f'<code class="new">{e(show(change.right))}</code>'
        )
    for ref in item.references:
        moved = [
            *(f'<code class="new">+{e(t)}</code>' for t in ref.added),
            *(f'<code class="old">-{e(t)}</code>' for t in ref.removed),
        ]
        rows.append(f"<code>{e(ref.feature)}</code>: {' '.join(moved)}")
    for name, value in item.values.items():
        rows.append(f"<code>{e(name)}</code> = <code>{e(show(value))}</code>")
    return "<br>".join(rows)
