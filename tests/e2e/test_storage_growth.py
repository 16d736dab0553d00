"""Storage decided by the cluster (docs/concepts/live.md#storage, docs/concepts/storage.md): a
claim bound to a static PersistentVolume of the test's own grows from 5Gi to 10Gi with a plain
``pulumi up`` (no previous stack directory: the sizes that run are read from the cluster), the
StatefulSet and its pods kept, and ``up`` returns with the claims at their new capacity; on a
class whose volumes grow only offline (the cluster's agent reports ``FileSystemResizePending``
until a pod mounts the claim again) ``up`` restarts the pods one at a time, highest ordinal
first, and returns once the file systems grew; a claim on a StorageClass without
``allowVolumeExpansion`` fails the preview and nothing is applied."""

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
OFFLINE = "e2e-offline"  # expands, but its file systems only when a pod mounts them again
REPLICAS = 2


def server(name: str, size: str, storage_class: str) -> dict[str, Any]:
    doc = tars_server("Shop", name, replicas=REPLICAS, mounts=[data_mount(size, storage_class)])
    doc["metadata"]["namespace"] = NAMESPACE
    return doc


def servers(orders: str, ledger: str, archive: str) -> list[dict[str, Any]]:
    return [
        server("Orders", orders, GROWS),
        server("Ledger", ledger, FIXED),
        server("Archive", archive, OFFLINE),
    ]


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
        for name, extra in (
            (GROWS, {"allowVolumeExpansion": True}),
            (FIXED, {}),
            (
                OFFLINE,
                {"allowVolumeExpansion": True, "parameters": {"e2e.tars.io/resize": "offline"}},
            ),
        )
    ]
    e2e.apply_list(cluster, classes)
    with e2e.namespace_with_node(cluster, NAMESPACE):
        volumes(cluster, "shop-orders", GROWS)
        volumes(cluster, "shop-ledger", FIXED)
        volumes(cluster, "shop-archive", OFFLINE)
        write(project, *servers("5Gi", "5Gi", "5Gi"))
        pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
        try:
            yield project
        finally:
            cluster.kubectl("delete", "storageclass", GROWS, FIXED, OFFLINE, check=False)


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


def capacities(cluster: e2e.Cluster, statefulset: str) -> set[str]:
    """The ``status.capacity.storage`` the claims of ``statefulset`` report."""
    return {
        c["status"].get("capacity", {}).get("storage", "")
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
    write(project, *servers("10Gi", "5Gi", "5Gi"))
    preview = pulumi("preview", "--diff", "--stack", STACK, cwd=project).ok()
    assert "replace" not in preview.output.lower().replace("replaced", ""), preview.output
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert claims(cluster, "shop-orders") == {
        f"data-shop-orders-{i}": ("Bound", "10Gi") for i in range(REPLICAS)
    }
    assert uids(cluster, "shop-orders") == before
    assert capacities(cluster, "shop-orders") == {"10Gi"}  # up waited for the resizer
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
    write(project, *servers("10Gi", "10Gi", "5Gi"))
    refused = pulumi("up", "--yes", "--stack", STACK, cwd=project)
    assert refused.code != 0
    assert "TV002" in refused.output and FIXED in refused.output, refused.output
    assert set(claims(cluster, "shop-ledger").values()) == {("Bound", "5Gi")}
    assert uids(cluster, "shop-ledger") == before


def test_volumes_that_grow_offline_get_their_pods_restarted_one_at_a_time(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    e2e.wait_for(
        "the claims bound",
        lambda: set(claims(cluster, "shop-archive").values()) == {("Bound", "5Gi")},
    )
    before = uids(cluster, "shop-archive")
    write(project, *servers("10Gi", "5Gi", "10Gi"))
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    # up returned once the file systems grew: the pods were started again for it
    assert capacities(cluster, "shop-archive") == {"10Gi"}
    after = uids(cluster, "shop-archive")
    assert after["shop-archive"] == before["shop-archive"]  # the StatefulSet is kept
    pods = [f"shop-archive-{i}" for i in range(REPLICAS)]
    assert all(after[p] != before[p] for p in pods), (before, after)
    # one at a time, the highest ordinal first (its replacement started before the next went)
    started = {
        p["metadata"]["name"]: p["metadata"]["creationTimestamp"]
        for p in cluster.get("pods", f"--namespace={NAMESPACE}")["items"]
    }
    assert started["shop-archive-1"] <= started["shop-archive-0"]
    for claim in cluster.get("pvc", f"--namespace={NAMESPACE}")["items"]:
        conditions = claim["status"].get("conditions") or []
        assert not [c for c in conditions if c["type"] == "FileSystemResizePending"], claim
