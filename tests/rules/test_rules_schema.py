"""The schema codes the loader reports (TS021, TT006, TF001, TT001) come out of validate() with
their field and line, and valid documents get none."""

from __future__ import annotations

import pytest
from support.builders.documents import DROP, edited
from support.builders.rules import (
    assert_one,
    check,
    framework,
    line_of,
    load,
    only,
    render,
    tars_server,
    template,
)

from tars_components.kernel.errors import LoadError
from tars_components.rules import validate


def test_ts021_enum_violation() -> None:
    server = edited(tars_server(), spec__k8s__abilityAffinity="Sometimes")
    text, violations = check(server)
    v = assert_one(
        violations, "TS021", "spec.k8s.abilityAffinity", line_of(text, "abilityAffinity")
    )
    assert "'Sometimes' is not one of" in v.message


def test_ts021_unknown_field() -> None:
    server = edited(tars_server(), spec__k8s__replica=3)
    text, violations = check(server)
    assert_one(violations, "TS021", "spec.k8s.replica", line_of(text, "replica: 3"))


def test_ts021_pattern_violation_keeps_the_name_for_other_rules() -> None:
    server = edited(tars_server(), spec__tars__servants=[{"name": "Bad-Obj", "port": 1}])
    text, violations = check(server)
    v = assert_one(
        violations, "TS021", "spec.tars.servants[0].name", line_of(text, "name: Bad-Obj")
    )
    assert v.name == "test-demotest"


def test_ts021_not_reported_for_a_valid_server() -> None:
    assert only(check(tars_server())[1], "TS021") == []


def test_tt006_content_is_not_a_string() -> None:
    text, violations = check(edited(template("tars.go"), spec__content=5))
    assert_one(violations, "TT006", "spec.content", line_of(text, "content: 5"))


def test_tt006_not_reported_for_a_valid_template() -> None:
    assert only(check(template("tars.go", "tars.default"))[1], "TT006") == []


@pytest.mark.parametrize(("parent", "needle"), [("", "parent: ''"), (DROP, "name: tars.go")])
def test_tt001_missing_or_empty_parent_from_the_loader(parent: object, needle: str) -> None:
    text, violations = check(edited(template("tars.go"), spec__parent=parent))
    line = line_of(text, needle) + (1 if parent is DROP else 0)  # the `spec:` line
    assert_one(violations, "TT001", "spec.parent", line)
    assert [v.code for v in violations] == ["TT001"]


def test_tf001_missing_node_image_and_out_of_range() -> None:
    config = edited(framework(), nodeImage=DROP, imageBuild__maxBuildTime=10)
    text = render(config)
    violations = validate(load(text))
    assert [(v.code, v.field, v.line) for v in violations] == [
        ("TF001", "nodeImage", 1),
        ("TF001", "imageBuild.maxBuildTime", line_of(text, "maxBuildTime: 10")),
    ]


def test_tf001_not_reported_for_a_valid_config() -> None:
    assert validate(load(render(framework()))) == []


@pytest.mark.parametrize("identity", [{"kind": ["TServer"]}, {"apiVersion": {"v": 1}}])
def test_unhashable_kind_is_a_load_error(identity: dict) -> None:
    """A list or mapping as kind/apiVersion is input that cannot be read: LoadError, exit 2."""
    text = render({**template("tars.go"), **identity})
    with pytest.raises(LoadError) as caught:
        load(text)
    assert [(p.file, p.line) for p in caught.value.problems] == [("stack.yaml", 1)]
