"""The TarsK8S dynamic provider (design §5, §7).

First part: the provider driven for real, as the Pulumi engine drives it. A mocked Pulumi
program registers :class:`TarsValidation` resources, so the property structs (with
``__provider`` serialized by ``pulumi.dynamic.Resource`` itself) are exactly what the engine
would receive; ``python -m pulumi.dynamic`` runs in a subprocess and gets Configure, Check,
Diff, Create, Update and Delete over gRPC on 127.0.0.1.

Second part: the same provider in process, for what is quicker to cover there: it reports
exactly what ``tars-components validate`` reports for every document of the dev stack, the
corpus and a stack full of mistakes; unknown values; diffs.
"""

from __future__ import annotations

import base64
import copy
import pickletools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2, struct_pb2
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.output import Unknown
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2
from support.builders.documents import (
    FRAMEWORK,
    NAMESPACE,
    normal_server,
    stack_text,
    tars_server,
    template,
)
from support.engines.grpc_provider import (
    PROVIDER_KEY,
    DynamicProviderProcess,
    Failure,
    from_struct,
    registered_inputs,
    unknown_output,
    with_props,
)

from tars_components.loading.document_set import DocumentSet
from tars_components.loading.load import load_stack, load_texts
from tars_components.provider import (
    DOCUMENT,
    FRAMEWORK_NODE_IMAGE,
    INPUTS_DIGEST,
    MUTATED,
    SECRET_FIELDS,
    SERVER_NAMES,
    TEMPLATES,
    VIOLATIONS,
    WARNINGS,
    InvalidInputs,
    Subject,
    TarsValidation,
    TarsValidationProvider,
    ValidationInputs,
    changed_inputs,
    check_failures,
    document_text,
    evaluate,
    inputs_for_document,
)
from tars_components.provider.wire import NAMESPACE as WIRE_NAMESPACE
from tars_components.rules import validate

REPO = Path(__file__).resolve().parents[2]
TYPE = "pulumi-python:dynamic/tars:TarsValidation"
TEMPLATES_OF_NS = {"tars.default": "tars.default", "tars.cpp": "tars.default"}


def urn(name: str) -> str:
    """The URN the engine would give a TarsValidation of the dev stack."""
    return f"urn:pulumi:dev::tars::{TYPE}::{name}"


def inputs_for(document: dict[str, Any] | str, **context: Any) -> ValidationInputs:
    """Inputs of a document of the test namespace with its usual context: the templates
    tars.default and tars.cpp and the framework's nodeImage."""
    context.setdefault("templates", TEMPLATES_OF_NS)
    context.setdefault("framework_node_image", FRAMEWORK["nodeImage"])
    return ValidationInputs(document=document, namespace=NAMESPACE, **context)


def register(name: str, inputs: ValidationInputs) -> struct_pb2.Struct:
    """The property struct a program registering ``TarsValidation(name, inputs)`` sends."""
    type_token, struct = registered_inputs(name, lambda: TarsValidation(name, inputs))
    assert type_token == TYPE
    return struct


def codes_and_fields(failures: list[Failure]) -> set[tuple[str, str]]:
    return {(f.code, f.property) for f in failures}


@pytest.fixture(scope="module")
def provider() -> Iterator[DynamicProviderProcess]:
    """One ``python -m pulumi.dynamic`` for the module, configured as the engine does."""
    with DynamicProviderProcess(REPO) as process:
        response = process.configure({"tars:namespace": NAMESPACE})
        assert not response.acceptSecrets
        yield process


# --- gRPC: serialization -------------------------------------------------------------------


