"""What ``pulumi preview`` reads from the cluster and says about it (docs/concepts/live.md):
the kinds read, the conflicts the next ``up`` would be refused for (both values and the
fix) or takes over with force, and the StorageClasses that decide which claims may grow."""

from __future__ import annotations

from typing import Any

from support.builders.documents import NAMESPACE, load
from support.builders.rollouts import rollout, server

from tars_components.jobs.live import (
    conflict_message,
    forecast,
    held_message,
    live_kinds,
    plan_handover,
    taken_message,
)
from tars_components.models.live import LiveState
from tars_components.models.ownership import FieldOwnership
from tars_components.pipeline import build
from tars_components.settings.options import Mode, Options, Workload, with_storage_classes

CRD = Options(namespace=NAMESPACE, mode=Mode.CRD)


def fields_v1(*path: str) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for part in reversed(path):
        node = {f"f:{part}": node}
    return node


def live_tserver(
    replicas: int, manager: str, *path: str, operation: str = "Apply"
) -> dict[str, Any]:
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {
            "name": "shop-orderserver",
            "namespace": NAMESPACE,
            "managedFields": [
                {
                    "manager": manager,
                    "operation": operation,
                    "apiVersion": "k8s.tars.io/v1beta3",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": fields_v1(*path),
                }
            ],
        },
        "spec": {"k8s": {"replicas": replicas}},
    }


def test_the_kinds_read_follow_the_mode_and_the_engine() -> None:
    namespaced, cluster = live_kinds(CRD)
    assert ("k8s.tars.io/v1beta3", "TServer") in namespaced
    assert ("autoscaling/v2", "HorizontalPodAutoscaler") in namespaced
    assert cluster == [("storage.k8s.io/v1", "StorageClass")]
    kruise, _ = live_kinds(Options(workload=Workload.KRUISE))
    assert ("apps.kruise.io/v1beta1", "StatefulSet") in kruise
    assert ("apps/v1", "StatefulSet") not in kruise


def test_a_field_another_manager_owns_with_another_value_is_a_conflict() -> None:
    stack = load(server())
    objects = build(stack, CRD).objects
    live = LiveState((live_tserver(7, "tarsweb", "spec", "k8s", "replicas"),), source="context x")
    found = forecast(objects, live, stack, CRD, ["tars-components-dev"])
    (conflict,) = found.conflicts
    assert (conflict.manager, conflict.field, conflict.live, conflict.build) == (
        "tarsweb",
        "spec.k8s.replicas",
        7,
        4,
    )
    line = conflict_message(conflict, live.source)
    assert "owned by tarsweb in context x (live 7), the stack applies 4" in line
    assert "replicas=external" in line
    assert found.taken == ()


def test_the_same_value_or_our_own_manager_is_no_conflict() -> None:
    stack = load(server())
    objects = build(stack, CRD).objects
    same = LiveState((live_tserver(4, "tarsweb", "spec", "k8s", "replicas"),))
    ours = LiveState((live_tserver(7, "tars-components-dev", "spec", "k8s", "replicas"),))
    for live in (same, ours):
        assert forecast(objects, live, stack, CRD, ["tars-components-dev"]).conflicts == ()


def test_a_field_handed_over_never_conflicts_and_a_forced_server_takes_it() -> None:
    stack = load(server())
    live = LiveState((live_tserver(7, "tarsweb", "spec", "k8s", "replicas"),))
    handed = Options(namespace=NAMESPACE, mode=Mode.CRD, field_ownership={"replicas": "external"})
    objects = build(stack, handed).objects
    assert forecast(objects, live, stack, handed, []).conflicts == ()
    # a server with a setting of its own (here: the release) is applied with force
    forcing = Options(namespace=NAMESPACE, mode=Mode.CRD, field_ownership={"release": "external"})
    objects = build(stack, forcing).objects
    found = forecast(objects, live, stack, forcing, [])
    assert found.conflicts == ()
    (taken,) = found.taken
    assert "applies 4 with force and takes it over" in taken_message(taken, "the cluster")


