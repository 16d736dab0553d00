"""Growing claims in place and recreating without deleting pods, as objects
(docs/concepts/storage.md)."""

from __future__ import annotations

from support.builders.documents import load, objects
from support.builders.storage import data_mount, db_server

from tars_components.expansion.awaits import WAIT_FOR_ANNOTATION, statefulset_wait_for
from tars_components.expansion.storage import claim_patches, hold_claims
from tars_components.pipeline import expand
from tars_components.rules.storage import storage_changes
from tars_components.settings.options import Mode, Options

ORPHAN = {"tars-components.io/recreate": "orphan"}
WAITS = {WAIT_FOR_ANNOTATION: statefulset_wait_for(3, 0)}
"""What every StatefulSet of three pods waits for (docs/pulumi/deploy.md)."""


def grown() -> tuple[list, list]:
    old, new = load(db_server(data_mount("5Gi"))), load(db_server(data_mount("10Gi")))
    options = Options(namespace="tars-dev")
    return storage_changes(old, new, options), expand(new, options)


def test_the_statefulset_keeps_its_claim_template_and_records_the_wanted_size() -> None:
    changes, built = grown()
    [statefulset] = [
        o for o in hold_claims(built, changes, Mode.EXPAND) if o["kind"] == "StatefulSet"
    ]
    [template] = statefulset["spec"]["volumeClaimTemplates"]
    assert template["spec"]["resources"]["requests"]["storage"] == "5Gi"
    assert statefulset["metadata"]["annotations"] == {
        **WAITS,
        "tars-components.io/claim-storage": "data=10Gi",
    }
    # the input is left as it was
    [original] = [o for o in built if o["kind"] == "StatefulSet"]
    assert original["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"] == {
        "storage": "10Gi"
    }


def test_one_patch_per_existing_claim_with_the_new_size() -> None:
    [change], _ = grown()
    patches = claim_patches(change)
    assert [p["metadata"]["name"] for p in patches] == [
        "data-test-demotest-0",
        "data-test-demotest-1",
        "data-test-demotest-2",
    ]
    assert {p["metadata"]["namespace"] for p in patches} == {"tars-dev"}
    assert all(p["spec"] == {"resources": {"requests": {"storage": "10Gi"}}} for p in patches)
    assert all(p["metadata"]["annotations"] == {"pulumi.com/patchForce": "true"} for p in patches)


def test_no_patch_when_the_change_is_more_than_a_growth() -> None:
    old = load(db_server(data_mount("5Gi")))
    new = load(db_server(data_mount("10Gi"), data_mount("1Gi", name="logs")))
    [change] = storage_changes(old, new, Options())
    assert not change.grows_in_place and claim_patches(change) == []


def test_recreate_orphan_annotates_the_statefulset_for_pulumi() -> None:
    statefulset = objects(db_server(data_mount(), annotations=ORPHAN))["StatefulSet/test-demotest"]
    assert statefulset["metadata"]["annotations"] == {
        **WAITS,
        "pulumi.com/deletionPropagationPolicy": "orphan",
    }
    plain = objects(db_server(data_mount()))["StatefulSet/test-demotest"]
    assert plain["metadata"]["annotations"] == WAITS
