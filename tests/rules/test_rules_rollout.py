"""The Rollout rules TP001 to TP012: each case gets its code at its field
(docs/concepts/rollout.md)."""

from __future__ import annotations

from typing import Any

from support.builders.documents import NAMESPACE, edited, load
from support.builders.rollouts import STABLE_IMAGE, rollout, server

from tars_components.pipeline import build
from tars_components.rules import validate_change
from tars_components.settings.options import Mode, Options, Workload

EXPAND = Options(namespace=NAMESPACE)


def partition_of(objects: list[dict[str, Any]]) -> int:
    sts = next(o for o in objects if o["kind"] == "StatefulSet")
    return int(sts["spec"]["updateStrategy"]["rollingUpdate"]["partition"])


def codes(*documents: dict[str, Any]) -> list[tuple[str, str]]:
    return [(v.code, v.field) for v in build(load(*documents), EXPAND).violations]


def test_tp001_schema_of_the_rollout_itself() -> None:
    found = codes(server(), rollout(0, steps=[1, "half"], colour="blue"))
    assert ("TP001", "spec.steps[1]") in found
    assert ("TP001", "spec.colour") in found
    assert codes(server(), rollout(0, steps=[])) == [("TP001", "spec.steps")]
    assert codes(server(), rollout(0, steps=[-1])) == [("TP001", "spec.steps[0]")]


def test_tp001_message_has_file_and_line() -> None:
    stack = load(server(), edited(rollout(0), spec__step="one"))
    (violation,) = stack.violations
    assert violation.code == "TP001" and violation.field == "spec.step"
    assert violation.file == "stack.yaml" and violation.line is not None


def test_tp002_step_beyond_the_list() -> None:
    assert codes(server(), rollout(3)) == [("TP002", "spec.step")]
    assert codes(server(), rollout(2)) == []


def test_tp003_percentage_over_100() -> None:
    assert codes(server(), rollout(0, steps=[1, "150%"])) == [("TP003", "spec.steps[1]")]


def test_tp004_steps_go_down() -> None:
    assert codes(server(), rollout(0, steps=[2, "25%", 4])) == [("TP004", "spec.steps[1]")]
    assert codes(server(), rollout(0, steps=[1, "25%", 4])) == []


def test_tp005_rollout_without_its_tserver() -> None:
    assert codes(rollout(0)) == [("TP005", "metadata.name")]


def test_tp006_stable_is_the_new_release() -> None:
    same = rollout(0, stable={"id": "v1.5.0", "image": STABLE_IMAGE})
    assert codes(server(), same) == [("TP006", "spec.stable.id")]
    # aborting back to what the TServer already runs is fine
    assert codes(server(), edited(same, spec__abort=True)) == []


def test_tp007_on_delete() -> None:
    found = codes(server(updateStrategy={"type": "OnDelete"}), rollout(0))
    assert found == [("TP007", "metadata.name")]


def test_tp008_tserver_without_release() -> None:
    doc = edited(server(), spec__release=None)
    del doc["spec"]["release"]
    assert ("TP008", "metadata.name") in codes(doc, rollout(0))


def test_tp009_daemonset_server() -> None:
    assert ("TP009", "metadata.name") in codes(server(daemonSet=True), rollout(0))


def test_tp010_two_rollouts_for_one_tserver() -> None:
    assert codes(server(), rollout(0), rollout(1)) == [("TP010", "metadata.name")]


def test_tp011_count_above_replicas_is_capped() -> None:
    found = build(load(server(), rollout(0, steps=[6])), EXPAND)
    assert [(v.code, v.field, v.is_error) for v in found.violations] == [
        ("TP011", "spec.steps[0]", False)
    ]
    assert partition_of(found.objects) == 0


def test_tp012_own_partition_replaced() -> None:
    doc = server(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 1}})
    found = build(load(doc, rollout(0)), EXPAND)
    assert [(v.code, v.is_error) for v in found.violations] == [("TP012", False)]
    assert partition_of(found.objects) == 3


def test_errors_block_the_build() -> None:
    built = build(load(server(), rollout(5)), EXPAND)
    assert not built.ok and built.objects == []


def test_tp001_stopped_holds_ordinals() -> None:
    assert codes(server(), rollout(0, stopped=["one"])) == [("TP001", "spec.stopped[0]")]
    assert codes(server(), rollout(0, stopped=[-1])) == [("TP001", "spec.stopped[0]")]


def test_tp016_a_step_going_back_on_the_same_release() -> None:
    previous, back = load(server(), rollout(1)), load(server(), rollout(0))
    found = [(v.code, v.field, v.is_error) for v in validate_change(previous, back)]
    assert found == [("TP016", "spec.step", False)]
    assert validate_change(load(server(), rollout(0)), load(server(), rollout(1))) == []
    aborted = load(server(), rollout(0, abort=True))
    assert validate_change(previous, aborted) == []


def test_tp001_messages_name_what_is_expected() -> None:
    stack = load(server(), rollout(0, stable={"id": "", "image": "UPPER"}))
    messages = {v.field: v.message for v in stack.violations}
    assert messages["spec.stable.id"] == "must not be empty"
    assert messages["spec.stable.image"].startswith("'UPPER' is not valid: expected an image")


def test_tp017_max_unavailable_not_applied() -> None:
    documents = (server(), rollout(0, maxUnavailable=2))
    found = build(load(*documents), EXPAND).violations
    assert [(v.code, v.field, v.is_error) for v in found] == [
        ("TP017", "spec.maxUnavailable", False)
    ]
    kruise = Options(namespace=NAMESPACE, workload=Workload.KRUISE)
    assert build(load(*documents), kruise).violations == []
    crd = Options(namespace=NAMESPACE, mode=Mode.CRD)
    built = build(load(*documents), crd)
    assert [v.code for v in built.violations] == ["TP017"]
    tserver = next(o for o in built.objects if o["kind"] == "TServer")
    assert tserver["spec"]["k8s"]["updateStrategy"]["rollingUpdate"] == {"partition": 3}


def test_tp001_max_unavailable() -> None:
    assert codes(server(), rollout(0, maxUnavailable=0)) == [("TP001", "spec.maxUnavailable")]
    found = codes(server(), rollout(0, maxUnavailable="0%"))
    assert found == [("TP001", "spec.maxUnavailable")]
