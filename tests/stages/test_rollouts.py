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
from tars_components.stages.rollouts import apply_rollouts, plan_lines, step_lines

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
    assert json.loads(value) == [
        OBSERVED,
        "jsonpath={$[?$.status.updatedReplicas > 0]}",
        COUNTED,
        READY,
    ]
    step1 = build(load(server(), rollout(1)), EXPAND)
    assert "updatedReplicas > 1]" in annotations(step1.objects)["pulumi.com/waitFor"]


@pytest.mark.parametrize("doc", [rollout(2), rollout(0, abort=True)])
def test_a_full_step_waits_for_the_whole_roll(doc: dict[str, Any]) -> None:
    with_rollout = build(load(server(), doc), EXPAND)
    without = build(load(server()), EXPAND)
    wait_for = annotations(with_rollout.objects)["pulumi.com/waitFor"]
    assert wait_for == annotations(without.objects)["pulumi.com/waitFor"]
    conditions = json.loads(wait_for)
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
    assert at_step["updateStrategy"] == {"template": "v1.5.0", "maxUnavailable": 2}
    plain = build_tapp(document, None, tapp)["spec"]
    assert "templates" not in plain and "updateStrategy" not in plain
    rolling = build_statefulset(document, None, EXPAND, step)["spec"]["updateStrategy"]
    assert rolling["rollingUpdate"] == {"partition": 3, "maxUnavailable": 2}
    assert (
        "maxUnavailable"
        not in build_statefulset(document, None, EXPAND)["spec"]["updateStrategy"]["rollingUpdate"]
    )


@pytest.mark.parametrize(
    ("step", "partition", "line"),
    [
        (0, 2, "1/3 on v1.5.0 (ordinal 2), 2/3 on v1.4.0, ordinal 3 stopped"),
        (1, 1, "2/3 on v1.5.0 (ordinals 1-2), 1/3 on v1.4.0, ordinal 3 stopped"),
        (2, 0, "3/3 on v1.5.0 (ordinals 0-2), ordinal 3 stopped"),
    ],
)
def test_the_statefulset_engine_stops_the_highest_ordinal_by_running_fewer(
    step: int, partition: int, line: str
) -> None:
    stack = load(server(), rollout(step, stopped=[3]))
    built = build(stack, EXPAND)
    assert built.ok, built.violations
    sts = workload(built.objects, Mode.EXPAND)
    assert sts["spec"]["replicas"] == 3
    assert sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"] == partition
    # "50%" is counted on the 3 instances that run; the wait counts them too
    if partition:
        waits = json.loads(sts["metadata"]["annotations"]["pulumi.com/waitFor"])
        assert f"jsonpath={{$[?$.status.updatedReplicas > {2 - partition}]}}" in waits
    assert plan_lines(stack) == [f"shop-orderserver: {line}"]


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (EXPAND, "the StatefulSet engine stops only the highest ordinals"),
        (CRD, "crd mode cannot stop one instance"),
    ],
)
def test_a_stopped_instance_the_engine_cannot_stop_is_an_error(options: Options, says: str) -> None:
    stopped = [0] if options.mode == Mode.EXPAND else [3]
    built = build(load(server(), rollout(1, stopped=stopped)), options)
    found = [v for v in built.violations if v.code == "TP014"]
    assert len(found) == 1 and says in found[0].message, built.violations


def test_abort_takes_the_release_back_from_its_external_owner() -> None:
    # TarsWeb or a pipeline owns spec.release (release=external): leaving the release out
    # would leave every pod on the owner's release; abort applies the stable one, forced
    options = Options(namespace=NAMESPACE, mode=Mode.CRD, field_ownership={"release": "external"})
    stepping = build(load(server(), rollout(1)), options)
    assert "release" not in workload(stepping.objects, Mode.CRD)["spec"]
    aborted = build(load(server(), rollout(1, abort=True)), options)
    assert aborted.ok, aborted.violations
    tserver = workload(aborted.objects, Mode.CRD)
    assert tserver["spec"]["release"]["image"] == STABLE_IMAGE
    assert tserver["metadata"]["labels"]["tars.io/ServerID"]
    meta = tserver["metadata"]["annotations"]
    assert meta["pulumi.com/patchForce"] == "true"
    assert "release=managed" in meta["tars-components.io/field-ownership"]
    warned = [v for v in aborted.violations if v.code == "TP018"]
    assert len(warned) == 1 and "external owner" in warned[0].message


