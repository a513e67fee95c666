"""cfmodel: declarative infrastructure configuration models, the model-driven way.

The public API; everything not in ``__all__`` may change without notice. The
pipeline's entry points are imported on first use, so ``import cfmodel`` stays cheap
(the CLI and notebooks only pay for the steps they run).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cfmodel.errors import (
    CfCompileError as CfCompileError,
)
from cfmodel.errors import (
    CfEvaluationError as CfEvaluationError,
)
from cfmodel.errors import (
    CfLoadError as CfLoadError,
)
from cfmodel.errors import (
    CfModelError as CfModelError,
)
from cfmodel.errors import (
    CfSemanticError as CfSemanticError,
)
from cfmodel.errors import (
    CfSyntaxError as CfSyntaxError,
)
from cfmodel.errors import (
    Diagnostic as Diagnostic,
)
from cfmodel.errors import (
    Span as Span,
)

__version__ = "0.1.0"

# name -> (module, attribute): what each public name is, imported when first used.
_LAZY: dict[str, tuple[str, str]] = {
    "parse_str": ("cfmodel.grammars.cf", "parse_str"),
    "load_project": ("cfmodel.project", "load_project"),
    "parse_file": ("cfmodel.project", "parse_file"),
    "resolve": ("cfmodel.transforms.cf.resolve", "resolve"),
    "LinkedProgram": ("cfmodel.transforms.cf.program", "LinkedProgram"),
    "lift": ("cfmodel.transforms.cf.lift", "lift"),
    "LiftOptions": ("cfmodel.transforms.cf.lift", "LiftOptions"),
    "DomainMetamodel": ("cfmodel.transforms.cf.lift", "DomainMetamodel"),
    "load_metamodel": ("cfmodel.transforms.cf.validate_instances", "load_metamodel"),
    "validate_instances": ("cfmodel.transforms.cf.validate_instances", "validate"),
    "ValidationReport": ("cfmodel.transforms.cf.validate_instances", "ValidationReport"),
    "import_ecore": ("cfmodel.transforms.cf.ecore_import", "import_ecore"),
    "compile_project": ("cfmodel.pipeline", "compile_project"),
    "CompileResult": ("cfmodel.pipeline", "CompileResult"),
    "run_request": ("cfmodel.transforms.environments.request", "run_request"),
    "GraphBuilder": ("cfmodel.transforms.graph.build", "GraphBuilder"),
    "ResourceGraph": ("cfmodel.metamodel.resource_graph", "ResourceGraph"),
    "read_graph": ("cfmodel.transforms.graph.files", "read_graph"),
    "graph_picture": ("cfmodel.transforms.graph.picture", "graph_picture"),
    "class_diagram": ("cfmodel.transforms.graph.diagram", "class_diagram"),
    "instance_diagram": ("cfmodel.transforms.graph.diagram", "instance_diagram"),
    "diff": ("cfmodel.transforms.diff", "diff"),
    "load_xmi": ("cfmodel.saved", "load_xmi"),
    "load_json": ("cfmodel.saved", "load_json"),
    "SavedModel": ("cfmodel.saved", "SavedModel"),
    "Comparison": ("cfmodel.transforms.diff.model", "Comparison"),
}

__all__ = [
    "CfCompileError",
    "CfEvaluationError",
    "CfLoadError",
    "CfModelError",
    "CfSemanticError",
    "CfSyntaxError",
    "Comparison",
    "CompileResult",
    "Diagnostic",
    "DomainMetamodel",
    "GraphBuilder",
    "LiftOptions",
    "LinkedProgram",
    "ResourceGraph",
    "SavedModel",
    "Span",
    "ValidationReport",
    "__version__",
    "class_diagram",
    "compile_project",
    "diff",
    "graph_picture",
    "import_ecore",
    "instance_diagram",
    "lift",
    "load_json",
    "load_metamodel",
    "load_project",
    "load_xmi",
    "parse_file",
    "parse_str",
    "read_graph",
    "resolve",
    "run_request",
    "validate_instances",
]

if TYPE_CHECKING:
    from cfmodel.grammars.cf import parse_str as parse_str
    from cfmodel.metamodel.resource_graph import ResourceGraph as ResourceGraph
    from cfmodel.pipeline import CompileResult as CompileResult
    from cfmodel.pipeline import compile_project as compile_project
    from cfmodel.project import load_project as load_project
    from cfmodel.project import parse_file as parse_file
    from cfmodel.saved import SavedModel as SavedModel
    from cfmodel.saved import load_json as load_json
    from cfmodel.saved import load_xmi as load_xmi
    from cfmodel.transforms.cf.ecore_import import import_ecore as import_ecore
    from cfmodel.transforms.cf.lift import DomainMetamodel as DomainMetamodel
    from cfmodel.transforms.cf.lift import LiftOptions as LiftOptions
    from cfmodel.transforms.cf.lift import lift as lift
    from cfmodel.transforms.cf.program import LinkedProgram as LinkedProgram
    from cfmodel.transforms.cf.resolve import resolve as resolve
    from cfmodel.transforms.cf.validate_instances import ValidationReport as ValidationReport
    from cfmodel.transforms.cf.validate_instances import load_metamodel as load_metamodel
    from cfmodel.transforms.cf.validate_instances import validate as validate_instances
    from cfmodel.transforms.diff import diff as diff
    from cfmodel.transforms.diff.model import Comparison as Comparison
    from cfmodel.transforms.environments.request import run_request as run_request
    from cfmodel.transforms.graph.build import GraphBuilder as GraphBuilder
    from cfmodel.transforms.graph.diagram import class_diagram as class_diagram
    from cfmodel.transforms.graph.diagram import instance_diagram as instance_diagram
    from cfmodel.transforms.graph.files import read_graph as read_graph
    from cfmodel.transforms.graph.picture import graph_picture as graph_picture


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'cfmodel' has no attribute {name!r}")
    value = getattr(importlib.import_module(target[0]), target[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
