"""``pulumi up`` per environment on a real API server: the project's own program, its dev,
staging and prod stacks, the real CLI and the real Kubernetes provider, checked with kubectl
as a user would check them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-dev"


@pytest.fixture(scope="module")
def project(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return e2e.project_copy(tmp_path_factory.mktemp("environments") / "tars", venv)


def key(obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = obj["metadata"]
    return obj["kind"], meta.get("namespace", ""), meta["name"]


def appliers(obj: dict[str, Any]) -> list[str]:
    """The field managers that applied the object server-side."""
    return [
        m["manager"]
        for m in obj["metadata"].get("managedFields", [])
        if m.get("operation") == "Apply"
    ]


def workloads_ready(cluster: e2e.Cluster, namespace: str) -> bool | str:
    """Every StatefulSet and DaemonSet of the namespace rolled out and Ready."""
    pending = []
    for sts in cluster.get("statefulsets", f"--namespace={namespace}")["items"]:
        want, status = sts["spec"].get("replicas", 1), sts.get("status", {})
        if (
            status.get("readyReplicas", 0) != want
            or status.get("updatedReplicas", 0) != want
            or status.get("currentRevision") != status.get("updateRevision")
        ):
            pending.append(f"statefulset/{sts['metadata']['name']} {status}")
    for ds in cluster.get("daemonsets", f"--namespace={namespace}")["items"]:
        status = ds.get("status", {})
        if status.get("numberReady", 0) != status.get("desiredNumberScheduled", -1):
            pending.append(f"daemonset/{ds['metadata']['name']} {status}")
    return True if not pending else "; ".join(pending)


@pytest.fixture(scope="module")
def dev(pulumi: e2e.Pulumi, project: Path, cluster: e2e.Cluster) -> Iterator[Path]:
    """The dev stack, up: Pulumi.dev.yaml's settings with tars:renderDir off."""
    pulumi("stack", "init", "dev", cwd=project).ok()
    pulumi("config", "set", "tars:renderDir", "", "--stack", "dev", cwd=project).ok()
    result = pulumi("up", "--yes", "--stack", "dev", "--skip-preview", cwd=project)
    result.ok()
    yield project


def test_up_creates_every_rendered_object(dev: Path, venv: Path, cluster: e2e.Cluster) -> None:
    expected = e2e.render_stack(dev, venv, "dev")
    assert expected, "render --stack dev wrote nothing"
    for obj in expected:
        stored = e2e.live(cluster, obj)
        assert stored["metadata"]["name"] == obj["metadata"]["name"]
        managers = [
            m
            for m in appliers(stored)
            if m.startswith("pulumi-kubernetes-") or m == "tars-components-dev"
        ]
        assert len(managers) == 1, (
            f"{key(obj)} not applied server-side by Pulumi: {appliers(stored)}"
        )
        # What the API server stores (defaults added) is exactly what render predicts: the
        # rendered object, applied again under Pulumi's field manager, changes nothing.
        path = dev.parent / "stored-check.json"
        path.write_text(json.dumps(obj), encoding="utf-8")
        diff = cluster.kubectl(
            "diff",
            "--server-side",
            "--force-conflicts",
            f"--field-manager={managers[0]}",
            "-f",
            str(path),
            check=False,
        )
        assert diff.returncode == 0, (
            f"{key(obj)} differs from its render:\n{diff.stdout}{diff.stderr}"
        )


def test_pods_are_scheduled_and_ready_through_the_gate(dev: Path, cluster: e2e.Cluster) -> None:
    assert workloads_ready(cluster, NAMESPACE) is True
    pods = cluster.get("pods", f"--namespace={NAMESPACE}")["items"]
    assert pods
    nodes = {n["metadata"]["name"] for n in cluster.get("nodes")["items"]}
    for pod in pods:
        assert pod["spec"]["nodeName"] in nodes
        conditions = {c["type"]: c["status"] for c in pod["status"]["conditions"]}
        assert conditions["Ready"] == "True", pod["metadata"]["name"]
        gates = [g["conditionType"] for g in pod["spec"].get("readinessGates", [])]
        for gate in gates:
            assert conditions.get(gate) == "True", (pod["metadata"]["name"], gate)


def test_second_preview_has_no_changes(dev: Path, pulumi: e2e.Pulumi) -> None:
    pulumi("preview", "--expect-no-changes", "--stack", "dev", cwd=dev).ok()


#: Whether the StatefulSet had rolled when the release bump's `pulumi up` returned.
rolled_when_up_returned: list[bool] = []


def pods_of(cluster: e2e.Cluster, namespace: str, server: str) -> list[dict[str, Any]]:
    return cluster.get("pods", f"--namespace={namespace}", f"-l=tars.io/ServerName={server}")[
        "items"
    ]


