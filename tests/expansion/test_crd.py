"""crd mode: documents become the custom resources the target version's webhook admits."""

from __future__ import annotations

import copy

import pytest
from support.builders.documents import (
    FRAMEWORK,
    NAMESPACE,
    load,
    main_container,
    objects,
    pod_spec,
    stack_text,
    tars_server,
)

from tars_components.expansion import convert
from tars_components.loading.load import load_texts
from tars_components.pipeline import build, crd_documents
from tars_components.settings.options import Mode, Options

V1BETA2 = "k8s.tars.io/v1beta2"
V1BETA3 = "k8s.tars.io/v1beta3"


def _crd(*docs: dict, version: str = V1BETA3) -> dict[str, dict]:
    options = Options(namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=version)
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in crd_documents(load(*docs), options)}


def test_order_is_frameworks_templates_servers() -> None:
    options = Options(namespace=NAMESPACE, mode=Mode.CRD)
    kinds = [d["kind"] for d in crd_documents(load(tars_server()), options)]
    assert kinds == ["TFrameworkConfig", "TTemplate", "TTemplate", "TServer"]


def test_v1beta2_server_written_as_v1beta3_gets_what_the_v1beta3_webhook_adds() -> None:
    server = _crd(tars_server(api_version=V1BETA2))["TServer/test-demotest"]
    assert server["apiVersion"] == V1BETA3
    assert server["metadata"]["labels"]["tars.io/ServerID"] == "v1"  # M-TS12, v1beta3 only
    assert server["spec"]["k8s"]["readinessGates"] == ["tars.io/active"]
    assert "readinessGate" not in server["spec"]["k8s"]


def test_v1beta3_server_written_as_v1beta2_keeps_its_gates_in_the_conversion_annotation() -> None:
    doc = tars_server(readinessGates=["example.com/a"], command=["/bin/x"])
    server = _crd(doc, version=V1BETA2)["TServer/test-demotest"]
    k8s = server["spec"]["k8s"]
    assert server["apiVersion"] == V1BETA2
    assert k8s["readinessGate"] == "tars.io/active"
    assert "readinessGates" not in k8s and "command" not in k8s
    annotation = server["metadata"]["annotations"]["tars.io/Conversion.1b21b3"]
    assert annotation == (
        '{"append":{"command":["/bin/x"],"args":null,"readinessGates":["example.com/a"]},"drop":{}}'
    )
    back = convert(server, V1BETA3)
    assert back["spec"]["k8s"]["readinessGates"] == ["tars.io/active", "example.com/a"]
    assert back["spec"]["k8s"]["command"] == ["/bin/x"]


def test_framework_config_conversion_round_trips() -> None:
    config = _crd(version=V1BETA2)["TFrameworkConfig/tars-framework"]
    assert config["imageRegistry"] == {"registry": "reg.example.com/upload", "secret": ""}
    assert "imageUpload" not in config and "executor" not in config.get("imageBuild", {})
    back = convert(config, V1BETA3)
    assert back["imageUpload"] == {"registry": "reg.example.com/upload", "secret": ""}
    assert back["imageBuild"]["executor"]["image"] == "reg.example.com/tars.tarskaniko:v1"


def test_v1beta2_framework_config_without_executor_cannot_be_written_as_v1beta3() -> None:
    v1beta2 = copy.deepcopy(FRAMEWORK)
    v1beta2["apiVersion"] = V1BETA2
    v1beta2["imageRegistry"] = v1beta2.pop("imageUpload")
    del v1beta2["imageBuild"]
    v1beta2["metadata"]["name"] = "tars-framework"
    from support.builders.documents import stack_text, template

    from tars_components.loading.load import load_texts

    stack = load_texts(
        {"s.yaml": stack_text(v1beta2, template("tars.cpp"), tars_server())}, NAMESPACE
    )
    assert not stack.violations
    result = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD))
    assert not result.ok and result.objects == []
    [violation] = [v for v in result.violations if v.is_error]
    assert (violation.code, violation.kind, violation.field) == (
        "TF001",
        "TFrameworkConfig",
        "imageBuild",
    )
    assert "requires imageBuild" in violation.message
    # the same documents are fine in expand mode; crd mode cannot write them as v1beta2 either
    assert build(stack, Options(namespace=NAMESPACE)).ok
    as_v1beta2 = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=V1BETA2))
    assert [(v.code, v.field) for v in as_v1beta2.violations if v.is_error] == [
        ("TF005", "apiVersion")
    ]


