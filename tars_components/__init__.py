"""tars-components: TarsK8S on Pulumi.

Typed TarsK8S documents, the mutating webhook and admission rules as pure functions, the
TServer → Kubernetes expansion, and Pulumi components built on them.
"""

from .errors import LoadError, LoadProblem, Severity, Violation
from .loader import load_stack, load_texts, parse_document
from .models import TFrameworkConfig as TFrameworkConfigDocument
from .models import TServer as TServerDocument
from .models import TTemplate as TTemplateDocument
from .mutation import mutate
from .options import Mode, Options
from .stack import Stack

load = load_stack

__all__ = [
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
    "load",
    "load_stack",
    "load_texts",
    "mutate",
    "parse_document",
]
