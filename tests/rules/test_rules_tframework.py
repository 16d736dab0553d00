"""TFrameworkConfig rules TF002 (a warning) and TF003."""

from __future__ import annotations

from support.builders.rules import assert_one, framework, line_of, load, render

from tars_components.kernel.errors import Severity
from tars_components.rules import validate


def test_tf002_config_with_another_name_is_ignored() -> None:
    text = render(framework(), framework("my-framework"))
    violations = validate(load(text))
    v = assert_one(
        violations, "TF002", "metadata.name", line_of(text, "name: my-framework"), Severity.WARNING
    )
    assert v.message == (
        "TFrameworkConfig my-framework is ignored: TarsK8S reads only the one named tars-framework"
    )


def test_tf003_second_tars_framework_in_a_namespace() -> None:
    text = render(framework(), framework())
    violations = validate(load(text))
    v = assert_one(
        violations,
        "TF003",
        "metadata.name",
        line_of(text, "name: tars-framework", 2),
        Severity.ERROR,
    )
    assert "TFrameworkConfig tars-dev/tars-framework is already defined" in v.message


def test_tf002_one_tars_framework_per_namespace_passes() -> None:
    text = render(framework(), framework(namespace="other"), framework(namespace="third"))
    assert validate(load(text)) == []
