"""The pipeline façade: a project directory to its instance model and files, in named steps.

    request ─▶ load ─▶ bindings ─▶ resolve ─▶ evaluate ─▶ lift ─▶ to_model ─▶ write

Each step is a function of this module taking the product of the ones before it and
returning its own, which can be printed (`dump`: the stage names are `STAGES`; ``cfmodel
compile --dump STAGE`` prints one), as Jinja's ``Environment`` chains lexer, parser and
compiler and lets each be called alone:

* `request`: the request sequence (`cfmodel.transforms.environments.request`) for a
  directory with an ``environments.cfenv`` (or when an environment is asked for): which
  main file, module path, injector and facts. None for a directory compiled as it is.
* `load`: the `Project` — the main file and every namespace it imports, parsed.
* `bindings`: the injector of a project compiled as it is (its ``site.bind``,
  ``bindings/``, modules' bindings), by the request sequence on its directory (printed:
  the effective bindings, `dump_bindings`).
* `resolve`: the `LinkedProgram` (`cfmodel.transforms.cf.resolve`).
* `evaluate`: the instances (`cfmodel.transforms.cf.refine`).
* `lift`: the derived metamodel (`cfmodel.transforms.cf.lift`).
* `to_model`: the PyEcore instance model with stable ids (`cfmodel.transforms.cf.model`).
* `write_xmi`, `write_json`: the files (`cfmodel.serializers`), each set made in memory
  first and replaced atomically; `rdf_options`: how the model is written as RDF
  (`CompileResult.to_rdf`, `save_rdf`, `sparql`: docs/rdf.md).

The other commands' steps (``check``, ``env``, ``bindings``, ``ecore``): `check` (load
and resolve, timed), `environments` (the catalog), `request_sequence` (every step of a
request), `bindings_request` (the injector of the ``bindings`` commands), `trusted_facts`,
`import_ecore`, and the models they export (`ModelExport`). Those of ``export``,
``graph``, ``diff``, ``diagram``, ``rdf``/``sparql`` and ``mcl``: `export` (the resources),
`read_graph`, `read_export_graph`, `agent_subgraph`, `transitive_reduction`,
`graph_order`, `graph_picture`, `graph_model`; `class_diagram`, `instance_diagram`;
`read_metamodels`, `metamodel_shapes`; `diff_side`, `diff`, `comparison_text`; and mcl's
stages (`mcl_parse`, `mcl_check`, `mcl_compile`, `mcl_format`, `mcl_graph_text`,
`mcl_output_json`: `cfmodel.mcl` chains them). The CLI reaches the transforms through
this module only (tests/test_layers.py).

`compile_project` runs request, load, bindings, resolve and evaluate and returns a
`CompileResult`: the data of the compile, whose metamodel and model are the lift and
to_model steps, made on first use. No step calls back up: the transforms know nothing of
this module. The CLI, the Python API (`cfmodel.compile_project`) and the benchmarks go
through it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cfmodel.cache import ParseCache
from cfmodel.display import InstanceList, attach_displays, html_table, summary_repr
from cfmodel.errors import CfUsageError, Diagnostic
from cfmodel.grammars import nodes
from cfmodel.project import ModuleInfo, Project, load_project
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf import refine
from cfmodel.transforms.cf.program import LinkedProgram, dump_program
from cfmodel.transforms.cf.refine.injection import EmptyBindings, InjectorLike, has_bindings
from cfmodel.transforms.cf.refine.report import count_instances, dump_instances
from cfmodel.transforms.cf.refine.values import Instance
from cfmodel.transforms.cf.resolve import resolve as resolve_project

if TYPE_CHECKING:
    from pyecore.ecore import EObject, EPackage
    from pyecore.resources import ResourceSet

    from cfmodel.grammars.mcl_nodes import Program as McProgram
    from cfmodel.mcl import Checked as McChecked
    from cfmodel.mcl import Compiled as McCompiled
    from cfmodel.metamodel.resource_graph import Resource, ResourceGraph
    from cfmodel.serializers import rdf
    from cfmodel.serializers.dot import Picture
    from cfmodel.serializers.rdf import RdfOptions
    from cfmodel.sparql import QueryResult, TripleStore
    from cfmodel.transforms.bindings.compose import Injector
    from cfmodel.transforms.bindings.providers import Merge
    from cfmodel.transforms.cf.export import Export
    from cfmodel.transforms.cf.lift import DomainMetamodel
    from cfmodel.transforms.cf.model import InstanceModel
    from cfmodel.transforms.cf.shacl import CfShapes
    from cfmodel.transforms.diff import Comparison, Objects
    from cfmodel.transforms.environments.environments import Evaluation
    from cfmodel.transforms.environments.request import RequestResult

# The request sequence (environments, the bindings engine), lifting, the PyEcore model and
# the writers are imported by the steps that use them: `cfmodel compile` on a project
# without environments or bindings loads none of them (startup time, benchmarks/compile.py).

__all__ = [
    "ENVIRONMENTS_FILE",
    "STAGES",
    "BindingsRequest",
    "Checked",
    "CompileResult",
    "GraphOrder",
    "ModelExport",
    "Progress",
    "agent_subgraph",
    "bindings",
    "bindings_models",
    "bindings_request",
    "check",
    "class_diagram",
    "comparison_text",
    "compile_project",
    "diff",
    "diff_side",
    "dump",
    "effective_bindings_model",
    "environments",
    "environments_model",
    "evaluate",
    "export",
    "forced_merge",
    "graph_model",
    "graph_order",
    "graph_picture",
    "import_ecore",
    "instance_diagram",
    "lift",
    "load",
    "mcl_check",
    "mcl_compile",
    "mcl_format",
    "mcl_graph_text",
    "mcl_main_file",
    "mcl_output_json",
    "mcl_parse",
    "metamodel_shapes",
    "read_export_graph",
    "read_graph",
    "read_metamodels",
    "read_syntax_xmi",
    "request",
    "request_sequence",
    "resolve",
    "syntax_model",
    "syntax_model_dump",
    "syntax_model_xmi",
    "syntax_xmi",
    "to_model",
    "transitive_reduction",
    "trusted_facts",
    "write_json",
    "write_xmi",
]

Progress = Callable[[str, int, int], None]

#: A project directory with this file is compiled through the request sequence.
ENVIRONMENTS_FILE = "environments.cfenv"

#: The stages whose product `dump` prints, in pipeline order.
STAGES = ("request", "load", "bindings", "resolve", "evaluate", "lift", "model")


# ---------------------------------------------------------------------------- the steps


def request(
    path: Path, facts: dict[str, Any] | None = None, environment: str | None = None
) -> RequestResult | None:
    """The request sequence for *path*, or None when the directory is compiled as it is.

    A directory with an ``environments.cfenv``, or any directory when *environment* is
    given, goes through the request sequence: its facts and environment select the
    environment, whose main file, module path and bindings are compiled."""
    if environment is None and not (path / ENVIRONMENTS_FILE).is_file():
        return None
    from cfmodel.transforms.environments.request import run_request

    return run_request(path, dict(facts or {}), environment)


def load(
    where: Path | RequestResult, cache: ParseCache | None = None, progress: Progress | None = None
) -> Project:
    """The project of a directory, or of the environment a request selected (*progress*:
    ``("loading", files, lines)`` after each file)."""
    if isinstance(where, Path):
        return load_project(where, cache, progress=progress)
    from cfmodel.transforms.environments.request import load_target

    return load_target(where.target, cache, progress)


def bindings(
    project: Project, facts: dict[str, Any], environment: str | None = None
) -> tuple[InjectorLike, dict[str, Any], tuple[Diagnostic, ...]]:
    """The injector of a project compiled as it is, the facts the plugins see, and warnings.

    Without bindings (`injection.has_bindings`: ``site.bind``, ``bindings/``, a
    ``bindings:`` section in ``project.yml``, modules with ``bindings/``) nothing is bound;
    else the request sequence on the project's directory makes the injector."""
    if environment is None and not has_bindings(project.root, project.module_path):
        return EmptyBindings(facts), facts, ()
    from cfmodel.transforms.environments.request import run_request

    found = run_request(project.root, facts, environment)
    return found.injector, dict(found.target.facts), found.warnings