def test_crd_mode_refuses_to_write_a_v1beta2_framework_config() -> None:
    """v1.4.1's v1beta2 -> v1beta3 conversion stamps apiVersion k8s.tars.io/v1beta1 on its
    result, so the API server cannot store a TFrameworkConfig sent as v1beta2."""
    from support.builders.documents import stack_text, template

    from tars_components.loading.load import load_texts

    stack = load_texts(
        {"s.yaml": stack_text(FRAMEWORK, template("tars.cpp"), tars_server())}, NAMESPACE
    )
    result = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=V1BETA2))
    assert not result.ok and result.objects == []
    [violation] = [v for v in result.violations if v.is_error]
    assert (violation.code, violation.kind, violation.file) == (
        "TF005",
        "TFrameworkConfig",
        "s.yaml",
    )
    assert "stamps apiVersion k8s.tars.io/v1beta1" in violation.message
    assert build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD)).ok
    # without a TFrameworkConfig of its own, the stack keeps the cluster's: v1beta2 is fine
    servers = load_texts({"s.yaml": stack_text(template("tars.cpp"), tars_server())}, NAMESPACE)
    existing = Options(
        namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=V1BETA2, existing_framework_config=True
    )
    assert build(servers, existing).ok


# --- the tars.io/Conversion.1b21b3 annotation, as Go's json.Marshal writes it (issue #9) ----

ANNOTATION = "tars.io/Conversion.1b21b3"


def _annotated_v1beta2(value: str, **k8s: object) -> dict:
    doc = tars_server(api_version=V1BETA2, **k8s)
    doc["metadata"]["annotations"] = {ANNOTATION: value}
    return doc


def test_v1beta2_annotation_is_always_written_with_nulls_and_drop() -> None:
    server = _crd(tars_server(), version=V1BETA2)["TServer/test-demotest"]
    assert server["metadata"]["annotations"][ANNOTATION] == (
        '{"append":{"command":null,"args":null,"readinessGates":null},"drop":{}}'
    )


def test_annotation_keeps_empty_lists_and_escapes_like_go() -> None:
    doc = tars_server(command=[], args=["a<b>&c", 'q"\\', "\n\t\x01\u2028é"])
    server = _crd(doc, version=V1BETA2)["TServer/test-demotest"]
    assert server["metadata"]["annotations"][ANNOTATION] == (
        '{"append":{"command":[],"args":["a\\u003cb\\u003e\\u0026c","q\\"\\\\",'
        '"\\n\\t\\u0001\\u2028é"]'
        ',"readinessGates":null},"drop":{}}'
    )


def test_v1beta2_annotation_restores_command_args_and_gates_in_crd_mode() -> None:
    value = (
        '{"append":{"command":["/bin/run"],"args":["-x"],"readinessGates":["a.io/b"]},"drop":{}}'
    )
    server = _crd(_annotated_v1beta2(value))["TServer/test-demotest"]
    k8s = server["spec"]["k8s"]
    assert k8s["command"] == ["/bin/run"] and k8s["args"] == ["-x"]
    assert k8s["readinessGates"] == ["tars.io/active", "a.io/b"]
    assert server["metadata"]["annotations"][ANNOTATION] == value  # Go leaves it on the object


def test_v1beta2_annotation_restores_command_args_and_gates_in_expand_mode() -> None:
    value = '{"append":{"command":["/bin/run"],"args":null,"readinessGates":["a.io/b"]},"drop":{}}'
    sts = objects(_annotated_v1beta2(value))["StatefulSet/test-demotest"]
    assert main_container(sts)["command"] == ["/bin/run"]
    assert "args" not in main_container(sts)
    assert pod_spec(sts)["readinessGates"] == [
        {"conditionType": "tars.io/active"},
        {"conditionType": "a.io/b"},
    ]


@pytest.mark.parametrize(
    "value",
    ['{"append":{"command":[1]}}', "not json", '{"append":"x"}', '{"drop":[]}', ""],
)
def test_annotation_go_refuses_restores_nothing_and_is_dropped(value: str) -> None:
    server = _crd(_annotated_v1beta2(value))["TServer/test-demotest"]
    assert "command" not in server["spec"]["k8s"]
    assert server["spec"]["k8s"]["readinessGates"] == ["tars.io/active"]
    assert ANNOTATION not in (server["metadata"].get("annotations") or {})


def test_annotation_keys_match_case_insensitively_like_go() -> None:
    value = '{"Append":{"COMMAND":["/x"]}}'
    server = _crd(_annotated_v1beta2(value))["TServer/test-demotest"]
    assert server["spec"]["k8s"]["command"] == ["/x"]