def test_the_registered_provider_is_the_sdks_serialization_by_reference() -> None:
    struct = register("test-demotest", inputs_for(tars_server()))
    serialized = struct[PROVIDER_KEY]
    # A plain string (not a secret), the SDK helper's own result for a fresh provider.
    assert isinstance(serialized, str)
    assert serialized == serialize_provider(TarsValidationProvider())
    # Pickled by reference: the class is named, none of its code is carried.
    ops = list(pickletools.genops(base64.b64decode(serialized)))
    strings = [arg for _, arg, _ in ops if isinstance(arg, str)]
    assert strings == ["tars_components.provider", "TarsValidationProvider"]
    assert {op.name for op, _, _ in ops} >= {"STACK_GLOBAL", "NEWOBJ"}


def test_plugin_info(provider: DynamicProviderProcess) -> None:
    assert provider.stub.GetPluginInfo(empty_pb2.Empty(), timeout=30).version


# --- gRPC: Check ---------------------------------------------------------------------------


def test_check_passes_a_valid_server(provider: DynamicProviderProcess) -> None:
    news = register("test-demotest", inputs_for(tars_server()))
    inputs, failures = provider.check(urn("test-demotest"), None, news)
    assert failures == []
    assert from_struct(inputs) == from_struct(news)


def test_check_reports_rule_errors_with_codes_at_their_fields(
    provider: DynamicProviderProcess,
) -> None:
    server = tars_server(hostPorts=[{"nameRef": "NoSuchObj", "port": 30001}])
    servants = server["spec"]["tars"]["servants"]
    servants.append({"name": "demotest1obj", "port": 19385})
    servants.append({"name": "OtherObj", "port": 10001})
    news = register("test-demotest", inputs_for(server))
    _, failures = provider.check(urn("test-demotest"), None, news)
    assert codes_and_fields(failures) == {
        ("TS003", "spec.tars.servants[1].name"),
        ("TS006", "spec.tars.servants[1].port"),
        ("TS004", "spec.tars.servants[2].port"),
        ("TS011", "spec.k8s.hostPorts[0].nameRef"),
    }
    assert all(f.reason.startswith(f"{f.code}: ") and len(f.reason) > 8 for f in failures)


def test_check_reports_schema_and_context_errors(provider: DynamicProviderProcess) -> None:
    server = tars_server()
    server["spec"]["release"]["image"] = "Registry/Test:V1"
    server["spec"]["tars"]["template"] = "tars.java"
    news = register("test-demotest", inputs_for(server))
    _, failures = provider.check(urn("test-demotest"), None, news)
    # A schema-invalid document gets the loader's verdict, as the CLI gives it.
    assert codes_and_fields(failures) == {("TS021", "spec.release.image")}

    server["spec"]["release"]["image"] = "registry/test:v1"
    news = register("test-demotest", inputs_for(server, framework_node_image=None))
    _, failures = provider.check(urn("test-demotest"), None, news)
    assert codes_and_fields(failures) == {
        ("TS010", "spec.tars.template"),
        ("TS020", "spec.release.nodeImage"),
    }


def test_check_fails_an_app_change_with_ts001(provider: DynamicProviderProcess) -> None:
    olds = register("test-demotest", inputs_for(tars_server()))
    changed = tars_server(app="Other")
    changed["metadata"]["name"] = "test-demotest"
    news = register("test-demotest", inputs_for(changed))
    _, failures = provider.check(urn("test-demotest"), olds, news)
    assert ("TS001", "spec.app") in codes_and_fields(failures)
    ts001 = next(f for f in failures if f.code == "TS001")
    assert "Test" in ts001.reason and "Other" in ts001.reason
    # Without old inputs (a create) there is no change rule to break.
    _, failures = provider.check(urn("test-demotest"), None, news)
    assert "TS001" not in {f.code for f in failures}


def test_check_fails_adding_a_section_with_ts002(provider: DynamicProviderProcess) -> None:
    olds = register("web-portal", inputs_for(normal_server()))
    changed = normal_server()
    changed["spec"]["subType"] = "tars"
    changed["spec"]["tars"] = {"template": "tars.cpp", "servants": []}
    del changed["spec"]["normal"]
    news = register("web-portal", inputs_for(changed))
    _, failures = provider.check(urn("web-portal"), olds, news)
    assert {("TS001", "spec.subType"), ("TS002", "spec.tars"), ("TS002", "spec.normal")} <= (
        codes_and_fields(failures)
    )


