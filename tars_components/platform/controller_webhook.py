"""tarswebhook: the admission webhook, its CA Secret, Service and webhook configurations."""

from __future__ import annotations

import base64
from typing import Any

from ..models.vocabulary import CA_ANNOTATION, LABEL_APP, LABEL_SERVER, LABEL_WEBHOOK
from .ca import CERT_DIR, SECRET_NAME, CertificateAuthority
from .controller_common import (
    SYSTEM_NAMESPACE,
    WEBHOOK_SERVICE,
    cluster_role,
    lease_role,
    manager,
    meta,
    policy_rule,
    service_account,
)
from .values import ControllerValues


def ca_secret(ca: CertificateAuthority) -> dict[str, Any]:
    """The CA the webhook signs its serving certificate with (holds a private key)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": meta(SECRET_NAME),
        "type": "Opaque",
        "data": {
            "ca.crt": base64.b64encode(ca.cert_pem.encode()).decode(),
            "ca.key": base64.b64encode(ca.key_pem.encode()).decode(),
        },
    }


def webhook_objects(values: ControllerValues, ca_fingerprint: str) -> list[dict[str, Any]]:
    """tarswebhook: ServiceAccount, lease Role(+Binding), ClusterRole(+Binding), Service, and
    the Deployment with the CA Secret mounted over ``/etc/tarswebhook-cert``."""
    cert_volume = {
        "volumeMounts": [{"name": "webhook-ca", "mountPath": CERT_DIR, "readOnly": True}],
        "volumes": [
            {
                "name": "webhook-ca",
                "secret": {
                    "secretName": SECRET_NAME,
                    "defaultMode": 0o400,
                    "items": [
                        {"key": "ca.crt", "path": "ca.crt"},
                        {"key": "ca.key", "path": "ca.key"},
                    ],
                },
            }
        ],
    }
    return [
        service_account("tars-webhook"),
        *lease_role("tars-webhook"),
        *cluster_role(
            "tars-webhook",
            [
                policy_rule(["apps"], ["statefulsets", "daemonsets"], ["get", "list", "watch"]),
                policy_rule(
                    ["k8s.tars.io"],
                    ["tservers", "ttrees", "ttemplates", "timages", "tframeworkconfigs"],
                    ["get", "list", "watch"],
                ),
                policy_rule(
                    ["k8s.tars.io"], ["tconfigs"], ["get", "list", "watch", "patch", "update"]
                ),
            ],
        ),
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": meta(WEBHOOK_SERVICE),
            "spec": {
                "ports": [{"name": "webhook", "port": 443, "protocol": "TCP", "targetPort": 443}],
                "selector": {LABEL_WEBHOOK: "true"},
                "sessionAffinity": "ClientIP",
                "type": "ClusterIP",
            },
        },
        manager(
            values,
            "tars-webhook",
            LABEL_WEBHOOK,
            "tarswebhook",
            cert_volume,
            {CA_ANNOTATION: ca_fingerprint},
        ),
    ]


def _client(path: str, ca_bundle: str) -> dict[str, Any]:
    return {
        "caBundle": ca_bundle,
        "service": {"name": WEBHOOK_SERVICE, "namespace": SYSTEM_NAMESPACE, "path": path},
    }


def webhook_configurations(ca_bundle: str) -> list[dict[str, Any]]:
    """The validating and mutating webhook configurations of the chart, with the CA."""
    tars_versions = ["v1beta2", "v1beta3"]
    validating = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "tars-validating-webhook"},
        "webhooks": [
            {
                "name": "validating.crd.tars.io-0",
                "admissionReviewVersions": ["v1"],
                "clientConfig": _client("/validating", ca_bundle),
                "sideEffects": "None",
                "timeoutSeconds": 15,
                "failurePolicy": "Fail",
                "rules": [
                    {
                        "apiGroups": ["k8s.tars.io"],
                        "apiVersions": tars_versions,
                        "operations": ["CREATE", "UPDATE", "DELETE"],
                        "resources": ["ttrees", "tconfigs", "ttemplates"],
                        "scope": "Namespaced",
                    },
                    {
                        "apiGroups": ["k8s.tars.io"],
                        "apiVersions": tars_versions,
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["tservers", "taccounts"],
                        "scope": "Namespaced",
                    },
                ],
            },
            {
                "name": "validating.k8s.tars.io-0",
                "admissionReviewVersions": ["v1"],
                "clientConfig": _client("/validating", ca_bundle),
                "objectSelector": {
                    "matchExpressions": [
                        {"key": LABEL_APP, "operator": "Exists"},
                        {"key": LABEL_SERVER, "operator": "Exists"},
                    ]
                },
                "sideEffects": "None",
                "timeoutSeconds": 15,
                "matchPolicy": "Exact",
                "failurePolicy": "Fail",
                "rules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "resources": ["services"],
                        "operations": ["CREATE", "UPDATE"],
                        "scope": "Namespaced",
                    },
                    {
                        "apiGroups": ["apps"],
                        "apiVersions": ["v1"],
                        "resources": ["daemonsets", "statefulsets"],
                        "operations": ["CREATE", "UPDATE"],
                        "scope": "Namespaced",
                    },
                ],
            },
        ],
    }
    mutating = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "tars-mutating-webhook"},
        "webhooks": [
            {
                "name": "mutating.crd.tars.io",
                "admissionReviewVersions": ["v1"],
                "clientConfig": _client("/mutating", ca_bundle),
                "rules": [
                    {
                        "apiGroups": ["k8s.tars.io"],
                        "apiVersions": tars_versions,
                        "operations": ["CREATE", "UPDATE"],
                        "resources": [
                            "tservers",
                            "tconfigs",
                            "ttrees",
                            "taccounts",
                            "timages",
                            "ttemplates",
                        ],
                    }
                ],
                "sideEffects": "None",
                "timeoutSeconds": 15,
                "failurePolicy": "Fail",
            }
        ],
    }
    return [validating, mutating]
