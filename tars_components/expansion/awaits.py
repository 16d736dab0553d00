"""What ``pulumi up`` waits for on a StatefulSet: pulumi-kubernetes' ``pulumi.com/waitFor``
annotation (docs/pulumi/deploy.md#what-pulumi-up-waits-for).

pulumi-kubernetes' own StatefulSet await compares ``status.currentRevision`` with
``status.updateRevision`` and the ready count, but never ``status.observedGeneration`` with
the object's generation: right after an update, the status the StatefulSet controller wrote
for the *previous* generation (every pod current, every pod ready) satisfies it, and ``up``
returns before a single pod has moved. Seen on a real API server. The conditions here add
the generation, so only a status written for the applied spec counts.

Each condition is an RFC 9535 filter over the object's root (pulumi-kubernetes reads them
with ``github.com/theory/jsonpath``): it selects the root's members when the comparison holds
and nothing otherwise, and compares two fields of the live object, so a count an HPA or
``kubectl scale`` owns is read from the live ``spec.replicas``. The array form means every
condition must hold at once.
"""

from __future__ import annotations

import json
from functools import cache

WAIT_FOR_ANNOTATION = "pulumi.com/waitFor"
"""pulumi-kubernetes' custom readiness annotation: it replaces the built-in await (4.18.4 and
later), and its JSONPath is RFC 9535's from 4.24.0, the package's minimum."""

OBSERVED = "jsonpath={$[?$.status.observedGeneration == $.metadata.generation]}"
"""The StatefulSet controller has seen the applied spec."""

ROLLED = "jsonpath={$[?$.status.currentRevision == $.status.updateRevision]}"
"""Every pod runs the update revision (the controller moves ``currentRevision`` last)."""

COUNTED = "jsonpath={$[?$.status.replicas == $.spec.replicas]}"
"""As many pods as the spec asks (none left over from a scale-down)."""

READY = "jsonpath={$[?$.status.readyReplicas == $.spec.replicas || $.spec.replicas == 0]}"
"""Every pod ready (``readyReplicas`` is omitted at 0)."""


def statefulset_wait_for(replicas: int, partition: int | None) -> str:
    """The ``pulumi.com/waitFor`` value of a StatefulSet of ``replicas`` pods and RollingUpdate
    ``partition`` (None: OnDelete), as a JSON array.

    * partition 0: the roll is complete (:data:`ROLLED`), every pod counted and ready;
    * a partition above 0 (a Rollout's partial step, or one written in the TServer): at least
      the ``replicas - partition`` pods at or above it updated, every pod ready; the others
      stay on the current revision, so :data:`ROLLED` would never hold. At least, not
      exactly: pods a step back leaves on the new revision, or that an HPA adds above the
      partition while ``up`` waits, are updated too, and an equality would then never hold;
    * OnDelete: every pod counted and ready; pods move when someone deletes them.
    """
    return _conditions(replicas, partition)


@cache
def _conditions(replicas: int, partition: int | None) -> str:
    conditions = [OBSERVED]
    if partition is not None and partition > 0:
        updated = max(replicas - partition, 0)
        if updated:  # ``updatedReplicas`` is omitted at 0
            # ``> N-1``, not ``>= N``: pulumi-kubernetes splits a condition at a single "="
            conditions.append(f"jsonpath={{$[?$.status.updatedReplicas > {updated - 1}]}}")
    elif partition is not None:
        conditions.append(ROLLED)
    conditions += [COUNTED, READY]
    return json.dumps(conditions)


TSERVER_CONDITIONS = (
    "jsonpath={$[?$.status.replicas == $.spec.k8s.replicas]}",
    "jsonpath={$[?$.status.currentReplicas == $.spec.k8s.replicas]}",
    "jsonpath={$[?$.status.readyReplicas == $.spec.k8s.replicas || $.spec.k8s.replicas == 0]}",
)
"""A TServer's wait (crd mode, ``tars:awaitTServers``), on the status the TarsK8S v1.4.1
controller writes (``tserver.go``): ``replicas`` is the spec's count it has seen,
``currentReplicas`` the pods with the server's labels, ``readyReplicas`` those Ready. What it
cannot know: which release the pods run (the status has no revision and no observed
generation), so a status written before a release change, every pod Ready, holds at once."""


def tserver_wait_for() -> str:
    """The ``pulumi.com/waitFor`` value of a TServer custom resource, as a JSON array."""
    return json.dumps(list(TSERVER_CONDITIONS))


__all__ = [
    "COUNTED",
    "OBSERVED",
    "READY",
    "ROLLED",
    "TSERVER_CONDITIONS",
    "WAIT_FOR_ANNOTATION",
    "statefulset_wait_for",
    "tserver_wait_for",
]