def test_check_skips_values_unknown_in_preview(provider: DynamicProviderProcess) -> None:
    def build(name: str, duplicate: bool) -> TarsValidation:
        server = tars_server()
        server["spec"]["release"]["image"] = unknown_output()
        server["spec"]["release"]["nodeImage"] = unknown_output()
        if duplicate:
            server["spec"]["tars"]["servants"].append({"name": "DemoTest1Obj", "port": 10002})
        return TarsValidation(name, inputs_for(server, framework_node_image=None))

    _, news = registered_inputs("a", lambda: build("a", False), preview=True)
    release = news[DOCUMENT]["spec"]["release"]
    assert release["image"] == rpc.UNKNOWN  # how the engine passes an unknown on
    inputs, failures = provider.check(urn("a"), None, news)
    # Neither the image pattern nor TS020 fire on values that are not known yet ...
    assert failures == []
    # ... and the inputs keep them unknown.
    assert inputs[DOCUMENT]["spec"]["release"]["image"] == rpc.UNKNOWN

    _, news = registered_inputs("b", lambda: build("b", True), preview=True)
    _, failures = provider.check(urn("b"), None, news)
    assert codes_and_fields(failures) == {("TS003", "spec.tars.servants[1].name")}

    unknown_document = with_props(news, **{DOCUMENT: Unknown()})
    _, failures = provider.check(urn("b"), None, unknown_document)
    assert failures == []


def test_check_of_an_unknown_port_runs_the_other_rules(provider: DynamicProviderProcess) -> None:
    def build() -> TarsValidation:
        server = tars_server(hostPorts=[{"nameRef": "DemoTest1Obj", "port": unknown_output()}])
        servants = server["spec"]["tars"]["servants"]
        servants[0]["port"] = unknown_output()
        servants.append({"name": "demotest1obj", "port": 10002})  # TS003 all the same
        servants.append({"name": "OtherObj", "port": unknown_output()})
        server["spec"]["tars"]["template"] = "tars.java"  # TS010 all the same
        return TarsValidation("p", inputs_for(server))

    _, news = registered_inputs("p", build, preview=True)
    servants = news[DOCUMENT]["spec"]["tars"]["servants"]
    assert servants[0]["port"] == servants[2]["port"] == rpc.UNKNOWN
    inputs, failures = provider.check(urn("p"), None, news)
    # Nothing about the unknown ports (no range error, no TS004 between the two unknowns),
    # while the rules about the known fields still run.
    assert codes_and_fields(failures) == {
        ("TS003", "spec.tars.servants[1].name"),
        ("TS010", "spec.tars.template"),
    }
    assert inputs[DOCUMENT]["spec"]["tars"]["servants"][0]["port"] == rpc.UNKNOWN


def test_check_with_an_unknown_app_still_reports_the_other_rules(
    provider: DynamicProviderProcess,
) -> None:
    """A TServer component whose app is an Output not known in the preview: its validation
    resource goes over gRPC with the app (and the derived metadata.name) unknown, and Check
    still reports a rule error elsewhere in the document."""
    from tars_components.components import TFramework, TServer
    from tars_components.loading.documents import parse_document

    def build() -> TServer:
        fw = TFramework(
            "fw",
            namespace=NAMESPACE,
            config=parse_document(FRAMEWORK, NAMESPACE),  # type: ignore[arg-type]
            templates=TEMPLATES_OF_NS,
        )
        return TServer(
            "srv",
            framework=fw,
            app=unknown_output(),
            server="Order",
            tars={
                "template": "tars.cpp",
                "servants": [{"name": "AObj", "port": 10000}, {"name": "BObj", "port": 10000}],
            },
            release={"id": "v1", "image": "reg.example.com/shop/order:v1"},
        )

    _, news = registered_inputs("srv-validation", build, preview=True)
    document = news[DOCUMENT]
    assert document["spec"]["app"] == rpc.UNKNOWN
    assert document["metadata"]["name"] == rpc.UNKNOWN
    _, failures = provider.check(urn("srv-validation"), None, news)
    assert codes_and_fields(failures) == {("TS004", "spec.tars.servants[1].port")}


