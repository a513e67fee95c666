"""The registry of every error code cfmodel reports (mypy's ``errorcodes.py`` is the model).

A code is the stable, kebab-case name printed at the end of a diagnostic
(``file:line:col: error: message  [code]``); scripts and tests match on it, so a code
never changes meaning. After this module is imported, `CODES` maps every code that any
module of `cfmodel` can emit to its `ErrorCode` (the code, a one-line description, its
category); ``tests/test_errorcodes.py`` reads the source of `cfmodel/` and fails when a
code is emitted that is not registered here, or registered but emitted nowhere.
``cfmodel explain-code CODE`` prints an entry; ``docs/error-codes.md`` is `markdown()`.

This module imports nothing of cfmodel: every layer may use it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Category(enum.Enum):
    """Where in the pipeline a code arises (the sections of ``docs/error-codes.md``)."""

    GENERAL = "general"
    SYNTAX = "syntax"
    PROJECT = "project"
    NAMES_AND_TYPES = "names-and-types"
    EVALUATION = "evaluation"
    PLUGINS = "plugins"
    BINDINGS = "bindings"
    HIERA = "hiera"
    ENVIRONMENTS = "environments"
    GRAPH = "graph"
    MCL = "mcl"
    SERIALIZATION = "serialization"
    COMMAND_LINE = "command-line"


_TITLES = {
    Category.GENERAL: "General (the default codes of the error classes)",
    Category.SYNTAX: "Syntax (the grammars: .cf, .bind, .cfenv)",
    Category.PROJECT: "Projects, modules and files",
    Category.NAMES_AND_TYPES: "Names, types and declarations (resolve, lift)",
    Category.EVALUATION: "Evaluation (the .cf compiler)",
    Category.PLUGINS: "Plugins",
    Category.BINDINGS: "Bindings and the injector",
    Category.HIERA: "Hiera 5 data",
    Category.ENVIRONMENTS: "Environments and the request sequence",
    Category.GRAPH: "Resource graphs and pictures",
    Category.MCL: "mcl, mgmt's language (one code per stage)",
    Category.SERIALIZATION: "Serialization (.ecore, XMI, JSON)",
    Category.COMMAND_LINE: "Command line",
}


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """One registered code: its name, what it means in one line, and its category."""

    code: str
    description: str
    category: Category

    def explain(self) -> str:
        """The text ``cfmodel explain-code`` prints."""
        return f"{self.code}  [{self.category.value}]\n    {self.description}\n"


def _table(category: Category, *entries: tuple[str, str]) -> list[ErrorCode]:
    return [ErrorCode(code, description, category) for code, description in entries]


_ALL: list[ErrorCode] = [
    *_table(
        Category.GENERAL,
        ("error", "an error of cfmodel without a more precise code"),
        ("compile", "several problems reported together (each keeps its own code)"),
        ("evaluation", "running the model went wrong"),
        ("load", "a file, module or namespace cannot be found or read"),
        ("semantic", "names, types or declarations that do not fit together"),
        ("serialization", "a file to read or write is not in the expected format"),
        ("syntax", "the text does not follow the grammar"),
        ("usage", "the command line or the Python API was called the wrong way"),
    ),
    *_table(
        Category.SYNTAX,
        ("assign-top-scope", "an environments file assigns a top-scope variable (a fact: read-only)"),
        ("bad-regex", "a regular expression in an environments file does not compile"),
        ("call", "something other than a plugin or an entity is called like a function"),
        ("constructor", "a constructor is given positional arguments (it takes name=value only)"),
        ("fstring", "an f-string is malformed"),
        ("is-defined", "'is defined' applied to something other than a variable, attribute or dict lookup"),
        ("query", "a [name=value] query applied to something other than an entity or a relation"),
        ("regex", "a /regex/ in a typedef does not compile"),
    ),
    *_table(
        Category.PROJECT,
        ("bad-module", "a module directory lacks module.yaml or model/_init.cf"),
        ("bad-facts", "a --facts or --trusted-facts file is not a JSON or YAML mapping within the limits"),
        ("bad-project", "project.yml is not a valid project description"),
        ("empty-file", "warning: the file to parse is empty"),
        ("module-not-found", "an imported module is on no directory of the module path"),
        ("namespace-not-found", "an imported namespace has no .cf file in its module"),
        ("not-utf8", "a source file is not valid UTF-8 text"),
    ),
    *_table(
        Category.NAMES_AND_TYPES,
        ("bad-default", "an attribute's default value is not a constant"),
        ("bad-enum", "an enum lists a value twice or a value that is not a string"),
        ("bad-index", "an index names a list attribute, a relation or nothing valid"),
        ("bad-multiplicity", "a relation multiplicity whose upper bound is below its lower bound"),
        ("bad-name", "a declared name breaks the naming rules (entities start with a capital)"),
        ("bad-typedef", "a typedef hides a built-in type or its condition is not a valid constraint"),
        ("conditional-parents", "a conditional implementation also names parents"),
        ("deprecated-type", "warning: a deprecated type ('number') is used"),
        ("duplicate-attribute", "an entity defines an attribute twice"),
        ("duplicate-definition", "a name is defined twice in one namespace"),
        ("duplicate-import", "two import statements bind the same name"),
        ("duplicate-parent", "an entity names the same parent twice"),
        ("duplicate-relation", "a relation end is defined twice on an entity"),
        ("hyphen", "an identifier contains '-'"),
        ("incompatible-attribute", "an attribute redefines an inherited attribute with another type"),
        ("inheritance-cycle", "entities inherit from each other in a cycle"),
        ("inheritance-depth", "an entity's chain of parents is longer than cfmodel supports"),
        ("lift", "the linked program cannot be lifted to an Ecore metamodel"),
        ("missing-import", "a qualified name uses a namespace that is not imported"),
        ("name-clash", "an entity gets two features with the same name (or names differing only in case)"),
        ("not-a-type", "a name used as a value type is an entity, implementation or other non-type"),
        ("not-an-entity", "a name used as an entity is something else"),
        ("typedef-cycle", "typedefs are defined through each other in a cycle"),
        ("undefined", "a variable or name is not defined"),
        ("unknown-attribute", "an entity has no attribute or relation of that name"),
        ("unknown-entity", "no entity of that name is visible"),
        ("unknown-implementation", "no implementation of that name is visible"),
        ("unknown-type", "no type of that name is visible"),
    ),
    *_table(
        Category.EVALUATION,
        ("arithmetic", "an arithmetic operation failed (division by zero, a result too large)"),
        ("bad-assignment", "the target of an assignment is not a variable or an attribute"),
        ("bad-include", "'include' used outside an implementation block"),
        ("bad-query", "a selector query [k=v] applied to an attribute instead of a relation"),
        ("deadlock", "evaluation cannot go on: every remaining step waits for a value never set"),
        ("double-assignment", "a variable, attribute or relation is given a second, different value"),
        ("duplicate-argument", "a constructor is given the same argument twice"),
        ("implementation-mismatch", "an implementation is used for an entity it was not written for"),
        ("index-attribute-missing", "a constructor does not set an attribute that is part of an index"),
        ("index-collision", "the index attributes of a new instance match two different instances"),
        ("index-conflict", "an instance matches an existing instance of another entity through an index"),
        ("index-not-found", "an index lookup found no instance once the model was complete"),
        ("key-error", "a dict lookup names a key the dict does not have"),
        ("lower-bound", "a relation has fewer values than its lower bound requires"),
        ("modified-after-freeze", "an injected parameter source appeared after a constructor ran without it"),
        ("no-implementation", "an entity instance has no implementation that applies to it"),
        ("no-index", "a lookup names attributes that are not exactly one index of the entity"),
        ("no-value", "an optional relation without a value is read"),
        ("not-a-value", "a name that is not a value (an entity, a namespace, ...) is used as one"),
        ("not-constant", "a constructor appears where only constant values are allowed"),
        ("not-set", "an attribute or relation is never set and has no default"),
        ("too-many-errors", "further problems are left out of the report"),
        ("type-error", "a value has the wrong type for an operation or a declaration"),
        ("typedef", "a value does not satisfy a typedef's condition or pattern"),
        ("unknown-key", "the bindings give a value for a name the entity does not have"),
        ("upper-bound", "a relation gets more values than its upper bound allows"),
    ),
    *_table(
        Category.PLUGINS,
        ("bad-plugin", "a plugin cannot be used: its annotation, signature or Python file is wrong"),
        ("duplicate-resource", "two instances export a resource with the same id"),
        ("export-error", "a resource's field mapper or a dependency manager failed while exporting"),
        ("plugin-arguments", "a plugin is called with arguments its signature does not accept"),
        ("plugin-error", "a plugin raised an error"),
        ("plugin-type", "a plugin's argument or result does not have its declared type"),
        ("unknown-plugin", "no plugin of that name exists in the namespace"),
    ),
    *_table(
        Category.BINDINGS,
        ("abstract-not-bound", "an abstract binding has no concrete binding that provides it"),
        ("bad-key", "a dotted lookup key is malformed (an unterminated quote, an empty segment)"),
        ("binding-conflict", "two bindings of equal precedence give different values"),
        ("bindings-name-mismatch", "a bindings file's name does not match its folder position"),
        ("bindings-not-found", "a bindings folder or file named by a URI does not exist"),
        ("categories-twice", "the categories are declared more than once"),
        ("category-twice", "a category is declared twice"),
        ("common-declared", "the implicit category 'common' is declared"),
        ("common-in-when", "'when common' is written: common is implicit outside every 'when'"),
        ("duplicate-fragment-key", "two fragments of a Hash multibind have the same key"),
        ("duplicate-multibind-id", "two multibinds have the same id"),
        ("enc-failed", "the external node classifier failed or answered something unreadable"),
        ("enc-unknown-part", "a bindings URI names a part of the classifier's answer that does not exist"),
        ("environment-not-true", "the category 'environment' is not declared as true"),
        ("expression-error", "an expression in a bindings file cannot be evaluated"),
        ("final-overridden", "a final binding is overridden by a binding of higher precedence"),
        ("fragment-without-name", "a fragment of a Hash multibind has no name"),
        ("invalid-binding", "a binding's name is not a valid key"),
        ("map-required", "parameters are bound to a value that is not a map of names to values"),
        ("node-below-environment", "the category 'node' has a lower precedence than 'environment'"),
        ("not-a-collection", "a multibind binds something other than an Array or a Hash"),
        ("not-a-subtype", "a type binding binds a type that is not the key's type or a subtype"),
        ("not-bound", "nothing binds the requested key"),
        ("override-nothing", "a binding declared override overrides nothing"),
        ("parameter-source-missing", "the source of bound parameters does not exist"),
        ("produced-undef", "a binding that is not optional produced undef"),
        ("provider-failed", "a bindings provider failed to start"),
        ("rebind-cycle", "rebinding goes round in a cycle"),
        ("rebind-missing", "a rebind finds nothing of lower precedence to rebind"),
        ("reserved-name", "a binding uses a name reserved for cfmodel (starting with '/')"),
        ("type-mismatch", "a bound value does not have the type declared for its key"),
        ("type-syntax", "a type written in a binding cannot be read"),
        ("unknown-category", "a bindings file names a category that is not declared"),
        ("unknown-combinator", "a multibind names an unknown combinator"),
        ("unknown-multibind", "a fragment names a multibind id that does not exist"),
        ("unknown-option", "a binding has an option it does not take (a misspelled name)"),
        ("unknown-parameter", "a binding gives a parameter the target does not have"),
        ("unknown-producer", "a binding names an unknown producer"),
        ("unknown-scheme", "a bindings URI uses an unknown scheme"),
    ),
    *_table(
        Category.HIERA,
        ("hiera-config", "hiera.yaml is not a valid Hiera 5 configuration"),
        ("hiera-data", "a Hiera data file does not hold a mapping of keys to values"),
        ("hiera-interpolation", "a Hiera interpolation uses an unknown function or cannot be resolved"),
        ("hiera-merge", "Hiera values cannot be merged with the requested strategy"),
        ("hiera-unsupported", "a Hiera level uses a backend or option cfmodel does not support"),
    ),
    *_table(
        Category.ENVIRONMENTS,
        ("assign-read-only", "an environments file assigns a fact or a variable set by cfmodel"),
        ("bad-environment", "$environment is not a String"),
        ("bad-parameter", "an environment parameter has the wrong type"),
        ("bad-title", "an environment's title is not a non-empty String"),
        ("defaults-twice", "Environment defaults are declared more than once"),
        ("duplicate-environment", "an environment is declared twice"),
        ("duplicate-parameter", "an environment parameter is set twice"),
        ("dynamic-dir-not-found", "the dynamic_environments directory does not exist"),
        ("dynamic-twice", "dynamic environments are declared more than once"),
        ("envdir-in-dynamic", "a dynamic environment sets an envdir (its directory is its envdir)"),
        ("envdir-not-found", "an environment's envdir does not exist"),
        ("environment-not-applied", "warning: the selected environment is not applied by this command"),
        ("fail", "an environments file called fail()"),
        ("main-not-found", "the selected environment's main file does not exist"),
        ("missing-envdir", "an environment has no envdir"),
        ("notice", "note: an environments file called notice()"),
        ("reassigned", "an environments file assigns a variable twice"),
        ("unknown-environment", "the requested environment is not known"),
        ("unknown-statement", "an environments file calls a function that cannot be a statement"),
        ("warning", "warning: an environments file called warning()"),
    ),
    *_table(
        Category.GRAPH,
        ("bad-export", "an Inmanta export document (a list of resources with ids) cannot be read"),
        ("bad-yamlgraph", "an mgmt YAML graph file cannot be read"),
        ("dependency-cycle", "the resources of a graph depend on each other in a cycle"),
        ("graphviz-missing", "a picture needs Graphviz's dot, which is not installed"),
        ("incompatible-duplicate", "a resource is declared twice with different values"),
        ("not-a-graph", "a model file does not hold a resource graph"),
        ("render-failed", "Graphviz could not render a picture (or took too long)"),
        ("unknown-agent", "no resource of the graph has the requested agent"),
        ("unknown-resource", "an edge names a resource id that does not exist"),
        ("yamlgraph-clash", "two resources would get the same kind and name in mgmt's graph"),
    ),
    *_table(
        Category.MCL,
        (
            "mcl-parse",
            "an mcl file cannot be read or does not follow the grammar (or an int literal overflows)",
        ),
        (
            "mcl-interpolate",
            "a ${...} in an mcl string holds more than a variable, or class a:b has no class a",
        ),
        (
            "mcl-init",
            "an mcl tree mgmt would refuse to initialize (a struct literal with a field given twice)",
        ),
        (
            "mcl-scope",
            "an mcl name is undefined or defined twice, a recursion, an import that cannot be read",
        ),
        ("mcl-unify-conflict", "two invariants of mcl's type unification want different types"),
        ("mcl-unify-ambiguous", "mcl's type unification has no single solution (add a type annotation)"),
        ("mcl-unify-unknown-kind", "an mcl resource or edge names a resource kind that does not exist"),
        ("mcl-unify-unknown-field", "an mcl resource sets a field or meta parameter its kind does not have"),
        ("mcl-unify-arity", "an mcl function or panic is called with the wrong number of arguments"),
        ("mcl-unify-build", "an mcl function refuses the types unification found (its build step)"),
        (
            "mcl-unify-infer",
            "an mcl function cannot make a signature for this call (e.g. a non-literal format)",
        ),
        ("mcl-unify-sendrecv", "an mcl send/recv edge whose fields do not exist or do not fit"),
        ("mcl-runtime", "an mcl stream failed: index out of range, a missing key, a panic, a function error"),
        (
            "mcl-interpret",
            "mcl output that is not a graph: incompatible duplicates, dangling edges, a field set twice",
        ),
        ("mcl-autoedge", "the mcl resource graph has a cycle once autoedges are added"),
    ),
    *_table(
        Category.SERIALIZATION,
        ("bad-ecore", "an .ecore file is not a metamodel cfmodel can read"),
        ("bad-ecore-pragma", "a #@ecore comment in .cf is malformed or names what the program lacks"),
        ("bad-json", "a JSON file is not a model cfmodel can read"),
        ("bad-rdf", "an RDF file is not a model cfmodel can read (syntax, classes, values, references)"),
        ("bad-value", "a literal in a model file is not a valid value of its data type"),
        ("json-syntax", "a JSON model file is not UTF-8 or not JSON"),
        ("bad-xmi", "an XMI file is not a model cfmodel can read"),
        ("duplicate-id", "warning: an XMI file gives one xmi:id to several objects (EMF reads it so)"),
        ("invalid-metamodel", "a metamodel is not valid Ecore and cannot be written"),
        ("invalid-model", "a model breaks its metamodel or its constraints, so it is not written"),
        ("io", "a file cannot be read or written"),
        ("missing-package", "a metamodel refers to packages no given file defines"),
        ("model-bounds", "warning: features of a model have fewer or more values than their bounds"),
        (
            "outside-root",
            "a reference in a model file names a file outside the directories it may be read from",
        ),
        ("too-deep", "an XML or JSON document nests deeper than the limit"),
        ("unresolved-proxy", "warning: a reference names an object of a document that is absent (a proxy)"),
        ("too-large", "a document is larger than the limit"),
        ("unsupported", "a metamodel or model uses a construct cfmodel does not serialize"),
        ("unsupported-type", "a data type has no EMF-faithful mapping"),
        ("xml-encoding", "an XML document cannot be decoded"),
        ("xml-entities", "an XML document declares entities (refused)"),
        ("xml-syntax", "an XML document is not well-formed"),
    ),
    *_table(
        Category.COMMAND_LINE,
        ("unknown-format", "no serializer for the requested format or file extension"),
        ("bad-sparql", "a SPARQL query does not parse or cannot be run"),
    ),
]

CODES: dict[str, ErrorCode] = {entry.code: entry for entry in _ALL}
assert len(CODES) == len(_ALL), "an error code is registered twice"


def lookup(code: str) -> ErrorCode | None:
    """The registered entry of ``code``, or None."""
    return CODES.get(code)


def markdown() -> str:
    """The text of ``docs/error-codes.md``: every code, by category, sorted by name."""
    lines = [
        "# Error codes",
        "",
        "<!-- Generated from cfmodel/errorcodes.py (`cfmodel explain-code --markdown`); do not edit. -->",
        "",
        "Every diagnostic ends with a stable code: `file:line:col: error: message  [code]`.",
        "`cfmodel explain-code CODE` prints one entry.",
    ]
    for category in Category:
        entries = sorted((e for e in _ALL if e.category is category), key=lambda e: e.code)
        lines += ["", f"## {_TITLES[category]}", "", "| code | meaning |", "|---|---|"]
        lines += [f"| `{e.code}` | {e.description} |" for e in entries]
    return "\n".join(lines) + "\n"
