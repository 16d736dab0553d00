"""Storage decided by the cluster (docs/concepts/live.md#storage, docs/concepts/storage.md): a
claim bound to a static PersistentVolume of the test's own grows from 5Gi to 10Gi with a plain
``pulumi up`` (no previous stack directory: the sizes that run are read from the cluster), the
StatefulSet and its pods kept; a claim on a StorageClass without ``allowVolumeExpansion`` fails
the preview and nothing is applied."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.builders.documents import tars_server
from support.builders.storage import data_mount
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-storage"
STACK = "storage"
GROWS = "e2e-expandable"
FIXED = "e2e-fixed"  # no allowVolumeExpansion: Kubernetes' default, not expandable
REPLICAS = 2


def server(name: str, size: str, storage_class: str) -> dict[str, Any]:
    doc = tars_server("Shop", name, replicas=REPLICAS, mounts=[data_mount(size, storage_class)])
    doc["metadata"]["namespace"] = NAMESPACE
    return doc


def write(project: Path, *documents: dict[str, Any]) -> None:
    e2e.write_documents(project, STACK, NAMESPACE, *documents)


def volumes(cluster: e2e.Cluster, statefulset: str, storage_class: str) -> None:
    """A StorageClass and one static 5Gi PersistentVolume per claim, bound ahead of time to
    ``data-<statefulset>-<ordinal>`` (no provisioner: the PVs are the test's own)."""
    objects: list[dict[str, Any]] = []
    for ordinal in range(REPLICAS):
        claim = f"data-{statefulset}-{ordinal}"
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": f"{NAMESPACE}-{claim}"},
                "spec": {
                    "capacity": {"storage": "5Gi"},
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": storage_class,
                    "persistentVolumeReclaimPolicy": "Delete",
                    "hostPath": {"path": f"/tmp/{NAMESPACE}/{claim}"},
                    "claimRef": {"namespace": NAMESPACE, "name": claim},
                },
            }
        )
    e2e.apply_list(cluster, objects)


@pytest.fixture(scope="module")
def project(
    venv: Path, tmp_path_factory: pytest.TempPathFactory, cluster: e2e.Cluster, pulumi: e2e.Pulumi
) -> Iterator[Path]:
    dest = tmp_path_factory.mktemp("storage") / "tars"
    project = e2e.stack_project(dest, venv, pulumi, STACK, NAMESPACE, "expand")
    classes = [
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": name},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "Immediate",
            **extra,
        }
        for name, extra in ((GROWS, {"allowVolumeExpansion": True}), (FIXED, {}))
    ]
    e2e.apply_list(cluster, classes)
    with e2e.namespace_with_node(cluster, NAMESPACE):
        volumes(cluster, "shop-orders", GROWS)
        volumes(cluster, "shop-ledger", FIXED)
        write(project, server("Orders", "5Gi", GROWS), server("Ledger", "5Gi", FIXED))
        pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
        try:
            yield project
        finally:
            cluster.kubectl("delete", "storageclass", GROWS, FIXED, check=False)


def uids(cluster: e2e.Cluster, statefulset: str) -> dict[str, str]:
    """The StatefulSet's uid and each of its pods', by name."""
    ns = f"--namespace={NAMESPACE}"
    found = {statefulset: cluster.get("statefulset", statefulset, ns)["metadata"]["uid"]}
    for pod in cluster.get("pods", ns)["items"]:
        if pod["metadata"]["name"].startswith(f"{statefulset}-"):
            found[pod["metadata"]["name"]] = pod["metadata"]["uid"]
    return found


def claims(cluster: e2e.Cluster, statefulset: str) -> dict[str, tuple[str, str]]:
    """``claim: (phase, requested storage)``."""
    return {
        c["metadata"]["name"]: (
            c["status"].get("phase", ""),
            c["spec"]["resources"]["requests"]["storage"],
        )
        for c in cluster.get("pvc", f"--namespace={NAMESPACE}")["items"]
        if c["metadata"]["name"].startswith(f"data-{statefulset}-")
    }


def test_a_bound_claim_grows_in_place_keeping_the_statefulset_and_its_pods(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    e2e.wait_for(
        "the claims bound",
        lambda: set(claims(cluster, "shop-orders").values()) == {("Bound", "5Gi")},
    )
    before = uids(cluster, "shop-orders")
    assert len(before) == REPLICAS + 1
    write(project, server("Orders", "10Gi", GROWS), server("Ledger", "5Gi", FIXED))
    preview = pulumi("preview", "--diff", "--stack", STACK, cwd=project).ok()
    assert "replace" not in preview.output.lower().replace("replaced", ""), preview.output
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert claims(cluster, "shop-orders") == {
        f"data-shop-orders-{i}": ("Bound", "10Gi") for i in range(REPLICAS)
    }
    assert uids(cluster, "shop-orders") == before
    sts = cluster.get("statefulset", "shop-orders", f"--namespace={NAMESPACE}")
    template = sts["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]
    assert template["storage"] == "5Gi"  # held: a changed template would replace it
    # the next run reads the grown claims as what runs: nothing grows or shrinks again
    again = pulumi("preview", "--diff", "--stack", STACK, cwd=project).ok()
    patches = [
        line.strip()
        for line in again.output.splitlines()
        if line.strip()
        .split(" ", 1)[-1]
        .startswith("kubernetes:core/v1:PersistentVolumeClaimPatch:")
    ]
    # last run's patches leave the state (retained on the claims), no new ones come
    assert patches and all(p.startswith("- ") and "delete[retain]" in p for p in patches), patches
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert set(claims(cluster, "shop-orders").values()) == {("Bound", "10Gi")}
    assert uids(cluster, "shop-orders") == before


def test_a_class_without_volume_expansion_fails_the_preview_and_nothing_is_applied(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    before = uids(cluster, "shop-ledger")
    write(project, server("Orders", "10Gi", GROWS), server("Ledger", "10Gi", FIXED))
    refused = pulumi("up", "--yes", "--stack", STACK, cwd=project)
    assert refused.code != 0
    assert "TV002" in refused.output and FIXED in refused.output, refused.output
    assert set(claims(cluster, "shop-ledger").values()) == {("Bound", "5Gi")}
    assert uids(cluster, "shop-ledger") == before
