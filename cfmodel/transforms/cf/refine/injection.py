"""Implicit injection: what the bindings (ARM-8) give the model without a ``std::inject`` call.

Input: the request's injector, through its public methods only (``effective``,
``instance_parameters``, ``variables``; docs/bindings.md, "Injection API"), and the
evaluator (entities, index tables). Output, for the evaluator:

* **variables** (`Injection.bind_variables`): ``bind variables to { dc => 'ams' }`` sets
  the main namespace's variable ``dc`` before anything runs. A ``.cf`` assignment of a
  bound variable is a double assignment like any other: the same value is fine, another
  value is ``double-assignment`` naming the binding and the assignment (neither side wins
  silently). Other namespaces read it as ``__config__::dc``.
* **constructor parameters** (`Injection.parameters`): ``bind parameters ns::Entity to {
  attr => v }`` gives a constructor call the attributes it does not give itself, before the
  entity's defaults: per attribute, the call's own argument (keyword, ``**dict`` or a
  constructor typedef's preset), else the bindings, else the default. Entity names are
  written as in ``.cf`` (``std::Host``; the main namespace's entities as ``Host`` or
  ``__config__::Host``). A binding of a parent entity applies to its children's instances;
  the entity's own bindings come first, then its parents' in the order of its parents (as
  defaults). ``Entity[key]`` targets the instance whose key is ``key``: the values of one of
  its entity's indexes, one title per index attribute in the index's order (``Host['web1']``
  for ``index Host(name)``, ``Host['web', 'example.com']`` for ``index Host(name, domain)``);
  a title is compared with the value as a whole, a string as is (any string: commas,
  brackets, quotes), a number as written (``53``, ``1.5``), ``true``/``false``. The keys of
  an instance are tried from the index with the most attributes to the one with the fewest
  (same count: in the order the entity's indexes are declared, its own before its
  parents'); per attribute, the first key with a binding gives the value. An instance bound
  as a parameter source (``bind parameters Web[one] to Sql[one]``) is found by the same
  keys; a constructor that needs one that does not exist yet waits for it, and when nothing
  can create it any more it does not exist (`SourceWait`, completed like an optional
  relation): ``parameter-source-missing``, or nothing for ``to optional``. The
  source's attributes are read when they are known (the constructor waits for them). A
  custom producer bound as a source (``to producer 'name'``) is asked at each constructor
  call; its hash (or instance reference) is read like an instance's attributes.
  Injected values are set at construction, with the binding's position: a type error points
  at the binding, and setting the attribute later is a ``double-assignment`` whose note
  points at the binding.

Checks when the evaluator starts (all reported together, ``CfCompileError``):
``unknown-entity`` (``bind parameters`` names no entity of a namespace the program has),
``unknown-parameter`` (a bound name that is no attribute of the entity; bindings with
instance sources are checked when the first instance is made), ``unknown-key``
(``Entity[a, b]`` when no index of the entity has that many attributes: it could never
apply), ``type-error`` (a bound variable whose value is a type or instance reference).

`has_bindings` tells whether a project directory has anything to bind; `EmptyBindings`
answers ``std::inject`` for a project without bindings (defaults, ``/classes`` = []).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from cfmodel.errors import CfCompileError, CfEvaluationError, CfModelError, Diagnostic, Note, Span
from cfmodel.inputs import load_yaml, read_text
from cfmodel.plugins import Unknown
from cfmodel.project import MAIN_NAMESPACE
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.refine.errors import Blocked, fail, show
from cfmodel.transforms.cf.refine.values import ATTR, EntityInfo, Instance, SourceWait, Var, index_key_part

if TYPE_CHECKING:
    from cfmodel.transforms.bindings.compose import Injector
    from cfmodel.transforms.bindings.compose.values import TypeValue
    from cfmodel.transforms.cf.refine.evaluator import Evaluator
    from cfmodel.transforms.cf.refine.frames import Frame

PARAMETER, SOURCE, VARIABLE = "/param/", "/params/", "/var/"
#: what the compiler uses of the bindings `Injector` for implicit injection (all public)
_INJECTOR_METHODS = ("effective", "instance_parameters", "variables", "variable")
#: An instance's key as ``Entity[...]`` writes it: one title per index attribute (``("web1",)``);
#: empty for the entity itself.
Titles = tuple[str, ...]


class BoundVar(Var):
    """A main-namespace variable set by ``bind variables``."""

    __slots__ = ("binding",)

    def __init__(self, name: str, value: Any, span: Span | None, binding: str) -> None:
        super().__init__(name)
        self.value = value
        self.ready = True
        self.where = span
        self.binding = binding

    def double(self, value: Any, span: Span) -> Exception:
        return fail(
            f"variable '{self.name}' is bound to {show(self.value)} by the bindings ({self.binding}); "
            f"it cannot also be set to {show(value)} (a value is assigned once)",
            span,
            "double-assignment",
            [Note(self.where, f"the binding of '{self.name}' is here")],
        )


class _Target:
    """The ``bind parameters`` of one entity as the bindings name it (``std::Host``, ``Host``)."""

    __slots__ = ("attributes", "entity", "literals", "name", "sources", "titles", "whole")

    def __init__(self, name: str, entity: p.EntityType) -> None:
        self.name = name
        self.entity = entity
        self.attributes = list(entity.all_attributes)
        self.whole = False  # a binding of the entity itself
        self.titles: set[Titles] = set()  # Entity[title, ...] bindings
        self.literals: dict[tuple[Titles, str], Span | None] = {}  # (titles, attribute) -> binding
        self.sources: dict[Titles, Span | None] = {}  # titles -> the first source binding


class InjectorLike(Protocol):
    """What a compile asks of an injector: ``std::inject`` a lookup by type or name.

    `cfmodel.transforms.bindings.compose.Injector` is one; it (or any object with its
    public methods ``effective``, ``instance_parameters``, ``variables``, ``variable``)
    also injects implicitly (``bind variables``, ``bind parameters``: `Injection`).
    """

    def lookup(self, type_or_name: str, name: str | None = None, *, default: Any = ...) -> Any: ...


class Injection:
    """The evaluator's side of implicit injection (see the module docstring)."""

    def __init__(self, ev: Evaluator, injector: Injector) -> None:
        self.ev = ev
        self.injector = injector
        self.targets: dict[str, _Target] = {}
        self.variables: dict[str, tuple[Any, Span | None, str]] = {}
        self.waits: dict[tuple[int, Titles], SourceWait] = {}
        self._skipped: set[str] = set()
        self._per_entity: dict[int, list[_Target]] = {}
        self._asking: Span | None = None  # the constructor call being given parameters
        self._cache: dict[tuple[str, tuple[Titles, ...]], list[tuple[str, Any, Span | None]]] = {}
        problems: list[Diagnostic] = []
        self._read(problems)
        self._check(problems)
        if problems:
            raise CfCompileError(problems)

    @staticmethod
    def create(ev: Evaluator, injector: InjectorLike) -> Injection | None:
        """None when the injector has no implicit injection (a plain ``lookup`` object, no bindings)."""
        if not all(hasattr(injector, m) for m in _INJECTOR_METHODS):
            return None
        injection = Injection(ev, cast("Injector", injector))
        return injection if injection.targets or injection.variables else None

    # ------------------------------------------------------------------ reading the bindings

    def _read(self, problems: list[Diagnostic]) -> None:
        """The bound variables (values from ``variables()``) and parameter targets, with positions."""
        from cfmodel.transforms.bindings.compose.values import TypeValue  # lazy: with bindings only

        bound: dict[str, Any] = self.injector.variables()
        for binding in self.injector.effective():
            name: str = binding.key.name
            where = f'bindings {binding.origin}, layer "{binding.layer}", {binding.category}'
            if binding.key.namespace.startswith("Type[") and isinstance(binding.value, TypeValue):
                self._check_subtype(binding.key.namespace, binding.value, binding.span, where, problems)
                continue
            if name.startswith(VARIABLE):
                variable = name[len(VARIABLE) :]
                if binding.lazy:  # a producer: asked now
                    value = self.injector.variable(variable, default=None)
                else:
                    value = bound.get(variable)
                if value is not None:
                    self._variable(variable, value, binding.span, where, problems)
                continue
            if name.startswith(PARAMETER):
                target, _, attribute = name[len(PARAMETER) :].rpartition("/")
            elif name.startswith(SOURCE):
                target, attribute = name[len(SOURCE) :].rpartition("/")[0], ""
            else:
                continue
            from cfmodel.transforms.bindings.compose.values import decode_target  # lazy: with bindings only

            type_name, titles = decode_target(target)
            found = self._target(type_name, binding.span, where, problems)
            if found is None:
                continue
            if titles:
                if titles not in found.titles and not self._has_index(
                    found, titles, binding.span, where, problems
                ):
                    continue
                found.titles.add(titles)
            else:
                found.whole = True
            if attribute:
                found.literals[(titles, attribute)] = binding.span
            else:
                found.sources.setdefault(titles, binding.span)

    def _variable(
        self, name: str, value: Any, span: Span | None, where: str, problems: list[Diagnostic]
    ) -> None:
        try:
            self.variables[name] = (model_value(value, span, f"variable '{name}'"), span, where)
        except CfEvaluationError as error:
            problems.extend(error.diagnostics())

    def _target(
        self, type_name: str, span: Span | None, where: str, problems: list[Diagnostic]
    ) -> _Target | None:
        found = self.targets.get(type_name)
        if found is not None or type_name in self._skipped:
            return found
        namespace, _, local = type_name.rpartition("::")
        linked = (
            self.ev.program.main
            if namespace in ("", MAIN_NAMESPACE)
            else self.ev.program.namespaces.get(namespace)
        )
        entity = self._entity(type_name)
        if entity is None:
            self._skipped.add(type_name)
            if linked is not None and type_name != "Class":  # not another project's module, not a class
                message = (
                    f"bind parameters {type_name}: namespace {linked.name} has no entity {local} ({where})"
                )
                problems.append(Diagnostic(span, message, "unknown-entity"))
            return None
        found = self.targets[type_name] = _Target(type_name, entity)
        return found

    def _check_subtype(
        self, key_type: str, value: TypeValue, span: Span | None, where: str, problems: list[Diagnostic]
    ) -> None:
        """ARM-8: ``bind Type[X] to Type[Y]`` needs ``Y`` to be ``X`` or a subtype. Checked when
        either is an entity of the program (data types are checked when composing; types that
        are neither are runtime types, which the program does not know)."""
        from cfmodel.transforms.bindings.compose import values as types  # lazy: with bindings only

        wanted = types.parse_type(key_type).args[0].name
        given = types.bound_type(value).name
        wanted_entity, given_entity = self._entity(wanted), self._entity(given)
        if wanted_entity is None and given_entity is None:
            return
        if wanted_entity is not None and given_entity is not None and wanted_entity in given_entity.mro:
            return
        if given_entity is None:
            why = f"{given} is no entity of the program"
        else:
            parents = ", ".join(e.qualified_name for e in given_entity.mro[1:]) or "none"
            why = f"{given_entity.qualified_name} does not extend {wanted} (its parents: {parents})"
        message = f"bind {key_type} to {value}: the bound type must be {wanted} or a subtype; {why} ({where})"
        problems.append(Diagnostic(span, message, "not-a-subtype"))

    def _has_index(
        self, target: _Target, titles: Titles, span: Span | None, where: str, problems: list[Diagnostic]
    ) -> bool:
        """Whether an index of the entity has as many attributes as ``Entity[...]`` has titles."""
        indexes = self.ev.infos[target.entity].indexes
        if any(len(names) == len(titles) for _, names in indexes):
            return True

        from cfmodel.transforms.bindings.compose.values import show_target  # lazy: with bindings only

        known = ", ".join(f"{target.entity.name}({', '.join(names)})" for _, names in indexes) or "none"
        message = (
            f"bind parameters {show_target(target.name, titles)}: {target.entity.name} has no index of "
            f"{len(titles)} attribute{'s' if len(titles) > 1 else ''}, so no instance has this key "
            f"(its indexes: {known}) ({where})"
        )
        problems.append(Diagnostic(span, message, "unknown-key"))
        return False

    def _check(self, problems: list[Diagnostic]) -> None:
        """Bound names that are no attribute, for entities without instance sources."""
        for target in self.targets.values():
            if target.sources:
                continue
            every: list[list[Titles]] = ([[]] if target.whole else []) + [[t] for t in sorted(target.titles)]
            for keys in every:
                try:
                    self.injector.instance_parameters(
                        target.name, target.attributes, given=target.attributes, keys=keys
                    )
                except CfEvaluationError as error:
                    problems.extend(d for d in error.diagnostics() if d not in problems)

    # ------------------------------------------------------------------ variables

    def bind_variables(self, frame: Frame) -> None:
        """Set the bound variables in the main namespace's frame (before anything runs)."""
        if not self.variables:
            return
        declared = dict(frame.declared)  # the block's own table is shared (cached per block)
        for name, (value, span, where) in self.variables.items():
            if span is not None:
                declared.setdefault(name, span)
            else:
                declared.setdefault(name, Span("<bindings>", 1, 1, 1, 1))
            frame.vars[name] = BoundVar(name, value, span, where)
        frame.declared = declared

    # ------------------------------------------------------------------ constructor parameters

    def targets_of(self, info: EntityInfo) -> list[_Target]:
        """The bound targets that apply to instances of *info*: its own, then its parents'."""
        found = self._per_entity.get(id(info))
        if found is None:
            by_entity: dict[int, list[_Target]] = {}
            for target in self.targets.values():
                by_entity.setdefault(id(target.entity), []).append(target)
            found = []
            for entity in info.entity.mro:
                found.extend(sorted(by_entity.get(id(entity), []), key=lambda t: "::" in t.name))
            self._per_entity[id(info)] = found
        return found

    def parameters(
        self, info: EntityInfo, given: set[str], values: Mapping[str, Any], span: Span
    ) -> dict[str, tuple[Any, Span]]:
        """The values the bindings give a new instance of *info* for the attributes not in *given*.

        *values* are the index attribute values known so far (for ``Entity[key]``); each value
        comes with the span of the binding that gave it (*span*, the constructor's, if unknown).

        Raises:
            Blocked: a parameter source that does not exist yet, or an attribute of it that
                is not known yet.
            CfEvaluationError: the injector's ``unknown-parameter``, ``parameter-source-missing``,
                ``map-required``; a value that is not a model value (``type-error``).
        """
        result: dict[str, tuple[Any, Span]] = {}
        skip = set(given)
        for target in self.targets_of(info):
            keys = (
                [k for k in self._keys(target.entity, values) if k in target.titles] if target.titles else []
            )
            if not keys and not target.whole:
                continue
            for name, value, where in self._bound(target, keys, span):
                if name not in skip:
                    where = where or span
                    result[name] = (model_value(value, where, f"attribute '{name}' of {info.qname}"), where)
                    skip.add(name)
        return result

    def _bound(self, target: _Target, keys: list[Titles], span: Span) -> list[tuple[str, Any, Span | None]]:
        """Every attribute value bound for *target* and *keys*, with its binding's span.

        Without instance sources the answer depends on the target and the keys only: it is
        asked once (what a constructor gives is left out by the caller)."""
        cache_key = (target.name, tuple(keys))
        found = None if target.sources else self._cache.get(cache_key)
        if found is None:
            self._asking = span
            values = self.injector.instance_parameters(
                target.name, target.attributes, keys=keys, instance=self.find_source
            )
            found = [
                (name, value, self._span_of(target, keys, name))
                for name, value in values.items()
                if value is not None
            ]
            if not target.sources:
                self._cache[cache_key] = found
        return found

    def _keys(self, entity: p.EntityType, values: Mapping[str, Any]) -> list[Titles]:
        """The ``Entity[...]`` keys of an instance whose index attributes have *values*: per index
        of *entity* with all its values known, their titles in the index's attribute order;
        the indexes with the most attributes first (same count: in declaration order)."""
        keys: list[Titles] = []
        for _, names in sorted(self.ev.infos[entity].indexes, key=lambda index: -len(index[1])):
            if not all(name in values for name in names):
                continue
            titles = [key_text(values[name]) for name in names]
            key = tuple(t for t in titles if t is not None)
            if len(key) == len(names) and key not in keys:
                keys.append(key)
        return keys

    def _span_of(self, target: _Target, keys: Sequence[Titles], name: str) -> Span | None:
        for titles in [*keys, ()]:
            span = target.literals.get((titles, name))
            if span is not None:
                return span
            if titles in target.sources:
                return target.sources[titles]
        return None

    # ------------------------------------------------------------------ parameter sources

    def find_source(self, reference: Any) -> Mapping[str, Any] | None:
        """The attributes of the instance ``Sql[one]`` (the injector's ``InstanceLookup``)."""
        spec = reference.type
        titles: Titles = tuple(spec.titles)
        entity = self._entity(spec.name)
        if entity is None or not titles:
            return None
        info = self.ev.infos[entity]
        instance = self._instance(info, titles)
        if instance is not None:
            return _Attributes(instance)
        wait = self.waits.get((id(info), titles))
        if wait is None:
            wait = self.waits[(id(info), titles)] = SourceWait(info.qname, _shown(titles), self._asking)
        if wait.frozen:
            return None
        raise Blocked(wait)

    def _entity(self, name: str) -> p.EntityType | None:
        """The entity a type name of the bindings names (``Host``, ``web::Server``), if any."""
        namespace, _, local = name.rpartition("::")
        program = self.ev.program
        linked = program.main if namespace in ("", MAIN_NAMESPACE) else program.namespaces.get(namespace)
        return linked.entities.get(local) if linked is not None else None

    def _instance(self, info: EntityInfo, titles: Titles) -> Instance | None:
        """The instance of *info* with the key *titles* (in the order of an index's attributes)."""
        tables = self.ev.index_tables
        for position, (_, names) in enumerate(info.indexes):
            if len(names) != len(titles):
                continue
            table = tables.get((id(info), position))
            if table is None:
                continue
            for values in product(*(_candidates(title) for title in titles)):
                found = table.get(tuple(index_key_part(value) for value in values))
                if found is not None and all(
                    key_text(getattr(found.slots.get(name), "value", None)) == title
                    for name, title in zip(names, titles, strict=True)
                ):
                    return found
        return None

    def registered(self, instance: Instance) -> None:
        """A new instance: wake the constructors waiting for it as a parameter source."""
        values = {name: getattr(slot, "value", None) for name, slot in instance.slots.items()}
        for entity in instance.info.entity.mro:
            info = self.ev.infos[entity]
            for key in self._keys(entity, values):
                wait = self.waits.get((id(info), key))
                if wait is None:
                    continue
                if wait.frozen:
                    raise fail(
                        f"{instance} is {info.qname}[{_shown(key)}], bound as a parameter source; it was "
                        "created after a constructor that needed it had been run without it (nothing seemed "
                        "able to create it then)",
                        instance.span,
                        "modified-after-freeze",
                        [Note(wait.where, "the constructor that needed it")],
                    )
                if wait.found is None:
                    wait.found = instance
                    wait.wake(self.ev.sched)


