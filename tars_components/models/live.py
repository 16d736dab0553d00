"""What a cluster holds, as read at preview (docs/concepts/live.md): a plain record of
objects, as ``kubectl get -o json --show-managed-fields`` prints them, with the lookups the
stages and rules ask of it. Reading is done at the edge (:mod:`tars_components.kubeapi`);
nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .rollout import ServerKey

HPA_API_VERSION = "autoscaling/v2"
"""The HorizontalPodAutoscaler version read (served since Kubernetes 1.23)."""

STORAGE_CLASS_API_VERSION = "storage.k8s.io/v1"

Key = tuple[str, str, str]
"""``(kind, namespace, name)`` of a live object."""


def _key(obj: Mapping[str, Any]) -> Key:
    meta = obj.get("metadata") or {}
    return str(obj.get("kind") or ""), str(meta.get("namespace") or ""), str(meta.get("name"))


def replicas_of(obj: Mapping[str, Any]) -> int | None:
    """The replica count a live workload (``spec.replicas``, 1 when absent) or TServer
    (``spec.k8s.replicas``) asks for; None when it is not a count."""
    spec = obj.get("spec") or {}
    if obj.get("kind") == "TServer":
        value = (spec.get("k8s") or {}).get("replicas")
    else:
        value = spec.get("replicas", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class LiveState:
    """The objects read from one cluster, and the namespaces they were read in."""

    objects: tuple[Mapping[str, Any], ...] = ()
    namespaces: tuple[str, ...] = ()
    source: str = "the cluster"
    """Where they were read (``context NAME``), as messages name it."""
    _index: dict[Key, Mapping[str, Any]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _scaled: dict[Key, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for obj in self.objects:
            self._index.setdefault(_key(obj), obj)
            if obj.get("kind") == "HorizontalPodAutoscaler":
                meta = obj.get("metadata") or {}
                target = (obj.get("spec") or {}).get("scaleTargetRef") or {}
                scaled = (
                    str(target.get("kind")),
                    str(meta.get("namespace")),
                    str(target.get("name")),
                )
                self._scaled.setdefault(scaled, str(meta.get("name")))

    def get(self, kind: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        """The live object of that kind, namespace and name, if any."""
        return self._index.get((kind, namespace, name))

    def of_kind(self, kind: str) -> Iterable[Mapping[str, Any]]:
        """Every live object of ``kind``, in the order read."""
        return (o for o in self.objects if o.get("kind") == kind)

    def autoscaler_of(self, kind: str, namespace: str, name: str) -> str | None:
        """The name of the HorizontalPodAutoscaler that scales ``kind`` ``name`` in
        ``namespace`` (its ``scaleTargetRef``), if one does (the first read)."""
        return self._scaled.get((kind, namespace, name))

    def replicas(self, kind: str, key: ServerKey) -> int | None:
        """The replica count the live ``kind`` object of ``key`` asks for (:func:`replicas_of`);
        None when there is no such object."""
        obj = self.get(kind, *key)
        return None if obj is None else replicas_of(obj)

    def storage_classes(self) -> dict[str, bool]:
        """Each live StorageClass by name: whether it allows volume expansion (an absent
        ``allowVolumeExpansion`` is Kubernetes' default: it does not)."""
        return {
            str((sc.get("metadata") or {}).get("name")): sc.get("allowVolumeExpansion") is True
            for sc in self.of_kind("StorageClass")
        }


__all__ = ["HPA_API_VERSION", "STORAGE_CLASS_API_VERSION", "LiveState", "replicas_of"]
