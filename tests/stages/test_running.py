"""The replicas that run (docs/concepts/live.md): a server whose count an HPA or another
manager owns is planned, partitioned and awaited on the live count, read at preview."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.builders.documents import NAMESPACE, stack_text
from support.builders.rollouts import base, rollout, server

from tars_components.models.live import LiveState
from tars_components.pipeline import validate
from tars_components.settings.options import Mode, Options

EXPAND = Options(namespace=NAMESPACE)
EXTERNAL = Options(namespace=NAMESPACE, field_ownership={"replicas": "external"})


def statefulset(replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "shop-orderserver", "namespace": NAMESPACE},
        "spec": {"replicas": replicas},
    }


def hpa(min_replicas: int = 6, kind: str = "StatefulSet") -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "orders", "namespace": NAMESPACE},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": "shop-orderserver"},
            "minReplicas": min_replicas,
            "maxReplicas": 10,
        },
    }


def checked(tmp_path: Path, options: Options, live: LiveState, step: int = 1) -> Any:
    (tmp_path / "stack.yaml").write_text(
        stack_text(*base(), server(), rollout(step)), encoding="utf-8"
    )
    return validate(tmp_path, options, live=live, objects=True)


def the_statefulset(result: Any) -> dict[str, Any]:
    objects = result.run.results[0].build.objects
    return next(o for o in objects if o["kind"] == "StatefulSet")


def test_a_step_is_counted_on_the_replicas_an_hpa_runs(tmp_path: Path) -> None:
    # the stack says 4; the HPA runs 8: "50%" is 4 instances, partition 4, and the wait
    # counts 4 updated on the live spec.replicas (never "2 of 4", which 8 pods never meet)
    live = LiveState((statefulset(8), hpa()))
    result = checked(tmp_path, EXTERNAL, live)
    assert result.ok, result.violations
    sts = the_statefulset(result)
    assert "replicas" not in sts["spec"]  # still the HPA's
    assert sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"] == 4
    waits = json.loads(sts["metadata"]["annotations"]["pulumi.com/waitFor"])
    assert "jsonpath={$[?$.status.updatedReplicas > 3]}" in waits


def test_a_count_the_stack_manages_is_not_replaced(tmp_path: Path) -> None:
    result = checked(tmp_path, EXPAND, LiveState((statefulset(8),)))
    sts = the_statefulset(result)
    assert sts["spec"]["replicas"] == 4
    assert sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"] == 2


def test_an_hpa_on_managed_replicas_is_an_error_at_preview(tmp_path: Path) -> None:
    result = checked(tmp_path, EXPAND, LiveState((statefulset(6), hpa())))
    assert not result.ok
    (error,) = [v for v in result.errors if v.code == "TO003"]
    assert error.field == "spec.k8s.replicas"
    assert "HorizontalPodAutoscaler orders" in error.message
    assert "replicas=external" in error.message
    assert result.run.results[0].build.objects == []


def test_crd_mode_reads_the_tservers_count(tmp_path: Path) -> None:
    tserver = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {"name": "shop-orderserver", "namespace": NAMESPACE},
        "spec": {"k8s": {"replicas": 6}},
    }
    options = Options(namespace=NAMESPACE, mode=Mode.CRD, field_ownership={"replicas": "external"})
    result = checked(tmp_path, options, LiveState((tserver, hpa(kind="TServer"))))
    assert result.ok, result.violations
    objects = result.run.results[0].build.objects
    crd = next(o for o in objects if o["kind"] == "TServer")
    assert crd["spec"]["k8s"]["updateStrategy"]["rollingUpdate"]["partition"] == 3


def test_a_server_not_yet_created_keeps_the_stack_count(tmp_path: Path) -> None:
    result = checked(tmp_path, EXTERNAL, LiveState(()))
    sts = the_statefulset(result)
    assert sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"] == 2


@pytest.mark.parametrize("replicas", [1, 2])
def test_a_count_step_above_the_live_count_is_capped_with_a_warning(
    tmp_path: Path, replicas: int
) -> None:
    (tmp_path / "stack.yaml").write_text(
        stack_text(*base(), server(), rollout(0, steps=[3])), encoding="utf-8"
    )
    live = LiveState((statefulset(replicas),))
    result = validate(tmp_path, EXTERNAL, live=live, objects=True)
    assert [v.code for v in result.warnings] == ["TP011"]
    sts = the_statefulset(result)
    assert sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"] == 0
