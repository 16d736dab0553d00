"""tarsagent: the DaemonSet that binds tLocalVolume claims and cleans logs on every Tars node."""

from __future__ import annotations

from typing import Any

from ..models.vocabulary import LABEL_AGENT, LABEL_NODE
from .controller_common import cluster_role, meta, policy_rule, pull_secrets, service_account
from .values import ControllerValues


def agent_objects(values: ControllerValues) -> list[dict[str, Any]]:
    """tarsagent: ServiceAccount, ClusterRole(+Binding), ConfigMap, DaemonSet."""
    tlv = values.agent.tlv_in_host
    container = {
        "image": values.controller.image("tarsagent"),
        "imagePullPolicy": "Always",
        "name": "tars-agent",
        "env": [
            {"name": "NodeName", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
            {"name": "TLVInHost", "value": tlv},
        ],
        "volumeMounts": [
            {"mountPath": "/etc/tarsagent", "name": "etc-tarsagent-dir"},
            {"mountPath": "/etc/localtime", "name": "host-timezone", "readOnly": True},
            {"mountPath": "/usr/local/app/tars/app_log", "name": "host-log-dir"},
            {"mountPath": "/usr/local/app/tars/host-mount", "name": "host-mount-dir"},
        ],
    }
    pod_spec: dict[str, Any] = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": LABEL_NODE, "operator": "Exists", "values": []}
                            ]
                        }
                    ]
                }
            }
        },
        "serviceAccountName": "tars-agent",
        "containers": [container],
        "volumes": [
            {
                "configMap": {"defaultMode": 420, "name": "tars-agent", "optional": True},
                "name": "etc-tarsagent-dir",
            },
            {"hostPath": {"path": "/etc/localtime", "type": ""}, "name": "host-timezone"},
            {
                "hostPath": {"path": "/usr/local/app/tars/app_log", "type": "DirectoryOrCreate"},
                "name": "host-log-dir",
            },
            {"hostPath": {"path": tlv, "type": "DirectoryOrCreate"}, "name": "host-mount-dir"},
        ],
        **pull_secrets(values),
    }
    labels = {LABEL_AGENT: "true"}
    return [
        service_account("tars-agent"),
        *cluster_role(
            "tars-agent",
            [
                policy_rule([""], ["persistentvolumeclaims"], ["get", "list", "watch", "update"]),
                policy_rule(
                    [""], ["persistentvolumes"], ["get", "list", "watch", "update", "create"]
                ),
                policy_rule([""], ["nodes"], ["get", "list", "watch"]),
                policy_rule(["storage.k8s.io"], ["storageclasses"], ["get", "list", "watch"]),
            ],
        ),
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": meta("tars-agent"),
            "data": {
                "crontab.config": (
                    '0 3 * * * ? find /usr/local/app/tars/app_log/ -mtime +5 -name "*.log" '
                    "| xargs rm -f\n"
                    '0 3 * * * ? find /usr/local/app/tars/app_log/ -mtime +5 -name "core.*" '
                    "| xargs rm -f"
                )
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": meta("tars-agent", labels=dict(labels)),
            "spec": {
                "selector": {"matchLabels": dict(labels)},
                "template": {"metadata": {"labels": dict(labels)}, "spec": pod_spec},
            },
        },
    ]
