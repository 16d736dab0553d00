"""The framework's Kubernetes objects: ServiceAccounts, RBAC, the tarsweb Ingress."""

from __future__ import annotations

from typing import Any

from ..models.kind_facts import RBAC_API
from .framework_common import INGRESS_NAME, TARSWEB
from .framework_documents import object_meta
from .values import FrameworkValues


def _rule(groups: list[str], resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": verbs}


ROLES: dict[str, list[dict[str, Any]]] = {
    "tars-tarsadminregistry": [_rule([""], ["pods"], ["get", "list", "watch"])],
    "tars-tarsconfig": [
        _rule([""], ["pods"], ["get", "list", "watch"]),
        _rule(["k8s.tars.io"], ["tconfigs"], ["get", "list", "watch"]),
    ],
    "tars-tarsimage": [
        _rule([""], ["secrets"], ["get"]),
        _rule([""], ["pods"], ["create", "get", "list", "watch", "delete"]),
        _rule(["k8s.tars.io"], ["timages"], ["get", "update", "patch"]),
        _rule(["k8s.tars.io"], ["tframeworkconfigs"], ["get", "list", "watch"]),
    ],
    "tars-tarsnotify": [_rule([""], ["pods"], ["get", "list", "watch"])],
    "tars-tarsregistry": [
        _rule([""], ["pods/status"], ["patch"]),
        _rule([""], ["configmaps"], ["get", "list", "watch"]),
        _rule(
            ["k8s.tars.io"],
            ["ttemplates", "tendpoints", "tframeworkconfigs", "tplugins"],
            ["get", "list", "watch"],
        ),
    ],
    TARSWEB: [
        _rule([""], ["pods"], ["get", "list", "delete"]),
        _rule([""], ["pods/exec"], ["create", "get"]),
        _rule(
            ["autoscaling"],
            ["horizontalpodautoscalers"],
            ["create", "get", "list", "watch", "patch", "update", "delete"],
        ),
        _rule(
            ["k8s.tars.io"],
            ["ttrees", "tframeworkconfigs"],
            ["get", "list", "watch", "patch", "update"],
        ),
        # chart bug fixed: no tdeploys, treleases, tgateways (no such CRDs in 1.4.1)
        _rule(
            ["k8s.tars.io"],
            [
                "tservers",
                "ttemplates",
                "tconfigs",
                "taccounts",
                "timages",
                "tframeworkkey",
                "tplugins",
            ],
            ["create", "get", "list", "delete", "watch", "patch", "update"],
        ),
        _rule(
            ["k8s.tars.io"],
            ["tendpoints", "tendpoints/status", "texitedrecords"],
            ["get", "list", "watch"],
        ),
    ],
}
"""Namespaced Roles (and RoleBindings to the same-named ServiceAccount)."""

CLUSTER_ROLES: dict[str, list[dict[str, Any]]] = {
    "tars-tarskevent": [_rule([""], ["events"], ["get", "list", "watch"])],
    TARSWEB: [_rule([""], ["nodes"], ["get", "list", "watch", "update", "patch"])],
}
"""ClusterRoles ``<namespace>:<name>`` (and bindings to the ServiceAccount ``<name>``)."""

SERVICE_ACCOUNTS = (
    "tars-tarsadminregistry",
    "tars-tarsconfig",
    "tars-tarsimage",
    "tars-tarskevent",
    "tars-tarsnotify",
    "tars-tarsregistry",
    TARSWEB,
)


def _subject(name: str, namespace: str) -> dict[str, Any]:
    return {"kind": "ServiceAccount", "name": name, "namespace": namespace}


def ingress(values: FrameworkValues, namespace: str) -> dict[str, Any]:
    """``tars-web`` → ``tars-tarsweb:3000``; no ``host`` when ``web`` is empty (every host)."""
    rule: dict[str, Any] = {}
    if values.web:
        rule["host"] = values.web
    rule["http"] = {
        "paths": [
            {
                "path": "/",
                "pathType": "Prefix",
                "backend": {"service": {"name": TARSWEB, "port": {"number": 3000}}},
            }
        ]
    }
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": object_meta(
            INGRESS_NAME,
            namespace,
            annotations={
                "nginx.ingress.kubernetes.io/proxy-body-size": "0",
                "nginx.ingress.kubernetes.io/proxy-connect-timeout": "60",
                "nginx.ingress.kubernetes.io/proxy-read-timeout": "1200",
                "nginx.ingress.kubernetes.io/proxy-send-timeout": "1200",
            },
        ),
        "spec": {"rules": [rule]},
    }


def kubernetes_objects(values: FrameworkValues, namespace: str) -> list[dict[str, Any]]:
    """ServiceAccounts, Roles, RoleBindings, ClusterRoles, ClusterRoleBindings, Ingress."""
    out: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": object_meta(name, namespace)}
        for name in SERVICE_ACCOUNTS
    ]
    for name, rules in ROLES.items():
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": "Role",
                "metadata": object_meta(name, namespace),
                "rules": rules,
            }
        )
    for name in ROLES:
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": "RoleBinding",
                "metadata": object_meta(name, namespace),
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
                "subjects": [_subject(name, namespace)],
            }
        )
    for name, rules in CLUSTER_ROLES.items():
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": "ClusterRole",
                "metadata": object_meta(f"{namespace}:{name}", None),
                "rules": rules,
            }
        )
    for name in CLUSTER_ROLES:
        out.append(
            {
                "apiVersion": RBAC_API,
                "kind": "ClusterRoleBinding",
                "metadata": object_meta(f"{namespace}:{name}", None),
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": f"{namespace}:{name}",
                },
                "subjects": [_subject(name, namespace)],
            }
        )
    out.append(ingress(values, namespace))
    return out
