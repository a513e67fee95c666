"""The linked program: what `resolve` produces and `lift` and the compiler consume.

Every name the source writes is bound here to the definition it means: parents to
`EntityType`s, attribute types to a `Primitive`, `Typedef` or `EnumType`, relation ends
to their target entity and their opposite end, implementations to their entity,
`implement` statements to their implementations. Expressions (defaults, conditions,
statement bodies) stay syntax-tree nodes (`cfmodel.grammars.nodes`): the compiler
evaluates them, with `LinkedNamespace.lookup_*` to resolve the names in them.

These are plain slotted classes, not Ecore: cheap to build and to walk. `lift` turns
the type definitions into EPackages. Identity matters (``eq=False``): two entities
with the same fields are still two entities.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

from cfmodel.errors import Diagnostic, Span
from cfmodel.grammars import nodes
from cfmodel.transforms.cf.unparse import to_source  # the dump is a debugging aid

# The built-in attribute types of the language. `number` accepts int and float;
# `any` is what untyped plugin arguments and `list`/`dict` items are.
PRIMITIVE_NAMES = ("string", "int", "float", "number", "bool", "dict", "list", "any")


@dataclass(slots=True, eq=False)
class Primitive:
    """``string``, ``int``, ``float``, ``number``, ``bool``, ``dict``, ``list``, ``any``."""

    name: str

    @property
    def qualified_name(self) -> str:
        return self.name


PRIMITIVES: dict[str, Primitive] = {name: Primitive(name) for name in PRIMITIVE_NAMES}


@dataclass(slots=True, eq=False)
class Typedef:
    """``typedef name as base matching /regex/`` or ``… matching <condition>``.

    ``base`` is the primitive at the bottom of a typedef chain; ``parent`` the typedef
    it was declared on, if any (its constraints apply too). A constructor typedef
    (``typedef PublicFile as File(mode=0644)``) has ``constructor`` set and no base:
    it is a name for a constructor call with preset arguments.
    """

    name: str
    namespace: LinkedNamespace
    base: Primitive | None
    parent: Typedef | None
    regex: str | None
    condition: nodes.Expression | None
    constructor: ConstructorTypedef | None
    doc: str | None
    span: Span
    node: nodes.Typedef

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace.name}::{self.name}"

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"Typedef({self.qualified_name})"


@dataclass(slots=True, eq=False)
class ConstructorTypedef:
    entity: EntityType
    arguments: list[nodes.KeywordArgument]

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"ConstructorTypedef({self.entity.qualified_name})"


@dataclass(slots=True, eq=False)
class EnumType:
    """``enum os with parent root as "unix", "windows"`` (legacy), merged per name.

    ``values`` maps each literal to its parent literal (``None`` for a root), in
    declaration order; ``is`` tests walk this tree.
    """

    name: str
    namespace: LinkedNamespace
    values: dict[str, str | None]
    span: Span

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace.name}::{self.name}"

    def is_a(self, value: str, ancestor: str) -> bool:
        current: str | None = value
        while current is not None:
            if current == ancestor:
                return True
            current = self.values.get(current)
        return False

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"EnumType({self.qualified_name})"


BaseType: TypeAlias = Primitive | Typedef | EnumType


@dataclass(slots=True, eq=False)
class TypeSpec:
    """An attribute's type: a base type, many-valued (``T[]``) and/or nullable (``T?``)."""

    base: BaseType
    multi: bool = False
    nullable: bool = False
    span: Span | None = None

    def __str__(self) -> str:
        return f"{self.base.qualified_name}{'[]' if self.multi else ''}{'?' if self.nullable else ''}"

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"TypeSpec({self})"


@dataclass(slots=True, eq=False)
class Attribute:
    """A typed attribute of an entity. ``default`` is an expression, `UNDEF` or None."""

    name: str
    type: TypeSpec
    default: nodes.Expression | nodes.Undef | None
    entity: EntityType
    doc: str | None
    span: Span
    name_span: Span
    # The inherited attribute this one re-declares (same type, to change its default);
    # None for a new attribute. The derived metamodel has one feature for both.
    overrides: Attribute | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not None and not isinstance(self.default, nodes.Undef)

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"Attribute({self.entity.qualified_name}.{self.name}: {self.type})"


