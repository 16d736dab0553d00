"""Secrets stay secret (issue #8): a value given as a Pulumi secret appears in no plaintext in
any registered input, output, component or stack output, log line or error message, under
mocks (which strip secret markers before the dynamic provider, as the engine does) and over
the real gRPC path. The scans look at the values, not at property names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pulumi
import pytest
from google.protobuf import json_format
from support.builders.documents import FRAMEWORK, NAMESPACE, tars_server
from support.engines.grpc_provider import (
    DynamicProviderProcess,
    engine_strips_secrets,
    from_struct,
    registered_inputs,
    registered_request,
)

from tars_components.components import TFramework, TFrameworkArgs, TServer, TServerArgs
from tars_components.components.testing import (
    Recording,
    ValidationFailed,
    contains_secret,
    plaintext_paths,
    record,
)
from tars_components.loading.documents import parse_document
from tars_components.provider import OUTPUTS, TarsValidation, ValidationInputs
from tars_components.provider.wire import SECRET_FIELDS

IMAGE = "reg.example.com/secret-team/order:v42"
PASSWORD = "hunter2-s3cr3t-pw"
BAD_IMAGE = "Reg.Example.com/Secret/Order:V42"  # the CRD pattern refuses uppercase
CONFIG = parse_document(FRAMEWORK, NAMESPACE)
TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}


def secret_server(image: str = IMAGE) -> None:
    """A TServer whose release image and one env value are secrets (as from
    ``config.require_secret``)."""
    fw = TFramework(
        "fw",
        TFrameworkArgs(namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES),  # type: ignore[arg-type]
    )
    server = TServer(
        "srv",
        TServerArgs(
            fw,
            app="Shop",
            server="Order",
            tars={"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10000}]},
            k8s={
                "replicas": 2,
                "env": [
                    {"name": "MODE", "value": "prod"},
                    {"name": "DB_PASSWORD", "value": pulumi.Output.secret(PASSWORD)},
                ],
            },
            release={"id": "v42", "image": pulumi.Output.secret(image)},
        ),
    )
    pulumi.export("mutated", server.mutated)
    pulumi.export("manifests", server.manifests)
    pulumi.export("objects", server.objects)


@pytest.mark.parametrize("preview", [False, True])
def test_no_plaintext_secret_anywhere_under_mocks(preview: bool) -> None:
    recording = record(secret_server, preview=preview)
    for secret in (IMAGE, PASSWORD):
        assert recording.plaintext(secret) == [], secret
    # The values did arrive, inside secret markers: the scan is not vacuous.
    [sts] = recording.of_type("kubernetes:apps/v1:StatefulSet")
    assert plaintext_paths(sts.inputs, IMAGE) == []
    assert IMAGE in str(sts.inputs) and PASSWORD in str(sts.inputs)
    [validation] = [r for r in recording.validations() if r.name == "srv-validation"]
    if not preview:
        assert IMAGE in str(validation.outputs["mutated"])
        assert set(OUTPUTS) <= set(validation.outputs)
    assert plaintext_paths(validation.inputs[SECRET_FIELDS], "release") != []


def test_mutated_is_secret_only_when_an_input_is() -> None:
    def program() -> None:
        fw = TFramework(
            "fw",
            TFrameworkArgs(namespace=NAMESPACE, config=CONFIG, templates=TEMPLATES),  # type: ignore[arg-type]
        )
        plain_server = TServer("plain", TServerArgs(fw, document=parse_document(tars_server())))  # type: ignore[arg-type]
        pulumi.export("plainMutated", plain_server.mutated)

    recording = record(program)
    assert recording.outputs["plainMutated"]["spec"]["app"] == "Test"


def test_a_failing_rule_on_a_secret_field_prints_secret() -> None:
    recording = Recording()
    with pytest.raises(ValidationFailed) as raised:
        record(lambda: secret_server(BAD_IMAGE), recording=recording, preview=True)
    message = str(raised.value)
    assert "spec.release.image" in message and "TS021" in message
    assert "[secret]" in message and BAD_IMAGE not in message
    assert recording.plaintext(BAD_IMAGE) == []
    assert recording.kubernetes() == []


# --- over gRPC ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def provider() -> Iterator[DynamicProviderProcess]:
    from pathlib import Path

    with DynamicProviderProcess(Path(__file__).resolve().parents[2]) as process:
        assert not process.configure({"tars:namespace": NAMESPACE}).acceptSecrets
        yield process


def _validation(image: str) -> TarsValidation:
    document: dict[str, Any] = tars_server()
    document["spec"]["release"]["image"] = pulumi.Output.secret(image)
    document["spec"]["k8s"]["env"] = [{"name": "PW", "value": pulumi.Output.secret(PASSWORD)}]
    secret_fields = ["spec.k8s.env[0].value", "spec.release.image"]
    inputs = ValidationInputs(
        document=document,
        namespace=NAMESPACE,
        templates=TEMPLATES,
        framework_node_image=FRAMEWORK["nodeImage"],
        secret_fields=secret_fields,
    )
    return TarsValidation("v", inputs)


def test_over_grpc_secrets_reach_only_outputs_the_engine_marks_secret(
    provider: DynamicProviderProcess,
) -> None:
    request = registered_request("v", lambda: _validation(IMAGE))
    registered = from_struct(request.object)
    assert IMAGE in str(registered) and plaintext_paths(registered, IMAGE) == []
    news = engine_strips_secrets(request.object)
    urn = "urn:pulumi:dev::tars::pulumi-python:dynamic/tars:TarsValidation::v"
    inputs, failures = provider.check(urn, None, news)
    assert failures == []
    _, outputs = provider.create(urn, inputs)
    # The engine marks secret the outputs named in additionalSecretOutputs and those whose
    # input of the same name held a secret; every output carrying a secret must be one.
    marked = set(request.additionalSecretOutputs) | {
        key for key, value in registered.items() if contains_secret(value)
    }
    assert marked == {*OUTPUTS, "document"}
    produced = json_format.MessageToDict(outputs)
    for secret in (IMAGE, PASSWORD):
        leaking = {key for key, value in produced.items() if secret in str(value)}
        assert leaking, secret  # the provider did compute with it ...
        assert leaking <= marked, (secret, leaking - marked)  # ... and only into secret outputs
    assert set(OUTPUTS) <= set(request.additionalSecretOutputs)


def test_over_grpc_a_failing_rule_on_a_secret_prints_secret(
    provider: DynamicProviderProcess,
) -> None:
    _, struct = registered_inputs("v", lambda: _validation(BAD_IMAGE))
    news = engine_strips_secrets(struct)
    urn = "urn:pulumi:dev::tars::pulumi-python:dynamic/tars:TarsValidation::v"
    _, failures = provider.check(urn, None, news)
    assert [(f.property, f.code) for f in failures] == [("spec.release.image", "TS021")]
    assert "[secret]" in failures[0].reason and BAD_IMAGE not in failures[0].reason
