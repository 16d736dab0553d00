"""Storage decided by the cluster (docs/concepts/live.md#storage): without a previous stack
directory, ``pulumi preview`` takes the claim sizes that run from the live workload, so a
claim that grows is grown in place and a StorageClass that does not expand refuses it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.builders.storage import data_mount, db_server, write_stack

from tars_components.models.live import LiveState
from tars_components.pipeline import validate
from tars_components.rules.storage import storage_changes
from tars_components.settings.options import Mode, Options, with_storage_classes

EXPAND = Options(namespace="tars-dev")


def live_statefulset(size: str, annotation: str | None = None, replicas: int = 3) -> dict:
    meta: dict[str, Any] = {"name": "test-demotest", "namespace": "tars-dev"}
    if annotation:
        meta["annotations"] = {"tars-components.io/claim-storage": annotation}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": meta,
        "spec": {
            "replicas": replicas,
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "storageClassName": "ssd",
                        "volumeMode": "Filesystem",
                        "resources": {"requests": {"storage": size}},
                    },
                }
            ],
        },
    }


def storage_class(expands: bool | None) -> dict:
    body: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "ssd"},
        "provisioner": "x",
    }
    if expands is not None:
        body["allowVolumeExpansion"] = expands
    return body


def checked(tmp_path: Path, size: str, *live_objects: dict, options: Options = EXPAND) -> Any:
    stack = write_stack(tmp_path / "stack", db_server(data_mount(size)))
    live = LiveState(tuple(live_objects))
    options = with_storage_classes(options, live.storage_classes())
    return validate(stack, options, live=live, objects=True)


def test_a_claim_that_grows_is_grown_in_place_from_its_live_size(tmp_path: Path) -> None:
    result = checked(tmp_path, "10Gi", live_statefulset("5Gi"), storage_class(True))
    assert result.ok, result.violations
    (change,) = storage_changes(result.previous, result.stack, EXPAND)
    assert change.grows_in_place
    (growth,) = change.growths
    assert (growth.old, growth.new, growth.claim_names) == (
        "5Gi",
        "10Gi",
        ("data-test-demotest-0", "data-test-demotest-1", "data-test-demotest-2"),
    )


@pytest.mark.parametrize("expands", [None, False])
def test_a_class_that_does_not_expand_fails_the_preview(
    tmp_path: Path, expands: bool | None
) -> None:
    # an absent allowVolumeExpansion is Kubernetes' default: not expandable
    result = checked(tmp_path, "10Gi", live_statefulset("5Gi"), storage_class(expands))
    assert [v.code for v in result.errors] == ["TV002"]
    assert result.run.results[0].build.objects == []


def test_a_second_growth_starts_from_the_size_already_asked(tmp_path: Path) -> None:
    # the template is held at 5Gi; the annotation says 10Gi was asked: 10Gi to 20Gi grows
    live = live_statefulset("5Gi", annotation="data=10Gi")
    result = checked(tmp_path, "20Gi", live, storage_class(True))
    assert result.ok, result.violations
    shrink = checked(tmp_path / "again", "8Gi", live, storage_class(True))
    assert [v.code for v in shrink.errors] == ["TV004"]


def test_a_server_not_in_the_cluster_is_new(tmp_path: Path) -> None:
    result = checked(tmp_path, "10Gi", storage_class(False))
    assert result.ok, result.violations
    assert list(result.previous.servers) == []


def test_crd_mode_reads_the_live_tservers_mounts(tmp_path: Path) -> None:
    tserver = {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {"name": "test-demotest", "namespace": "tars-dev"},
        "spec": {"k8s": {"replicas": 3, "mounts": [data_mount("5Gi")]}},
    }
    options = Options(namespace="tars-dev", mode=Mode.CRD)
    result = checked(tmp_path, "4Gi", tserver, storage_class(True), options=options)
    assert [v.code for v in result.errors] == ["TV004"]


def test_the_claims_that_run_give_the_size_a_held_template_hides(tmp_path: Path) -> None:
    # grown once in a Pulumi program: the template held at 5Gi, the claims at 10Gi
    claims = [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": f"data-test-demotest-{i}", "namespace": "tars-dev"},
            "spec": {"resources": {"requests": {"storage": "10Gi"}}},
        }
        for i in range(3)
    ]
    live = (live_statefulset("5Gi"), storage_class(True), *claims)
    same = checked(tmp_path, "10Gi", *live)
    assert same.ok and storage_changes(same.previous, same.stack, EXPAND) == []
    more = checked(tmp_path / "more", "20Gi", *live)
    (change,) = storage_changes(more.previous, more.stack, EXPAND)
    assert [(g.old, g.new) for g in change.growths] == [("10Gi", "20Gi")]
    assert [v.code for v in checked(tmp_path / "less", "8Gi", *live).errors] == ["TV004"]
