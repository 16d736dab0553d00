"""``--workload kruise|tapp``: the same pod template as the StatefulSet render apart from the
engine's fields, strict-valid against the engines' schemas, the Rollout's partition, canary
and stopped instances in each engine (docs/concepts/rollout.md)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from support.assertions.engine_schema import kruise_errors, pod_template_errors, tapp_errors
from support.builders.documents import NAMESPACE, load
from support.builders.rollouts import NEW_ID, NEW_IMAGE, STABLE_IMAGE, rollout, server

from tars_components.expansion.awaits import READY, WAIT_FOR_ANNOTATION, statefulset_wait_for
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options, Workload


def objects(*documents: dict[str, Any], workload: Workload, mode: Mode = Mode.EXPAND) -> Any:
    built = build(load(*documents), Options(namespace=NAMESPACE, workload=workload, mode=mode))
    assert built.ok, built.violations
    return built


def workload_of(*documents: dict[str, Any], workload: Workload) -> dict[str, Any]:
    found = objects(*documents, workload=workload).objects
    return next(o for o in found if o["kind"] in ("StatefulSet", "TApp"))


def without_stopped(documents: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """The documents for the StatefulSet engine, which cannot stop one instance (TP014)."""
    out = copy.deepcopy(documents)
    for doc in out:
        if doc["kind"] == "Rollout":
            doc["spec"].pop("stopped", None)
    return out


def image(template: dict[str, Any]) -> str:
    return str(template["spec"]["containers"][0]["image"])


CASES = [
    pytest.param((server(),), id="no-rollout"),
    pytest.param((server(), rollout(0)), id="step-0"),
    pytest.param((server(), rollout(1, stopped=[0])), id="step-1-stopped"),
    pytest.param((server(), rollout(2)), id="last-step"),
    pytest.param((server(), rollout(0, abort=True)), id="abort"),
]


@pytest.mark.parametrize("documents", CASES)
def test_kruise_is_strict_valid(documents: tuple[dict[str, Any], ...]) -> None:
    obj = workload_of(*documents, workload=Workload.KRUISE)
    assert (obj["apiVersion"], obj["kind"]) == ("apps.kruise.io/v1beta1", "StatefulSet")
    assert kruise_errors(obj) == []


@pytest.mark.parametrize("documents", CASES)
def test_tapp_is_strict_valid(documents: tuple[dict[str, Any], ...]) -> None:
    obj = workload_of(*documents, workload=Workload.TAPP)
    assert (obj["apiVersion"], obj["kind"]) == ("apps.tkestack.io/v1", "TApp")
    assert tapp_errors(obj) == []


def test_the_statefulset_render_is_valid_too() -> None:
    obj = workload_of(server(), rollout(0), workload=Workload.STATEFULSET)
    assert pod_template_errors(obj["spec"]["template"]) == []


@pytest.mark.parametrize("documents", CASES)
def test_kruise_has_the_statefulset_pod_template_and_in_place_updates(
    documents: tuple[dict[str, Any], ...],
) -> None:
    sts = workload_of(*without_stopped(documents), workload=Workload.STATEFULSET)
    kruise = workload_of(*documents, workload=Workload.KRUISE)
    template = copy.deepcopy(kruise["spec"]["template"])
    gates = template["spec"]["readinessGates"]
    assert gates[-1] == {"conditionType": "InPlaceUpdateReady"}
    del gates[-1]
    if not gates:
        del template["spec"]["readinessGates"]
    assert template == sts["spec"]["template"]
    rolling = kruise["spec"]["updateStrategy"]["rollingUpdate"]
    assert rolling["podUpdatePolicy"] == "InPlaceIfPossible"
    if "reserveOrdinals" not in kruise["spec"]:
        assert rolling["partition"] == sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"]
    engine_fields = {"updateStrategy", "template", "replicas", "reserveOrdinals"}
    assert {k: v for k, v in kruise["spec"].items() if k not in engine_fields} == {
        k: v for k, v in sts["spec"].items() if k not in engine_fields
    }
    # the same metadata; Kruise waits only at a partial step (docs/concepts/rollout.md)
    kruise_meta = {k: v for k, v in kruise["metadata"].items() if k != "annotations"}
    assert kruise_meta == {k: v for k, v in sts["metadata"].items() if k != "annotations"}
    partition = rolling["partition"]
    waits = (kruise["metadata"].get("annotations") or {}).get(WAIT_FOR_ANNOTATION)
    expected = statefulset_wait_for(kruise["spec"]["replicas"], partition) if partition else None
    assert waits == expected


def test_kruise_stopped_instances_are_reserved_ordinals() -> None:
    kruise = workload_of(server(), rollout(1, stopped=[0]), workload=Workload.KRUISE)
    assert kruise["spec"]["reserveOrdinals"] == [0]
    assert kruise["spec"]["replicas"] == 3


@pytest.mark.parametrize(
    "documents",
    [CASES[0], CASES[3], CASES[4]],
)
def test_tapp_template_is_the_statefulset_one_when_every_instance_runs_one_release(
    documents: Any,
) -> None:
    sts = workload_of(*documents, workload=Workload.STATEFULSET)
    tapp = workload_of(*documents, workload=Workload.TAPP)
    assert tapp["spec"]["template"] == sts["spec"]["template"]
    assert "templatePool" not in tapp["spec"] and "templates" not in tapp["spec"]
    assert tapp["spec"]["replicas"] == sts["spec"]["replicas"]
    assert tapp["spec"]["selector"] == sts["spec"]["selector"]


def test_tapp_canary_instances_take_the_new_template() -> None:
    sts = workload_of(server(), rollout(0), workload=Workload.STATEFULSET)
    tapp = workload_of(server(), rollout(0), workload=Workload.TAPP)
    spec = tapp["spec"]
    assert spec["templatePool"] == {NEW_ID: sts["spec"]["template"]}
    assert spec["templates"] == {"3": NEW_ID}
    assert image(spec["template"]) == STABLE_IMAGE
    assert image(spec["templatePool"][NEW_ID]) == NEW_IMAGE
    assert spec["template"]["metadata"]["labels"]["tars.io/ServerID"] == "v1.4.0"
    assert "annotations" not in tapp["metadata"]  # no updatedReplicas in a TApp's status


def test_stopped_needs_an_engine_that_stops_one_instance() -> None:
    documents = (server(), rollout(1, stopped=[0]))
    for options in (
        Options(namespace=NAMESPACE),
        Options(namespace=NAMESPACE, mode=Mode.CRD, workload=Workload.KRUISE),
    ):
        built = build(load(*documents), options)
        assert ("TP014", "spec.stopped") in [(v.code, v.field) for v in built.violations]
        assert not built.ok


def test_tp013_stopped_ordinal_beyond_the_replicas() -> None:
    options = Options(namespace=NAMESPACE, workload=Workload.KRUISE)
    built = build(load(server(), rollout(1, stopped=[4])), options)
    assert [(v.code, v.field) for v in built.violations] == [("TP013", "spec.stopped")]


def test_tapp_stopped_instances_are_killed() -> None:
    tapp = workload_of(server(), rollout(1, stopped=[0]), workload=Workload.TAPP)
    assert tapp["spec"]["statuses"] == {"0": "Killed"}
    assert tapp["spec"]["templates"] == {"2": NEW_ID, "3": NEW_ID}


@pytest.mark.parametrize("workload", [Workload.KRUISE, Workload.TAPP])
def test_the_service_stays_the_tarsk8s_one(workload: Workload) -> None:
    plain = objects(server(), rollout(0), workload=Workload.STATEFULSET).objects
    engine = objects(server(), rollout(0), workload=workload).objects
    services = [[o for o in found if o["kind"] == "Service"] for found in (plain, engine)]
    assert services[0] == services[1] and services[0]


@pytest.mark.parametrize("workload", [Workload.KRUISE, Workload.TAPP])
def test_crd_mode_keeps_the_statefulset_engine_and_says_so(workload: Workload) -> None:
    built = objects(server(), rollout(0), workload=workload, mode=Mode.CRD)
    plain = objects(server(), rollout(0), workload=Workload.STATEFULSET, mode=Mode.CRD)
    assert built.objects == plain.objects
    assert [(v.code, v.is_error) for v in built.violations] == [("TP015", False)]


def test_the_validators_refuse_what_the_engines_refuse() -> None:
    kruise = workload_of(server(), rollout(0), workload=Workload.KRUISE)
    kruise["spec"]["reserveOrdinal"] = [1]  # a misspelled field would be pruned
    assert kruise_errors(kruise)
    tapp = workload_of(server(), rollout(0), workload=Workload.TAPP)
    tapp["spec"]["statuses"] = {"1": "Stopped"}
    assert tapp_errors(tapp)
    tapp = workload_of(server(), rollout(0), workload=Workload.TAPP)
    tapp["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = 3
    assert tapp_errors(tapp)


def test_max_unavailable_in_each_engine() -> None:
    documents = (server(), rollout(0, maxUnavailable="50%"))
    sts = workload_of(*documents, workload=Workload.STATEFULSET)
    assert sts["spec"]["updateStrategy"]["rollingUpdate"] == {
        "partition": 3,
        "maxUnavailable": "50%",
    }
    assert pod_template_errors(sts["spec"]["template"]) == []
    kruise = workload_of(*documents, workload=Workload.KRUISE)
    assert kruise["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] == "50%"
    assert kruise_errors(kruise) == []
    tapp = workload_of(*documents, workload=Workload.TAPP)
    # TApp applies maxUnavailable to the instances of updateStrategy.template only
    assert tapp["spec"]["updateStrategy"] == {"template": NEW_ID, "maxUnavailable": "50%"}
    assert tapp["spec"]["templates"] == {"3": NEW_ID}
    assert tapp_errors(tapp) == []
    last = workload_of(server(), rollout(2, maxUnavailable=1), workload=Workload.TAPP)
    assert last["spec"]["updateStrategy"] == {"template": NEW_ID, "maxUnavailable": 1}
    assert last["spec"]["templates"] == dict.fromkeys("0123", NEW_ID)
    assert last["spec"]["templatePool"][NEW_ID] == last["spec"]["template"]


@pytest.mark.parametrize(
    ("stopped", "step", "replicas", "partition", "updated"),
    [
        ([0], 0, 3, 2, [3]),  # Kruise counts the pods below the partition, reserved ones skipped
        ([0], 1, 3, 1, [2, 3]),  # "50%" of the 3 that run
        ([0], 2, 3, 0, [1, 2, 3]),
        ([2], 1, 3, 1, [1, 3]),  # a stopped ordinal in the middle is skipped too
    ],
)
def test_kruise_partition_counts_the_instances_that_run(
    stopped: list[int], step: int, replicas: int, partition: int, updated: list[int]
) -> None:
    kruise = workload_of(server(), rollout(step, stopped=stopped), workload=Workload.KRUISE)
    spec = kruise["spec"]
    assert (spec["replicas"], spec["reserveOrdinals"]) == (replicas, stopped)
    assert spec["updateStrategy"]["rollingUpdate"]["partition"] == partition
    # Kruise updates the highest ``replicas - partition`` pods that exist
    running = [o for o in range(4) if o not in stopped]
    assert running[partition:] == updated
    if partition:
        waits = json.loads(kruise["metadata"]["annotations"][WAIT_FOR_ANNOTATION])
        assert f"jsonpath={{$[?$.status.updatedReplicas > {len(updated) - 1}]}}" in waits
        assert READY in waits


def test_tapp_gives_the_canary_template_to_the_highest_running_ids() -> None:
    tapp = workload_of(server(), rollout(1, stopped=[2]), workload=Workload.TAPP)
    spec = tapp["spec"]
    assert spec["replicas"] == 4  # a TApp counts its killed instances
    assert spec["statuses"] == {"2": "Killed"}
    assert spec["templates"] == {"1": "v1.5.0", "3": "v1.5.0"}


def test_tapp_takes_the_chosen_instances_first() -> None:
    tapp = workload_of(server(), rollout(1, order=[0, 2]), workload=Workload.TAPP)
    assert tapp["spec"]["templates"] == {"0": NEW_ID, "2": NEW_ID}
    step0 = workload_of(server(), rollout(0, order=[1]), workload=Workload.TAPP)
    assert step0["spec"]["templates"] == {"1": NEW_ID}
    assert tapp_errors(tapp) == []


def test_tapp_keeps_a_pinned_instance_on_a_third_release() -> None:
    pinned = {"0": {"id": "v1.3.0", "image": "registry/shop.orderserver:v1.3.0"}}
    tapp = workload_of(server(), rollout(0, pinned=pinned), workload=Workload.TAPP)
    spec = tapp["spec"]
    assert set(spec["templatePool"]) == {"v1.3.0", NEW_ID}
    assert spec["templates"] == {"0": "v1.3.0", "3": NEW_ID}
    assert image(spec["templatePool"]["v1.3.0"]) == "registry/shop.orderserver:v1.3.0"
    assert image(spec["template"]) == STABLE_IMAGE
    assert tapp_errors(tapp) == []


def test_tapp_switches_from_the_servers_annotation() -> None:
    doc = server()
    doc["metadata"]["annotations"] = {
        "tars-components.io/tapp": "forceDeletePod=true,neverMigrate=true,"
        "autoDeleteUnusedTemplate=true,defaultTemplate=release"
    }
    tapp = workload_of(doc, rollout(1), workload=Workload.TAPP)
    spec = tapp["spec"]
    assert (spec["forceDeletePod"], spec["neverMigrate"], spec["autoDeleteUnusedTemplate"]) == (
        True,
        True,
        True,
    )
    assert spec["defaultTemplateName"] == NEW_ID
    assert tapp_errors(tapp) == []


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        ({"order": [1]}, "TP022"),
        ({"pinned": {"0": {"id": "v1.3.0", "image": "r/x:v1.3.0"}}}, "TP022"),
    ],
)
def test_order_and_pinned_need_the_tapp_engine(spec: dict[str, Any], code: str) -> None:
    built = build(load(server(), rollout(1, **spec)), Options(namespace=NAMESPACE))
    assert code in [v.code for v in built.violations if v.is_error]


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ({"order": [7]}, "are not instances"),
        ({"order": [1, 1]}, "more than once"),
        (
            {"pinned": {"0": {"id": "v1.3.0", "image": "r/x:v1.3.0"}}, "stopped": [0]},
            "pinned and stopped",
        ),
    ],
)
def test_bad_tapp_ordinals_are_tp023(spec: dict[str, Any], says: str) -> None:
    options = Options(namespace=NAMESPACE, workload=Workload.TAPP)
    built = build(load(server(), rollout(1, **spec)), options)
    found = [v for v in built.violations if v.code == "TP023"]
    assert found and says in found[0].message, built.violations


def test_a_bad_tapp_annotation_is_tp024() -> None:
    doc = server()
    doc["metadata"]["annotations"] = {"tars-components.io/tapp": "neverMigrate=yes"}
    built = build(load(doc), Options(namespace=NAMESPACE, workload=Workload.TAPP))
    (error,) = [v for v in built.violations if v.code == "TP024"]
    assert "neverMigrate: 'yes' is not true or false" in error.message
