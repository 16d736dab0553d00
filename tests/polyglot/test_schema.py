"""The package schema: Pulumi's own analyzer infers it from the components' annotations and
docstrings, and ``plugin/schema.json`` is exactly that (``tools/gen_plugin_schema.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pulumi.provider.experimental.component", reason="needs pulumi>=3.166")

from pulumi.provider.experimental.analyzer import Analyzer

from tars_components.polyglot.components import COMPONENTS
from tars_components.polyglot.host import PACKAGE, comparable, package_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "plugin" / "schema.json"


def test_the_analysis_succeeds_and_equals_the_committed_schema() -> None:
    result: Any = Analyzer(PACKAGE).analyze(COMPONENTS)
    # a mapping since pulumi 3.170, (components, types) before
    definitions = result["component_definitions"] if isinstance(result, dict) else result[0]
    assert sorted(definitions) == sorted(c.__name__ for c in COMPONENTS)
    committed = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert comparable(committed) == comparable(package_schema())


def test_the_generator_check_passes() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_plugin_schema.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _undescribed(where: str, properties: dict[str, Any]) -> Iterator[str]:
    for name, spec in properties.items():
        if not spec.get("description", "").strip():
            yield f"{where}.{name}"


def test_every_component_type_and_field_has_a_description() -> None:
    schema = package_schema()
    missing: list[str] = []
    for token, resource in schema["resources"].items():
        if not resource.get("description", "").strip():
            missing.append(token)
        missing += _undescribed(f"{token} input", resource.get("inputProperties", {}))
        missing += _undescribed(f"{token} output", resource.get("properties", {}))
    for token, type_ in schema["types"].items():
        if not type_.get("description", "").strip():
            missing.append(token)
        missing += _undescribed(token, type_.get("properties", {}))
    assert missing == []


def test_the_args_are_plain_inputs_with_the_tserver_sections_typed() -> None:
    schema = package_schema()
    server = schema["resources"]["tars:index:TServer"]
    assert server["requiredInputs"] == ["app", "framework", "server"]
    assert server["inputProperties"]["tars"]["$ref"] == "#/types/tars:index:TarsSpec"
    servant = schema["types"]["tars:index:Servant"]
    assert servant["required"] == ["name", "port"]
    assert servant["properties"]["port"]["type"] == "integer"
    sub_type = schema["types"]["tars:index:SubType"]
    assert [e["value"] for e in sub_type["enum"]] == ["tars", "normal"]
    assert schema["resources"]["tars:index:TFramework"]["inputProperties"]["mode"]["$ref"] == (
        "#/types/tars:index:Mode"
    )