# --- gRPC: Diff, Create, Update ------------------------------------------------------------


def test_diff_reports_changes_and_never_replaces(provider: DynamicProviderProcess) -> None:
    news = register("test-demotest", inputs_for(tars_server()))
    _, outputs = provider.create(urn("test-demotest"), news)
    same = provider.diff(urn("test-demotest"), "id", outputs, news)
    assert same.changes == provider_pb2.DiffResponse.DIFF_NONE

    changed = register("test-demotest", inputs_for(tars_server(replicas=3)))
    diff = provider.diff(urn("test-demotest"), "id", outputs, changed)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME
    assert list(diff.replaces) == []

    context = with_props(news, **{SERVER_NAMES: ["web-portal"]})
    diff = provider.diff(urn("test-demotest"), "id", outputs, context)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME


def test_a_document_as_json_text_gets_the_same_verdicts(provider: DynamicProviderProcess) -> None:
    # Components send a document without pulumi.Input leaves as its JSON text (cheaper to
    # serialize); Check, Diff and Create treat it as the mapping it encodes.
    server = tars_server(hostPorts=[{"nameRef": "NoSuchObj", "port": 30001}])
    as_mapping = register("test-demotest", inputs_for(server))
    as_text = register("test-demotest", inputs_for(document_text(server) or ""))
    assert isinstance(from_struct(as_text)[DOCUMENT], str)
    _, by_mapping = provider.check(urn("test-demotest"), None, as_mapping)
    _, by_text = provider.check(urn("test-demotest"), None, as_text)
    assert (
        codes_and_fields(by_text)
        == codes_and_fields(by_mapping)
        == {("TS011", "spec.k8s.hostPorts[0].nameRef")}
    )

    valid = register("test-demotest", inputs_for(tars_server()))
    _, outputs = provider.create(urn("test-demotest"), valid)
    text = register("test-demotest", inputs_for(document_text(tars_server()) or ""))
    # A state written with the mapping shows no change when the same document comes as text.
    same = provider.diff(urn("test-demotest"), "id", outputs, text)
    assert same.changes == provider_pb2.DiffResponse.DIFF_NONE
    changed = register("test-demotest", inputs_for(document_text(tars_server(replicas=3)) or ""))
    diff = provider.diff(urn("test-demotest"), "id", outputs, changed)
    assert diff.changes == provider_pb2.DiffResponse.DIFF_SOME
    _, created = provider.create(urn("test-demotest"), text)
    assert from_struct(created)[MUTATED] == from_struct(outputs)[MUTATED]


def test_create_and_update_return_the_mutated_document(provider: DynamicProviderProcess) -> None:
    news = register("test-demotest", inputs_for(tars_server()))
    id_, outputs = provider.create(urn("test-demotest"), news)
    assert id_ == f"TServer/{NAMESPACE}/test-demotest"
    outs = from_struct(outputs)
    mutated = outs[MUTATED]
    assert mutated["metadata"]["labels"] == {
        "tars.io/ServerApp": "Test",
        "tars.io/ServerName": "DemoTest",
        "tars.io/SubType": "tars",
        "tars.io/Template": "tars.cpp",
        "tars.io/ServerID": "v1",
    }
    release = mutated["spec"]["release"]
    assert (release["nodeImage"], release["nodeSecret"]) == (
        FRAMEWORK["nodeImage"]["image"],
        FRAMEWORK["nodeImage"]["secret"],
    )
    assert mutated["spec"]["k8s"]["readinessGates"] == ["tars.io/active"]
    assert outs[VIOLATIONS] == [] and outs[WARNINGS] == []
    assert outs[PROVIDER_KEY] == news[PROVIDER_KEY]
    # The inputs are not stored a second time: their digest stands in for them in diff.
    assert DOCUMENT not in outs and len(outs[INPUTS_DIGEST]) == 64

    annotated = tars_server(replicas=5)
    annotated["metadata"]["annotations"] = {"tars.io/MaxReplicas": "3"}
    updated = from_struct(
        provider.update(urn("test-demotest"), id_, outputs, register("t", inputs_for(annotated)))
    )
    assert updated[MUTATED]["spec"]["k8s"]["replicas"] == 3  # M-TS10 clamps to the maximum


