"""Resolve: link every name of a loaded project into a `LinkedProgram`.

Input: a `Project` (one syntax tree per namespace, from `cfmodel.project.load_project`).
Output: a `LinkedProgram` (`cfmodel.transforms.cf.program`) in which parents, attribute
types, typedef chains, enums, relation ends, implementations, ``implement`` rules and
indexes point at their definitions, and every entity's inherited view is computed
(`EntityType.finish`). Expressions (defaults, conditions, bodies) stay syntax trees.

Guarantees: every problem of every file is reported at once, sorted by position, as
one `CfCompileError` whose diagnostics render as ``file:line:col: error: …  [code]``.
Lookups follow the reference compiler: a plain name is searched in its namespace, then
the enclosing ones (``a::b`` sees ``a``); a qualified name goes through the
namespace's imports (an alias from ``import a::b as c``, the namespace's own full name,
and ``std``, which every namespace sees). ``std::Entity`` is the default parent; when
the ``std`` module in use does not declare it (Inmanta's own ``std`` leaves it to the
compiler), it is supplied here with its ``requires``/``provides`` relation.

Where cfmodel is stricter than the reference compiler, the reason is the derived Ecore
metamodel (`lift`): feature names must be unique per class, also across multiple
inheritance and ignoring case, so a child attribute that shadows an inherited relation,
two unrelated inherited features with the same name, and names that differ only in
case are errors here. Warnings (the deprecated ``number`` type) do not stop the pass;
they are in `LinkedProgram.warnings`.

Error codes: ``unknown-type``, ``unknown-entity``, ``unknown-implementation``,
``unknown-attribute``, ``missing-import``, ``duplicate-definition``,
``duplicate-import``, ``duplicate-attribute``, ``duplicate-parent``,
``duplicate-relation``, ``inheritance-cycle``, ``inheritance-depth``, ``typedef-cycle``, ``not-an-entity``,
``not-a-type``, ``bad-typedef``, ``bad-multiplicity``, ``bad-name``, ``hyphen``,
``incompatible-attribute``, ``name-clash``, ``bad-index``, ``implementation-mismatch``,
``conditional-parents``, ``bad-enum``, ``bad-default``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from cfmodel.errors import Diagnostic, Diagnostics, Note, Severity, Span
from cfmodel.grammars import nodes
from cfmodel.project import Project
from cfmodel.transforms.cf import program as p
from cfmodel.transforms.cf.conditions import ConstantError, check_default

BUILTIN_FILE = "<builtin>"
BUILTIN_SPAN = Span(BUILTIN_FILE, 1, 1, 1, 1)
ATTRIBUTE_TYPES = ("string", "int", "float", "number", "bool", "list", "dict")

_KIND = {
    p.EntityType: "an entity",
    p.Typedef: "a typedef",
    p.EnumType: "an enum",
    p.Implementation: "an implementation",
}


def kind_of(definition: object) -> str:
    return _KIND.get(type(definition), "a definition")


def resolve(project: Project) -> p.LinkedProgram:
    """Link *project*; raise `CfCompileError` with every problem found."""
    return _Resolver(project).run()


def iter_expressions(expression: nodes.Expression) -> Iterator[nodes.Expression]:
    """*expression* and every expression inside it, depth first (`nodes.walk`)."""
    return nodes.walk(expression)


def suggest(name: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when a candidate is close to *name*, else ``''``."""
    pool = sorted(set(candidates) - {name})
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
    if not close and "::" not in name:  # `nonee` for `std::none`: compare the local parts
        local = {c.rpartition("::")[2]: c for c in reversed(pool)}
        close = [local[m] for m in difflib.get_close_matches(name, sorted(local), n=1, cutoff=0.75)]
    if not close:
        lowered = {c.lower(): c for c in pool}
        if name.lower() in lowered:
            close = [lowered[name.lower()]]
    return f" (did you mean '{close[0]}'?)" if close else ""


# The longest chain of `extends` a program may have (PyEcore, which the metamodel is made
# with, walks supertypes recursively; real hierarchies are a handful of levels deep).
MAX_INHERITANCE_DEPTH = 200


@dataclass(slots=True)
class _Pending:
    """A definition waiting to be linked, with the namespace and node it came from."""

    namespace: p.LinkedNamespace
    node: object


