"""TFrameworkConfig rules TF002 and TF003 (docs/rules/index.md).

TarsK8S reads only the TFrameworkConfig named ``tars-framework`` of a namespace; any other is
ignored, which is worth a warning (TF002). Two configs with one name would replace each other
(TF003). TF001 (the CRD schema) is reported by the loader.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..document_set import DocumentSet
from ..errors import Violation
from ..models import FRAMEWORK_CONFIG_NAME
from .common import same_names
from .registry import ERROR, WARNING, rule

TF002 = rule(
    "TF002",
    WARNING,
    "TFrameworkConfig",
    "a TFrameworkConfig is named tars-framework (others are ignored)",
    origin="seed",
)
TF003 = rule(
    "TF003",
    ERROR,
    "TFrameworkConfig",
    "one TFrameworkConfig per name in a namespace (a second would replace the first)",
    origin="tars-components",
)


def check_frameworks(stack: DocumentSet) -> Iterator[Violation]:
    """TF002: configs not named tars-framework; TF003: two configs with one name."""
    for config in stack.frameworks:
        if config.name != FRAMEWORK_CONFIG_NAME:
            yield TF002.at(
                config,
                "metadata.name",
                f"TFrameworkConfig {config.name} is ignored: TarsK8S reads only the one named "
                f"{FRAMEWORK_CONFIG_NAME}",
            )
    yield from same_names(stack.frameworks, TF003)
