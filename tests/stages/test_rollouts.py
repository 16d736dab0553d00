"""Rollout documents applied before expansion: the partition of each step, abort, in expand
and crd mode; never emitted; the plan line (docs/concepts/rollout.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.builders.documents import NAMESPACE, load
from support.builders.rollouts import NEW_IMAGE, STABLE_IMAGE, rollout, server

from tars_components.expansion.awaits import COUNTED, OBSERVED, READY, ROLLED
from tars_components.expansion.statefulset import build_statefulset
from tars_components.expansion.tapp import build_tapp
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options, Workload
from tars_components.stages import prepare
from tars_components.stages.rollouts import apply_rollouts, plan_lines

EXPAND = Options(namespace=NAMESPACE)
CRD = Options(namespace=NAMESPACE, mode=Mode.CRD)


def workload(objects: list[dict[str, Any]], mode: Mode) -> dict[str, Any]:
    kind = "StatefulSet" if mode == Mode.EXPAND else "TServer"
    return next(o for o in objects if o["kind"] == kind)


def strategy_and_image(mode: Mode, *documents: dict[str, Any]) -> tuple[Any, str]:
    built = build(load(*documents), EXPAND if mode == Mode.EXPAND else CRD)
    assert built.ok, built.violations
    obj = workload(built.objects, mode)
    if mode == Mode.EXPAND:
        image = obj["spec"]["template"]["spec"]["containers"][0]["image"]
        return obj["spec"]["updateStrategy"], image
    return obj["spec"]["k8s"]["updateStrategy"], obj["spec"]["release"]["image"]


@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
@pytest.mark.parametrize(("step", "expected"), [(0, 3), (1, 2), (2, 0)])
def test_each_step_sets_the_partition(mode: Mode, step: int, expected: int) -> None:
    found, image = strategy_and_image(mode, server(), rollout(step))
    assert found == {"type": "RollingUpdate", "rollingUpdate": {"partition": expected}}
    assert image == NEW_IMAGE


@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
def test_abort_puts_every_instance_back_on_stable(mode: Mode) -> None:
    found, image = strategy_and_image(mode, server(), rollout(0, abort=True))
    assert found == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert image == STABLE_IMAGE


@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
def test_a_rollout_is_never_emitted(mode: Mode) -> None:
    built = build(load(server(), rollout(1)), EXPAND if mode == Mode.EXPAND else CRD)
    assert built.ok
    assert not [o for o in built.objects if o["kind"] == "Rollout"]
    without = build(load(server()), EXPAND if mode == Mode.EXPAND else CRD)
    assert len(built.objects) == len(without.objects)


def test_percentages_round_up() -> None:
    # 3 replicas: 50% is 1.5 instances, taken as 2 (OpenKruise rounds up): partition 1
    found, _ = strategy_and_image(Mode.EXPAND, server(3), rollout(0, steps=["50%", "100%"]))
    assert found["rollingUpdate"]["partition"] == 1


def test_apply_is_pure() -> None:
    stack = load(server(), rollout(1))
    rolled, steps = apply_rollouts(stack)
    again, same_steps = apply_rollouts(stack)
    assert (again.documents, same_steps) == (rolled.documents, steps)
    assert list(steps) == [(NAMESPACE, stack.servers[0].name)]
    assert stack.servers[0].spec.k8s.update_strategy.rolling_update is not None
    assert stack.servers[0].spec.k8s.update_strategy.rolling_update.partition == 0
    assert rolled.servers[0].source == stack.servers[0].source  # still its own file and lines


def test_plan_line() -> None:
    assert plan_lines(load(server(), rollout(0))) == [
        "shop-orderserver: 1/4 on v1.5.0 (ordinal 3), 3/4 on v1.4.0"
    ]
    assert plan_lines(load(server(), rollout(1))) == [
        "shop-orderserver: 2/4 on v1.5.0 (ordinals 2-3), 2/4 on v1.4.0"
    ]
    assert plan_lines(load(server(), rollout(2))) == [
        "shop-orderserver: 4/4 on v1.5.0 (ordinals 0-3)"
    ]
    assert plan_lines(load(server(), rollout(2, abort=True))) == [
        "shop-orderserver: 4/4 on v1.4.0 (aborted: every instance back on stable)"
    ]


def annotations(mode_objects: list[dict[str, Any]]) -> dict[str, str]:
    sts = workload(mode_objects, Mode.EXPAND)
    return dict(sts["metadata"].get("annotations") or {})


def test_a_partial_step_waits_for_what_it_updates() -> None:
    built = build(load(server(), rollout(0)), EXPAND)
    value = annotations(built.objects)["pulumi.com/waitFor"]
    assert json.loads(value) == [OBSERVED, "jsonpath={.status.updatedReplicas}=1", COUNTED, READY]
    step1 = build(load(server(), rollout(1)), EXPAND)
    assert "updatedReplicas}=2" in annotations(step1.objects)["pulumi.com/waitFor"]


@pytest.mark.parametrize("doc", [rollout(2), rollout(0, abort=True)])
def test_a_full_step_waits_for_the_whole_roll(doc: dict[str, Any]) -> None:
    with_rollout = build(load(server(), doc), EXPAND)
    without = build(load(server()), EXPAND)
    assert annotations(with_rollout.objects) == annotations(without.objects)
    conditions = json.loads(annotations(with_rollout.objects)["pulumi.com/waitFor"])
    assert conditions == [OBSERVED, ROLLED, COUNTED, READY]


def test_skip_await_wins_over_the_wait_condition() -> None:
    options = Options(namespace=NAMESPACE, skip_await=True)
    built = build(load(server(), rollout(0)), options)
    assert annotations(built.objects) == {"pulumi.com/skipAwait": "true"}


def test_crd_mode_carries_no_wait_condition() -> None:
    built = build(load(server(), rollout(0)), CRD)
    tserver = workload(built.objects, Mode.CRD)
    assert "pulumi.com/waitFor" not in (tserver["metadata"].get("annotations") or {})


def test_without_rollout_the_output_is_unchanged() -> None:
    plain = build(load(server()), EXPAND).objects
    full = build(load(server(), rollout(2)), EXPAND).objects
    assert full == plain  # the last step is the TServer as written


def test_the_workload_builders_take_the_step_as_an_argument() -> None:
    """A builder is a function of its arguments: the Rollout step reaches it as a
    ``RolloutStep`` beside the prepared document, never read back from where the document
    came from."""
    prepared = prepare(load(server(), rollout(0, maxUnavailable=2)))
    document = prepared.stack.servers[0]
    step = prepared.step(document)
    assert step is not None and (step.partition, step.replicas) == (3, 4)
    tapp = Options(namespace=NAMESPACE, workload=Workload.TAPP)
    at_step = build_tapp(document, None, tapp, step)["spec"]
    assert at_step["templates"] == {"3": "v1.5.0"}
    assert at_step["updateStrategy"] == {"maxUnavailable": 2}
    plain = build_tapp(document, None, tapp)["spec"]
    assert "templates" not in plain and "updateStrategy" not in plain
    rolling = build_statefulset(document, None, EXPAND, step)["spec"]["updateStrategy"]
    assert rolling["rollingUpdate"] == {"partition": 3, "maxUnavailable": 2}
    assert (
        "maxUnavailable"
        not in build_statefulset(document, None, EXPAND)["spec"]["updateStrategy"]["rollingUpdate"]
    )
