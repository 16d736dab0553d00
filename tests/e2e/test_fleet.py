"""One environment on three real clusters (docs/pulumi/clusters.md): three loopback clusters
``a``, ``b``, ``c`` listed in ``tars:clusters`` with their kubeconfigs as Pulumi secrets, in
waves 0, 1 and 2, ``b`` at 3 replicas by a ClusterOverride. ``pulumi up`` applies every
cluster with its own provider, wave after wave (a wave's objects are created once the wave
before it is applied and Ready), its outputs give the waves and each cluster's pods, and
``diff --live-from`` on one cluster sees a change made there with kubectl."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.builders.clusters import override
from support.builders.rollouts import server, write_stack
from support.engines import e2e

pytestmark = pytest.mark.e2e

STACK = "fleet"
NAMESPACE = "tars-dev"
NAME = "shop-orderserver"
MEMBERS = ("a", "b", "c")


@pytest.fixture(scope="module")
def fleet(
    tools: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, e2e.Cluster]]:
    """Three loopback clusters (one namespace, one fake node each) for this module."""
    root = tmp_path_factory.mktemp("fleet")
    with e2e.fleet_up(root, MEMBERS, tools["kubectl"], (NAMESPACE,)) as clusters:
        yield clusters


@pytest.fixture(scope="module")
def project(
    fleet: dict[str, e2e.Cluster],
    venv: Path,
    pulumi: e2e.Pulumi,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """The project with a stack ``fleet``: the three clusters in waves, their kubeconfigs as
    secrets, one TServer at 2 replicas, 3 on ``b``."""
    dest = tmp_path_factory.mktemp("fleet-project") / "tars"
    project = e2e.project_copy(dest, venv)
    write_stack(
        project / "stacks" / STACK,
        server(replicas=2),
        override(
            "b-replicas", clusters=["b"], targets=[{"kind": "TServer", "name": NAME}], replicas=3
        ),
    )
    clusters, secrets = e2e.clusters_config(fleet)
    e2e.fleet_stack(project, pulumi, STACK, NAMESPACE, {"tars:clusters": clusters}, secrets)
    return project


def statefulset(cluster: e2e.Cluster) -> dict[str, Any]:
    return cluster.get("statefulset", NAME, f"--namespace={NAMESPACE}")


def test_up_applies_each_cluster_in_its_wave_with_its_overrides(
    project: Path, pulumi: e2e.Pulumi, fleet: dict[str, e2e.Cluster]
) -> None:
    up = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    replicas = {m: statefulset(c)["spec"]["replicas"] for m, c in fleet.items()}
    assert replicas == {"a": 2, "b": 3, "c": 2}, up.output
    for m, c in fleet.items():
        status = statefulset(c).get("status") or {}
        assert status.get("readyReplicas") == replicas[m], (m, status)
    # wave after wave: each wave's StatefulSet was created after the one before was Ready
    created = {m: statefulset(c)["metadata"]["creationTimestamp"] for m, c in fleet.items()}
    assert created["a"] <= created["b"] <= created["c"], created
    outputs = json.loads(
        pulumi("stack", "output", "--json", "--stack", STACK, cwd=project).ok().stdout
    )
    assert sorted(outputs["clusters"]) == sorted(MEMBERS)
    assert outputs["waves"] == [["a"], ["b"], ["c"]]
    ready = {
        m: {k.rsplit("/", 1)[-1]: v["ready"] for k, v in servers.items()}
        for m, servers in outputs["progress"].items()
    }
    assert ready == {"a": {NAME: 2}, "b": {NAME: 3}, "c": {NAME: 2}}, outputs["progress"]
    # an unchanged fleet previews as nothing to do
    pulumi("preview", "--expect-no-changes", "--stack", STACK, cwd=project).ok()


def test_drift_on_one_cluster_is_seen_against_that_clusters_render(
    project: Path, venv: Path, fleet: dict[str, e2e.Cluster]
) -> None:
    b = fleet["b"]
    b.kubectl("scale", "statefulset", NAME, f"--namespace={NAMESPACE}", "--replicas=5")
    done = subprocess.run(
        [
            str(venv / "bin" / "tars-components"),
            *("diff", "--stack", STACK, "--live-from", "b", "--cluster", "b"),
            *("--format", "json"),
        ],
        cwd=project,
        env={**os.environ, "KUBECONFIG": str(b.kubeconfig)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    document = json.loads(done.stdout)
    drift = [c for c in document["changes"] if c["kind"] == "StatefulSet" and c["name"] == NAME]
    fields = [f for c in drift for f in c["fields"] if f["path"] == "spec.replicas"]
    assert [(f["old"], f["new"]) for f in fields] == [(5, 3)], document
    kinds = {c["kind"] for c in document["changes"]}
    assert not kinds & {"Cluster", "ClusterOverride"}, kinds


def test_a_live_diff_across_every_cluster(
    project: Path, venv: Path, fleet: dict[str, e2e.Cluster]
) -> None:
    """``diff --stack ENV --live-from-clusters``: each cluster read with the kubeconfig context
    of its name and compared with its own render; only b drifted (scaled above)."""
    paths = os.pathsep.join(str(c.kubeconfig) for c in fleet.values())
    done = subprocess.run(
        [
            str(venv / "bin" / "tars-components"),
            *("diff", "--stack", STACK, "--live-from-clusters", "--format", "json"),
            "--exit-code",
        ],
        cwd=project,
        env={**os.environ, "KUBECONFIG": paths},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 3, done.stderr
    document = json.loads(done.stdout)
    assert sorted(document["clusters"]) == ["a", "b", "c"]
    changed = {
        name: [
            (f["old"], f["new"])
            for c in result["changes"]
            if c["kind"] == "StatefulSet"
            for f in c["fields"]
            if f["path"] == "spec.replicas"
        ]
        for name, result in document["clusters"].items()
    }
    assert changed == {"a": [], "b": [(5, 3)], "c": []}, document
