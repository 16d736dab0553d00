"""Rules about the plain Kubernetes objects of a stack (passed through unchanged).

TX003: two objects with one apiVersion, kind, namespace and name would overwrite each other.
A collision with what a TServer's expansion creates is checked in expand mode by
:func:`tars_components.pipeline.check`. TX005 (crd mode): workloads the TarsK8S validating
webhook admits from its controller only.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..errors import Violation
from ..mutation import LABEL_APP, LABEL_SERVER
from ..stack import Stack
from .common import repeats, report


def check_objects(stack: Stack) -> Iterator[Violation]:
    """TX003 among the plain objects."""
    for later, first in repeats(
        stack.objects, lambda o: (o.api_version, o.kind, o.namespace, o.name)
    ):
        where = f" ({first.source.file})" if first.source else ""
        yield report(
            later,
            "TX003",
            "metadata.name",
            f"{later.kind} {later.namespace}/{later.name} is already defined{where}",
        )


# What v1.4.1's ``validating.k8s.tars.io-0`` webhook intercepts (matchPolicy Exact) for objects
# labelled with both server labels: its CREATE handlers refuse any user but the controller.
_CONTROLLER_ONLY = {("v1", "Service"), ("apps/v1", "StatefulSet"), ("apps/v1", "DaemonSet")}


def controller_only_objects(stack: Stack) -> Iterator[Violation]:
    """TX005 (crd mode): a plain Service, StatefulSet or DaemonSet labelled with both
    ``tars.io/ServerApp`` and ``tars.io/ServerName``, which the cluster refuses to create."""
    for obj in stack.objects:
        if (obj.api_version, obj.kind) not in _CONTROLLER_ONLY:
            continue
        labels = (obj.body.get("metadata") or {}).get("labels") or {}
        if LABEL_APP in labels and LABEL_SERVER in labels:
            yield report(
                obj,
                "TX005",
                "metadata.labels",
                f"the TarsK8S webhook refuses to create a {obj.kind} labelled "
                f'{LABEL_APP} and {LABEL_SERVER} ("only use authorized account '
                f'can create {obj.kind.lower()}"): only the controller builds it from a '
                "TServer; declare the TServer, or drop one of the labels",
            )
