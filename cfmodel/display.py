"""Bounded text and HTML for what people look at in a terminal or a notebook.

Every repr built here has a size bound whatever the model: tables show at most
``MAX_ROWS`` rows (then one row saying how many more), cells at most ``MAX_CELL``
characters. HTML is escaped: model values are untrusted text.

Instances (PyEcore objects of a derived metamodel) get their displays from
`attach_displays`: one instance shows its attributes and its relations, each related
instance a summary that opens onto its attributes; an `InstanceList` (what
``result.instances(...)`` returns) shows a table, a page at a time. At most `MAX_FEATURES`
features, `MAX_ITEMS` values of a many-valued feature and `MAX_COLUMNS` columns are shown.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
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


# ---------------------------------------------------------------- instances (PyEcore objects)

#: Features shown per instance, items shown per many-valued feature, and related instances
#: opened inline per relation: each display stays bounded whatever the model.
MAX_FEATURES = 40
MAX_ITEMS = 10
MAX_COLUMNS = 12
#: Once an instance's HTML is this long, further related instances show as labels only.
HTML_BUDGET = 100_000


def qualified_name(eclass: Any) -> str:
    """``web::services::Vhost`` for a class of package ``services`` inside ``web``."""
    names = [str(eclass.name)]
    package = eclass.ePackage
    while package is not None:
        names.insert(0, str(package.name))
        package = package.eSuperPackage
    return "::".join(names)


#: The annotation the derived metamodel's classes carry for their indexes (`lift.INDEX`).
INDEX_ANNOTATION = "http://cfmodel.org/index"


def _key_names(eclass: Any) -> list[str]:
    """What names an instance of *eclass*: ``name``, else the attributes of its first index."""
    names = {f.name for f in eclass.eAllAttributes() if not f.many}
    if "name" in names:
        return ["name"]
    for klass in [eclass, *eclass.eAllSuperTypes()]:
        for annotation in klass.eAnnotations:
            if annotation.source == INDEX_ANNOTATION and "1" in annotation.details:
                keys = [key.strip() for key in str(annotation.details["1"]).split(",")]
                return [key for key in keys if key in names]
    return []


def label(obj: Any) -> str:
    """``web::Server web1.example.com``: the class and what names the instance (its ``name``,
    else its first index's attribute values, else its first non-empty string attribute), clipped."""
    eclass = obj.eClass
    values = [getattr(obj, name, None) for name in _key_names(eclass)]
    if not any(v not in (None, "") for v in values):
        strings = (getattr(obj, f.name, None) for f in eclass.eAllAttributes() if not f.many)
        values = [next((v for v in strings if isinstance(v, str) and v), None)]
    shown = " ".join(_value_text(v) for v in values if v not in (None, ""))
    return clip(f"{qualified_name(eclass)} {shown}" if shown else qualified_name(eclass), 120)


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return clip(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return clip(str(value))


def _items(values: Any) -> tuple[list[Any], int]:
    """At most `MAX_ITEMS` of a many-valued feature's values, and how many there are."""
    shown: list[Any] = []
    if values is None:
        return shown, 0
    for item in values:
        if len(shown) == MAX_ITEMS:
            break
        shown.append(item)
    return shown, len(values)


def _feature_text(obj: Any, feature: Any) -> str:
    value = getattr(obj, feature.name, None)
    is_reference = feature.eClass.name == "EReference"
    show = label if is_reference else _value_text
    if not feature.many or value is None:
        return "null" if value is None else show(value)
    shown, count = _items(value)
    more = f", … {count - len(shown)} more" if count > len(shown) else ""
    return "[" + ", ".join(show(item) for item in shown) + more + "]"


def _features(eclass: Any) -> tuple[list[Any], list[Any], int]:
    """A class's attributes and references (at most `MAX_FEATURES` of each) and how many
    features are left out."""
    every = list(eclass.eAllStructuralFeatures())
    attributes = [f for f in every if f.eClass.name != "EReference"]
    references = [f for f in every if f.eClass.name == "EReference"]
    shown = attributes[:MAX_FEATURES], references[:MAX_FEATURES]
    return shown[0], shown[1], len(every) - len(shown[0]) - len(shown[1])


def instance_text(obj: Any) -> str:
    """An instance as text: its label, then one line per attribute and relation (bounded)."""
    attributes, references, hidden = _features(obj.eClass)
    lines = [label(obj)]
    lines += [f"  {f.name} = {_feature_text(obj, f)}" for f in attributes]
    lines += [f"  {f.name} -> {_feature_text(obj, f)}" for f in references]
    if hidden:
        lines.append(f"  … {hidden} more features")
    return "\n".join(lines)


def _attribute_rows(obj: Any, attributes: Sequence[Any]) -> str:
    return "".join(
        f"<tr><td>{html.escape(f.name)}</td><td>{html.escape(_feature_text(obj, f))}</td></tr>"
        for f in attributes
    )


def _related_html(target: Any) -> str:
    """A related instance: its label, opening onto its attributes (one level, no further)."""
    attributes, _, _ = _features(target.eClass)
    return (
        f"<details><summary>{html.escape(label(target))}</summary>"
        f"<table><tbody>{_attribute_rows(target, attributes)}</tbody></table></details>"
    )


def instance_html(obj: Any) -> str:
    """An instance as HTML: its attributes, then its relations, each related instance a
    summary that opens onto that instance's attributes (bounded, escaped: once `HTML_BUDGET`
    characters are made, related instances are labels only)."""
    attributes, references, hidden = _features(obj.eClass)
    rows = [_attribute_rows(obj, attributes)]
    size = len(rows[0])
    for f in references:
        value = getattr(obj, f.name, None)
        targets, total = _items(value) if f.many else ([value] if value is not None else [], 1)
        parts = []
        for target in targets:
            parts.append(_related_html(target) if size < HTML_BUDGET else html.escape(label(target)) + "<br>")
            size += len(parts[-1])
        cell = "".join(parts) or ("[]" if f.many else "null")
        if total > len(targets):
            cell += f"… {total - len(targets)} more"
        rows.append(f"<tr><td>{html.escape(f.name)} →</td><td>{cell}</td></tr>")
    if hidden:
        rows.append(f'<tr><td colspan="2">… {hidden} more features</td></tr>')
    return (
        f'<div class="cfmodel"><strong>{html.escape(label(obj))}</strong>'
        f"<table><thead><tr><th>feature</th><th>value</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _pretty(obj: Any, printer: Any, cycle: bool) -> None:
    printer.text(instance_text(obj) if not cycle else label(obj))


def attach_displays(packages: Iterable[Any]) -> None:
    """Give every class of *packages* (and their subpackages) the notebook displays:
    ``_repr_html_`` (`instance_html`) and IPython's text (`instance_text`). Python's own
    ``repr`` stays PyEcore's."""
    for package in packages:
        for classifier in package.eClassifiers:
            python_class = getattr(classifier, "python_class", None)
            if classifier.eClass.name == "EClass" and python_class is not None:
                python_class._repr_html_ = instance_html
                python_class._repr_pretty_ = _pretty
        attach_displays(package.eSubpackages)


class InstanceList(list[Any]):
    """A list of instances that shows itself as a table (one row per instance, a column per
    attribute of the first one's class), one page of `MAX_ROWS` rows at a time: ``page(n)``
    is the n-th page (from 1). Its text is one line. Otherwise an ordinary list."""

    def __init__(
        self, items: Iterable[Any] = (), title: str = "instances", first: int = 0, of: int | None = None
    ):
        super().__init__(items)
        self.title, self.first, self.of = title, first, of

    def page(self, number: int, size: int = MAX_ROWS) -> InstanceList:
        """The instances of page *number* (1 is the first), *size* to a page."""
        if number < 1 or size < 1:
            raise ValueError("pages are numbered from 1, and hold at least one instance")
        start = (number - 1) * size
        return InstanceList(self[start : start + size], self.title, self.first + start, self.of or len(self))

    def _where(self) -> str:
        total = self.of if self.of is not None else len(self)
        if not self:
            return f"{self.title}: none"
        last = self.first + min(len(self), MAX_ROWS)
        if self.first == 0 and last == total:
            return f"{self.title}: {total:,} instance{'s' if total != 1 else ''}"
        return f"{self.title}: {self.first + 1:,}-{last:,} of {total:,}"

    def __repr__(self) -> str:
        shown = [label(obj) for obj in self[:MAX_ITEMS]]
        more = [f"… {len(self) - MAX_ITEMS} more"] if len(self) > MAX_ITEMS else []
        return f"<{self._where()} ({', '.join(shown + more)})>" if self else f"<{self._where()}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        attributes = [f for f in _features(self[0].eClass)[0]][:MAX_COLUMNS] if self else []
        headers = ["#", "instance", *(f.name for f in attributes)]
        rows = [
            [str(self.first + n + 1), label(obj), *(_feature_text(obj, f) for f in attributes)]
            for n, obj in enumerate(self[:MAX_ROWS])
        ]
        page = html_table(self._where(), headers, rows)
        if len(self) > MAX_ROWS:
            page_number = self.first // MAX_ROWS + 2
            page += f"<p>… <code>.page({page_number})</code> shows the next {MAX_ROWS}</p>"
        return page
