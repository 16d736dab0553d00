"""The cluster-wide objects of the chart: the ``tars-system`` namespace and the storage class
of tLocalVolume claims."""

from __future__ import annotations

from typing import Any

from .controller_common import SYSTEM_NAMESPACE


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
