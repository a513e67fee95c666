"""cfmodel: declarative infrastructure configuration models, the model-driven way.

The public API; everything not in ``__all__`` may change without notice.
"""

from cfmodel.errors import (
    CfCompileError as CfCompileError,
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

__all__ = [
    "CfCompileError",
    "CfLoadError",
    "CfModelError",
    "CfSemanticError",
    "CfSyntaxError",
    "Diagnostic",
    "Span",
    "__version__",
    "load_project",
    "parse_file",
    "parse_str",
]

from cfmodel.grammars.cf import parse_str as parse_str
from cfmodel.project import load_project as load_project
from cfmodel.project import parse_file as parse_file
