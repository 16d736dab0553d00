"""The OpenKruise Advanced StatefulSet of a server (``--workload kruise``,
docs/concepts/rollout.md).

The StatefulSet of :mod:`.statefulset` (the same pod template, claim templates, selector and
partition) as ``apps.kruise.io/v1beta1`` ``StatefulSet``, with what in-place updates need: the
RollingUpdate strategy's ``podUpdatePolicy: InPlaceIfPossible`` (an image-only change restarts
the container in its pod instead of recreating the pod) and the ``InPlaceUpdateReady``
readiness gate on the pod template (Kruise marks the pod not ready while it updates it in
place). A Rollout's stopped instances become ``reserveOrdinals`` (and leave ``replicas``).
It waits only at a partial step, for the step's pods (its controller's status has the
StatefulSet's counters; docs/concepts/rollout.md#workload-engines).
"""

from __future__ import annotations

from typing import Any

from ..models import TFrameworkConfigDocument, TServerDocument
from ..models.rollout import RolloutStep
from ..settings.options import Options
from .awaits import WAIT_FOR_ANNOTATION, statefulset_wait_for
from .statefulset import build_statefulset, rolling_partition

KRUISE_API_VERSION = "apps.kruise.io/v1beta1"
"""The apiVersion of OpenKruise's Advanced StatefulSet."""

IN_PLACE_UPDATE_READY = "InPlaceUpdateReady"
"""The readiness gate OpenKruise sets to False while it updates a pod in place."""

IN_PLACE_IF_POSSIBLE = "InPlaceIfPossible"
"""Update in place what can be (images, some metadata); recreate the pod otherwise."""


def build_advanced_statefulset(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None,
    options: Options,
    step: RolloutStep | None = None,
) -> dict[str, object]:
    """The Advanced StatefulSet: the StatefulSet's fields plus the in-place update policy,
    its readiness gate and the reserved ordinals of the instances ``step``'s Rollout stops."""
    statefulset = build_statefulset(server, framework, options, step)
    spec: dict[str, Any] = dict(statefulset["spec"])  # type: ignore[call-overload]
    strategy = spec["updateStrategy"]
    if "rollingUpdate" in strategy:
        rolling = {**strategy["rollingUpdate"], "podUpdatePolicy": IN_PLACE_IF_POSSIBLE}
        spec["updateStrategy"] = {**strategy, "rollingUpdate": rolling}
    template = dict(spec["template"])
    pod = dict(template["spec"])
    gates = list(pod.get("readinessGates") or [])
    gates.append({"conditionType": IN_PLACE_UPDATE_READY})
    pod["readinessGates"] = gates
    template["spec"] = pod
    spec["template"] = template
    stopped = step.rollout.stopped if step is not None else ()
    if stopped:  # ``replicas`` already leaves them out (:func:`.running_replicas`)
        spec["reserveOrdinals"] = list(stopped)
    return {
        "apiVersion": KRUISE_API_VERSION,
        "kind": "StatefulSet",
        "metadata": _metadata(statefulset["metadata"], server, int(spec["replicas"])),
        "spec": spec,
    }


def _metadata(metadata: object, server: TServerDocument, replicas: int) -> dict[str, Any]:
    """The StatefulSet's metadata, its wait conditions kept only at a partial step and
    counted on the Advanced StatefulSet's own ``replicas``."""
    meta: dict[str, Any] = dict(metadata)  # type: ignore[call-overload]
    annotations = dict(meta.get("annotations") or {})
    if WAIT_FOR_ANNOTATION in annotations:
        partition = rolling_partition(server)
        if partition is not None and partition > 0:
            annotations[WAIT_FOR_ANNOTATION] = statefulset_wait_for(replicas, partition)
        else:
            del annotations[WAIT_FOR_ANNOTATION]
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    return meta


__all__ = ["IN_PLACE_UPDATE_READY", "KRUISE_API_VERSION", "build_advanced_statefulset"]
