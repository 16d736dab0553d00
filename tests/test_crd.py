"""crd mode: documents become the custom resources the target version's webhook admits."""

from __future__ import annotations

import copy

from helpers import FRAMEWORK, NAMESPACE, load, tars_server

from tars_components.expansion import convert, crd_documents
from tars_components.options import Mode, Options
from tars_components.pipeline import build

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
    assert annotation == '{"append":{"command":["/bin/x"],"readinessGates":["example.com/a"]}}'
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
    from helpers import stack_text, template

    from tars_components.loader import load_texts

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
    # the same documents are fine in expand mode and in crd mode for v1beta2
    assert build(stack, Options(namespace=NAMESPACE)).ok
    assert build(stack, Options(namespace=NAMESPACE, mode=Mode.CRD, crd_api_version=V1BETA2)).ok
