"""tars-components: TarsK8S on Pulumi.

Typed TarsK8S documents, the mutating webhook and admission rules as pure functions, the
TServer → Kubernetes expansion, and Pulumi components built on them.
"""

from typing import TYPE_CHECKING

from .kernel.deprecation import install_moved_modules, renamed_attributes
from .kernel.lazy import lazy_attributes
from .kernel.version import __version__ as __version__

install_moved_modules(__name__)

# Every public name is imported on first use (module ``__getattr__`` below), so that
# ``tars-components framework`` does not pay for what only other commands and the Pulumi
# components need; type checkers see the real objects through the imports under TYPE_CHECKING.
_LAZY: dict[str, tuple[str, str]] = {
    "LoadError": (".kernel.errors", "LoadError"),
    "LoadProblem": (".kernel.errors", "LoadProblem"),
    "Severity": (".kernel.errors", "Severity"),
    "Violation": (".kernel.errors", "Violation"),
    "crd_documents": (".pipeline", "crd_documents"),
    "expand": (".pipeline", "expand"),
    "expand_server": (".pipeline", "expand_server"),
    "load_stack": (".loading.load", "load_stack"),
    "load": (".loading.load", "load_stack"),
    "load_texts": (".loading.load", "load_texts"),
    "parse_document": (".loading.documents", "parse_document"),
    "TAccountDocument": (".models", "TAccountDocument"),
    "TConfigDocument": (".models", "TConfigDocument"),
    "TDeployDocument": (".models.tdeploy", "TDeployDocument"),
    "TFrameworkConfigDocument": (".models", "TFrameworkConfigDocument"),
    "TImageDocument": (".models", "TImageDocument"),
    "TServerDocument": (".models", "TServerDocument"),
    "TTemplateDocument": (".models", "TTemplateDocument"),
    "TTreeDocument": (".models", "TTreeDocument"),
    "mutate": (".mutation", "mutate"),
    "Mode": (".settings.options", "Mode"),
    "Options": (".settings.options", "Options"),
    "Build": (".pipeline", "Build"),
    "build": (".pipeline", "build"),
    "RULES": (".rules", "RULES"),
    "validate": (".rules", "validate"),
    "validate_change": (".rules", "validate_change"),
    "DocumentSet": (".loading.document_set", "DocumentSet"),
}
_COMPONENTS = (
    "TAccount",
    "TAccountArgs",
    "TConfig",
    "TConfigArgs",
    "TFramework",
    "TFrameworkArgs",
    "TServer",
    "TServerArgs",
    "TServerAutoscaler",
    "TServerRelease",
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
        TServerAutoscaler,
        TServerRelease,
        TTemplate,
        TTemplateArgs,
        TTree,
        TTreeArgs,
    )
    from .kernel.errors import LoadError, LoadProblem, Severity, Violation
    from .loading.document_set import DocumentSet
    from .loading.documents import parse_document
    from .loading.load import load_stack, load_texts
    from .loading.load import load_stack as load
    from .models import (
        TAccountDocument,
        TConfigDocument,
        TFrameworkConfigDocument,
        TImageDocument,
        TServerDocument,
        TTemplateDocument,
        TTreeDocument,
    )
    from .models.tdeploy import TDeployDocument
    from .mutation import mutate
    from .pipeline import Build, build, crd_documents, expand, expand_server
    from .rules import RULES, validate, validate_change
    from .settings.options import Mode, Options
else:
    __getattr__ = renamed_attributes(
        __name__,
        {"Stack": "DocumentSet"},
        globals(),
        lazy_attributes(
            __name__, {**_LAZY, **{name: ".components" for name in _COMPONENTS}}, globals()
        ),
    )


__all__ = [
    "RULES",
    "Build",
    "DocumentSet",
    "LoadError",
    "LoadProblem",
    "Mode",
    "Options",
    "Severity",
    "TAccount",
    "TAccountArgs",
    "TAccountDocument",
    "TConfig",
    "TConfigArgs",
    "TConfigDocument",
    "TDeployDocument",
    "TFramework",
    "TFrameworkArgs",
    "TFrameworkConfigDocument",
    "TImage",
    "TImageArgs",
    "TImageDocument",
    "TServer",
    "TServerArgs",
    "TServerAutoscaler",
    "TServerDocument",
    "TServerRelease",
    "TTemplate",
    "TTemplateArgs",
    "TTemplateDocument",
    "TTree",
    "TTreeArgs",
    "TTreeDocument",
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
