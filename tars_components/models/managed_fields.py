"""The field managers of a live object (``metadata.managedFields``), and handing their fields
to another manager as ``kubectl apply --server-side`` does (docs/concepts/live.md,
"Field managers handed over").

Two kinds of managers hold fields that belong to a stack applying an object under its own
field manager:

* **client-side apply**: ``kubectl apply`` without ``--server-side`` writes an ``Update``
  entry (``kubectl-client-side-apply``) and the ``last-applied-configuration`` annotation.
  kubectl's rule (``apply.go``, ``migrateToSSAIfNecessary``) is followed exactly: the
  managers of ``Update`` entries that own that annotation are client-side appliers, unless an
  ``Apply`` entry owns it already;
* **pulumi-kubernetes' random manager** (``pulumi-kubernetes-<random>``, ``Apply``), which
  applied the object before it carried the stack's stable manager.

Their entries are merged into the stable manager's ``Apply`` entry the way client-go's
``csaupgrade.UpgradeManagedFields`` merges them (the first one renamed when the stable manager
has no entry yet, the fields of those of the same ``apiVersion`` united, the others dropped),
and sent as a JSON patch that also tests the ``resourceVersion``. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
"""The annotation ``kubectl apply`` (client-side) keeps its last applied object in."""

PULUMI_RANDOM_PREFIX = "pulumi-kubernetes-"
"""pulumi-kubernetes' own server-side apply managers: ``pulumi-kubernetes-<random>``."""

PULUMI_TAKES_OVER = frozenset(
    {
        "kubectl",
        "before-first-apply",
        "pulumi-kubernetes",
        "pulumi-kubernetes.exe",
        "pulumi-resource-kubernetes",
    }
)
"""The ``Update`` managers pulumi-kubernetes merges into its own before every update
(``fixCSAFieldManagers``): a field only they hold is Pulumi's by the time it applies."""

APPLY = "Apply"
UPDATE = "Update"

_LAST_APPLIED_PATH = ("metadata", "annotations", LAST_APPLIED_ANNOTATION)


