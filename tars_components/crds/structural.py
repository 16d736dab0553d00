"""JSON Schema (the editor schemas of :mod:`tars_components.crds.editor_schema`) → a Kubernetes
structural schema (a CRD version's ``openAPIV3Schema``).

The editor schema is generated from the pydantic models, so the CRDs follow the same rules as
``validate`` and the editors. The conversion inlines ``$ref``, drops the ``null`` branch of
optional fields, ``null`` defaults, titles and descriptions, and keeps what the API server
reads: ``type``, ``properties``, ``required``, ``items``, ``additionalProperties``, ``enum``,
``default``, ``pattern``, ``maxLength``/``minLength``, ``minimum``/``maximum``, ``minItems``
and ``format``. A field that takes an integer or a string becomes
``x-kubernetes-int-or-string``; a string or a stack file's secret reference becomes the
string.
"""

from __future__ import annotations

from typing import Any

_KEPT = (
    "default",
    "enum",
    "format",
    "maxItems",
    "maxLength",
    "maximum",
    "minItems",
    "minLength",
    "minimum",
    "pattern",
)


def structural(schema: dict[str, Any]) -> dict[str, Any]:
    """The structural form of a draft-07 JSON Schema whose ``$ref`` point into its own
    ``definitions``."""
    return _convert(schema, schema.get("definitions", {}))


def _convert(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if len(node.get("allOf", ())) == 1:
        # pydantic before 2.9 wraps a $ref that has siblings (a default) in allOf
        outer = {k: v for k, v in node.items() if k != "allOf"}
        return _convert({**node["allOf"][0], **outer}, defs)
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        return _convert({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs)
    options = [o for o in node.get("anyOf", []) if o.get("type") != "null"]
    if len(options) == 1:
        outer = {k: v for k, v in node.items() if k != "anyOf"}
        return _convert({**options[0], **outer}, defs)
    out: dict[str, Any] = {}
    types = {o.get("type") for o in options}
    if types == {"integer", "string"}:
        # IntOrQuantity
        out["x-kubernetes-int-or-string"] = True
        for option in options:
            out.update({k: option[k] for k in _KEPT if k in option})
    elif options:
        # a string or a reference only a stack file holds (``{configSecret: KEY}``): what
        # reaches the cluster is the string
        string = next(o for o in options if o.get("type") == "string")
        return _convert({**string, **{k: v for k, v in node.items() if k != "anyOf"}}, defs)
    elif "type" in node:
        out["type"] = node["type"]
    elif "enum" in node:
        out["type"] = "string"
    for key in _KEPT:
        if key in node and not (key == "default" and node[key] is None):
            out[key] = node[key]
    if "properties" in node:
        out["type"] = "object"
        out["properties"] = {k: _convert(v, defs) for k, v in node["properties"].items()}
        if node.get("required"):
            out["required"] = list(node["required"])
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        out["type"] = "object"
        out["additionalProperties"] = _convert(extra, defs)
    if "items" in node:
        out["items"] = _convert(node["items"], defs)
    return out
