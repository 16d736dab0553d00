"""The Pulumi program side of Rollouts: components declared at the step, the plan in the
preview's log, a partial step's wait condition (docs/concepts/rollout.md)."""

from __future__ import annotations

import json

import pytest
from support.builders.documents import FRAMEWORK, NAMESPACE, load, plain
from support.builders.rollouts import STABLE_IMAGE, rollout, server

from tars_components.components import TFramework, TFrameworkArgs, TServer, components_from_stack
from tars_components.components.failure import ComponentError
from tars_components.components.testing import record
from tars_components.loading.documents import parse_document
from tars_components.models.rollout import RolloutSpec
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options, Workload


def test_components_match_the_build_and_log_the_plan() -> None:
    stack = load(server(), rollout(0))
    options = Options(namespace=NAMESPACE)
    recording = record(lambda: components_from_stack(stack, options=options), preview=True)
    key = lambda o: (o["kind"], o["metadata"]["name"])  # noqa: E731
    built = build(stack, options)
    workloads = [o for o in built.objects if o["kind"] in ("Service", "StatefulSet")]
    assert sorted((plain(r.inputs) for r in recording.kubernetes()), key=key) == sorted(
        workloads, key=key
    )
    (sts,) = [r for r in recording.kubernetes() if r.inputs["kind"] == "StatefulSet"]
    assert sts.inputs["spec"]["updateStrategy"]["rollingUpdate"]["partition"] == 3
    conditions = json.loads(sts.inputs["metadata"]["annotations"]["pulumi.com/waitFor"])
    assert "jsonpath={$[?$.status.updatedReplicas > 0]}" in conditions
    assert (
        "INFO",
        "plan: shop-orderserver: 1/4 on v1.5.0 (ordinal 3), 3/4 on v1.4.0",
    ) in recording.log


@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
def test_abort_declares_the_stable_release(mode: Mode) -> None:
    stack = load(server(), rollout(1, abort=True))
    options = Options(namespace=NAMESPACE, mode=mode)
    recording = record(lambda: components_from_stack(stack, options=options))
    text = json.dumps([plain(r.inputs) for r in recording.kubernetes()])
    assert STABLE_IMAGE in text
    assert "v1.5.0" not in text


@pytest.mark.parametrize(
    ("workload", "type_"),
    [
        (Workload.KRUISE, "kubernetes:apps.kruise.io/v1beta1:StatefulSet"),
        (Workload.TAPP, "kubernetes:apps.tkestack.io/v1:TApp"),
    ],
)
def test_engines_register_as_custom_resources(workload: Workload, type_: str) -> None:
    stack = load(server(), rollout(0))
    options = Options(namespace=NAMESPACE, workload=workload)
    recording = record(lambda: components_from_stack(stack, options=options))
    (registered,) = recording.of_type(type_)
    built = build(stack, options)
    expected = next(o for o in built.objects if o["apiVersion"].startswith("apps."))
    assert plain(registered.inputs) == expected


def _framework() -> TFramework:
    config = parse_document(FRAMEWORK, NAMESPACE)
    templates = {"tars.default": "tars.default", "tars.cpp": "tars.default"}
    return TFramework("fw", TFrameworkArgs(namespace=NAMESPACE, config=config, templates=templates))


SPEC = {
    "steps": [1, "50%", "100%"],
    "step": 1,
    "stable": {"id": "v1.4.0", "image": STABLE_IMAGE},
}


def test_tserver_rollout_argument_declares_the_step() -> None:
    def program() -> None:
        TServer(
            "shop",
            framework=_framework(),
            app="Shop",
            server="OrderServer",
            tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10001}]},
            k8s={"replicas": 4},
            release={"id": "v1.5.0", "image": "registry/shop.orderserver:v1.5.0"},
            rollout=SPEC,
        )

    recording = record(program)
    (sts,) = [r for r in recording.kubernetes() if r.inputs["kind"] == "StatefulSet"]
    assert sts.inputs["spec"]["updateStrategy"]["rollingUpdate"]["partition"] == 2
    assert (
        "INFO",
        "plan: shop-orderserver: 2/4 on v1.5.0 (ordinals 2-3), 2/4 on v1.4.0",
    ) in recording.log


def test_tserver_rollout_argument_as_a_model_and_on_abort() -> None:
    spec = RolloutSpec.model_validate({**SPEC, "abort": True})
    document = load(server()).servers[0]
    recording = record(
        lambda: TServer("shop", framework=_framework(), document=document, rollout=spec)
    )
    (sts,) = [r for r in recording.kubernetes() if r.inputs["kind"] == "StatefulSet"]
    assert sts.inputs["spec"]["template"]["spec"]["containers"][0]["image"] == STABLE_IMAGE


def test_tserver_rollout_errors_refuse_the_component() -> None:
    document = load(server()).servers[0]
    bad = {**SPEC, "step": 5, "stable": {"id": "v1.5.0", "image": STABLE_IMAGE}}
    with pytest.raises(ComponentError) as caught:
        record(lambda: TServer("shop", framework=_framework(), document=document, rollout=bad))
    assert caught.value.problems == (
        "TServer 'shop': rollout.step: TP002: step 5 is beyond the 3 step(s) of spec.steps "
        "(0 to 2)",
        "TServer 'shop': rollout.stable.id: TP006: stable id 'v1.5.0' is the TServer's release: "
        "the new release goes in the TServer's spec.release, the one running now in spec.stable",
    )


def test_a_timed_pause_is_held_after_the_workload_and_the_status_is_an_output() -> None:
    stack = load(server(), rollout(1, pauses=[{"after": 1, "seconds": 1}]))
    options = Options(namespace=NAMESPACE)
    recording = record(lambda: components_from_stack(stack, options=options))
    (pause,) = recording.of_type("pulumi-python:dynamic/tars:RolloutPause")
    assert {k: pause.inputs[k] for k in ("server", "step", "release", "seconds")} == {
        "server": "tars-dev/shop-orderserver",
        "step": 1,
        "release": "v1.5.0",
        "seconds": 1,
    }
    (sts,) = [r for r in recording.kubernetes() if r.inputs["kind"] == "StatefulSet"]
    assert sts.urn in pause.dependencies
    (outputs,) = [
        o
        for urn, o in recording.component_outputs.items()
        if urn.endswith("::tars-dev/shop-orderserver")
    ]
    status = outputs["rollout"]
    assert (status["step"], status["steps"], status["partition"]) == (1, 3, 2)
    assert status["ordinals"] == {"release": [2, 3], "stable": [0, 1]}
    assert status["pause"] == {"seconds": 1}


@pytest.mark.parametrize("mode", [Mode.CRD])
def test_no_pause_is_held_where_nothing_awaits_the_pods(mode: Mode) -> None:
    stack = load(server(), rollout(1, pauses=[{"after": 1, "seconds": 1}]))
    recording = record(
        lambda: components_from_stack(stack, options=Options(namespace=NAMESPACE, mode=mode))
    )
    assert recording.of_type("pulumi-python:dynamic/tars:RolloutPause") == []