@dataclass(slots=True, eq=False)
class RelationEnd:
    """The property ``name`` on ``entity`` that reaches ``target``.

    ``upper`` None is unbounded. ``opposite`` is the other end of a bidirectional
    relation (None for a unidirectional one). Annotations are kept as expressions.
    """

    name: str
    entity: EntityType
    target: EntityType
    lower: int
    upper: int | None
    opposite: RelationEnd | None
    annotations: list[nodes.Expression]
    doc: str | None
    span: Span
    name_span: Span

    @property
    def many(self) -> bool:
        return self.upper is None or self.upper > 1

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"RelationEnd({self.entity.qualified_name}.{self.name} -> {self.target.qualified_name})"


@dataclass(slots=True, eq=False)
class Index:
    """``index E(a, b)``: the attributes (or relation ends) that identify an instance."""

    entity: EntityType
    attributes: list[str]
    span: Span

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"Index({self.entity.qualified_name}({', '.join(self.attributes)}))"


@dataclass(slots=True, eq=False)
class Implementation:
    """``implementation name for E: … end`` (or an anonymous block after a constructor)."""

    name: str
    namespace: LinkedNamespace
    entity: EntityType
    statements: list[nodes.Statement]
    doc: str | None
    span: Span

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace.name}::{self.name}"

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"Implementation({self.qualified_name} for {self.entity.qualified_name})"


@dataclass(slots=True, eq=False)
class ImplementRule:
    """``implement E using a, b when cond`` / ``implement E using parents``.

    ``condition`` is evaluated in ``namespace`` with ``self`` bound to the instance.
    """

    entity: EntityType
    implementations: list[Implementation]
    using_parents: bool
    condition: nodes.Expression | None
    namespace: LinkedNamespace
    span: Span

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"ImplementRule({self.entity.qualified_name} using {[i.name for i in self.implementations]})"


@dataclass(slots=True, eq=False)
class EntityType:
    """An entity and everything declared on it; the inherited view is computed once."""

    name: str
    namespace: LinkedNamespace
    parents: list[EntityType]
    doc: str | None
    attributes: dict[str, Attribute]
    relations: dict[str, RelationEnd]
    indexes: list[Index]
    implements: list[ImplementRule]
    span: Span
    name_span: Span
    node: nodes.Entity | None
    # Filled by `finish()` once every entity of the program is linked.
    mro: list[EntityType] = field(default_factory=list)
    all_attributes: dict[str, Attribute] = field(default_factory=dict)
    all_relations: dict[str, RelationEnd] = field(default_factory=dict)
    all_indexes: list[Index] = field(default_factory=list)
    # Every entity that has this one among its ancestors (transitively), program order.
    subtypes: list[EntityType] = field(default_factory=list)

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace.name}::{self.name}"

    def is_subtype_of(self, other: EntityType) -> bool:
        return other in self.mro

    def finish(self) -> None:
        """Compute the inherited view: own definitions beat the parents', left parent beats right."""
        # depth first, parents left to right, each entity once (an explicit stack: the depth
        # of a hierarchy is not limited by Python's recursion limit)
        mro: list[EntityType] = []
        seen: set[int] = set()
        stack: list[EntityType] = [self]
        while stack:
            entity = stack.pop()
            if id(entity) in seen:
                continue
            seen.add(id(entity))
            mro.append(entity)
            stack.extend(reversed(entity.parents))
        self.mro = mro
        attributes: dict[str, Attribute] = {}
        relations: dict[str, RelationEnd] = {}
        indexes: list[Index] = []
        for entity in mro:  # the first definition of a name wins: an attribute hides a parent's relation end
            for name, attribute in entity.attributes.items():
                if name not in relations:
                    attributes.setdefault(name, attribute)
            for name, end in entity.relations.items():
                if name not in attributes:
                    relations.setdefault(name, end)
            indexes.extend(entity.indexes)
        self.all_attributes = attributes
        self.all_relations = relations
        self.all_indexes = indexes

    def ancestors_parent_first(self) -> list[EntityType]:
        """Every ancestor once, each after its own parents, right parent before left: the
        order inmanta-core applies declarations in (a post-order walk of the parents taken
        right to left; an ancestor reached twice keeps its first place). Iterative: the
        depth of a hierarchy is not limited by Python's recursion limit."""
        order: list[EntityType] = []
        seen: set[int] = {id(self)}
        stack: list[tuple[EntityType, int]] = [(self, 0)]
        while stack:
            entity, done = stack[-1]
            parents = entity.parents[::-1]
            if done < len(parents):
                stack[-1] = (entity, done + 1)
                parent = parents[done]
                if id(parent) not in seen:
                    seen.add(id(parent))
                    stack.append((parent, 0))
                continue
            stack.pop()
            if entity is not self:
                order.append(entity)
        return order

    def defaults(self) -> dict[str, nodes.Expression]:
        """The default of each attribute, as inmanta-core gives it: the attribute declarations
        of `ancestors_parent_first`, then the entity's own, where a later declaration replaces
        an earlier one, also when it has no default (or ``undef``), which removes it. So a
        child beats its parents and the left parent beats the right one, and a left parent
        that declares the attribute without a default leaves it without one (seed 000: "the
        left parent takes precedence over the others")."""
        values: dict[str, nodes.Expression | nodes.Undef | None] = {}
        for entity in [*self.ancestors_parent_first(), self]:
            for name, attribute in entity.attributes.items():
                values[name] = attribute.default
        return {k: v for k, v in values.items() if v is not None and not isinstance(v, nodes.Undef)}

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"EntityType({self.qualified_name})"


