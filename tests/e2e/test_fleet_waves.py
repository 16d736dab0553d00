"""Waves that wait and can stop (docs/pulumi/clusters.md, "Waves"), on three real loopback
clusters in waves 0, 1, 2: ``b``'s pods can never be scheduled (a ClusterOverride gives its
TServer a node selector no node matches). With ``tars:waves`` ``maxFailures: 1`` the gate
after wave 1 waits its timeout, tolerates ``b`` and pauses before ``c``; with ``maxFailures:
0`` the gate stops the update and ``c`` keeps its last version. With ``approvedWaves: 1`` the
later waves are held: their objects stay as the last update left them and a new server waits
for their approval, until ``approvedWaves`` lets them take the change."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from support.builders.clusters import override
from support.builders.documents import tars_server
from support.builders.rollouts import server
from support.builders.rollouts import write_stack as stack_dir
from support.engines import e2e

pytestmark = pytest.mark.e2e

STACK = "waves"
NAMESPACE = "tars-dev"
NAME = "shop-orderserver"
MEMBERS = ("a", "b", "c")
TIMEOUT = 20
PAUSE = 3


@pytest.fixture(scope="module")
def fleet(
    tools: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, e2e.Cluster]]:
    root = tmp_path_factory.mktemp("waves")
    with e2e.fleet_up(root, MEMBERS, tools["kubectl"], (NAMESPACE,)) as clusters:
        yield clusters


def write_stack(project: Path, replicas: int, *more: dict[str, Any]) -> None:
    nowhere = [{"key": "e2e.tars.io/nowhere", "operator": "Exists"}]
    stack_dir(
        project / "stacks" / STACK,
        server(replicas=replicas),
        override("b-nowhere", clusters=["b"], targets=[{"kind": "TServer"}], nodeSelector=nowhere),
        *more,
    )


def set_waves(pulumi: e2e.Pulumi, project: Path, max_failures: int) -> None:
    value = json.dumps(
        {"maxFailures": max_failures, "pauseSeconds": PAUSE, "timeoutSeconds": TIMEOUT}
    )
    pulumi("config", "set", "tars:waves", value, "--stack", STACK, cwd=project).ok()


@pytest.fixture(scope="module")
def project(
    fleet: dict[str, e2e.Cluster],
    venv: Path,
    pulumi: e2e.Pulumi,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    dest = tmp_path_factory.mktemp("waves-project") / "tars"
    project = e2e.project_copy(dest, venv)
    write_stack(project, replicas=2)
    clusters, secrets = e2e.clusters_config(fleet)
    e2e.fleet_stack(project, pulumi, STACK, NAMESPACE, {"tars:clusters": clusters}, secrets)
    return project


def statefulset(cluster: e2e.Cluster) -> dict[str, Any]:
    return cluster.get("statefulset", NAME, f"--namespace={NAMESPACE}")


def created(cluster: e2e.Cluster) -> datetime:
    stamp = statefulset(cluster)["metadata"]["creationTimestamp"]
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def stack_outputs(pulumi: e2e.Pulumi, project: Path) -> dict[str, Any]:
    found = pulumi("stack", "output", "--json", "--show-secrets", "--stack", STACK, cwd=project)
    outputs: dict[str, Any] = json.loads(found.ok().stdout)
    return outputs


def gate_outputs(pulumi: e2e.Pulumi, project: Path) -> dict[str, Any]:
    state = json.loads(pulumi("stack", "export", "--stack", STACK, cwd=project).ok().stdout)
    return {
        r["urn"].rsplit("::", 1)[-1]: r.get("outputs") or {}
        for r in state["deployment"]["resources"]
        if r["type"] == "pulumi-python:dynamic/tars:WaveGate"
    }


def test_a_tolerated_failure_lets_the_next_wave_go_on_after_the_pause(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    set_waves(pulumi, project, max_failures=1)
    up = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    ready = {
        m: (statefulset(c).get("status") or {}).get("readyReplicas", 0) for m, c in fleet.items()
    }
    assert ready == {"a": 2, "b": 0, "c": 2}, up.output
    # c was created once the gate after b had waited its timeout and paused
    assert (created(fleet["c"]) - created(fleet["b"])).total_seconds() >= TIMEOUT + PAUSE - 1
    gates = gate_outputs(pulumi, project)
    assert sorted(gates) == ["wave-0", "wave-1", "wave-2"]
    assert gates["wave-0"]["failed"] == {} and gates["wave-2"]["failed"] == {}
    assert "0 of 2 ready" in gates["wave-1"]["failed"]["b"]
    # the kubeconfigs the gates read with are never in the state in plain text
    state = pulumi("stack", "export", "--stack", STACK, cwd=project).ok().stdout
    assert "current-context" not in state


def test_no_tolerance_stops_the_update_at_the_failed_wave(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    set_waves(pulumi, project, max_failures=0)
    write_stack(project, replicas=3)
    up = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project)
    assert up.code != 0
    assert "wave 1: cluster b is not Ready" in up.output, up.output
    assert "at most 0 allowed" in up.output and "the waves after it are not applied" in up.output
    replicas = {m: statefulset(c)["spec"]["replicas"] for m, c in fleet.items()}
    assert replicas == {"a": 3, "b": 3, "c": 2}


def test_crd_mode_on_clusters_without_the_tarsk8s_crds_is_a_clear_error(
    project: Path, pulumi: e2e.Pulumi
) -> None:
    pulumi("config", "set", "tars:mode", "crd", "--stack", STACK, cwd=project).ok()
    try:
        refused = pulumi("preview", "--stack", STACK, cwd=project)
        assert refused.code != 0
        for m in MEMBERS:
            assert f"cluster {m} does not serve k8s.tars.io/v1beta3" in refused.output, (
                refused.output
            )
    finally:
        pulumi("config", "set", "tars:mode", "expand", "--stack", STACK, cwd=project).ok()


def test_waves_beyond_the_approved_ones_are_held_until_approved(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    """The canary wave takes the change (replicas 4, a new server); b and c keep their last
    objects, the new server waiting for their approval; approving every wave applies it."""
    stock = tars_server("Shop", "StockServer")
    write_stack(project, 4, stock)
    waves = {"approvedWaves": 1, "timeoutSeconds": TIMEOUT}
    pulumi("config", "set", "tars:waves", json.dumps(waves), "--stack", STACK, cwd=project).ok()
    preview = pulumi("preview", "--diff", "--stack", STACK, cwd=project).ok()
    assert "cluster b is held (wave 1 waits for approval" in preview.output, preview.output
    assert "shop-stockserver wait(s) for its approval" in preview.output
    up = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    replicas = {m: statefulset(c)["spec"]["replicas"] for m, c in fleet.items()}
    assert replicas == {"a": 4, "b": 3, "c": 2}, up.output

    def stock_on(cluster: e2e.Cluster) -> bool:
        return cluster.exists("statefulset", "shop-stockserver", NAMESPACE)

    assert [m for m, c in fleet.items() if stock_on(c)] == ["a"]
    outputs = stack_outputs(pulumi, project)
    why = "wave 1 waits for approval (tars:waves approvedWaves 1)"
    assert outputs["held"] == {"b": why, "c": why.replace("wave 1", "wave 2")}
    assert outputs["progress"]["c"] == {"held": why.replace("wave 1", "wave 2")}

    # the approval: every wave (b, whose pods never run, tolerated)
    waves = {"approvedWaves": 3, "maxFailures": 1, "timeoutSeconds": TIMEOUT}
    pulumi("config", "set", "tars:waves", json.dumps(waves), "--stack", STACK, cwd=project).ok()
    up = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    replicas = {m: statefulset(c)["spec"]["replicas"] for m, c in fleet.items()}
    assert replicas == {"a": 4, "b": 4, "c": 4}, up.output
    assert all(stock_on(c) for c in fleet.values())
    assert stack_outputs(pulumi, project)["held"] == {}
