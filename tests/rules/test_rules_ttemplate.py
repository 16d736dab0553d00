"""TTemplate rules TT001 (for models the loader never saw), TT002, TT004 and TT007."""

from __future__ import annotations

from support.builders.documents import edited
from support.builders.rules import NS, assert_one, check, line_of, load, only, render, template

from tars_components.loading.document_set import DocumentSet
from tars_components.loading.documents import parse_document
from tars_components.models import TTemplateDocument
from tars_components.rules import validate
from tars_components.rules.ttemplate import parent_cycles

# --- TT001 ---------------------------------------------------------------------------------


def test_tt001_empty_parent_on_a_model_built_in_code() -> None:
    built = parse_document(template("tars.go", "tars.default"), NS)
    assert isinstance(built, TTemplateDocument)
    empty = built.model_copy(update={"spec": built.spec.model_copy(update={"parent": ""})})
    violations = validate(DocumentSet.of([empty], namespace=NS))
    assert [(v.code, v.severity.value, v.field, v.file) for v in violations] == [
        ("TT001", "error", "spec.parent", None)
    ]


def test_tt001_not_reported_for_a_parent() -> None:
    built = parse_document(template("tars.default"), NS)
    assert validate(DocumentSet.of([built], namespace=NS)) == []


# --- TT002 ---------------------------------------------------------------------------------


def test_tt002_parent_does_not_exist() -> None:
    text, violations = check(template("tars.go", "tars.base"))
    v = assert_one(violations, "TT002", "spec.parent", line_of(text, "parent: tars.base"))
    assert v.message == "parent TTemplate tars.base does not exist in namespace tars-dev"
    assert v.name == "tars.go"


def test_tt002_parent_in_another_namespace_does_not_count() -> None:
    other = edited(template("tars.base"), metadata__namespace="other")
    text, violations = check(other, template("tars.go", "tars.base"))
    assert_one(violations, "TT002", "spec.parent", line_of(text, "parent: tars.base", 2))


def test_tt002_root_existing_and_schema_rejected_parents_pass() -> None:
    broken_parent = edited(template("tars.base"), spec__unknown=1)  # TT006, but it exists
    docs = [template("tars.go", "tars.base"), broken_parent, template("tars.solo")]
    violations = check(*docs)[1]
    assert [v.code for v in violations] == ["TT006"]


# --- TT004 ---------------------------------------------------------------------------------


def test_tt004_two_template_cycle_reported_once_per_member() -> None:
    text = render(template("a", "b"), template("b", "a"))
    violations = validate(load(text))
    assert [(v.code, v.name, v.field, v.line, v.message) for v in violations] == [
        (
            "TT004",
            "a",
            "spec.parent",
            line_of(text, "parent: b"),
            "parent chain loops: a -> b -> a",
        ),
        (
            "TT004",
            "b",
            "spec.parent",
            line_of(text, "parent: a"),
            "parent chain loops: b -> a -> b",
        ),
    ]


def test_tt004_three_template_cycle_with_a_tail() -> None:
    docs = [template("a", "b"), template("b", "c"), template("c", "a"), template("d", "a")]
    violations = validate(load(render(*docs)))
    assert [(v.code, v.name) for v in violations] == [
        ("TT004", "a"),
        ("TT004", "b"),
        ("TT004", "c"),
    ]
    assert violations[2].message == "parent chain loops: c -> a -> b -> c"


def test_tt004_chains_ending_at_a_root_pass() -> None:
    docs = [template("root"), template("a", "root"), template("b", "a"), template("c", "b")]
    assert validate(load(render(*docs))) == []


def test_tt004_cycles_are_per_namespace() -> None:
    other = [edited(template(n, p), metadata__namespace="other") for n, p in [("a", "b")]]
    docs = [template("a", "root"), template("b", "a"), template("root"), *other]
    violations = validate(load(render(*docs)))
    # in "other", a -> b is a missing parent (TT002), not a cycle
    assert [(v.code, v.namespace) for v in violations] == [("TT002", "other")]


def test_tt004_does_not_hide_tt002() -> None:
    docs = [template("a", "b"), template("b", "a"), template("c", "gone")]
    codes = [v.code for v in validate(load(render(*docs)))]
    assert codes == ["TT004", "TT004", "TT002"]
    assert only(validate(load(render(*docs))), "TT002")[0].name == "c"


def test_parent_cycles() -> None:
    assert parent_cycles({"a": "a"}) == []
    assert parent_cycles({"a": "b"}) == []
    assert parent_cycles({"a": "b", "b": "a"}) == [["a", "b"]]
    assert parent_cycles({"x": "a", "a": "b", "b": "c", "c": "b"}) == [["b", "c"]]
    assert parent_cycles({"a": "b", "b": "c", "c": "d", "d": "a", "e": "e"}) == [
        ["a", "b", "c", "d"]
    ]
    assert parent_cycles({"a": "b", "b": "a", "c": "d", "d": "c"}) == [["a", "b"], ["c", "d"]]


# --- TT007 ---------------------------------------------------------------------------------


def test_tt007_second_template_with_the_same_name() -> None:
    text = render(template("tars.base"), template("tars.base"))
    v = assert_one(
        validate(load(text)), "TT007", "metadata.name", line_of(text, "name: tars.base", 2)
    )
    assert v.message.startswith(f"TTemplate {NS}/tars.base is already defined")


def test_tt007_same_name_in_another_namespace_passes() -> None:
    other = template("tars.base")
    other["metadata"]["namespace"] = "other"
    assert validate(load(render(template("tars.base"), other))) == []
