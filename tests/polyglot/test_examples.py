"""The consumer examples: ``examples/typescript`` (its hand-written declarations of the
package agree with the schema; ``tsc`` type-checks the program against them) and
``examples/yaml`` (a Pulumi YAML program whose resources are components of the schema with
their required inputs)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA: dict[str, Any] = json.loads((ROOT / "plugin" / "schema.json").read_text(encoding="utf-8"))
TYPESCRIPT = ROOT / "examples" / "typescript"
DECLARATIONS = TYPESCRIPT / "sdks" / "tars" / "index.d.ts"
YAML_PROGRAM = ROOT / "examples" / "yaml" / "Pulumi.yaml"
PREFIX = "tars:index:"


def _blocks(text: str, opener: str) -> dict[str, str]:
    """``{name: body}`` of each ``<opener> <Name> ... { body }`` of the declarations."""
    pattern = re.compile(rf"^export (?:declare )?{opener} (\w+)[^{{]*\{{\n(.*?)^\}}", re.M | re.S)
    return {m.group(1): m.group(2) for m in pattern.finditer(text)}


def _members(body: str) -> dict[str, tuple[bool, bool]]:
    """``{property: (optional, plain)}`` of an interface body: plain unless the whole type is
    a ``pulumi.Input<...>`` (``pulumi.Input<string>[]`` is a plain array of Inputs)."""
    found: dict[str, tuple[bool, bool]] = {}
    for m in re.finditer(r"^\s+(?:readonly )?(\w+)(\??): (.+);$", body, re.M):
        text = m.group(3)
        plain = not text.startswith("pulumi.Input<") or text.endswith("[]")
        found[m.group(1)] = (m.group(2) == "?", plain)
    return found


def _expected(properties: dict[str, Any], required: list[str]) -> dict[str, tuple[bool, bool]]:
    return {
        name: (name not in required, bool(spec.get("plain"))) for name, spec in properties.items()
    }


DECLARED = DECLARATIONS.read_text(encoding="utf-8")
INTERFACES = _blocks(DECLARED, "interface")
CLASSES = _blocks(DECLARED, "class")


@pytest.mark.parametrize("token", sorted(SCHEMA["resources"]))
def test_each_component_is_declared_as_the_schema_says(token: str) -> None:
    resource = SCHEMA["resources"][token]
    name = token.removeprefix(PREFIX)
    declared = _members(INTERFACES[f"{name}Args"])
    assert declared == _expected(resource["inputProperties"], resource.get("requiredInputs", []))
    outputs = {m for m in _members(CLASSES[name]) if m != "constructor"}
    assert outputs == set(resource["properties"])


@pytest.mark.parametrize("token", sorted(SCHEMA["types"]))
def test_each_type_is_declared_as_the_schema_says(token: str) -> None:
    type_ = SCHEMA["types"][token]
    name = token.removeprefix(PREFIX)
    if "enum" in type_:
        found = re.search(rf"export declare const {name}: \{{(.*?)\}};", DECLARED, re.S)
        assert found is not None, f"enum {name} is not declared"
        pairs = dict(re.findall(r"readonly (\w+): \"([^\"]+)\"", found.group(1)))
        assert pairs == {e["name"]: e["value"] for e in type_["enum"]}
        return
    declared = _members(INTERFACES[f"{name}Args"])
    assert declared == _expected(type_["properties"], type_.get("required", []))


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


def _node_modules() -> Path | None:
    """Where ``typescript`` and ``@pulumi/pulumi`` are installed: ``$TARS_TS_NODE_MODULES``,
    else ``examples/typescript/node_modules`` (``npm install`` there)."""
    env = os.environ.get("TARS_TS_NODE_MODULES")
    candidate = Path(env) if env else TYPESCRIPT / "node_modules"
    if (candidate / ".bin" / "tsc").exists() and (candidate / "@pulumi" / "pulumi").is_dir():
        return candidate
    return None


NODE_MODULES = _node_modules()
needs_tsc = pytest.mark.skipif(
    NODE_MODULES is None or shutil.which("node") is None,
    reason="no typescript and @pulumi/pulumi: npm install in examples/typescript "
    "(or set TARS_TS_NODE_MODULES)",
)


def _tsc(tmp_path: Path, program: str) -> subprocess.CompletedProcess[str]:
    assert NODE_MODULES is not None
    for name in ("tsconfig.json", "sdks"):
        source = TYPESCRIPT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name)
        else:
            shutil.copy(source, tmp_path / name)
    (tmp_path / "index.ts").write_text(program, encoding="utf-8")
    (tmp_path / "node_modules").symlink_to(NODE_MODULES)
    return subprocess.run(
        [str(NODE_MODULES / ".bin" / "tsc"), "--noEmit", "-p", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=1800,  # a hang guard: slow while the other CI leg shares the cores
        check=False,
    )


@needs_tsc
def test_the_typescript_example_type_checks(tmp_path: Path) -> None:
    done = _tsc(tmp_path, (TYPESCRIPT / "index.ts").read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stdout + done.stderr


@needs_tsc
def test_tsc_refuses_a_port_given_as_text(tmp_path: Path) -> None:
    program = (TYPESCRIPT / "index.ts").read_text(encoding="utf-8")
    broken = program.replace("port: 10000, thread: 5", 'port: "10000", thread: 5')
    assert broken != program
    done = _tsc(tmp_path, broken)
    assert done.returncode != 0
    assert "Type 'string' is not assignable to type 'Input<number>'" in done.stdout
