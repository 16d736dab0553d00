"""A Rollout walked with the real ``pulumi up`` on the default engine: kube-controller-manager's
StatefulSet controller moves the pods, and each step is checked as a user would check it:
which ordinals carry the StatefulSet's update revision (their ``controller-revision-hash``)
and which image they run, right when ``pulumi up`` returns."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.builders.rollouts import NEW_IMAGE, STABLE_IMAGE, rollout, server
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-rollout"
STACK = "rollout"
NAME = "shop-orderserver"


def write(project: Path, *documents: dict[str, Any]) -> None:
    e2e.write_documents(project, STACK, NAMESPACE, *documents)


@pytest.fixture(scope="module")
def project(
    venv: Path, tmp_path_factory: pytest.TempPathFactory, cluster: e2e.Cluster, pulumi: e2e.Pulumi
) -> Iterator[Path]:
    """The project with a stack of its own in a namespace with a node of its own."""
    dest = tmp_path_factory.mktemp("rollouts") / "tars"
    project = e2e.stack_project(dest, venv, pulumi, STACK, NAMESPACE, "expand")
    with e2e.namespace_with_node(cluster, NAMESPACE):
        yield project


def up(pulumi: e2e.Pulumi, project: Path, *documents: dict[str, Any]) -> str:
    write(project, *documents)
    return pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok().output


def ordinals(cluster: e2e.Cluster) -> dict[int, tuple[str, str, str, bool]]:
    """``ordinal: (uid, revision hash, image, ready)`` of the server's pods."""
    found = {}
    for pod in cluster.get("pods", f"--namespace={NAMESPACE}")["items"]:
        meta = pod["metadata"]
        if not meta["name"].startswith(f"{NAME}-") or meta.get("deletionTimestamp"):
            continue
        image = pod["spec"]["containers"][0]["image"]
        ready = any(
            c["type"] == "Ready" and c["status"] == "True"
            for c in pod.get("status", {}).get("conditions") or []
        )
        revision = meta["labels"]["controller-revision-hash"]
        found[int(meta["name"].rsplit("-", 1)[1])] = (meta["uid"], revision, image, ready)
    return found


def revisions(cluster: e2e.Cluster) -> tuple[str, str]:
    """The StatefulSet's ``(currentRevision, updateRevision)``."""
    status = cluster.get("statefulset", NAME, f"--namespace={NAMESPACE}")["status"]
    return status["currentRevision"], status["updateRevision"]


def assert_step(cluster: e2e.Cluster, images: list[str]) -> None:
    """Right when ``pulumi up`` returned: ordinal i runs ``images[i]`` and is Ready, and the
    ordinals on the new image are exactly those on the update revision."""
    found = ordinals(cluster)
    assert sorted(found) == list(range(len(images))), found
    assert [found[i][2] for i in range(len(images))] == images
    assert all(found[i][3] for i in found), f"not every pod is Ready: {found}"
    _, update = revisions(cluster)
    on_update = [i for i in sorted(found) if found[i][1] == update]
    expected = [i for i, image in enumerate(images) if image == images[-1]]
    if images[-1] != images[0]:
        assert on_update == expected, (on_update, expected)


def test_each_step_updates_exactly_the_planned_ordinals(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    stable = server()
    stable["spec"]["release"] = {"id": "v1.4.0", "image": STABLE_IMAGE}
    up(pulumi, project, stable)
    assert_step(cluster, [STABLE_IMAGE] * 4)

    planned = {
        0: ([STABLE_IMAGE] * 3 + [NEW_IMAGE], "1/4 on v1.5.0 (ordinal 3), 3/4 on v1.4.0"),
        1: ([STABLE_IMAGE] * 2 + [NEW_IMAGE] * 2, "2/4 on v1.5.0 (ordinals 2-3), 2/4 on v1.4.0"),
        2: ([NEW_IMAGE] * 4, "4/4 on v1.5.0 (ordinals 0-3)"),
    }
    for step, (images, plan) in planned.items():
        output = up(pulumi, project, server(), rollout(step))
        assert f"plan: {NAME}: {plan}" in output
        assert_step(cluster, images)

    output = up(pulumi, project, server(), rollout(2, abort=True))
    assert "4/4 on v1.4.0 (aborted" in output
    assert_step(cluster, [STABLE_IMAGE] * 4)
    _, update = revisions(cluster)
    assert {revision for _, revision, _, _ in ordinals(cluster).values()} == {update}


def test_the_statefulset_engine_stops_the_highest_ordinal(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    # 4 replicas, ordinal 3 stopped: 3 pods run, "50%" of them (2) on the new release
    output = up(pulumi, project, server(), rollout(1, stopped=[3]))
    assert "2/3 on v1.5.0 (ordinals 1-2), 1/3 on v1.4.0, ordinal 3 stopped" in output
    assert_step(cluster, [STABLE_IMAGE, NEW_IMAGE, NEW_IMAGE])


HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "orders", "namespace": NAMESPACE},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": NAME},
        "minReplicas": 6,
        "maxReplicas": 8,
    },
}


