"""Shared readers for the platform tests: our values files, the upstream chart renders (read
from the shared folder, see ``upstream.py``) and object keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from support.assertions.upstream import shared

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "platform"
NAMESPACE = "tars-dev"
CLUSTER_SCOPED = {
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "MutatingWebhookConfiguration",
    "Namespace",
    "StorageClass",
    "ValidatingWebhookConfiguration",
}
HELM_ONLY_LABELS = ("helm.sh/chart", "app.kubernetes.io/managed-by")


def values_path(name: str) -> Path:
    """``fixtures/platform/<name>.values.yaml``; the charts' own ``*-published`` values are
    upstream files, read from ``tarsk8s/chart-renders`` of the shared folder."""
    if name.endswith("-published"):
        return shared("tarsk8s", "chart-renders") / f"{name}.values.yaml"
    return FIXTURES / f"{name}.values.yaml"


def values_text(name: str) -> str:
    """Text of :func:`values_path`."""
    return values_path(name).read_text(encoding="utf-8")


def helm_objects(name: str) -> list[dict[str, Any]]:
    """The objects of ``tarsk8s/chart-renders/<name>.helm.yaml`` of the shared folder (helm
    template output of the v1.4.1 charts for our values files)."""
    text = (shared("tarsk8s", "chart-renders") / f"{name}.helm.yaml").read_text(encoding="utf-8")
    return [doc for doc in yaml.safe_load_all(text) if doc]


def key(obj: dict[str, Any], release_namespace: str = NAMESPACE) -> tuple[str, str, str]:
    """(kind, namespace, name); a namespaced object helm leaves without a namespace goes to the
    release namespace, as ``helm install`` applies it."""
    meta = obj["metadata"]
    namespace = meta.get("namespace") or ""
    if not namespace and obj["kind"] not in CLUSTER_SCOPED:
        namespace = release_namespace
    return (obj["kind"], namespace, meta["name"])


def by_key(objects: list[dict[str, Any]], release_namespace: str = NAMESPACE) -> dict:
    """Objects keyed by :func:`key`."""
    return {key(o, release_namespace): o for o in objects}


def is_subset(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` lacks or changes something of ``expected`` (added keys are fine)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        found: list[str] = []
        for k, v in expected.items():
            if k not in actual:
                found.append(f"{path}/{k} missing")
            else:
                found.extend(is_subset(v, actual[k], f"{path}/{k}"))
        return found
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: {len(expected)} items, got {len(actual)}"]
        found = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found.extend(is_subset(e, a, f"{path}[{i}]"))
        return found
    return [] if expected == actual else [f"{path}: {expected!r} != {actual!r}"]
