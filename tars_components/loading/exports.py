"""What ``kubectl get -o yaml`` and a live cluster add to objects, undone: ``List``
unwrapping (:func:`list_items`), the fields a live cluster writes (:func:`live_fields`,
:data:`CLUSTER_METADATA`), objects a controller writes (:func:`controller_owner`), and the
cleaning of a document before it is parsed or passed through."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..kernel.paths import Segment
from ..models.kind_facts import CLUSTER_SCOPED_KINDS

# What a live cluster adds to an object; ignored so that exported objects load unchanged.
CLUSTER_METADATA = (
    "managedFields",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "ownerReferences",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)


LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


LIST_KIND = "List"


def list_items(document: Any) -> Iterator[tuple[Any, tuple[Segment, ...]]]:
    """The objects of one YAML document with their path in it: the document itself, or the
    ``items`` of a ``kind: List`` (what ``kubectl get -o yaml`` writes) or of a typed list
    (``TServerList``, ``ConfigMapList``, …). Items of a typed list that lack ``apiVersion``
    and ``kind`` (the raw API omits them) get the list's."""
    if not _is_list(document):
        yield document, ()
        return
    kind = document["kind"]
    for position, item in enumerate(document.get("items") or []):
        if isinstance(item, dict) and kind != LIST_KIND:
            item = {"apiVersion": document.get("apiVersion"), "kind": kind[: -len("List")], **item}
        yield item, ("items", position)


def _is_list(document: Any) -> bool:
    if not isinstance(document, dict):
        return False
    kind = document.get("kind")
    return (
        isinstance(kind, str)
        and kind.endswith(LIST_KIND)
        and isinstance(document.get("items", []), list)
        and ("items" in document or kind == LIST_KIND)
        and "spec" not in document
    )


def live_fields(raw: Mapping[str, Any]) -> bool:
    """True when a document carries fields a live cluster writes."""
    meta = raw.get("metadata")
    if "status" in raw:
        return True
    if not isinstance(meta, dict):
        return False
    annotations = meta.get("annotations")
    return any(key in meta for key in CLUSTER_METADATA) or (
        isinstance(annotations, dict) and LAST_APPLIED in annotations
    )


def controller_owner(raw: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``ownerReferences`` entry with ``controller: true``, if any."""
    meta = raw.get("metadata")
    owners = meta.get("ownerReferences") if isinstance(meta, dict) else None
    for owner in owners if isinstance(owners, list) else []:
        if isinstance(owner, dict) and owner.get("controller") is True:
            return owner
    return None


def _without_nulls(value: Any) -> Any:
    """Mappings without their null entries, recursively: the API server drops a null in a
    non-nullable field and applies the CRD default (no TarsK8S field is nullable); Helm
    templates write such nulls routinely."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def clean_document(raw: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """Drop nulls and what a live cluster adds, and default the namespace (a copy)."""
    doc: dict[str, Any] = _without_nulls(raw)
    doc.pop("status", None)
    meta = doc.get("metadata")
    if meta is None:
        meta = {}
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k not in CLUSTER_METADATA}
        drop_last_applied(meta)
        if not meta.get("namespace"):
            meta["namespace"] = namespace
        doc["metadata"] = meta
    return doc


def clean_plain(raw: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """A plain object without what a live cluster writes: ``status``, the server-set
    metadata, the last-applied annotation. The stack namespace is filled in unless the kind
    is cluster-scoped; nulls are kept (the object is passed through as written)."""
    doc = dict(raw)
    doc.pop("status", None)
    meta = dict(doc.get("metadata") or {})
    for key in CLUSTER_METADATA:
        if key == "ownerReferences":
            continue
        meta.pop(key, None)
    owners = [o for o in meta.pop("ownerReferences", None) or [] if not _is_controller(o)]
    if owners:
        meta["ownerReferences"] = owners
    drop_last_applied(meta)
    if not meta.get("namespace") and doc.get("kind") not in CLUSTER_SCOPED_KINDS:
        meta["namespace"] = namespace
    doc["metadata"] = meta
    return doc


def _is_controller(owner: Any) -> bool:
    return isinstance(owner, dict) and owner.get("controller") is True


def drop_last_applied(meta: dict[str, Any]) -> None:
    """Remove kubectl's last-applied-configuration annotation (and an emptied annotations map)
    from ``metadata``, in place."""
    annotations = meta.get("annotations")
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        annotations = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
        if annotations:
            meta["annotations"] = annotations
        else:
            del meta["annotations"]