Definition: TypeAlias = EntityType | Typedef | EnumType | Implementation


@dataclass(slots=True, eq=False)
class LinkedNamespace:
    """One ``.cf`` file's namespace with its definitions and the names it can see.

    ``imports`` maps each name usable as a prefix (``web``, an alias, ``std``) to the
    full namespace name. ``statements`` are the top-level executable statements, in
    source order (the compiler schedules them by dependencies, not by order).
    """

    name: str
    file: str
    imports: dict[str, str]
    entities: dict[str, EntityType] = field(default_factory=dict)
    typedefs: dict[str, Typedef] = field(default_factory=dict)
    enums: dict[str, EnumType] = field(default_factory=dict)
    implementations: dict[str, Implementation] = field(default_factory=dict)
    statements: list[nodes.Statement] = field(default_factory=list)
    program: LinkedProgram | None = None
    doc: str | None = None  # the module docstring of the file
    pragmas: dict[int, str] = field(default_factory=dict)  # the file's ``#@ecore`` comments

    def definition(self, name: str) -> Definition | None:
        """The definition *name* (as written in this namespace) means, or None.

        As in the reference compiler: a qualified name goes through this namespace's
        imports (``std`` is always imported); a plain name is looked up here, then in
        the enclosing namespaces (``a::b`` sees ``a``'s definitions), never in ``std``.
        """
        assert self.program is not None
        namespace, _, local = name.rpartition("::")
        if namespace:
            target = self.imports.get(namespace)
            linked = self.program.namespaces.get(target) if target is not None else None
            return linked._local(local) if linked is not None else None
        current: str = self.name
        while True:
            scope = self.program.namespaces.get(current)
            found = scope._local(local) if scope is not None else None
            if found is not None or "::" not in current:
                return found
            current = current.rpartition("::")[0]

    def _local(self, name: str) -> Definition | None:
        return (
            self.entities.get(name)
            or self.typedefs.get(name)
            or self.enums.get(name)
            or self.implementations.get(name)
        )

    def lookup_entity(self, name: str) -> EntityType | None:
        found = self.definition(name)
        if isinstance(found, EntityType):
            return found
        if isinstance(found, Typedef) and found.constructor is not None:
            return found.constructor.entity
        return None

    def lookup_type(self, name: str) -> BaseType | EntityType | None:
        if name in PRIMITIVES:
            return PRIMITIVES[name]
        found = self.definition(name)
        return None if isinstance(found, Implementation) else found

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"LinkedNamespace({self.name})"