def resolve(project: Project) -> LinkedProgram:
    """The linked program: every name and type of the project resolved."""
    return resolve_project(project)


def evaluate(
    program: LinkedProgram,
    project: Project | None = None,
    *,
    facts: dict[str, Any] | None = None,
    injector: InjectorLike | None = None,
    progress: Progress | None = None,
) -> list[Instance]:
    """The instances the program makes (the compile's working tables released)."""
    ev = refine.evaluate(program, project, facts=facts, injector=injector, progress=progress)
    instances = ev.instances
    ev.release()
    return instances


def lift(program: LinkedProgram, *, uri_base: str | None = None, spans: bool = False) -> DomainMetamodel:
    """The derived metamodel: one EPackage per namespace (nsURIs under *uri_base*, default
    ``http://cfmodel.org/model/``; *spans*: source positions recorded as annotations)."""
    from cfmodel.transforms.cf.lift import DEFAULT_URI_BASE, LiftOptions
    from cfmodel.transforms.cf.lift import lift as lift_program

    return lift_program(program, LiftOptions(uri_base=uri_base or DEFAULT_URI_BASE, spans=spans))


def syntax_xmi(tree: nodes.Module) -> bytes:
    """A file's syntax tree as XMI of ``program.ecore`` (`cfmodel parse --format xmi`)."""
    from cfmodel.transforms.cf.program_model import to_xmi

    return to_xmi(tree)


def read_syntax_xmi(data: bytes, name: str = "<bytes>") -> nodes.Module:
    """The syntax tree a program XMI document holds (the inverse of `syntax_xmi`)."""
    from cfmodel.transforms.cf.program_model import from_xmi

    return from_xmi(data, name)


def syntax_model(path: Path, label: str | None = None) -> EObject:
    """The tree of a bindings (``.bind``) or environments (``.cfenv``) file: a model of
    the fixed ``bindings`` or ``environments`` metamodel (its spans stay in the parser's
    side table)."""
    if path.suffix == ".cfenv":
        from cfmodel.grammars import environments

        return environments.parse_file(path, label).root
    from cfmodel.grammars import bindings as bindings_grammar

    return bindings_grammar.parse_file(path, label).root


def syntax_model_xmi(root: EObject) -> bytes:
    """A bindings or environments tree as XMI of its metamodel."""
    from cfmodel.serializers import xmi as xmi_format

    return xmi_format.to_bytes([root])


def syntax_model_dump(root: EObject) -> str:
    """The canonical dump of a bindings or environments tree (`serializers.canonical`)."""
    from cfmodel.serializers import canonical

    return "\n".join(canonical.dump_objects([root])) + "\n"


def to_model(instances: list[Instance], metamodel: DomainMetamodel) -> InstanceModel:
    """The PyEcore instance model; the instances' values move into it."""
    from cfmodel.transforms.cf.model import to_model as instances_to_model

    return instances_to_model(instances, metamodel, release=True)


def write_xmi(
    name: str, metamodel: DomainMetamodel, model: InstanceModel, directory: Path | str
) -> list[Path]:
    """The metamodel (one ``.ecore`` per root package) and ``<name>.xmi`` into *directory*."""
    from cfmodel.serializers import atomic

    files = metamodel.ecore_files()
    files[f"{_file_name(name)}.xmi"] = xmi_bytes(model)  # everything made before anything is written
    return atomic.write_files(directory, files, owner="xmi export")


