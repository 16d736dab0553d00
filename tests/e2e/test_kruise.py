"""The Kruise engine judged by Kruise: OpenKruise's own kruise-manager (``tools/e2e/kruise``,
built by ``tools/e2e/toolchain``) on the loopback cluster runs what ``render --workload
kruise`` writes for each step of a Rollout ``[1, "50%", "100%"]`` over 4 replicas, and the
pods are checked as a user would check them: which ordinals run which image, and whether
they are the same pods (an image-only step is an in-place update)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.builders.rollouts import (
    NEW_IMAGE,
    STABLE_ID,
    STABLE_IMAGE,
    rollout,
    server,
    write_stack,
)
from support.engines import e2e

pytestmark = pytest.mark.e2e

NAMESPACE = "tars-kruise"
NAME = "shop-orderserver"
TOOLS = Path(__file__).resolve().parents[2] / "tools" / "e2e"


@pytest.fixture(scope="module")
def kruise(cluster: e2e.Cluster) -> Iterator[e2e.Cluster]:
    """kruise-manager on the session's cluster, in a namespace with a node of its own; the
    webhook configurations removed and the process stopped afterwards."""
    command = [sys.executable, str(TOOLS / "kruise")]
    where = [str(cluster.dir), "--cluster", cluster.name]
    done = subprocess.run([*command, "up", *where], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"tools/e2e/kruise up failed:\n{done.stderr}")
    try:
        with e2e.namespace_with_node(cluster, NAMESPACE):
            yield cluster
    finally:
        subprocess.run([*command, "down", *where], capture_output=True, text=True, check=False)


def apply_step(cluster: e2e.Cluster, directory: Path, *documents: dict[str, Any]) -> None:
    """``tars-components render --workload kruise -o json`` of the stack, applied
    server-side as one field manager."""
    stack = write_stack(directory, *documents) / "stack.yaml"
    # the builders write tars-dev's documents; this module has a namespace of its own
    stack.write_text(stack.read_text(encoding="utf-8").replace("tars-dev", NAMESPACE))
    rendered = subprocess.run(
        [
            sys.executable,
            "-m",
            "tars_components",
            "render",
            str(directory),
            "--namespace",
            NAMESPACE,
            "--workload",
            "kruise",
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert rendered.returncode == 0, rendered.stderr
    cluster.kubectl(
        "apply",
        "--server-side",
        "--field-manager=e2e",
        "--force-conflicts",
        "-f",
        "-",
        stdin=rendered.stdout,
    )


def pods(cluster: e2e.Cluster) -> dict[int, tuple[str, str, bool]]:
    """``ordinal: (uid, image running, ready)`` of the server's pods."""
    found: dict[int, tuple[str, str, bool]] = {}
    for pod in cluster.get("pods", f"--namespace={NAMESPACE}")["items"]:
        name = pod["metadata"]["name"]
        if not name.startswith(f"{NAME}-") or pod["metadata"].get("deletionTimestamp"):
            continue
        statuses = {s["name"]: s for s in pod.get("status", {}).get("containerStatuses") or []}
        main = statuses.get(NAME.split("-", 1)[1]) or next(iter(statuses.values()), {})
        ready = any(
            c["type"] == "Ready" and c["status"] == "True"
            for c in pod.get("status", {}).get("conditions") or []
        )
        found[int(name.rsplit("-", 1)[1])] = (pod["metadata"]["uid"], main.get("image", ""), ready)
    return found


def settled(cluster: e2e.Cluster, images: list[str]) -> bool:
    """True once ordinal i runs ``images[i]``, Ready, and Kruise has seen the change."""
    found = pods(cluster)
    running = [found.get(i, ("", "", False))[1:] for i in range(len(images))]
    if running != [(image, True) for image in images] or len(found) != len(images):
        return False
    sts = cluster.get("statefulsets.apps.kruise.io", NAME, f"--namespace={NAMESPACE}")
    return bool(sts.get("status", {}).get("observedGeneration") == sts["metadata"]["generation"])


def wait_images(cluster: e2e.Cluster, images: list[str]) -> dict[int, tuple[str, str, bool]]:
    e2e.wait_for(f"{NAME} on {images}", lambda: settled(cluster, images), seconds=180)
    return pods(cluster)


def test_each_step_updates_exactly_the_planned_ordinals_in_place(
    kruise: e2e.Cluster, tmp_path: Path
) -> None:
    stable = server()
    stable["spec"]["release"] = {"id": STABLE_ID, "image": STABLE_IMAGE}
    apply_step(kruise, tmp_path / "stable", stable)
    before = wait_images(kruise, [STABLE_IMAGE] * 4)

    expected = {
        0: [STABLE_IMAGE] * 3 + [NEW_IMAGE],  # step 1: the highest ordinal first
        1: [STABLE_IMAGE] * 2 + [NEW_IMAGE] * 2,  # "50%" of 4
        2: [NEW_IMAGE] * 4,
    }
    for step, images in expected.items():
        apply_step(kruise, tmp_path / f"step-{step}", server(), rollout(step))
        now = wait_images(kruise, images)
        # an image-only step restarts containers in their pods: the same pods, never recreated
        assert {i: p[0] for i, p in now.items()} == {i: p[0] for i, p in before.items()}

    apply_step(kruise, tmp_path / "abort", server(), rollout(2, abort=True))
    after = wait_images(kruise, [STABLE_IMAGE] * 4)
    assert {i: p[0] for i, p in after.items()} == {i: p[0] for i, p in before.items()}


def test_a_stopped_instance_is_reserved_and_the_step_counts_the_others(
    kruise: e2e.Cluster, tmp_path: Path
) -> None:
    # stopped: [0] over 4 replicas: Kruise runs ordinals 1-3; "50%" of those 3 is 2 instances,
    # which Kruise's partition (counting past the reserved ordinal) gives to ordinals 2 and 3
    apply_step(kruise, tmp_path / "stopped", server(), rollout(1, stopped=[0]))
    expected = {1: STABLE_IMAGE, 2: NEW_IMAGE, 3: NEW_IMAGE}

    def running() -> bool:
        found = pods(kruise)
        return {o: (p[1], p[2]) for o, p in found.items()} == {
            o: (image, True) for o, image in expected.items()
        }

    e2e.wait_for(f"{NAME} on {expected}", running, seconds=180)
    sts = kruise.get("statefulsets.apps.kruise.io", NAME, f"--namespace={NAMESPACE}")
    assert (sts["spec"]["replicas"], sts["spec"]["reserveOrdinals"]) == (3, [0])
    assert sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"] == 1
