"""Prepared documents → Kubernetes objects (docs/concepts/mapping.md), as plain dicts.

One builder module per output object, like the TarsK8S translator: ``service``,
``statefulset``, ``daemonset``, ``pod`` (with ``ports``, ``volumes``, ``affinity``), ``crd``
for the custom resources. The builders take what :mod:`tars_components.stages` prepared
(documents admitted, each Rollout step as an argument) and run no stage themselves. Every
function here is pure: the same input always gives the same objects, in the same order (per
server, in load order: Service, then StatefulSet or DaemonSet).
"""

from __future__ import annotations

from typing import Any

from ..kernel.deprecation import moved_attributes
from ..models import TFrameworkConfigDocument, TServerDocument
from ..models.rollout import RolloutStep
from ..settings.options import Options, Workload
from ..stages import Prepared
from .crd import (
    conversion_violations,
    convert,
    crd_document,
    custom_resources,
    refused_statefulset_violations,
)
from .daemonset import build_daemonset
from .kruise import build_advanced_statefulset
from .service import build_service
from .statefulset import build_statefulset
from .tapp import build_tapp


def workload_objects(prepared: Prepared, options: Options = Options()) -> list[dict[str, Any]]:
    """Every Kubernetes object of a prepared stack's TServers (expand mode), per server in
    load order (:func:`server_objects`)."""
    stack = prepared.stack
    objects: list[dict[str, Any]] = []
    for server in stack.servers:
        objects.extend(
            server_objects(
                server, stack.framework(server.namespace), options, prepared.step(server)
            )
        )
    return objects


def server_objects(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None = None,
    options: Options = Options(),
    step: RolloutStep | None = None,
) -> list[dict[str, Any]]:
    """The objects of one admitted TServer (:func:`tars_components.stages.prepare_server`):
    its Service (none for DaemonSet servers), then its StatefulSet or DaemonSet (none for a
    DaemonSet server without a release). ``framework`` is the namespace's ``tars-framework``
    config (default tarsnode image and pull secret), ``step`` the Rollout step that holds the
    server, if any."""
    objects: list[dict[str, Any]] = []
    service = build_service(server)
    if service is not None:
        objects.append(service)
    if server.spec.k8s.daemon_set:
        daemonset = build_daemonset(server, framework, options)
        if daemonset is not None:
            objects.append(daemonset)
    else:
        objects.append(_WORKLOADS[Workload(options.workload)](server, framework, options, step))
    return objects


_WORKLOADS = {
    Workload.STATEFULSET: build_statefulset,
    Workload.KRUISE: build_advanced_statefulset,
    Workload.TAPP: build_tapp,
}
"""The builder of a StatefulSet server's workload per engine (``--workload``)."""


# The builders take prepared documents; the compositions of one call moved up to the pipeline.
__getattr__ = moved_attributes(
    __name__,
    {
        "crd_documents": "tars_components.pipeline",
        "expand": "tars_components.pipeline",
        "expand_server": "tars_components.pipeline",
    },
)

__all__ = [
    "conversion_violations",
    "convert",
    "crd_document",
    "custom_resources",
    "refused_statefulset_violations",
    "server_objects",
    "workload_objects",
]