def test_release_bump_previews_as_the_image_and_rolls_the_pods(
    dev: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    before = {
        p["metadata"]["name"]: p["metadata"]["uid"]
        for p in pods_of(cluster, NAMESPACE, "OrderServer")
    }
    source = dev / "stacks" / "dev" / "20-shop-order.yaml"
    text = source.read_text(encoding="utf-8")
    assert text.count("v20261120-1") == 2
    source.write_text(text.replace("v20261120-1", "v20261201-1"), encoding="utf-8")

    preview = pulumi("preview", "--json", "--diff", "--stack", "dev", cwd=dev).ok()
    changed = [s for s in e2e.preview_steps(preview) if s["op"] != "same"]
    named = sorted((s["op"], s["urn"].rsplit("::", 1)[1]) for s in changed)
    # the server's rule check runs again on its new document; of the Kubernetes objects, only
    # its StatefulSet changes
    assert named == [
        ("update", "tars-dev/shop-orderserver-statefulset"),
        ("update", "tars-dev/shop-orderserver-validation"),
    ], named
    sts_step = next(s for s in changed if s["urn"].endswith("-statefulset"))
    paths = sorted(sts_step.get("detailedDiff", {}))
    assert paths == [
        'spec.template.metadata.labels["tars.io/ServerID"]',
        "spec.template.spec.containers[0].image",
    ], paths

    pulumi("up", "--yes", "--skip-preview", "--stack", "dev", cwd=dev).ok()
    returned = cluster.get("statefulset", "shop-orderserver", f"--namespace={NAMESPACE}")
    rolled_when_up_returned.append(
        returned["status"].get("observedGeneration") == returned["metadata"]["generation"]
        and returned["status"]["currentRevision"] == returned["status"]["updateRevision"]
    )
    cluster.kubectl(
        "rollout",
        "status",
        "statefulset/shop-orderserver",
        f"--namespace={NAMESPACE}",
        "--timeout=120s",
    )
    sts = cluster.get("statefulset", "shop-orderserver", f"--namespace={NAMESPACE}")
    assert sts["status"]["currentRevision"] == sts["status"]["updateRevision"]
    pods = pods_of(cluster, NAMESPACE, "OrderServer")
    assert len(pods) == 2
    for pod in pods:
        assert pod["spec"]["containers"][0]["image"].endswith(":v20261201-1")
        assert (
            pod["metadata"]["labels"]["controller-revision-hash"] == sts["status"]["updateRevision"]
        )
        assert pod["metadata"]["uid"] != before[pod["metadata"]["name"]]
        assert {c["type"]: c["status"] for c in pod["status"]["conditions"]}["Ready"] == "True"


def test_up_returns_only_after_the_release_is_rolled(dev: Path) -> None:
    # pulumi-kubernetes' own StatefulSet await took the status of the previous generation and
    # returned before the pods rolled; the product's pulumi.com/waitFor conditions wait for
    # the observed generation (docs/pulumi/deploy.md#what-pulumi-up-waits-for)
    assert rolled_when_up_returned == [True]


def test_staging_and_prod_beside_dev(
    dev: Path, venv: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    e2e.install_crds(cluster, venv, dev)
    for stack in ("staging", "prod"):
        pulumi("stack", "init", stack, cwd=dev).ok()
        # Pulumi.<stack>.yaml's tars:kubeContext as it is: the loopback kubeconfig has a
        # context per namespace (tars-staging, tars-prod)
        pulumi("up", "--yes", "--skip-preview", "--stack", stack, cwd=dev).ok()
    assert workloads_ready(cluster, "tars-staging") is True
    for obj in e2e.render_stack(dev, venv, "staging"):
        assert e2e.live(cluster, obj)["metadata"]["namespace"] == "tars-staging"
    for obj in e2e.render_stack(dev, venv, "prod"):
        assert e2e.live(cluster, obj)["metadata"]["namespace"] == "tars-prod"
    assert cluster.get("tservers.k8s.tars.io", "--namespace=tars-prod")["items"]
    # dev is untouched by the other two
    pulumi("preview", "--expect-no-changes", "--stack", "dev", cwd=dev).ok()


def test_destroy_leaves_nothing(
    dev: Path, venv: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    expected = {stack: e2e.render_stack(dev, venv, stack) for stack in ("dev", "staging", "prod")}
    for stack, objects in expected.items():
        pulumi("destroy", "--yes", "--skip-preview", "--stack", stack, cwd=dev).ok()
        for obj in objects:
            kind, namespace, name = key(obj)
            assert not cluster.exists(kind.lower(), name, namespace or None), (stack, key(obj))
        state = json.loads(pulumi("stack", "export", "--stack", stack, cwd=dev).ok().stdout)
        assert not state["deployment"].get("resources"), stack
    for namespace in ("tars-dev", "tars-staging"):
        e2e.wait_for(
            f"no pods left in {namespace}",
            lambda ns=namespace: not cluster.get("pods", f"--namespace={ns}")["items"],
        )
