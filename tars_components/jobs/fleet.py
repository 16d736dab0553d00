"""The clusters of an environment as a deployment finds them (docs/concepts/clusters.md): the
inventory read from a management cluster (its Stellaris ``Cluster`` objects), each cluster's
credentials from its ``secretRef`` Secret there, whether its API server answers, and what a
cluster skipped under ``tars:unavailableClusters: skip`` may be left as.

:func:`read_management` and :func:`probe` talk to API servers (through
:mod:`tars_components.kubeapi`); :func:`secret_field` and :func:`skip_problems` are pure.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..kernel.errors import Violation
from ..kubeapi import (
    ApiClient,
    Connection,
    LiveReadError,
    connection,
    connection_from_text,
    resource_path,
)
from ..loading.clusters import management_clusters
from ..models.cluster import (
    CLUSTER_KIND,
    STELLARIS_API_VERSION,
    Cluster,
    ManagementCluster,
    SecretReference,
)

PROBE_TIMEOUT = 5.0
"""Seconds a cluster's API server has to answer the preview's probe."""


@dataclass(frozen=True)
class ManagementRead:
    """What the management cluster holds for an environment: its clusters (by name), the
    problems of their objects (TM001-TM003), the credentials each ``secretRef`` Secret gave
    (cluster name to text: a kubeconfig or a token) and, for the others, why not."""

    clusters: tuple[Cluster, ...] = ()
    violations: list[Violation] = field(default_factory=list)
    secrets: Mapping[str, str] = field(default_factory=dict)
    missing: Mapping[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:  # credentials never printed
        return f"ManagementRead(clusters={[c.name for c in self.clusters]!r})"


def read_management(
    management: ManagementCluster,
    kubeconfig: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> ManagementRead:
    """The Stellaris ``Cluster`` objects of the management cluster (those its label selector
    picks) and each one's credentials from its ``secretRef`` Secret, reached with
    ``kubeconfig`` (the text of ``tars:<kubeconfig_key>``) or the kubeconfig's context.
    Raises :class:`LiveReadError` when the management cluster cannot be read or holds no
    Cluster for this environment."""
    where = management.described
    if management.kubeconfig_key is not None:
        if kubeconfig is None:
            raise LiveReadError(f"{where}: tars:{management.kubeconfig_key} is not set")
        conn = connection_from_text(kubeconfig, f"tars:{management.kubeconfig_key}")
    else:
        conn = connection(management.context, environ)
    client = ApiClient(conn)
    try:
        items = client.list(STELLARIS_API_VERSION, CLUSTER_KIND, None, management.label_selector)
    except LiveReadError as exc:
        raise LiveReadError(f"{where}: {exc}") from None
    if not items:
        picked = f" with labels {management.label_selector}" if management.label_selector else ""
        raise LiveReadError(
            f"{where}: no Stellaris Cluster ({STELLARIS_API_VERSION}){picked}: the environment "
            "has no cluster to deploy to"
        )
    items.sort(key=lambda item: str((item.get("metadata") or {}).get("name", "")))
    clusters, violations = management_clusters(items, where)
    secrets: dict[str, str] = {}
    missing: dict[str, str] = {}
    for cluster in clusters:
        ref = cluster.secret_ref
        if ref is None:
            continue
        try:
            secret = client.get(resource_path("v1", "Secret", ref.namespace, ref.name))
        except LiveReadError as exc:
            missing[cluster.name] = f"its Secret cannot be read: {exc}"
            continue
        value, why = secret_field(secret, ref)
        if value is None:
            missing[cluster.name] = why
        else:
            secrets[cluster.name] = value
    return ManagementRead(clusters, violations, secrets, missing)


def secret_field(secret: Mapping[str, Any] | None, ref: SecretReference) -> tuple[str | None, str]:
    """The credentials a ``secretRef`` names in ``secret`` (as read; None: there is none):
    the text of its ``field`` (``data`` is base64, ``stringData`` as written), or None and
    why, never quoting a value."""
    named = f"Secret {ref.namespace}/{ref.name}"
    if secret is None:
        return None, f"{named} does not exist in the management cluster"
    data = secret.get("data")
    raw = data.get(ref.field) if isinstance(data, Mapping) else None
    if isinstance(raw, str) and raw:
        try:
            text = base64.b64decode(raw, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None, f"{named}: data.{ref.field} is not base64 UTF-8 text"
        if text.strip():
            return text, ""
    string_data = secret.get("stringData")
    plain = string_data.get(ref.field) if isinstance(string_data, Mapping) else None
    if isinstance(plain, str) and plain.strip():
        return plain, ""
    return None, f"{named} has no field {ref.field}"


def cluster_connection(kubeconfig: str | None, cluster: str) -> Connection:
    """The connection to ``cluster``: through ``kubeconfig`` (its credentials as text, named
    in errors without quoting them), or with None the ambient kubeconfig's context of its
    name. Raises :class:`LiveReadError`."""
    if kubeconfig is None:
        return connection(cluster)
    return connection_from_text(kubeconfig, f"the credentials of cluster {cluster}")


def probe(kubeconfig: str | None, cluster: str) -> str | None:
    """Why the API server of ``cluster`` cannot take a change, asking it through
    :func:`cluster_connection` (the provider's kubeconfig:
    :func:`tars_components.components.clusters.cluster_kubeconfig`); None when it answers."""
    try:
        ApiClient(cluster_connection(kubeconfig, cluster), timeout=PROBE_TIMEOUT).get("/version")
    except LiveReadError as exc:
        return f"its API server does not answer: {exc}"
    return None


def serves(kubeconfig: str | None, cluster: str, api_version: str) -> bool:
    """True when the API server of ``cluster`` (:func:`cluster_connection`) serves
    ``api_version`` (``k8s.tars.io/v1beta3``: the TarsK8S CRDs are installed); True too when
    it cannot be asked (:func:`probe` says so)."""
    try:
        conn = cluster_connection(kubeconfig, cluster)
        found = ApiClient(conn, timeout=PROBE_TIMEOUT).get(f"/apis/{api_version}")
    except LiveReadError:
        return True
    return found is not None


def skip_problems(
    cluster: str, reason: str, rendered: Collection[str], deployed: Collection[str] | None
) -> list[str]:
    """What keeps ``cluster`` (skipped for ``reason``) from being left as it is: the objects
    this change would create there (``rendered``, ``apiVersion/kind:namespace/name``, not in
    ``deployed``, its objects as the last update left them) or delete (in ``deployed``, no
    longer rendered). None deployed (a cluster the stack never reached): nothing, the
    cluster is left out."""
    if not deployed:
        return []
    created = sorted(set(rendered) - set(deployed))
    deleted = sorted(set(deployed) - set(rendered))
    found: list[str] = []
    for what, names in (("create", created), ("delete", deleted)):
        if names:
            found.append(
                f"cluster {cluster} is skipped ({reason}) but this change would {what} "
                f"{', '.join(names)} there: pulumi up cannot leave it as it is; wait until it "
                "is available, or make that change once it is"
            )
    return found


__all__ = [
    "PROBE_TIMEOUT",
    "ManagementRead",
    "cluster_connection",
    "probe",
    "read_management",
    "secret_field",
    "serves",
    "skip_problems",
]
