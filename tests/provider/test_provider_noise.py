"""Preview noise and Check cost over the real gRPC path (issue #8): adding one server to a
stack of 100 changes the validation inputs of that server only, so ``diff`` reports a change
for its resources alone; each document's inputs have a size that does not grow with the
namespace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pulumi.runtime.proto import provider_pb2
from support.builders.documents import (
    FRAMEWORK,
    NAMESPACE,
    normal_server,
    stack_text,
    tars_server,
    template,
)
from support.engines.grpc_provider import PROVIDER_KEY, DynamicProviderProcess, to_struct

from tars_components.loading.document_set import DocumentSet
from tars_components.loading.load import load_texts
from tars_components.provider import TarsValidationProvider, inputs_for_document
from tars_components.provider.facts import NamespaceFacts

REPO = Path(__file__).resolve().parents[2]
TYPE = "pulumi-python:dynamic/tars:TarsValidation"


def server(i: int) -> dict[str, Any]:
    return tars_server(app=f"App{i}", server="Svc") if i % 2 else normal_server(app=f"Web{i}")


def stack_of(count: int, extra: dict[str, dict[str, Any]] | None = None) -> DocumentSet:
    files = {
        "00-framework.yaml": FRAMEWORK,
        "01-default.yaml": template("tars.default"),
        "02-cpp.yaml": template("tars.cpp", "tars.default"),
    }
    files.update({f"10-srv-{i:03d}.yaml": server(i) for i in range(count)})
    files.update(extra or {})
    return load_texts({name: stack_text(doc) for name, doc in files.items()}, NAMESPACE)


def all_props(stack: DocumentSet) -> dict[tuple[str, str], dict[str, Any]]:
    """Validation inputs of every document, by kind and name, built as the components build
    them (one NamespaceFacts, each document's inputs in O(1))."""
    facts = NamespaceFacts.of_stack(stack, NAMESPACE)
    positions = {id(s): i for i, s in enumerate(stack.servers)}
    return {
        (doc.kind, doc.name): facts.inputs(doc, positions.get(id(doc), 0)).to_props()
        for doc in stack.documents
    }


def _struct(props: dict[str, Any]) -> Any:
    from pulumi.dynamic.dynamic import serialize_provider

    return to_struct({**props, PROVIDER_KEY: serialize_provider(TarsValidationProvider())})


def test_adding_one_server_early_changes_only_that_servers_inputs(
    provider: DynamicProviderProcess,
) -> None:
    before = all_props(stack_of(100))
    # Loads before every other server (file name order), uses a template, takes a new name.
    new = tars_server(app="Aaa", server="First")
    after = all_props(stack_of(100, {"05-new.yaml": new}))
    assert set(after) - set(before) == {("TServer", "aaa-first")}
    changed = []
    for key, old in before.items():
        urn = f"urn:pulumi:dev::tars::{TYPE}::{key[1]}"
        id_, state = provider.create(urn, _struct(old))
        diff = provider.diff(urn, id_, state, _struct(after[key]))
        if diff.changes != provider_pb2.DiffResponse.DIFF_NONE:
            changed.append(key)
    assert changed == []
    # A new server that takes an existing name changes exactly the one whose verdict it
    # decides (TS017 on the later of the two).
    twin = normal_server(app="Web4")
    twin["metadata"]["name"] = "web4-portal"
    later = all_props(stack_of(100, {"05-twin.yaml": twin}))
    moved = [key for key, old in before.items() if later[key] != old]
    assert moved == [("TServer", "web4-portal")]


def test_each_documents_inputs_have_constant_size() -> None:
    def sizes(count: int) -> set[int]:
        return {len(json.dumps(p, sort_keys=True)) for p in all_props(stack_of(count)).values()}

    # Only the longer names (App199 vs App9) add a few characters.
    assert max(sizes(200)) - max(sizes(10)) < 10


def test_inputs_for_document_matches_the_components_facts() -> None:
    stack = stack_of(5)
    props = all_props(stack)
    for doc in stack.documents:
        assert inputs_for_document(stack, doc).to_props() == props[(doc.kind, doc.name)]
