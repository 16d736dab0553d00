"""``tars-components schema``: JSON Schemas of the stack documents, for editors.

One schema per kind and served version (``tserver.v1beta3.json``, …), generated from the
pydantic models (so it cannot drift from what ``validate`` accepts) with what differs between
versions applied (``readinessGate``/``readinessGates``, ``imageRegistry``/``imageUpload``, …),
plus ``stack.json``, which picks the right one by ``apiVersion`` and ``kind`` so that a file
holding several kinds is checked as a whole. yaml-language-server (VS Code's YAML extension,
Neovim, JetBrains via LSP) uses them for completion, hover docs and validation while typing;
see docs/editor-support.md for the modeline and the settings.

Deferred fields (values that a Pulumi program may give as outputs) accept any value here; the
CRD pattern is checked by ``validate``. Fields a live cluster writes (``status``,
``metadata.uid``, …) are accepted, as the loader ignores them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..loading.documents import VERSION_ONLY_FIELDS, VERSION_REQUIRED_FIELDS
from ..models import API_VERSIONS, KINDS

STACK_SCHEMA = "stack.json"
DRAFT = "http://json-schema.org/draft-07/schema#"


def schema_file(kind: str, api_version: str) -> str:
    """File name of one kind's schema: ``tserver.v1beta3.json``."""
    return f"{kind.lower()}.{api_version.rsplit('/', 1)[-1]}.json"


def kind_schema(kind: str, api_version: str) -> dict[str, Any]:
    """The JSON Schema (draft-07) of one kind in one served version."""
    generated = KINDS[kind].model_json_schema(by_alias=True, mode="validation")
    # draft-07 (what yaml-language-server reads best) calls $defs "definitions"
    schema: dict[str, Any] = json.loads(
        json.dumps(generated).replace('"#/$defs/', '"#/definitions/')
    )
    defs = schema["definitions"] = schema.pop("$defs", {})
    props = schema["properties"]
    props["apiVersion"] = {"const": api_version, "description": "k8s.tars.io/v1beta2 or v1beta3"}
    props["kind"] = {"const": kind}
    props["status"] = {"description": "written by the cluster; ignored"}
    schema["required"] = sorted({"apiVersion", "kind", "metadata", *schema.get("required", [])})
    meta = defs.get("ObjectMeta")
    if meta is not None:
        meta["additionalProperties"] = True  # uid, managedFields, … of exports are ignored
        meta["required"] = ["name"]
    for path in VERSION_ONLY_FIELDS.get((kind, api_version), {}):
        parent = _object_at(schema, path[:-1])
        if parent is not None:
            parent.get("properties", {}).pop(path[-1], None)
    for path in VERSION_REQUIRED_FIELDS.get((kind, api_version), ()):
        parent = _object_at(schema, path[:-1])
        if parent is not None:
            parent["required"] = sorted({*parent.get("required", []), path[-1]})
    schema["$schema"] = DRAFT
    schema["$id"] = schema_file(kind, api_version)
    schema["title"] = f"{kind} ({api_version})"
    return schema


def _object_at(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    """The object schema at a property path, following ``$ref`` and ``anyOf`` (optional
    fields are ``anyOf: [{$ref}, {type: null}]``)."""
    node: dict[str, Any] | None = _resolve(schema, schema)
    for key in path:
        if node is None:
            return None
        child = node.get("properties", {}).get(key)
        node = _resolve(schema, child) if child is not None else None
    return node


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any] | None:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return _resolve(root, root["definitions"][name])
    for option in node.get("anyOf", []):
        if option.get("type") != "null":
            return _resolve(root, option)
    return node if "properties" in node else None


def stack_schema() -> dict[str, Any]:
    """``stack.json``: any stack document; TarsK8S ones are checked against their kind's
    schema (by ``apiVersion`` and ``kind``), plain Kubernetes objects pass."""
    branches = []
    for kind in KINDS:
        for api_version in API_VERSIONS:
            branches.append(
                {
                    "if": {
                        "properties": {
                            "apiVersion": {"const": api_version},
                            "kind": {"const": kind},
                        },
                        "required": ["apiVersion", "kind"],
                    },
                    "then": {"$ref": schema_file(kind, api_version)},
                }
            )
    return {
        "$schema": DRAFT,
        "$id": STACK_SCHEMA,
        "title": "tars-components stack document",
        "type": "object",
        "required": ["apiVersion", "kind"],
        "allOf": branches,
    }


def schema_files() -> dict[str, str]:
    """``{file name: JSON text}`` of every schema (pure, sorted, byte-stable)."""
    files = {
        schema_file(kind, api_version): kind_schema(kind, api_version)
        for kind in KINDS
        for api_version in API_VERSIONS
    }
    files[STACK_SCHEMA] = stack_schema()
    return {
        name: json.dumps(files[name], indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        for name in sorted(files)
    }


def write_schemas(out_dir: str | Path) -> list[str]:
    """Write :func:`schema_files` into ``out_dir`` (created if needed); the file names."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = schema_files()
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    return list(files)


__all__ = [
    "STACK_SCHEMA",
    "kind_schema",
    "schema_file",
    "schema_files",
    "stack_schema",
    "write_schemas",
]