def test_a_state_that_echoes_its_inputs_still_diffs_and_runs_the_change_rules(
    provider: DynamicProviderProcess,
) -> None:
    # Before inputsDigest the outputs held the inputs again; such a state is still read: diff
    # compares the echoed inputs, and update runs the change rules against the old document
    # (with the digest, check alone runs them: the engine hands it the old inputs).
    olds = register("test-demotest", inputs_for(tars_server()))
    id_, created = provider.create(urn("test-demotest"), olds)
    current = from_struct(created)
    echoed = with_props(olds, **{k: v for k, v in current.items() if k != INPUTS_DIGEST})
    same = provider.diff(urn("test-demotest"), id_, echoed, olds)
    assert same.changes == provider_pb2.DiffResponse.DIFF_NONE
    changed = tars_server(app="Other")
    changed["metadata"]["name"] = "test-demotest"
    news = register("test-demotest", inputs_for(changed))
    assert provider.diff(urn("test-demotest"), id_, echoed, news).changes == (
        provider_pb2.DiffResponse.DIFF_SOME
    )
    with pytest.raises(grpc.RpcError) as raised:
        provider.update(urn("test-demotest"), id_, echoed, news)
    details = raised.value.details()
    # The SDK reports the exception's message (newer SDKs also its traceback and class).
    assert "TS001: spec.app is immutable: was Test, now Other (at spec.app)" in (
        details.splitlines()
    )


def test_create_reports_warnings_as_outputs(provider: DynamicProviderProcess) -> None:
    server = tars_server(daemonSet=True)
    del server["spec"]["release"]
    _, outputs = provider.create(urn("daemon"), register("daemon", inputs_for(server)))
    warnings = from_struct(outputs)[WARNINGS]
    assert [w.split(" ", 1)[0] for w in warnings] == ["TS023"]


# --- gRPC: Delete --------------------------------------------------------------------------


def test_delete_succeeds_and_a_removed_template_fails_its_users_checks(
    provider: DynamicProviderProcess,
) -> None:
    """Users of a template depend on it through their own facts: removing the template changes
    their inputs (a diff) and their check fails (TS010, TT002); its own delete has nothing to
    refuse."""
    id_, state = provider.create(
        urn("tars.cpp"), register("tars.cpp", inputs_for(template("tars.cpp", "tars.default")))
    )
    provider.delete(urn("tars.cpp"), id_, state)
    server = register("s", inputs_for(tars_server()))
    id_, state = provider.create(urn("s"), server)
    without = register("s", inputs_for(tars_server(), templates={}))
    assert provider.diff(urn("s"), id_, state, without).changes == (
        provider_pb2.DiffResponse.DIFF_SOME
    )
    _, failures = provider.check(urn("s"), server, without)
    assert codes_and_fields(failures) == {("TS010", "spec.tars.template")}
    child = register("c", inputs_for(template("shop.cpp", "tars.cpp"), templates={}))
    _, failures = provider.check(urn("c"), None, child)
    assert codes_and_fields(failures) == {("TT002", "spec.parent")}
    provider.delete(urn("s"), id_, state)


# --- in process: the same verdict as `tars-components validate` ----------------------------


