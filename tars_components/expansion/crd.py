"""crd mode: the mutated TarsK8S documents as custom resources, in the chosen served version.

Only TServer and TFrameworkConfig differ between v1beta2 and v1beta3 (reference §2.2, §2.4);
the conversion follows the TarsK8S conversion webhook, including the
``tars.io/Conversion.1b21b3`` annotation that carries what v1beta2 cannot express.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import Violation
from ..loader import VERSION_REQUIRED_FIELDS
from ..models import V1BETA2, V1BETA3, Document, TFrameworkConfig, TServer, TTemplate
from ..models.base import P_IMAGE_OR_EMPTY
from ..mutation import mutate_server, mutate_template
from ..options import Options
from ..stack import Stack, violation

CONVERSION_ANNOTATION = "tars.io/Conversion.1b21b3"


def crd_documents(stack: Stack, options: Options = Options()) -> list[dict[str, Any]]:
    """The TFrameworkConfigs, TTemplates and TServers (in that order, each in load order) as
    the custom resources of ``options.crd_api_version`` that the TarsK8S webhook admits."""
    ordered: list[Document] = [*stack.frameworks, *stack.templates, *stack.servers]
    return [crd_document(doc, stack.framework(doc.namespace), options) for doc in ordered]


def crd_document(
    document: Document, framework: TFrameworkConfig | None, options: Options
) -> dict[str, Any]:
    """One document as its custom resource of ``options.crd_api_version``.

    A TServer is mutated as written (so v1beta3 gates survive in the conversion annotation),
    converted, then mutated again as the target version's webhook would (e.g. v1beta3 adds
    ``tars.io/ServerID``); ``framework`` is its namespace's ``tars-framework`` config.
    """
    version = options.crd_api_version
    if isinstance(document, TServer):
        converted = convert(mutate_server(document, framework).to_dict(), version)
        target = TServer.model_validate(converted)
        return mutate_server(target, framework).to_dict()
    if isinstance(document, TTemplate):
        return convert(mutate_template(document).to_dict(), version)
    return convert(document.to_dict(), version)


def conversion_violations(stack: Stack, options: Options) -> list[Violation]:
    """What the target version's CRD requires but the conversion cannot supply (crd mode):
    a v1beta2 TFrameworkConfig has no ``imageBuild.executor``, which v1beta3 requires."""
    found: list[Violation] = _crd_image_violations(stack)
    for config in stack.frameworks:
        converted = convert(config.to_dict(), options.crd_api_version)
        key = (TFrameworkConfig.KIND, options.crd_api_version)
        missing: list[tuple[str, ...]] = []
        for path in VERSION_REQUIRED_FIELDS.get(key, ()):
            if any(path[: len(m)] == m for m in missing):
                continue  # its parent is already reported
            if _lookup(converted, path) is None:
                missing.append(path)
                found.append(
                    violation(
                        config,
                        "TF001",
                        path,
                        f"crd mode writes {options.crd_api_version}, which requires "
                        f"{'.'.join(path)}: add it, or write this TFrameworkConfig as "
                        f"{options.crd_api_version}",
                    )
                )
    return found


def _crd_image_violations(stack: Stack) -> list[Violation]:
    """TS021 for release images that the TServer CRD's own pattern refuses (``@``, uppercase,
    ``_``): a digest-pinned image is fine in expand mode, but the cluster rejects it in a
    TServer custom resource."""
    crd_pattern = re.compile(P_IMAGE_OR_EMPTY)
    found: list[Violation] = []
    for server in stack.servers:
        release = server.spec.release
        if release is None:
            continue
        for field, value in (("image", release.image), ("nodeImage", release.node_image)):
            if isinstance(value, str) and not crd_pattern.match(value):
                found.append(
                    violation(
                        server,
                        "TS021",
                        ("spec", "release", field),
                        "crd mode: the TServer CRD accepts only lowercase letters, digits and "
                        "- . / : in images (no digest '@', uppercase or '_'); use expand mode "
                        "or a tag",
                    )
                )
    return found


def _lookup(document: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = document
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


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
    "conversion_violations",
    "convert",
    "crd_document",
    "crd_documents",
]
