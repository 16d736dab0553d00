"""Install TarsK8S itself: the ``tarscontroller`` and ``tarsframework`` 1.4.1 charts as a pure
source of documents (design §2). Values files → typed values → TarsK8S and Kubernetes
documents; the framework's TarsK8S documents go through the same mutate → validate → crd-mode
path as a user's stack. Certificates and node labels are edge concerns (CLI, Pulumi component).
"""

from __future__ import annotations

from .ca import CertificateAuthority
from .controller import build_controller, build_controller_with_ca, ca_secret
from .framework import FrameworkBuild, build_framework
from .values import ControllerValues, FrameworkValues, parse_values, values_from_mapping

__all__ = [
    "CertificateAuthority",
    "ControllerValues",
    "FrameworkBuild",
    "FrameworkValues",
    "build_controller",
    "build_controller_with_ca",
    "build_framework",
    "ca_secret",
    "parse_values",
    "values_from_mapping",
]