def test_an_hpa_owned_count_is_read_at_preview_and_neither_hangs_nor_skips(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    up(pulumi, project, server(), rollout(0, abort=True))  # every pod back on stable
    cluster.kubectl("apply", "-f", "-", stdin=json.dumps(HPA))
    e2e.wait_for(
        "the HPA's minimum",
        lambda: (
            cluster.get("statefulset", NAME, f"--namespace={NAMESPACE}")["spec"]["replicas"] == 6
        ),
        seconds=120,
    )
    # the stack still manages replicas: the preview refuses, naming the HPA and the fix
    write(project, server(), rollout(1))
    refused = pulumi("preview", "--stack", STACK, cwd=project)
    assert refused.code != 0
    assert "TO003" in refused.output and "HorizontalPodAutoscaler orders" in refused.output
    assert "replicas=external" in refused.output
    owners = ("tars:fieldOwnership", "replicas=external", "--stack", STACK)
    pulumi("config", "set", *owners, cwd=project).ok()
    try:
        # "50%" of the 6 that run: ordinals 3-5, and `up` returns once they are Ready
        output = up(pulumi, project, server(), rollout(1))
        assert f"plan: {NAME}: 3/6 on v1.5.0 (ordinals 3-5), 3/6 on v1.4.0" in output
        assert_step(cluster, [STABLE_IMAGE] * 3 + [NEW_IMAGE] * 3)
        output = up(pulumi, project, server(), rollout(2))
        assert_step(cluster, [NEW_IMAGE] * 6)
    finally:
        cluster.kubectl("delete", "hpa", "orders", f"--namespace={NAMESPACE}", check=False)
        pulumi("config", "rm", "tars:fieldOwnership", "--stack", STACK, cwd=project)


def test_gates_hold_for_approval_and_for_time(
    project: Path, pulumi: e2e.Pulumi, cluster: e2e.Cluster
) -> None:
    up(pulumi, project, server(), rollout(0, abort=True))
    gates = {"pauses": [{"after": 0}, {"after": 1, "seconds": 20}]}
    up(pulumi, project, server(), rollout(0, **gates))
    # step 1 is past the approval pause after step 0: refused until approved
    write(project, server(), rollout(1, **gates))
    refused = pulumi("preview", "--stack", STACK, cwd=project)
    assert refused.code != 0 and "TP019" in refused.output, refused.output
    # approved: `up` returns once the step's pods are Ready and 20 s more have passed
    write(project, server(), rollout(1, approved=0, **gates))
    start = time.monotonic()
    pulumi("up", "--yes", "--skip-preview", "--stack", STACK, cwd=project).ok()
    assert time.monotonic() - start >= 20
    assert_step(cluster, [STABLE_IMAGE] * 2 + [NEW_IMAGE] * 2)
    outputs = json.loads(
        pulumi("stack", "output", "--json", "--stack", STACK, cwd=project).ok().stdout
    )
    status = outputs["rollouts"][f"{NAMESPACE}/{NAME}"]
    assert (status["step"], status["partition"], status["pause"]) == (1, 2, {"seconds": 20})
    assert status["live"] == {"replicas": 4, "updated": 2, "ready": 4, "current": 2}
