"""The TServer component given its previous version (docs/concepts/storage.md), under
``pulumi.runtime.set_mocks``: claims grown in place with one patch per ordinal, outages
refused, the StorageClass looked up in the cluster."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.builders.documents import FRAMEWORK, NAMESPACE
from support.builders.storage import data_mount, db_server

from tars_components.components import (
    TFramework,
    TFrameworkArgs,
    TServer,
    TServerArgs,
    claim_resize,
)
from tars_components.components.testing import Recording, RecordingMocks, record
from tars_components.expansion.awaits import WAIT_FOR_ANNOTATION
from tars_components.loading.documents import parse_document
from tars_components.settings.options import Mode, Options

CONFIG = parse_document(FRAMEWORK)
TEMPLATES = {"tars.cpp": "tars.cpp"}
PATCH = "kubernetes:core/v1:PersistentVolumeClaimPatch"
CLAIMS = ["data-test-demotest-0", "data-test-demotest-1", "data-test-demotest-2"]


def program(
    new: dict,
    old: dict | None,
    mode: Mode = Mode.EXPAND,
    expandable: tuple[str, ...] = ("ssd",),
    skip_await: bool | None = None,
    external_replicas: bool | None = None,
    live_context: str | None = None,
) -> Any:
    def run() -> None:
        options = Options(
            namespace=NAMESPACE,
            mode=mode,
            expandable_storage_classes=expandable,
            live_context=live_context,
        )
        fw = TFramework(
            "fw",
            TFrameworkArgs(
                namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES, options=options
            ),
        )
        TServer(
            "srv",
            TServerArgs(
                fw,
                document=parse_document(new, NAMESPACE),
                previous=parse_document(old, NAMESPACE) if old else None,
                skip_await=skip_await,
                external_replicas=external_replicas,
            ),
        )

    return run


def workload(recording: Recording, kind: str) -> Any:
    [found] = [r for r in recording.kubernetes() if r.type.endswith(f":{kind}")]
    return found


@pytest.mark.parametrize("mode", [Mode.EXPAND, Mode.CRD])
def test_growth_registers_one_patch_per_ordinal_and_keeps_the_claim_template(mode: Mode) -> None:
    recording = record(program(db_server(data_mount("10Gi")), db_server(data_mount("5Gi")), mode))
    patches = recording.of_type(PATCH)
    assert sorted(p.inputs["metadata"]["name"] for p in patches) == CLAIMS  # one per ordinal
    for patch in patches:
        assert patch.inputs["metadata"]["namespace"] == NAMESPACE
        assert patch.inputs["metadata"]["annotations"] == {"pulumi.com/patchForce": "true"}
        assert patch.inputs["spec"] == {"resources": {"requests": {"storage": "10Gi"}}}
        assert patch.retain_on_delete
    if mode == Mode.EXPAND:
        statefulset = workload(recording, "StatefulSet")
        [template] = statefulset.inputs["spec"]["volumeClaimTemplates"]
        assert template["spec"]["resources"]["requests"] == {"storage": "5Gi"}
        annotations = dict(statefulset.inputs["metadata"]["annotations"])
        assert annotations.pop(WAIT_FOR_ANNOTATION)
        assert annotations == {"tars-components.io/claim-storage": "data=10Gi"}
        assert statefulset.ignore_changes == (
            "spec.volumeClaimTemplates[0].spec.resources.requests.storage",
            'metadata.annotations["tars-components.io/claim-storage"]',
        )
        assert all(statefulset.urn in p.dependencies for p in patches)
    else:
        tserver = workload(recording, "TServer")
        [mount] = tserver.inputs["spec"]["k8s"]["mounts"]
        claim = mount["source"]["persistentVolumeClaimTemplate"]
        assert claim["spec"]["resources"]["requests"] == {"storage": "5Gi"}
        assert all(tserver.urn in p.dependencies for p in patches)
    assert not [w for w in recording.warnings() if "will be replaced" in w]


def test_with_a_cluster_read_up_waits_for_the_new_capacity_after_the_patches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the mocks run a dynamic resource's create; the sequence itself is tests/jobs/test_resize.py
    waited: list[dict[str, Any]] = []
    monkeypatch.setattr(claim_resize, "_finish", lambda props: waited.append(props) or props)
    resize = "pulumi-python:dynamic/tars:ClaimResize"
    grows = program(db_server(data_mount("10Gi")), db_server(data_mount("5Gi")), live_context="")
    recording = record(grows)
    [waits] = recording.of_type(resize)
    assert [p["claims"] for p in waited] == [waits.inputs["claims"]]
    assert waits.inputs["context"] == ""
    assert waits.inputs["namespace"] == NAMESPACE
    assert waits.inputs["claims"] == [
        {"name": claim, "storage": "10Gi", "pod": f"test-demotest-{i}"}
        for i, claim in enumerate(CLAIMS)
    ]
    assert {p.urn for p in recording.of_type(PATCH)} <= set(waits.dependencies)
    # no cluster read (another program, tars:renderDir), or skipAwait: nothing waits
    old, new = db_server(data_mount("5Gi")), db_server(data_mount("10Gi"))
    assert record(program(new, old)).of_type(resize) == []
    assert record(program(new, old, live_context="", skip_await=True)).of_type(resize) == []


def test_no_previous_no_patch_and_no_ignored_field() -> None:
    recording = record(program(db_server(data_mount("10Gi")), None))
    assert recording.of_type(PATCH) == []
    assert workload(recording, "StatefulSet").ignore_changes == ()


def test_a_new_claim_is_refused_before_anything_registers() -> None:
    new = db_server(data_mount(), data_mount("1Gi", name="logs"))
    with pytest.raises(Exception, match="TV001") as failure:
        record(program(new, db_server(data_mount())))
    assert "test-demotest-0, test-demotest-1, test-demotest-2" in str(failure.value)


class ClassMocks(RecordingMocks):
    """A cluster whose StorageClasses say whether they allow expansion."""

    def __init__(self, allow: bool) -> None:
        super().__init__()
        self.allow = allow

    def new_resource(self, args: Any) -> tuple[str | None, dict[str, Any]]:
        if args.typ == "kubernetes:storage.k8s.io/v1:StorageClass":
            return args.resource_id, {
                "provisioner": "ebs.csi.aws.com",
                "allowVolumeExpansion": self.allow,
            }
        return super().new_resource(args)


def test_the_storage_class_is_looked_up_when_not_declared() -> None:
    grow = program(db_server(data_mount("10Gi")), db_server(data_mount("5Gi")), expandable=())
    recording = record(grow, mock=ClassMocks(allow=True), preview=True)
    [lookup] = [r for r in recording.registrations if r.read]
    assert lookup.type == "kubernetes:storage.k8s.io/v1:StorageClass"
    assert lookup.inputs == {"id": "ssd"}
    assert len(recording.of_type(PATCH)) == 3
    # mocks that know no StorageClass: the read has no provisioner, nothing is checked
    unread = record(grow)
    assert len(unread.of_type(PATCH)) == 3
    assert any("StorageClass ssd read without its provisioner" in w for w in unread.warnings())


_REFUSED = """
from components.test_components_storage import ClassMocks, data_mount, db_server, program, record
grow = program(db_server(data_mount("10Gi")), db_server(data_mount("5Gi")), expandable=())
try:
    record(grow, mock=ClassMocks(allow=False), preview=True)
