"""One test per mutating-webhook rule: M-TS1…M-TS14 and M-TT1…M-TT2 (reference §5)."""

from __future__ import annotations

import copy

from support.builders.documents import FRAMEWORK, NAMESPACE, normal_server, tars_server, template

from tars_components.loading.document_set import DocumentSet
from tars_components.models import TFrameworkConfigDocument, TServerDocument, TTemplateDocument
from tars_components.mutation import mutate, mutate_server, mutate_template

FRAMEWORK_DOC = TFrameworkConfigDocument.model_validate(FRAMEWORK)


def _server(doc: dict) -> TServerDocument:
    return TServerDocument.model_validate(doc)


def _mutated(
    doc: dict, framework: TFrameworkConfigDocument | None = FRAMEWORK_DOC
) -> TServerDocument:
    return mutate_server(_server(doc), framework)


def test_m_ts1_to_m_ts3_identity_labels_keep_case() -> None:
    labels = _mutated(tars_server()).labels
    assert labels["tars.io/ServerApp"] == "Test"
    assert labels["tars.io/ServerName"] == "DemoTest"
    assert labels["tars.io/SubType"] == "tars"


def test_m_ts4_template_label_when_spec_tars_present() -> None:
    assert _mutated(tars_server()).labels["tars.io/Template"] == "tars.cpp"


def test_m_ts5_v1beta3_gates_tars_active_first_deduplicated() -> None:
    doc = tars_server(readinessGates=["xx/a", "tars.io/active", "xx/a"])
    assert _mutated(doc).spec.k8s.readiness_gates == ["tars.io/active", "xx/a"]


def test_m_ts5_v1beta2_gate_is_reset_to_tars_active() -> None:
    doc = tars_server(api_version="k8s.tars.io/v1beta2", readinessGate="xx/a")
    assert _mutated(doc).spec.k8s.readiness_gate == "tars.io/active"


def test_m_ts6_normal_server_loses_template_label_and_dedupes_gates() -> None:
    doc = normal_server(readinessGates=["xx/a", "xx/a"])
    doc["metadata"]["labels"] = {"tars.io/Template": "stale"}
    mutated = _mutated(doc)
    assert "tars.io/Template" not in mutated.labels
    assert mutated.spec.k8s.readiness_gates == ["xx/a"]
    assert mutated.spec.normal is not None and mutated.spec.normal.ports


def test_m_ts7_host_ports_or_host_ipc_force_not_stacked() -> None:
    assert _mutated(tars_server(hostIPC=True)).spec.k8s.not_stacked is True
    ports = [{"nameRef": "DemoTest1Obj", "port": 30001}]
    assert _mutated(tars_server(hostPorts=ports)).spec.k8s.not_stacked is True
    assert _mutated(tars_server(hostNetwork=True)).spec.k8s.not_stacked is False


def test_m_ts8_malformed_bounds_leave_replicas_alone() -> None:
    doc = tars_server(replicas=7)
    doc["metadata"]["annotations"] = {"tars.io/MaxReplicas": "x"}
    assert _mutated(doc).spec.k8s.replicas == 7
    doc["metadata"]["annotations"] = {"tars.io/MinReplicas": "5", "tars.io/MaxReplicas": "2"}
    assert _mutated(doc).spec.k8s.replicas == 7


def test_m_ts9_no_release_means_zero_replicas() -> None:
    doc = tars_server(replicas=3)
    del doc["spec"]["release"]
    doc["metadata"]["annotations"] = {"tars.io/MinReplicas": "2"}
    assert _mutated(doc).spec.k8s.replicas == 0


def test_m_ts10_replicas_clamped_by_annotations() -> None:
    doc = tars_server(replicas=9)
    doc["metadata"]["annotations"] = {"tars.io/MinReplicas": "2", "tars.io/MaxReplicas": "4"}
    assert _mutated(doc).spec.k8s.replicas == 4
    doc["spec"]["k8s"]["replicas"] = 1
    assert _mutated(doc).spec.k8s.replicas == 2


def test_m_ts11_release_time_is_never_filled_from_the_clock() -> None:
    assert _mutated(tars_server()).spec.release.time is None


def test_m_ts12_server_id_label_only_in_v1beta3() -> None:
    assert _mutated(tars_server()).labels["tars.io/ServerID"] == "v1"
    v1beta2 = _mutated(tars_server(api_version="k8s.tars.io/v1beta2"))
    assert "tars.io/ServerID" not in v1beta2.labels


def test_m_ts13_node_image_and_secret_from_the_framework() -> None:
    doc = tars_server()
    doc["spec"]["release"]["nodeSecret"] = "overwritten"
    release = _mutated(doc).spec.release
    assert release.node_image == "reg.example.com/tars.tarsnode:v1"
    assert release.node_secret == "node-secret"


def test_m_ts13_keeps_an_explicit_node_image_and_needs_a_framework() -> None:
    doc = tars_server()
    doc["spec"]["release"]["nodeImage"] = "reg.example.com/tars.tarsnode:v7"
    assert _mutated(doc).spec.release.node_image == "reg.example.com/tars.tarsnode:v7"
    assert _mutated(tars_server(), framework=None).spec.release.node_image is None


def test_m_ts14_normal_server_drops_node_image() -> None:
    doc = normal_server()
    doc["spec"]["release"].update(nodeImage="reg.example.com/tars.tarsnode:v1", nodeSecret="s")
    release = _mutated(doc).spec.release
    assert release.node_image is None and release.node_secret is None


def test_m_tt1_child_template_gets_parent_label() -> None:
    mutated = mutate_template(
        TTemplateDocument.model_validate(template("tars.cpp", "tars.default"))
    )
    assert mutated.labels == {"tars.io/Parent": "tars.default"}


def test_m_tt2_root_template_loses_parent_label() -> None:
    doc = template("tars.default")
    doc["metadata"]["labels"] = {"tars.io/Parent": "stale", "team": "infra"}
    assert mutate_template(TTemplateDocument.model_validate(doc)).labels == {"team": "infra"}


def test_mutation_does_not_change_its_input_and_is_idempotent() -> None:
    doc = tars_server(hostIPC=True, readinessGates=["xx/a"])
    server = _server(doc)
    before = copy.deepcopy(server.to_dict())
    once = mutate_server(server, FRAMEWORK_DOC)
    assert server.to_dict() == before
    assert mutate_server(once, FRAMEWORK_DOC).to_dict() == once.to_dict()


def test_mutate_stack_uses_the_framework_of_the_same_namespace() -> None:
    other_ns = copy.deepcopy(FRAMEWORK)
    other_ns["metadata"]["namespace"] = "elsewhere"
    stack = DocumentSet.of(
        [TFrameworkConfigDocument.model_validate(other_ns), _server(tars_server())], NAMESPACE
    )
    assert mutate(stack).servers[0].spec.release.node_image is None
