"""``diff`` and ``validate --previous`` of storage changes, as a user runs them
(docs/concepts/storage.md): growths listed claim by claim, outages refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.builders.storage import data_mount, db_server, write_pair
from support.engines.cli import run

CLAIMS = ["data-test-demotest-0", "data-test-demotest-1", "data-test-demotest-2"]


def diff_json(old: Path, new: Path, *extra: str) -> tuple[dict, str, int]:
    result = run("diff", str(old), str(new), "--namespace", "tars-dev", "--format", "json", *extra)
    document = json.loads(result.stdout) if result.returncode == 0 else {}
    return document, result.stderr, result.returncode


@pytest.mark.parametrize("mode", ["expand", "crd"])
def test_growth_lists_three_claims_and_no_replacement(tmp_path: Path, mode: str) -> None:
    old, new = write_pair(tmp_path, db_server(data_mount("5Gi")), db_server(data_mount("10Gi")))
    document, stderr, code = diff_json(old, new, "--mode", mode)
    assert code == 0, stderr
    claims = [c for c in document["changes"] if c["kind"] == "PersistentVolumeClaim"]
    assert [c["name"] for c in claims] == CLAIMS
    for claim in claims:
        assert (claim["action"], claim["apiVersion"], claim["namespace"]) == (
            "update",
            "v1",
            "tars-dev",
        )
        assert claim["fields"] == [
            {"path": "spec.resources.requests.storage", "old": "5Gi", "new": "10Gi"}
        ]
    assert document["summary"]["replace"] == 0
    workload = "StatefulSet" if mode == "expand" else "TServer"
    [held] = [c for c in document["changes"] if c["kind"] == workload]
    # a StatefulSet has annotations already (its wait conditions): one key is added
    expected = (
        {
            "path": 'metadata.annotations["tars-components.io/claim-storage"]',
            "old": None,
            "new": "data=10Gi",
        }
        if mode == "expand"
        else {
            "path": "metadata.annotations",
            "old": None,
            "new": {"tars-components.io/claim-storage": "data=10Gi"},
        }
    )
    assert held["fields"] == [expected]
    if mode == "crd":
        assert held["effects"] == []  # the controller leaves the StatefulSet alone
    assert "TV003" in stderr  # ssd is not declared either way


def test_growth_on_a_class_declared_fixed_is_refused(tmp_path: Path) -> None:
    old, new = write_pair(tmp_path, db_server(data_mount("5Gi")), db_server(data_mount("10Gi")))
    result = run(
        "diff", str(old), str(new), "--namespace", "tars-dev", "--fixed-storage-classes", "ssd"
    )
    assert result.returncode == 1
    assert "TV002 error TServer tars-dev/test-demotest" in result.stdout
    assert "ssd does not allow volume expansion" in result.stdout
    declared = run(
        "diff",
        str(old),
        str(new),
        "--namespace",
        "tars-dev",
        "--expandable-storage-classes",
        "ssd",
    )
    assert declared.returncode == 0 and "TV00" not in declared.stderr


def test_a_class_both_fixed_and_expandable_is_a_usage_error(tmp_path: Path) -> None:
    old, new = write_pair(tmp_path, db_server(data_mount("5Gi")), db_server(data_mount("10Gi")))
    result = run(
        "diff",
        str(old),
        str(new),
        "--namespace",
        "tars-dev",
        "--fixed-storage-classes",
        "ssd",
        "--expandable-storage-classes",
        "ssd,hdd",
    )
    assert result.returncode == 2
    assert "ssd is declared both expandable and fixed" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_new_claim_in_crd_mode_names_the_pods_then_passes_once_acknowledged(
    tmp_path: Path,
) -> None:
    logs = data_mount("1Gi", name="logs")
    old, new = write_pair(tmp_path, db_server(data_mount()), db_server(data_mount(), logs))
    for command in (
        ("validate", str(new), "--previous", str(old)),
        ("diff", str(old), str(new)),
    ):
        result = run(*command, "--namespace", "tars-dev", "--mode", "crd")
        assert result.returncode == 1, result.stderr
        assert "TV001 error TServer tars-dev/test-demotest spec.k8s.mounts[1]" in result.stdout
        assert "test-demotest-0, test-demotest-1, test-demotest-2" in result.stdout
        assert f"{new}/stack.yaml:" in result.stdout  # file and line
    ack = {"tars-components.io/accept-outage": "true"}
    again = write_pair(
        tmp_path / "ack", db_server(data_mount()), db_server(data_mount(), logs, annotations=ack)
    )
    result = run(
        "validate",
        str(again[1]),
        "--previous",
        str(again[0]),
        "--namespace",
        "tars-dev",
        "--mode",
        "crd",
    )
    assert result.returncode == 0, result.stdout
    assert "TV001 warning" in result.stdout


def test_storage_classes_from_the_stack_settings(tmp_path: Path) -> None:
    old, _ = write_pair(tmp_path, db_server(data_mount("5Gi")), db_server(data_mount("10Gi")))
    (tmp_path / "Pulumi.yaml").write_text("name: tars\nruntime: python\n", encoding="utf-8")
    (tmp_path / "Pulumi.db.yaml").write_text(
        "config:\n  tars:namespace: tars-dev\n  tars:stackDir: new\n"
        "  tars:fixedStorageClasses: hdd, ssd\n",
        encoding="utf-8",
    )
    refused = run("diff", str(old), "--stack", "db", "--project-dir", str(tmp_path))
    assert refused.returncode == 1 and "TV002 error" in refused.stdout
    # the flag overrides the setting
    allowed = run(
        "diff",
        str(old),
        "--stack",
        "db",
        "--project-dir",
        str(tmp_path),
        "--fixed-storage-classes",
        "hdd",
        "--expandable-storage-classes",
        "ssd",
    )
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_a_bad_storage_class_name_is_a_usage_error(tmp_path: Path) -> None:
    old, new = write_pair(tmp_path, db_server(data_mount("5Gi")), db_server(data_mount("10Gi")))
    result = run(
        "diff", str(old), str(new), "--namespace", "tars-dev", "--fixed-storage-classes", "Bad_SC"
    )
    assert result.returncode == 2
    assert "--fixed-storage-classes" in result.stderr and "Traceback" not in result.stderr


def test_an_orphan_recreate_says_the_pods_are_kept(tmp_path: Path) -> None:
    orphan = {"tars-components.io/recreate": "orphan"}
    logs = data_mount("1Gi", name="logs")
    old, new = write_pair(
        tmp_path,
        db_server(data_mount(), annotations=orphan),
        db_server(data_mount(), logs, annotations=orphan),
    )
    document, stderr, code = diff_json(old, new)
    assert code == 0, stderr
    [change] = [c for c in document["changes"] if c["kind"] == "StatefulSet"]
    assert change["action"] == "replace"
    assert "all 3 pods are kept (pulumi.com/deletionPropagationPolicy: orphan" in change["reason"]
    assert "TV001 warning" in stderr and "recreated with orphan propagation" in stderr


def test_an_orphan_recreate_says_a_class_change_misses_the_existing_claims(
    tmp_path: Path,
) -> None:
    orphan = {"tars-components.io/recreate": "orphan"}
    old, new = write_pair(
        tmp_path,
        db_server(data_mount("5Gi", "ssd"), annotations=orphan),
        db_server(data_mount("5Gi", "fast"), annotations=orphan),
    )
    _, stderr, code = diff_json(old, new)
    assert code == 0, stderr
    assert "recreated with orphan propagation" in stderr
    assert "claim data's existing PersistentVolumeClaims keep ssd (not fast" in stderr
