"""Strict validators of the workload engines' objects (``--workload kruise|tapp``).

* OpenKruise's Advanced StatefulSet: the ``openAPIV3Schema`` of its CRD in
  ``thirdparty-crds/`` of the shared folder (skipped when absent), unknown fields refused;
* TApp: its CRD has no schema, so :data:`TAPP_SCHEMA` is written here from the TApp Go types
  (``TAppSpec``, ``TAppUpdateStrategy``, ``InstanceStatus``) the TApp seed document walks
  through; unknown fields refused.

Pod templates (``template``, each of ``templatePool``) are preserved as they are by both CRDs:
:func:`pod_template_errors` checks them with the Kubernetes OpenAPI schema instead, inside an
``apps/v1`` StatefulSet.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

from support.assertions.crd_schema import _strict as strict
from support.assertions.upstream import shared

KUBERNETES_VERSION = "1.30"

_INT_OR_STRING = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
_OBJECT = {"type": "object"}
_META = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "namespace": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "additionalProperties": False,
}

INSTANCE_STATUSES = [
    "NotCreated",
    "Pending",
    "Running",
    "Updating",
    "PodFailed",
    "PodSucc",
    "Killing",
    "Killed",
    "Failed",
    "Succ",
    "Unknown",
]

TAPP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "apps.tkestack.io/v1"},
        "kind": {"const": "TApp"},
        "metadata": _META,
        "spec": {
            "type": "object",
            "required": ["replicas", "template"],
            "additionalProperties": False,
            "properties": {
                "replicas": {"type": "integer", "minimum": 0, "maximum": 2147483647},
                "selector": _OBJECT,
                "template": _OBJECT,
                "templatePool": {"type": "object", "additionalProperties": _OBJECT},
                "statuses": {
                    "type": "object",
                    "propertyNames": {"pattern": "^(0|[1-9][0-9]*)$"},
                    "additionalProperties": {"enum": INSTANCE_STATUSES},
                },
                "templates": {
                    "type": "object",
                    "propertyNames": {"pattern": "^(0|[1-9][0-9]*)$"},
                    "additionalProperties": {"type": "string"},
                },
                "updateStrategy": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "template": {"type": "string"},
                        "maxUnavailable": _INT_OR_STRING,
                        "forceUpdate": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {"maxUnavailable": _INT_OR_STRING},
                        },
                    },
                },
                "forceDeletePod": {"type": "boolean"},
                "autoDeleteUnusedTemplate": {"type": "boolean"},
                "neverMigrate": {"type": "boolean"},
                "volumeClaimTemplates": {"type": "array", "items": _OBJECT},
                "serviceName": {"type": "string"},
                "defaultTemplateName": {"type": "string"},
            },
        },
    },
}
"""The TApp object as its Go types define it (``json`` tags; ``status`` is the controller's)."""


@cache
def kruise_validator() -> jsonschema.protocols.Validator:
    """The v1beta1 schema of the Advanced StatefulSet CRD, strict."""
    path = shared("thirdparty-crds", "kruise.apps.kruise.io_statefulsets.yaml")
    crd = yaml.safe_load(path.read_text("utf-8"))
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta1")
    schema = strict(version["schema"]["openAPIV3Schema"])
    schema["properties"]["metadata"] = _META
    schema.pop("additionalProperties", None)
    schema["additionalProperties"] = False
    return jsonschema.Draft7Validator(schema)


def _errors(validator: jsonschema.protocols.Validator, obj: dict[str, Any]) -> list[str]:
    found = validator.iter_errors(obj)
    return sorted(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in found)


def kruise_errors(obj: dict[str, Any]) -> list[str]:
    """Why the API server would reject (or prune) an Advanced StatefulSet; empty if valid."""
    return _errors(kruise_validator(), obj) + pod_template_errors(obj["spec"]["template"])


def tapp_errors(obj: dict[str, Any]) -> list[str]:
    """Why ``obj`` is not a TApp of the Go types, or holds an invalid pod template."""
    found = _errors(jsonschema.Draft7Validator(TAPP_SCHEMA), obj)
    spec = obj.get("spec") or {}
    templates = [spec.get("template") or {}, *(spec.get("templatePool") or {}).values()]
    for template in templates:
        found.extend(pod_template_errors(template))
    return found


def pod_template_errors(template: dict[str, Any]) -> list[str]:
    """A pod template checked by the Kubernetes OpenAPI schema, strictly (inside a
    StatefulSet, the smallest object holding one)."""
    labels = (template.get("metadata") or {}).get("labels") or {"app": "x"}
    holder = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "holder"},
        "spec": {
            "serviceName": "holder",
            "selector": {"matchLabels": labels},
            "template": template,
        },
    }
    try:
        kubernetes_validate.validate(holder, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        return [f"template {'.'.join(map(str, exc.path))}: {exc.message}"]
    return []