def _broken_stack() -> DocumentSet:
    """One document per file, with context mistakes of every kind the provider resolves."""
    other_ns = tars_server(app="Lone", server="Server")
    other_ns["metadata"]["namespace"] = "other"
    twin = tars_server(app="TEST", server="demotest")  # same object name as tars_server()
    twin["metadata"]["name"] = "test-demotest"
    docs = {
        "00-framework.yaml": FRAMEWORK,
        "01-default.yaml": template("tars.default"),
        "02-cpp.yaml": template("tars.cpp", "tars.default"),
        "03-orphan.yaml": template("tars.orphan", "tars.missing"),
        "04-loop-a.yaml": template("tars.a", "tars.b"),
        "05-loop-b.yaml": template("tars.b", "tars.a"),
        "06-rejected.yaml": template("tars.go", "tars.default"),
        "10-server.yaml": tars_server(),
        "11-twin.yaml": twin,
        "12-java.yaml": tars_server(app="Java", server="Svc"),
        "13-other-ns.yaml": other_ns,
        "14-normal.yaml": normal_server(),
        "15-daemon.yaml": normal_server(app="Log", server="Agent", daemonSet=True),
        "16-go.yaml": tars_server(app="Go", server="Svc"),
    }
    docs["06-rejected.yaml"]["spec"]["content"] = 42  # TT006, yet its name still counts
    docs["12-java.yaml"]["spec"]["tars"]["template"] = "tars.java"
    docs["16-go.yaml"]["spec"]["tars"]["template"] = "tars.go"
    docs["15-daemon.yaml"]["spec"].pop("release")
    return load_texts({name: stack_text(doc) for name, doc in docs.items()}, NAMESPACE)


STACKS = {
    "dev": lambda: load_stack(REPO / "stacks" / "dev"),
    "corpus-edge": lambda: load_stack(REPO / "tests" / "data" / "corpus" / "edge"),
    "corpus-framework": lambda: load_stack(REPO / "tests" / "data" / "corpus" / "framework"),
    "broken": _broken_stack,
}


@pytest.mark.parametrize("stack_name", sorted(STACKS))
def test_the_provider_reports_what_validate_reports(stack_name: str) -> None:
    stack = STACKS[stack_name]()
    expected = validate(stack)
    identities = [
        (d.source.file if d.source else "", d.kind, d.namespace, d.name) for d in stack.documents
    ]
    assert identities and len(set(identities)) == len(identities)
    for doc, identity in zip(stack.documents, identities, strict=True):
        want = sorted(
            (v.code, str(v.severity), v.field, v.message)
            for v in expected
            if (v.file, v.kind, v.namespace, v.name) == identity
        )
        props = inputs_for_document(stack, doc).to_props()
        found = evaluate(Subject.parse(props)).violations
        got = sorted((v.code, str(v.severity), v.field, v.message) for v in found)
        assert got == want, identity
        assert sorted(check_failures({}, props)) == sorted(
            (field, f"{code}: {message}")
            for code, severity, field, message in want
            if severity == "error"
        )


def test_the_broken_stack_exercises_every_context_rule() -> None:
    violations = validate(_broken_stack())
    codes = {v.code for v in violations}
    assert not [v for v in violations if v.name == "go-svc"]
    assert {"TS010", "TS017", "TS020", "TT002", "TT004", "TT006", "TS023"} <= codes


# --- in process: unknown values, numbers, diffs, inputs ------------------------------------


def test_unknown_context_drops_only_the_rules_that_need_it() -> None:
    server = tars_server()
    server["spec"]["tars"]["template"] = "tars.java"
    known = inputs_for(server, framework_node_image=None, server_names=["test-demotest"])

    def codes(props: dict[str, Any]) -> set[str]:
        return {reason.split(":", 1)[0] for _, reason in check_failures({}, props)}

    everything = codes(known.to_props())
    assert everything == {"TS010", "TS017", "TS020"}
    for key, dropped in (
        (TEMPLATES, "TS010"),
        (SERVER_NAMES, "TS017"),
        (FRAMEWORK_NODE_IMAGE, "TS020"),
    ):
        assert codes({**known.to_props(), key: Unknown()}) == everything - {dropped}, key