class _Resolver:
    def __init__(self, project: Project) -> None:
        self.project = project
        self.diag = Diagnostics()
        self.warnings: list[Diagnostic] = []
        self.program: p.LinkedProgram | None = None
        # per namespace: name -> (definition, name span)
        self.spans: dict[int, Span] = {}
        self.entity_nodes: list[tuple[p.EntityType, nodes.Entity]] = []
        self.typedef_nodes: list[tuple[p.Typedef, nodes.Typedef]] = []
        self.impl_nodes: list[tuple[p.Implementation, nodes.Implementation]] = []
        self.relations: list[_Pending] = []
        self.implements: list[_Pending] = []
        self.indexes: list[_Pending] = []
        self.enum_nodes: list[tuple[p.EnumType, nodes.Enum]] = []
        self.std_entity: p.EntityType | None = None
        self.feature_cache: dict[int, list[p.Attribute | p.RelationEnd]] = {}
        self.failed_typedefs: set[int] = set()

    # ------------------------------------------------------------------ driver

    def run(self) -> p.LinkedProgram:
        namespaces: dict[str, p.LinkedNamespace] = {}
        for name, ns in self.project.namespaces.items():
            namespaces[name] = p.LinkedNamespace(
                name, ns.label, {name: name, "std": "std"}, doc=ns.tree.doc, pragmas=ns.tree.pragmas
            )
        main = namespaces.get("__config__") or next(iter(namespaces.values()))
        program = p.LinkedProgram(self.project.name, namespaces, main)
        self.program = program
        for linked in namespaces.values():
            linked.program = program
        for name, ns in self.project.namespaces.items():
            self.declare(namespaces[name], ns.tree)
        self.builtin_std(namespaces)
        for typedef, tnode in self.typedef_nodes:
            self.link_typedef(typedef, tnode, [])
        for entity, node in self.entity_nodes:
            self.link_parents(entity, node)
        self.break_cycles()
        for entity, node in self.entity_nodes:
            self.link_attributes(entity, node)
        for impl, inode in self.impl_nodes:
            self.link_implementation(impl, inode)
        self.link_enums()
        for pending in self.relations:
            assert isinstance(pending.node, nodes.Relation)
            self.link_relation(pending.namespace, pending.node)
        entities = list(program.entities())
        for entity in entities:
            entity.finish()
        for entity in entities:
            for ancestor in entity.mro[1:]:
                ancestor.subtypes.append(entity)
        for entity in sorted(entities, key=lambda e: len(e.mro)):
            self.mark_overrides(entity)
        for entity in entities:
            self.check_inheritance(entity)
        for typedef, tnode in self.typedef_nodes:
            self.check_constructor_typedef(typedef, tnode)
        for pending in self.indexes:
            assert isinstance(pending.node, nodes.Index)
            self.link_index(pending.namespace, pending.node)
        for pending in self.implements:
            assert isinstance(pending.node, nodes.Implement)
            self.link_implement(pending.namespace, pending.node)
        for entity in entities:
            entity.all_indexes = [i for e in entity.mro for i in e.indexes]
            self.check_defaults(entity)
        self.diag.raise_if_errors()
        program.warnings = sorted(self.warnings, key=Diagnostic.sort_key)
        return program

    def error(self, span: Span | None, message: str, code: str, notes: Iterable[Note] = ()) -> None:
        self.diag.error(span, message, code, notes)

    def warn(self, span: Span | None, message: str, code: str) -> None:
        self.warnings.append(Diagnostic(span, message, code, Severity.WARNING))

    # ------------------------------------------------------------------ pass 1: declare

    def check_name(self, name: nodes.Name, what: str) -> None:
        if "-" in name.text:
            self.error(
                name.span,
                f"the use of '-' in identifiers is not allowed: rename {what} '{name.text}'",
                "hyphen",
            )

    def define(self, ns: p.LinkedNamespace, name: nodes.Name, definition: p.Definition) -> bool:
        existing = ns._local(name.text)
        if existing is not None:
            first = self.spans.get(id(existing))
            self.error(
                name.span,
                f"'{name.text}' is already defined in namespace {ns.name} (as {kind_of(existing)})",
                "duplicate-definition",
                [Note(first, f"first definition of '{name.text}'")] if first else [],
            )
            return False
        self.spans[id(definition)] = name.span
        return True

    def declare(self, ns: p.LinkedNamespace, tree: nodes.Module) -> None:
        statements = tree.statements
        if tree.doc is not None and statements and isinstance(statements[0], nodes.ExpressionStatement):
            statements = statements[1:]  # the module docstring
        import_spans: dict[str, Span] = {}
        for statement in statements:
            if isinstance(statement, nodes.Import):
                self.declare_import(ns, statement, import_spans)
            elif isinstance(statement, nodes.Entity):
                self.declare_entity(ns, statement)
            elif isinstance(statement, nodes.Typedef):
                self.declare_typedef(ns, statement)
            elif isinstance(statement, nodes.Implementation):
                self.declare_implementation(ns, statement)
            elif isinstance(statement, nodes.Enum):
                self.declare_enum(ns, statement)
            elif isinstance(statement, nodes.Relation):
                self.relations.append(_Pending(ns, statement))
            elif isinstance(statement, nodes.Implement):
                self.implements.append(_Pending(ns, statement))
            elif isinstance(statement, nodes.Index):
                self.indexes.append(_Pending(ns, statement))
            else:
                ns.statements.append(statement)

    def declare_import(self, ns: p.LinkedNamespace, statement: nodes.Import, seen: dict[str, Span]) -> None:
        target = statement.name.text
        name = statement.alias or statement.name
        if statement.alias is not None:
            self.check_name(statement.alias, "the import alias")
        if "-" in target:
            message = f"'{target}' is not a valid module name: hyphens are not allowed, use underscores"
            self.error(statement.name.span, message, "hyphen")
        if name.text in seen:
            self.error(
                name.span,
                f"two import statements have the same name '{name.text}'",
                "duplicate-import",
                [Note(seen[name.text], f"first import named '{name.text}'")],
            )
            return
        seen[name.text] = name.span
        ns.imports[name.text] = target

    def declare_entity(self, ns: p.LinkedNamespace, node: nodes.Entity) -> None:
        self.check_name(node.name, "the entity")
        if not node.name.text[:1].isupper():
            self.error(
                node.name.span, f"entity names start with a capital letter: '{node.name.text}'", "bad-name"
            )
        entity = p.EntityType(
            node.name.text, ns, [], node.doc, {}, {}, [], [], node.span, node.name.span, node
        )
        if self.define(ns, node.name, entity):
            ns.entities[entity.name] = entity
            self.entity_nodes.append((entity, node))

    def declare_typedef(self, ns: p.LinkedNamespace, node: nodes.Typedef) -> None:
        self.check_name(node.name, "the typedef")
        typedef = p.Typedef(
            node.name.text,
            ns,
            None,
            None,
            node.regex.pattern if node.regex else None,
            node.condition,
            None,
            node.doc,
            node.span,
            node,
        )
        if node.name.text in ATTRIBUTE_TYPES:
            self.error(
                node.name.span, f"typedef '{node.name.text}' would hide the built-in type", "bad-typedef"
            )
            return
        if self.define(ns, node.name, typedef):
            ns.typedefs[typedef.name] = typedef
            self.typedef_nodes.append((typedef, node))

    def declare_implementation(self, ns: p.LinkedNamespace, node: nodes.Implementation) -> None:
        self.check_name(node.name, "the implementation")
        placeholder = self.placeholder_entity(ns)
        impl = p.Implementation(node.name.text, ns, placeholder, node.statements, node.doc, node.span)
        if self.define(ns, node.name, impl):
            ns.implementations[impl.name] = impl
            self.impl_nodes.append((impl, node))

    def placeholder_entity(self, ns: p.LinkedNamespace) -> p.EntityType:
        return p.EntityType("?", ns, [], None, {}, {}, [], [], BUILTIN_SPAN, BUILTIN_SPAN, None)

    def declare_enum(self, ns: p.LinkedNamespace, node: nodes.Enum) -> None:
        self.check_name(node.name, "the enum")
        existing = ns.enums.get(node.name.text)
        if existing is None:
            enum = p.EnumType(node.name.text, ns, {}, node.span)
            if not self.define(ns, node.name, enum):
                return
            ns.enums[enum.name] = enum
            existing = enum
        self.enum_nodes.append((existing, node))

    def builtin_std(self, namespaces: dict[str, p.LinkedNamespace]) -> None:
        std = namespaces.get("std")
        if std is None:  # pragma: no cover - the loader always loads std
            return
        entity = std.entities.get("Entity")
        if entity is None:
            entity = p.EntityType(
                "Entity",
                std,
                [],
                "The entity all other entities inherit from.",
                {},
                {},
                [],
                [],
                BUILTIN_SPAN,
                BUILTIN_SPAN,
                None,
            )
            std.entities = {"Entity": entity, **std.entities}
            self.spans[id(entity)] = BUILTIN_SPAN
            requires = p.RelationEnd(
                "requires", entity, entity, 0, None, None, [], None, BUILTIN_SPAN, BUILTIN_SPAN
            )
            provides = p.RelationEnd(
                "provides", entity, entity, 0, None, requires, [], None, BUILTIN_SPAN, BUILTIN_SPAN
            )
            requires.opposite = provides
            entity.relations = {"requires": requires, "provides": provides}
        self.std_entity = entity

    # ------------------------------------------------------------------ lookups

    def visible_names(self, ns: p.LinkedNamespace, want: tuple[type, ...]) -> list[str]:
        """Names a plain reference in *ns* could mean, and qualified ones through imports."""
        assert self.program is not None
        names: list[str] = []
        current = ns.name
        while True:
            scope = self.program.namespaces.get(current)
            if scope is not None:
                names.extend(n for n, d in _definitions(scope) if isinstance(d, want))
            if "::" not in current:
                break
            current = current.rpartition("::")[0]
        for alias, target in ns.imports.items():
            scope = self.program.namespaces.get(target)
            if scope is not None and alias != ns.name:
                names.extend(f"{alias}::{n}" for n, d in _definitions(scope) if isinstance(d, want))
        return names

    def lookup(
        self,
        ns: p.LinkedNamespace,
        name: nodes.Name,
        want: tuple[type, ...],
        what: str,
        code: str,
        extra: Iterable[str] = (),
    ) -> p.Definition | None:
        """Find *name*; report unknown names (with a suggestion) and missing imports."""
        assert self.program is not None
        found = ns.definition(name.text)
        if found is not None:
            return found
        prefix = name.text.rpartition("::")[0]
        if prefix and prefix not in ns.imports:
            loaded = prefix in self.program.namespaces
            hint = (
                f"add 'import {prefix}'" if loaded else f"add 'import {prefix}' (no such namespace is loaded)"
            )
            self.error(
                name.span,
                f"could not find {what} '{name.text}' in namespace {ns.name}: namespace '{prefix}' is not "
                f"imported here; {hint}",
                "missing-import",
            )
            return None
        if prefix:
            target = self.program.namespaces[ns.imports[prefix]]
            candidates = [f"{prefix}::{n}" for n, d in _definitions(target) if isinstance(d, want)]
        else:
            candidates = [*self.visible_names(ns, want), *extra]
        self.error(
            name.span,
            f"could not find {what} '{name.text}' in namespace {ns.name}{suggest(name.text, candidates)}",
            code,
        )
        return None

    def lookup_entity(self, ns: p.LinkedNamespace, name: nodes.Name, role: str) -> p.EntityType | None:
        found = self.lookup(ns, name, (p.EntityType,), "entity", "unknown-entity")
        if found is None:
            return None
        if isinstance(found, p.EntityType):
            return found
        if isinstance(found, p.Typedef) and found.constructor is not None:
            self.error(
                name.span,
                f"'{name.text}' is a constructor typedef (an alias of "
                f"{found.constructor.entity.qualified_name}), not an entity; {role} must be an entity",
                "not-an-entity",
            )
            return None
        self.error(
            name.span,
            f"'{name.text}' is {kind_of(found)}, not an entity; {role} must be an entity",
            "not-an-entity",
        )
        return None

    # ------------------------------------------------------------------ entities

    def link_parents(self, entity: p.EntityType, node: nodes.Entity) -> None:
        seen: set[str] = set()
        for parent_name in node.parents:
            parent = self.lookup_entity(entity.namespace, parent_name, f"a parent of {entity.name}")
            if parent is None:
                continue
            if parent.qualified_name in seen:
                self.error(
                    parent_name.span,
                    f"{entity.name} names parent {parent.qualified_name} twice",
                    "duplicate-parent",
                )
                continue
            seen.add(parent.qualified_name)
            entity.parents.append(parent)
        if not node.parents and entity is not self.std_entity and self.std_entity is not None:
            entity.parents.append(self.std_entity)

    def break_cycles(self) -> None:
        """Report each inheritance cycle once (at its first entity) and cut it; then refuse a
        hierarchy deeper than `MAX_INHERITANCE_DEPTH`. Both walks use explicit stacks (no
        recursion): the depth of a hierarchy is not limited by Python's recursion limit."""
        state: dict[int, int] = {}  # 1 on the stack, 2 done
        order = sorted(
            (e for e, _ in self.entity_nodes),
            key=lambda e: (e.name_span.file, e.name_span.line, e.name_span.col),
        )
        for root in order:
            if id(root) in state:
                continue
            state[id(root)] = 1
            path = [root]
            frames: list[tuple[p.EntityType, int]] = [(root, 0)]
            while frames:
                entity, next_parent = frames[-1]
                if next_parent >= len(entity.parents):
                    frames.pop()
                    path.pop()
                    state[id(entity)] = 2
                    continue
                parent = entity.parents[next_parent]
                frames[-1] = (entity, next_parent + 1)
                mark = state.get(id(parent))
                if mark == 1:
                    cycle = path[path.index(parent) :]
                    first = min(cycle, key=lambda e: (e.name_span.file, e.name_span.line, e.name_span.col))
                    start = cycle.index(first)
                    ring = cycle[start:] + cycle[:start] + [first]
                    chain = " -> ".join(e.qualified_name for e in ring)
                    self.error(first.name_span, f"inheritance cycle: {chain}", "inheritance-cycle")
                    entity.parents.remove(parent)
                    frames[-1] = (entity, next_parent)  # the next parent moved into this place
                    if not entity.parents and self.std_entity is not None and entity is not self.std_entity:
                        # still an entity (so std::none and the like fit it): no second error
                        entity.parents.append(self.std_entity)
                elif mark is None:
                    state[id(parent)] = 1
                    path.append(parent)
                    frames.append((parent, 0))
        self.check_depth(order)

    def check_depth(self, order: list[p.EntityType]) -> None:
        """An entity more than `MAX_INHERITANCE_DEPTH` levels below its furthest ancestor is
        refused (`inheritance-depth`, reported once, at the first entity past the limit; the
        parents of each entity past it are cut): PyEcore walks a class's supertypes
        recursively."""
        depth: dict[int, int] = {}
        reported = False
        for root in order:
            frames: list[p.EntityType] = [root]
            while frames:
                entity = frames[-1]
                if id(entity) in depth:
                    frames.pop()
                    continue
                missing = [parent for parent in entity.parents if id(parent) not in depth]
                if missing:
                    frames.extend(missing)
                    continue
                frames.pop()
                level = 1 + max((depth[id(parent)] for parent in entity.parents), default=0)
                if level > MAX_INHERITANCE_DEPTH:
                    if not reported:
                        reported = True
                        self.error(
                            entity.name_span,
                            f"{entity.qualified_name} is {level} levels deep in its hierarchy; at most "
                            f"{MAX_INHERITANCE_DEPTH} are supported",
                            "inheritance-depth",
                        )
                    entity.parents.clear()
                    level = 1
                depth[id(entity)] = level

    def link_attributes(self, entity: p.EntityType, node: nodes.Entity) -> None:
        for attr in node.attributes:
            self.check_name(attr.name, "the attribute")
            spec = self.type_spec(entity.namespace, attr.type)
            if attr.name.text in entity.attributes:
                first = entity.attributes[attr.name.text]
                self.error(
                    attr.name.span,
                    f"attribute '{attr.name.text}' is defined twice in entity {entity.name}",
                    "duplicate-attribute",
                    [Note(first.name_span, f"first definition of '{attr.name.text}'")],
                )
                continue
            if spec is None:
                continue
            entity.attributes[attr.name.text] = p.Attribute(
                attr.name.text, spec, attr.default, entity, None, attr.span, attr.name.span
            )

    def type_spec(self, ns: p.LinkedNamespace, ref: nodes.TypeRef) -> p.TypeSpec | None:
        base = self.base_type(ns, ref.name)
        if base is None:
            return None
        return p.TypeSpec(base, ref.multi, ref.nullable, ref.span)

    def base_type(self, ns: p.LinkedNamespace, name: nodes.Name) -> p.BaseType | None:
        if name.text in ATTRIBUTE_TYPES:
            if name.text == "number":
                self.warn(
                    name.span, "type 'number' is deprecated, use 'float' or 'int' instead", "deprecated-type"
                )
            return p.PRIMITIVES[name.text]
        found = self.lookup(ns, name, (p.Typedef, p.EnumType), "type", "unknown-type", ATTRIBUTE_TYPES)
        if found is None:
            return None
        if (isinstance(found, p.Typedef) and found.constructor is None) or isinstance(found, p.EnumType):
            return found
        what = "a constructor typedef" if isinstance(found, p.Typedef) else kind_of(found)
        hint = "; entities are used through relations" if isinstance(found, p.EntityType | p.Typedef) else ""
        self.error(name.span, f"'{name.text}' is {what}, not a value type{hint}", "not-a-type")
        return None

    # ------------------------------------------------------------------ typedefs

    def link_typedef(self, typedef: p.Typedef, node: nodes.Typedef, chain: list[p.Typedef]) -> bool:
        """Link *typedef* (and the typedefs it builds on first); False when it cannot be used."""
        if typedef.base is not None or typedef.constructor is not None:
            return True
        if id(typedef) in self.failed_typedefs:
            return False
        if typedef in chain:
            ring = [*chain[chain.index(typedef) :], typedef]
            self.error(
                node.name.span,
                "typedef cycle: " + " -> ".join(t.qualified_name for t in ring),
                "typedef-cycle",
            )
            self.failed_typedefs.update(id(t) for t in ring)
            return False
        ns = typedef.namespace
        if node.constructor is not None:
            entity = self.lookup_entity(ns, node.constructor.entity, "a constructor typedef's type")
            if entity is not None:
                typedef.constructor = p.ConstructorTypedef(entity, node.constructor.arguments)
            return entity is not None
        if node.condition is not None and not any(
            isinstance(e, nodes.Reference) and e.name.text in ("self", typedef.name)
            for e in iter_expressions(node.condition)
        ):
            self.error(
                node.condition.span, "typedef expressions should reference the self variable", "bad-typedef"
            )
        assert node.base is not None
        if node.base.text in ATTRIBUTE_TYPES:
            if node.base.text == "number":
                self.warn(
                    node.base.span,
                    "type 'number' is deprecated, use 'float' or 'int' instead",
                    "deprecated-type",
                )
            typedef.base = p.PRIMITIVES[node.base.text]
            return True
        found = self.lookup(ns, node.base, (p.Typedef,), "type", "unknown-type", ATTRIBUTE_TYPES)
        if found is None:
            return False
        if not isinstance(found, p.Typedef) or found.node is None:
            self.error(
                node.base.span,
                f"a typedef builds on a primitive type or a typedef; '{node.base.text}' is {kind_of(found)}",
                "bad-typedef",
            )
            return False
        if not self.link_typedef(found, found.node, [*chain, typedef]):
            return False
        if found.constructor is not None:
            self.error(
                node.base.span,
                f"'{node.base.text}' is a constructor typedef, not a value type",
                "bad-typedef",
            )
            return False
        typedef.parent = found
        typedef.base = found.base
        return True

    def check_constructor_typedef(self, typedef: p.Typedef, node: nodes.Typedef) -> None:
        if typedef.constructor is None:
            return
        entity = typedef.constructor.entity
        for argument in typedef.constructor.arguments:
            name = argument.name.text
            if name not in entity.all_attributes and name not in entity.all_relations:
                known = [*entity.all_attributes, *entity.all_relations]
                self.error(
                    argument.name.span,
                    f"entity {entity.qualified_name} has no attribute or relation '{name}'"
                    f"{suggest(name, known)}",
                    "unknown-attribute",
                )

    # ------------------------------------------------------------------ enums

    def link_enums(self) -> None:
        pending: dict[int, list[tuple[str, str | None, Span]]] = {}
        enums: dict[int, p.EnumType] = {}
        for enum, node in self.enum_nodes:
            enums[id(enum)] = enum
            parent = node.parent.value if node.parent is not None else None
            for literal in node.values:
                assert isinstance(literal.value, str)
                pending.setdefault(id(enum), []).append(
                    (literal.value, parent if isinstance(parent, str) else None, literal.span)
                )
        for key, values in pending.items():
            enum = enums[key]
            spans: dict[str, Span] = {}
            for value, _, span in values:
                if value in spans:
                    self.error(
                        span,
                        f"enum {enum.name} already has the value '{value}'",
                        "bad-enum",
                        [Note(spans[value], f"first '{value}'")],
                    )
                else:
                    spans[value] = span
            for value, parent, span in values:
                if spans.get(value) is not span:
                    continue
                if parent is not None and parent not in spans:
                    self.error(
                        span,
                        f"enum {enum.name} has no value '{parent}' to add '{value}' under"
                        f"{suggest(parent, spans)}",
                        "bad-enum",
                    )
                    parent = None
                enum.values[value] = parent

    # ------------------------------------------------------------------ implementations

    def link_implementation(self, impl: p.Implementation, node: nodes.Implementation) -> None:
        if node.entity is None:
            if self.std_entity is not None:
                impl.entity = self.std_entity  # legacy: an implementation for any entity
            return
        entity = self.lookup_entity(impl.namespace, node.entity, f"the type of implementation {impl.name}")
        if entity is not None:
            impl.entity = entity

    def link_implement(self, ns: p.LinkedNamespace, node: nodes.Implement) -> None:
        entity = self.lookup_entity(ns, node.entity, "an implement statement's type")
        if (
            node.using_parents
            and node.condition is not None
            and not (isinstance(node.condition, nodes.Literal) and node.condition.value is True)
        ):
            self.error(
                node.condition.span,
                "conditional implementation with parents is not allowed",
                "conditional-parents",
            )
        implementations: list[p.Implementation] = []
        for name in node.implementations:
            found = self.lookup(ns, name, (p.Implementation,), "implementation", "unknown-implementation")
            if found is None:
                continue
            if not isinstance(found, p.Implementation):
                self.error(
                    name.span,
                    f"'{name.text}' is {kind_of(found)}, not an implementation",
                    "unknown-implementation",
                )
                continue
            if entity is not None and found.entity.name != "?" and not entity.is_subtype_of(found.entity):
                self.error(
                    name.span,
                    f"cannot use {found.qualified_name} as implementation for {entity.qualified_name} "
                    f"because its implementing type is {found.entity.qualified_name}",
                    "implementation-mismatch",
                )
                continue
            implementations.append(found)
        if entity is None:
            return
        rule = p.ImplementRule(entity, implementations, node.using_parents, node.condition, ns, node.span)
        entity.implements.append(rule)

    # ------------------------------------------------------------------ relations

    def link_relation(self, ns: p.LinkedNamespace, node: nodes.Relation) -> None:
        left = self.lookup_entity(ns, node.left.entity, "a relation end")
        right = self.lookup_entity(ns, node.right.entity, "a relation end")
        ok = True
        for end in (node.left, node.right):
            if end.name is not None:
                self.check_name(end.name, "the relation end")
            if end.multiplicity is not None and not self.check_multiplicity(end.multiplicity):
                ok = False
        if left is None or right is None or not ok:
            return
        left_end = self.make_end(left, right, node.left, node)
        right_end: p.RelationEnd | None = None
        if node.right.name is not None:
            if left is right and node.left.name is not None and node.left.name.text == node.right.name.text:
                right_end = left_end  # the relation is its own inverse
            else:
                right_end = self.make_end(right, left, node.right, node)
        if left_end is not None and right_end is not None:
            left_end.opposite = right_end
            right_end.opposite = left_end
        self.add_end(left_end)
        if right_end is not left_end:
            self.add_end(right_end)

    def make_end(
        self, owner: p.EntityType, target: p.EntityType, end: nodes.RelationEnd, node: nodes.Relation
    ) -> p.RelationEnd | None:
        if end.name is None:
            return None
        multiplicity = end.multiplicity
        lower, upper = (multiplicity.lower, multiplicity.upper) if multiplicity else (0, None)
        span = end.entity.span.merge(multiplicity.span) if multiplicity else end.name.span
        return p.RelationEnd(
            end.name.text,
            owner,
            target,
            lower,
            upper,
            None,
            list(node.annotations),
            node.doc,
            span,
            end.name.span,
        )

    def add_end(self, end: p.RelationEnd | None) -> None:
        if end is None:
            return
        owner = end.entity
        if end.name in owner.attributes:
            first = owner.attributes[end.name]
            self.error(
                end.name_span,
                f"relation end '{end.name}' clashes with attribute '{end.name}' of {owner.qualified_name}",
                "name-clash",
                [Note(first.name_span, "the attribute")],
            )
            return
        if end.name in owner.relations:
            other = owner.relations[end.name]
            self.error(
                end.name_span,
                f"relation end '{end.name}' is defined twice on {owner.qualified_name}",
                "duplicate-relation",
                [Note(other.name_span, f"first definition of '{end.name}'")],
            )
            return
        owner.relations[end.name] = end

    def check_multiplicity(self, m: nodes.Multiplicity) -> bool:
        text = _multiplicity_text(m)
        if m.upper is not None and m.upper < m.lower:
            self.error(
                m.span,
                f"bad multiplicity {text}: the upper bound {m.upper} is below the lower bound {m.lower}",
                "bad-multiplicity",
            )
            return False
        if m.upper == 0:
            self.error(
                m.span, f"bad multiplicity {text}: the upper bound must be at least 1", "bad-multiplicity"
            )
            return False
        return True

    # ------------------------------------------------------------------ inheritance checks

    def check_inheritance(self, entity: p.EntityType) -> None:
        """Own features against inherited ones, and inherited ones against each other."""
        for name, attr in entity.attributes.items():
            for parent in entity.parents:
                inherited = parent.all_attributes.get(name)
                if inherited is not None and str(inherited.type) != str(attr.type):
                    self.error(
                        attr.name_span,
                        f"attribute '{name}' of {entity.qualified_name} ({attr.type}) redefines attribute "
                        f"'{name}' of {inherited.entity.qualified_name} with another type "
                        f"({inherited.type}); only the default of an inherited attribute can be changed",
                        "incompatible-attribute",
                        [Note(inherited.name_span, "the inherited attribute")],
                    )
                    break
                # an attribute named like an inherited relation end hides it (as in inmanta-core)
        for name, end in entity.relations.items():
            for parent in entity.parents:
                other: p.Attribute | p.RelationEnd | None = parent.all_attributes.get(
                    name
                ) or parent.all_relations.get(name)
                if other is not None:
                    self.error(
                        end.name_span,
                        f"attribute name '{name}' is already defined in "
                        f"{other.entity.qualified_name}, unable to define relation end '{name}' on "
                        f"{entity.qualified_name}",
                        "duplicate-relation",
                        [Note(other.name_span, "the inherited definition")],
                    )
                    break
        self.check_inherited_clashes(entity)

    def check_inherited_clashes(self, entity: p.EntityType) -> None:
        """Features (own and inherited) must have distinct names, also ignoring case (Ecore).

        A clash is reported once, at the highest entity that has both features; clashes of
        an own feature with an inherited one of the same name are reported above.
        """
        groups: dict[str, list[p.Attribute | p.RelationEnd]] = {}
        for feature in self.features(entity):
            groups.setdefault(feature.name.lower(), []).append(feature)
        for group in groups.values():
            if len(group) < 2:
                continue
            group = self.merge_shared_attributes(entity, group)
            if len(group) < 2:
                continue
            a, b = group[0], group[1]
            if any(
                id(a) in self.feature_ids(parent) and id(b) in self.feature_ids(parent)
                for parent in entity.parents
            ):
                continue
            if a.name == b.name and entity in (a.entity, b.entity):
                continue
            self.clash(entity, a, b)

    def merge_shared_attributes(
        self, entity: p.EntityType, group: list[p.Attribute | p.RelationEnd]
    ) -> list[p.Attribute | p.RelationEnd]:
        """*group* with the attributes of one name that parents declare each (multiple
        inheritance) kept once: they are one attribute of *entity* (seed 000: the left parent
        takes precedence; lift declares it once, on a shared abstract supertype). Declared
        with different types, they are `incompatible-attribute` (as in inmanta-core)."""
        kept: list[p.Attribute | p.RelationEnd] = []
        first_of: dict[str, p.Attribute] = {}
        for feature in group:
            if isinstance(feature, p.Attribute):
                first = first_of.setdefault(feature.name, feature)
                if first is not feature:
                    if str(first.type) != str(feature.type) and not any(
                        id(first) in self.feature_ids(parent) and id(feature) in self.feature_ids(parent)
                        for parent in entity.parents
                    ):
                        self.error(
                            entity.name_span,
                            f"{entity.qualified_name} inherits attribute '{feature.name}' with two types: "
                            f"{first.type} from {first.entity.qualified_name} and {feature.type} from "
                            f"{feature.entity.qualified_name}",
                            "incompatible-attribute",
                            [
                                Note(first.name_span, f"'{first.name}' ({first.type})"),
                                Note(feature.name_span, f"'{feature.name}' ({feature.type})"),
                            ],
                        )
                    continue
            kept.append(feature)
        return kept

    def features(self, entity: p.EntityType) -> list[p.Attribute | p.RelationEnd]:
        """The distinct features of *entity* as the derived metamodel has them."""
        found = self.feature_cache.get(id(entity))
        if found is None:
            seen: set[int] = set()
            found = []
            for ancestor in entity.mro:
                own: list[p.Attribute | p.RelationEnd] = [
                    a for a in ancestor.attributes.values() if a.overrides is None
                ]
                own += [end for end in ancestor.relations.values() if not _hidden(entity, end)]
                for feature in own:
                    if id(feature) not in seen:
                        seen.add(id(feature))
                        found.append(feature)
            self.feature_cache[id(entity)] = found
        return found

    def feature_ids(self, entity: p.EntityType) -> set[int]:
        return {id(f) for f in self.features(entity)}

    def clash(
        self, entity: p.EntityType, a: p.Attribute | p.RelationEnd, b: p.Attribute | p.RelationEnd
    ) -> None:
        kind_a = "attribute" if isinstance(a, p.Attribute) else "relation end"
        kind_b = "attribute" if isinstance(b, p.Attribute) else "relation end"
        how = "the same name" if a.name == b.name else "names that differ only in case"
        self.error(
            entity.name_span,
            f"{entity.qualified_name} has two features with {how}: {kind_a} '{a.name}' of "
            f"{a.entity.qualified_name} and {kind_b} '{b.name}' of {b.entity.qualified_name} (an Ecore class "
            f"needs distinct feature names)",
            "name-clash",
            [Note(a.name_span, f"{kind_a} '{a.name}'"), Note(b.name_span, f"{kind_b} '{b.name}'")],
        )

    def mark_overrides(self, entity: p.EntityType) -> None:
        """Set `Attribute.overrides` for attributes that re-declare an inherited one."""
        for name, attr in entity.attributes.items():
            for ancestor in entity.mro[1:]:
                inherited = ancestor.attributes.get(name)
                if inherited is not None:
                    attr.overrides = inherited.overrides or inherited
                    break

    # ------------------------------------------------------------------ indexes

    def link_index(self, ns: p.LinkedNamespace, node: nodes.Index) -> None:
        entity = self.lookup_entity(ns, node.entity, "an index's type")
        if entity is None:
            return
        names: list[str] = []
        for name in node.attributes:
            attr = entity.all_attributes.get(name.text)
            rel = entity.all_relations.get(name.text)
            if attr is None and rel is None:
                known = [*entity.all_attributes, *entity.all_relations]
                self.error(
                    name.span,
                    f"attribute '{name.text}' referenced in index is not defined in entity "
                    f"{entity.qualified_name}{suggest(name.text, known)}",
                    "unknown-attribute",
                )
                continue
            if (attr is not None and attr.type.multi) or (rel is not None and rel.many):
                self.error(
                    name.span,
                    f"an index cannot contain list attributes: '{name.text}' of "
                    f"{entity.qualified_name} is a list",
                    "bad-index",
                )
                continue
            if rel is not None and rel.lower == 0:
                self.error(
                    name.span,
                    f"an index cannot contain optional relations: '{name.text}' of "
                    f"{entity.qualified_name} is optional",
                    "bad-index",
                )
                continue
            names.append(name.text)
        if len(names) == len(node.attributes):
            entity.indexes.append(p.Index(entity, names, node.span))

    # ------------------------------------------------------------------ defaults

    def check_defaults(self, entity: p.EntityType) -> None:
        for attr in entity.attributes.values():
            if attr.default is None or isinstance(attr.default, nodes.Undef):
                continue
            not_literal = _not_a_literal(attr.default)
            if not_literal is not None:
                self.error(
                    not_literal.span,
                    f"the default of attribute '{attr.name}' must be a literal value "
                    "(a number, a string without {{…}}, true, false, null, or a list or dict of them)",
                    "bad-default",
                )
                continue
            try:
                check_default(attr.default, attr.type)
            except ConstantError as error:
                self.error(
                    error.span or attr.default.span,
                    f"bad default for attribute '{attr.name}' ({attr.type}): {error.message}",
                    "bad-default",
                )


