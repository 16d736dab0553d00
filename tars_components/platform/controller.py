"""The ``tarscontroller`` 1.4.1 chart as a pure builder: values and a CA → documents.

Same objects as the chart (namespace ``tars-system``, the eleven CRDs, StorageClass, the
controller, webhook and tarsagent with their RBAC, the webhook Service and configurations)
plus the CA Secret, with these differences:

* the CRDs are built from the project's models (:mod:`tars_components.crds`); ``docs/crds.md``
  lists where their schemas differ from the chart's;

* every ``caBundle`` (both webhook configurations, the TServer and TFrameworkConfig conversion
  webhooks) is the installation's own CA, and the webhook Deployment mounts that CA's Secret
  (``ca.crt``, PKCS#1 ``ca.key``) over ``/etc/tarswebhook-cert``, where the image's built-in,
  public CA would otherwise be read; its pod template is annotated with the CA's fingerprint
  so that a new CA restarts the webhook (it reads the CA only at start-up);
* API versions are the current ones (the chart's already are: apiextensions.k8s.io/v1,
  admissionregistration.k8s.io/v1, ...), for Kubernetes 1.25 and newer; ``deprecated`` and
  ``deprecationWarning`` of the old CRD versions are always written (the chart writes them
  from Kubernetes 1.19 on).
"""

from __future__ import annotations

import base64
import copy
from functools import cache
from typing import Any

from ..crds import CRD_KINDS as CRD_SPECS
from ..crds import crd_document
from ..models.kind_facts import RBAC_API
from .ca import CERT_DIR, SECRET_NAME, CertificateAuthority
from .values import ControllerValues

SYSTEM_NAMESPACE = "tars-system"
WEBHOOK_SERVICE = "tars-webhook-service"
CA_ANNOTATION = "tars.io/webhook-ca-sha256"
_STORAGE_FALLBACK = frozenset({"TFrameworkConfig", "TFrameworkKey"})
"""CRDs without a v1beta1 version: the chart stores them as v1beta3 when crds.storage is
v1beta1."""


@cache
def _crd_template(kind: str) -> dict[str, Any]:
    return crd_document(next(spec for spec in CRD_SPECS if spec.kind == kind))


def crd(kind: str, values: ControllerValues, ca_bundle: str) -> dict[str, Any]:
    """One CRD of the chart with ``served``/``storage`` from ``crds.servers``/``crds.storage``
    (exactly as the chart's templates compute them) and the CA in its conversion webhook."""
    doc = copy.deepcopy(_crd_template(kind))
    servers, storage = values.crds.servers, values.crds.storage
    versions = []
    for version in doc["spec"]["versions"]:
        name = version["name"]
        stored = name == storage or (
            kind in _STORAGE_FALLBACK and name == "v1beta3" and storage == "v1beta1"
        )
        rest = {k: v for k, v in version.items() if k != "name"}
        versions.append({"name": name, "served": name in servers, "storage": stored, **rest})
    doc["spec"]["versions"] = versions
    conversion = doc["spec"].get("conversion") or {}
    if conversion.get("strategy") == "Webhook":
        conversion["webhook"]["clientConfig"]["caBundle"] = ca_bundle
    return doc


CRD_KINDS = tuple(spec.kind for spec in CRD_SPECS)


def crds(values: ControllerValues, ca_bundle: str) -> list[dict[str, Any]]:
    """The eleven CRDs, in kind order."""
    return [crd(kind, values, ca_bundle) for kind in CRD_KINDS]


def _meta(name: str, namespace: str | None = SYSTEM_NAMESPACE, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    meta.update(extra)
    return meta


def _rule(groups: list[str], resources_: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources_, "verbs": verbs}


def _subjects(name: str) -> list[dict[str, Any]]:
    return [{"kind": "ServiceAccount", "name": name, "namespace": SYSTEM_NAMESPACE}]


def _cluster_role(name: str, rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    full = f"{SYSTEM_NAMESPACE}:{name}"
    return [
        {
            "apiVersion": RBAC_API,
            "kind": "ClusterRole",
            "metadata": _meta(full, None),
            "rules": rules,
        },
        {
            "apiVersion": RBAC_API,
            "kind": "ClusterRoleBinding",
            "metadata": _meta(full, None),
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": full,
            },
            "subjects": _subjects(name),
        },
    ]


def _lease_role(name: str) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": RBAC_API,
            "kind": "Role",
            "metadata": _meta(name),
            "rules": [
                _rule(
                    ["coordination.k8s.io"],
                    ["leases"],
                    ["create", "get", "list", "watch", "patch", "update"],
                )
            ],
        },
        {
            "apiVersion": RBAC_API,
            "kind": "RoleBinding",
            "metadata": _meta(name),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": _subjects(name),
        },
    ]


def _service_account(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(name)}


def _pull_secrets(values: ControllerValues) -> dict[str, Any]:
    secret = values.controller.secret
    return {"imagePullSecrets": [{"name": secret}]} if secret else {}


def _manager(
    values: ControllerValues,
    name: str,
    label: str,
    image: str,
    extra_pod: dict[str, Any] | None = None,
    pod_annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
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
    pod_spec.update(_pull_secrets(values))
    template_meta: dict[str, Any] = {"name": name, "labels": {label: "true"}}
    if pod_annotations:
        template_meta["annotations"] = pod_annotations
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(f"{name}-manger"),  # sic: the chart's name, kept for upgrades
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {label: "true"}},
            "template": {"metadata": template_meta, "spec": pod_spec},
        },
    }


