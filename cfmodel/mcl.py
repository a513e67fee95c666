"""mcl programs from text to resource graph: the stages of `cfmodel.transforms.mcl` chained.

``compile(path, facts=...)`` reads a program (a ``.mcl`` file, or a directory with
``main.mcl`` or a ``metadata.yaml`` naming its main file), runs every stage and returns a
`Compiled`: the resource graph model (``graph``), the output with mcl's values (``output``)
and the unified type of every expression that
runs (``type_of(expr)``). Each stage can also run on its own (``parse``, ``check``).

Errors are raised as `CfModelError`s whose code names the stage (``mcl-parse``,
``mcl-interpolate``, ``mcl-scope``, ``mcl-unify-*``, ``mcl-runtime``, ``mcl-interpret``,
``mcl-autoedge``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cfmodel.errors import CfLoadError, Span
from cfmodel.grammars import mcl as mcl_grammar
from cfmodel.grammars import mcl_nodes as n
from cfmodel.inputs import load_yaml, read_text, yaml_error_span, yaml_problem
from cfmodel.metamodel.mcl_kinds import Kind, builtin_kinds
from cfmodel.metamodel.resource_graph import ResourceGraph
from cfmodel.transforms.mcl.autoedge import add_autoedges
from cfmodel.transforms.mcl.core import core_library
from cfmodel.transforms.mcl.evaluate import Evaluator
from cfmodel.transforms.mcl.funcs import Library, World
from cfmodel.transforms.mcl.interpolate import interpolate
from cfmodel.transforms.mcl.interpret import Output, interpret
from cfmodel.transforms.mcl.scope import Resolution, resolve_scope
from cfmodel.transforms.mcl.to_graph import to_resource_graph
from cfmodel.transforms.mcl.types import Type
from cfmodel.transforms.mcl.unify import Typing, unify

__all__ = ["Checked", "Compiled", "check", "compile", "compile_str", "main_file", "parse"]


@dataclass
class Checked:
    """A program after unification: its tree, scope and types (nothing has run)."""

    program: n.Program
    resolution: Resolution
    typing: Typing
    sources: dict[str, str] = field(default_factory=dict)

    def type_of(self, expr: object) -> Type:
        """The unified type of an expression of the program (one that runs)."""
        return self.typing.type_of(expr)

    def __repr__(self) -> str:  # bounded: the fields hold the whole program
        return f"<Checked {self.program.file}: {len(self.program.statements)} statements>"


@dataclass
class Compiled(Checked):
    """A compiled program: `Checked` plus its output (resources with mcl values, edges) and
    its resource graph model (``cfmodel.metamodel.resource_graph``, language ``mcl``)."""

    output: Output = field(default_factory=Output)
    graph: ResourceGraph = field(default_factory=ResourceGraph)

    def __repr__(self) -> str:  # bounded: the fields hold the whole program
        return f"<Compiled {self.program.file}: {self.graph._size()}>"

    def _repr_html_(self) -> str:
        """Jupyter: the resource graph as a table (``cfmodel.graph_picture(compiled.graph)`` draws it)."""
        return self.graph._repr_html_()


def main_file(path: str | Path) -> Path:
    """The main ``.mcl`` file of a program path (file, or directory with ``metadata.yaml``
    or ``main.mcl``).

    Raises:
        CfLoadError: nothing to compile there (code ``mcl-parse``).
    """
    path = Path(path)
    if path.is_dir():
        metadata = path / "metadata.yaml"
        if metadata.is_file():
            try:
                data = load_yaml(read_text(metadata))  # bounded; not-utf8 is a located error
            except OSError as err:
                raise CfLoadError(
                    f"cannot read {metadata}: {err}", Span(str(metadata), 1, 1, 1, 1), "mcl-parse"
                ) from None
            except yaml.YAMLError as err:
                message = f"cannot read {metadata.name}: {yaml_problem(err)[0]}"
                raise CfLoadError(message, yaml_error_span(err, str(metadata)), "mcl-parse") from None
            main = data.get("main") if isinstance(data, dict) else None
            return path / (main if isinstance(main, str) and main else "main.mcl")
        return path / "main.mcl"
    return path


def parse(path: str | Path) -> n.Program:
    """The syntax tree of one ``.mcl`` file (nothing else runs)."""
    return mcl_grammar.parse_file(path)


class _Session:
    def __init__(self, library: Library | None, kinds: Mapping[str, Kind] | None) -> None:
        self.library = library if library is not None else core_library()
        self.kinds = dict(builtin_kinds())
        if kinds:
            self.kinds.update(kinds)
        self.sources: dict[str, str] = {}

    def read(self, path: Path, display: str | None = None) -> n.Program:
        name = display if display is not None else str(path)
        text = mcl_grammar.read_source(path, name)
        return self.read_text(text, name)

    def read_text(self, text: str, name: str) -> n.Program:
        self.sources[name] = text
        return interpolate(mcl_grammar.parse_str(text, name))

    def check(self, program: n.Program, base_dir: Path | None) -> Checked:
        resolution = resolve_scope(program, self.library, self.read, base_dir)
        typing = unify(program, resolution, self.kinds, self.sources)
        return Checked(program, resolution, typing, self.sources)

    def run(self, checked: Checked, facts: Mapping[str, Any], files_dir: Path | None) -> Compiled:
        evaluator = Evaluator(checked.resolution, checked.typing, World(dict(facts), files_dir))
        output = add_autoedges(interpret(checked.program, evaluator, self.kinds))
        graph = self.to_model(output, checked.program.file)
        return Compiled(checked.program, checked.resolution, checked.typing, checked.sources, output, graph)

    def to_model(self, output: Output, name: str = "main.mcl") -> ResourceGraph:
        return to_resource_graph(output, name, self.sources)


def check(
    path: str | Path, *, library: Library | None = None, kinds: Mapping[str, Kind] | None = None
) -> Checked:
    """Parse, interpolate, resolve and unify a program (nothing runs)."""
    session = _Session(library, kinds)
    main = main_file(path)
    return session.check(session.read(main, str(main)), main.parent)


def compile(
    path: str | Path,
    facts: Mapping[str, Any] | None = None,
    *,
    library: Library | None = None,
    kinds: Mapping[str, Kind] | None = None,
) -> Compiled:
    """Compile a program to its resource graph.

    Args:
        path: a ``.mcl`` file or a program directory.
        facts: what world-reading functions read (``hostname``, ``now``...).
        library: the functions (default: the core library); add your own `Function`s.
        kinds: resource kinds besides the built-in ones.

    Raises:
        CfModelError: the first stage that fails, with every diagnostic of that stage.
    """
    session = _Session(library, kinds)
    main = main_file(path)
    checked = session.check(session.read(main, str(main)), main.parent)
    return session.run(checked, facts or {}, main.parent)


def compile_str(
    text: str,
    facts: Mapping[str, Any] | None = None,
    *,
    name: str = "main.mcl",
    base_dir: Path | None = None,
    library: Library | None = None,
    kinds: Mapping[str, Kind] | None = None,
) -> Compiled:
    """`compile` for source text (imports of local files are relative to *base_dir*)."""
    session = _Session(library, kinds)
    checked = session.check(session.read_text(text, name), base_dir)
    return session.run(checked, facts or {}, base_dir)
