"""Growing claims in place (docs/concepts/storage.md): the workload keeps its claim template
as it was, records the wanted sizes in an annotation, and each existing claim gets a
PersistentVolumeClaim patch with the new size.

Pure functions over rendered objects and :class:`~tars_components.rules.storage.StorageChange`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from ..models import TServerDocument
from ..rules.storage import CLAIM_STORAGE, ClaimGrowth, StorageChange, claims_of
from ..settings.options import Mode, Options
from .quantity import canonical_quantity
from .statefulset import ORPHAN_ANNOTATION

PATCH_FORCE = "pulumi.com/patchForce"
"""The claims were created by the StatefulSet controller, which owns their size: the patch
takes the field over (server-side apply with force)."""


def claim_storage_annotation(growths: Iterable[ClaimGrowth]) -> str:
    """``data=10Gi,logs=2Gi``: the wanted sizes, in template order."""
    return ",".join(f"{g.claim}={canonical_quantity(g.new)}" for g in growths)


def _workload_key(obj: Mapping[str, Any]) -> tuple[str, str, str] | None:
    kind = obj.get("kind")
    if kind not in ("StatefulSet", TServerDocument.KIND):
        return None
    meta = obj.get("metadata") or {}
    return str(kind), str(meta.get("namespace") or ""), str(meta.get("name") or "")


def hold_claims(
    objects: Iterable[Mapping[str, Any]],
    changes: Iterable[StorageChange],
    mode: Mode,
    annotate: bool = True,
) -> list[dict[str, Any]]:
    """``objects`` with the workload of each server whose claims grow in place keeping its
    claim templates' previous sizes: the StatefulSet (expand mode) or the TServer (crd mode),
    annotated with the wanted sizes (``tars-components.io/claim-storage``) unless
    ``annotate`` is false. Other objects are returned as they are."""
    kind = TServerDocument.KIND if mode == Mode.CRD else "StatefulSet"
    held: dict[tuple[str, str, str], StorageChange] = {
        (kind, c.current.namespace, c.current.name): c for c in changes if c.grows_in_place
    }
    out: list[dict[str, Any]] = []
    for obj in objects:
        key = _workload_key(obj)
        change = held.get(key) if key is not None else None
        if change is None:
            out.append(dict(obj))
            continue
        kept = copy.deepcopy(dict(obj))
        spec = kept["spec"]
        for growth in change.growths:
            if mode == Mode.CRD:
                template = spec["k8s"]["mounts"][growth.index]["source"][
                    "persistentVolumeClaimTemplate"
                ]
                template["spec"]["resources"]["requests"]["storage"] = growth.old
            else:
                for template in spec.get("volumeClaimTemplates") or []:
                    if template["metadata"]["name"] == growth.claim:
                        requests = template["spec"]["resources"]["requests"]
                        requests["storage"] = canonical_quantity(growth.old)
        if annotate:
            meta = kept["metadata"]
            meta["annotations"] = {
                **(meta.get("annotations") or {}),
                CLAIM_STORAGE: claim_storage_annotation(change.growths),
            }
        out.append(kept)
    return out


def _patch(name: str, namespace: str, storage: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace, "annotations": {PATCH_FORCE: "true"}},
        "spec": {"resources": {"requests": {"storage": canonical_quantity(storage)}}},
    }


def scale_out_patches(
    previous: TServerDocument, current: TServerDocument, options: Options
) -> list[dict[str, Any]]:
    """When a StatefulSet server scales out: one patch per persistentVolumeClaimTemplate claim
    of each new ordinal, with the size the server wants now. A claim template held at an
    earlier size (docs/concepts/storage.md) makes the new claims at that size; the patch
    grows them (for a template never grown it changes nothing)."""
    if previous.spec.k8s.daemon_set or current.spec.k8s.daemon_set:
        return []
    start, stop = previous.spec.k8s.replicas, current.spec.k8s.replicas
    claims = [c for c in claims_of(current, options) if not c.local]
    return [
        _patch(f"{claim.name}-{current.name}-{ordinal}", current.namespace, claim.storage)
        for claim in claims
        for ordinal in range(start, stop)
    ]


def claim_patches(change: StorageChange) -> list[dict[str, Any]]:
    """One PersistentVolumeClaim patch per existing claim of each growing template, in
    template then ordinal order: the claim's name and namespace, ``pulumi.com/patchForce``,
    and the new ``spec.resources.requests.storage``."""
    if not change.grows_in_place:
        return []
    return [
        _patch(name, growth.namespace, growth.new)
        for growth in change.growths
        for name in growth.claim_names
    ]


__all__ = [
    "ORPHAN_ANNOTATION",
    "PATCH_FORCE",
    "claim_patches",
    "claim_storage_annotation",
    "hold_claims",
    "scale_out_patches",
]
