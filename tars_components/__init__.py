"""tars-components: TarsK8S on Pulumi.

Typed TarsK8S documents, the mutating webhook and admission rules as pure functions, the
TServer → Kubernetes expansion, and Pulumi components built on them.
"""

from typing import TYPE_CHECKING, Any

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

_COMPONENTS = (
    "TAccount",
    "TAccountArgs",
    "TConfig",
    "TConfigArgs",
    "TFramework",
    "TFrameworkArgs",
    "TServer",
    "TServerArgs",
    "TImage",
    "TImageArgs",
    "TTemplate",
    "TTemplateArgs",
    "TTree",
    "TTreeArgs",
)


if TYPE_CHECKING:
    # Type checkers see the real classes (so ``mypy --strict`` checks users' programs); at run
    # time they are imported on first use below.
    from .components import (
        TAccount,
        TAccountArgs,
        TConfig,
        TConfigArgs,
        TFramework,
        TFrameworkArgs,
        TImage,
        TImageArgs,
        TServer,
        TServerArgs,
        TTemplate,
        TTemplateArgs,
        TTree,
        TTreeArgs,
    )
else:

    def __getattr__(name: str) -> Any:
        """The Pulumi components, imported on first use: the CLI never needs
        pulumi_kubernetes, which takes about half a second to import."""
        if name in _COMPONENTS:
            from . import components

            return getattr(components, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "RULES",
    "Build",
    "LoadError",
    "LoadProblem",
    "Mode",
    "Options",
    "Severity",
    "Stack",
    "TAccount",
    "TAccountArgs",
    "TConfig",
    "TConfigArgs",
    "TFramework",
    "TFrameworkArgs",
    "TFrameworkConfigDocument",
    "TImage",
    "TImageArgs",
    "TServer",
    "TServerArgs",
    "TServerDocument",
    "TTemplate",
    "TTemplateArgs",
    "TTemplateDocument",
    "TTree",
    "TTreeArgs",
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