def test_abort_forces_every_object_of_the_server_in_expand_mode() -> None:
    built = build(load(server(), rollout(1, abort=True)), EXPAND)
    for obj in built.objects:
        if obj["kind"] in {"StatefulSet", "Service"}:
            assert obj["metadata"]["annotations"]["pulumi.com/patchForce"] == "true", obj["kind"]


def test_patch_force_on_a_tserver_reaches_its_generated_objects() -> None:
    forced = server()
    forced["metadata"]["annotations"] = {"pulumi.com/patchForce": "true"}
    built = build(load(forced), EXPAND)
    kinds = {
        o["kind"]
        for o in built.objects
        if (o["metadata"].get("annotations") or {}).get("pulumi.com/patchForce") == "true"
    }
    assert kinds == {"StatefulSet", "Service"}


def test_a_step_past_an_approval_pause_waits_for_approval() -> None:
    gated = {"pauses": [{"after": 0}]}
    built = build(load(server(), rollout(1, **gated)), EXPAND)
    (error,) = [v for v in built.violations if v.code == "TP019"]
    assert error.field == "spec.step" and "set spec.approved: 0" in error.message
    assert build(load(server(), rollout(0, **gated)), EXPAND).ok  # holding at the gate
    assert build(load(server(), rollout(1, approved=0, **gated)), EXPAND).ok
    assert build(load(server(), rollout(1, abort=True, **gated)), EXPAND).ok  # always allowed


def test_a_pause_after_no_step_is_an_error() -> None:
    built = build(load(server(), rollout(0, pauses=[{"after": 3, "seconds": 60}])), EXPAND)
    (error,) = [v for v in built.violations if v.code == "TP020"]
    assert error.field == "spec.pauses[0].after"


def test_a_timed_pause_nothing_awaits_is_a_warning() -> None:
    built = build(load(server(), rollout(1, pauses=[{"after": 1, "seconds": 60}])), CRD)
    assert built.ok
    (warning,) = [v for v in built.violations if v.code == "TP021"]
    assert "nothing awaits its pods in crd mode" in warning.message


def test_the_plan_names_chosen_and_pinned_instances() -> None:
    pinned = {"0": {"id": "v1.3.0", "image": "registry/shop.orderserver:v1.3.0"}}
    stack = load(server(), rollout(1, order=[1], pinned=pinned))
    # 3 instances count (ordinal 0 is pinned): "50%" is 2, ordinal 1 first, then the highest
    assert plan_lines(stack) == [
        "shop-orderserver: 2/3 on v1.5.0 (ordinals 1, 3), 1/3 on v1.4.0, "
        "ordinal 0 on v1.3.0 (pinned)"
    ]


@pytest.mark.parametrize("replicas", [0, 1])
def test_steps_are_compared_as_they_run_capped_at_the_replicas(replicas: int) -> None:
    # an HPA scaled to zero (or one instance): [1, "50%", "100%"] is not a step down
    built = build(load(server(replicas=replicas), rollout(1)), EXPAND)
    assert "TP004" not in [v.code for v in built.violations]
    down = build(load(server(replicas=4), rollout(0, steps=[3, "50%"])), EXPAND)
    assert "TP004" in [v.code for v in down.violations]


def test_the_step_line_says_where_a_rollout_stands_and_what_it_waits_for() -> None:
    def line(**spec: Any) -> str:
        (found,) = step_lines(load(server(), rollout(**spec)))
        return found

    assert line(step=0) == "shop-orderserver: step 0 of 3 (1)"
    assert line(step=2) == 'shop-orderserver: step 2 of 3 ("100%"); the last step'
    assert line(step=1, pauses=[{"after": 1}]) == (
        'shop-orderserver: step 1 of 3 ("50%"); the next step waits for spec.approved >= 1'
    )
    assert line(step=1, pauses=[{"after": 1, "seconds": 600}]) == (
        'shop-orderserver: step 1 of 3 ("50%"); pulumi up holds 600 s once its pods are Ready'
    )
    assert line(step=1, pauses=[{"after": 0}]) == (
        'shop-orderserver: step 1 of 3 ("50%"); refused until spec.approved >= 0 (TP019)'
    )
    assert line(step=1, abort=True) == "shop-orderserver: aborted at step 1 of 3"
