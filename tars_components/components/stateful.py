"""Stateful safety: which changes make pulumi-kubernetes replace a StatefulSet.

pulumi-kubernetes replaces (deletes and recreates) a StatefulSet when any of
:data:`STATEFULSET_REPLACE_FIELDS` changes (its ``forceNew`` list for ``apps/v1``
StatefulSet, provider/pkg/provider/diff.go), because Kubernetes rejects updates to them. For a
server with volume claim templates that means every pod restarts at once and the claims
survive only because Kubernetes keeps them (``persistentVolumeClaimRetentionPolicy`` Retain).

Without a cluster the only way to see such a change coming is to compare the objects of two
versions of the server; the components do that when given the previous version
(``TServerArgs.previous``; ``tars:previousStackDir`` in the project's program). Pure functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

STATEFULSET_REPLACE_FIELDS = (
    "spec.volumeClaimTemplates",
    "spec.serviceName",
    "spec.podManagementPolicy",
    "spec.selector",
    "spec.revisionHistoryLimit",
)
"""StatefulSet fields whose change forces pulumi-kubernetes to replace the object."""

_MISSING = object()


def _field(obj: Mapping[str, Any], path: str) -> Any:
    node: Any = obj
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return _MISSING
        node = node[key]
    return node


def _statefulset(objects: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    return next((obj for obj in objects if obj.get("kind") == "StatefulSet"), None)


def replacing_fields(previous: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """The fields of :data:`STATEFULSET_REPLACE_FIELDS` that differ between two versions of a
    StatefulSet, in that order."""
    return [
        path
        for path in STATEFULSET_REPLACE_FIELDS
        if _field(previous, path) != _field(current, path)
    ]


def replacement_warning(
    previous_objects: Iterable[Mapping[str, Any]], current_objects: Iterable[Mapping[str, Any]]
) -> str | None:
    """A warning when the change from ``previous_objects`` to ``current_objects`` (one server's
    objects) replaces or removes a StatefulSet that has volume claim templates; None otherwise."""
    before = _statefulset(previous_objects)
    if before is None:
        return None
    after = _statefulset(current_objects)
    name = f"{before['metadata'].get('namespace', 'default')}/{before['metadata']['name']}"
    claims = before["spec"].get("volumeClaimTemplates") or []
    if after is None:
        if not claims:
            return None
        return (
            f"StatefulSet {name} with volume claim templates is deleted by this change; its "
            "PersistentVolumeClaims stay in the cluster until removed by hand"
        )
    if not claims and not after["spec"].get("volumeClaimTemplates"):
        return None
    changed = replacing_fields(before, after)
    if not changed:
        return None
    annotations = before["metadata"].get("annotations") or {}
    if annotations.get("pulumi.com/deletionPropagationPolicy") == "orphan":
        return (
            f"StatefulSet {name} will be replaced without its pods (deletionPropagationPolicy "
            f"orphan): {', '.join(changed)} changed; the new StatefulSet adopts the running "
            "pods (docs/concepts/storage.md)"
        )
    return (
        f"StatefulSet {name} will be replaced (deleted and recreated, all pods at once): "
        f"{', '.join(changed)} changed, and pulumi-kubernetes replaces a StatefulSet on changes "
        "to these fields. Its PersistentVolumeClaims are kept and reattached by name; set "
        "protect to block the change"
    )


__all__ = ["STATEFULSET_REPLACE_FIELDS", "replacement_warning", "replacing_fields"]
