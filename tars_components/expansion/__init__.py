"""TServer → Kubernetes objects (docs/concepts/mapping.md), as plain dicts.

One builder module per output object, like the TarsK8S translator: ``service``,
``statefulset``, ``daemonset``, ``pod`` (with ``ports``, ``volumes``, ``affinity``). Every
function here is pure: the same stack and options always give the same objects, in the same
order (per server, in load order: Service, then StatefulSet or DaemonSet).
"""

from __future__ import annotations

from typing import Any

from ..loading.document_set import DocumentSet
from ..loading.rollout import step_of
from ..models import TFrameworkConfigDocument, TServerDocument
from ..mutation import mutate, mutate_server
from ..settings.options import Options, Workload
from .crd import (
    conversion_violations,
    convert,
    crd_document,
    crd_documents,
    refused_statefulset_violations,
)
from .daemonset import build_daemonset
from .kruise import build_advanced_statefulset
from .rollout import apply_rollouts
from .service import build_service
from .statefulset import build_statefulset
from .tapp import build_tapp


def expand(stack: DocumentSet, options: Options = Options()) -> list[dict[str, Any]]:
    """Every Kubernetes object of a stack (expand mode). Mutation is applied first; it is
    idempotent, so an already mutated stack gives the same result. The Rollouts are applied
    before (:func:`~tars_components.expansion.rollout.apply_rollouts`)."""
    mutated = mutate(apply_rollouts(stack))
    objects: list[dict[str, Any]] = []
    for server in mutated.servers:
        objects.extend(_expand_mutated(server, mutated.framework(server.namespace), options))
    return objects


def expand_server(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None = None,
    options: Options = Options(),
) -> list[dict[str, Any]]:
    """The objects of one TServer: its Service (none for DaemonSet servers), then its
    StatefulSet or DaemonSet (none for a DaemonSet server without a release).

    ``framework`` is the namespace's ``tars-framework`` config (default tarsnode image and
    pull secret).
    """
    return _expand_mutated(mutate_server(server, framework), framework, options)


def _expand_mutated(
    server: TServerDocument, framework: TFrameworkConfigDocument | None, options: Options
) -> list[dict[str, Any]]:
    step = step_of(server.source)  # the Rollout step that holds the server, if any
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


__all__ = [
    "conversion_violations",
    "convert",
    "crd_document",
    "crd_documents",
    "expand",
    "expand_server",
    "refused_statefulset_violations",
]