def all_entries(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every ``managedFields`` entry of the object, in order."""
    meta = obj.get("metadata")
    found = meta.get("managedFields") if isinstance(meta, Mapping) else None
    if not isinstance(found, list):
        return []
    return [e for e in found if isinstance(e, Mapping)]


def entries(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The entries that hold fields of the object's spec: the main resource's and those of
    its ``scale`` subresource (an HPA's or ``kubectl scale``'s count); the ``status``
    subresource's left out."""
    return [e for e in all_entries(obj) if e.get("subresource") in (None, "", "scale")]


def holds(fields: Any, path: Sequence[str]) -> bool:
    """True when a ``fieldsV1`` set holds the field at ``path`` (names of map keys), or a map
    above it whole."""
    node = fields
    for depth, name in enumerate(path):
        if not isinstance(node, Mapping):
            return False
        if depth and not [k for k in node if k != "."]:
            return True  # an atomic map or list owned whole
        node = node.get(f"f:{name}")
        if node is None:
            return False
    return True


def owners(obj: Mapping[str, Any], path: Sequence[str]) -> tuple[str, ...]:
    """The managers that hold the field at ``path`` of a live object, in entry order."""
    found = [str(e.get("manager") or "") for e in entries(obj) if holds(e.get("fieldsV1"), path)]
    return tuple(dict.fromkeys(found))


def client_side_managers(obj: Mapping[str, Any]) -> tuple[str, ...]:
    """The managers ``kubectl apply --server-side`` would migrate: those of ``Update`` entries
    that own the ``last-applied-configuration`` annotation, when the object has it and no
    ``Apply`` entry owns it."""
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    if LAST_APPLIED_ANNOTATION not in annotations:
        return ()
    owning = [e for e in entries(obj) if holds(e.get("fieldsV1"), _LAST_APPLIED_PATH)]
    if any(e.get("operation") == APPLY for e in owning):
        return ()
    names = [str(e.get("manager") or "") for e in owning if e.get("operation") == UPDATE]
    return tuple(dict.fromkeys(names))


def union(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Two ``fieldsV1`` sets as one."""
    merged: dict[str, Any] = {k: _copy(v) for k, v in a.items()}
    for key, value in b.items():
        mine = merged.get(key)
        if isinstance(mine, Mapping) and isinstance(value, Mapping):
            merged[key] = union(mine, value)
        elif key not in merged:
            merged[key] = _copy(value)
    return dict(sorted(merged.items()))


def _copy(value: Any) -> Any:
    return {k: _copy(v) for k, v in value.items()} if isinstance(value, Mapping) else value


def _is(entry: Mapping[str, Any], manager: str, operation: str) -> bool:
    return (
        entry.get("manager") == manager
        and entry.get("operation") == operation
        and not entry.get("subresource")
    )


def handed_over(
    managed: Sequence[Mapping[str, Any]], moved: Iterable[tuple[str, str]], target: str
) -> list[dict[str, Any]]:
    """``managed`` (every entry) with the main-resource entries of each ``(manager,
    operation)`` of ``moved`` merged into ``target``'s ``Apply`` entry, as client-go's
    ``csaupgrade`` does for each client-side manager in turn (subresources' entries kept)."""
    result = [dict(e) for e in managed]
    for manager, operation in moved:
        at = next((i for i, e in enumerate(result) if _is(e, target, APPLY)), None)
        if at is None:
            at = next((i for i, e in enumerate(result) if _is(e, manager, operation)), None)
            if at is None:
                continue
            result[at] = {**result[at], "manager": target, "operation": APPLY}
        version = result[at].get("apiVersion")
        same = next(
            (e for e in result if _is(e, manager, operation) and e.get("apiVersion") == version),
            None,
        )
        if same is not None:
            fields = union(result[at].get("fieldsV1") or {}, same.get("fieldsV1") or {})
            result[at] = {**result[at], "fieldsV1": fields}
        result = [e for e in result if not _is(e, manager, operation)]
    return result


@dataclass(frozen=True)
class Handover:
    """The fields of ``managers`` of one live object handed to the stack's manager: the
    object, the managers moved (``(name, operation)``) and its ``managedFields`` after."""

    api_version: str
    kind: str
    namespace: str
    name: str
    resource_version: str
    managers: tuple[tuple[str, str], ...]
    managed_fields: tuple[Mapping[str, Any], ...]

    def patch(self) -> list[dict[str, Any]]:
        """The JSON patch that writes it: the entries, and the ``resourceVersion`` read, so
        that the server refuses it if the object changed since (kubectl's own patch)."""
        return [
            {
                "op": "replace",
                "path": "/metadata/managedFields",
                "value": [dict(e) for e in self.managed_fields],
            },
            {"op": "replace", "path": "/metadata/resourceVersion", "value": self.resource_version},
        ]

    def applied(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """The live object as it is once the patch is written."""
        meta = dict(obj.get("metadata") or {})
        meta["managedFields"] = [dict(e) for e in self.managed_fields]
        return {**obj, "metadata": meta}


def handover(obj: Mapping[str, Any], target: str) -> Handover | None:
    """The hand-over of a live object that the stack applies under ``target``: its
    client-side appliers' and pulumi-kubernetes' random managers' fields moved to ``target``;
    None when there is nothing to move."""
    managed = all_entries(obj)
    moved = [(m, UPDATE) for m in client_side_managers(obj)]
    moved += [
        (str(e.get("manager")), APPLY)
        for e in managed
        if e.get("operation") == APPLY
        and not e.get("subresource")
        and str(e.get("manager") or "").startswith(PULUMI_RANDOM_PREFIX)
        and e.get("manager") != target
    ]
    moved = list(dict.fromkeys(moved))
    if not moved:
        return None
    meta = obj.get("metadata") or {}
    return Handover(
        api_version=str(obj.get("apiVersion") or ""),
        kind=str(obj.get("kind") or ""),
        namespace=str(meta.get("namespace") or ""),
        name=str(meta.get("name") or ""),
        resource_version=str(meta.get("resourceVersion") or ""),
        managers=tuple(moved),
        managed_fields=tuple(handed_over(managed, moved, target)),
    )


def only_ours(found: Iterable[str], target: str) -> bool:
    """True when every manager of ``found`` (at least one) is this stack's: ``target``,
    pulumi-kubernetes' random ones, or those pulumi-kubernetes takes over itself."""
    names = list(found)
    return bool(names) and all(
        n == target or n.startswith(PULUMI_RANDOM_PREFIX) or n in PULUMI_TAKES_OVER for n in names
    )


__all__ = [
    "APPLY",
    "LAST_APPLIED_ANNOTATION",
    "PULUMI_RANDOM_PREFIX",
    "PULUMI_TAKES_OVER",
    "UPDATE",
    "Handover",
    "all_entries",
    "client_side_managers",
    "entries",
    "handed_over",
    "handover",
    "holds",
    "only_ours",
    "owners",
    "union",
]
