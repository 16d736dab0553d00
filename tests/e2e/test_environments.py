"""``pulumi up`` per environment on a real API server: the project's own program, its dev,
staging and prod stacks, the real CLI and the real Kubernetes provider, checked with kubectl
as a user would check them."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-dev"


@pytest.fixture(scope="module")
def project(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return e2e.project_copy(tmp_path_factory.mktemp("environments") / "tars", venv)


def render(project: Path, venv: Path, stack: str) -> list[dict[str, Any]]:
    """The objects ``tars-components render --stack STACK`` writes, as the project has it."""
    out = project.parent / f"render-{stack}"
    subprocess.run(
        [str(venv / "bin" / "tars-components"), "render", "--stack", stack, "--out", str(out)],
        cwd=project,
        check=True,
        capture_output=True,
    )
    return list(e2e.objects_of(out))


def key(obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = obj["metadata"]
    return obj["kind"], meta.get("namespace", ""), meta["name"]


def live(cluster: e2e.Cluster, obj: dict[str, Any]) -> dict[str, Any]:
    kind, namespace, name = key(obj)
    resource = (
        f"{kind.lower()}.{obj['apiVersion'].split('/')[0]}"
        if "/" in obj["apiVersion"]
        else kind.lower()
    )
    return cluster.get(resource, name, f"--namespace={namespace}", "--show-managed-fields")


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
    expected = render(dev, venv, "dev")
    assert expected, "render --stack dev wrote nothing"
    for obj in expected:
        stored = live(cluster, obj)
        assert stored["metadata"]["name"] == obj["metadata"]["name"]
        managers = appliers(stored)
        assert any(
            m.startswith("pulumi-kubernetes-") or m == "tars-components-dev" for m in managers
        ), f"{key(obj)} not applied server-side by Pulumi: {managers}"


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
