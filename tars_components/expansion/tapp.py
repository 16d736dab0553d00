"""The tkestack TApp of a server (``--workload tapp``, docs/concepts/rollout.md).

``apps.tkestack.io/v1`` ``TApp`` (fields of the TApp Go types: ``replicas``, ``selector``,
``template``, ``templatePool``, ``templates``, ``statuses``, ``serviceName``,
``volumeClaimTemplates``) built from the same pod template and claim templates as the
StatefulSet of :mod:`.statefulset`. Instances are ids ``"0"`` to ``"R-1"``, as StatefulSet
ordinals. At a partial Rollout step the default ``template`` is the stable release and the
canary instances (ids at or above the partition) take the TServer's release through
``templatePool`` (one template named after the release id) and ``templates``; TApp updates an
instance in place when only its image changes. Stopped instances are ``statuses: Killed``.
Without a Rollout, at its last step, or on abort, the ``template`` is the release to run and
there is no pool.
"""

from __future__ import annotations

from typing import Any

from ..models import TFrameworkConfigDocument, TServerDocument
from ..models.rollout import RolloutStep
from ..settings.options import Options
from .awaits import WAIT_FOR_ANNOTATION
from .pod import build_pod_template
from .statefulset import build_statefulset

TAPP_API_VERSION = "apps.tkestack.io/v1"
"""The apiVersion of tkestack's TApp."""

KILLED = "Killed"
"""The desired instance status that stops one instance (``spec.statuses``)."""

CANARY_TEMPLATE = "canary"
"""The pool template's name when the release id is not known yet (a Pulumi Output)."""


def build_tapp(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None,
    options: Options,
    step: RolloutStep | None = None,
) -> dict[str, object]:
    """The TApp of a StatefulSet server (see the module docstring), at ``step`` of its
    Rollout, if one holds it."""
    statefulset = build_statefulset(server, framework, options, step)
    source: dict[str, Any] = dict(statefulset["spec"])  # type: ignore[call-overload]
    spec: dict[str, Any] = {
        "replicas": source["replicas"],
        "selector": source["selector"],
        "template": source["template"],
        "serviceName": source["serviceName"],
    }
    if "volumeClaimTemplates" in source:
        spec["volumeClaimTemplates"] = source["volumeClaimTemplates"]
    if step is not None:
        _canary(spec, server, framework, options, step)
        if step.rollout.stopped:
            spec["statuses"] = {str(ordinal): KILLED for ordinal in step.rollout.stopped}
        if step.rollout.max_unavailable:
            spec["updateStrategy"] = {"maxUnavailable": step.rollout.max_unavailable}
    meta = dict(statefulset["metadata"])  # type: ignore[call-overload]
    # a TApp has no status.updatedReplicas to wait for: no pulumi.com/waitFor
    annotations = {
        k: v for k, v in (meta.pop("annotations", None) or {}).items() if k != WAIT_FOR_ANNOTATION
    }
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": TAPP_API_VERSION, "kind": "TApp", "metadata": meta, "spec": spec}


def _canary(
    spec: dict[str, Any],
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None,
    options: Options,
    step: RolloutStep,
) -> None:
    """A partial step: the stable template by default, the release's for ids ≥ partition."""
    release, rollout = server.spec.release, step.rollout
    if release is None or rollout.abort or step.partition <= 0:
        return
    stable_release = release.model_copy(
        update={"id": rollout.stable_id, "image": rollout.stable_image}
    )
    stable = server.model_copy(
        update={"spec": server.spec.model_copy(update={"release": stable_release})}
    )
    name = release.id if isinstance(release.id, str) else CANARY_TEMPLATE
    spec["templatePool"] = {name: spec["template"]}
    spec["template"] = build_pod_template(stable, framework, options, daemon=False)
    spec["templates"] = {str(i): name for i in step.updated}


__all__ = ["KILLED", "TAPP_API_VERSION", "build_tapp"]