def _not_a_literal(default: nodes.Expression, in_list: bool = False) -> nodes.Expression | None:
    """The part of an attribute default that is no literal, or None.

    A default is a literal, as the language reference's grammar has it (``attribute:
    primitive_type ID ('=' literal)?``) and inmanta-core enforces: a number, a string
    without interpolation, a bool, null, a flat list of these, or a dict of these (whose
    values may be lists and dicts). Anything computed (``1 + 1``, ``"{{x}}"``, ``f"{x}"``,
    a variable, a call) is refused."""
    if isinstance(default, nodes.Literal):
        return None
    if isinstance(default, nodes.ListLiteral):
        if in_list:
            return default
        for item in default.items:
            found = _not_a_literal(item, in_list=True)
            if found is not None:
                return found
        return None
    if isinstance(default, nodes.DictLiteral) and not in_list:
        for _, value in default.pairs:
            found = _not_a_literal(value)
            if found is not None:
                return found
        return None
    return default


def _definitions(ns: p.LinkedNamespace) -> Iterator[tuple[str, p.Definition]]:
    yield from ns.entities.items()
    yield from ns.typedefs.items()
    yield from ns.enums.items()
    yield from ns.implementations.items()


def _multiplicity_text(m: nodes.Multiplicity) -> str:
    if m.upper == m.lower:
        return f"[{m.lower}]"
    return f"[{m.lower}:{'' if m.upper is None else m.upper}]"


def _hidden(entity: p.EntityType, end: p.RelationEnd) -> bool:
    """Whether *entity* has an attribute that hides relation end *end*: one declared by a
    subtype of the end's entity (an attribute of another parent clashes with it instead)."""
    attribute = entity.all_attributes.get(end.name)
    return (
        attribute is not None
        and attribute.entity is not end.entity
        and attribute.entity.is_subtype_of(end.entity)
    )
