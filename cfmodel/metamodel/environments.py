"""The environments metamodel (ARM-8 "Request Sequence"): an Ecore package built with PyEcore.

Input: nothing (the classes are built once, at import, as constants).
Output: ``PACKAGE`` (EPackage ``environments``, nsURI ``http://cfmodel.org/environments/1.0``)
and one ``EClass`` constant per concept. Expressions are the bindings package's
(``cfmodel.metamodel.bindings.Expression``): this package references it, it does not copy it.
Spans of parsed elements live in a ``bindings.SpanTable`` beside the model, as for bindings.

Classes (every feature listed):

The file (what ``environments.cfenv`` says):

* ``EnvironmentsFile`` ``statements``: the top-level statements, in order.
* ``Statement`` (abstract).
* ``SiteDeclaration`` (a statement) ``declarations``: the ``site { ... }`` block's contents.
* ``Declaration`` (abstract) ``parameters`` (``Parameter``: ``name``, ``value`` expression);
  ``EnvironmentDefaults`` (``Environment { ... }``), ``EnvironmentDeclaration`` (``environment
  { 'name': ... }``, ``title`` expression), ``DynamicEnvironments`` (``dynamic_environments
  { 'dir': ... }``, ``title`` expression).
* ``Assignment`` ``variable`` (name without ``$``), ``value``.
* ``IfStatement`` ``unless``, ``condition``, ``then``, ``otherwise`` (statements; an ``elsif``
  is an ``IfStatement`` alone in ``otherwise``).
* ``CaseStatement`` ``subject``, ``options`` (``CaseOption``: ``values``, ``body``); a value is
  ``ExpressionValue`` (``expression``), ``RegexValue`` (``pattern``) or ``DefaultValue``.
* ``CallStatement`` ``function``, ``args`` (``fail``, ``warning``, ``notice``).
* ``Condition`` (abstract): ``ExpressionCondition`` (``expression``: true unless undef/false),
  ``MatchCondition`` (``subject``, ``pattern``, ``negated``: ``=~`` / ``!~``),
  ``InCondition`` (``item``, ``collection``), ``AllConditions`` / ``AnyCondition``
  (``operands``: ``and`` / ``or``).

What a request made of it:

* ``Catalog`` ``file`` (the parsed file, when there is one), ``fileName``, ``confdir``,
  ``environments`` (``Environment``, every one known now), ``dynamicDirectory``.
* ``Environment`` ``name``, ``kind`` (``EnvironmentKind``: static, dynamic, automatic),
  ``envdir``, ``modulepath`` (many), ``maindir``, ``main``, ``bindingsdir``, ``templatedir``
  (resolved paths), ``declaration`` (the ``Declaration`` it came from; not for automatic ones).
* ``Request`` ``catalog``, ``facts`` (``Fact``: ``name``, ``value`` as JSON text),
  ``agentEnvironment``, ``proposedEnvironment`` (by the classifier), ``classifier`` (its name),
  ``environmentName``, ``source`` (``EnvironmentSource``: default, file, classifier),
  ``selected`` (the ``Environment``), ``categories`` (``CategoryValue``: ``name``, ``rank``,
  ``value``), ``steps`` (``Step``: ``name``, ``message``, ``location``).

Guarantees: nothing is registered in PyEcore's global registry; every class and feature name
is one EMF accepts (the tests load the written ``.ecore`` and instances in real EMF).
"""

from __future__ import annotations

from typing import Any

from pyecore.ecore import EBoolean, EEnum, EInt, EPackage, EString

from cfmodel.metamodel import bindings as bm
from cfmodel.metamodel.builder import add_attribute, add_class, add_reference

NS_URI = "http://cfmodel.org/environments/1.0"
NS_PREFIX = "environments"

PACKAGE = EPackage("environments", nsURI=NS_URI, nsPrefix=NS_PREFIX)

EnvironmentKind = EEnum("EnvironmentKind", literals=["static", "dynamic", "automatic"])
EnvironmentSource = EEnum("EnvironmentSource", literals=["default", "file", "classifier"])
PACKAGE.eClassifiers.extend([EnvironmentKind, EnvironmentSource])


def _eclass(name: str, supers: tuple[Any, ...] = (), abstract: bool = False) -> Any:
    return add_class(PACKAGE, name, supers, abstract)


_attr = add_attribute
_ref = add_reference


Expression = bm.Expression

