"""The evaluator: expressions, assignments to instances, constructors and indexes.

`Evaluator` holds the whole state of one compile: the entity table (`EntityInfo`
per entity), the namespaces' variables (one `Frame` each), the index tables, the
scheduler, the type checker and the plugins. Statements and tasks live in
`statements`; the end-of-compile checks in `finish`.

Expressions are evaluated by a dispatch on the node's class. A read of something not
known yet raises `Blocked` (the enclosing task waits and runs again); everything else
that goes wrong raises a `CfEvaluationError` with the span of the expression.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cfmodel.errors import CfEvaluationError, Note, Span
from cfmodel.grammars import nodes
from cfmodel.plugins import Unknown
from cfmodel.project import Project
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf import semantics as sem
from cfmodel.transforms.cf.refine import statements as st
from cfmodel.transforms.cf.refine.errors import Blocked, fail, kind_of, show
from cfmodel.transforms.cf.refine.frames import Frame, declared_in
from cfmodel.transforms.cf.refine.injection import Injection
from cfmodel.transforms.cf.refine.pluginrt import PluginRuntime
from cfmodel.transforms.cf.refine.scheduler import Scheduler, Task
from cfmodel.transforms.cf.refine.statements import sub_expressions
from cfmodel.transforms.cf.refine.typecheck import TypeChecker, check_entity, fast_check
from cfmodel.transforms.cf.refine.values import (
    ATTR,
    MANY,
    ONE,
    OPT,
    Constant,
    EntityInfo,
    FieldInfo,
    IndexWait,
    Instance,
    ListVar,
    OptVar,
    Slot,
    Var,
    index_key_part,
)

Handler = Callable[[Any, Frame, Task], Any]


class PureTask(Task):
    """The task of evaluations that cannot have side effects (no memo is ever used)."""

    __slots__ = ()

    def run(self, ev: Evaluator) -> None:  # pragma: no cover - never scheduled
        raise AssertionError("not schedulable")

    def where(self) -> Span | None:  # pragma: no cover
        return None

    def describe(self) -> str:  # pragma: no cover
        return "a pure evaluation"


PURE = PureTask()


class CtorPlan:
    """A constructor call, checked once: the entity, its explicit arguments and presets."""

    __slots__ = ("direct", "explicit", "indirect", "info", "names", "preset")

    def __init__(self, info: EntityInfo) -> None:
        self.info = info
        # explicit keyword arguments: name -> (field, expression, span)
        self.explicit: dict[str, tuple[FieldInfo, nodes.Expression, Span]] = {}
        self.direct: list[str] = sorted(info.index_attrs)
        self.indirect: list[tuple[FieldInfo, nodes.Expression, Span]] = []
        # values from a constructor typedef (typedef T as E(k=v))
        self.preset: dict[str, Any] = {}
        self.names: frozenset[str] = frozenset()


class Evaluator:
    """One compile's state and the evaluation of expressions."""

    def __init__(
        self,
        program: p.LinkedProgram,
        project: Project | None = None,
        facts: dict[str, Any] | None = None,
        injector: Any = None,
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
        self.plans: dict[int, CtorPlan] = {}
        self.index_tables: dict[tuple[int, int], dict[Any, Instance]] = {}
        self.index_waits: dict[tuple[int, int], dict[Any, tuple[IndexWait, Span]]] = {}
        self.pure_cache: dict[int, bool] = {}
        self._enum_cache: dict[int, p.EnumType | None] = {}
        self._handlers: dict[type, Handler] = {
            nodes.Literal: self._e_literal,
            nodes.Reference: self._e_reference,
            nodes.AttributeAccess: self._e_attribute,
            nodes.Interpolation: self._e_interpolation,
            nodes.FString: self._e_fstring,
            nodes.MapLookup: self._e_map_lookup,
            nodes.IndexQuery: self._e_index_query,
            nodes.SelectorQuery: self._e_selector_query,
            nodes.Constructor: self._e_constructor,
            nodes.FunctionCall: self._e_call,
            nodes.ListLiteral: self._e_list,
            nodes.DictLiteral: self._e_dict,
            nodes.ListComprehension: self._e_comprehension,
            nodes.BinaryOperation: self._e_binary,
            nodes.Not: self._e_not,
            nodes.IsDefined: self._e_is_defined,
            nodes.Conditional: self._e_conditional,
            nodes.Regex: self._e_regex,
        }
        self._build_entities()
        for name, ns in program.namespaces.items():
            self.globals[name] = Frame(declared_in(ns.statements), None, ns)
        # implicit injection (bind variables, bind parameters); None without such bindings
        self.injection = Injection.create(self, injector) if injector is not None else None
        if self.injection is not None:
            self.injection.bind_variables(self.globals[program.main.name])

    # ------------------------------------------------------------------ setup

    def _build_entities(self) -> None:
        for entity in self.program.entities():
            self.infos[entity] = EntityInfo(entity)
        for entity, info in self.infos.items():
            for name, attribute in entity.all_attributes.items():
                info.fields[name] = field = FieldInfo(name, ATTR, info, attribute=attribute)
                field.fast = fast_check(attribute.type)
                info.required.append(field)
            for name, relation in entity.all_relations.items():
                if relation.lower == 1 and relation.upper == 1:
                    kind = ONE
                elif relation.lower == 0 and relation.upper == 1:
                    kind = OPT
                else:
                    kind = MANY
                info.fields[name] = field = FieldInfo(name, kind, info, relation=relation)
                if kind == ONE or (kind == MANY and relation.lower > 0):
                    info.required.append(field)
            seen: set[int] = set()
            for index in entity.all_indexes:
                if id(index) not in seen:
                    seen.add(id(index))
                    info.indexes.append((index, tuple(index.attributes)))
            info.index_attrs = frozenset(name for _, names in info.indexes for name in names)
            info.rules = _rules_of(entity)
        for info in self.infos.values():
            info.defaults = {
                name: self._default_value(info, name, expr)
                for name, expr in _defaults_of(info.entity).items()
            }

    def _default_value(self, info: EntityInfo, name: str, expr: nodes.Expression) -> Any:
        frame = Frame({}, None, info.entity.namespace)
        try:
            value = self.eval(expr, frame, PURE)
        except Blocked:
            raise fail(
                f"the default value of attribute '{name}' of {info.qname} must be a constant",
                expr.span,
                "bad-default",
            ) from None
        return value

    def info_of(self, entity: p.EntityType) -> EntityInfo:
        return self.infos[entity]

    def release(self) -> None:
        """After a compile: drop what only evaluation needs; the instances and their values stay.

        The project (its syntax trees), the namespaces' variables, the constructor plans, the
        index tables, the scheduler's lists, the type checker's caches, the plugins'
        caches and each instance's list of applied implementations are released at once
        (the evaluator holds reference cycles, so it would otherwise wait for the garbage
        collector), so the PyEcore model made next can reuse their memory."""
        self.project = None
        self.globals = {}
        self.plans = {}
        self.index_tables = {}
        self.index_waits = {}
        self.pure_cache = {}
        self._enum_cache = {}
        self._handlers = {}
        self.sched = Scheduler()
        self.checker = TypeChecker(self._typedef_condition)
        self.plugins.registries = {}
        self.plugins.call_cache = {}
        self.injection = None
        for instance in self.instances:
            instance.impls = None

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        """Emit the top-level statements of every namespace."""
        for name in sorted(self.program.namespaces):
            ns = self.program.namespaces[name]
            st.emit_block(self, ns.statements, self.globals[name])

    # ------------------------------------------------------------------ expressions

    def eval(self, node: nodes.Expression, frame: Frame, task: Task) -> Any:
        return self._handlers[type(node)](node, frame, task)

    def _e_literal(self, node: nodes.Literal, frame: Frame, task: Task) -> Any:
        return node.value

    def _e_regex(self, node: nodes.Regex, frame: Frame, task: Task) -> Any:
        raise fail("a /regex/ is only allowed after 'matching' in a typedef", node.span, "syntax")

    def lookup(self, name: str, frame: Frame, span: Span) -> Slot:
        """The slot a (possibly qualified) variable name means in *frame*."""
        if "::" in name:
            return self.global_slot(name, frame.ns, span)
        slot = frame.lookup(name)
        if slot is None:
            raise self._undefined(name, frame, span)
        return slot

    def global_slot(self, name: str, ns: p.LinkedNamespace, span: Span) -> Slot:
        prefix, _, local = name.rpartition("::")
        target = ns.imports.get(prefix)
        if target is None:
            raise fail(
                f"'{prefix}' is not imported in namespace {ns.name} (add 'import {prefix}')",
                span,
                "missing-import",
            )
        frame = self.globals.get(target)
        if frame is None or local not in frame.declared:
            definition = ns.definition(name)
            if definition is not None:
                raise fail(f"{name} is {_kind(definition)}, not a value", span, "not-a-value")
            raise fail(f"namespace {target} has no variable '{local}'", span, "undefined")
        return frame.lookup(local) or frame.own(local)

    def _undefined(self, name: str, frame: Frame, span: Span) -> CfEvaluationError:
        definition = frame.ns.definition(name)
        if definition is not None:
            return fail(f"{name} is {_kind(definition)}, not a value", span, "not-a-value")
        return fail(f"name '{name}' is not defined", span, "undefined")

    def _e_reference(self, node: nodes.Reference, frame: Frame, task: Task) -> Any:
        name = node.name.text
        slot = frame.lookup(name) if "::" not in name else None
        if slot is None:
            slot = self.lookup(name, frame, node.span)
        kind = type(slot)
        if kind is Var or kind is Constant:
            return slot.get()
        return self.read_slot(slot, node.span)

    def read_slot(self, slot: Slot, span: Span) -> Any:
        try:
            return slot.get()
        except CfEvaluationError as error:
            if error.span is None:
                error.span = span
            raise

    def _e_attribute(self, node: nodes.AttributeAccess, frame: Frame, task: Task) -> Any:
        target = self.eval(node.target, frame, task)
        if type(target) is not Instance:
            if isinstance(target, Unknown):
                return target
            raise self._not_instance(node.name.text, target, node.span)
        slot = target.slot(node.name.text)
        if slot is None:
            raise self._no_field(target.info, node.name.text, node.name.span)
        if type(slot) is Var:
            return slot.get()
        return self.read_slot(slot, node.span)

    def _not_instance(self, name: str, target: Any, span: Span) -> CfEvaluationError:
        return _at(sem.not_an_instance(name, target), span)

    def _no_field(self, info: EntityInfo, name: str, span: Span) -> CfEvaluationError:
        known = ", ".join(sorted(info.fields)) or "none"
        return fail(
            f"entity {info.qname} has no attribute or relation '{name}' (it has: {known})",
            span,
            "unknown-attribute",
        )

    def _e_interpolation(self, node: nodes.Interpolation, frame: Frame, task: Task) -> Any:
        out: list[str] = []
        for part in node.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = self.eval(part, frame, task)
            if isinstance(value, Unknown):
                return value
            out.append(sem.to_text(value))
        return "".join(out)

    def _e_fstring(self, node: nodes.FString, frame: Frame, task: Task) -> Any:
        out: list[str] = []
        for part in node.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = self.eval(part.value, frame, task)
            if isinstance(value, Unknown):
                return value
            try:
                out.append(sem.format_field(value, part.conversion, part.format_spec))
            except sem.SemanticError as error:
                raise _at(error, node.span) from None
        return "".join(out)

    def _e_map_lookup(self, node: nodes.MapLookup, frame: Frame, task: Task) -> Any:
        target = self.eval(node.target, frame, task)
        key = self.eval(node.key, frame, task)
        if isinstance(target, Unknown) or isinstance(key, Unknown):
            return Unknown(node)
        try:
            return sem.lookup(target, key)
        except sem.SemanticError as error:
            raise _at(error, node.span, right=node.key.span) from None

    def _e_list(self, node: nodes.ListLiteral, frame: Frame, task: Task) -> Any:
        return [self.eval(item, frame, task) for item in node.items]

    def _e_dict(self, node: nodes.DictLiteral, frame: Frame, task: Task) -> Any:
        return {key: self.eval(value, frame, task) for key, value in node.pairs}

    def _e_comprehension(self, node: nodes.ListComprehension, frame: Frame, task: Task) -> Any:
        result: list[Any] = []
        loops = node.loops
        unknown = False

        def nest(level: int, scope: Frame) -> None:
            nonlocal unknown
            if level == len(loops):
                for guard in node.guards:
                    ok = self.eval(guard, scope, task)
                    if isinstance(ok, Unknown):
                        unknown = True
                        return
                    if type(ok) is not bool:
                        raise fail(
                            f"the condition of a list comprehension must be a bool, not {show(ok)}",
                            guard.span,
                            "type-error",
                        )
                    if not ok:
                        return
                value = self.eval(node.value, scope, task)
                result.append(value)
                return
            loop = loops[level]
            items = self.eval(loop.iterable, scope, task)
            if isinstance(items, Unknown):
                unknown = True
                return
            if type(items) is not list:
                raise fail(
                    f"a list comprehension iterates a list or a relation, not {kind_of(items)} {show(items)}",
                    loop.iterable.span,
                    "type-error",
                )
            name = loop.variable.text
            declared = {name: loop.variable.span}
            for item in items:
                inner = Frame(declared, scope, scope.ns)
                var = inner.own(name)
                var.value = item
                var.ready = True
                var.where = loop.variable.span
                nest(level + 1, inner)

        nest(0, frame)
        if unknown:
            return Unknown(node)
        return result

    def _e_not(self, node: nodes.Not, frame: Frame, task: Task) -> Any:
        value = self.eval(node.operand, frame, task)
        if isinstance(value, Unknown):
            return value
        try:
            return sem.negation(value)
        except sem.SemanticError as error:
            raise _at(error, node.span) from None

    def _e_conditional(self, node: nodes.Conditional, frame: Frame, task: Task) -> Any:
        condition = self.eval(node.condition, frame, task)
        if isinstance(condition, Unknown):
            return condition
        try:
            chosen = sem.choice(condition)
        except sem.SemanticError as error:
            raise _at(error, node.condition.span) from None
        return self.eval(node.then if chosen else node.otherwise, frame, task)

    def _e_is_defined(self, node: nodes.IsDefined, frame: Frame, task: Task) -> Any:
        target = node.target
        if isinstance(target, nodes.MapLookup):
            mapping = self.eval(target.target, frame, task)
            key = self.eval(target.key, frame, task)
            if isinstance(mapping, Unknown) or isinstance(key, Unknown):
                return Unknown(node)
            try:
                return sem.has_value(mapping, key)
            except sem.SemanticError as error:
                raise _at(error, node.span) from None
        if isinstance(target, nodes.AttributeAccess):
            owner = self.eval(target.target, frame, task)
            if isinstance(owner, Unknown):
                return owner
            if type(owner) is not Instance:
                raise self._not_instance(target.name.text, owner, target.span)
            slot = owner.slot(target.name.text)
            if slot is None:
                raise self._no_field(owner.info, target.name.text, target.name.span)
        else:
            assert isinstance(target, nodes.Reference)
            slot = self.lookup(target.name.text, frame, target.span)
        kind = type(slot)
        if kind is ListVar:
            assert isinstance(slot, ListVar)
            if slot.items:
                return True
            if slot.frozen:
                return False
            raise Blocked(slot)
        if kind is OptVar:
            assert isinstance(slot, OptVar)
            if slot.value is not None:
                return True
            if slot.frozen:
                return False
            raise Blocked(slot)
        value = slot.get()
        if isinstance(value, Unknown):
            return value
        if type(value) is list and value and all(isinstance(v, Unknown) for v in value):
            return Unknown(node)
        return sem.is_defined(value)

    # -- operators

    def _e_binary(self, node: nodes.BinaryOperation, frame: Frame, task: Task) -> Any:
        op = node.operator
        if op == "and" or op == "or":
            return self._logical(op, node, frame, task)
        left = self.eval(node.left, frame, task)
        right = self.eval(node.right, frame, task)
        try:
            if op == "in" or op == "not in":
                result = self._contains(left, right, node)
                if isinstance(result, Unknown) or op == "in":
                    return result
                return not result
            if isinstance(left, Unknown) or isinstance(right, Unknown):
                return Unknown(node)
            if op == "==":
                return sem.equal(left, right)
            if op == "!=":
                return not sem.equal(left, right)
            if op == "is":
                return self._is(node, left, right)
            if op in sem.ORDERINGS:
                return sem.compare(op, left, right)
            return sem.arithmetic(op, left, right)
        except sem.SemanticError as error:
            raise _at(error, node.span, node.left.span, node.right.span) from None

    def _logical(self, op: str, node: nodes.BinaryOperation, frame: Frame, task: Task) -> Any:
        """``and`` / ``or``: the right side is evaluated only when the left does not decide."""
        left = self.eval(node.left, frame, task)
        if isinstance(left, Unknown):
            return left
        try:
            decided = sem.logical_operand(op, "left", left) is (op == "or")
        except sem.SemanticError as error:
            raise _at(error, node.span, node.left.span, node.right.span) from None
        if decided:
            return left
        right = self.eval(node.right, frame, task)
        if isinstance(right, Unknown):
            return right
        try:
            return sem.logical_operand(op, "right", right)
        except sem.SemanticError as error:
            raise _at(error, node.span, node.left.span, node.right.span) from None

    def _contains(self, left: Any, right: Any, node: nodes.BinaryOperation) -> Any:
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            return Unknown(node)
        if sem.contains(left, right):
            return True
        if type(right) is list and any(isinstance(item, Unknown) for item in right):
            return Unknown(node)  # not found among the known items: one of the others may be it
        return False

    def _is(self, node: nodes.BinaryOperation, left: Any, right: Any) -> Any:
        if type(left) is not str or type(right) is not str:
            raise fail(
                f"'is' tests enum values (strings), not {show(left)} and {show(right)}",
                node.span,
                "type-error",
            )
        enum = self._enum_for(node, left, right)
        if enum is None:
            raise fail(
                f"no enum has both {show(left)} and {show(right)} as values; 'is' tests enum values",
                node.span,
                "type-error",
            )
        return enum.is_a(left, right)

    def _enum_for(self, node: nodes.BinaryOperation, left: str, right: str) -> p.EnumType | None:
        key = id(node)
        if key in self._enum_cache:
            return self._enum_cache[key]
        found: list[p.EnumType] = []
        for ns in self.program.namespaces.values():
            for enum in ns.enums.values():
                if left in enum.values and right in enum.values:
                    found.append(enum)
        result = found[0] if len(found) == 1 else None
        if len(found) > 1:
            names = ", ".join(e.qualified_name for e in found)
            raise fail(
                f"'is' is ambiguous: {show(left)} and {show(right)} are values of {names}",
                node.span,
                "type-error",
            )
        self._enum_cache[key] = result
        return result

    # -- calls

    def _e_call(self, node: nodes.FunctionCall, frame: Frame, task: Task) -> Any:
        if task is PURE:  # a default, a typedef condition: nothing to replay
            return self.plugins.call(node, frame, task)
        memo = task.memo
        pos = task.pos
        if memo is not None and pos < len(memo):
            task.pos = pos + 1
            return memo[pos]
        result = self.plugins.call(node, frame, task)
        if memo is None:
            task.memo = memo = []
        memo.append(result)
        task.pos += 1
        return result

    # -- queries

    def _e_index_query(self, node: nodes.IndexQuery, frame: Frame, task: Task) -> Any:
        entity = frame.ns.lookup_entity(node.entity.text)
        if entity is None:
            raise self._no_entity(node.entity.text, frame.ns, node.entity.span)
        values: dict[str, Any] = {}
        for argument in node.arguments:
            name = argument.name.text
            if name in values:
                raise fail(f"'{name}' is given twice in the index lookup", argument.span, "bad-query")
            values[name] = self.eval(argument.value, frame, task)
        return self.index_lookup(self.infos[entity], values, node.span)

    def _e_selector_query(self, node: nodes.SelectorQuery, frame: Frame, task: Task) -> Any:
        owner = self.eval(node.target, frame, task)
        if isinstance(owner, Unknown):
            return owner
        if type(owner) is not Instance:
            raise self._not_instance(node.relation.text, owner, node.span)
        field = owner.info.fields.get(node.relation.text)
        if field is None:
            raise self._no_field(owner.info, node.relation.text, node.relation.span)
        if field.kind == ATTR or field.target is None:
            raise fail(
                f"'{field.name}' of {owner.info.qname} is an attribute; "
                "a selector query [k=v] needs a relation",
                node.relation.span,
                "bad-query",
            )
        if field.opposite is None:
            raise fail(
                f"relation '{field.name}' of {owner.info.qname} is unidirectional; a selector query needs "
                "a relation with a name on both ends",
                node.relation.span,
                "bad-query",
            )
        values: dict[str, Any] = {field.opposite: owner}
        for argument in node.arguments:
            name = argument.name.text
            if name in values:
                raise fail(f"'{name}' is given twice in the index lookup", argument.span, "bad-query")
            values[name] = self.eval(argument.value, frame, task)
        return self.index_lookup(self.infos[field.target], values, node.span)

    def index_lookup(self, info: EntityInfo, values: dict[str, Any], span: Span) -> Any:
        names = set(values)
        for position, (_, attributes) in enumerate(info.indexes):
            if set(attributes) != names:
                continue
            if any(isinstance(v, Unknown) for v in values.values()):
                return Unknown(span)
            key = tuple(index_key_part(values[a]) for a in attributes)
            table_key = (id(info), position)
            table = self.index_tables.get(table_key)
            found = table.get(key) if table is not None else None
            if found is not None:
                return found
            waits = self.index_waits.setdefault(table_key, {})
            entry = waits.get(key)
            if entry is None:
                text = ", ".join(f"{a}={show(values[a])}" for a in attributes)
                entry = waits[key] = (IndexWait(info.qname, text), span)
            raise Blocked(entry[0])
        indexes = "; ".join(f"{info.qname}({', '.join(a)})" for _, a in info.indexes) or "none"
        raise fail(
            f"no index of {info.qname} has exactly the attributes {', '.join(sorted(names))} "
            f"(indexes: {indexes})",
            span,
            "no-index",
        )

    def _no_entity(self, name: str, ns: p.LinkedNamespace, span: Span) -> CfEvaluationError:
        definition = ns.definition(name)
        if definition is not None:
            return fail(f"{name} is {_kind(definition)}, not an entity", span, "not-an-entity")
        return fail(f"no entity named '{name}' is visible in namespace {ns.name}", span, "unknown-entity")

    # ------------------------------------------------------------------ constructors

    def _e_constructor(self, node: nodes.Constructor, frame: Frame, task: Task) -> Any:
        return self.construct(node, frame, task, None)

    def plan(self, node: nodes.Constructor, ns: p.LinkedNamespace) -> CtorPlan:
        plan = self.plans.get(id(node))
        if plan is not None:
            return plan
        name = node.entity.text
        definition = ns.definition(name)
        preset: dict[str, Any] = {}
        if isinstance(definition, p.Typedef) and definition.constructor is not None:
            entity = definition.constructor.entity
            typedef_frame = Frame({}, None, definition.namespace)
            info = self.infos[entity]
            for argument in definition.constructor.arguments:
                if argument.name.text not in info.fields:
                    raise self._no_field(info, argument.name.text, argument.name.span)
                try:
                    preset[argument.name.text] = self.eval(argument.value, typedef_frame, PURE)
                except Blocked:
                    raise fail(
                        f"the arguments of constructor typedef {definition.qualified_name} must be constants",
                        argument.span,
                        "bad-typedef",
                    ) from None
        elif isinstance(definition, p.EntityType):
            entity = definition
        else:
            raise self._no_entity(name, ns, node.entity.span)
        info = self.infos[entity]
        plan = CtorPlan(info)
        plan.preset = preset
        for argument in node.arguments:
            arg_name = argument.name.text
            field = info.fields.get(arg_name)
            if field is None:
                raise self._no_field(info, arg_name, argument.name.span)
            if arg_name in plan.explicit:
                raise fail(
                    f"'{arg_name}' is given twice in the constructor of {info.qname}",
                    argument.span,
                    "duplicate-argument",
                )
            plan.explicit[arg_name] = (field, argument.value, argument.span)
            if arg_name not in info.index_attrs:
                plan.indirect.append((field, argument.value, argument.span))
        plan.names = frozenset(plan.explicit)
        self.plans[id(node)] = plan
        return plan

    def construct(
        self, node: nodes.Constructor, frame: Frame, task: Task, lhs: tuple[Instance, FieldInfo] | None
    ) -> Any:
        if task is PURE:
            raise fail("a constructor cannot be used here (only constant values)", node.span, "not-constant")
        memo = task.memo
        pos = task.pos
        if memo is not None and pos < len(memo):
            task.pos = pos + 1
            return memo[pos]
        plan = self.plan(node, frame.ns)
        info = plan.info
        span = node.span
        extra: dict[str, Any] | None = None
        if node.wrapped_kwargs:
            extra = {}
            for wrapped in node.wrapped_kwargs:
                mapping = self.eval(wrapped, frame, task)
                if type(mapping) is not dict:
                    raise fail(
                        f"** needs a dict of attribute values, not {kind_of(mapping)} {show(mapping)}",
                        wrapped.span,
                        "type-error",
                    )
                for key, value in mapping.items():
                    if key in plan.explicit or key in extra:
                        raise fail(
                            f"attribute '{key}' is set twice in the constructor of {info.qname}",
                            wrapped.span,
                            "duplicate-argument",
                        )
                    if key not in info.fields:
                        raise self._no_field(info, str(key), wrapped.span)
                    extra[key] = value
        direct: dict[str, Any] = {}
        missing: list[str] | None = None
        for name in plan.direct:
            given = plan.explicit.get(name)
            if given is not None:
                direct[name] = self.eval(given[1], frame, task)
            elif extra is not None and name in extra:
                direct[name] = extra[name]
            elif name in plan.preset:
                direct[name] = plan.preset[name]
            elif missing is None:
                missing = [name]
            else:
                missing.append(name)
        injected: dict[str, tuple[Any, Span]] | None = None
        injection = self.injection
        if injection is not None and injection.targets_of(info):
            given_names = set(plan.names) | set(plan.preset) | (set(extra) if extra is not None else set())
            injected = injection.parameters(info, given_names, direct, span)
            if missing is not None and any(name in injected for name in missing):
                # an index attribute came from the bindings: Entity[key] bindings may now apply
                direct.update((name, injected[name][0]) for name in missing if name in injected)
                injected = injection.parameters(info, given_names, direct, span)
        if missing is not None:
            for name in missing:
                if injected is not None and name in injected:
                    direct[name] = injected[name][0]
                elif name in info.defaults:
                    direct[name] = info.defaults[name]
                elif lhs is not None and lhs[1].opposite == name:
                    direct[name] = lhs[0]
                else:
                    raise self._missing_index_attribute(info, name, span)
        instance: Instance | None = None
        if info.indexes:
            instance = self._find_existing(info, direct, span)
        new = instance is None
        if instance is None:
            self.instance_count += 1
            instance = Instance(info, span, self.instance_count)
        for name, value in direct.items():
            given = plan.explicit.get(name)
            if given is not None:
                where = given[2]
            elif injected is not None and name in injected:
                where = injected[name][1]
            else:
                where = span
            self.set_field(instance, info.fields[name], value, where)
        if new:
            self._register(instance)
        for field, expr, arg_span in plan.indirect:
            self.assign_expr(instance, field, expr, frame, arg_span)
        if extra is not None:
            for key, value in extra.items():
                if key not in info.index_attrs:
                    self.set_field(instance, info.fields[key], value, span)
        for key, value in plan.preset.items():
            if key not in plan.names and (extra is None or key not in extra) and key not in info.index_attrs:
                self.set_field(instance, info.fields[key], value, span)
        if injected is not None:
            for key, (value, where) in injected.items():
                if key not in info.index_attrs:
                    self.set_field(instance, info.fields[key], value, where)
        for key, value in info.defaults.items():
            if (
                key not in plan.names
                and key not in plan.preset
                and (extra is None or key not in extra)
                and key not in info.index_attrs
                and (injected is None or key not in injected)
            ):
                self.set_field(instance, info.fields[key], value, span)
        if new:
            self.emit_implementations(instance)
        if memo is None:
            task.memo = memo = []
        memo.append(instance)
        task.pos += 1
        return instance

    def _missing_index_attribute(self, info: EntityInfo, name: str, span: Span) -> CfEvaluationError:
        field = info.fields[name]
        index_text = next(
            f"index {index.entity.qualified_name}({', '.join(names)})"
            for index, names in info.indexes
            if name in names
        )
        kind = "attribute" if field.kind == ATTR else "relation"
        notes = [
            Note(info.indexes[0][0].span if len(info.indexes) == 1 else None, f"{index_text} is defined here")
        ]
        for index, names in info.indexes:
            if name in names:
                notes = [Note(index.span, f"{index_text} is defined here")]
                break
        return fail(
            f"the constructor of {info.qname} must set {kind} '{name}': it is part of {index_text}",
            span,
            "index-attribute-missing",
            notes,
        )

    def _find_existing(self, info: EntityInfo, direct: dict[str, Any], span: Span) -> Instance | None:
        found: Instance | None = None
        for position, (_, names) in enumerate(info.indexes):
            values = [direct[n] for n in names]
            if any(isinstance(v, Unknown) for v in values):
                raise fail(
                    f"index attributes of {info.qname} cannot be unknown ({', '.join(names)})",
                    span,
                    "unknown-index",
                )
            key = tuple(index_key_part(v) for v in values)
            table = self.index_tables.get((id(info), position))
            hit = table.get(key) if table is not None else None
            if hit is None:
                continue
            if hit.info is not info:
                raise fail(
                    f"{info.qname}({_key_text(names, values)}) matches an existing {hit}, "
                    f"which is a {hit.info.qname}, not a {info.qname}",
                    span,
                    "index-conflict",
                    [Note(hit.span, "the existing instance was created here")],
                )
            if found is not None and found is not hit:
                raise fail(
                    f"the index attributes of this {info.qname} match two different instances: "
                    f"{found} and {hit}",
                    span,
                    "index-collision",
                    [
                        Note(found.span, "the first was created here"),
                        Note(hit.span, "the second was created here"),
                    ],
                )
            found = hit
        return found

    def _register(self, instance: Instance) -> None:
        info = instance.info
        info.instances.append(instance)
        self.instances.append(instance)
        for entity in info.entity.mro:
            owner = self.infos[entity]
            if entity is not info.entity:
                owner.count += 1
            for position, (index, names) in enumerate(owner.indexes):
                values = []
                for name in names:
                    slot = instance.slots.get(name)
                    values.append(_slot_value(slot))
                key = tuple(index_key_part(v) for v in values)
                table_key = (id(owner), position)
                table = self.index_tables.get(table_key)
                if table is None:
                    table = self.index_tables[table_key] = {}
                existing = table.get(key)
                if existing is not None and existing is not instance:
                    raise fail(
                        f"duplicate key in index {owner.qname}({', '.join(names)}): "
                        f"{existing} already has {_key_text(names, values)}",
                        instance.span,
                        "index-conflict",
                        [
                            Note(existing.span, "the existing instance was created here"),
                            Note(index.span, "the index"),
                        ],
                    )
                table[key] = instance
                waits = self.index_waits.get(table_key)
                if waits:
                    entry = waits.pop(key, None)
                    if entry is not None:
                        wait = entry[0]
                        wait.found = instance
                        wait.wake(self.sched)
        info.count += 1
        if self.injection is not None and self.injection.waits:
            self.injection.registered(instance)

    def emit_implementations(self, instance: Instance) -> None:
        for rule in instance.info.rules:
            if rule.condition is None:
                for implementation in rule.implementations:
                    st.emit_implementation(self, instance, implementation)
            else:
                self.sched.queue.append(st.ImplTask(instance, rule))

    # ------------------------------------------------------------------ assignment to instances

    def is_pure(self, node: nodes.Expression) -> bool:
        """No constructor or plugin call inside (safe to evaluate out of any task)."""
        key = id(node)
        cached = self.pure_cache.get(key)
        if cached is None:
            cached = self.pure_cache[key] = _pure(node)
        return cached

    def assign_expr(
        self, instance: Instance, field: FieldInfo, expr: nodes.Expression, frame: Frame, span: Span
    ) -> None:
        """Set *field* of *instance* to *expr*, now if it can be evaluated, else in a task."""
        if type(expr) is nodes.Literal:
            self.set_field(instance, field, expr.value, span)
            return
        if self.is_pure(expr):
            try:
                value = self.eval(expr, frame, PURE)
            except Blocked:
                pass
            else:
                self.set_field(instance, field, value, span)
                return
        self.sched.queue.append(st.AttrTask(instance, field, expr, frame, span))

    def set_field(self, instance: Instance, field: FieldInfo, value: Any, span: Span) -> None:
        """Assign *value* to an attribute or relation (relations: append, both ends)."""
        kind = field.kind
        slot = instance.slots.get(field.name)
        if slot is None:
            slot = instance.slot(field.name)
            assert slot is not None
        if kind == ATTR:
            assert field.type is not None and isinstance(slot, Var)
            fast = field.fast
            if fast is None or not fast(value):
                value = self.checker.check(
                    field.type, value, span, lambda: f"attribute '{field.name}' of {instance}"
                )
            slot.set(self.sched, value, span)
            return
        if kind == MANY:
            assert isinstance(slot, ListVar)
            if value is None:
                if slot.items:
                    raise fail(
                        f"relation '{field.name}' of {instance} cannot be set to null: it already holds "
                        f"{show(slot.items)}",
                        span,
                        "double-assignment",
                    )
                if not slot.frozen:
                    slot.where = span
                    slot.freeze(self.sched)
                return
            if type(value) is list:
                for item in value:
                    self.set_field(instance, field, item, span)
                return
            if isinstance(value, Unknown):
                return
            assert field.target is not None
            target = (
                value
                if type(value) is Instance and field.target in value.info.ancestors
                else check_entity(
                    field.target, value, span, lambda: f"a value of relation '{field.name}' of {instance}"
                )
            )
            if slot.add(self.sched, target, span) and field.opposite is not None:
                self._bind_back(target, field.opposite, instance, span)
            return
        if isinstance(value, Unknown):
            return
        if type(value) is list:
            if len(value) == 1:
                value = value[0]
            else:
                raise fail(
                    f"relation '{field.name}' {field.multiplicity} of {instance} holds one value, "
                    f"not a list of {len(value)}",
                    span,
                    "type-error",
                )
        if kind == ONE:
            assert isinstance(slot, Var)
            if value is None:
                raise fail(f"relation '{field.name}' [1] of {instance} cannot be null", span, "type-error")
            assert field.target is not None
            target = check_entity(field.target, value, span, lambda: f"relation '{field.name}' of {instance}")
            if slot.ready:
                if slot.value is target:
                    return
                raise slot.double(target, span)
            slot.set(self.sched, target, span)
            if field.opposite is not None:
                self._bind_back(target, field.opposite, instance, span)
            return
        assert isinstance(slot, OptVar)
        if value is None:
            slot.set(self.sched, None, span)
            return
        assert field.target is not None
        target = check_entity(field.target, value, span, lambda: f"relation '{field.name}' of {instance}")
        if slot.set(self.sched, target, span) and field.opposite is not None:
            self._bind_back(target, field.opposite, instance, span)

    def _bind_back(self, target: Instance, name: str, source: Instance, span: Span) -> None:
        """The other end of a bidirectional relation (no recursion)."""
        field = target.info.fields[name]
        slot = target.slot(name)
        kind = field.kind
        if kind == MANY:
            assert isinstance(slot, ListVar)
            slot.add(self.sched, source, span)
        elif kind == ONE:
            assert isinstance(slot, Var)
            if slot.ready:
                if slot.value is not source:
                    raise slot.double(source, span)
                return
            slot.set(self.sched, source, span)
        else:
            assert isinstance(slot, OptVar)
            slot.set(self.sched, source, span)

    # ------------------------------------------------------------------ typedef conditions

    def _typedef_condition(self, typedef: p.Typedef, value: Any) -> Any:
        assert typedef.condition is not None
        frame = Frame({}, None, typedef.namespace, selfslot=Constant(value))
        try:
            return self.eval(typedef.condition, frame, PURE)
        except Blocked:
            raise fail(
                f"the condition of typedef {typedef.qualified_name} may only use 'self', "
                "constants and plugins",
                typedef.condition.span,
                "bad-typedef",
            ) from None


# ---------------------------------------------------------------- helpers


def _kind(definition: object) -> str:
    if isinstance(definition, p.EntityType):
        return "an entity"
    if isinstance(definition, p.Typedef):
        return "a typedef"
    if isinstance(definition, p.EnumType):
        return "an enum"
    if isinstance(definition, p.Implementation):
        return "an implementation"
    return "a definition"


def _slot_value(slot: Slot | None) -> Any:
    if slot is None:
        return None
    if isinstance(slot, Var | Constant):
        return slot.value
    if isinstance(slot, OptVar):
        return slot.value
    if isinstance(slot, ListVar):
        return list(slot.items)
    return None


def _key_text(names: tuple[str, ...] | list[str], values: list[Any]) -> str:
    return ", ".join(f"{n}={show(v)}" for n, v in zip(names, values, strict=False))


def _at(
    error: sem.SemanticError, span: Span, left: Span | None = None, right: Span | None = None
) -> CfEvaluationError:
    """The compiler's error for a `SemanticError`: at the operand's span when it is about one."""
    where = left if error.operand == "left" else right if error.operand == "right" else None
    return fail(error.message, where or span, error.code)


def _pure(node: nodes.Expression) -> bool:

    stack: list[nodes.Expression] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, nodes.Constructor | nodes.FunctionCall):
            return False
        stack.extend(sub_expressions(current))
    return True


def _defaults_of(entity: p.EntityType) -> dict[str, nodes.Expression]:
    """Defaults as the reference compiler computes them: own beat parents', left parent beats right."""
    values: dict[str, nodes.Expression | nodes.Undef] = {}
    for parent in reversed(entity.parents):
        values.update(_defaults_of(parent))
    for name, attribute in entity.attributes.items():
        if attribute.default is not None:
            values[name] = attribute.default
    return {k: v for k, v in values.items() if not isinstance(v, nodes.Undef)}


def _rules_of(entity: p.EntityType) -> list[p.ImplementRule]:
    rules: list[p.ImplementRule] = []
    inherit = False
    for rule in entity.implements:
        if rule.implementations:
            rules.append(rule)
        if rule.using_parents:
            inherit = True
    if inherit:
        for parent in entity.parents:
            for rule in _rules_of(parent):
                if rule not in rules:
                    rules.append(rule)
    return rules