except Exception as exc:
    print(exc)
else:
    print("applied")
"""


def test_a_storage_class_that_does_not_expand_fails_the_preview_with_tv002() -> None:
    # In a process of its own: a program failing inside an apply leaves CPython 3.11's AST
    # recursion counter off for later ast.parse calls of the same process.
    tests = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests.parent), str(tests)])}
    result = subprocess.run(
        [sys.executable, "-c", _REFUSED],
        capture_output=True,
        text=True,
        cwd=tests,
        env=env,
        check=False,
        timeout=120,
    )
    assert "applied" not in result.stdout
    assert "TV002 error TServer tars-dev/test-demotest" in result.stdout
    assert "StorageClass ssd does not allow volume expansion" in result.stdout


ORPHAN = {"tars-components.io/recreate": "orphan"}


def test_recreate_orphan_registers_the_statefulset_delete_first_without_its_pods() -> None:
    logs = data_mount("1Gi", name="logs")
    old = db_server(data_mount(), annotations=ORPHAN)  # the annotation deployed first
    new = db_server(data_mount(), logs, annotations=ORPHAN)
    recording = record(program(new, old))
    statefulset = workload(recording, "StatefulSet")
    annotations = dict(statefulset.inputs["metadata"]["annotations"])
    assert annotations.pop(WAIT_FOR_ANNOTATION)
    assert annotations == {"pulumi.com/deletionPropagationPolicy": "orphan"}
    assert statefulset.delete_before_replace
    assert not statefulset.retain_on_delete
    assert [t["metadata"]["name"] for t in statefulset.inputs["spec"]["volumeClaimTemplates"]] == [
        "data",
        "logs",
    ]
    assert recording.of_type(PATCH) == []
    [warning] = [w for w in recording.warnings() if "TV001" in w]
    assert "recreated with orphan propagation" in warning
    [replaced] = [w for w in recording.warnings() if "will be replaced" in w]
    assert "without its pods" in replaced and "all pods at once" not in replaced
    # a server without the annotation keeps the default options
    plain = workload(record(program(db_server(data_mount()), None)), "StatefulSet")
    assert not plain.delete_before_replace
    assert set(plain.inputs["metadata"]["annotations"]) == {WAIT_FOR_ANNOTATION}


def test_recreate_orphan_not_yet_deployed_is_refused_with_tv007() -> None:
    new = db_server(data_mount(), data_mount("1Gi", name="logs"), annotations=ORPHAN)
    with pytest.raises(Exception, match="TV007"):
        record(program(new, db_server(data_mount())))


def test_a_scale_out_patches_the_new_claims_to_the_wanted_size() -> None:
    grown_and_scaled = record(
        program(db_server(data_mount("10Gi"), replicas=5), db_server(data_mount("5Gi")))
    )
    patches = {
        p.inputs["metadata"]["name"]: p.inputs["spec"]["resources"]["requests"]["storage"]
        for p in grown_and_scaled.of_type(PATCH)
    }
    assert patches == {f"data-test-demotest-{i}": "10Gi" for i in range(5)}
    statefulset = workload(grown_and_scaled, "StatefulSet")
    assert all(statefulset.urn in p.dependencies for p in grown_and_scaled.of_type(PATCH))
    # a later scale-out (the previous stack has the grown size already): the new claims only
    scaled = record(
        program(db_server(data_mount("10Gi"), replicas=4), db_server(data_mount("10Gi")))
    )
    [patch] = scaled.of_type(PATCH)
    assert patch.inputs["metadata"]["name"] == "data-test-demotest-3"
    assert patch.inputs["spec"] == {"resources": {"requests": {"storage": "10Gi"}}}
    # not awaited, the new claims may not exist yet when the patch is applied: no patch
    unawaited = program(db_server(replicas=4), db_server(), skip_await=True)
    assert record(unawaited).of_type(PATCH) == []
    external = program(db_server(replicas=4), db_server(), external_replicas=True)
    assert record(external).of_type(PATCH) == []  # an HPA owns the replicas
    # crd mode: the controller creates the pods, nothing waits for them
    assert record(program(db_server(replicas=4), db_server(), Mode.CRD)).of_type(PATCH) == []
    # no scale-out, or a scale-in: no patch
    for replicas in (3, 2):
        same = record(program(db_server(replicas=replicas), db_server()))
        assert same.of_type(PATCH) == []
