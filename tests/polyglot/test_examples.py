"""The consumer examples, read without the Pulumi CLI: ``examples/yaml`` (a Pulumi YAML
program whose resources are components of the schema with their required inputs), the
TypeScript and Go programs name components of the schema, and every example and the plugin
install the pulumi-kubernetes of the provider the real-engine suite runs. The real engine
installs, type-checks and runs them: tests/e2e/test_languages.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import tomllib
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA: dict[str, Any] = json.loads((ROOT / "plugin" / "schema.json").read_text(encoding="utf-8"))
EXAMPLES = ROOT / "examples"
YAML_PROGRAM = ROOT / "examples" / "yaml" / "Pulumi.yaml"
PREFIX = "tars:index:"


def test_the_yaml_program_uses_components_of_the_schema_with_their_required_inputs() -> None:
    program = yaml.safe_load(YAML_PROGRAM.read_text(encoding="utf-8"))
    assert program["runtime"] == "yaml"
    assert program["packages"] == {"tars": "../../plugin"}
    types = []
    for name, resource in program["resources"].items():
        schema = SCHEMA["resources"][resource["type"]]
        given = set(resource["properties"])
        assert given <= set(schema["inputProperties"]), name
        assert set(schema.get("requiredInputs", [])) <= given, name
        types.append(resource["type"])
    assert types == [f"{PREFIX}TFramework", f"{PREFIX}TTemplate", f"{PREFIX}TServer"]


@pytest.mark.parametrize(
    ("program", "pattern"),
    [
        ("typescript/index.ts", r"new tars\.(\w+)\("),
        ("go/main.go", r"tars\.New(\w+)\(ctx"),
    ],
)
def test_the_programs_declare_components_of_the_schema(program: str, pattern: str) -> None:
    text = (EXAMPLES / program).read_text(encoding="utf-8")
    kinds = re.findall(pattern, text)
    assert kinds == ["TFramework", "TTemplate", "TServer"]
    assert {f"{PREFIX}{k}" for k in kinds} <= set(SCHEMA["resources"])


@pytest.mark.parametrize("language", ["typescript", "go", "yaml"])
def test_the_programs_use_the_plugin_of_this_repository(language: str) -> None:
    project = yaml.safe_load((EXAMPLES / language / "Pulumi.yaml").read_text(encoding="utf-8"))
    assert project["packages"] == {"tars": "../../plugin"}


def test_the_typescript_program_depends_on_the_sdk_pulumi_install_generates() -> None:
    manifest = json.loads((EXAMPLES / "typescript" / "package.json").read_text(encoding="utf-8"))
    assert manifest["dependencies"]["@tars-components/tars"] == "file:sdks/tars"
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "examples/*/sdks/" in ignored, "the SDKs are generated, not committed"


@pytest.mark.parametrize(
    "requirements", ["plugin/requirements.txt", "examples/consumer/requirements.txt"]
)
def test_pulumi_kubernetes_is_the_version_of_the_e2e_provider(requirements: str) -> None:
    """The engine takes a provider plugin of exactly the SDK's version: the plugin and the
    Python example pin the one tools/e2e builds."""
    versions = tomllib.loads((ROOT / "tools" / "e2e" / "versions.toml").read_text(encoding="utf-8"))
    pin = versions["pulumi-resource-kubernetes"]["python_sdk"]
    lines = (ROOT / requirements).read_text(encoding="utf-8").splitlines()
    assert pin in [line.strip() for line in lines if not line.startswith("#")]