def test_an_unknown_structural_field_still_lets_the_other_rules_run() -> None:
    server = tars_server()
    server["spec"]["app"] = Unknown()  # metadata.name stays known: TS016 waits for the app
    server["spec"]["tars"]["servants"].append({"name": "DemoTest1Obj", "port": 10001})
    assert codes_and_fields_of(check_failures({}, inputs_for(server).to_props())) == {
        ("TS003", "spec.tars.servants[1].name"),
        ("TS004", "spec.tars.servants[1].port"),
    }


@pytest.mark.parametrize(
    "unknown_at",
    [
        ("spec", "app"),
        ("spec", "server"),
        ("metadata", "name"),
        ("spec", "subType"),
        ("spec", "tars", "template"),
        ("spec", "tars", "servants", 0, "name"),
        ("spec", "k8s", "daemonSet"),
        ("spec", "k8s", "imagePullPolicy"),
        ("spec", "k8s", "replicas"),
    ],
)
def test_each_unknown_structural_field_hides_only_its_own_rules(
    unknown_at: tuple[str | int, ...],
) -> None:
    server = tars_server(hostPorts=[{"nameRef": "DemoTest1Obj", "port": 30001}])
    server["spec"]["tars"]["servants"].append({"name": "XObj", "port": 10001})  # TS004
    server["spec"]["k8s"]["mounts"] = [
        {"name": "a", "source": {"emptyDir": {}}, "mountPath": "/a"},
        {"name": "a", "source": {"emptyDir": {}}, "mountPath": "/b"},  # TS009
    ]
    node: Any = server
    for seg in unknown_at[:-1]:
        node = node[seg]
    node[unknown_at[-1]] = Unknown()
    failures = check_failures({}, inputs_for(server).to_props())
    # Nothing about the unknown field nor the nameRef that names the unknown servant (TS011).
    assert codes_and_fields_of(failures) == {
        ("TS004", "spec.tars.servants[1].port"),
        ("TS009", "spec.k8s.mounts[1].name"),
    }


def test_unknown_numbers_stand_in_as_unused_numbers() -> None:
    server = tars_server(
        replicas=Unknown(),  # at most 99: a low unused number stands in
        hostPorts=[
            {"nameRef": "DemoTest1Obj", "port": Unknown()},
            {"nameRef": "NoSuchObj", "port": 30001},  # TS011 all the same
        ],
    )
    server["spec"]["tars"]["servants"][0]["port"] = rpc.UNKNOWN
    server["spec"]["tars"]["servants"].append({"name": "BObj", "port": 65535})
    failures = check_failures({}, inputs_for(server).to_props())
    assert failures == [
        (
            "spec.k8s.hostPorts[1].nameRef",
            "TS011: nameRef NoSuchObj names no servant or port of this server",
        )
    ]


def test_numbers_arrive_as_doubles_and_still_pass() -> None:
    server = tars_server(replicas=2.0)
    server["spec"]["tars"]["servants"][0]["port"] = 10001.0
    assert check_failures({}, inputs_for(server).to_props()) == []
    mutated = evaluate(Subject.parse(inputs_for(server).to_props())).mutated
    assert mutated is not None
    assert mutated["spec"]["k8s"]["replicas"] == 2
    assert isinstance(mutated["spec"]["k8s"]["replicas"], int)


