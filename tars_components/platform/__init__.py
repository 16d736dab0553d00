"""Install TarsK8S itself: the ``tarscontroller`` and ``tarsframework`` 1.4.1 charts as a pure
source of documents (docs/api/pipeline.md). Values files → typed values → TarsK8S and Kubernetes
documents; the framework's TarsK8S documents go through the same mutate → validate → crd-mode
path as a user's stack. Certificates and node labels are edge concerns (CLI, Pulumi component).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ..kernel.errors import UsageError
from ..kernel.lazy import lazy_attributes

PLATFORM_EXTRA = "tars-components[platform]"
"""The install that brings the webhook CA's dependencies (cryptography, pulumi-tls)."""


def require_platform_extra(module: str, needed_by: str) -> None:
    """Raise :class:`UsageError` naming the extra to install when ``module`` (``cryptography``
    or ``pulumi_tls``, which only the TarsK8S install needs) is missing."""
    try:
        import_module(module)
    except ImportError:
        raise UsageError(
            f"{needed_by} needs {module}, which only the TarsK8S install uses and a plain "
            f"install leaves out: pip install '{PLATFORM_EXTRA}'"
        ) from None


if TYPE_CHECKING:
    from .ca import CertificateAuthority
    from .controller import build_controller, build_controller_with_ca, ca_secret
    from .framework import FrameworkBuild, build_framework
    from .values import ControllerValues, FrameworkValues, parse_values, values_from_mapping

# Imported on first use: ``tars-components framework`` does not load the controller's CRDs.
_LAZY = {
    "CertificateAuthority": ".ca",
    "build_controller": ".controller",
    "build_controller_with_ca": ".controller",
    "ca_secret": ".controller",
    "FrameworkBuild": ".framework",
    "build_framework": ".framework",
    "ControllerValues": ".values",
    "FrameworkValues": ".values",
    "parse_values": ".values",
    "values_from_mapping": ".values",
}


if not TYPE_CHECKING:  # type checkers see the imports above, and no catch-all
    __getattr__ = lazy_attributes(__name__, _LAZY, globals())


__all__ = [
    "PLATFORM_EXTRA",
    "CertificateAuthority",
    "ControllerValues",
    "FrameworkBuild",
    "FrameworkValues",
    "build_controller",
    "build_controller_with_ca",
    "build_framework",
    "ca_secret",
    "parse_values",
    "require_platform_extra",
    "values_from_mapping",
]
