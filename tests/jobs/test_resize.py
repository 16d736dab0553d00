"""``pulumi up`` after claims grow (docs/concepts/storage.md, "Waiting for the new capacity"):
it returns once every claim reports its new capacity; the pods of volumes that grow only
offline are restarted one at a time, highest ordinal first, each back and Ready (and its
claims grown) before the next goes; a claim that never grows fails with what it reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tars_components.jobs.resize import (
    RESIZE_PENDING,
    ClaimTarget,
    ResizeError,
    finish_resize,
)


def claim(capacity: str, pending: bool = False) -> dict[str, Any]:
    conditions = [{"type": RESIZE_PENDING, "status": "True"}] if pending else []
    return {"status": {"capacity": {"storage": capacity}, "conditions": conditions}}


def pod(uid: str, ready: bool = True) -> dict[str, Any]:
    return {
        "metadata": {"uid": uid},
        "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


class Cluster:
    """A scripted cluster: each poll (``sleep``) is one pass of the resizer, the StatefulSet
    controller and the kubelet."""

    def __init__(self, offline: bool, resizes: bool = True, scaled_to: int = 2) -> None:
        self.offline, self.resizes, self.scaled_to = offline, resizes, scaled_to
        self.claims = {f"data-shop-{i}": claim("5Gi") for i in range(2)}
        self.pods: dict[str, dict[str, Any] | None] = {
            f"shop-{i}": pod(f"u{i}") for i in range(scaled_to)
        }
        self.events: list[str] = []
        self.generation = 0

    def claim(self, name: str) -> Mapping[str, Any] | None:
        return self.claims.get(name)

    def pod(self, name: str) -> Mapping[str, Any] | None:
        return self.pods.get(name)

    def delete_pod(self, name: str, uid: str) -> None:
        found = self.pods[name]
        assert found is not None and found["metadata"]["uid"] == uid
        self.events.append(f"delete {name}")
        self.pods[name] = None

    def sleep(self, _seconds: float) -> None:
        self.generation += 1
        for name, obj in self.claims.items():
            grown = obj["status"]["capacity"]["storage"] == "10Gi"
            pending = bool(obj["status"]["conditions"])
            if not self.resizes or grown:
                continue
            if not self.offline:
                self.claims[name] = claim("10Gi")
            elif not pending:
                self.claims[name] = claim("5Gi", pending=True)
        for name, found in self.pods.items():
            if found is None:  # the StatefulSet controller starts it again; the kubelet grows
                self.pods[name] = pod(f"{name}-{self.generation}")
                self.events.append(f"started {name}")
                ordinal = name.rsplit("-", 1)[1]
                self.claims[f"data-shop-{ordinal}"] = claim("10Gi")


TARGETS = [ClaimTarget(f"data-shop-{i}", "10Gi", f"shop-{i}") for i in range(2)]


def run(cluster: Cluster, timeout: float = 60) -> dict[str, list[str]]:
    ticks = iter(range(10_000))
    return finish_resize(
        cluster, TARGETS, timeout, sleep=cluster.sleep, clock=lambda: float(next(ticks))
    )


def test_claims_that_grow_online_are_awaited_and_no_pod_restarts() -> None:
    cluster = Cluster(offline=False)
    assert run(cluster) == {"restarted": [], "unmounted": []}
    assert cluster.events == []
    assert all(c["status"]["capacity"]["storage"] == "10Gi" for c in cluster.claims.values())


def test_offline_volumes_restart_their_pods_one_at_a_time_highest_ordinal_first() -> None:
    cluster = Cluster(offline=True)
    assert run(cluster) == {"restarted": ["shop-1", "shop-0"], "unmounted": []}
    assert cluster.events == ["delete shop-1", "started shop-1", "delete shop-0", "started shop-0"]


def test_a_claim_that_never_grows_fails_with_what_it_reports() -> None:
    with pytest.raises(ResizeError) as raised:
        run(Cluster(offline=False, resizes=False), timeout=5)
    message = str(raised.value)
    assert "the volumes expanded by their resizer: not within 5 s" in message
    assert "claim data-shop-0 reports 5Gi" in message


def test_a_pending_claim_without_a_pod_is_left_to_grow_when_one_mounts_it() -> None:
    cluster = Cluster(offline=True, scaled_to=1)  # nothing mounts data-shop-1 now
    assert run(cluster) == {"restarted": ["shop-0"], "unmounted": ["data-shop-1"]}
    assert cluster.events == ["delete shop-0", "started shop-0"]