def test_a_document_of_another_kind_is_a_failure_not_a_crash() -> None:
    props = inputs_for({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    failures = check_failures({}, props.to_props())
    assert len(failures) == 1 and failures[0][1].startswith("not a TarsK8S document: ")
    with pytest.raises(InvalidInputs, match="not a TarsK8S document"):
        TarsValidationProvider().create(props.to_props())
    with pytest.raises(InvalidInputs, match="not a TarsK8S document"):
        TarsValidationProvider().update("x", props.to_props(), props.to_props())


def test_changed_inputs_names_the_properties() -> None:
    olds = inputs_for(tars_server()).to_props()
    assert changed_inputs(olds, copy.deepcopy(olds)) == []
    news = {**olds, TEMPLATES: {"tars.go": "tars.go"}, DOCUMENT: tars_server(replicas=2)}
    assert changed_inputs(olds, news) == [DOCUMENT, TEMPLATES]
    # Anything else (say a property of an older version) is not a fact: no change.
    assert changed_inputs({**olds, "templateUsers": {"servers": ["a-b"]}}, olds) == []
    unknown = {**olds, SERVER_NAMES: Unknown()}
    assert changed_inputs(olds, unknown) == [SERVER_NAMES]


def test_an_empty_fact_is_not_sent_and_absent_means_empty() -> None:
    root = inputs_for(template("tars.default", "tars.default"), templates={}).to_props()
    assert TEMPLATES not in root and changed_inputs({**root, TEMPLATES: {}}, root) == []
    props = inputs_for(tars_server()).to_props()
    assert set(props) == {DOCUMENT, WIRE_NAMESPACE, TEMPLATES, FRAMEWORK_NODE_IMAGE}
    # A state written when empty facts were sent ([] and {}) shows no change after upgrade.
    older = {**props, SERVER_NAMES: [], SECRET_FIELDS: []}
    assert changed_inputs(older, props) == [] and changed_inputs(props, older) == []
    assert changed_inputs(older, {**props, SERVER_NAMES: ["Test-DemoTest"]}) == [SERVER_NAMES]
    # The provider reads the absent facts as empty: same verdict either way.
    provider = TarsValidationProvider()
    assert provider.check({}, props).failures == provider.check({}, older).failures == []


def test_inputs_for_a_document_of_a_stack_are_its_facts_only() -> None:
    stack = _broken_stack()
    by_name = {(d.kind, d.name): d for d in stack.documents}

    def inputs(kind: str, name: str) -> ValidationInputs:
        return inputs_for_document(stack, by_name[(kind, name)])

    root = inputs("TTemplate", "tars.default")
    assert (root.templates, root.framework_node_image, list(root.server_names)) == ({}, None, [])
    assert inputs("TTemplate", "tars.cpp").templates == {"tars.default": "tars.default"}
    assert inputs("TTemplate", "tars.orphan").templates == {}
    assert inputs("TTemplate", "tars.a").templates == {"tars.b": "tars.a"}
    first = inputs_for_document(stack, stack.servers[0])
    second = inputs_for_document(stack, stack.servers[1])
    assert first.templates == {"tars.cpp": "tars.default"}
    assert first.framework_node_image == FRAMEWORK["nodeImage"]
    assert (list(first.server_names), list(second.server_names)) == ([], ["Test-DemoTest"])
    # A rejected template's name still counts (TS010 does not fire for tars.go's users).
    go = next(s for s in stack.servers if s.name == "go-svc")
    assert inputs_for_document(stack, go).templates == {"tars.go": "tars.go"}


def test_the_resource_takes_only_its_inputs() -> None:
    with pytest.raises(ValueError, match="unknown TarsValidation inputs: spec"):
        TarsValidation("x", {DOCUMENT: tars_server(), "spec": {}})


def codes_and_fields_of(failures: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """``(code, field)`` of in-process check failures."""
    return {(reason.split(":", 1)[0], field) for field, reason in failures}


def test_diff_counts_an_input_not_known_yet_as_a_change() -> None:
    # A preview with an Output fact: the digest of the old outputs cannot vouch for it.
    props = inputs_for(tars_server()).to_props()
    provider = TarsValidationProvider()
    outputs = provider.create(props).outs
    assert outputs is not None and DOCUMENT not in outputs
    assert not provider.diff("id", outputs, props).changes
    assert provider.diff("id", outputs, {**props, SERVER_NAMES: Unknown()}).changes
