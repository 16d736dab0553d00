"""Two lists of objects (two renders) → the objects that change, with their action.

An object's identity is its API group (not its version), kind, namespace and name: a renamed
object is a ``delete`` plus a ``create``, a v1beta2 → v1beta3 document is an ``update`` of its
``apiVersion``. The order of the inputs does not matter: the changes come out sorted by
namespace, name, kind and group, so a reordered stack gives the same (empty) diff.

``replace`` is reported where Kubernetes refuses the update and the object has to be deleted
and recreated (Pulumi does it, deleting first since the name is fixed):

* StatefulSet: ``spec.selector``, ``spec.serviceName``, ``spec.volumeClaimTemplates``,
  ``spec.podManagementPolicy`` (the API server's StatefulSet update validation allows only
  replicas, template, updateStrategy, minReadySeconds, ordinals, revisionHistoryLimit and the
  PVC retention policy); and ``spec.revisionHistoryLimit``, which Kubernetes would update but
  pulumi-kubernetes replaces on (its force-new table, ``provider/pkg/provider/diff.go``).
* DaemonSet and Deployment: ``spec.selector``. (pulumi-kubernetes' force-new table spells the
  kind ``Daemonset``, so it plans an update that the API server refuses; the reason says so.)
* Service: ``spec.clusterIP``/``spec.clusterIPs`` (pulumi-kubernetes replaces on it; Kubernetes
  refuses changing a set address, headless ``None`` included), and a ``spec.type`` change to or
  from ``ExternalName`` (the cluster IP goes or comes with it).

Each stateful replace states its consequence: every pod is deleted and recreated (kept and
adopted when the old StatefulSet carries ``pulumi.com/deletionPropagationPolicy: orphan``), and what
happens to the PersistentVolumeClaims (StatefulSet deletion keeps them unless its
``persistentVolumeClaimRetentionPolicy.whenDeleted`` is ``Delete``; claims of a template whose
name is kept are re-adopted by the new pods, the others are orphaned).

``release.time`` of a TServer (the webhook stamps the admission time on the live object) is
never a change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .fields import field_changes
from .model import Action, Change, FieldChange

_ORPHAN = "pulumi.com/deletionPropagationPolicy"

Identity = tuple[str, str, str, str]
"""(namespace, name, kind, API group): the sort order of changes, and the matching key."""

_PULUMI_REPLACES: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps", "StatefulSet"): ("spec.revisionHistoryLimit",),
}
"""Fields Kubernetes would update but pulumi-kubernetes replaces the object on."""

_IMMUTABLE: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps", "StatefulSet"): (
        "spec.selector",
        "spec.serviceName",
        "spec.volumeClaimTemplates",
        "spec.podManagementPolicy",
    ),
    ("apps", "DaemonSet"): ("spec.selector",),
    ("apps", "Deployment"): ("spec.selector",),
    ("", "Service"): ("spec.clusterIP", "spec.clusterIPs"),
}


def api_group(api_version: str) -> str:
    """``apps/v1`` → ``apps``; ``v1`` (the core group) → ``""``."""
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def identity(obj: Mapping[str, Any]) -> Identity:
    """The object's identity, in sort order (namespace ``""``: a cluster-scoped object)."""
    meta = obj.get("metadata") or {}
    return (
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
        str(obj.get("kind") or ""),
        api_group(str(obj.get("apiVersion") or "")),
    )


def comparable(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """The object as compared: a TServer without ``spec.release.time``."""
    if obj.get("kind") != "TServer":
        return obj
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return obj
    release = spec.get("release")
    if not isinstance(release, dict) or "time" not in release:
        return obj
    trimmed = {k: v for k, v in release.items() if k != "time"}
    return {**obj, "spec": {**spec, "release": trimmed}}


def index_objects(objects: Iterable[Mapping[str, Any]]) -> dict[Identity, Mapping[str, Any]]:
    """``{identity: object}``; the first of two objects with one identity wins (a stack
    cannot hold both: TS017)."""
    found: dict[Identity, Mapping[str, Any]] = {}
    for obj in objects:
        found.setdefault(identity(obj), comparable(obj))
    return found


def diff_objects(
    old_objects: Iterable[Mapping[str, Any]], new_objects: Iterable[Mapping[str, Any]]
) -> list[Change]:
    """The changes that turn the old render into the new one, sorted by identity."""
    return diff_indexed(index_objects(old_objects), index_objects(new_objects))


def diff_indexed(
    old: Mapping[Identity, Mapping[str, Any]], new: Mapping[Identity, Mapping[str, Any]]
) -> list[Change]:
    """:func:`diff_objects` over objects already indexed by :func:`index_objects`."""
    changes: list[Change] = []
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key), new.get(key)
        if before is not None and after is not None and before == after:
            continue
        change = object_change(before, after)
        if change is not None:
            changes.append(change)
    return changes


