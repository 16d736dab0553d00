"""crd mode: the mutated TarsK8S documents as custom resources, in the chosen served version.

Only TServer and TFrameworkConfig differ between v1beta2 and v1beta3 (reference §2.2, §2.4);
the conversion follows the TarsK8S conversion webhook, including the
``tars.io/Conversion.1b21b3`` annotation that carries what v1beta2 cannot express.
"""

from __future__ import annotations

import json
from typing import Any

from ..models import V1BETA2, V1BETA3, Document, TFrameworkConfig, TServer, TTemplate
from ..mutation import mutate, mutate_server, mutate_template
from ..options import Options
from ..stack import Stack

CONVERSION_ANNOTATION = "tars.io/Conversion.1b21b3"


def crd_documents(stack: Stack, options: Options = Options()) -> list[dict[str, Any]]:
    """The mutated TFrameworkConfigs, TTemplates and TServers (in that order, each in load
    order) as custom-resource dicts of ``options.crd_api_version``."""
    mutated = mutate(stack)
    ordered: list[Document] = [*mutated.frameworks, *mutated.templates, *mutated.servers]
    return [convert(doc.to_dict(), options.crd_api_version) for doc in ordered]


def crd_document(
    document: Document, framework: TFrameworkConfig | None, options: Options
) -> dict[str, Any]:
    """One document as its custom resource: mutated (a TServer with the namespace's
    ``tars-framework`` config) and converted to ``options.crd_api_version``."""
    if isinstance(document, TServer):
        document = mutate_server(document, framework)
    elif isinstance(document, TTemplate):
        document = mutate_template(document)
    return convert(document.to_dict(), options.crd_api_version)


def convert(document: dict[str, Any], api_version: str) -> dict[str, Any]:
    """A TarsK8S document converted to ``api_version`` (a copy; the input is not changed)."""
    doc = _copy_tree(document)
    source = doc.get("apiVersion")
    doc["apiVersion"] = api_version
    if source == api_version:
        return doc
    kind = doc.get("kind")
    if kind == TServer.KIND:
        return _server_to_v1beta3(doc) if api_version == V1BETA3 else _server_to_v1beta2(doc)
    if kind == TFrameworkConfig.KIND:
        if api_version == V1BETA3:
            return _framework_to_v1beta3(doc)
        return _framework_to_v1beta2(doc)
    if kind == TTemplate.KIND:
        return doc
    raise ValueError(f"cannot convert kind {kind!r}")


def _copy_tree(value: Any) -> Any:
    """A copy of the mappings and lists; leaves (possibly ``pulumi.Output`` values) are
    shared."""
    if isinstance(value, dict):
        return {key: _copy_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_tree(item) for item in value]
    return value


def _pop_conversion(doc: dict[str, Any]) -> dict[str, Any]:
    annotations = doc.get("metadata", {}).get("annotations") or {}
    raw = annotations.pop(CONVERSION_ANNOTATION, None)
    if not annotations and "annotations" in doc.get("metadata", {}):
        del doc["metadata"]["annotations"]
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _put_conversion(doc: dict[str, Any], data: dict[str, Any]) -> None:
    if not data:
        return
    meta = doc.setdefault("metadata", {})
    annotations = meta.get("annotations") or {}
    annotations[CONVERSION_ANNOTATION] = json.dumps(data, sort_keys=True, separators=(",", ":"))
    meta["annotations"] = annotations


def _server_to_v1beta3(doc: dict[str, Any]) -> dict[str, Any]:
    k8s = doc["spec"]["k8s"]
    gate = k8s.pop("readinessGate", None)
    append = _pop_conversion(doc).get("append", {})
    gates = ([gate] if gate else []) + list(append.get("readinessGates") or [])
    k8s["readinessGates"] = list(dict.fromkeys(gates))
    for key in ("command", "args"):
        if append.get(key) is not None:
            k8s[key] = append[key]
    return doc


def _server_to_v1beta2(doc: dict[str, Any]) -> dict[str, Any]:
    k8s = doc["spec"]["k8s"]
    gates = k8s.pop("readinessGates", None) or []
    append: dict[str, Any] = {}
    for key in ("command", "args"):
        value = k8s.pop(key, None)
        if value is not None:
            append[key] = value
    if gates:
        k8s["readinessGate"] = gates[0]
        if gates[1:]:
            append["readinessGates"] = gates[1:]
    _put_conversion(doc, {"append": append} if append else {})
    return doc


def _framework_to_v1beta3(doc: dict[str, Any]) -> dict[str, Any]:
    if "imageRegistry" in doc:
        doc["imageUpload"] = doc.pop("imageRegistry")
    executor = _pop_conversion(doc).get("executor")
    if executor is not None:
        doc.setdefault("imageBuild", {})["executor"] = executor
    return doc


def _framework_to_v1beta2(doc: dict[str, Any]) -> dict[str, Any]:
    if "imageUpload" in doc:
        doc["imageRegistry"] = doc.pop("imageUpload")
    executor = (doc.get("imageBuild") or {}).pop("executor", None)
    if executor is not None:
        _put_conversion(doc, {"executor": executor})
    return doc


__all__ = [
    "CONVERSION_ANNOTATION",
    "V1BETA2",
    "V1BETA3",
    "convert",
    "crd_document",
    "crd_documents",
]
