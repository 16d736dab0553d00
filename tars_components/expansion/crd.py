"""crd mode: the mutated TarsK8S documents as custom resources, in the chosen served version.

Only TServer and TFrameworkConfig differ between v1beta2 and v1beta3 (reference §2.2, §2.4);
the conversion follows the TarsK8S conversion webhook, including the
``tars.io/Conversion.1b21b3`` annotation that carries what v1beta2 cannot express.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from ..errors import Violation
from ..loader import VERSION_REQUIRED_FIELDS
from ..models import (
    V1BETA2,
    V1BETA3,
    Document,
    ExecutorRef,
    TFrameworkConfig,
    TServer,
    TTemplate,
    UpdateStrategyType,
)
from ..models.base import P_IMAGE_OR_EMPTY
from ..models.conversion import (
    CONVERSION_ANNOTATION,
    framework_annotation,
    read_framework_annotation,
    read_server_annotation,
    server_annotation,
)
from ..mutation import mutate_server, mutate_template
from ..options import Options
from ..rules.common import report
from ..stack import Stack, violation


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
    ``tars.io/ServerID``); ``framework`` is its namespace's ``tars-framework`` config. Its
    claim templates keep only the metadata both CRD versions declare (labels, annotations):
    the API server would prune a ``name`` or ``namespace`` (the seed's example has them).
    """
    version = options.crd_api_version
    if isinstance(document, TServer):
        converted = convert(mutate_server(document, framework).to_dict(), version)
        target = TServer.model_validate(converted)
        return _without_pruned_claim_metadata(mutate_server(target, framework).to_dict())
    if isinstance(document, TTemplate):
        return convert(mutate_template(document).to_dict(), version)
    return convert(document.to_dict(), version)


_CLAIM_TEMPLATE_METADATA = ("labels", "annotations")
"""What the TServer CRD (v1beta2 and v1beta3) declares in a persistentVolumeClaimTemplate's
metadata; anything else is pruned by the API server."""


def _without_pruned_claim_metadata(server: dict[str, Any]) -> dict[str, Any]:
    """``server`` with each claim template's metadata cut to labels and annotations (an
    emptied metadata left out), in place."""
    for mount in (server.get("spec") or {}).get("k8s", {}).get("mounts") or []:
        template = (mount.get("source") or {}).get("persistentVolumeClaimTemplate")
        if not isinstance(template, dict) or not isinstance(template.get("metadata"), dict):
            continue
        kept = {k: v for k, v in template["metadata"].items() if k in _CLAIM_TEMPLATE_METADATA}
        if kept:
            template["metadata"] = kept
        else:
            del template["metadata"]
    return server


def conversion_violations(stack: Stack, options: Options) -> list[Violation]:
    """What the target version's CRD requires but the conversion cannot supply (crd mode):
    a v1beta2 TFrameworkConfig has no ``imageBuild.executor`` (unless its conversion
    annotation carries one with an image), which v1beta3 requires (TF001); and a
    TFrameworkConfig written as v1beta2, which v1.4.1 cannot store (TF005)."""
    found: list[Violation] = _crd_pattern_violations(stack)
    if options.crd_api_version == V1BETA2:
        found.extend(
            report(
                config,
                "TF005",
                "apiVersion",
                "TarsK8S v1.4.1 cannot store a k8s.tars.io/v1beta2 TFrameworkConfig: its "
                "conversion webhook turns it into the storage version v1beta3 but stamps "
                "apiVersion k8s.tars.io/v1beta1 on the result, which the API server refuses "
                "as an invalid conversion response; render with --crd-api-version "
                "k8s.tars.io/v1beta3, or leave the TFrameworkConfig to the cluster "
                "(--existing-framework-config)",
            )
            for config in stack.frameworks
        )
    key = (TFrameworkConfig.KIND, options.crd_api_version)
    required = VERSION_REQUIRED_FIELDS.get(key, ())
    if options.crd_api_version == V1BETA3:
        required = (*required, ("imageBuild", "executor", "image"))
    for config in stack.frameworks:
        converted = convert(config.to_dict(), options.crd_api_version)
        missing: list[tuple[str, ...]] = []
        for path in required:
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
        executor = _lookup(converted, ("imageBuild", "executor"))
        if config.api_version == V1BETA2 and executor and not missing:
            try:  # restored from the conversion annotation, not checked by the loader
                ExecutorRef.model_validate(executor)
            except ValidationError as exc:
                found.append(
                    violation(
                        config,
                        "TF001",
                        ("metadata", "annotations", CONVERSION_ANNOTATION),
                        f"restores an imageBuild.executor that {options.crd_api_version} "
                        f"refuses: {exc.errors()[0]['msg']}",
                    )
                )
    return found


def refused_statefulset_violations(stack: Stack) -> list[Violation]:
    """TS025 (crd mode, warning): the v1.4.1 controller copies ``spec.k8s.updateStrategy``
    into the StatefulSet as it is. The CRD defaults ``rollingUpdate: {partition: 0}`` even
    under OnDelete, and the API server refuses a StatefulSet with OnDelete and a rollingUpdate
    block, or with a negative partition. Expand mode builds a valid one (no rollingUpdate
    under OnDelete, partition at least 0)."""
    found: list[Violation] = []
    for server in stack.servers:
        k8s = server.spec.k8s
        if k8s.daemon_set:
            continue
        strategy = k8s.update_strategy
        if strategy.type == UpdateStrategyType.ON_DELETE.value:
            found.append(
                report(
                    server,
                    "TS025",
                    "spec.k8s.updateStrategy.type",
                    "the TarsK8S v1.4.1 controller would build a StatefulSet that the API server "
                    "refuses: the CRD adds rollingUpdate {partition: 0} and the controller "
                    "copies it next to type OnDelete; use RollingUpdate with a partition, or "
                    "expand mode",
                )
            )
        elif strategy.rolling_update is not None and strategy.rolling_update.partition < 0:
            found.append(
                report(
                    server,
                    "TS025",
                    "spec.k8s.updateStrategy.rollingUpdate.partition",
                    f"the TarsK8S v1.4.1 controller would copy partition "
                    f"{strategy.rolling_update.partition} into the StatefulSet, which the API "
                    "server refuses (a partition is at least 0); write 0",
                )
            )
    return found


