"""Facts about Kubernetes kinds, in one table: whether a kind is namespaced, the apiVersion
this project writes it with, where it keeps its replica count, and its typed
pulumi_kubernetes class (as a dotted path, so this module imports no Pulumi)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

RBAC_API = "rbac.authorization.k8s.io/v1"
"""The apiVersion of Role, RoleBinding, ClusterRole and ClusterRoleBinding."""


@dataclass(frozen=True)
class KindFacts:
    """What the project knows about one kind."""

    kind: str
    api_version: str | None
    """The apiVersion this project writes the kind with (None for a TarsK8S kind: the served
    version is chosen by the options)."""
    namespaced: bool = True
    replicas_path: str | None = None
    """Where the kind keeps the replica count that an HPA, ``kubectl scale`` or TarsWeb
    changes (the TServer CRD has a scale subresource on ``spec.k8s.replicas``)."""
    pulumi_class: str | None = None
    """The typed class under ``pulumi_kubernetes`` (``core.v1.Service``), when there is one."""


_TABLE = (
    KindFacts("Namespace", "v1", namespaced=False, pulumi_class="core.v1.Namespace"),
    KindFacts("ServiceAccount", "v1", pulumi_class="core.v1.ServiceAccount"),
    KindFacts("ConfigMap", "v1", pulumi_class="core.v1.ConfigMap"),
    KindFacts("Secret", "v1", pulumi_class="core.v1.Secret"),
    KindFacts("Service", "v1", pulumi_class="core.v1.Service"),
    KindFacts("Node", "v1", namespaced=False),
    KindFacts("PersistentVolume", "v1", namespaced=False),
    KindFacts("Deployment", "apps/v1", pulumi_class="apps.v1.Deployment"),
    KindFacts(
        "StatefulSet", "apps/v1", replicas_path="spec.replicas", pulumi_class="apps.v1.StatefulSet"
    ),
    KindFacts("DaemonSet", "apps/v1", pulumi_class="apps.v1.DaemonSet"),
    KindFacts("Role", RBAC_API, pulumi_class="rbac.v1.Role"),
    KindFacts("RoleBinding", RBAC_API, pulumi_class="rbac.v1.RoleBinding"),
    KindFacts("ClusterRole", RBAC_API, namespaced=False, pulumi_class="rbac.v1.ClusterRole"),
    KindFacts(
        "ClusterRoleBinding",
        RBAC_API,
        namespaced=False,
        pulumi_class="rbac.v1.ClusterRoleBinding",
    ),
    KindFacts(
        "StorageClass",
        "storage.k8s.io/v1",
        namespaced=False,
        pulumi_class="storage.v1.StorageClass",
    ),
    KindFacts("CSIDriver", "storage.k8s.io/v1", namespaced=False),
    KindFacts("CSINode", "storage.k8s.io/v1", namespaced=False),
    KindFacts("VolumeAttachment", "storage.k8s.io/v1", namespaced=False),
    KindFacts(
        "CustomResourceDefinition",
        "apiextensions.k8s.io/v1",
        namespaced=False,
        pulumi_class="apiextensions.v1.CustomResourceDefinition",
    ),
    KindFacts(
        "ValidatingWebhookConfiguration",
        "admissionregistration.k8s.io/v1",
        namespaced=False,
        pulumi_class="admissionregistration.v1.ValidatingWebhookConfiguration",
    ),
    KindFacts(
        "MutatingWebhookConfiguration",
        "admissionregistration.k8s.io/v1",
        namespaced=False,
        pulumi_class="admissionregistration.v1.MutatingWebhookConfiguration",
    ),
    KindFacts("Ingress", "networking.k8s.io/v1", pulumi_class="networking.v1.Ingress"),
    KindFacts("IngressClass", "networking.k8s.io/v1", namespaced=False),
    KindFacts("APIService", "apiregistration.k8s.io/v1", namespaced=False),
    KindFacts("CertificateSigningRequest", "certificates.k8s.io/v1", namespaced=False),
    KindFacts("ClusterIssuer", "cert-manager.io/v1", namespaced=False),
    KindFacts("PodSecurityPolicy", "policy/v1beta1", namespaced=False),
    KindFacts("PriorityClass", "scheduling.k8s.io/v1", namespaced=False),
    KindFacts("RuntimeClass", "node.k8s.io/v1", namespaced=False),
    KindFacts("TServer", None, replicas_path="spec.k8s.replicas"),
)

KIND_FACTS: dict[str, KindFacts] = {facts.kind: facts for facts in _TABLE}
"""Every kind the project knows facts about, by kind."""

CLUSTER_SCOPED_KINDS = frozenset(facts.kind for facts in _TABLE if not facts.namespaced)
"""Kinds without a namespace: a plain object of these kinds never gets the stack namespace."""

REPLICAS_PATHS: dict[str, str] = {
    facts.kind: facts.replicas_path for facts in _TABLE if facts.replicas_path is not None
}
"""Where each kind keeps the replica count that an HPA, ``kubectl scale`` or TarsWeb
changes."""

EXPANDED_KINDS = ("Service", "StatefulSet", "DaemonSet")
"""The built-in kinds that the expansion of a TServer emits."""


def api_version_of(kind: str, default: str) -> str:
    """The apiVersion this project writes ``kind`` with (``default`` for other kinds)."""
    facts = KIND_FACTS.get(kind)
    return facts.api_version if facts is not None and facts.api_version else default


def pulumi_class_path(
    api_version: str, kind: str, among: tuple[str, ...] | None = None
) -> str | None:
    """The dotted path of the typed pulumi_kubernetes class of ``api_version``/``kind`` (None
    when there is none, or when ``kind`` is not one of ``among``)."""
    facts = KIND_FACTS.get(kind)
    if facts is None or facts.api_version != api_version or (among and kind not in among):
        return None
    return facts.pulumi_class


def object_id(obj: Mapping[str, Any]) -> str:
    """``<apiVersion>/<kind>:<namespace>/<name>``, one line per object in stack outputs."""
    meta = obj.get("metadata") or {}
    return f"{obj['apiVersion']}/{obj['kind']}:{meta.get('namespace', 'default')}/{meta['name']}"


def object_of_id(item: str) -> dict[str, Any]:
    """The identity of an object from its :func:`object_id` (``apiVersion``, ``kind``,
    ``metadata.namespace`` and ``metadata.name``)."""
    left, _, where = item.rpartition(":")
    api_version, _, kind = left.rpartition("/")
    namespace, _, name = where.partition("/")
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"namespace": namespace, "name": name},
    }
