"""What the parts of the ``tarscontroller`` chart share: its namespace and names, metadata, RBAC
roles and the managers' Deployment."""

from __future__ import annotations

from typing import Any

from ..models.kind_facts import RBAC_API
from .values import ControllerValues

SYSTEM_NAMESPACE = "tars-system"
WEBHOOK_SERVICE = "tars-webhook-service"


def meta(name: str, namespace: str | None = SYSTEM_NAMESPACE, **extra: Any) -> dict[str, Any]:
    """``metadata`` with ``name``, the namespace (``tars-system`` unless None) and ``extra``."""
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    meta.update(extra)
    return meta


def policy_rule(groups: list[str], resources_: list[str], verbs: list[str]) -> dict[str, Any]:
    """One RBAC PolicyRule."""
    return {"apiGroups": groups, "resources": resources_, "verbs": verbs}


def subjects(name: str) -> list[dict[str, Any]]:
    """The ServiceAccount ``name`` of ``tars-system`` as the only subject of a binding."""
    return [{"kind": "ServiceAccount", "name": name, "namespace": SYSTEM_NAMESPACE}]


def cluster_role(name: str, rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ClusterRole ``tars-system:<name>`` with ``rules``, bound to ServiceAccount ``name``."""
    full = f"{SYSTEM_NAMESPACE}:{name}"
    return [
        {
            "apiVersion": RBAC_API,
            "kind": "ClusterRole",
            "metadata": meta(full, None),
            "rules": rules,
        },
        {
            "apiVersion": RBAC_API,
            "kind": "ClusterRoleBinding",
            "metadata": meta(full, None),
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": full,
            },
            "subjects": subjects(name),
        },
    ]


def lease_role(name: str) -> list[dict[str, Any]]:
    """Role ``name`` on leader-election leases and its binding to ServiceAccount ``name``."""
    return [
        {
            "apiVersion": RBAC_API,
            "kind": "Role",
            "metadata": meta(name),
            "rules": [
                policy_rule(
                    ["coordination.k8s.io"],
                    ["leases"],
                    ["create", "get", "list", "watch", "patch", "update"],
                )
            ],
        },
        {
            "apiVersion": RBAC_API,
            "kind": "RoleBinding",
            "metadata": meta(name),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": subjects(name),
        },
    ]


def service_account(name: str) -> dict[str, Any]:
    """ServiceAccount ``name`` in ``tars-system``."""
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(name)}


def pull_secrets(values: ControllerValues) -> dict[str, Any]:
    """``imagePullSecrets`` of the controller values' secret, or nothing."""
    secret = values.controller.secret
    return {"imagePullSecrets": [{"name": secret}]} if secret else {}


def manager(
    values: ControllerValues,
    name: str,
    label: str,
    image: str,
    extra_pod: dict[str, Any] | None = None,
    pod_annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The one-replica Deployment ``<name>-manger`` the chart runs its managers with."""
    container: dict[str, Any] = {
        "image": values.controller.image(image),
        "imagePullPolicy": "Always",
        "name": name,
    }
    pod_spec: dict[str, Any] = {
        "containers": [container],
        "enableServiceLinks": False,
        "restartPolicy": "Always",
        "serviceAccountName": name,
    }
    if extra_pod:
        mounts = extra_pod.get("volumeMounts")
        if mounts:
            container["volumeMounts"] = mounts
        if extra_pod.get("volumes"):
            pod_spec["volumes"] = extra_pod["volumes"]
    pod_spec.update(pull_secrets(values))
    template_meta: dict[str, Any] = {"name": name, "labels": {label: "true"}}
    if pod_annotations:
        template_meta["annotations"] = pod_annotations
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta(f"{name}-manger"),  # sic: the chart's name, kept for upgrades
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {label: "true"}},
            "template": {"metadata": template_meta, "spec": pod_spec},
        },
    }