@dataclass(slots=True, eq=False)
class LinkedProgram:
    """Every namespace of a project, linked. ``main`` is the project's ``main.cf``."""

    name: str
    namespaces: dict[str, LinkedNamespace]
    main: LinkedNamespace
    # Problems that did not stop resolve (the deprecated ``number`` type), sorted.
    warnings: list[Diagnostic] = field(default_factory=list)

    def entity(self, qualified_name: str) -> EntityType:
        namespace, _, name = qualified_name.rpartition("::")
        return self.namespaces[namespace].entities[name]

    def entities(self) -> Iterator[EntityType]:
        """Every entity, namespaces in name order, entities in declaration order."""
        for name in sorted(self.namespaces):
            yield from self.namespaces[name].entities.values()

    def __repr__(self) -> str:  # compact: the object graph is cyclic and large
        return f"LinkedProgram({self.name}, {len(self.namespaces)} namespaces)"


def dump_program(program: LinkedProgram, skip: tuple[str, ...] = ("std",)) -> str:
    """A canonical text of the linked definitions (golden tests, debugging).

    Namespaces in name order (those in *skip* and their children left out), then per
    namespace its imports, typedefs, enums, entities (parents, attributes with types
    and defaults, relation ends with bounds and opposite, indexes, implement rules)
    and implementations, each in declaration order.
    """

    lines: list[str] = []
    for name in sorted(program.namespaces):
        if name.split("::")[0] in skip:
            continue
        ns = program.namespaces[name]
        lines.append(f"namespace {name}")
        imports = {k: v for k, v in ns.imports.items() if k not in (name, "std")}
        if imports:
            lines.append("  imports " + ", ".join(k if k == v else f"{v} as {k}" for k, v in imports.items()))
        for t in ns.typedefs.values():
            if t.constructor is not None:
                args = ", ".join(f"{a.name.text}={to_source(a.value)}" for a in t.constructor.arguments)
                lines.append(f"  typedef {t.name} = {t.constructor.entity.qualified_name}({args})")
                continue
            assert t.base is not None
            base = t.parent.qualified_name if t.parent is not None else t.base.name
            constraint = (
                f"/{t.regex}/" if t.regex is not None else to_source(t.condition) if t.condition else ""
            )
            lines.append(f"  typedef {t.name} as {base} matching {constraint}")
        for enum in ns.enums.values():
            values = ", ".join(
                v if parent is None else f"{v} < {parent}" for v, parent in enum.values.items()
            )
            lines.append(f"  enum {enum.name}: {values}")
        for e in ns.entities.values():
            parents = ", ".join(p.qualified_name for p in e.parents)
            lines.append(f"  entity {e.name}" + (f" extends {parents}" if parents else ""))
            for a in e.attributes.values():
                default = ""
                if isinstance(a.default, nodes.Undef):
                    default = " = undef"
                elif a.default is not None:
                    default = f" = {to_source(a.default)}"
                over = f" (overrides {a.overrides.entity.qualified_name}.{a.name})" if a.overrides else ""
                lines.append(f"    attribute {a.name}: {a.type}{default}{over}")
            for r in e.relations.values():
                upper = "" if r.upper is None else str(r.upper)
                bounds = f"[{r.lower}]" if r.upper == r.lower else f"[{r.lower}:{upper}]"
                opposite = f" opposite {r.opposite.name}" if r.opposite is not None else ""
                lines.append(f"    relation {r.name}: {r.target.qualified_name} {bounds}{opposite}")
            for index in e.indexes:
                lines.append(f"    index ({', '.join(index.attributes)})")
            for rule in e.implements:
                used = [i.qualified_name for i in rule.implementations] + (
                    ["parents"] if rule.using_parents else []
                )
                when = f" when {to_source(rule.condition)}" if rule.condition is not None else ""
                lines.append(f"    implement using {', '.join(used)}{when}")
        for impl in ns.implementations.values():
            lines.append(
                f"  implementation {impl.name} for {impl.entity.qualified_name}"
                f" ({len(impl.statements)} statements)"
            )
        if ns.statements:
            lines.append(f"  {len(ns.statements)} top-level statements")
    return "\n".join(lines) + "\n"