def write_json(model: InstanceModel, file: Path | str, dialect: str = "emfjson", id_key: str = "@id") -> Path:
    """The instance model as JSON: emfjson-jackson's (``dialect="emfjson"``; ids under
    `id_key`: ``"uuid"`` is what PyEcore's ``JsonResource`` reads), or cfmodel's older
    ``cfmodel-instances`` format."""
    from cfmodel.serializers import atomic

    path = Path(file)
    data = json_bytes(model, dialect=dialect, id_key=id_key)
    if path.parent != Path():
        path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(path, data)
    return path


def xmi_bytes(model: InstanceModel) -> bytes:
    from cfmodel.serializers import xmi as xmi_format

    return xmi_format.to_bytes(model.objects, xmi_format.XmiOptions(id_of=model.id_of))


def json_bytes(
    model: InstanceModel, indent: int | None = 1, dialect: str = "emfjson", id_key: str = "@id"
) -> bytes:
    """The instance model as JSON (see `write_json`).

    Raises:
        CfUsageError: an unknown dialect.
    """
    from cfmodel.serializers import json as json_format

    if dialect not in json_format.DIALECTS:
        raise CfUsageError(f"unknown JSON dialect {dialect!r}; known: {', '.join(json_format.DIALECTS)}")
    options = json_format.JsonOptions(
        id_of=model.id_of,
        indent=indent,
        dialect=dialect,  # type: ignore[arg-type]
        id_key=id_key,
    )
    return json_format.to_bytes(model.objects, options)


def rdf_options(
    name: str,
    metamodel: DomainMetamodel,
    model: InstanceModel,
    with_metamodel: bool = True,
    instances: bool = True,
) -> RdfOptions:
    """How a compiled model is written as RDF: ids from index keys, the metamodel's SHACL
    shapes (`cfmodel.transforms.cf.shacl`), base ``http://cfmodel.org/instances/<name>#``."""
    from urllib.parse import quote

    from cfmodel.serializers.rdf import RdfOptions
    from cfmodel.transforms.cf.shacl import cf_shapes

    return RdfOptions(
        id_of=model.id_of,
        base=f"http://cfmodel.org/instances/{quote(name, safe='')}#",
        metamodel=with_metamodel,
        instances=instances,
        packages=tuple(metamodel.packages),
        shapes=cf_shapes(metamodel),
    )


