"""Waves that wait and can stop (tars_components.jobs.waves): the ``tars:waves`` settings,
what a workload's status says, a wave's verdict and the watch (on a scripted clock and
cluster)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tars_components.components.clusters import gated_waves, watched_ids
from tars_components.jobs.waves import (
    Watched,
    WaveSettings,
    hold_plan,
    not_ready,
    verdict,
    watch_wave,
    wave_settings,
)
from tars_components.kernel.errors import UsageError
from tars_components.kubeapi import LiveReadError
from tars_components.loading.load import load_stack
from tars_components.models.kind_facts import object_id
from tars_components.pipeline.stack import output_objects
from tars_components.settings.options import Mode, Options

DEV = Path(__file__).resolve().parents[2] / "stacks" / "dev"


def test_settings() -> None:
    assert wave_settings(None) == WaveSettings()
    given = wave_settings('{"maxFailures": "34%", "pauseSeconds": 30, "timeoutSeconds": 120}')
    assert given == WaveSettings(34, True, 30, 120)
    assert [given.allowed(n) for n in (1, 2, 3, 10)] == [0, 0, 1, 3]  # rounded down
    assert wave_settings({"maxFailures": 1}).allowed(3) == 1
    for bad, says in [
        ({"maxFailures": -1}, "maxFailures: a non-negative count"),
        ({"maxFailures": "120%"}, "a percentage from 0% to 100%"),
        ({"pauseSeconds": "5m"}, "pauseSeconds: a whole number of seconds"),
        ({"timeoutSeconds": 0}, "timeoutSeconds: a whole number of seconds of at least 1"),
        ({"pause": 1}, "tars:waves.pause: unknown field"),
        ({"approvedWaves": -1}, "approvedWaves: how many waves, from the first"),
        ({"approvedWaves": True}, "approvedWaves: how many waves"),
    ]:
        with pytest.raises(UsageError, match=says):
            wave_settings(bad)


def test_approved_waves_hold_the_later_ones() -> None:
    assert not any(WaveSettings().held(n) for n in range(5))  # by default every wave goes
    one = wave_settings({"approvedWaves": "1"})
    assert one.approved == 1 and not one.gated  # a hold needs no gate
    assert [one.held(n) for n in range(3)] == [False, True, True]
    assert wave_settings({"approvedWaves": 0}).held(0)  # a freeze: no wave takes the change


def _ids(stack: Any, options: Options) -> list[str]:
    return sorted(object_id(o) for o in output_objects(stack, options))


@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
def test_a_held_cluster_keeps_its_objects_and_new_servers_wait(mode: Mode) -> None:
    options = Options(namespace="tars-dev", mode=mode)
    before = load_stack(DEV, "tars-dev")
    gateway = next(s for s in before.servers if s.name == "shop-gatewayserver")
    deployed = _ids(
        before.with_documents([d for d in before.documents if d is not gateway]), options
    )
    rendered = _ids(before, options)  # this change adds the gateway
    plan = hold_plan("bj", "wave 1 waits", before, options, rendered, deployed)
    assert plan.problems == ()
    assert gateway not in plan.stack.documents
    assert len(plan.stack.documents) == len(before.documents) - 1
    new = sorted(set(rendered) - set(deployed))
    assert list(plan.waiting) == new and new  # its Service and workload, or its TServer
    assert all("shop-gatewayserver" in i for i in plan.waiting)


def test_a_held_cluster_refuses_a_deletion_and_is_left_out_when_never_applied() -> None:
    options = Options(namespace="tars-dev")
    stack = load_stack(DEV, "tars-dev")
    rendered = _ids(stack, options)
    gone = "v1/ConfigMap:tars-dev/removed-elsewhere"
    plan = hold_plan("bj", "wave 1 waits", stack, options, rendered, [*rendered, gone])
    assert plan.problems == (
        f"cluster bj is held (wave 1 waits) but this change would delete {gone} there, which "
        "cannot wait with a new document: approve the wave (tars:waves approvedWaves) to make "
        "that change",
    )
    never = hold_plan("bj", "wave 1 waits", stack, options, rendered, [])
    assert never.stack.documents == () and never.stack.objects == ()
    assert list(never.waiting) == rendered and never.problems == ()


def _sts(replicas: int, ready: int, updated: int, generation: int = 1, seen: int = 1) -> Any:
    return {
        "kind": "StatefulSet",
        "metadata": {"generation": generation},
        "spec": {"replicas": replicas},
        "status": {"observedGeneration": seen, "readyReplicas": ready, "updatedReplicas": updated},
    }


def test_what_a_status_says() -> None:
    assert not_ready(_sts(3, 3, 3)) is None
    assert not_ready(_sts(3, 2, 3)) == "2 of 3 ready"
    assert not_ready(_sts(3, 3, 1)) == "1 of 3 updated"
    assert (
        not_ready(_sts(3, 3, 3, generation=2)) == "its controller has not seen the last change yet"
    )
    assert not_ready(None) == "not found"
    tserver = {"kind": "TServer", "spec": {"k8s": {"replicas": 2}}, "status": {"readyReplicas": 1}}
    assert not_ready(tserver) == "1 of 2 ready (TServer status)"
    assert not_ready({**tserver, "status": {}}) == "0 of 2 ready (TServer status)"
    daemon = {
        "kind": "DaemonSet",
        "status": {"desiredNumberScheduled": 2, "numberReady": 2, "updatedNumberScheduled": 2},
    }
    assert not_ready(daemon) is None


def test_the_verdict_counts_failed_clusters_against_the_allowed() -> None:
    findings = {"a": {"StatefulSet x": None}, "b": {"StatefulSet x": "1 of 3 ready"}}
    held = verdict(0, findings, 0)
    assert not held.ok and held.failed == {"b": "StatefulSet x: 1 of 3 ready"}
    assert held.lines[-1].endswith("the waves after it are not applied")
    assert "wave 0: cluster a Ready" in held.lines
    assert verdict(0, findings, 1).ok
    down = verdict(1, {"c": {"": "cannot be read: refused"}}, 0)
    assert down.failed == {"c": "cannot be read: refused"}


def test_the_watch_polls_until_ready_or_the_timeout() -> None:
    now = [0.0]
    reads: list[str] = []
    target = Watched("apps/v1", "StatefulSet", "tars-dev", "x")

    def reader(cluster: str, o: Watched) -> Any:
        reads.append(cluster)
        if cluster == "down":
            raise LiveReadError("connection refused")
        return _sts(2, 2 if now[0] >= 4 else 1, 2)

    def sleep(seconds: float) -> None:
        now[0] += seconds

    found = watch_wave({"a": [target]}, {}, 60, lambda: now[0], sleep, reader)
    assert found == {"a": {"StatefulSet tars-dev/x": None}} and now[0] == 4
    now[0] = 0.0
    found = watch_wave({"a": [target], "down": [target]}, {}, 6, lambda: now[0], sleep, reader)
    assert found["down"] == {"": "cannot be read: connection refused"} and now[0] >= 6


def test_which_waves_are_gated() -> None:
    expand, crd = Options(), Options(mode=Mode.CRD)
    assert gated_waves(3, WaveSettings(), expand) == set()  # the awaits hold the next wave
    assert gated_waves(3, WaveSettings(), crd) == {0, 1}  # a TServer's status
    assert gated_waves(3, WaveSettings(), Options(mode=Mode.CRD, skip_await=True)) == set()
    assert gated_waves(3, WaveSettings(pause_seconds=5), expand) == {0, 1, 2}
    assert gated_waves(3, WaveSettings(max_failures=1), expand) == {0, 1, 2}


def test_watched_objects_from_object_ids() -> None:
    ids = [
        "apps/v1/StatefulSet:tars-dev/shop-orderserver",
        "v1/Service:tars-dev/shop-orderserver",
        "k8s.tars.io/v1beta3/TServer:tars-dev/shop-orderserver",
    ]
    assert [(w.api_version, w.kind) for w in watched_ids(ids)] == [
        ("apps/v1", "StatefulSet"),
        ("k8s.tars.io/v1beta3", "TServer"),
    ]
