"""The DaemonSet of a server with ``daemonSet: true`` (docs/concepts/mapping.md)."""

from __future__ import annotations

from ..models import TFrameworkConfigDocument, TServerDocument, UpdateStrategyType
from ..settings.options import Options
from .labels import (
    DAEMONSET_MIN_READY_SECONDS,
    REVISION_HISTORY_LIMIT,
    selector_labels,
    workload_meta,
)
from .pod import build_pod_template
from .statefulset import rolling_partition


def build_daemonset_update_strategy(server: TServerDocument) -> dict[str, object]:
    """OnDelete as is; RollingUpdate gets ``maxUnavailable = max(partition, 1)``."""
    partition = rolling_partition(server)
    if partition is None:
        return {"type": UpdateStrategyType.ON_DELETE.value}
    return {
        "type": UpdateStrategyType.ROLLING_UPDATE.value,
        "rollingUpdate": {"maxUnavailable": max(partition, 1)},
    }


def build_daemonset(
    server: TServerDocument, framework: TFrameworkConfigDocument | None, options: Options
) -> dict[str, object] | None:
    """The DaemonSet, or None for a server without a release (it would only create pods with
    the placeholder image; TS023 warns)."""
    if server.spec.release is None:
        return None
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": workload_meta(server, options),
        "spec": {
            "selector": {"matchLabels": selector_labels(server)},
            "updateStrategy": build_daemonset_update_strategy(server),
            "minReadySeconds": DAEMONSET_MIN_READY_SECONDS,
            "revisionHistoryLimit": REVISION_HISTORY_LIMIT,
            "template": build_pod_template(server, framework, options, daemon=True),
        },
    }