def test_v1beta3_to_v1beta2_to_v1beta3_round_trips() -> None:
    doc = tars_server(readinessGates=["a.io/b", "c.io/d"], command=["/x"], args=["-y"])
    v1beta2 = _crd(doc, version=V1BETA2)["TServer/test-demotest"]
    back = convert(v1beta2, V1BETA3)["spec"]["k8s"]
    assert back["readinessGates"] == ["tars.io/active", "a.io/b", "c.io/d"]
    assert (back["command"], back["args"]) == (["/x"], ["-y"])


def test_framework_config_annotation_is_go_json() -> None:
    config = _crd(version=V1BETA2)["TFrameworkConfig/tars-framework"]
    assert config["metadata"]["annotations"][ANNOTATION] == (
        '{"append":{"executor":{"image":"reg.example.com/tars.tarskaniko:v1"}},"drop":{}}'
    )
    with_secret = copy.deepcopy(FRAMEWORK)
    with_secret["imageBuild"]["executor"]["secret"] = "kaniko-secret"
    options = Options(namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=V1BETA2)
    config = crd_documents(load_texts({"s.yaml": stack_text(with_secret)}, NAMESPACE), options)[0]
    assert config["metadata"]["annotations"][ANNOTATION] == (
        '{"append":{"executor":{"image":"reg.example.com/tars.tarskaniko:v1",'
        '"secret":"kaniko-secret"}},"drop":{}}'
    )


def test_v1beta2_framework_config_annotation_supplies_the_executor() -> None:
    v1beta2 = copy.deepcopy(FRAMEWORK)
    v1beta2["apiVersion"] = V1BETA2
    v1beta2["imageRegistry"] = v1beta2.pop("imageUpload")
    del v1beta2["imageBuild"]
    value = '{"append":{"executor":{"image":"reg.example.com/k:v2","secret":"s"}},"drop":{}}'
    v1beta2["metadata"]["annotations"] = {ANNOTATION: value}
    stack = load_texts({"s.yaml": stack_text(v1beta2)}, NAMESPACE)
    options = Options(namespace=NAMESPACE, mode=Mode.CRD)
    result = build(stack, options)
    assert result.ok, result.violations
    config = result.objects[0]
    assert config["imageBuild"]["executor"] == {"image": "reg.example.com/k:v2", "secret": "s"}
    assert config["metadata"]["annotations"][ANNOTATION] == value


def test_v1beta2_framework_config_annotation_without_image_is_tf001() -> None:
    v1beta2 = copy.deepcopy(FRAMEWORK)
    v1beta2["apiVersion"] = V1BETA2
    v1beta2["imageRegistry"] = v1beta2.pop("imageUpload")
    del v1beta2["imageBuild"]
    v1beta2["metadata"]["annotations"] = {ANNOTATION: '{"append":{"executor":{}},"drop":{}}'}
    stack = load_texts({"s.yaml": stack_text(v1beta2)}, NAMESPACE)
    found = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD)).violations
    assert [(v.code, v.field) for v in found] == [("TF001", "imageBuild.executor.image")]


def test_annotation_restoring_an_invalid_gate_is_ts021_not_a_crash() -> None:
    value = '{"append":{"command":null,"args":null,"readinessGates":["not valid"]},"drop":{}}'
    stack = load(_annotated_v1beta2(value))
    for mode in (Mode.EXPAND, Mode.CRD):
        result = build(stack, Options(namespace=NAMESPACE, mode=mode))
        assert [(v.code, v.field) for v in result.violations] == [
            ("TS021", 'metadata.annotations["tars.io/Conversion.1b21b3"]')
        ]
        assert result.objects == []


def test_framework_annotation_restoring_an_invalid_executor_is_tf001() -> None:
    v1beta2 = copy.deepcopy(FRAMEWORK)
    v1beta2["apiVersion"] = V1BETA2
    v1beta2["imageRegistry"] = v1beta2.pop("imageUpload")
    del v1beta2["imageBuild"]
    value = '{"append":{"executor":{"image":"reg.example.com/k:v2","secret":"Bad_Secret"}}}'
    v1beta2["metadata"]["annotations"] = {ANNOTATION: value}
    stack = load_texts({"s.yaml": stack_text(v1beta2)}, NAMESPACE)
    result = build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD))
    assert [(v.code, v.field) for v in result.violations] == [
        ("TF001", 'metadata.annotations["tars.io/Conversion.1b21b3"]')
    ]
    assert result.objects == []