class _Attributes(Mapping[str, Any]):
    """An instance's attributes for the injector; a read of one not known yet waits for it."""

    __slots__ = ("instance", "names")

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.names = [name for name, field in instance.info.fields.items() if field.kind == ATTR]

    def __getitem__(self, name: str) -> Any:
        if name not in self.instance.info.fields:
            raise KeyError(name)
        slot = self.instance.slot(name)
        if isinstance(slot, Var) and slot.ready:
            return slot.value
        assert slot is not None
        raise Blocked(slot)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def key_text(value: Any) -> str | None:
    """An index value as the title ``Entity[...]`` gives it: a string as is, a number as written
    (``53``, ``1.5``), ``true``/``false``; None for other values (no title names them)."""
    kind = type(value)
    if kind is str:
        return str(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int or kind is float:
        return repr(value)
    return None


def _shown(titles: Titles) -> str:
    """The titles of a key as ``Entity[...]`` shows them (``web1``, ``'a,b'``, ``web, example.com``)."""
    from cfmodel.transforms.bindings.compose.values import show_title  # lazy: with bindings only

    return ", ".join(show_title(title) for title in titles)


def _candidates(title: str) -> list[Any]:
    """The values an index attribute may hold for the key text *title*."""
    found: list[Any] = [title]
    if title in ("true", "false"):
        found.append(title == "true")
    for number in (int, float):
        try:
            found.append(number(title))
            break
        except ValueError:
            continue
    return found


def model_value(value: Any, span: Span | None, what: str) -> Any:
    """A bound value as a value of the model (lists and dicts copied: bound values are shared)."""
    if value is None or isinstance(value, str | int | float | bool | Unknown):
        return value
    if isinstance(value, list):
        return [model_value(v, span, what) for v in value]
    if isinstance(value, dict):
        return {k: model_value(v, span, what) for k, v in value.items()}
    raise fail(
        f"{what} is bound to {value}, a type or instance reference: the model takes strings, numbers, "
        "booleans, lists and dicts",
        span,
        "type-error",
    )


# ---------------------------------------------------------------------- projects and requests


def has_bindings(root: Path, module_path: Sequence[Path]) -> bool:
    """Whether a project directory has anything for the bindings: ``site.bind``, a ``bindings/``
    folder, a ``bindings:`` section in ``project.yml`` (an ENC, settings), or a module on the
    module path with a ``bindings/`` folder. Without any, the injector would be empty."""
    if (root / "site.bind").is_file() or (root / "bindings").is_dir():
        return True
    for settings in ("project.yml", "project.yaml"):
        path = root / settings
        if path.is_file():
            import yaml

            try:
                data = load_yaml(read_text(path))
            except (OSError, CfModelError, yaml.YAMLError):
                return True  # let the request sequence report it
            if isinstance(data, dict) and data.get("bindings") is not None:
                return True
    for folder in module_path:
        try:
            modules = list(Path(folder).iterdir())
        except OSError:
            continue
        if any((module / "bindings").is_dir() for module in modules):
            return True
    return False


class EmptyBindings:
    """``std::inject`` for a project without bindings: every name unbound (a default is returned),
    ``/classes`` empty. The bindings engine is loaded only when a model asks."""

    def __init__(self, facts: Mapping[str, Any] | None = None) -> None:
        self.facts = dict(facts or {})
        self._injector: Any = None

    def _real(self) -> Any:
        if self._injector is None:
            from cfmodel.metamodel.bindings import SpanTable  # lazy: the bindings engine, when asked
            from cfmodel.transforms.bindings.compose import compose  # lazy: as above

            self._injector = compose([], self.facts, SpanTable(), [], None)
        return self._injector

    def inject(self, type_or_name: str, name: str | None = None, **kwargs: Any) -> Any:
        return self._real().inject(type_or_name, name, **kwargs)

    def lookup(self, type_or_name: str, name: str | None = None, **kwargs: Any) -> Any:
        return self._real().lookup(type_or_name, name, **kwargs)
