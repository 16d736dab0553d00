"""Fields shared with other managers, decided by the cluster (docs/concepts/live.md): a crd-mode
stack whose TServer a second field manager writes (``kubectl apply --server-side
--field-manager tarsweb``), checked by the real ``pulumi preview`` against the live
``managedFields``; and a Rollout aborted while TarsWeb owns ``spec.release``."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.builders.rollouts import STABLE_ID, rollout, server
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-shared"
STACK = "shared"
NAME = "shop-orderserver"
MANAGER = f"tars-components-{STACK}"
TARSWEB_ID = "v1.6.0"
TARSWEB_IMAGE = "registry/shop.orderserver:v1.6.0"


def write(project: Path, *documents: dict[str, Any]) -> None:
    e2e.write_documents(project, STACK, NAMESPACE, *documents)


@pytest.fixture(scope="module")
def project(
    venv: Path, tmp_path_factory: pytest.TempPathFactory, cluster: e2e.Cluster, pulumi: e2e.Pulumi
) -> Iterator[Path]:
    """A crd-mode stack of one TServer in a namespace of its own, up."""
    dest = tmp_path_factory.mktemp("shared") / "tars"
    with e2e.crd_stack(dest, venv, pulumi, cluster, STACK, NAMESPACE, server()) as project:
        pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
        yield project


def tserver(cluster: e2e.Cluster) -> dict[str, Any]:
    return cluster.get(
        "tservers.k8s.tars.io", NAME, f"--namespace={NAMESPACE}", "--show-managed-fields"
    )


def tarsweb_writes(cluster: e2e.Cluster, spec: dict[str, Any]) -> None:
    """A TServer write as TarsWeb makes it: server-side, under its own manager, forced."""
    body = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": spec,
    }
    cluster.kubectl(
        "apply",
        "--server-side",
        "--field-manager=tarsweb",
        "--force-conflicts",
        "-f",
        "-",
        stdin=json.dumps(body),
    )


def test_a_field_another_manager_took_fails_the_preview_with_both_values_and_the_fix(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster, venv: Path
) -> None:
    tarsweb_writes(cluster, {"k8s": {"replicas": 7}})
    assert e2e.owners_of(tserver(cluster), "spec", "k8s", "replicas") == ["tarsweb"]
    # the stack did not change: the engine itself would see nothing before the next change
    result = pulumi("preview", "--stack", STACK, cwd=project)
    assert result.code != 0, result.output
    assert "spec.k8s.replicas: owned by tarsweb" in result.output
    assert "(live 7), the stack applies 4" in result.output
    assert "replicas=external" in result.output
    # the same conflict from the command line, read from the cluster instead of an export
    diffed = subprocess.run(
        [
            str(venv / "bin" / "tars-components"),
            "diff",
            "--live-from",
            "-",
            f"stacks/{STACK}",
            "--namespace",
            NAMESPACE,
            "--mode",
            "crd",
            "--format",
            "json",
        ],
        cwd=project,
        env={**os.environ, "KUBECONFIG": str(cluster.kubeconfig)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert diffed.returncode == 0, diffed.stderr
    conflicts = json.loads(diffed.stdout)["conflicts"]
    assert [(c["manager"], c["field"], c["live"], c["build"]) for c in conflicts] == [
        ("tarsweb", "spec.k8s.replicas", 7, 4)
    ]
    # handed over as the message says, the preview is clean and the live count stays
    pulumi(
        "config", "set", "tars:fieldOwnership", "replicas=external", "--stack", STACK, cwd=project
    ).ok()
    pulumi("up", "--yes", "--stack", STACK, cwd=project).ok()
    live = tserver(cluster)
    assert live["spec"]["k8s"]["replicas"] == 7
    assert MANAGER not in e2e.owners_of(live, "spec", "k8s", "replicas")


def test_abort_writes_the_stable_release_over_its_external_owner(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    pulumi(
        "config",
        "set",
        "tars:fieldOwnership",
        "release=external,replicas=external",
        "--stack",
        STACK,
        cwd=project,
    ).ok()
    write(project, server(), rollout(0))
    pulumi("up", "--yes", "--stack", STACK, cwd=project).ok()
    # TarsWeb publishes a newer release itself, as it does: an update (client-go's Patch),
    # not an apply, so the replicas it applied before stay its own
    release = {"id": TARSWEB_ID, "image": TARSWEB_IMAGE}
    cluster.kubectl(
        "patch",
        "tserver.k8s.tars.io",
        NAME,
        f"--namespace={NAMESPACE}",
        "--type=merge",
        "--field-manager=tarsweb",
        "-p",
        json.dumps({"spec": {"release": release}}),
    )
    assert tserver(cluster)["spec"]["release"]["id"] == TARSWEB_ID
    assert e2e.owners_of(tserver(cluster), "spec", "release", "id") == ["tarsweb"]

    write(project, server(), rollout(0, abort=True))
    preview = pulumi("preview", "--stack", STACK, cwd=project).ok()
    assert "TP018" in preview.output
    output = pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok().output
    # the 7 instances TarsWeb scaled to, read at preview (replicas are external too)
    assert f"7/7 on {STABLE_ID} (aborted" in output
    live = tserver(cluster)
    assert live["spec"]["release"]["id"] == STABLE_ID
    assert live["spec"]["k8s"]["updateStrategy"]["rollingUpdate"]["partition"] == 0
    assert live["metadata"]["labels"]["tars.io/ServerID"]
    assert e2e.owners_of(live, "spec", "release", "id") == [MANAGER]


def test_await_tservers_holds_up_until_the_controller_reports_ready(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    # the loopback cluster has no TarsK8S controller: the test writes the status it would
    pulumi("config", "set", "tars:awaitTServers", "true", "--stack", STACK, cwd=project).ok()
    write(project, server())  # the Rollout removed: the TServer changes and is applied
    up = e2e.up_in_background(pulumi, STACK, project)
    try:
        e2e.wait_for(
            "the TServer applied with its wait",
            lambda: "pulumi.com/waitFor" in (tserver(cluster)["metadata"].get("annotations") or {}),
            seconds=120,
        )
        time.sleep(5)
        assert up.poll() is None, "pulumi up returned before the controller's status"
        replicas = tserver(cluster)["spec"]["k8s"]["replicas"]
        status = {
            "replicas": replicas,
            "currentReplicas": replicas,
            "readyReplicas": replicas,
            "selector": "tars.io/ServerApp=Shop,tars.io/ServerName=OrderServer",
        }
        cluster.kubectl(
            "patch",
            "tserver.k8s.tars.io",
            NAME,
            f"--namespace={NAMESPACE}",
            "--subresource=status",
            "--type=merge",
            "-p",
            json.dumps({"status": status}),
        )
        output, _ = up.communicate(timeout=300)
        assert up.returncode == 0, output
    finally:
        if up.poll() is None:
            up.kill()
        pulumi("config", "rm", "tars:awaitTServers", "--stack", STACK, cwd=project)