def _crd_pattern_violations(stack: Stack) -> list[Violation]:
    """TS021 for what the TServer CRD's own patterns refuse although Kubernetes admits it:
    release images with ``@``, uppercase or ``_`` (a digest-pinned image is fine in expand
    mode), and env key references with ``.`` or ``_`` (``db.password``)."""
    crd_pattern = re.compile(P_IMAGE_OR_EMPTY)
    found: list[Violation] = []
    for server in stack.servers:
        release = server.spec.release
        if release is None:
            continue
        for field, value in (("image", release.image), ("nodeImage", release.node_image)):
            if isinstance(value, str) and crd_pattern.fullmatch(value) is None:
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
        for index, env in enumerate(server.spec.k8s.env or ()):
            source = env.value_from
            if source is None:
                continue
            refs = (
                ("secretKeyRef", source.secret_key_ref),
                ("configMapKeyRef", source.config_map_key_ref),
            )
            for field, ref in refs:
                if ref is not None and _CRD_KEY.fullmatch(ref.key) is None:
                    found.append(
                        violation(
                            server,
                            "TS021",
                            ("spec", "k8s", "env", index, "valueFrom", field, "key"),
                            f"crd mode: the TServer CRD (v1.4.1) accepts only letters, digits "
                            f"and inner '-' in {field}.key, so the cluster refuses {ref.key!r} "
                            "(Kubernetes itself admits it: expand mode writes it as is)",
                        )
                    )
    return found


# The v1.4.1 TServer CRD's pattern of env secretKeyRef/configMapKeyRef keys: narrower than
# Kubernetes' own key rule (no '.' or '_'), which the models follow (issue #9).
_CRD_KEY = re.compile(r"^([0-9A-Za-z][-0-9A-Za-z]*)?[0-9A-Za-z]$")


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


def _annotations(doc: dict[str, Any]) -> dict[str, Any]:
    return doc.get("metadata", {}).get("annotations") or {}


def _drop_conversion(doc: dict[str, Any]) -> None:
    """Go deletes an empty or unreadable annotation from the converted object."""
    meta = doc.get("metadata", {})
    annotations = meta.get("annotations")
    if not annotations or CONVERSION_ANNOTATION not in annotations:
        return
    del annotations[CONVERSION_ANNOTATION]
    if not annotations:
        del meta["annotations"]


def _put_conversion(doc: dict[str, Any], value: str) -> None:
    meta = doc.setdefault("metadata", {})
    annotations = meta.get("annotations") or {}
    annotations[CONVERSION_ANNOTATION] = value
    meta["annotations"] = annotations


def _server_to_v1beta3(doc: dict[str, Any]) -> dict[str, Any]:
    k8s = doc["spec"]["k8s"]
    gate = k8s.pop("readinessGate", None)
    gates = [gate] if gate else []
    restored = read_server_annotation(_annotations(doc))
    if restored is None:
        _drop_conversion(doc)
    else:  # the annotation stays on the object, as in Go
        for key, value in (("command", restored.command), ("args", restored.args)):
            if value:
                k8s[key] = list(value)
            else:
                k8s.pop(key, None)  # nil or empty: omitted (omitempty)
        gates.extend(restored.readiness_gates or [])
    k8s["readinessGates"] = gates
    return doc


def _server_to_v1beta2(doc: dict[str, Any]) -> dict[str, Any]:
    k8s = doc["spec"]["k8s"]
    gates = k8s.pop("readinessGates", None) or []
    command = k8s.pop("command", None)
    args = k8s.pop("args", None)
    if gates:
        k8s["readinessGate"] = gates[0]
    _put_conversion(doc, server_annotation(command, args, gates[1:] if len(gates) > 1 else None))
    return doc


def _framework_to_v1beta3(doc: dict[str, Any]) -> dict[str, Any]:
    if "imageRegistry" in doc:
        doc["imageUpload"] = doc.pop("imageRegistry")
    executor = read_framework_annotation(_annotations(doc))
    if executor is None:
        _drop_conversion(doc)
    else:  # the annotation stays on the object, as in Go
        build = doc.setdefault("imageBuild", {})
        build["executor"] = {key: value for key, value in executor.items() if value}
    return doc


def _framework_to_v1beta2(doc: dict[str, Any]) -> dict[str, Any]:
    if "imageUpload" in doc:
        doc["imageRegistry"] = doc.pop("imageUpload")
    executor = (doc.get("imageBuild") or {}).pop("executor", None) or {}
    annotation = framework_annotation(executor.get("image", ""), executor.get("secret", ""))
    _put_conversion(doc, annotation)
    return doc


__all__ = [
    "CONVERSION_ANNOTATION",
    "V1BETA2",
    "V1BETA3",
    "conversion_violations",
    "convert",
    "crd_document",
    "crd_documents",
    "refused_statefulset_violations",
]
