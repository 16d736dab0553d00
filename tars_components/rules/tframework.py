"""TFrameworkConfig rules TF002, TF003 and TF006 (docs/rules/index.md).

TarsK8S reads only the TFrameworkConfig named ``tars-framework`` of a namespace; any other is
ignored, which is worth a warning (TF002). Two configs with one name would replace each other
(TF003). An ``expand`` value kept in a Pulumi config secret is written as a placeholder by an
offline render (TF006). TF001 (the CRD schema) is reported by the loader.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..kernel.errors import Violation
from ..kernel.registry import ERROR, WARNING, check, rule
from ..loading.document_set import DocumentSet
from ..models import FRAMEWORK_CONFIG_NAME, SecretRef
from .common import same_names

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

TF006 = rule(
    "TF006",
    WARNING,
    "TFrameworkConfig",
    "crd mode: an expand value kept in a Pulumi config secret is rendered offline as a placeholder",
    origin="tars-components",
)


def unresolved_expand(stack: DocumentSet) -> Iterator[Violation]:
    """TF006 (crd mode): ``expand`` values kept in Pulumi config secrets, which an offline
    render cannot read; it writes a placeholder instead."""
    for config in stack.frameworks:
        for key, value in config.expand.items():
            if isinstance(value, SecretRef):
                yield TF006.at(
                    config,
                    f"expand.{key}",
                    f"comes from the Pulumi config secret tars:{value.config_secret}: an "
                    "offline render writes a placeholder (pulumi up resolves the secret; "
                    "TarsWeb reads it from this object, where the cluster keeps it)",
                )


@check()
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
