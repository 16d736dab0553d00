"""Fidelity to the v1.4.1 controller where the seed is silent (issue #9): what the controller
admits is admitted (negative partition, integer sizeLimit, release.secret ``my-``, a normal
server with spec.tars), what it would break is warned about (TS024, TS025), and output file
names that collide are a rule violation (TS026, TT008, TF004), not a crash of render."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.builders.documents import (
    FRAMEWORK,
    NAMESPACE,
    edited,
    load,
    main_container,
    normal_server,
    objects,
    pod_spec,
    stack_text,
    tars_server,
    template,
)

from tars_components.jobs.render import render_files, render_path
from tars_components.kernel.errors import Severity
from tars_components.loading.load import load_texts
from tars_components.pipeline import build, check, crd_documents
from tars_components.rules.layout import document_paths, layout_violations, output_path
from tars_components.settings.options import Mode, Options

REPO = Path(__file__).resolve().parents[2]
CRD = Options(namespace=NAMESPACE, mode=Mode.CRD)
EXPAND = Options(namespace=NAMESPACE)


def codes(violations: list, severity: Severity | None = None) -> list[tuple[str, str, str]]:
    return [
        (v.code, v.name, v.field) for v in violations if severity is None or v.severity == severity
    ]


# --- item 6: admitted like the controller ----------------------------------------------------


def test_negative_partition_is_admitted_and_expands_to_partition_zero() -> None:
    doc = tars_server(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": -2}})
    assert check(load(doc), EXPAND) == []
    sts = objects(doc)["StatefulSet/test-demotest"]
    assert sts["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"partition": 0},
    }


def test_negative_partition_on_a_daemonset_gives_max_unavailable_one() -> None:
    doc = tars_server(
        daemonSet=True, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": -2}}
    )
    ds = objects(doc)["DaemonSet/test-demotest"]
    assert ds["spec"]["updateStrategy"]["rollingUpdate"] == {"maxUnavailable": 1}


def test_integer_empty_dir_size_limit_is_admitted_and_stored_as_a_quantity() -> None:
    source = {"emptyDir": {"sizeLimit": 1024}}
    mount = {"name": "scratch", "mountPath": "/scratch", "source": source}
    doc = tars_server(mounts=[mount])
    assert check(load(doc), EXPAND) == []
    volumes = {v["name"]: v for v in pod_spec(objects(doc)["StatefulSet/test-demotest"])["volumes"]}
    assert volumes["scratch"]["emptyDir"] == {"sizeLimit": "1024"}  # as the API server stores it


@pytest.mark.parametrize("secret", ["my-", "my-.b", "", "reg-secret"])
def test_release_secret_admits_what_the_crd_pattern_admits(secret: str) -> None:
    doc = edited(tars_server(), spec__release__secret=secret)
    assert check(load(doc), EXPAND) == []


@pytest.mark.parametrize("secret", ["My-Secret", "-a", "a_b", "a..b"])
def test_release_secret_refuses_what_the_crd_pattern_refuses(secret: str) -> None:
    doc = edited(tars_server(), spec__release__secret=secret)
    assert codes(check(load(doc), EXPAND)) == [("TS021", "test-demotest", "spec.release.secret")]


def test_normal_server_with_tars_section_is_built_without_tarsnode() -> None:
    doc = edited(tars_server(), spec__subType="normal")
    result = build(load(doc), EXPAND)
    assert result.ok
    assert codes(result.violations) == [("TS014", "test-demotest", "spec.tars")]
    assert result.violations[0].severity is Severity.WARNING
    found = {f"{o['kind']}/{o['metadata']['name']}": o for o in result.objects}
    pod = pod_spec(found["StatefulSet/test-demotest"])
    assert "initContainers" not in pod
    assert "tarsnode-work-dir" not in {v["name"] for v in pod["volumes"]}
    assert [p["name"] for p in found["Service/test-demotest"]["spec"]["ports"]] == ["demotest1obj"]


# --- item 2: TS024 in both modes --------------------------------------------------------------


@pytest.mark.parametrize("options", [EXPAND, CRD], ids=["expand", "crd"])
def test_host_port_name_ref_case_warns_in_both_modes_and_still_binds(options: Options) -> None:
    doc = tars_server(hostPorts=[{"nameRef": "demotest1obj", "port": 30001}])
    result = build(load(doc), options)
    assert result.ok
    assert codes(result.violations, Severity.WARNING) == [
        ("TS024", "test-demotest", "spec.k8s.hostPorts[0].nameRef")
    ]
    if options.mode == Mode.EXPAND:
        ports = main_container(objects(doc)["StatefulSet/test-demotest"])["ports"]
        assert ports[0]["hostPort"] == 30001


# --- item 3: TS025 in crd mode only -----------------------------------------------------------


def test_on_delete_warns_in_crd_mode_only() -> None:
    doc = tars_server(updateStrategy={"type": "OnDelete"})
    assert check(load(doc), EXPAND) == []
    found = check(load(doc), CRD)
    assert codes(found) == [("TS025", "test-demotest", "spec.k8s.updateStrategy.type")]
    assert found[0].severity is Severity.WARNING
    assert "refuses" in found[0].message
    # the custom resource itself is still written (the CRD defaults rollingUpdate anyway)
    server = crd_documents(load(doc), CRD)[-1]
    assert server["spec"]["k8s"]["updateStrategy"]["type"] == "OnDelete"


def test_on_delete_daemonset_and_rolling_update_do_not_warn_in_crd_mode() -> None:
    daemon = tars_server(daemonSet=True, updateStrategy={"type": "OnDelete"})
    rolling = edited(
        tars_server(app="Other"),
        spec__k8s__updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}},
    )
    assert check(load(daemon, rolling), CRD) == []


def test_negative_partition_warns_in_crd_mode() -> None:
    doc = tars_server(updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": -1}})
    assert codes(check(load(doc), CRD)) == [
        ("TS025", "test-demotest", "spec.k8s.updateStrategy.rollingUpdate.partition")
    ]


# --- item 10: output file names ---------------------------------------------------------------


def _templates_colliding() -> list[dict]:
    first = template("b-c")
    first["metadata"]["namespace"] = "a"
    second = template("c")
    second["metadata"]["namespace"] = "a-b"
    return [first, second]


def test_colliding_template_file_names_are_tt008_in_crd_mode() -> None:
    stack = load_texts({"s.yaml": stack_text(*_templates_colliding())}, NAMESPACE)
    found = check(stack, CRD)
    assert codes(found) == [("TT008", "c", "metadata.name")]
    assert found[0].is_error
    assert "k8s.tars.io_v1beta3-ttemplate-a-b-c.yaml" in found[0].message
    assert not build(stack, CRD).objects  # nothing rendered, render exits 1


def test_templates_do_not_collide_in_expand_mode() -> None:
    stack = load_texts({"s.yaml": stack_text(*_templates_colliding())}, NAMESPACE)
    assert layout_violations(stack, EXPAND) == []


def test_colliding_framework_config_file_names_are_tf004() -> None:
    first = copy.deepcopy(FRAMEWORK)
    first["metadata"] = {"name": "x-tars-framework", "namespace": "a"}
    second = copy.deepcopy(FRAMEWORK)
    second["metadata"] = {"name": "tars-framework", "namespace": "a-x"}
    stack = load_texts({"s.yaml": stack_text(first, second)}, NAMESPACE)
    assert ("TF004", "tars-framework", "metadata.name") in codes(check(stack, CRD))


def test_same_object_twice_is_left_to_the_duplicate_rules() -> None:
    stack = load_texts({"s.yaml": stack_text(template("x"), template("x"))}, NAMESPACE)
    found = codes(check(stack, CRD))
    assert ("TT007", "x", "metadata.name") in found
    assert not [c for c in found if c[0] == "TT008"]


@pytest.mark.parametrize("options", [EXPAND, CRD], ids=["expand", "crd"])
def test_output_path_is_the_render_layout(options: Options) -> None:
    stack = load(tars_server(), normal_server())
    paths = sorted(p for d in stack.documents for p in document_paths(d, options))
    rendered = build(stack, options).objects
    assert {render_path(o) for o in rendered} <= set(paths)
    for obj in rendered:
        meta = obj["metadata"]
        assert render_path(obj) == output_path(
            obj["apiVersion"], obj["kind"], meta["namespace"], meta["name"]
        )


def test_expand_mode_server_file_names_never_collide_across_namespaces() -> None:
    # lower(app)-lower(server) has exactly one '-', so the namespace is fixed by the file name
    docs = []
    for namespace in ("a", "a-b", "a-b-c"):
        for app, server in (("B", "C"), ("C", "D"), ("Ab", "C")):
            doc = tars_server(app=app, server=server)
            doc["metadata"]["namespace"] = namespace
            docs.append(doc)
    stack = load_texts({"s.yaml": stack_text(*docs)}, NAMESPACE)
    assert layout_violations(stack, EXPAND) == []
    objects_built = build(stack, Options(namespace=NAMESPACE)).objects
    assert len(render_files(objects_built)) == len(objects_built)


# --- item 7: release.time ---------------------------------------------------------------------


@pytest.mark.parametrize("version", ["k8s.tars.io/v1beta3", "k8s.tars.io/v1beta2"])
def test_release_time_is_left_out_of_crd_output(version: str) -> None:
    options = Options(namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=version)
    server = crd_documents(load(tars_server()), options)[-1]
    assert server["spec"]["release"]["id"] == "v1"
    assert "time" not in server["spec"]["release"]


def test_written_release_time_is_kept_in_crd_mode_and_invisible_in_expand_mode() -> None:
    doc = edited(tars_server(), spec__release__time="2024-01-02T03:04:05Z")
    assert check(load(doc), CRD) == []
    server = crd_documents(load(doc), CRD)[-1]
    assert server["spec"]["release"]["time"] == "2024-01-02T03:04:05Z"
    assert objects(doc) == objects(tars_server())


def test_release_time_must_be_a_date_time() -> None:
    doc = edited(tars_server(), spec__release__time="yesterday")
    assert codes(check(load(doc), EXPAND)) == [("TS021", "test-demotest", "spec.release.time")]


# --- item 5: the gaps the audit found, one regression case each ------------------------------

CLAIM = {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def _claim(**spec: object) -> dict:
    claim = copy.deepcopy(CLAIM)
    claim.update(spec.pop("top", {}))  # type: ignore[arg-type]
    claim["spec"].update(spec)
    source = {"persistentVolumeClaimTemplate": claim}
    return {"name": "data", "mountPath": "/data", "source": source}


GAPS = [
    (
        "nodeSelector value",
        {"nodeSelector": [{"key": "disk", "operator": "In", "values": ["not ok"]}]},
        "spec.k8s.nodeSelector[0].values[0]",
    ),
    (
        "secretKeyRef key",
        {"env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "a b"}}}]},
        "spec.k8s.env[0].valueFrom.secretKeyRef.key",
    ),
    (
        "configMapKeyRef name",
        {"env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "Cm", "key": "k"}}}]},
        "spec.k8s.env[0].valueFrom.configMapKeyRef.name",
    ),
    (
        "envFrom name",
        {"envFrom": [{"secretRef": {"name": "Bad_Name"}}]},
        "spec.k8s.envFrom[0].secretRef.name",
    ),
    (
        "claim selector operator",
        {"mounts": [_claim(selector={"matchExpressions": [{"key": "k", "operator": "Gt"}]})]},
        "spec.k8s.mounts[0].source.persistentVolumeClaimTemplate.spec.selector"
        ".matchExpressions[0].operator",
    ),
    (
        "claim label value",
        {"mounts": [_claim(top={"metadata": {"labels": {"tier": "a b"}}})]},
        "spec.k8s.mounts[0].source.persistentVolumeClaimTemplate.metadata.labels.tier",
    ),
    (
        "claim annotation value",
        {"mounts": [_claim(top={"metadata": {"annotations": {"note": "x" * 64}}})]},
        "spec.k8s.mounts[0].source.persistentVolumeClaimTemplate.metadata.annotations.note",
    ),
    (
        "claim limits without storage",
        {"mounts": [_claim(resources={"requests": {"storage": "1Gi"}, "limits": {}})]},
        "spec.k8s.mounts[0].source.persistentVolumeClaimTemplate.spec.resources.limits.storage",
    ),
    (
        "items mode over 0777",
        {
            "mounts": [
                {
                    "name": "cfg",
                    "mountPath": "/cfg",
                    "source": {
                        "configMap": {
                            "name": "c",
                            "items": [{"key": "k", "path": "p", "mode": 512}],
                        }
                    },
                }
            ]
        },
        "spec.k8s.mounts[0].source.configMap.items[0].mode",
    ),
]


@pytest.mark.parametrize(("k8s", "field"), [g[1:] for g in GAPS], ids=[g[0] for g in GAPS])
def test_crd_constraint_gaps_are_ts021(k8s: dict, field: str) -> None:
    found = check(load(tars_server(**k8s)), EXPAND)
    assert codes(found) == [("TS021", "test-demotest", field)]


def test_key_with_a_dot_is_legal() -> None:
    env = [{"name": "PW", "valueFrom": {"secretKeyRef": {"name": "db", "key": "db.password"}}}]
    assert check(load(tars_server(env=env)), EXPAND) == []


@pytest.mark.parametrize("ref", ["secretKeyRef", "configMapKeyRef"])
def test_key_with_a_dot_is_refused_where_the_crd_meets_it(ref: str) -> None:
    """The v1.4.1 TServer CRD's key pattern has no '.': crd mode would write a TServer the
    API server refuses, so it is TS021 there (what validate passes, render writes)."""
    env = [{"name": "PW", "valueFrom": {ref: {"name": "db", "key": "db.password"}}}]
    found = check(load(tars_server(env=env)), CRD)
    assert codes(found) == [("TS021", "test-demotest", f"spec.k8s.env[0].valueFrom.{ref}.key")]
    assert found[0].is_error and "db.password" in found[0].message


@pytest.mark.parametrize(
    ("field", "path"),
    [
        ("nodeImage", "nodeImage.secret"),
        ("imageUpload", "imageUpload.secret"),
        ("executor", "imageBuild.executor.secret"),
    ],
)
def test_framework_config_secret_patterns_are_tf001_not_a_crash(field: str, path: str) -> None:
    config = copy.deepcopy(FRAMEWORK)
    target = config["imageBuild"]["executor"] if field == "executor" else config[field]
    target["secret"] = "Tars-Image-Secret"
    stack = load_texts({"s.yaml": stack_text(config, template("tars.cpp"))}, NAMESPACE)
    for options in (EXPAND, CRD):
        result = build(stack, options)
        assert [(v.code, v.field) for v in result.violations] == [("TF001", path)]
        assert result.objects == []


def test_render_with_colliding_file_names_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    stack = tmp_path / "stack"
    stack.mkdir()
    (stack / "templates.yaml").write_text(stack_text(*_templates_colliding()), encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for command in (["render", str(stack), "--out", str(out)], ["validate", str(stack)]):
        result = subprocess.run(
            [sys.executable, "-m", "tars_components", *command, "--mode", "crd"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert result.returncode == 1, result.stderr + result.stdout
        assert "TT008 error TTemplate a-b/c metadata.name" in result.stdout + result.stderr
        assert "Traceback" not in result.stderr
    assert not out.exists()


def test_colliding_file_names_of_other_kinds_and_plain_objects_are_tx004() -> None:
    """TConfigs and plain objects collide like templates do: a violation, never a crash."""
    first = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "b-c", "namespace": "a"},
        "data": {"k": "v"},
    }
    second = copy.deepcopy(first)
    second["metadata"] = {"name": "c", "namespace": "a-b"}
    stack = load_texts({"s.yaml": stack_text(first, second)}, NAMESPACE)
    for options in (EXPAND, CRD):
        found = check(stack, options)
        assert ("TX004", "c", "metadata.name") in codes(found)
        assert not build(stack, options).objects
