"""Who holds a live field, and handing client-side appliers' and pulumi-kubernetes' random
managers' fields to the stack's manager exactly as ``kubectl apply --server-side`` does
(client-go's csaupgrade): docs/concepts/live.md, "Field managers handed over"."""

from __future__ import annotations

from typing import Any

from tars_components.models.managed_fields import (
    LAST_APPLIED_ANNOTATION,
    client_side_managers,
    handover,
    holds,
    only_ours,
    owners,
    union,
)

STACK = "tars-components-dev"
LAST_APPLIED = {"f:metadata": {"f:annotations": {".": {}, f"f:{LAST_APPLIED_ANNOTATION}": {}}}}
REPLICAS = {"f:spec": {"f:k8s": {"f:replicas": {}}}}
RELEASE = {"f:spec": {"f:release": {".": {}, "f:id": {}}}}


def entry(manager: str, operation: str, fields: dict[str, Any], **extra: str) -> dict[str, Any]:
    return {
        "manager": manager,
        "operation": operation,
        "apiVersion": "k8s.tars.io/v1beta3",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
        **extra,
    }


def live(*entries: dict[str, Any], last_applied: bool = True) -> dict[str, Any]:
    annotations = {LAST_APPLIED_ANNOTATION: "{}"} if last_applied else {}
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {
            "name": "shop-orderserver",
            "namespace": "tars",
            "resourceVersion": "812",
            "annotations": annotations,
            "managedFields": list(entries),
        },
        "spec": {"k8s": {"replicas": 3}},
    }


def test_a_field_is_held_by_the_entries_that_name_it_or_a_map_above_it_whole() -> None:
    assert holds(REPLICAS, ("spec", "k8s", "replicas"))
    assert not holds(REPLICAS, ("spec", "release"))
    assert holds({"f:spec": {"f:k8s": {}}}, ("spec", "k8s", "replicas"))  # atomic map
    assert not holds({}, ("spec",))  # an empty set holds nothing
    obj = live(entry("tarsweb", "Update", REPLICAS), entry(STACK, "Apply", RELEASE))
    assert owners(obj, ("spec", "k8s", "replicas")) == ("tarsweb",)
    status = entry("tars-controller", "Update", REPLICAS, subresource="status")
    assert owners(live(status), ("spec", "k8s", "replicas")) == ()


def test_client_side_appliers_are_the_update_managers_of_the_last_applied_annotation() -> None:
    csa = entry("kubectl-client-side-apply", "Update", union(LAST_APPLIED, REPLICAS))
    scale = entry("kubectl-scale", "Update", REPLICAS)
    assert client_side_managers(live(csa, scale)) == ("kubectl-client-side-apply",)
    assert client_side_managers(live(csa, last_applied=False)) == ()
    # an Apply entry that owns the annotation already: kubectl migrates nothing
    ssa = entry("kubectl", "Apply", LAST_APPLIED)
    assert client_side_managers(live(csa, ssa)) == ()


def test_kubectl_fields_pass_to_the_stack_manager_by_renaming_when_it_has_none() -> None:
    csa = entry("kubectl-client-side-apply", "Update", union(LAST_APPLIED, REPLICAS))
    scale = entry("kubectl-scale", "Update", REPLICAS)
    moved = handover(live(csa, scale), STACK)
    assert moved is not None
    assert moved.managers == (("kubectl-client-side-apply", "Update"),)
    managers = [(e["manager"], e["operation"]) for e in moved.managed_fields]
    assert managers == [(STACK, "Apply"), ("kubectl-scale", "Update")]
    assert moved.managed_fields[0]["fieldsV1"] == union(LAST_APPLIED, REPLICAS)
    assert moved.patch() == [
        {
            "op": "replace",
            "path": "/metadata/managedFields",
            "value": [dict(e) for e in moved.managed_fields],
        },
        {"op": "replace", "path": "/metadata/resourceVersion", "value": "812"},
    ]


def test_fields_are_united_into_an_existing_stack_entry_and_stale_random_managers_go() -> None:
    csa = entry("kubectl-client-side-apply", "Update", union(LAST_APPLIED, REPLICAS))
    mine = entry(STACK, "Apply", {"f:spec": {"f:k8s": {"f:env": {}}}})
    stale = entry("pulumi-kubernetes-8f3a", "Apply", RELEASE)
    status = entry("tars-controller", "Update", {"f:status": {}}, subresource="status")
    obj = live(csa, mine, stale, status)
    moved = handover(obj, STACK)
    assert moved is not None
    assert moved.managers == (
        ("kubectl-client-side-apply", "Update"),
        ("pulumi-kubernetes-8f3a", "Apply"),
    )
    # the status subresource's entry stays as it was (the patch replaces the whole list)
    only, kept = moved.managed_fields
    assert kept == status
    assert only["manager"] == STACK
    assert only["fieldsV1"] == union(
        union(union(LAST_APPLIED, REPLICAS), RELEASE), {"f:spec": {"f:k8s": {"f:env": {}}}}
    )
    after = moved.applied(obj)
    assert [e["manager"] for e in after["metadata"]["managedFields"]] == [STACK, "tars-controller"]
    assert owners(after, ("spec", "release")) == (STACK,)


def test_a_count_written_through_the_scale_subresource_has_its_owner() -> None:
    """An HPA and ``kubectl scale`` write ``spec.replicas`` through ``/scale``: their entry
    names the subresource and still holds the field."""
    scale = entry("kube-controller-manager", "Update", REPLICAS, subresource="scale")
    obj = live(entry(STACK, "Apply", REPLICAS), scale, last_applied=False)
    assert owners(obj, ("spec", "k8s", "replicas")) == (STACK, "kube-controller-manager")
    assert not only_ours(owners(obj, ("spec", "k8s", "replicas")), STACK)


def test_nothing_to_hand_over_is_none() -> None:
    assert handover(live(entry(STACK, "Apply", REPLICAS), last_applied=False), STACK) is None
    assert handover(live(entry("tarsweb", "Update", REPLICAS), last_applied=False), STACK) is None


def test_a_field_is_ours_alone_when_every_holder_is_a_manager_pulumi_applies_with() -> None:
    assert only_ours([STACK, "pulumi-kubernetes-8f3a", "before-first-apply"], STACK)
    assert not only_ours([STACK, "kubectl-scale"], STACK)
    assert not only_ours([], STACK)