def _file_name(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return safe or "model"


# ---------------------------------------------------------------------------- compiling


def compile_project(
    project_or_path: Project | Path | str = ".",
    *,
    facts: dict[str, Any] | None = None,
    injector: InjectorLike | None = None,
    environment: str | None = None,
    progress: Progress | None = None,
    cache: ParseCache | None = None,
    keep_sources: bool | None = None,
    on_warning: Callable[[Diagnostic], None] | None = None,
) -> CompileResult:
    """Compile a project (its directory, or a loaded `Project`) for a request.

    The request (docs/environments.md, docs/bindings.md): see `request`; another
    directory, or a loaded `Project`, is compiled as it is with the injector of its
    bindings (`bindings`). The injector answers ``std::inject`` and injects implicitly
    (``bind variables``, ``bind parameters``); *injector* replaces it (any object with
    ``lookup(type_or_name, name=None, *, default=…)``;
    `cfmodel.transforms.bindings.compose.Injector` for implicit injection).

    *facts* reach the injector's categories and the plugins (``Context.facts``; through
    the request sequence with ``environment`` set to the selected environment).
    *progress* is called now and then with (stage, tasks done, instances). The request
    sequence's warnings go to *on_warning* as they happen and are in
    ``result.warnings``. *keep_sources* (default: only when a loaded `Project` is given):
    keep the syntax trees reachable from the result (``result.project``, the top-level
    statements of ``result.program``'s namespaces); without them a large model takes
    less memory.

    Raises:
        CfLoadError, CfCompileError: the request, the project or its bindings cannot be
            loaded, linked or compiled.
        CfEvaluationError: evaluation stopped at an error.
    """
    started = time.perf_counter()
    warnings: list[Diagnostic] = []

    def warn(found: Sequence[Diagnostic]) -> None:
        warnings.extend(found)
        if on_warning is not None:
            for warning in found:
                on_warning(warning)

    request_facts = dict(facts or {})
    # --- the pipeline (docs/architecture.md shows this code as the pipeline's picture)
    requested: RequestResult | None = None
    if isinstance(project_or_path, Project):
        project = project_or_path
        keep = True if keep_sources is None else keep_sources
    else:
        keep = bool(keep_sources)
        if progress is not None:
            progress("loading", 0, 0)
        requested = request(Path(project_or_path), request_facts, environment)
        if requested is not None:
            warn(requested.warnings)
        project = load(requested if requested is not None else Path(project_or_path), cache, progress)
    if requested is not None:
        request_facts = dict(requested.target.facts)
        if injector is None:
            injector = requested.injector
    elif injector is None:
        injector, request_facts, found = bindings(project, request_facts, environment)
        warn(found)
    if progress is not None:
        progress("linking", 0, 0)
    program = resolve(project)
    instances = evaluate(program, project, facts=request_facts, injector=injector, progress=progress)
    # --- end of the pipeline: the result's domain is lift(program), its model to_model(...)
    if not keep:
        for namespace in program.namespaces.values():
            namespace.statements = []
    seconds = time.perf_counter() - started
    kept = project if keep else None
    return CompileResult(
        program, kept, instances, seconds, project.name, warnings, dict(project.modules), project.root
    )


@dataclass(eq=False)
class CompileResult:
    """A compiled project: the data of the compile; its metamodel and model made on first use.

    ``metamodel``/``domain`` is the `lift` step's product, ``model`` the `to_model` step's:
    once the model is made the instances' values have moved into it (`raw_instances`
    keep their entity and place; `dump` is then empty), so a large model does not hold
    its values twice."""

    program: LinkedProgram
    project: Project | None
    raw_instances: list[Instance]
    seconds: float
    name: str = ""
    request_warnings: Sequence[Diagnostic] = ()
    #: The modules the project loaded (where each one was found) and the project's directory:
    #: what `cfmodel.transforms.cf.export` needs to import the modules' code.
    modules: dict[str, ModuleInfo] = field(default_factory=dict)
    root: Path | None = None
    _metamodel: DomainMetamodel | None = field(default=None, repr=False)
    _model: InstanceModel | None = field(default=None, repr=False)
    _stores: dict[str, TripleStore] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = self.project.name if self.project is not None else self.program.name
        self.request_warnings = list(self.request_warnings)

    @property
    def warnings(self) -> list[Diagnostic]:
        """The request sequence's warnings, then the program's (resolve)."""
        return [*self.request_warnings, *getattr(self.program, "warnings", [])]

    def counts(self) -> dict[str, int]:
        """Instances per entity (exact type), by qualified name, sorted by name."""
        return count_instances(self.raw_instances)

    def __repr__(self) -> str:
        return summary_repr(f"CompileResult {self.name}", self.counts())

    def _repr_html_(self) -> str:
        """A notebook's view: instances per entity, then the warnings (both bounded)."""
        total = len(self.raw_instances)
        title = f"{self.name}: {total} instance{'s' if total != 1 else ''} ({self.seconds:.2f} s)"
        page = html_table(title, ("entity", "instances"), list(self.counts().items()))
        if self.warnings:
            page += html_table("warnings", ("warning",), [(w.render(),) for w in self.warnings])
        return page

    def dump(self) -> str:
        """A canonical text of the instances (for tests and differential checks)."""
        return dump_instances(self.raw_instances)

    # ---------------------------------------------------------------- the later steps

    @property
    def domain(self) -> DomainMetamodel:
        """The derived metamodel with its lookups (the `lift` step)."""
        if self._metamodel is None:
            self._metamodel = lift(self.program)
            attach_displays(self._metamodel.packages)  # a notebook shows each instance
        return self._metamodel

    @property
    def metamodel(self) -> list[EPackage]:
        """The derived metamodel: its root EPackages."""
        return list(self.domain.packages)

    @property
    def instance_model(self) -> InstanceModel:
        """The `to_model` step's product: the objects and their ids."""
        if self._model is None:
            self._model = to_model(self.raw_instances, self.domain)
        return self._model

    @property
    def model(self) -> list[EObject]:
        """Every instance as a PyEcore object of the derived metamodel, in creation order."""
        return self.instance_model.objects

    def instances(self, entity: str) -> InstanceList:
        """The PyEcore objects of *entity* (qualified, or a name only one namespace uses) and its
        subtypes: a list that a notebook shows as a table, a page at a time."""
        target = self._entity(entity)
        objects = self.model
        return InstanceList(
            (
                obj
                for inst, obj in zip(self.raw_instances, objects, strict=True)
                if target in inst.info.ancestors
            ),
            target.qualified_name,
        )

    def _entity(self, name: str) -> p.EntityType:
        """An entity by qualified name, or by plain name: the main namespace's, else the only one."""
        matches = [
            e
            for e in self.program.entities()
            if e.qualified_name == name or (("::" not in name) and e.name == name)
        ]
        for preferred in (name, f"{self.program.main.name}::{name}"):
            exact = [e for e in matches if e.qualified_name == preferred]
            if exact:
                return exact[0]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise CfUsageError(f"no entity named {name!r} in {self.name}")
        options = ", ".join(e.qualified_name for e in matches)
        raise CfUsageError(f"{name!r} is ambiguous: {options}")

    def diagram(self, entity: str | None = None, include_std: bool = False) -> Picture:
        """The derived metamodel as a class diagram (a notebook shows it inline, as SVG);
        with *entity* (``web::Server``), that class and its neighbours only."""
        from cfmodel.transforms.graph.diagram import class_diagram

        return class_diagram(self.metamodel, include_std, self.name, entity)

    def id_of(self, obj: EObject) -> str | None:
        """The stable id of an object of `model` (None for objects that are not)."""
        return self.instance_model.id_of(obj)

    def xmi_bytes(self) -> bytes:
        return xmi_bytes(self.instance_model)

    def json_bytes(self, indent: int | None = 1, dialect: str = "emfjson", id_key: str = "@id") -> bytes:
        """The instance model as JSON: emfjson-jackson's, or ``dialect="cfmodel-instances"``."""
        return json_bytes(self.instance_model, indent, dialect, id_key)

    def ecore_files(self) -> dict[str, bytes]:
        """One ``<package>.ecore`` per root package of the metamodel."""
        return self.domain.ecore_files()

    def save_xmi(self, directory: Path | str, *, validate: bool = True) -> list[Path]:
        """Write the metamodel (``.ecore`` files) and ``<project>.xmi`` into *directory*.

        The instances are validated first (``validate_instances``: as the compiler judges
        them), so a model changed by hand is not saved invalid; ``validate=False`` writes it
        anyway (a fresh compile is valid: the CLI's exports skip the check).

        Raises:
            InvalidModelError: the model does not validate (nothing is written).
        """
        if validate:
            self._refuse_if_invalid("save_xmi")
        return write_xmi(self.name, self.domain, self.instance_model, directory)

    def save_json(
        self, file: Path | str, *, validate: bool = True, dialect: str = "emfjson", id_key: str = "@id"
    ) -> Path:
        """Write the instance model as JSON (validated first, as ``save_xmi``): emfjson-jackson's
        format, which EMF's JSON users read (ids under `id_key`; PyEcore reads them under
        ``"uuid"``), or with ``dialect="cfmodel-instances"`` cfmodel's older format."""
        if validate:
            self._refuse_if_invalid("save_json")
        return write_json(self.instance_model, file, dialect, id_key)

    def _refuse_if_invalid(self, action: str) -> None:
        from cfmodel.transforms.cf.validate_instances import InvalidModelError
        from cfmodel.transforms.cf.validate_instances import validate as validate_instances

        report = validate_instances(self.model, self.domain)
        if not report.ok:
            raise InvalidModelError(report, action)

    # ---------------------------------------------------------------- RDF (docs/rdf.md)

    def rdf_options(self, metamodel: bool = True, instances: bool = True) -> RdfOptions:
        """How this model is written as RDF: ids from index keys, cfmodel's SHACL shapes, its base IRI."""
        return rdf_options(self.name, self.domain, self.instance_model, metamodel, instances)

    def rdf_triples(
        self, metamodel: bool = True, instances: bool = True
    ) -> tuple[list[rdf.Triple], dict[str, str]]:
        """The model's triples (`cfmodel.serializers.rdf` terms) and the prefixes they use."""
        from cfmodel.serializers import rdf

        return rdf.document_triples(self.model, self.rdf_options(metamodel, instances))

    def to_rdf(self, metamodel: bool = True, instances: bool = True) -> Any:
        """The model (and its metamodel: RDFS/OWL and SHACL) as an rdflib `Graph`."""
        from cfmodel.serializers import rdf

        triples, prefixes = self.rdf_triples(metamodel, instances)
        return rdf.to_graph(triples, prefixes)

    def rdf_bytes(self, format: str = "ttl", metamodel: bool = True, instances: bool = True) -> bytes:
        """The RDF document `save_rdf` writes (``ttl``, ``nt``, ``jsonld`` or ``xml``)."""
        from cfmodel.serializers import rdf

        return rdf.to_bytes(self.model, self.rdf_options(metamodel, instances), rdf.format_of("", format))

    def save_rdf(
        self, file: Path | str, format: str | None = None, metamodel: bool = True, instances: bool = True
    ) -> Path:
        """Write the model as RDF (format from `format`, else the file's extension), atomically."""
        from cfmodel.serializers import atomic, rdf

        path = Path(file)
        fmt = rdf.format_of(path, format)
        if path.parent != Path():
            path.parent.mkdir(parents=True, exist_ok=True)
        if fmt in ("nt", "ttl"):  # streamed
            options = self.rdf_options(metamodel, instances)
            rdf.write(path, self.model, replace(options, format=fmt))
            return path
        atomic.write_bytes(path, self.rdf_bytes(fmt, metamodel, instances))
        return path

    def sparql(self, query: str, store: str = "auto") -> QueryResult:
        """Run a SPARQL query over the model and its metamodel (prefixes predeclared: one per
        namespace, ``inst:`` for the instances, and rdf, rdfs, owl, xsd, sh, cfm). The store
        is made on first use and kept; ``store``: ``auto``, ``rdflib``, ``oxigraph``."""
        from cfmodel.sparql import TripleStore

        found = self._stores.get(store)
        if found is None:
            found = self._stores[store] = TripleStore.of_model(self.model, self.rdf_options(), store)
        return found.query(query)


# ------------------------------------------------------- the steps of the other commands
#
# ``cfmodel check``, ``env``, ``bindings`` and ``ecore`` run these (and the steps above);
# the CLI reaches the transforms through this module only (tests/test_layers.py).


@dataclass(frozen=True)
class Checked:
    """The check step's product: a project loaded and resolved; nothing evaluated."""

    project: Project
    program: LinkedProgram
    seconds: float

    @property
    def modules(self) -> list[str]:
        """The modules the project imports (by top-level name), sorted."""
        return sorted({name.split("::")[0] for name in self.project.namespaces} - {"__config__"})

    def __str__(self) -> str:
        return dump_project(self.project)


def check(path: Path | str, cache: ParseCache | None = None, progress: Progress | None = None) -> Checked:
    """Load and resolve the project at *path* (names, types, relations), timed (*progress*:
    ``loading`` with files and lines, then ``linking``)."""
    started = time.perf_counter()
    if progress is not None:
        progress("loading", 0, 0)
    project = load(Path(path), cache, progress)
    if progress is not None:
        progress("linking", 0, 0)
    program = resolve(project)
    return Checked(project, program, time.perf_counter() - started)


def import_ecore(
    files: Sequence[Path],
    directory: Path,
    name: str | None = None,
    force: bool = False,
    uri_map: dict[str, str] | None = None,
) -> list[Path]:
    """EMF metamodels into a project of ``.cf`` definitions in *directory* (docs/metamodel.md)."""
    from cfmodel.transforms.cf.ecore_import import import_ecore as ecore_to_project

    return ecore_to_project(files, directory, name, force, uri_map)


def environments(path: Path, facts: dict[str, Any], environment: str | None = None) -> Evaluation:
    """The environments file of *path* run for the facts: the catalog of every environment."""
    from cfmodel.transforms.environments.environments import evaluate_environments

    return evaluate_environments(path, facts, environment)


def request_sequence(
    path: Path,
    facts: dict[str, Any],
    environment: str | None = None,
    *,
    classifier: Sequence[str] | None = None,
    lenient: bool = False,
) -> RequestResult:
    """The request sequence for *path*, step by step, even without an ``environments.cfenv``
    (`request` compiles such a directory as it is). *classifier*: an external node
    classifier's command (default: the one ``project.yml`` configures); *lenient*: the
    injector despite bindings errors."""
    from cfmodel.transforms.environments.request import EncClassifier, RequestOptions, run_request

    command = EncClassifier(command=list(classifier)) if classifier else None
    return run_request(path, facts, environment, RequestOptions(classifier=command, lenient=lenient))


def environments_model(product: Evaluation | RequestResult) -> ModelExport:
    """The catalog of an `environments` step, or a whole request, as a model of the
    ``environments`` package (environments named ``env.<name>``)."""
    from cfmodel.transforms.environments.environments import Evaluation
    from cfmodel.transforms.environments.request import catalog_model, model_ids

    root = catalog_model(product.catalog)[0] if isinstance(product, Evaluation) else product.to_model()
    return ModelExport([root], model_ids)


@dataclass(frozen=True)
class BindingsRequest:
    """The bindings step of the ``bindings`` commands: the selected environment, its
    injector, and the request's warnings. Printed: the effective bindings, as ``cfmodel
    bindings show`` prints them."""

    environment: str
    injector: Injector
    warnings: tuple[Diagnostic, ...] = ()

    def __str__(self) -> str:
        injector = self.injector
        lines = [f"environment: {self.environment}"]
        lines.append("layers: " + (", ".join(injector.layer_names) or "(none)"))
        cats = [f"{n}={v}" if v is not None else f"{n} (n/a)" for n, _, v in injector.category_values()]
        lines.append("categories: " + ", ".join(cats))
        classes = injector.class_sources()
        lines.append("classes: " + (", ".join(name for name, _, _ in classes) or "(none)"))
        for binding in injector.effective():
            value = "<produced at each lookup>" if binding.lazy else bindings_value_show(binding.value)
            where = f"{binding.span.start()} " if binding.span is not None else ""
            origin = f'bindings {binding.origin}, layer "{binding.layer}", {binding.category}'
            lines.append(f"{binding.key} = {value}  # {where}({origin})")
        return "\n".join(lines)


def trusted_facts(
    facts: dict[str, Any], node: str | None, trusted: dict[str, Any] | None
) -> tuple[dict[str, Any], list[str]]:
    """The request's facts with the ``trusted`` hash made from the node's certname and its
    trusted data (a fact cannot set it); and notes for the user.

    Raises:
        CfUsageError: the trusted data is not valid.
    """
    from cfmodel.transforms.bindings.trusted import TrustedError, with_trusted

    try:
        found, notes = with_trusted(facts, node, trusted)
    except TrustedError as error:
        raise CfUsageError(str(error)) from None
    return found, list(notes)


def bindings_request(
    path: Path,
    facts: dict[str, Any],
    environment: str | None = None,
    *,
    merges: dict[str, Merge] | None = None,
    lenient: bool = False,
) -> BindingsRequest:
    """The injector the request sequence makes for *path* (docs/bindings.md), with hiera
    merges *merges* forced per key; *lenient*: bindings errors do not stop it (only a lookup
    of a key they concern fails). A folder with neither an ``environments.cfenv`` nor a
    ``main.cf`` holds bindings only: it is composed as its automatic ``production``
    environment would be, with the same facts rules and warning."""
    from cfmodel.transforms.bindings.providers import forcing_merges
    from cfmodel.transforms.environments.environments import ENVIRONMENTS_FILE, MAIN_FILE

    with forcing_merges(merges or {}):
        if not (path / ENVIRONMENTS_FILE).is_file() and not (path / MAIN_FILE).is_file():
            return _bindings_folder(path, facts, environment, lenient)
        result = request_sequence(path, facts, environment, lenient=lenient)
        return BindingsRequest(result.target.environment, result.injector, tuple(result.warnings))


def _bindings_folder(path: Path, facts: dict[str, Any], agent: str | None, lenient: bool) -> BindingsRequest:
    """A folder with bindings only, as its automatic ``production`` environment: the request
    sequence's facts rules (a fact ``environment`` only asks for an environment) and warning."""
    from cfmodel.errors import Severity
    from cfmodel.transforms.bindings.compose import ComposeOptions
    from cfmodel.transforms.bindings.providers import load_project as load_bindings
    from cfmodel.transforms.environments.environments import DEFAULT_ENVIRONMENT, ENVIRONMENTS_FILE

    source = "--environment"
    if agent is None and isinstance(facts.get("environment"), str):
        agent, source = facts["environment"], "the fact 'environment'"
    request_facts = {k: v for k, v in facts.items() if k != "environment"}
    request_facts["environment"] = DEFAULT_ENVIRONMENT
    loaded = load_bindings(path, request_facts, lenient=lenient)
    options = ComposeOptions(nesting=loaded.settings.nesting, lenient=lenient)
    injector = loaded.prepare(options).injector(request_facts)
    warnings = []
    if agent is not None and agent != DEFAULT_ENVIRONMENT:
        message = (
            f"the requested environment '{agent}' ({source}) was not selected: "
            f"there is no {ENVIRONMENTS_FILE}, so the default is '{DEFAULT_ENVIRONMENT}'"
        )
        warnings.append(Diagnostic(None, message, "environment-not-applied", Severity.WARNING))
    return BindingsRequest(DEFAULT_ENVIRONMENT, injector, tuple(warnings))


def forced_merge(key: str, spec: dict[str, Any]) -> dict[str, Merge]:
    """A hiera merge (``{"strategy": "deep", ...}``) forced for *key*, as ``puppet lookup
    --merge`` does: a dotted key's merge is its first segment's.

    Raises:
        CfUsageError: the merge is not valid.
    """
    from cfmodel.transforms.bindings.compose.dotted import root
    from cfmodel.transforms.bindings.providers import parse_merge
    from cfmodel.transforms.bindings.providers.merges import MergeError

    try:
        return {root(key): parse_merge(spec)}
    except MergeError as err:
        raise CfUsageError(err.message) from None


def effective_bindings_model(injector: Injector) -> ModelExport:
    """The effective bindings of a request as an ``EffectiveBindings`` model."""
    from cfmodel.transforms.bindings.compose import effective_model

    return ModelExport([effective_model(injector)])


def bindings_models(injector: Injector) -> ModelExport:
    """The ``BindingsFile`` of every site and bindings the injector was made from."""
    from cfmodel.metamodel import bindings as bm

    prepared = injector.prepared
    roots: list[Any] = []
    named = [n for layer in prepared.layers for n in layer.bindings]
    for obj in [*prepared.sites, *named]:
        container = obj.eContainer()
        if container is not None:
            root = bm.to_ecore(container, prepared.spans)
            if root not in roots:
                roots.append(root)
    return ModelExport(roots)


def bindings_value_text(value: Any) -> str:
    """A bound value for the terminal (`compose.terminal_text`)."""
    from cfmodel.transforms.bindings.compose import terminal_text

    return terminal_text(value)


def bindings_value_json(value: Any) -> Any:
    """A bound value as JSON data (`compose.json_value`)."""
    from cfmodel.transforms.bindings.compose import json_value

    return json_value(value)


def bindings_value_show(value: Any) -> str:
    """A bound value as the bindings language writes it (`compose.show`)."""
    from cfmodel.transforms.bindings.compose import show

    return show(value)


@dataclass(frozen=True)
class ModelExport:
    """A model some step made (roots, and ids for them), to be written as XMI or JSON."""

    roots: list[Any]
    id_of: Callable[[Any], str | None] | None = None

    def xmi_bytes(self) -> bytes:
        """The model as XMI."""
        from cfmodel.serializers import xmi as xmi_format

        return xmi_format.to_bytes(self.roots, xmi_format.XmiOptions(id_of=self.id_of))

    def json_bytes(self, indent: int | None = 1) -> bytes:
        """The model in cfmodel's JSON format."""
        from cfmodel.serializers import json as json_format

        return json_format.to_bytes(self.roots, json_format.JsonOptions(id_of=self.id_of, indent=indent))

    def __str__(self) -> str:
        return self.xmi_bytes().decode("utf-8")

    def write(self, target: Path, refused: Callable[[str], str]) -> None:
        """Write the model to *target* (``.xmi`` or ``.json``), atomically.

        Raises:
            CfUsageError: *target* names another format (the message: ``refused(format)``).
        """
        from cfmodel.serializers import JsonOptions, XmiOptions, get_format, write

        fmt = get_format(target)
        if fmt.holds != "instances":
            raise CfUsageError(refused(fmt.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        options = (
            XmiOptions(id_of=self.id_of) if fmt.name == "xmi" else JsonOptions(id_of=self.id_of, indent=1)
        )
        write(target, self.roots, options)


# --------------------------------- the steps of the resource graph, diff, diagram, rdf and mcl
#
# ``cfmodel export``, ``graph``, ``diff``, ``diagram``, ``rdf``/``sparql`` and ``mcl`` run
# these (with the compile above); each product prints (``str``, or ``repr`` bounded).


def export(result: CompileResult) -> Export:
    """The resources a compiled project's modules register (``inmanta export -j``'s
    document: ``str(product)``), with the graph they make (``product.graph(name)``).
    Run it before the model is made: it reads the instances' values."""
    from cfmodel.transforms.cf.export import export_resources

    return export_resources(result)


def read_graph(path: Path) -> ResourceGraph:
    """A resource graph file: XMI or JSON of the graph metamodel."""
    from cfmodel.transforms.graph.files import read_graph as read_graph_file

    return read_graph_file(path)


def read_export_graph(path: Path) -> ResourceGraph:
    """The resource graph of an export document (a JSON list, as ``inmanta export -j`` writes it)."""
    from cfmodel.transforms.graph.inmanta import read_export

    return read_export(path)


def agent_subgraph(graph: ResourceGraph, agent: str, *, neighbours: bool = False) -> ResourceGraph:
    """One agent's resources (with *neighbours*: and the resources joined to them)."""
    from cfmodel.transforms.graph import agent_subgraph as subgraph

    return subgraph(graph, agent, neighbours=neighbours)


def transitive_reduction(graph: ResourceGraph) -> ResourceGraph:
    """The graph without the ordering edges other paths imply (notifying edges kept)."""
    from cfmodel.transforms.graph import transitive_reduction as reduction

    return reduction(graph)


def graph_order(graph: ResourceGraph) -> GraphOrder:
    """The resources in topological order (one id a line when printed).

    Raises:
        CfModelError: the graph has a cycle (each of its edges with its statement).
    """
    from cfmodel.transforms.graph import topological_order

    return GraphOrder(tuple(topological_order(graph)))


@dataclass(frozen=True)
class GraphOrder:
    """The `graph_order` step's product: the resources, each after those it depends on."""

    resources: tuple[Resource, ...]

    def __str__(self) -> str:
        return "".join(f"{r.id}\n" for r in self.resources)


def graph_picture(graph: ResourceGraph, *, legend: bool = True) -> Picture:
    """The graph drawn: a DOT document (clusters per agent, a style per edge kind, a legend)."""
    from cfmodel.transforms.graph.picture import graph_picture as picture

    return picture(graph, legend=legend)


def graph_model(graph: ResourceGraph) -> ModelExport:
    """The graph as a model of the graph metamodel, ids from the resources' ids."""
    from cfmodel.metamodel.resource_graph import to_ecore
    from cfmodel.transforms.graph.files import graph_ids

    return ModelExport([to_ecore(graph)], graph_ids)


def class_diagram(
    packages: Sequence[EPackage],
    *,
    include_std: bool = False,
    title: str = "metamodel",
    entity: str | None = None,
) -> Picture:
    """A metamodel's class diagram (a cluster per namespace; with *entity*, that class and
    its neighbours only)."""
    from cfmodel.transforms.graph.diagram import class_diagram as diagram

    return diagram(packages, include_std, title, entity)


def instance_diagram(
    objects: Sequence[EObject],
    id_of: Callable[[EObject], str | None],
    max_objects: int,
    title: str = "instances",
) -> Picture:
    """Instance objects and their relations drawn (at most *max_objects* of them)."""
    from cfmodel.transforms.graph.diagram import instance_diagram as diagram

    return diagram(objects, id_of, max_objects, title=title)


def read_metamodels(
    files: Sequence[Path], rset: ResourceSet, uri_map: Mapping[str, str] | None = None
) -> list[EPackage]:
    """``.ecore`` files read together into *rset* (they may refer to each other, also by
    URIs *uri_map* turns into paths), their root packages in the order their references need."""
    from cfmodel.transforms.cf.ecore_import import read_ecore_files

    return read_ecore_files(list(files), rset, uri_map=uri_map)


def metamodel_shapes(packages: Sequence[EPackage]) -> CfShapes:
    """The SHACL shapes of a metamodel's typedef constraints and indexes (docs/rdf.md)."""
    from cfmodel.transforms.cf.lift import DomainMetamodel
    from cfmodel.transforms.cf.shacl import cf_shapes

    return cf_shapes(DomainMetamodel.from_packages(list(packages)))


def diff_side(
    objects: Sequence[EObject],
    id_of: Callable[[EObject], str | None],
    name: str,
    graph: ResourceGraph | None = None,
) -> Objects:
    """One side of a comparison: every object (contained ones too) with its ids, and a
    resource graph."""
    from cfmodel.transforms.diff import Objects

    return Objects(objects, id_of, name, graph)


def diff(left: Any, right: Any, left_name: str = "", right_name: str = "") -> Comparison:
    """What differs between two models (docs/diff.md): ``str(product)`` is its text."""
    from cfmodel.transforms.diff import diff as compare

    return compare(left, right, left_name, right_name)


def comparison_text(comparison: Comparison, format: str, *, color: bool = False) -> str:
    """A comparison as ``text`` (coloured with *color*), ``json`` or ``html`` (a whole page)."""
    from cfmodel.transforms.diff import render

    if format == "json":
        return render.to_json(comparison)
    if format == "html":
        return render.to_html(comparison)
    return render.to_text(comparison, color=color)


def mcl_main_file(path: Path | str) -> Path:
    """The main ``.mcl`` file of a program path (`cfmodel.mcl.main_file`)."""
    from cfmodel import mcl

    return mcl.main_file(path)


def mcl_parse(path: Path | str) -> McProgram:
    """One ``.mcl`` file's syntax tree (`cfmodel.dump.dump_node` prints it)."""
    from cfmodel import mcl

    return mcl.parse(path)


def mcl_check(path: Path | str) -> McChecked:
    """An mcl program parsed, resolved and unified (nothing runs)."""
    from cfmodel import mcl

    return mcl.check(path)


def mcl_compile(path: Path | str, facts: dict[str, Any] | None = None) -> McCompiled:
    """An mcl program compiled: its output with mcl's values and its resource graph."""
    from cfmodel import mcl

    return mcl.compile(path, facts)


def mcl_format(text: str, name: str) -> str:
    """An mcl program's canonical formatting (comments kept)."""
    from cfmodel.transforms.mcl.unparse import format_source

    return format_source(text, name)


def mcl_graph_text(graph: ResourceGraph) -> str:
    """mgmt's text form of a resource graph (``Vertex:``/``Edge:`` lines, sorted)."""
    from cfmodel.transforms.mcl.to_graph import graph_text

    return graph_text(graph)


def mcl_output_json(compiled: McCompiled) -> str:
    """A compiled program's output (resources with mcl's values, edges) as JSON."""
    from cfmodel.transforms.mcl.to_graph import output_json

    return output_json(compiled.output)


# ---------------------------------------------------------------------------- dumps


def dump(
    stage: str,
    path: Path | str,
    *,
    facts: dict[str, Any] | None = None,
    environment: str | None = None,
    cache: ParseCache | None = None,
) -> str:
    """The printable product of *stage* (one of `STAGES`) for the project at *path*.

    The steps before it run as `compile_project` runs them; nothing after it runs."""
    if stage not in STAGES:
        raise CfUsageError(f"unknown stage {stage!r}; the stages are {', '.join(STAGES)}")
    root = Path(path)
    requested = request(root, facts, environment)
    if stage == "request":
        if requested is None:
            return f"{root}: no {ENVIRONMENTS_FILE} and no --environment: compiled as it is\n"
        return requested.explain() + "\n"
    project = load(requested if requested is not None else root, cache)
    if stage == "load":
        return dump_project(project)
    if stage in ("bindings", "evaluate", "model"):
        if requested is not None:
            injector: InjectorLike = requested.injector
            plugin_facts = dict(requested.target.facts)
        else:
            injector, plugin_facts, _ = bindings(project, dict(facts or {}), environment)
        if stage == "bindings":
            return dump_bindings(injector, plugin_facts)
    program = resolve(project)
    if stage == "resolve":
        return dump_program(program)
    if stage == "lift":
        files = lift(program).ecore_files()
        return "".join(f"# {name}\n{text.decode('utf-8')}" for name, text in files.items())
    instances = evaluate(program, project, facts=plugin_facts, injector=injector)
    if stage == "evaluate":
        return dump_instances(instances)
    return xmi_bytes(to_model(instances, lift(program))).decode("utf-8")


def dump_bindings(injector: InjectorLike, facts: Mapping[str, Any]) -> str:
    """The bindings step's product: the effective bindings of the compile (as ``cfmodel
    bindings show`` prints them), or that the project has none."""
    if isinstance(injector, EmptyBindings):
        return "no bindings: no site.bind, bindings/ or bindings: in project.yml, no module with bindings/\n"
    from cfmodel.transforms.bindings.compose import Injector

    if not isinstance(injector, Injector):  # one given to compile_project: only lookups
        return f"an injector given by the caller: {type(injector).__name__}\n"
    return str(BindingsRequest(str(facts.get("environment", "")), injector)) + "\n"


def dump_project(project: Project) -> str:
    """The load step's product: the project, its module path and every namespace with its file."""
    lines = [f"project {project.name}", f"main {project.main}"]
    lines += [f"modulepath {folder}" for folder in project.module_path]
    for name in sorted(project.namespaces):
        namespace = project.namespaces[name]
        count = f"{namespace.lines} line{'' if namespace.lines == 1 else 's'}"
        lines.append(f"namespace {name}  {namespace.label}  ({count})")
    return "\n".join(lines) + "\n"
