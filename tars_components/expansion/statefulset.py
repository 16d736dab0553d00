"""The StatefulSet of a server with ``daemonSet: false`` (docs/concepts/mapping.md): it carries
the ``pulumi.com/waitFor`` conditions of :mod:`.awaits` (unless ``skip_await``), and with the
TServer annotation ``tars-components.io/recreate: orphan``
``pulumi.com/deletionPropagationPolicy: orphan`` (docs/concepts/storage.md)."""

from __future__ import annotations

from ..models import TFrameworkConfigDocument, TServerDocument, UpdateStrategyType
from ..models.rollout import RolloutStep
from ..rules.storage import recreates_orphaned
from ..settings.options import Options, Workload
from .awaits import WAIT_FOR_ANNOTATION, statefulset_wait_for
from .labels import REVISION_HISTORY_LIMIT, selector_labels, workload_meta
from .pod import build_pod_template
from .volumes import build_claim_templates

ORPHAN_ANNOTATION = "pulumi.com/deletionPropagationPolicy"


def rolling_partition(server: TServerDocument) -> int | None:
    """The RollingUpdate partition of ``spec.k8s.updateStrategy``; None for OnDelete."""
    strategy = server.spec.k8s.update_strategy
    if strategy.type == UpdateStrategyType.ON_DELETE:
        return None
    return strategy.rolling_update.partition if strategy.rolling_update else 0


def build_update_strategy(
    server: TServerDocument, step: RolloutStep | None = None
) -> dict[str, object]:
    """``updateStrategy``: RollingUpdate with its partition (a negative one, which the CRD
    admits, as 0: Kubernetes refuses it and both update every pod); OnDelete without a
    rollingUpdate block (Kubernetes rejects both together)."""
    partition = rolling_partition(server)
    if partition is None:
        return {"type": UpdateStrategyType.ON_DELETE.value}
    rolling: dict[str, object] = {"partition": max(partition, 0)}
    if step is not None and step.rollout.max_unavailable:  # docs/concepts/rollout.md
        rolling["maxUnavailable"] = step.rollout.max_unavailable
    return {"type": UpdateStrategyType.ROLLING_UPDATE.value, "rollingUpdate": rolling}


def running_replicas(
    server: TServerDocument, options: Options, step: RolloutStep | None = None
) -> int:
    """The pods the workload runs: the TServer's replicas less the instances ``step``'s
    Rollout stops, except on a TApp, whose ``replicas`` counts its killed instances too."""
    replicas = server.spec.k8s.replicas
    if step is None or not step.rollout.stopped or options.workload == Workload.TAPP:
        return replicas
    return len(step.running)


def build_statefulset(
    server: TServerDocument,
    framework: TFrameworkConfigDocument | None,
    options: Options,
    step: RolloutStep | None = None,
) -> dict[str, object]:
    """The StatefulSet: replicas, policy, strategy (``step``: the Rollout step that holds the
    server, if any), pod template and claim templates."""
    k8s = server.spec.k8s
    replicas = running_replicas(server, options, step)
    spec: dict[str, object] = {
        "serviceName": server.name,
        "replicas": replicas,
        "selector": {"matchLabels": selector_labels(server)},
        "podManagementPolicy": k8s.pod_management_policy,
        "updateStrategy": build_update_strategy(server, step),
        "revisionHistoryLimit": REVISION_HISTORY_LIMIT,
        "template": build_pod_template(server, framework, options, daemon=False),
    }
    claims = build_claim_templates(server, options)
    if claims:
        spec["volumeClaimTemplates"] = claims
    metadata = workload_meta(server, options)
    annotations: dict[str, str] = {}
    if not options.skip_await:
        annotations[WAIT_FOR_ANNOTATION] = statefulset_wait_for(replicas, rolling_partition(server))
    if recreates_orphaned(server):
        # replaced without deleting its pods (docs/concepts/storage.md#recreate-keeping-the-pods)
        annotations[ORPHAN_ANNOTATION] = "orphan"
    if annotations:
        existing = metadata.get("annotations")
        metadata["annotations"] = {
            **(existing if isinstance(existing, dict) else {}),
            **annotations,
        }
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": metadata,
        "spec": spec,
    }
