"""The layer rules of `cfmodel/`, checked on its import graph (read from the source, not run).

* grammars import no transforms (parsing builds trees and evaluates nothing);
* metamodel imports no transforms, grammars or serializers;
* serializers import no transforms (they hold formats; the runtime below them both);
* serializers and transforms import no CLI (``cfmodel/cli.py``, ``cfmodel/commands/``) and
  no façade (``cfmodel/pipeline.py``): no step calls back up;
* no import cycles between modules — counting function-local imports (an import moved into
  a function does not make a cycle go away) and the package ``__init__`` an import runs
  (importing ``a.b.c`` runs ``a.b``); imports under ``TYPE_CHECKING`` are types only;
* a function-local import in ``transforms/`` only defers loading (marked ``# lazy: why``);
* the CLI (``cfmodel/cli.py`` and every module of ``cfmodel/commands/``) imports no transform,
  nor any other module that imports one (``cfmodel.mcl``, ``cfmodel.saved``, ...): it reaches
  the transforms through the façade, ``cfmodel/pipeline.py``, only;
* no module keeps a cache keyed by ``id()`` (compiles are reentrant: such caches belong to
  the object of one compile, comparison or reading).

The import rules hold for imports under ``TYPE_CHECKING`` too: a type from a higher layer is
still a dependency on it.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "cfmodel"

FORBIDDEN = {
    "grammars": {"transforms", "pipeline", "cli"},
    "metamodel": {"transforms", "grammars", "serializers", "pipeline", "cli"},
    "serializers": {"transforms", "pipeline", "cli"},
    "transforms": {"pipeline", "cli"},
}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the module imported (a module of cfmodel)
    line: int
    local: bool  # inside a function
    typing_only: bool  # under `if TYPE_CHECKING:`


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _targets(source: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = source.split(".") if is_package else source.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join([*base, node.module] if node.module else base)
    else:
        prefix = node.module or ""
    known = modules()
    return [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in known else prefix for a in node.names]


def _known(target: str) -> str | None:
    known = modules()
    while target not in known and "." in target:
        target = target.rsplit(".", 1)[0]
    return target if target in known and target.startswith("cfmodel") else None


@functools.cache
def imports() -> tuple[Import, ...]:
    found: list[Import] = []
    for source, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"

        def visit(
            node: ast.AST, local: bool, typing_only: bool, source: str = source, pkg: bool = is_package
        ) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Import | ast.ImportFrom):
                    for target in _targets(source, pkg, child):
                        known = _known(target)
                        if known is not None and known != source:
                            found.append(Import(source, known, child.lineno, local, typing_only))
                elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    visit(child, local, True)
                    for other in child.orelse:
                        visit(other, local, typing_only)
                elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                    visit(child, True, typing_only)
                else:
                    visit(child, local, typing_only)

        visit(tree, False, False)
    return tuple(found)


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in ("cli", "commands"):
        return "cli"
    return parts[1] if len(parts) > 1 else ""


def _lineage(module: str) -> list[str]:
    """The module and the packages above it (importing it runs each of them)."""
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 1, -1)]


def runtime_graph() -> dict[str, set[str]]:
    """Module → the modules its imports run (TYPE_CHECKING excluded; local imports included).

    Importing ``a.b.c`` runs ``a.b`` and ``a.b.c``; the packages above the importer itself
    are already running and add no edge.
    """
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    for found in imports():
        if found.typing_only:
            continue
        own = set(_lineage(found.source))
        graph[found.source].update(m for m in _lineage(found.target) if m not in own and m in graph)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_layers_import_only_downwards() -> None:
    broken = [
        f"{found.source}:{found.line} imports {found.target}"
        for found in imports()
        if layer(found.target) in FORBIDDEN.get(layer(found.source), ())
    ]
    assert not broken, "layer rules broken:\n" + "\n".join(broken)


# The CLI's modules: `cfmodel/cli.py` and every module of `cfmodel/commands/`.
def cli_modules() -> list[str]:
    return sorted(m for m in modules() if layer(m) == "cli")


# The façade, and the package itself (``from cfmodel import __version__``; its public names
# are imported on first use).
FACADES = ("cfmodel.pipeline", "cfmodel")


def test_every_command_calls_the_facade_only() -> None:
    """No module of the CLI imports a transform (not even a type), nor a module outside the
    transforms that imports one (a second door into them, as ``cfmodel.mcl`` chains mcl's
    stages): every step a command runs is a function of `cfmodel.pipeline`."""
    cli = cli_modules()
    assert {
        "cfmodel.cli",
        "cfmodel.commands.graph",
        "cfmodel.commands.mcl",
        "cfmodel.commands._sides",
    } <= set(cli)
    doors = {
        i.source for i in imports() if layer(i.target) == "transforms" and layer(i.source) != "transforms"
    } - set(FACADES)
    assert "cfmodel.mcl" in doors  # the check sees a second door
    around = [
        f"{found.source}:{found.line} imports {found.target}"
        for found in imports()
        if found.source in cli and (layer(found.target) == "transforms" or found.target in doors)
    ]
    assert not around, "call the step through cfmodel.pipeline:\n" + "\n".join(around)


def test_every_command_that_runs_a_step_goes_through_the_facade() -> None:
    """Each command module that runs a pipeline step (all but the ones that only read or
    write the parse cache, print error codes or shell completions) calls `cfmodel.pipeline`."""
    no_steps = {
        "cfmodel.cli",
        "cfmodel.commands",
        "cfmodel.commands.cache",
        "cfmodel.commands.codes",
        "cfmodel.commands.completion",
    }
    for command in cli_modules():
        if command not in no_steps:
            assert any(i.source == command and i.target == "cfmodel.pipeline" for i in imports()), command


def test_no_import_cycles() -> None:
    assert cycles(runtime_graph()) == []


def test_function_local_imports_in_transforms_only_load_lazily() -> None:
    """A function-local import in transforms/ defers a heavy dependency (the bindings engine
    for a compile without bindings) and says so with ``# lazy: why``; it never dodges a
    cycle (`test_no_import_cycles` counts it)."""
    unmarked = []
    for found in imports():
        if found.local and layer(found.source) == "transforms":
            line = modules()[found.source].read_text(encoding="utf-8").splitlines()[found.line - 1]
            if "# lazy:" not in line:
                unmarked.append(f"{found.source}:{found.line} imports {found.target}")
    assert not unmarked, (
        "import at the top of the module, or mark a deferred import '# lazy: why':\n" + "\n".join(unmarked)
    )


def test_the_checks_see_what_they_check() -> None:
    seen = imports()
    assert len(modules()) > 80 and len(seen) > 500
    # a local import, a TYPE_CHECKING import and a package import are all recognised
    assert any(i.local and i.source.startswith("cfmodel.commands") for i in seen)
    assert any(i.typing_only for i in seen)
    assert any(i.target == "cfmodel.transforms.cf.refine" for i in seen)
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # importing a submodule runs its package, except for the importer's own packages
    graph = runtime_graph()
    assert "cfmodel.transforms.bindings.compose" in graph["cfmodel.transforms.cf.refine.injection"]
    assert "cfmodel.transforms.cf.refine" not in graph["cfmodel.transforms.cf.refine.evaluator"]


def _module_level_containers(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level to a dict, set or list (literal or made)."""
    makers = ("dict", "set", "list", "defaultdict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary")
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        made = isinstance(value, ast.Call) and ast.unparse(value.func).rsplit(".", 1)[-1] in makers
        if isinstance(value, ast.Dict | ast.Set | ast.List) or made:
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _keyed_by_id(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"


def id_keyed_caches(tree: ast.Module) -> list[tuple[int, str]]:
    """``NAME[id(x)]``, ``NAME.get(id(x))`` (``setdefault``, ``pop``, ``add``, ``discard``),
    ``id(x) in NAME`` on a module-level container NAME: (line, NAME)."""
    containers = _module_level_containers(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _keyed_by_id(node.slice):
            owner = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "setdefault", "pop", "add", "discard")
            and node.args
            and _keyed_by_id(node.args[0])
        ):
            owner = node.func.value
        elif (
            isinstance(node, ast.Compare)
            and _keyed_by_id(node.left)
            and isinstance(node.ops[0], ast.In | ast.NotIn)
        ):
            owner = node.comparators[0]
        else:
            continue
        if isinstance(owner, ast.Name) and owner.id in containers:
            found.append((node.lineno, owner.id))
    return sorted(found)


def test_no_module_level_cache_is_keyed_by_id() -> None:
    """A cache keyed by ``id()`` belongs to one compile, comparison or reading (an object of
    it), never to a module: a module-level one is shared by every compile (not reentrant),
    and either keeps its objects alive forever or answers for a new object that got a dead
    one's id."""
    found = [
        f"{source}:{line} {name}"
        for source, path in modules().items()
        for line, name in id_keyed_caches(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == [], "keep the cache on the object of one compile, comparison or reading"


def test_the_id_check_sees_a_module_level_cache() -> None:
    source = (
        "_SEEN: dict[int, str] = {}\n"
        "_MADE = dict()\n"
        "def f(x, local={}):\n"
        "    mine: dict[int, str] = {}\n"
        "    mine[id(x)] = local.get(id(x))\n"
        "    _MADE.setdefault(id(x), 1)\n"
        "    _DONE.add(id(x)) if id(x) not in _DONE else None\n"
        "    return _SEEN.get(id(x)) or _SEEN[id(x)]\n"
    )
    source = "_DONE = set()\n" + source
    found = id_keyed_caches(ast.parse(source))
    assert found == [(7, "_MADE"), (8, "_DONE"), (8, "_DONE"), (9, "_SEEN"), (9, "_SEEN")]
