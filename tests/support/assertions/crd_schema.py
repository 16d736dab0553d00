"""The TarsK8S CRD schemas of K8SFramework v1.4.1 (``tarsk8s/crd-schemas`` of the shared folder,
see ``upstream.py``; a test using them is skipped when it is absent) as strict JSON Schema
validators.

What the API server checks is the CRD's ``openAPIV3Schema``; unknown fields it would prune
(silently losing them), so these validators also refuse unknown fields
(``additionalProperties: false`` wherever the schema lists properties). ``\\p{Han}`` (not
supported by Python's ``re``) becomes the CJK ideograph ranges.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema

from support.assertions.upstream import shared

HAN = (
    "\u2e80-\u2e99\u2e9b-\u2ef3\u2f00-\u2fd5\u3005\u3007\u3021-\u3029\u3038-\u303b"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufa6d\ufa70-\ufad9\U00020000-\U0003134a"
)
TOP_LEVEL = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {}}


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strict(v) for k, v in node.items() if not k.startswith("x-kubernetes")}
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if "pattern" in out:
        out["pattern"] = out["pattern"].replace("\\p{Han}", HAN)
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


@cache
def validator(kind: str, version: str) -> jsonschema.protocols.Validator:
    """A validator of one kind's custom resource in ``version`` (``v1beta2``/``v1beta3``)."""
    crd = json.loads((shared("tarsk8s", "crd-schemas") / f"{kind}.json").read_text("utf-8"))
    schema = _strict(crd["versions"][version])
    schema["properties"] = {**TOP_LEVEL, **schema["properties"]}
    schema["required"] = sorted({"apiVersion", "kind", "metadata", *schema.get("required", [])})
    return jsonschema.Draft7Validator(schema)


def crd_errors(obj: dict[str, Any]) -> list[str]:
    """Why the API server would reject (or prune) ``obj``; empty when it is valid."""
    version = str(obj["apiVersion"]).rsplit("/", 1)[-1]
    found = validator(str(obj["kind"]), version).iter_errors(obj)
    return sorted(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in found)
