"""What ``pulumi up`` waits for on a StatefulSet: the generation the controller observed, then
the roll, the count and the readiness (docs/pulumi/deploy.md#what-pulumi-up-waits-for). The
real engine's verdict on these conditions is tests/e2e/test_environments.py."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from support.builders.documents import NAMESPACE, load, tars_server

from tars_components.expansion.awaits import (
    COUNTED,
    OBSERVED,
    READY,
    ROLLED,
    TSERVER_CONDITIONS,
    WAIT_FOR_ANNOTATION,
    statefulset_wait_for,
)
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options, Workload

EXPAND = Options(namespace=NAMESPACE)


def built_workload(server: dict[str, Any], options: Options = EXPAND) -> dict[str, Any]:
    result = build(load(server), options)
    assert result.ok, result.violations
    (workload,) = [o for o in result.objects if o["kind"] in ("StatefulSet", "DaemonSet", "TApp")]
    return workload


def conditions(workload: dict[str, Any]) -> list[str] | None:
    value = (workload["metadata"].get("annotations") or {}).get(WAIT_FOR_ANNOTATION)
    return None if value is None else list(json.loads(value))


def with_strategy(strategy: dict[str, Any], replicas: int = 3) -> dict[str, Any]:
    server = tars_server()
    server["spec"]["k8s"]["replicas"] = replicas
    server["spec"]["k8s"]["updateStrategy"] = strategy
    return server


def test_every_statefulset_waits_for_its_generation_and_its_whole_roll() -> None:
    assert conditions(built_workload(tars_server())) == [OBSERVED, ROLLED, COUNTED, READY]


def test_a_partition_written_in_the_tserver_waits_for_the_pods_above_it() -> None:
    server = with_strategy({"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}, 5)
    assert conditions(built_workload(server)) == [
        OBSERVED,
        "jsonpath={$[?$.status.updatedReplicas > 2]}",
        COUNTED,
        READY,
    ]


def test_a_partition_at_or_above_replicas_updates_nothing_and_waits_for_readiness() -> None:
    server = with_strategy({"type": "RollingUpdate", "rollingUpdate": {"partition": 3}}, 3)
    assert conditions(built_workload(server)) == [OBSERVED, COUNTED, READY]


def test_on_delete_never_waits_for_a_roll_nobody_starts() -> None:
    server = with_strategy({"type": "OnDelete"})
    assert conditions(built_workload(server)) == [OBSERVED, COUNTED, READY]


def test_skip_await_replaces_the_conditions() -> None:
    workload = built_workload(tars_server(), Options(namespace=NAMESPACE, skip_await=True))
    assert workload["metadata"]["annotations"] == {"pulumi.com/skipAwait": "true"}


def test_a_daemonset_keeps_pulumi_kubernetes_own_await() -> None:
    # its await (kstatus) compares status.observedGeneration itself
    server = tars_server()
    server["spec"]["k8s"]["daemonSet"] = True
    assert conditions(built_workload(server)) is None


@pytest.mark.parametrize("workload", [Workload.KRUISE, Workload.TAPP])
def test_other_engines_wait_only_where_they_did(workload: Workload) -> None:
    options = Options(namespace=NAMESPACE, workload=workload)
    assert conditions(built_workload(tars_server(), options)) is None


def test_crd_mode_waits_for_nothing() -> None:
    result = build(load(tars_server()), Options(namespace=NAMESPACE, mode=Mode.CRD))
    (tserver,) = [o for o in result.objects if o["kind"] == "TServer"]
    assert WAIT_FOR_ANNOTATION not in (tserver["metadata"].get("annotations") or {})


@pytest.mark.parametrize(
    ("replicas", "partition"), [(0, 0), (1, 0), (4, 1), (4, 4), (4, 9), (3, None), (2, -1)]
)
def test_every_condition_is_one_pulumi_kubernetes_reads(
    replicas: int, partition: int | None
) -> None:
    # pulumi-kubernetes' jsonpath.Parse: "jsonpath=" then "{path}" or "{path}=value", split on
    # single "=" after protecting "=="; the path wrapped in one pair of braces
    for condition in json.loads(statefulset_wait_for(replicas, partition)):
        assert condition.startswith("jsonpath=")
        parts = condition[len("jsonpath=") :].replace("==", "\x00").split("=")
        assert len(parts) <= 2, condition
        path = parts[0].replace("\x00", "==")
        assert re.fullmatch(r"\{[^{}]+\}", path), condition
        if len(parts) == 2:
            assert re.fullmatch(r"[0-9]+", parts[1]), condition


def test_crd_mode_awaits_the_tserver_status_only_when_asked() -> None:
    stack = load(tars_server(replicas=2))
    plain = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD))
    asked = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD, await_tservers=True))
    tserver = next(o for o in asked.objects if o["kind"] == "TServer")
    conditions = json.loads(tserver["metadata"]["annotations"]["pulumi.com/waitFor"])
    assert conditions == list(TSERVER_CONDITIONS)
    before = next(o for o in plain.objects if o["kind"] == "TServer")
    assert "pulumi.com/waitFor" not in (before["metadata"].get("annotations") or {})