def test_an_aborting_rollout_forces_its_server() -> None:
    stack = load(server(), rollout(1, abort=True))
    objects = build(stack, CRD).objects
    live = LiveState((live_tserver(7, "tarsweb", "spec", "release"),))
    found = forecast(objects, live, stack, CRD, [], FieldOwnership())
    assert found.conflicts == ()
    assert [c.field for c in found.taken] == ["spec.release"]


def test_storage_classes_from_the_cluster_fill_what_the_options_do_not_declare() -> None:
    classes = LiveState(
        tuple(
            {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": n}}
            | extra
            for n, extra in (
                ("fast", {"allowVolumeExpansion": True}),
                ("plain", {}),  # Kubernetes' default: not expandable
                ("declared", {}),
            )
        )
    ).storage_classes()
    assert classes == {"fast": True, "plain": False, "declared": False}
    options = with_storage_classes(Options(expandable_storage_classes=("declared",)), classes)
    assert options.expandable_storage_classes == ("declared", "fast")
    assert options.fixed_storage_classes == ("plain",)


STACK_MANAGER = "tars-components-dev"
EXTERNAL = Options(namespace=NAMESPACE, mode=Mode.CRD, field_ownership={"replicas": "external"})


def test_an_external_field_only_the_stack_holds_is_kept_at_its_live_value() -> None:
    stack = load(server())
    objects = build(stack, EXTERNAL).objects
    alone = LiveState((live_tserver(5, "pulumi-kubernetes-8f3a", "spec", "k8s", "replicas"),))
    plan = plan_handover(objects, alone, stack, EXTERNAL, STACK_MANAGER)
    (held,) = plan.held
    assert (held.kind, held.field, held.live) == ("TServer", "spec.k8s.replicas", 5)
    assert plan.held_keys() == {(NAMESPACE, "shop-orderserver", "spec.k8s.replicas")}
    assert "keeps it at its live value (5) until another manager writes it" in held_message(
        held, STACK_MANAGER
    )
    # the stale random manager's fields pass to the stack's manager at up
    (moved,) = plan.handovers
    assert moved.managers == (("pulumi-kubernetes-8f3a", "Apply"),)
    # once another manager holds it, it is given up for real
    scaled = LiveState(
        (live_tserver(7, "kubectl-scale", "spec", "k8s", "replicas", operation="Update"),)
    )
    assert plan_handover(objects, scaled, stack, EXTERNAL, STACK_MANAGER).held == ()


def test_a_kubectl_applied_server_takes_the_stack_manager_and_its_fields_conflict_no_more() -> None:
    stack = load(server())
    objects = build(stack, CRD).objects
    obj = live_tserver(
        7, "kubectl-client-side-apply", "spec", "k8s", "replicas", operation="Update"
    )
    entry = obj["metadata"]["managedFields"][0]
    entry["fieldsV1"]["f:metadata"] = {
        "f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}
    }
    obj["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": "{}"}
    live = LiveState((obj,))
    # before the hand-over, kubectl's replicas (7 against the stack's 4) is a conflict
    assert [c.manager for c in forecast(objects, live, stack, CRD, [STACK_MANAGER]).conflicts] == [
        "kubectl-client-side-apply"
    ]
    plan = plan_handover(objects, live, stack, CRD, STACK_MANAGER)
    assert plan.servers == {(NAMESPACE, "shop-orderserver")}
    (moved,) = plan.handovers
    assert moved.managers == (("kubectl-client-side-apply", "Update"),)
    assert forecast(objects, plan.live, stack, CRD, [STACK_MANAGER]).conflicts == ()
    # applied under the stack's manager from then on: no hand-over left, the server stays
    again = LiveState((moved.applied(obj),))
    plan = plan_handover(objects, again, stack, CRD, STACK_MANAGER)
    assert (plan.handovers, plan.servers) == ((), {(NAMESPACE, "shop-orderserver")})
