"""The evaluator: one compile's state, and the doors into the rooms that evaluate.

`Evaluator` owns everything a compile keeps while it runs and nothing else: the entity
table (`EntityInfo` per entity, `entities`), the namespaces' variables (one `Frame`
each), the constructor plans, the index tables and the lookups waiting on them, the
scheduler, the type checker, the plugins, the injection from the bindings, and every cache
of the compile (pure expressions, enums of ``is``, the variables each block declares,
promise targets, loop scopes). Nothing is kept at module level, so compiles are
reentrant: two compiles can run interleaved or in two threads.

The logic lives in its own modules, each a function of the evaluator: `expressions`
(what every expression node evaluates to), `constructors` (``Entity(...)``), `indexes`
(index tables and lookups), `assignment` (setting attributes and relation ends),
`statements` (statements and their tasks). The methods here are the doors the other
rooms use (`eval`, `construct`, `set_field`, `assign_expr`, `lookup`, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cfmodel.errors import CfEvaluationError, Span
from cfmodel.grammars import nodes
from cfmodel.project import Project
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.refine import assignment, constructors, expressions, indexes
from cfmodel.transforms.cf.refine import statements as st
from cfmodel.transforms.cf.refine.entities import build_entities
from cfmodel.transforms.cf.refine.expressions import HANDLERS
from cfmodel.transforms.cf.refine.frames import Declared, Frame, declared_by
from cfmodel.transforms.cf.refine.injection import Injection, InjectorLike
from cfmodel.transforms.cf.refine.pluginrt import PluginRuntime
from cfmodel.transforms.cf.refine.scheduler import Scheduler, Task
from cfmodel.transforms.cf.refine.typecheck import TypeChecker
from cfmodel.transforms.cf.refine.values import EntityInfo, FieldInfo, IndexWait, Instance, Slot, Value

if TYPE_CHECKING:
    from cfmodel.transforms.cf.refine.constructors import CtorPlan


class Evaluator:
    """One compile's state (tables, scheduler, caches) and the doors into the evaluation."""

    def __init__(
        self,
        program: p.LinkedProgram,
        project: Project | None = None,
        facts: dict[str, Any] | None = None,
        injector: InjectorLike | None = None,
    ) -> None:
        self.program = program
        self.project = project
        self.facts = dict(facts or {})
        self.injector = injector
        self.sched = Scheduler()
        self.checker = TypeChecker(self._typedef_condition)
        self.plugins = PluginRuntime(self)
        self.instance_count = 0
        self.instances: list[Instance] = []
        self.infos: dict[p.EntityType, EntityInfo] = {}
        self.globals: dict[str, Frame] = {}
        # the caches of this compile, keyed by the id() of syntax nodes the program holds
        self.plans: dict[int, CtorPlan] = {}
        self.index_tables: dict[tuple[int, int], dict[Any, Instance]] = {}
        self.index_waits: dict[tuple[int, int], dict[Any, tuple[IndexWait, Span]]] = {}
        self.pure_cache: dict[int, bool] = {}
        self.enum_cache: dict[int, p.EnumType | None] = {}
        self.declared_cache: dict[int, Declared] = {}
        self.promise_targets: dict[int, list[st.PromiseTarget]] = {}
        self.loop_scopes: dict[int, Declared] = {}
        build_entities(self)
        for name, ns in program.namespaces.items():
            self.globals[name] = Frame(self.declared_in(ns.statements), None, ns)
        # implicit injection (bind variables, bind parameters); None without such bindings
        self.injection = Injection.create(self, injector) if injector is not None else None
        if self.injection is not None:
            self.injection.bind_variables(self.globals[program.main.name])

    def release(self) -> None:
        """After a compile: drop what only evaluation needs; the instances and their values stay.

        The project (its syntax trees), the namespaces' variables, the constructor plans, the
        index tables, the scheduler's lists, the type checker's caches, the plugins'
        caches, the compile's caches and each instance's list of applied implementations
        are released at once (the evaluator holds reference cycles, so it would otherwise
        wait for the garbage collector), so the PyEcore model made next can reuse their memory."""
        self.project = None
        self.globals = {}
        self.plans = {}
        self.index_tables = {}
        self.index_waits = {}
        self.pure_cache = {}
        self.enum_cache = {}
        self.declared_cache = {}
        self.promise_targets = {}
        self.loop_scopes = {}
        self.sched = Scheduler()
        self.checker = TypeChecker(self._typedef_condition)
        self.plugins.registries = {}
        self.plugins.call_cache = {}
        self.injection = None
        for instance in self.instances:
            instance.impls = None

    def start(self) -> None:
        """Emit the top-level statements of every namespace."""
        for name in sorted(self.program.namespaces):
            ns = self.program.namespaces[name]
            st.emit_block(self, ns.statements, self.globals[name])

    # ------------------------------------------------------------------ doors

    def eval(self, node: nodes.Expression, frame: Frame, task: Task) -> Value:
        """`expressions.evaluate`."""
        return HANDLERS[type(node)](self, node, frame, task)

    def construct(
        self, node: nodes.Constructor, frame: Frame, task: Task, lhs: tuple[Instance, FieldInfo] | None
    ) -> Value:
        """`constructors.construct`; *lhs*: the instance and relation the result is assigned to."""
        return constructors.construct(self, node, frame, task, lhs)

    def set_field(self, instance: Instance, field: FieldInfo, value: Any, span: Span) -> None:
        """`assignment.set_field`."""
        assignment.set_field(self, instance, field, value, span)

    def assign_expr(
        self, instance: Instance, field: FieldInfo, expr: nodes.Expression, frame: Frame, span: Span
    ) -> None:
        """`assignment.assign_expr`."""
        assignment.assign_expr(self, instance, field, expr, frame, span)

    def lookup(self, name: str, frame: Frame, span: Span) -> Slot:
        """The slot a (possibly qualified) variable name means in *frame*."""
        return expressions.lookup(self, name, frame, span)

    def global_slot(self, name: str, ns: p.LinkedNamespace, span: Span) -> Slot:
        return expressions.global_slot(self, name, ns, span)

    def read_slot(self, slot: Slot, span: Span) -> Any:
        return expressions.read_slot(slot, span)

    def no_field(self, info: EntityInfo, name: str, span: Span) -> CfEvaluationError:
        return expressions.no_field(info, name, span)

    def index_lookup(self, info: EntityInfo, values: dict[str, Any], span: Span) -> Value:
        return indexes.index_lookup(self, info, values, span)

    def declared_in(self, statements: list[nodes.Statement]) -> Declared:
        """The variables a block declares (name → span of the first assignment), once per block."""
        key = id(statements)
        declared = self.declared_cache.get(key)
        if declared is None:
            declared = self.declared_cache[key] = declared_by(statements)
        return declared

    def _typedef_condition(self, typedef: p.Typedef, value: Any) -> Any:
        return expressions.typedef_condition(self, typedef, value)
