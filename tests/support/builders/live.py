"""A live export of a build, as ``kubectl get ... -o yaml --show-managed-fields`` writes it
after ``pulumi up``: each object with what the API server and the TarsK8S webhook add
(``status``, uid, resourceVersion, creationTimestamp, ``release.time``, extra labels, the CRD
defaults inside servants) and ``managedFields`` naming the stack's own field manager for every
field it applied. Tests hand fields to another manager with :func:`owned_by`."""

from __future__ import annotations

import copy
from typing import Any

OWN_MANAGER = "tars-components-dev"


def fields_v1(value: Any) -> dict[str, Any]:
    """The ``fieldsV1`` set of every field of ``value`` (lists owned whole, as atomic)."""
    if isinstance(value, dict):
        return {f"f:{k}": fields_v1(v) for k, v in value.items()}
    return {}


def applied_entry(manager: str, obj: dict[str, Any], operation: str = "Apply") -> dict[str, Any]:
    """A managedFields entry owning every field of ``obj`` but the envelope."""
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}
    return {
        "apiVersion": obj["apiVersion"],
        "fieldsType": "FieldsV1",
        "fieldsV1": fields_v1(body),
        "manager": manager,
        "operation": operation,
        "time": "2026-11-01T10:00:00Z",
    }


def live_object(obj: dict[str, Any], manager: str = OWN_MANAGER) -> dict[str, Any]:
    """``obj`` as a live cluster returns it after ``manager`` applied it."""
    live = copy.deepcopy(obj)
    meta = live.setdefault("metadata", {})
    meta.update(
        uid="6f1c1f9e-0000-4000-8000-000000000001",
        resourceVersion="4242",
        generation=3,
        creationTimestamp="2026-11-01T10:00:00Z",
    )
    meta.setdefault("labels", {})["tars.io/added-by-webhook"] = "yes"
    meta["managedFields"] = [
        applied_entry(manager, obj),
        {
            "apiVersion": obj["apiVersion"],
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:status": {"f:replicas": {}}},
            "manager": "tarscontroller",
            "operation": "Update",
            "subresource": "status",
        },
    ]
    spec = live.get("spec")
    if obj["kind"] == "TServer" and isinstance(spec, dict):
        release = spec.get("release")
        if isinstance(release, dict):
            release["time"] = "2026-11-01T10:00:00Z"
        for servant in (spec.get("tars") or {}).get("servants") or []:
            servant.setdefault("isTcp", True)  # a default inside an atomic list item
    live["status"] = {"replicas": 1}
    return live


def owned_by(live: dict[str, Any], manager: str, fields: dict[str, Any]) -> None:
    """Add a managedFields entry of ``manager`` owning ``fields`` (a fieldsV1 set), as a
    TarsWeb ``PUT`` of those fields records it: the fields leave the other managers' sets."""
    for entry in live["metadata"]["managedFields"]:
        entry["fieldsV1"] = _without(entry["fieldsV1"], fields)
    live["metadata"]["managedFields"].append(
        {
            "apiVersion": live["apiVersion"],
            "fieldsType": "FieldsV1",
            "fieldsV1": fields,
            "manager": manager,
            "operation": "Update",
            "time": "2026-11-02T10:00:00Z",
        }
    )


def _without(have: dict[str, Any], taken: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, sub in have.items():
        if key not in taken:
            out[key] = sub
        elif taken[key] and sub:
            rest = _without(sub, taken[key])
            if rest:
                out[key] = rest
    return out


def as_list(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """A ``kind: List`` of objects, as ``kubectl get -o yaml`` writes it."""
    return {
        "apiVersion": "v1",
        "kind": "List",
        "items": objects,
        "metadata": {"resourceVersion": ""},
    }
