"""tars-components: TarsK8S on Pulumi.

Typed TarsK8S documents, the mutating webhook and admission rules as pure functions, the
TServer → Kubernetes expansion, and Pulumi components built on them.
"""

from .errors import LoadError, LoadProblem, Severity, Violation
from .expansion import crd_documents, expand, expand_server
from .loader import load_stack, load_texts, parse_document
from .models import TFrameworkConfig as TFrameworkConfigDocument
from .models import TServer as TServerDocument
from .models import TTemplate as TTemplateDocument
from .mutation import mutate
from .options import Mode, Options
from .pipeline import Build, build
from .rules import RULES, validate, validate_change
from .stack import Stack

load = load_stack

__all__ = [
    "RULES",
    "Build",
    "LoadError",
    "LoadProblem",
    "Mode",
    "Options",
    "Severity",
    "Stack",
    "TFrameworkConfigDocument",
    "TServerDocument",
    "TTemplateDocument",
    "Violation",
    "build",
    "crd_documents",
    "expand",
    "expand_server",
    "load",
    "load_stack",
    "load_texts",
    "mutate",
    "parse_document",
    "validate",
    "validate_change",
]
