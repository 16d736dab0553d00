"""Change rules TS001, TS002, TT003, TT005: a previous and a current version of a stack."""

from __future__ import annotations

from support.builders.documents import edited
from support.builders.rules import (
    FILE,
    NS,
    assert_one,
    base_docs,
    line_of,
    load,
    normal_server,
    render,
    tars_server,
    template,
)

from tars_components.loading.document_set import DocumentSet
from tars_components.loading.load import load_texts
from tars_components.mutation import mutate
from tars_components.rules import validate_change

OLD = "old/stack.yaml"


def previous(*docs: dict) -> tuple[str, DocumentSet]:
    text = render(*docs)
    return text, load_texts({OLD: text}, namespace=NS)


def current(*docs: dict) -> tuple[str, DocumentSet]:
    text = render(*docs)
    return text, load(text)


# --- TS001 ---------------------------------------------------------------------------------


def test_ts001_app_case_change_keeps_the_name_but_is_rejected() -> None:
    _, old = previous(*base_docs(), tars_server())
    text, new = current(*base_docs(), edited(tars_server(), spec__app="TEST"))
    violations = validate_change(old, new)
    v = assert_one(violations, "TS001", "spec.app", line_of(text, "app: TEST"))
    assert v.message == "spec.app is immutable: was Test, now TEST"
    assert v.name == "test-demotest"


def test_ts001_server_and_subtype_changes() -> None:
    _, old = previous(tars_server())
    changed = edited(tars_server(), spec__server="demotest", spec__subType="normal")
    text, new = current(changed)
    violations = validate_change(old, new)
    assert [(v.code, v.field, v.line) for v in violations] == [
        ("TS001", "spec.server", line_of(text, "server: demotest")),
        ("TS001", "spec.subType", line_of(text, "subType: normal")),
    ]


def test_ts001_other_changes_and_unmatched_servers_pass() -> None:
    _, old = previous(tars_server(), edited(tars_server(), metadata__namespace="other"))
    scaled = edited(tars_server(), spec__k8s__replicas=5, spec__release__id="v2")
    renamed = edited(tars_server(), metadata__namespace="third", spec__app="Other")
    _, new = current(scaled, renamed)
    assert validate_change(old, new) == []


# --- TS002 ---------------------------------------------------------------------------------


def test_ts002_sections_swapped() -> None:
    _, old = previous(normal_server())
    swapped = edited(normal_server(), spec__normal=None, spec__tars={"template": "tars.cpp"})
    del swapped["spec"]["normal"]
    text, new = current(swapped)
    violations = validate_change(old, new)
    assert [(v.code, v.field, v.line, v.file) for v in violations] == [
        ("TS002", "spec.normal", line_of(text, "spec:"), FILE),
        ("TS002", "spec.tars", line_of(text, "tars:"), FILE),
    ]
    assert violations[0].message.startswith("spec.normal cannot be removed")
    assert violations[1].message.startswith("spec.tars cannot be added")


def test_ts002_same_sections_pass() -> None:
    _, old = previous(normal_server(), tars_server())
    ports = [{"name": "https", "port": 443}]
    _, new = current(edited(normal_server(), spec__normal__ports=ports), tars_server())
    assert validate_change(old, new) == []


# --- TT003 / TT005 -------------------------------------------------------------------------


def test_tt003_removed_template_is_still_a_parent() -> None:
    old_text, old = previous(template("tars.default"), template("tars.cpp", "tars.default"))
    _, new = current(template("tars.cpp", "tars.default"))
    violations = validate_change(old, new)
    line = line_of(old_text, "name: tars.default")
    assert [(v.code, v.severity.value, v.name, v.field, v.file, v.line) for v in violations] == [
        ("TT003", "error", "tars.default", "metadata.name", OLD, line),
    ]
    assert violations[0].message == (
        "TTemplate tars.default is removed but is still the parent of tars.cpp"
    )


def test_tt005_removed_template_is_still_used_by_a_server() -> None:
    old_text, old = previous(*base_docs(), template("tars.go", "tars.default"))
    server = edited(tars_server(), spec__tars__template="tars.go")
    _, new = current(*base_docs(), server)
    violations = validate_change(old, new)
    line = line_of(old_text, "name: tars.go")
    assert [(v.code, v.name, v.field, v.file, v.line) for v in violations] == [
        ("TT005", "tars.go", "metadata.name", OLD, line),
    ]
    assert violations[0].message == (
        "TTemplate tars.go is removed but TServer test-demotest still uses it"
    )


def test_tt003_tt005_removing_an_unused_template_passes() -> None:
    _, old = previous(*base_docs(), template("tars.go", "tars.default"), tars_server())
    _, new = current(*base_docs(), tars_server())
    assert validate_change(old, new) == []


def test_tt003_tt005_schema_rejected_template_is_not_removed() -> None:
    _, old = previous(*base_docs(), tars_server())
    broken = edited(template("tars.cpp", "tars.default"), spec__content=1)
    _, new = current(template("tars.default"), broken, tars_server())
    assert validate_change(old, new) == []


def test_tt005_template_removed_in_another_namespace_passes() -> None:
    elsewhere = edited(template("tars.cpp", "tars.default"), metadata__namespace="other")
    _, old = previous(*base_docs(), elsewhere, tars_server())
    _, new = current(*base_docs(), tars_server())
    assert validate_change(old, new) == []


def test_validate_change_is_the_same_after_mutation() -> None:
    _, old = previous(template("tars.default"), template("tars.cpp", "tars.default"), tars_server())
    changed = edited(tars_server(), spec__app="TEST", spec__tars__template="tars.default")
    _, new = current(template("tars.cpp", "tars.default"), changed)
    found = validate_change(old, new)
    assert {v.code for v in found} == {"TS001", "TT003", "TT005"}
    assert validate_change(mutate(old), mutate(new)) == found
