"""The package schema: Pulumi's own analyzer infers it from the components' annotations and
docstrings, and ``plugin/schema.json`` is exactly that (``tools/gen_plugin_schema.py``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pulumi.provider.experimental.component", reason="needs pulumi>=3.166")

from pulumi.provider.experimental.analyzer import Analyzer
from support.assertions.upstream import shared

import tars_components
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


def test_the_schema_is_valid_against_pulumis_package_metaschema() -> None:
    """``pkg/codegen/schema/pulumi.json`` (its ECMAScript named groups written as Python's)."""
    jsonschema = pytest.importorskip("jsonschema")
    text = shared("pulumi", "pulumi-package-metaschema.json").read_text(encoding="utf-8")
    metaschema = json.loads(re.sub(r"\(\?<(?=[A-Za-z])", "(?P<", text))
    validator = jsonschema.Draft202012Validator(metaschema)
    for schema in (json.loads(SCHEMA.read_text(encoding="utf-8")), package_schema()):
        errors = [f"{list(e.path)}: {e.message[:200]}" for e in validator.iter_errors(schema)]
        assert errors == []


def test_the_schema_is_a_registry_entry() -> None:
    """Metadata, a scope of ours for Node, a Go import path, a C# namespace, the package's own
    version, and Markdown descriptions (no reStructuredText left)."""
    schema = package_schema()
    for key in ("publisher", "repository", "license", "keywords", "description", "homepage"):
        assert schema[key], key
    assert schema["version"] == tars_components.__version__
    language = schema["language"]
    assert language["nodejs"]["packageName"].startswith("@tars-components/")
    assert language["go"]["importBasePath"].startswith("github.com/")
    assert language["csharp"]["rootNamespace"] == "TarsComponents"
    leftovers = [d for d in _descriptions(schema) if re.search(r"``|:[a-z]+:`", d)]
    assert leftovers == []
    assert "`spec.authentication.activated`" in json.dumps(schema)


def _descriptions(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "description" and isinstance(item, str):
                yield item
            else:
                yield from _descriptions(item)
    elif isinstance(value, list):
        for item in value:
            yield from _descriptions(item)
