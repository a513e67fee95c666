"""Autoedges: the edges mgmt adds by itself between file-like resources.

Input: the interpreted `Output`. Output: the same output (changed in place) with
the edges mgmt's autoedge adds, unless a resource says ``Meta:autoedge => false``:

* a ``file`` depends on the nearest ancestor directory the program manages (``file``
  named ``/a/b/`` for ``/a/b/c``, or ``/a/`` when ``/a/b/`` is not managed): the
  directory is made first; and on the files it is made of (its ``fragments`` and its
  ``source``) when the program manages them;
* a ``user`` with ``group`` (and ``groups``) depends on those ``group`` resources;
* a ``file`` with ``owner``/``group`` depends on that ``user``/``group`` resource.

An edge already present (in either direction) is not added again; autoedges never notify.
Error (``mcl-autoedge``): the edges together make a cycle (mgmt could not order them).
"""

from __future__ import annotations

from cfmodel.errors import CfEvaluationError
from cfmodel.transforms.mcl.interpret import Edge, Output


def add_autoedges(graph: Output) -> Output:
    """Run the stage (see the module docstring).

    Raises:
        CfEvaluationError: the graph has a cycle once autoedges are added (``mcl-autoedge``).
    """
    present = {(e.source, e.target) for e in graph.edges}
    files = {
        r.fields.get("path") or name: (kind, name)
        for (kind, name), r in graph.resources.items()
        if kind == "file"
    }
    wanted: list[tuple[tuple[str, str], tuple[str, str]]] = []
    for key, resource in sorted(graph.resources.items()):
        if resource.meta.get("autoedge") is False:
            continue
        kind = resource.kind
        if kind == "file":
            path = str(resource.fields.get("path") or resource.name)
            parent = _nearest_parent(path, files)
            if parent is not None:
                wanted.append((parent, key))
            for fragment in resource.fields.get("fragments") or ():
                if fragment in files:
                    wanted.append((files[fragment], key))
            source = resource.fields.get("source")
            if isinstance(source, str) and source in files:
                wanted.append((files[source], key))
            if isinstance(resource.fields.get("owner"), str):
                wanted.append((("user", resource.fields["owner"]), key))
            if isinstance(resource.fields.get("group"), str):
                wanted.append((("group", resource.fields["group"]), key))
        elif kind == "user":
            groups = [resource.fields["group"]] if isinstance(resource.fields.get("group"), str) else []
            groups += list(resource.fields.get("groups") or ())
            wanted.extend((("group", g), key) for g in groups)
    for source, target in wanted:
        if source not in graph.resources or source == target:
            continue
        if (source, target) in present or (target, source) in present:
            continue
        present.add((source, target))
        graph.add_edge(Edge(source, target, "requires", auto=True), graph.resources[target].span)
    _check_acyclic(graph)
    return graph


def _nearest_parent(path: str, files: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
    trimmed = path.rstrip("/")
    while "/" in trimmed:
        trimmed = trimmed.rsplit("/", 1)[0]
        candidate = trimmed + "/"
        if candidate in files:
            return files[candidate]
    return None


def _check_acyclic(graph: Output) -> None:
    successors: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for edge in graph.edges:
        successors.setdefault(edge.source, []).append(edge.target)
    state: dict[tuple[str, str], int] = {}
    for start in sorted(successors):
        if state.get(start):
            continue
        stack = [(start, iter(successors.get(start, ())))]
        state[start] = 1
        path = [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            if state.get(child) == 1:
                cycle = [*path[path.index(child) :], child]
                names = " -> ".join(f"{k}[{n}]" for k, n in cycle)
                span = graph.resources[child].span if child in graph.resources else None
                raise CfEvaluationError(f"the resource graph has a cycle: {names}", span, "mcl-autoedge")
            if not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(successors.get(child, ()))))