# --- conditions ---------------------------------------------------------------------------
Condition = _eclass("Condition", abstract=True)
ExpressionCondition = _eclass("ExpressionCondition", (Condition,))
_ref(ExpressionCondition, "expression", Expression)
MatchCondition = _eclass("MatchCondition", (Condition,))
_ref(MatchCondition, "subject", Expression)
_attr(MatchCondition, "pattern", EString)
_attr(MatchCondition, "negated", EBoolean, default=False)
InCondition = _eclass("InCondition", (Condition,))
_ref(InCondition, "item", Expression)
_ref(InCondition, "collection", Expression)
AllConditions = _eclass("AllConditions", (Condition,))
_ref(AllConditions, "operands", Condition, many=True)
AnyCondition = _eclass("AnyCondition", (Condition,))
_ref(AnyCondition, "operands", Condition, many=True)

# --- statements ---------------------------------------------------------------------------
Statement = _eclass("Statement", abstract=True)
Parameter = _eclass("Parameter")
_attr(Parameter, "name", EString)
_ref(Parameter, "value", Expression)
Declaration = _eclass("Declaration", abstract=True)
_ref(Declaration, "parameters", Parameter, many=True)
EnvironmentDefaults = _eclass("EnvironmentDefaults", (Declaration,))
EnvironmentDeclaration = _eclass("EnvironmentDeclaration", (Declaration,))
_ref(EnvironmentDeclaration, "title", Expression)
DynamicEnvironments = _eclass("DynamicEnvironments", (Declaration,))
_ref(DynamicEnvironments, "title", Expression)
SiteDeclaration = _eclass("SiteDeclaration", (Statement,))
_ref(SiteDeclaration, "declarations", Declaration, many=True)

Assignment = _eclass("Assignment", (Statement,))
_attr(Assignment, "variable", EString)
_ref(Assignment, "value", Expression)
IfStatement = _eclass("IfStatement", (Statement,))
_attr(IfStatement, "unless", EBoolean, default=False)
_ref(IfStatement, "condition", Condition)
_ref(IfStatement, "then", Statement, many=True)
_ref(IfStatement, "otherwise", Statement, many=True)
CaseValue = _eclass("CaseValue", abstract=True)
ExpressionValue = _eclass("ExpressionValue", (CaseValue,))
_ref(ExpressionValue, "expression", Expression)
RegexValue = _eclass("RegexValue", (CaseValue,))
_attr(RegexValue, "pattern", EString)
DefaultValue = _eclass("DefaultValue", (CaseValue,))
CaseOption = _eclass("CaseOption")
_ref(CaseOption, "values", CaseValue, many=True)
_ref(CaseOption, "body", Statement, many=True)
CaseStatement = _eclass("CaseStatement", (Statement,))
_ref(CaseStatement, "subject", Expression)
_ref(CaseStatement, "options", CaseOption, many=True)
CallStatement = _eclass("CallStatement", (Statement,))
_attr(CallStatement, "function", EString)
_ref(CallStatement, "args", Expression, many=True)

EnvironmentsFile = _eclass("EnvironmentsFile")
_ref(EnvironmentsFile, "statements", Statement, many=True)

# --- what a request made of it ----------------------------------------------------------------
Environment = _eclass("Environment")
_attr(Environment, "name", EString)
_attr(Environment, "kind", EnvironmentKind)
_attr(Environment, "envdir", EString)
_attr(Environment, "modulepath", EString, many=True)
_attr(Environment, "maindir", EString)
_attr(Environment, "main", EString)
_attr(Environment, "bindingsdir", EString)
_attr(Environment, "templatedir", EString)
_ref(Environment, "declaration", Declaration, containment=False)
Catalog = _eclass("Catalog")
_ref(Catalog, "file", EnvironmentsFile)
_attr(Catalog, "fileName", EString)
_attr(Catalog, "confdir", EString)
_ref(Catalog, "environments", Environment, many=True)
_attr(Catalog, "dynamicDirectory", EString)

Fact = _eclass("Fact")
_attr(Fact, "name", EString)
_attr(Fact, "value", EString)
CategoryValue = _eclass("CategoryValue")
_attr(CategoryValue, "name", EString)
_attr(CategoryValue, "rank", EInt)
_attr(CategoryValue, "value", EString)
Step = _eclass("Step")
_attr(Step, "name", EString)
_attr(Step, "message", EString)
_attr(Step, "location", EString)
Request = _eclass("Request")
_ref(Request, "catalog", Catalog)
_ref(Request, "facts", Fact, many=True)
_attr(Request, "agentEnvironment", EString)
_attr(Request, "proposedEnvironment", EString)
_attr(Request, "classifier", EString)
_attr(Request, "environmentName", EString)
_attr(Request, "source", EnvironmentSource)
_ref(Request, "selected", Environment, containment=False)
_ref(Request, "categories", CategoryValue, many=True)
_ref(Request, "steps", Step, many=True)
