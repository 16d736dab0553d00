"""The dynamic provider answers any request with a clean error (issue 17, item 5), driven over
gRPC as the engine drives it: inputs nested too deep (a JSON document text nested 100,000
levels raised RecursionError), not JSON, not a mapping, strings that are not Unicode. Check
answers with one failure of one line, diff with a change, create and update with one error
line of the provider's own, read with the state as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2
from pulumi.runtime.proto import provider_pb2
from support.builders.documents import FRAMEWORK, NAMESPACE, tars_server
from support.engines.grpc_provider import (
    DynamicProviderProcess,
    from_struct,
    registered_inputs,
    with_props,
)

from tars_components.provider import (
    DOCUMENT,
    TEMPLATES,
    TarsValidation,
    TarsValidationProvider,
    ValidationInputs,
)

REPO = Path(__file__).resolve().parents[2]
URN = "urn:pulumi:dev::tars::pulumi-python:dynamic/tars:TarsValidation::test-demotest"
ERROR = "tars_components.provider.InvalidInputs: "
OLD_SDK_ERROR = "Exception calling application: "


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


# name: (changed inputs, the one-line reason)
HOSTILE: dict[str, tuple[dict[str, Any], str]] = {
    "json-100k-deep": (
        {DOCUMENT: "[" * 100_000 + "]" * 100_000},
        "the document nests deeper than 100 levels",
    ),
    "json-object-900-deep": (
        {DOCUMENT: '{"a":' * 900 + "1" + "}" * 900},
        "the document nests deeper than 100 levels",
    ),
    "mapping-300-deep": (
        {DOCUMENT: {**tars_server(), "spec": _nested(300)}},
        "the document nests deeper than 100 levels",
    ),
    "not-json": (
        {DOCUMENT: "{not json"},
        "the document is not valid JSON text: Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1)",
    ),
    "json-of-a-list": ({DOCUMENT: "[1, 2]"}, "the document must be a mapping, got a list"),
    "a-list": ({DOCUMENT: [1, 2]}, "the document must be a mapping, got a list"),
    "huge-integer": (
        {DOCUMENT: '{"spec": {"replicas": ' + "9" * 5000 + "}}"},
        "the document is not valid JSON text: a number has more than 4,300 digits",
    ),
    "lone-surrogate": (
        {DOCUMENT: '{"apiVersion": "k8s.tars.io/v1beta3", "kind": "TServer\\ud800"}'},
        "the document holds a string that is not valid Unicode (a lone surrogate)",
    ),
    "deep-templates": (
        {TEMPLATES: _nested(300)},
        "the templates input nests deeper than 100 levels",
    ),
}


@pytest.fixture(scope="module")
def valid() -> struct_pb2.Struct:
    inputs = ValidationInputs(
        document=tars_server(),
        namespace=NAMESPACE,
        templates={"tars.default": "tars.default", "tars.cpp": "tars.default"},
        framework_node_image=FRAMEWORK["nodeImage"],
    )
    _, struct = registered_inputs("test-demotest", lambda: TarsValidation("test-demotest", inputs))
    return struct


def _assert_one_clean_line(raised: pytest.ExceptionInfo[grpc.RpcError], reason: str) -> None:
    details = raised.value.details() or ""
    # The SDK puts the frames of every exception a provider raises before its message; the
    # message is the provider's own, one line, and nothing unplanned happened on the way.
    # The last line names the exception (newer SDKs: "tars_components.provider.
    # InvalidInputs: ..."; the declared floor: "Exception calling application: ...").
    last = details.rstrip("\n").splitlines()[-1]
    assert last in (ERROR + reason, OLD_SDK_ERROR + reason), last
    assert "RecursionError" not in details and "During handling" not in details


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_every_method_answers_hostile_inputs_cleanly(
    name: str, provider: DynamicProviderProcess, valid: struct_pb2.Struct
) -> None:
    changes, reason = HOSTILE[name]
    hostile = with_props(valid, **changes)

    inputs, failures = provider.check(URN, None, hostile)
    assert [(f.property, f.reason) for f in failures] == [("", reason)]
    assert from_struct(inputs) == from_struct(hostile)

    id_, state = provider.create(URN, valid)
    assert provider.diff(URN, id_, state, hostile).changes == provider_pb2.DiffResponse.DIFF_SOME

    with pytest.raises(grpc.RpcError) as raised:
        provider.create(URN, hostile)
    _assert_one_clean_line(raised, reason)
    with pytest.raises(grpc.RpcError) as raised:
        provider.update(URN, id_, state, hostile)
    _assert_one_clean_line(raised, reason)

    read = provider.stub.Read(
        provider_pb2.ReadRequest(id=id_, urn=URN, properties=hostile), timeout=30
    )
    assert read.id == id_
    assert from_struct(read.properties) == from_struct(hostile)


def test_unreadable_previous_inputs_fail_check_and_update(
    provider: DynamicProviderProcess, valid: struct_pb2.Struct
) -> None:
    hostile = with_props(valid, **{DOCUMENT: "[" * 100_000 + "]" * 100_000})
    reason = (
        "the previous inputs (from the state): the document nests deeper than 100 levels; "
        "the change rules cannot run"
    )
    _, failures = provider.check(URN, hostile, valid)
    assert [(f.property, f.reason) for f in failures] == [("", reason)]
    assert provider.diff(URN, "id", hostile, valid).changes == provider_pb2.DiffResponse.DIFF_SOME
    with pytest.raises(grpc.RpcError) as raised:
        provider.update(URN, "id", hostile, valid)
    _assert_one_clean_line(raised, reason)


def test_an_unplanned_failure_is_one_failure_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever else goes wrong inside check is still one failure, never an exception."""

    def broken(*_: Any) -> Any:
        raise KeyError("spec")

    monkeypatch.setattr("tars_components.provider.check_failures", broken)
    result = TarsValidationProvider().check({}, {DOCUMENT: tars_server()})
    assert [(f.property, f.reason) for f in result.failures] == [
        ("", "check failed: KeyError: 'spec' (a bug in tars-components: please report it)")
    ]