def object_change(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> Change | None:
    """The change of one object (None: unchanged); ``old``/``new`` None for a create/delete."""
    shown = new if new is not None else old
    assert shown is not None
    namespace, name, kind, _ = identity(shown)
    fields = tuple(field_changes(old or {}, new or {}))
    if not fields:
        return None
    if old is None:
        action, reason = Action.CREATE, None
    elif new is None:
        action, reason = Action.DELETE, None
    else:
        reason = replace_reason(old, new, fields)
        action = Action.REPLACE if reason else Action.UPDATE
    return Change(
        action=action,
        api_version=str(shown.get("apiVersion") or ""),
        kind=kind,
        namespace=namespace,
        name=name,
        fields=fields,
        reason=reason,
    )


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


def replace_reason(
    old: Mapping[str, Any], new: Mapping[str, Any], fields: Iterable[FieldChange]
) -> str | None:
    """Why Kubernetes cannot update ``old`` into ``new`` in place, and what deleting and
    recreating it does; None when an update will do."""
    group, kind = api_group(str(new.get("apiVersion") or "")), str(new.get("kind") or "")
    paths = [f.path for f in fields]
    immutable = [p for p in _IMMUTABLE.get((group, kind), ()) if any(_under(f, p) for f in paths)]
    if (group, kind) == ("", "Service"):
        old_type = _spec(old).get("type") or "ClusterIP"
        new_type = _spec(new).get("type") or "ClusterIP"
        if old_type != new_type and "ExternalName" in (old_type, new_type):
            # the cluster IP changes with it; one reason says it all
            immutable = [f"spec.type ({old_type} to {new_type})"]
    replaced = [
        p for p in _PULUMI_REPLACES.get((group, kind), ()) if any(_under(f, p) for f in paths)
    ]
    if not immutable and not replaced:
        return None
    causes = []
    if immutable:
        verb = "is" if len(immutable) == 1 else "are"
        causes.append(f"{', '.join(immutable)} {verb} immutable on a {kind}")
    if replaced:
        causes.append(f"pulumi-kubernetes replaces a {kind} when {', '.join(replaced)} changes")
    cause = "; ".join(causes) + ", so it is replaced (deleted, then created again)"
    consequence = _consequence(group, kind, old, new)
    return f"{cause}; {consequence}" if consequence else cause


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _claim_names(obj: Mapping[str, Any]) -> list[str]:
    names = []
    for template in _spec(obj).get("volumeClaimTemplates") or []:
        meta = template.get("metadata") if isinstance(template, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("name"), str):
            names.append(meta["name"])
    return names


def _consequence(
    group: str, kind: str, old: Mapping[str, Any], new: Mapping[str, Any]
) -> str | None:
    if (group, kind) == ("apps", "DaemonSet"):
        return (
            "its pod on every node is deleted and recreated (no PersistentVolumeClaims); "
            "pulumi-kubernetes does not plan this replace itself (its force-new table names the "
            "kind Daemonset), so run `pulumi up --replace` with the DaemonSet's URN"
        )
    if (group, kind) == ("", "Service"):
        return "clients reach it again once its new address is in DNS"
    if (group, kind) != ("apps", "StatefulSet"):
        return None
    replicas = _spec(old).get("replicas")
    if isinstance(replicas, int) and replicas != 1:
        pods = f"all {replicas} pods are"
    else:
        pods = "its pod is" if replicas == 1 else "all its pods are"
    text = f"{pods} deleted and recreated"
    meta = old.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if isinstance(annotations, dict) and annotations.get(_ORPHAN) == "orphan":
        text = (
            f"{pods} kept ({_ORPHAN}: orphan, docs/concepts/storage.md) and adopted by the new "
            "StatefulSet, which rolls them one at a time where its pod template differs"
        )
    policy = _spec(old).get("persistentVolumeClaimRetentionPolicy") or {}
    old_claims, new_claims = _claim_names(old), set(_claim_names(new))
    if not old_claims:
        return f"{text}; it has no PersistentVolumeClaims"
    if isinstance(policy, dict) and policy.get("whenDeleted") == "Delete":
        return (
            f"{text}; its PersistentVolumeClaims ({', '.join(old_claims)}) are DELETED with it "
            "(persistentVolumeClaimRetentionPolicy.whenDeleted: Delete): their data is lost"
        )
    kept = [n for n in old_claims if n in new_claims]
    orphaned = [n for n in old_claims if n not in new_claims]
    parts = [f"{text}; PersistentVolumeClaims are kept (deleting a StatefulSet never deletes them)"]
    if kept:
        parts.append(
            f"claims of {', '.join(kept)} are re-adopted by the new pods by name, with their "
            "existing size and storage class (a changed template applies only to new claims)"
        )
    if orphaned:
        parts.append(
            f"claims of {', '.join(orphaned)} are orphaned (template removed or renamed): "
            "their data stays until they are deleted by hand"
        )
    return ": ".join(parts[:1]) + ("; " + "; ".join(parts[1:]) if parts[1:] else "")