def namespace_object() -> dict[str, Any]:
    """``tars-system`` (the chart adopts a live one instead of creating it)."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": SYSTEM_NAMESPACE, "labels": {"name": SYSTEM_NAMESPACE}},
    }


def storage_class() -> dict[str, Any]:
    """``tars-storage-class``: tLocalVolume claims, bound by tarsagent (no provisioner)."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "tars-storage-class"},
        "provisioner": "kubernetes.io/no-provisioner",
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
    }


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
                                {"key": "tars.io/node", "operator": "Exists", "values": []}
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
        **_pull_secrets(values),
    }
    labels = {"tars.io/Agent": "true"}
    return [
        _service_account("tars-agent"),
        *_cluster_role(
            "tars-agent",
            [
                _rule([""], ["persistentvolumeclaims"], ["get", "list", "watch", "update"]),
                _rule([""], ["persistentvolumes"], ["get", "list", "watch", "update", "create"]),
                _rule([""], ["nodes"], ["get", "list", "watch"]),
                _rule(["storage.k8s.io"], ["storageclasses"], ["get", "list", "watch"]),
            ],
        ),
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta("tars-agent"),
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
            "metadata": _meta("tars-agent", labels=dict(labels)),
            "spec": {
                "selector": {"matchLabels": dict(labels)},
                "template": {"metadata": {"labels": dict(labels)}, "spec": pod_spec},
            },
        },
    ]


def controller_objects(values: ControllerValues) -> list[dict[str, Any]]:
    """tarscontroller: ServiceAccount, lease Role(+Binding), ClusterRole(+Binding), Deployment."""
    crud = ["create", "get", "list", "delete", "watch", "patch", "update", "deletecollection"]
    return [
        _service_account("tars-controller"),
        *_lease_role("tars-controller"),
        *_cluster_role(
            "tars-controller",
            [
                _rule([""], ["services", "persistentvolumeclaims"], crud),
                _rule([""], ["pods", "pods/status"], ["list", "get", "watch"]),
                _rule([""], ["events"], ["create"]),
                _rule([""], ["nodes"], ["get", "list", "watch", "patch", "update"]),
                _rule(["apps"], ["statefulsets", "daemonsets"], crud),
                _rule(
                    ["k8s.tars.io"],
                    ["ttrees", "ttemplates", "timages", "tframeworkconfigs"],
                    ["get", "list", "watch", "patch", "update"],
                ),
                _rule(
                    ["k8s.tars.io"],
                    [
                        "taccounts",
                        "tconfigs",
                        "tservers",
                        "tservers/status",
                        "texitedrecords",
                        "tendpoints",
                        "tendpoints/status",
                    ],
                    crud,
                ),
            ],
        ),
        _manager(values, "tars-controller", "tars.io/Controller", "tarscontroller"),
    ]


def ca_secret(ca: CertificateAuthority) -> dict[str, Any]:
    """The CA the webhook signs its serving certificate with (holds a private key)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": _meta(SECRET_NAME),
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
        _service_account("tars-webhook"),
        *_lease_role("tars-webhook"),
        *_cluster_role(
            "tars-webhook",
            [
                _rule(["apps"], ["statefulsets", "daemonsets"], ["get", "list", "watch"]),
                _rule(
                    ["k8s.tars.io"],
                    ["tservers", "ttrees", "ttemplates", "timages", "tframeworkconfigs"],
                    ["get", "list", "watch"],
                ),
                _rule(["k8s.tars.io"], ["tconfigs"], ["get", "list", "watch", "patch", "update"]),
            ],
        ),
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(WEBHOOK_SERVICE),
            "spec": {
                "ports": [{"name": "webhook", "port": 443, "protocol": "TCP", "targetPort": 443}],
                "selector": {"tars.io/Webhook": "true"},
                "sessionAffinity": "ClientIP",
                "type": "ClusterIP",
            },
        },
        _manager(
            values,
            "tars-webhook",
            "tars.io/Webhook",
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
                        {"key": "tars.io/ServerApp", "operator": "Exists"},
                        {"key": "tars.io/ServerName", "operator": "Exists"},
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


def build_controller(
    values: ControllerValues, ca_bundle: str, ca_fingerprint: str
) -> list[dict[str, Any]]:
    """Every object of the ``tarscontroller`` chart except the CA Secret (see
    :func:`ca_secret`), in apply order: CRDs, Namespace, StorageClass, agent, controller,
    webhook, webhook configurations. ``ca_bundle`` is the base64 CA certificate,
    ``ca_fingerprint`` its SHA-256 (see :class:`CertificateAuthority`)."""
    return [
        *crds(values, ca_bundle),
        namespace_object(),
        storage_class(),
        *agent_objects(values),
        *controller_objects(values),
        *webhook_objects(values, ca_fingerprint),
        *webhook_configurations(ca_bundle),
    ]


def build_controller_with_ca(
    values: ControllerValues, ca: CertificateAuthority
) -> list[dict[str, Any]]:
    """:func:`build_controller` plus the CA Secret (after the Namespace), for offline render."""
    objects = build_controller(values, ca.ca_bundle, ca.fingerprint)
    at = next(i for i, o in enumerate(objects) if o["kind"] == "Namespace") + 1
    return [*objects[:at], ca_secret(ca), *objects[at:]]
