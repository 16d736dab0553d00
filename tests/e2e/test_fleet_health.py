"""An environment whose clusters a management cluster knows (docs/concepts/clusters.md,
"From a management cluster"; docs/pulumi/clusters.md, "Unavailable clusters"), on three real
loopback clusters: Stellaris ``Cluster`` objects and their ``secretRef`` Secrets in ``a``
(the management cluster, a member too), ``pulumi up`` in waves from them; then one cluster's
Secret removed, one's status unhealthy, one's API server stopped: under
``tars:unavailableClusters: fail`` the preview stops naming the cluster (TM011), under
``skip`` the other clusters take the change and the unavailable one is left as it was."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.builders.clusters import UNHEALTHY
from support.builders.rollouts import server
from support.builders.rollouts import write_stack as stack_dir
from support.engines import e2e

pytestmark = pytest.mark.e2e

STACK = "health"
NAMESPACE = "tars-dev"
NAME = "shop-orderserver"
MEMBERS = ("a", "b", "c")
SECRETS = e2e.STELLARIS_SECRETS


@pytest.fixture(scope="module")
def fleet(
    tools: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, e2e.Cluster]]:
    """Three loopback clusters; ``a`` also holds the Stellaris inventory."""
    root = tmp_path_factory.mktemp("health")
    e2e.cluster_up(root, MEMBERS, namespaces=(NAMESPACE, SECRETS), nodes=1)
    try:
        clusters = {m: e2e.Cluster(root, m, tools["kubectl"]) for m in MEMBERS}
        e2e.stellaris_inventory(clusters["a"], clusters, STACK)
        yield clusters
    finally:
        e2e.cluster_down(root)


@pytest.fixture(scope="module")
def project(
    fleet: dict[str, e2e.Cluster],
    venv: Path,
    pulumi: e2e.Pulumi,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """The project with a stack whose inventory is the management cluster's (its
    kubeconfig a Pulumi secret), one TServer at 2 replicas."""
    dest = tmp_path_factory.mktemp("health-project") / "tars"
    project = e2e.project_copy(dest, venv)
    write_stack(project, replicas=2)
    management = {"kubeconfig": "mgmt", "labelSelector": f"env={STACK}"}
    settings = {"tars:managementCluster": management, "tars:unavailableClusters": "fail"}
    text = fleet["a"].kubeconfig.read_text(encoding="utf-8")
    e2e.fleet_stack(project, pulumi, STACK, NAMESPACE, settings, {"mgmt": text})
    return project


def write_stack(project: Path, replicas: int) -> None:
    stack_dir(project / "stacks" / STACK, server(replicas=replicas))


def policy(pulumi: e2e.Pulumi, project: Path, value: str) -> None:
    pulumi("config", "set", "tars:unavailableClusters", value, "--stack", STACK, cwd=project).ok()


def replicas(fleet: dict[str, e2e.Cluster]) -> dict[str, int]:
    return {
        m: c.get("statefulset", NAME, f"--namespace={NAMESPACE}")["spec"]["replicas"]
        for m, c in fleet.items()
    }


def outputs(pulumi: e2e.Pulumi, project: Path) -> dict[str, Any]:
    done = pulumi("stack", "output", "--json", "--stack", STACK, cwd=project).ok()
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_the_inventory_and_credentials_come_from_the_management_cluster(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    up = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert replicas(fleet) == {"a": 2, "b": 2, "c": 2}, up.output
    found = outputs(pulumi, project)
    assert found["waves"] == [["a"], ["b"], ["c"]]
    assert found["skipped"] == {}
    # the credentials read from the Secrets never reach the state in plain text
    state = pulumi("stack", "export", "--stack", STACK, cwd=project).ok().stdout
    token = yaml.safe_load(fleet["b"].kubeconfig.read_text(encoding="utf-8"))
    secret_bits = [str(v) for u in token["users"] for v in u["user"].values() if isinstance(v, str)]
    assert secret_bits and not any(bit in state for bit in secret_bits)
    pulumi("preview", "--expect-no-changes", "--stack", STACK, cwd=project).ok()


def test_a_missing_credential_stops_the_preview_or_skips_only_its_cluster(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    management = fleet["a"]
    management.kubectl("delete", "secret", "cluster-b-secret", f"--namespace={SECRETS}")
    try:
        write_stack(project, replicas=3)
        refused = pulumi("preview", "--stack", STACK, cwd=project)
        assert refused.code != 0
        assert "TM011" in refused.output and "cluster b cannot take the change" in refused.output
        assert "cluster-b-secret does not exist" in refused.output, refused.output
        policy(pulumi, project, "skip")
        preview = pulumi("preview", "--stack", STACK, cwd=project).ok()
        assert "TM011" in preview.output and "skipped" in preview.output
        pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
        assert replicas(fleet) == {"a": 3, "b": 2, "c": 3}  # b left as it was
        assert "cluster-b-secret" in outputs(pulumi, project)["skipped"]["b"]
    finally:
        e2e.stellaris_secret(management, "b", fleet["b"])
        policy(pulumi, project, "fail")
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert replicas(fleet) == {"a": 3, "b": 3, "c": 3}
    assert outputs(pulumi, project)["skipped"] == {}


def test_an_unhealthy_status_and_a_stopped_api_server_stop_or_skip_their_cluster(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    management = fleet["a"]
    unhealthy = e2e.stellaris_cluster("b", fleet["b"], 1, STACK) | {"status": UNHEALTHY}
    management.kubectl("apply", "-f", "-", stdin=json.dumps(unhealthy))
    fleet["c"].component("stop", "kube-apiserver")
    try:
        write_stack(project, replicas=4)
        refused = pulumi("preview", "--stack", STACK, cwd=project)
        assert refused.code != 0
        assert "KubernetesUnavailable/ApiserverIsDown" in refused.output, refused.output
        assert "cluster c cannot take the change" in refused.output
        assert "does not answer" in refused.output
        policy(pulumi, project, "skip")
        up = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
        assert replicas({"a": fleet["a"], "b": fleet["b"]}) == {"a": 4, "b": 3}, up.output
        skipped = outputs(pulumi, project)["skipped"]
        assert sorted(skipped) == ["b", "c"], skipped
        assert "ApiserverIsDown" in skipped["b"] and "does not answer" in skipped["c"]
    finally:
        fleet["c"].restart_api_server()
        management.kubectl(
            "apply", "-f", "-", stdin=json.dumps(e2e.stellaris_cluster("b", fleet["b"], 1, STACK))
        )
        policy(pulumi, project, "fail")
    assert replicas({"c": fleet["c"]}) == {"c": 3}  # c was left as it was
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert replicas(fleet) == {"a": 4, "b": 4, "c": 4}


def test_an_api_server_stopped_during_up_holds_the_waves_after_it(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    """b's API server stops while wave 0 (a) rolls out: under fail the update stops at b and c
    (wave 2) is not touched; the next preview names b; under skip the next up applies c and
    leaves b."""
    a, b, c = (fleet[m] for m in MEMBERS)
    write_stack(project, replicas=5)
    a.component("stop", "kube-scheduler")  # a's new pods wait: its wave is in progress
    up = e2e.up_in_background(pulumi, STACK, project)
    try:
        e2e.wait_for("a's StatefulSet asks 5", lambda: replicas({"a": a}) == {"a": 5}, 300)
        b.component("stop", "kube-apiserver")
        a.component("start", "kube-scheduler")
        output, _ = up.communicate(timeout=900)
    finally:
        if up.poll() is None:
            up.kill()
    try:
        assert up.returncode != 0, output
        # b's StatefulSet failed on the stopped API server; nothing of c (wave 2) was touched
        assert "b/tars-dev/shop-orderserver-statefulset **updating failed**" in output, output
        assert not re.search(r"\sc/tars-dev/\S+ (updating|updated)", output), output
        assert replicas({"a": a, "c": c}) == {"a": 5, "c": 4}  # the wave after b held
        refused = pulumi("preview", "--stack", STACK, cwd=project)
        assert refused.code != 0
        assert "cluster b cannot take the change (its API server does not answer" in refused.output
        policy(pulumi, project, "skip")
        pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
        assert replicas({"a": a, "c": c}) == {"a": 5, "c": 5}
        assert sorted(outputs(pulumi, project)["skipped"]) == ["b"]
    finally:
        b.restart_api_server()
        policy(pulumi, project, "fail")
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert replicas(fleet) == {"a": 5, "b": 5, "c": 5}
