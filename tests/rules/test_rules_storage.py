"""Storage changes between two versions of a stack (docs/concepts/storage.md): which claims
grow in place, and the rules TV001-TV007 that keep a change from taking every pod down."""

from __future__ import annotations

import pytest
from support.builders.documents import load
from support.builders.storage import data_mount, db_server, local_mount

from tars_components.pipeline import all_violations
from tars_components.rules.storage import quantity_bytes, storage_changes
from tars_components.settings.options import Mode, Options

ACK = {"tars-components.io/accept-outage": "true"}
ORPHAN = {"tars-components.io/recreate": "orphan"}


def violations(old: dict, new: dict, **options: object) -> list:
    return all_violations(load(new), Options(namespace="tars-dev", **options), load(old))


def codes(found: list) -> list[tuple[str, str, str]]:
    return [(v.code, str(v.severity), v.field) for v in found if v.code.startswith("TV")]


STORAGE = "spec.k8s.mounts[0].source.persistentVolumeClaimTemplate.spec.resources.requests.storage"


def test_a_pure_growth_lists_each_existing_claim() -> None:
    [change] = storage_changes(
        load(db_server(data_mount("5Gi"))), load(db_server(data_mount("10Gi"))), Options()
    )
    assert change.grows_in_place and not change.changed
    [growth] = change.growths
    assert (growth.claim, growth.old, growth.new) == ("data", "5Gi", "10Gi")
    assert growth.claim_names == (
        "data-test-demotest-0",
        "data-test-demotest-1",
        "data-test-demotest-2",
    )


def test_an_unchanged_server_has_no_storage_change() -> None:
    stack = load(db_server(data_mount("5Gi")))
    assert storage_changes(stack, stack, Options()) == []
    same = load(db_server(data_mount("5120Mi")))  # the same size, written differently
    assert storage_changes(stack, same, Options()) == []


@pytest.mark.parametrize(
    ("text", "size"), [("10Gi", 10 * 2**30), ("1G", 10**9), ("5e3", 5000), ("500m", 0.5)]
)
def test_quantities_compare_by_bytes(text: str, size: float) -> None:
    assert quantity_bytes(text) == size


@pytest.mark.parametrize("mode", ["expand", "crd"])
def test_tv001_a_new_claim_takes_every_pod_down_unless_acknowledged(mode: str) -> None:
    old = db_server(data_mount())
    new = db_server(data_mount(), data_mount("1Gi", name="logs"))
    [error] = [v for v in violations(old, new, mode=Mode(mode)) if v.code == "TV001"]
    assert error.is_error and error.field == "spec.k8s.mounts[1]"
    assert "claim logs added" in error.message
    assert "3 pod(s) (test-demotest-0, test-demotest-1, test-demotest-2)" in error.message
    acknowledged = db_server(data_mount(), data_mount("1Gi", name="logs"), annotations=ACK)
    [warning] = [v for v in violations(old, acknowledged, mode=Mode(mode)) if v.code == "TV001"]
    assert not warning.is_error and "acknowledged" in warning.message


def test_tv001_a_changed_access_mode_or_a_removed_claim_is_an_outage() -> None:
    old = db_server(data_mount(), data_mount("1Gi", name="logs"))
    changed = db_server(data_mount(storage_class="standard"), data_mount("1Gi", name="logs"))
    assert codes(violations(old, changed)) == [("TV001", "error", "spec.k8s.mounts[0]")]
    removed = db_server(data_mount())
    [(code, severity, _)] = codes(violations(old, removed))
    assert (code, severity) == ("TV001", "error")


def test_tv001_without_pods_nothing_goes_down() -> None:
    old = db_server(data_mount(), replicas=0)
    new = db_server(data_mount(), data_mount("1Gi", name="logs"), replicas=0)
    assert codes(violations(old, new)) == []


def test_tv001_pod_management_policy_replaces_only_in_expand_mode() -> None:
    old = db_server(data_mount())
    new = db_server(data_mount())
    new["spec"]["k8s"]["podManagementPolicy"] = "OrderedReady"
    old["spec"]["k8s"]["podManagementPolicy"] = "Parallel"
    assert codes(violations(old, new)) == [("TV001", "error", "spec.k8s.podManagementPolicy")]
    assert codes(violations(old, new, mode=Mode.CRD)) == []


def test_tv007_orphan_recreate_needs_the_annotation_deployed_first() -> None:
    old = db_server(data_mount())
    new = db_server(data_mount(), data_mount("1Gi", name="logs"), annotations=ORPHAN)
    assert codes(violations(old, new)) == [
        ("TV007", "error", 'metadata.annotations["tars-components.io/recreate"]')
    ]
    deployed = db_server(data_mount(), annotations=ORPHAN)
    [(code, severity, _)] = codes(violations(deployed, new))
    assert (code, severity) == ("TV001", "warning")
    # crd mode: the controller deletes with the default cascade whatever the annotation says
    [(code, severity, _)] = codes(violations(deployed, new, mode=Mode.CRD))
    assert (code, severity) == ("TV001", "error")


def test_tv002_growth_on_a_class_declared_fixed_is_an_error() -> None:
    old, new = db_server(data_mount("5Gi")), db_server(data_mount("10Gi"))
    assert codes(violations(old, new, fixed_storage_classes=("ssd",))) == [
        ("TV002", "error", STORAGE)
    ]
    assert codes(violations(old, new, expandable_storage_classes=("ssd",))) == []


def test_tv003_growth_on_an_undeclared_class_is_a_warning() -> None:
    old, new = db_server(data_mount("5Gi", None)), db_server(data_mount("10Gi", None))
    [warning] = [v for v in violations(old, new) if v.code == "TV003"]
    assert warning.field == STORAGE and not warning.is_error
    assert "the cluster's default StorageClass" in warning.message


def test_tv004_a_claim_never_shrinks() -> None:
    found = violations(db_server(data_mount("10Gi")), db_server(data_mount("5Gi")))
    assert codes(found) == [("TV004", "error", STORAGE)]
    assert "shrinks from 10Gi to 5Gi" in found[0].message


def test_tv005_a_claim_on_local_volumes_never_grows() -> None:
    old = db_server(data_mount("5Gi", "tars-storage-class"))
    new = db_server(data_mount("10Gi", "tars-storage-class"))
    assert codes(violations(old, new, expandable_storage_classes=("tars-storage-class",))) == [
        ("TV005", "error", STORAGE)
    ]


def test_tv006_removed_local_volume_claims_are_called_out_in_crd_mode() -> None:
    old = db_server(data_mount(), local_mount("cache"), annotations=ACK)
    new = db_server(data_mount(), annotations=ACK)
    [warning] = [v for v in violations(old, new, mode=Mode.CRD) if v.code == "TV006"]
    assert "cache-test-demotest-0, cache-test-demotest-1, cache-test-demotest-2" in warning.message
    assert [v for v in violations(old, new) if v.code == "TV006"] == []
